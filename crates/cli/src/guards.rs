//! The over-fitting guards of `texel tune` as it reports them: values with too little
//! support held at their start, the L2 pull toward the start (fixed or chosen on the
//! validation split), and the declared constraints; the work is [`texel_tune::TuneJob`]'s.

use texel_solve::Model;
use texel_tune::{JobEvent, LambdaChoice, LambdaPoint, PathWalk, PullChoice, PullPoint};
pub use texel_tune::{DEFAULT_MIN_SUPPORT, L2};

/// Says what a tune job reports before its run: the values held, the trials of `--l2
/// auto`, and the start (`traces`: the values have no declared constraints).
pub fn say_begin<M: Model>(event: &JobEvent<M>, traces: bool) {
    if let Some(words) = begin_words(event, traces) {
        say!("{words}");
    }
}

/// What [`say_begin`] says of `event` (`None`: nothing; a path's bar shows its steps
/// begun, the run's own events have their own words).
pub fn begin_words<M: Model>(event: &JobEvent<M>, traces: bool) -> Option<String> {
    Some(match event {
        JobEvent::Held { held, min_support } => held_words(held.len(), *min_support),
        JobEvent::Pull(point) => pull_words(point),
        JobEvent::PullChosen(choice) => choice_words(choice),
        JobEvent::Lambda(point) => lambda_words(point),
        JobEvent::LambdaChosen(choice) => lambda_choice_words(choice),
        JobEvent::Fresh(vars, guards) => format!(
            "tuning {vars} variables (L2 pull {}, constraints {})",
            guards.l2,
            match (guards.constraints, traces) {
                (false, _) => "off",
                (true, true) => "none declared",
                (true, false) => "kept",
            }
        ),
        JobEvent::Resumed(passes, vars) => {
            format!("resuming after {passes} passes ({vars} variables)")
        }
        JobEvent::ResumedOnPath(walk, solved) => resumed_on_path_words(*walk, *solved),
        JobEvent::Run(_) | JobEvent::PullSolving(_) | JobEvent::LambdaSolving(_) => return None,
    })
}

/// A path of pulls (or λs) on the terminal while it is walked: a bar of the steps solved
/// (the path may end before its last), the step under way and the time, each step's line
/// printed above it.
pub struct PathBar(indicatif::ProgressBar);

impl PathBar {
    const TEMPLATE: &'static str = "{prefix} {bar:20} {pos}/{len} solved, {elapsed}: {msg}";

    /// The bar of the path `flag` walks (`--l2 auto`), `steps` long at most, `solved` of
    /// them solved already.
    pub fn new(flag: &str, steps: usize, solved: u64) -> PathBar {
        let pb = crate::progress_bar(steps as u64, Self::TEMPLATE);
        pb.set_position(solved);
        pb.set_prefix(flag.to_string());
        pb.enable_steady_tick(std::time::Duration::from_millis(200));
        PathBar(pb)
    }

    /// The solve of `step` begins.
    pub fn solving(&self, step: String) {
        self.0.set_message(format!("solving {step}"));
    }

    /// A step solved: its `line` said above the bar.
    pub fn solved(&self, line: String) {
        self.0.suspend(|| say!("{line}"));
        self.0.inc(1);
    }

    /// The path walked: the bar cleared.
    pub fn finish(self) {
        self.0.finish_and_clear();
    }
}

/// A run resumed on one of its paths, after `solved` of its steps, in words.
pub fn resumed_on_path_words(walk: PathWalk, solved: usize) -> String {
    let (path, steps) = match walk {
        PathWalk::Pulls => ("the path of pulls", ("pull", "pulls")),
        PathWalk::Lambdas => ("the path of λs", ("λ", "λs")),
        PathWalk::PullsAgain => (
            "the path of pulls again (at the λ chosen)",
            ("pull", "pulls"),
        ),
    };
    format!(
        "resuming {path} after {} solved (told again below; the walk goes on from its \
         checkpoint as the unbroken run would)",
        crate::counted(solved as u64, steps)
    )
}

/// Values held for want of support, in words.
pub fn held_words(count: usize, min_support: usize) -> String {
    format!(
        "held {count} values at their start: they count in fewer than {min_support} training \
         positions (--min-support 0 tunes them)"
    )
}

/// What a coarse step of a path is, after its pull or λ (nothing after a whole one).
fn coarse_words(coarse: bool) -> &'static str {
    match coarse {
        true => " (coarse, curves and formulas held)",
        false => "",
    }
}

/// A pull of `--l2 auto`'s path in words.
pub fn pull_words(p: &PullPoint) -> String {
    format!(
        "--l2 auto: pull {}{}: training {:.8}, held out {:.8} ({}, {:.1} s)",
        p.l2,
        coarse_words(p.coarse),
        p.train,
        p.held_out,
        crate::counted(p.iterations, ("Newton iteration", "Newton iterations")),
        p.seconds
    )
}

/// The pull `--l2 auto` chose in words.
pub fn choice_words(choice: &PullChoice) -> String {
    match *choice {
        PullChoice::Path {
            l2,
            held_out,
            start,
            solved,
        } => format!(
            "--l2 auto chose pull {l2} of the {solved} solved: held out {held_out:.8} (the start \
             {start:.8})"
        ),
        PullChoice::Default(l2) => format!(
            "L2 pull {l2}: nothing is held out to choose it on (positions with game ids hold \
             out 10 % of their games; --validate PERCENT holds out any; --l2 sets it)"
        ),
        PullChoice::Stopped(l2) => format!(
            "L2 pull {l2}: the path of pulls was stopped (Ctrl-C or --max-time) before it \
             solved a pull"
        ),
    }
}

/// A λ of `--lambda auto`'s path in words.
pub fn lambda_words(p: &LambdaPoint) -> String {
    format!(
        "--lambda auto: λ {}{}: training {:.8}, held-out results {:.8} ({}, {:.1} s)",
        p.lambda,
        coarse_words(p.coarse),
        p.train,
        p.held_out,
        crate::counted(p.iterations, ("Newton iteration", "Newton iterations")),
        p.seconds
    )
}

/// The λ `--lambda auto` chose in words.
pub fn lambda_choice_words(choice: &LambdaChoice) -> String {
    match *choice {
        LambdaChoice::Path {
            lambda,
            held_out,
            l2,
            solved,
        } => format!(
            "--lambda auto chose λ {lambda} of the {solved} solved at pull {l2}: held-out \
             results {held_out:.8}"
        ),
        LambdaChoice::Default(lambda) => format!("λ {lambda}: nothing held out to choose it on"),
        LambdaChoice::Stopped(lambda) => format!(
            "λ {lambda}: the path of λs was stopped (Ctrl-C or --max-time) before it solved a λ"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn l2_reads_auto_and_numbers() {
        assert_eq!("auto".parse::<L2>(), Ok(L2::Auto));
        assert_eq!("0.5".parse::<L2>(), Ok(L2::Fixed(0.5)));
        assert_eq!("0".parse::<L2>(), Ok(L2::Fixed(0.0)));
        assert!("-1".parse::<L2>().is_err());
        assert!("much".parse::<L2>().is_err());
    }
}
