//! `texel label`: labelled positions scored by an outside UCI engine (a teacher).

use anyhow::{bail, Result};
use clap::Args;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use texel_label::{label, Ending, Event, LabelSettings, Limit, Shard, Tally, Teacher};

#[derive(Args)]
pub struct LabelArgs {
    /// Labelled positions in any form texel reads (EPD and FEN forms, also `.gz`, `.zst`;
    /// records with --label-format). Games: `texel import` them first.
    #[arg(long)]
    epd: PathBuf,
    /// The output EPD: every position with its result and game, the teacher's score as
    /// `ce` (the side to move's) and its win/draw/loss chances as `wdl W D L;`.
    #[arg(long)]
    out: PathBuf,
    /// The teacher: a UCI engine's command, its arguments after it (`"gnuchess --uci"`).
    #[arg(long, value_name = "CMD")]
    engine: String,
    /// Nodes the teacher searches each position.
    #[arg(long, conflicts_with = "depth", value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// Depth the teacher searches each position.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    depth: Option<u32>,
    /// Engine processes, one per thread (each engine runs as its own `Threads` option says:
    /// 1 unless set, which keeps its scores the same from run to run).
    #[arg(long)]
    threads: Option<usize>,
    /// A UCI option of the teacher, `NAME=VALUE` (repeat it): `Hash=64`, `UCI_ShowWDL=false`.
    #[arg(long = "option", value_name = "NAME=VALUE", value_parser = engine_option)]
    options: Vec<(String, String)>,
    /// The teacher's hash in MB (cleared before each position).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..))]
    hash: u64,
    /// Seconds a position may take before the engine is taken as hung and restarted.
    #[arg(long, default_value_t = 60.0, value_parser = positive_seconds)]
    timeout: f64,
    /// Tries of a position, each after a restart, before it is written with its result alone.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..))]
    tries: u64,
    /// Score only the K-th of N equal runs of consecutive positions (`--shard 3/8`); the
    /// outputs of shards 1 to N joined in order (`cat`) are the whole file's.
    #[arg(long, value_name = "K/N", value_parser = Shard::parse)]
    shard: Option<Shard>,
    /// Forget what an earlier run kept beside --out (OUT.part) and start again.
    #[arg(long)]
    fresh: bool,
    /// Whose view the input's labels take: `white` (the default) or `stm`.
    #[arg(long, value_enum, value_name = "SIDE")]
    labels: Option<crate::data_args::LabelSide>,
    /// Read every input line's label in this form (a binary form reads records).
    #[arg(long, value_name = "FORM", value_parser = crate::data_args::label_format_names())]
    label_format: Option<String>,
}

/// `NAME=VALUE`.
fn engine_option(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => {
            Ok((name.trim().to_string(), value.trim().to_string()))
        }
        _ => Err(format!("`{text}`: an engine option is NAME=VALUE")),
    }
}

fn positive_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s < 1e9 => Ok(s),
        _ => Err(format!("`{text}`: seconds above 0")),
    }
}

impl LabelArgs {
    fn settings(&self) -> Result<LabelSettings> {
        let limit = match (self.nodes, self.depth) {
            (Some(n), _) => Limit::Nodes(n),
            (None, Some(d)) => Limit::Depth(d),
            (None, None) => bail!("give the teacher's limit: --nodes N or --depth D"),
        };
        let mut words = self.engine.split_whitespace().map(String::from);
        let Some(cmd) = words.next() else {
            bail!("--engine names no command")
        };
        let teacher = Teacher {
            cmd: cmd.into(),
            args: words.collect(),
            options: self.options.clone(),
            hash_mb: usize::try_from(self.hash)?,
            limit,
        };
        Ok(LabelSettings {
            teacher,
            threads: crate::threads(self.threads, "--threads"),
            timeout: Duration::from_secs_f64(self.timeout),
            tries: usize::try_from(self.tries)?,
            shard: self.shard.unwrap_or(Shard::WHOLE),
        })
    }
}

pub fn run(args: &LabelArgs) -> Result<()> {
    crate::paths::Files::new()
        .read("--epd", Some(&args.epd))
        .write("--out", Some(&args.out))
        .check()?;
    let settings = args.settings()?;
    let reading = crate::data_args::label_reading(false, args.labels, args.label_format.as_deref());
    let stop = crate::catch_interrupts()?;
    let bar = crate::progress_bar(0, "labelling {bar:40} {pos}/{len} {per_sec} eta {eta}");
    let start = Instant::now();
    let mut show = |event: Event| match event {
        Event::Begin { total, done } => {
            let t = &settings.teacher;
            bar.suspend(|| {
                eprintln!(
                    "labelling {total} positions of {} with {} at {}, {} engines",
                    args.epd.display(),
                    t.cmd.display(),
                    t.limit,
                    settings.threads
                )
            });
            bar.set_length(total);
            bar.set_position(done);
            bar.reset_eta();
            if done > 0 {
                bar.suspend(|| eprintln!("going on from {done} of {total} positions done"));
            }
        }
        Event::Done(done) => bar.set_position(done),
        Event::Failed { line, fen, words } => bar.suspend(|| {
            eprintln!(
                "warning: {} line {line} ({fen}): the teacher failed, restarted: {words}",
                args.epd.display()
            )
        }),
    };
    let ending = label(
        &args.epd, reading, &args.out, &settings, args.fresh, stop, &mut show,
    )?;
    bar.finish_and_clear();
    let secs = start.elapsed().as_secs_f64();
    match ending {
        Ending::Finished(tally) => {
            summary(&tally, secs, &settings);
            say!(
                "wrote {} positions to {}",
                tally.written,
                args.out.display()
            );
        }
        Ending::Stopped { tally, done, total } => {
            summary(&tally, secs, &settings);
            say!(
                "stopped: {done} of {total} positions done and kept in {}.part; run the same \
                 command again to go on",
                args.out.display()
            );
        }
    }
    Ok(())
}

/// What the run wrote, on stderr.
fn summary(tally: &Tally, secs: f64, settings: &LabelSettings) {
    let t = &settings.teacher;
    eprintln!(
        "{} positions scored by {} at {} ({} with win/draw/loss chances), {:.1} s in this run",
        tally.scored,
        t.cmd.display(),
        t.limit,
        tally.with_wdl,
        secs
    );
    if tally.replaced > 0 {
        eprintln!(
            "{} positions had a score of their own (ce): replaced by the teacher's",
            tally.replaced
        );
    }
    if tally.unscored > 0 {
        eprintln!(
            "warning: {} positions the teacher failed on {} times are written with their \
             results alone",
            tally.unscored, settings.tries
        );
    }
    if tally.bad_lines() > 0 {
        let reasons: Vec<String> = tally.bad.iter().map(|(r, n)| format!("{n} {r}")).collect();
        eprintln!(
            "skipped {} unreadable lines ({}); the first: {}",
            tally.bad_lines(),
            reasons.join(", "),
            tally.bad_examples.join("; ")
        );
    }
}
