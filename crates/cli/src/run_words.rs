//! A tune run on the terminal, in memory or streamed alike: a bar for each pass and a line
//! after it (a streamed run's Newton iterations and polish rounds a line each), why the run
//! streams, what changed, and how it ended.

use crate::memory::MemorySize;
use anyhow::Result;
use texel_solve::{Descent, Model, ADAM_EPOCHS_PER_PASS};
use texel_tune::log::{PassKind, ValueChange};
use texel_tune::{Cleared, Event, PassRecord, RunEnd, StreamEvent, StreamWhy, Streamed, Tuned};

/// Says what `--fresh` cleared of an earlier run.
pub(crate) fn say_cleared(cleared: &Cleared) {
    match cleared {
        Cleared::Checkpoint(path) => {
            say!("--fresh: removed the earlier checkpoint {}", path.display())
        }
        Cleared::Log(path) => say!("--fresh: emptied the earlier log {}", path.display()),
    }
}

/// Why a run that was not interrupted ended, in words.
fn end_words(end: RunEnd) -> &'static str {
    match end {
        RunEnd::Converged => {
            "converged (the last pass moved nothing, or gained less than its method's tolerance)"
        }
        RunEnd::PassLimit => "pass limit reached",
        RunEnd::TimeLimit => "time limit reached (--max-time): the values so far are written",
        RunEnd::Patience => {
            "validation error stopped improving (kept the parameters best on validation)"
        }
        RunEnd::Interrupted => "interrupted (the checkpoint is kept)",
    }
}

/// Says why a run that was not interrupted ended, and when validation kept its start.
pub(crate) fn say_finished<V>(tuned: &Tuned<V>) {
    let why = end_words(tuned.result.end);
    say!("finished after {} passes: {why}", tuned.result.passes);
    say!(
        "{}",
        written_words(
            tuned.kept_start,
            tuned.result.best_pass,
            tuned.result.passes
        )
    );
}

/// Which pass's values a run wrote, in words: the start's (`kept_start`), the one
/// validation chose (`best`), or the last of its `passes`.
pub(crate) fn written_words(kept_start: bool, best: Option<usize>, passes: usize) -> String {
    match (kept_start, best) {
        (true, _) => START_KEPT.to_string(),
        // The passes began elsewhere than the run (a path's best solve, out of time).
        (false, Some(0)) => "no pass beat the validation error of the values the passes began \
                             from: those are written"
            .to_string(),
        (false, Some(pass)) => format!(
            "the values written are pass {pass}'s: the lowest validation error of the start \
             and the {}",
            crate::counted(passes as u64, ("pass", "passes"))
        ),
        (false, None) => "the values written are the last pass's".to_string(),
    }
}

/// What a run that gives its start back says, in memory or streamed.
pub(crate) const START_KEPT: &str = "no pass beat the start's validation error: the start is \
                                      kept (the values written are the ones the run began from)";

/// The progress of a pass: a bar while the variables are walked, then, while the values
/// with a stored gain are moved (the pass ends when none is left), a spinner with how
/// many are left, so the bar is never full before the pass ends.
struct PassBar {
    pb: indicatif::ProgressBar,
    moving: bool,
}

impl PassBar {
    const WALK: &'static str =
        "pass {msg} {bar:30} {pos}/{len} variables walked, {elapsed} elapsed, eta {eta}";
    const MOVE: &'static str =
        "pass {msg} {spinner} walk done, moving the values with a stored gain: {prefix} left";
    const WHOLE: &'static str = "pass {msg} {spinner} over every position at once, {elapsed}";

    fn new(vars: usize) -> PassBar {
        PassBar {
            pb: crate::progress_bar(vars as u64, Self::WALK),
            moving: false,
        }
    }

    fn show(&mut self, walked: usize, pending: usize, message: String) {
        let moving = pending > 0;
        if moving != self.moving {
            let template = if moving { Self::MOVE } else { Self::WALK };
            self.restyle(template);
            self.moving = moving;
        }
        self.pb.set_position(walked as u64);
        self.pb.set_prefix(pending.to_string());
        self.pb.set_message(message);
    }

    /// Shows a pass over every position at once beginning (`message`): a spinner with its
    /// time, no variables to count.
    fn show_whole(&mut self, message: String) {
        self.restyle(Self::WHOLE);
        self.moving = true;
        self.pb.reset_elapsed();
        self.pb
            .enable_steady_tick(std::time::Duration::from_millis(200));
        self.pb.set_message(message);
    }

    fn restyle(&self, template: &str) {
        let style = indicatif::ProgressStyle::with_template(template).expect("valid");
        self.pb.set_style(style);
    }
}

/// What a pass's end is given to: its record, and the descent where the positions are in
/// memory.
pub(crate) type OnPass<'a, M> = dyn FnMut(&PassRecord, Option<&Descent<M>>) -> Result<()> + 'a;

/// A tuning run as the terminal shows it: a bar for each pass, a line after it.
pub(crate) struct TuneProgress {
    bar: PassBar,
    start_error: f64,
    last_seconds: f64,
}

impl TuneProgress {
    /// For a run over `vars` variables from `start_error`, `seconds` into it.
    pub(crate) fn new(vars: usize, start_error: f64, seconds: f64) -> TuneProgress {
        TuneProgress {
            bar: PassBar::new(vars),
            start_error,
            last_seconds: seconds,
        }
    }

    /// Shows `event`; after a pass, calls `on_pass` (a failure is a warning).
    pub(crate) fn show<M: Model>(&mut self, event: &Event<M>, on_pass: &mut OnPass<M>) {
        match event {
            Event::Progress(texel_tune::Progress {
                pass,
                walked,
                pending,
                moves,
                error,
                sample,
                whole,
                ..
            }) => {
                if *whole {
                    let message = format!("{pass}: from error {error:.8}");
                    return self.bar.show_whole(message);
                }
                let message = match sample {
                    Some(n) => format!("{pass} (warm start on 1/{n}): error {error:.8}"),
                    None => format!(
                        "{pass}: error {error:.8} (down {:.2e})",
                        self.start_error - error
                    ),
                };
                (self.bar).show(*walked, *pending, format!("{message}, {moves} moves"));
            }
            Event::Pass(r, descent) => {
                let pass_seconds = r.seconds - self.last_seconds;
                self.bar.pb.suspend(|| print_pass(r, pass_seconds));
                self.last_seconds = r.seconds;
                if let Err(e) = on_pass(r, *descent) {
                    (self.bar.pb).suspend(|| eprintln!("warning: report not written: {e:#}"));
                }
            }
            Event::Checkpoint(_) => {}
        }
    }

    /// Clears the bar.
    pub(crate) fn finish(&self) {
        self.bar.pb.finish_and_clear();
    }
}

/// What a step off a saddle did, in words (`texel_solve::MAX_LIFTS`).
pub(crate) fn lift_words(values: usize) -> String {
    format!(
        "values flat (a square at a zero sum, a sum weighed by a weight at zero) where Newton \
         started or converged: {values} of them stepped off the saddle, along the error's most \
         negative curvature; its iterations go on"
    )
}

/// One line per pass: errors, what moved, the pass's own time and the run's.
fn print_pass(r: &PassRecord, pass_seconds: f64) {
    let (pass, error, changed) = (r.pass, r.train_error, r.summary.changed);
    let kind = match r.kind {
        PassKind::Newton => "Newton iteration".to_string(),
        _ => format!("{ADAM_EPOCHS_PER_PASS} Adam epochs"),
    };
    match r.real_error {
        Some(real) => say_part!(
            "pass {pass}: error {error:.8} ({kind}; real values {real:.8}), \
             {changed} values moved"
        ),
        None => say_part!(
            "pass {pass}: error {error:.8}, {changed} variables moved ({} moves, {} probes)",
            r.summary.moves,
            r.summary.probes,
        ),
    }
    if r.summary.lifted > 0 {
        say_part!("; {}", lift_words(r.summary.lifted));
    }
    say_part!(", pass {pass_seconds:.1}s, total {:.1}s", r.seconds);
    if let Some(v) = r.validation_error {
        say_part!(", validation {v:.8}");
    }
    if let Some(n) = r.sample {
        say_part!(" (warm start: error of about one segment in {n})");
    }
    say!();
}

/// Prints how many values changed and the 20 largest changes with their support.
pub(crate) fn say_changes(changes: &[ValueChange]) {
    if changes.is_empty() {
        say!("no value changed");
        return;
    }
    say!(
        "{} values changed; the largest (support: positions it counts in):",
        changes.len()
    );
    for c in changes.iter().take(20) {
        let (b, a) = (c.before, c.after);
        say!(
            "  {:<40} {b:>6} -> {a:>6} ({:+}), support {}",
            c.value,
            a - b,
            c.support
        );
    }
}

/// Why the run reads the positions from the file in every pass, in words (`None`: asked,
/// nothing to say).
pub(crate) fn streaming_words(why: StreamWhy, report: bool) -> Option<String> {
    let said = match why {
        StreamWhy::Asked => return None,
        StreamWhy::Resumed => "the checkpoint is a streamed run's: it goes on streamed".into(),
        StreamWhy::TooLarge { need, budget } => {
            let (need, budget) = (MemorySize(need), MemorySize(budget));
            format!(
                "tuned in memory it would take about {need}, more than --memory {budget}: \
                 streamed instead (as --stream; --memory {need} keeps it in memory)"
            )
        }
    };
    let page = match report {
        true => "; --report draws no page of a streamed run",
        false => "",
    };
    Some(format!("{said}{page}"))
}

/// Says how a streamed run ended (`kept_start`: validation gave the start back), in the
/// in-memory run's words.
pub(crate) fn say_streamed_end(ended: &Streamed, kept_start: bool) {
    let why = end_words(ended.end);
    // Before a first iteration there are no real values to speak of.
    let real = match ended.iterations {
        0 => String::new(),
        _ => format!(", real values {:.8}", ended.real_error),
    };
    say!(
        "finished after {} ({}{real}; {}; {} values tuned): {why}",
        crate::counted(ended.passes as u64, ("pass", "passes")),
        crate::counted(ended.iterations, ("Newton iteration", "Newton iterations")),
        crate::counted(
            ended.passes as u64 - ended.iterations.min(ended.passes as u64),
            ("polish round", "polish rounds")
        ),
        ended.tuned.len()
    );
    say!(
        "{}",
        written_words(kept_start, ended.best_pass, ended.passes)
    );
    crate::data_args::say_errors("end", ended.k, ended.error, ended.validation);
}

/// What a streamed run says besides what a run in memory says: the K it chose, a warning
/// on its start.
pub(crate) fn stream_words(e: StreamEvent) -> Option<String> {
    match e {
        StreamEvent::Fitted(chosen) => Some(crate::data_args::k_words(chosen)),
        StreamEvent::Warning(warning) => Some(warning),
        // The session shows a streamed run's own events as a run in memory's.
        StreamEvent::Job(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_values_written_are_named_by_their_pass() {
        assert_eq!(written_words(true, Some(0), 3), START_KEPT);
        // Passes that began from a path's best solve (the run out of time on the path).
        let began = written_words(false, Some(0), 0);
        assert!(
            began.contains("the values the passes began from"),
            "{began}"
        );
        let chosen = written_words(false, Some(2), 5);
        assert!(
            chosen.contains("pass 2's") && chosen.ends_with("the 5 passes"),
            "{chosen}"
        );
        assert!(written_words(false, Some(1), 1).ends_with("the 1 pass"));
        assert_eq!(
            written_words(false, None, 4),
            "the values written are the last pass's"
        );
    }
}
