//! The loop as one library call: [`LoopJob::run`] plays (or imports), tunes and gates each
//! round, records it in `loop.jsonl`, and tells the caller what happens through
//! [`LoopEvent`]s; `texel loop` is a front over it.

use crate::error::{io, LoopError};
use crate::records::{read_rounds, RoundLine};
use crate::settings::{Gate, LoopSettings, Verdict};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use texel_arena::{MatchOptions, Progress};
use texel_dataset::Dataset;
use texel_import::ImportStats;
use texel_run::{record_settings, remove_if_there};
use texel_run::{Recorded, Rerun, Rerunning};
use texel_tune::{SessionEvent, TraceDataset, Tuned};

/// A loop: its settings, what to do with an earlier loop in its folder, and the verdict of
/// an outside gate it asked for.
#[derive(Clone, Debug)]
pub struct LoopJob {
    /// What the rounds depend on.
    pub settings: LoopSettings,
    /// An earlier loop in the folder: continue it (its settings are checked) or delete it.
    pub rerun: Rerun,
    /// The verdict of the outside gate the loop waits for.
    pub verdict: Option<Verdict>,
}

/// What the loop does on its way.
pub enum LoopEvent<'e> {
    /// The loop goes on in its folder (`Resumed`, with what the check of the recorded
    /// settings found), or deleted an earlier loop there (`Discarded`).
    Rerun(Rerunning, &'e Recorded),
    /// A round's self-play starts: its match and the games kept from a stopped run.
    Playing(u32, &'e MatchOptions, usize),
    /// A self-play game finished.
    Game(&'e Progress<'e>),
    /// A round's outside PGN file was imported.
    Imported(&'e Path, &'e ImportStats),
    /// A round has its games and labelled positions (counts).
    Played(u32, u64, u64),
    /// The tuning's own event (a tune session: its positions loaded and scored with the
    /// values it starts from, `K` fitted or a stopped tuning's, then its passes).
    Tune(SessionEvent<'e, Dataset>),
    /// The tuning ended (or was interrupted): its result, every change, and whether
    /// validation kept the start.
    Tuned(&'e Tuned<texel_eval::Params>),
    /// An outside engine's tuning's own event (its trace of every round's positions).
    TuneOutside(SessionEvent<'e, TraceDataset>),
    /// An outside engine's tuning ended (or was interrupted).
    TunedOutside(&'e Tuned<Vec<i32>>),
    /// A round's positions cannot be tuned on (one result, or no K fits them): the round
    /// keeps the best table as its tuned one, and plays no gate.
    TuningKeptBest(u32, &'e texel_tune::SessionError),
    /// A round's gate is not played: the tuning kept the round's start, the best itself.
    GateSkipped(u32),
    /// A round's gate match starts: its match and the games kept from a stopped run.
    Gating(u32, &'e MatchOptions, usize),
    /// A gate game finished.
    GateGame(&'e Progress<'e>),
    /// A round waits for games from outside: the folder to put them in, and the table to
    /// play them with.
    NeedGames(u32, &'e Path, &'e Path),
    /// A round waits for the verdict of its outside gate: the tuned table and the best.
    NeedVerdict(u32, &'e Path, &'e Path),
    /// A round finished: its line in `loop.jsonl`.
    Round(&'e RoundLine),
}

/// Copies `from` over `to` (through a temporary file: `to` is whole or as it was).
pub(crate) fn copy_file(from: &Path, to: &Path) -> Result<(), LoopError> {
    let bytes = std::fs::read(from).map_err(io(from))?;
    texel_files::write_atomically(to, &bytes).map_err(io(to))
}

/// How a run of the loop ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LoopEnd {
    /// Every round is done.
    Finished,
    /// Stopped on request; the work so far is kept and the same job goes on.
    Interrupted,
    /// Outside games or an outside verdict are needed; the same job then goes on.
    Waiting,
}

/// A step's result, or how the round stopped.
pub(crate) type Step<T> = Result<Result<T, LoopEnd>, LoopError>;

impl LoopJob {
    /// Checks the settings before anything is played or written.
    ///
    /// # Errors
    /// The first setting at fault.
    pub fn check(&self) -> Result<(), LoopError> {
        self.settings.check()?;
        if self.verdict.is_some() && self.settings.gate != Gate::Outside {
            return Err(LoopError::Setting(
                "--verdict is the result of an outside gate: give it with --gate outside".into(),
            ));
        }
        Ok(())
    }

    /// Runs the rounds not yet done. `interrupt` stops the loop at its next safe point.
    ///
    /// # Errors
    /// Bad settings, another loop running in the folder, an earlier loop without `rerun`
    /// saying what to do, other settings than the loop continued, or a step failed (its
    /// files are kept).
    pub fn run(
        &self,
        interrupt: &AtomicBool,
        on: &mut dyn FnMut(LoopEvent),
    ) -> Result<LoopEnd, LoopError> {
        self.check()?;
        let dir = &self.settings.dir;
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        // Held until the loop returns: a second loop in the folder is refused at once.
        let _lock = texel_files::RunLock::beside(&self.settings.rounds_file())?;
        self.continues(on)?;
        self.write_start()?;
        for round in self.finished()? + 1..=self.settings.rounds {
            if let Err(end) = self.run_round(round, interrupt, on)? {
                return Ok(end);
            }
        }
        Ok(LoopEnd::Finished)
    }

    /// The rounds `loop.jsonl` records as finished.
    fn finished(&self) -> Result<u32, LoopError> {
        let path = self.settings.rounds_file();
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(io(&path)(e)),
        };
        let rounds = read_rounds(&text).map_err(|cause| LoopError::Rounds { path, cause })?;
        Ok(rounds.len() as u32)
    }

    /// Decides whether the run continues the loop in the folder and records its settings.
    fn continues(&self, on: &mut dyn FnMut(LoopEvent)) -> Result<(), LoopError> {
        let s = &self.settings;
        let earlier = s.best().exists() || s.rounds_file().exists();
        let did = self.rerun.decide(&s.dir, earlier, || self.discard())?;
        let file = s.dir.join("settings.json");
        let recorded =
            record_settings(&file, "loop", &s.fingerprint()?, did == Rerunning::Resumed)?;
        on(LoopEvent::Rerun(did, &recorded));
        Ok(())
    }

    /// Deletes what a loop writes in its folder: rounds, best.json, loop.jsonl, settings.
    fn discard(&self) -> Result<(), texel_run::RunFileError> {
        let dir = &self.settings.dir;
        let gone = |path: &Path, cause| texel_run::RunFileError::Io {
            path: path.to_path_buf(),
            cause,
        };
        for entry in std::fs::read_dir(dir).map_err(|e| gone(dir, e))?.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            match name.as_str() {
                "best.json" | "loop.jsonl" | "settings.json" => remove_if_there(&path)?,
                n if n.starts_with("round-") && path.is_dir() => {
                    std::fs::remove_dir_all(&path).map_err(|e| gone(&path, e))?
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The starting values, written as `best.json` before round 1: texel's parameters, or
    /// an outside engine's start values file.
    fn write_start(&self) -> Result<(), LoopError> {
        let best = self.settings.best();
        if best.exists() {
            return Ok(());
        }
        match self.settings.outside_engine()? {
            Some(engine) => copy_file(&engine.start, &best),
            None => Ok(self.settings.start()?.save(&best)?),
        }
    }

    /// Plays (or imports), tunes and gates one round, and records it.
    fn run_round(
        &self,
        round: u32,
        interrupt: &AtomicBool,
        on: &mut dyn FnMut(LoopEvent),
    ) -> Step<()> {
        let dir = self.settings.round_dir(round);
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let (games, positions) = match self.play_round(round, &dir, interrupt, on)? {
            Ok(done) => done,
            Err(end) => return Ok(Err(end)),
        };
        let errors = match self.tune_round(round, &dir, interrupt, on)? {
            Ok(errors) => errors,
            Err(end) => return Ok(Err(end)),
        };
        let (gate, passed) = match self.gate_round(round, &dir, interrupt, on)? {
            Ok(gated) => gated,
            Err(end) => return Ok(Err(end)),
        };
        if passed {
            copy_file(&dir.join("tuned.json"), &self.settings.best())?;
        }
        let line = RoundLine {
            version: crate::records::LOOP_VERSION,
            round,
            games,
            positions,
            error: errors,
            gate: self.gate_line(&gate, passed)?,
        };
        self.record(&line)?;
        on(LoopEvent::Round(&line));
        Ok(Ok(()))
    }

    /// Appends the round's line to `loop.jsonl`.
    fn record(&self, line: &RoundLine) -> Result<(), LoopError> {
        use std::io::Write;
        let path = self.settings.rounds_file();
        let mut f = texel_files::open_lines_for_append(&path).map_err(io(&path))?;
        let text = serde_json::to_string(line).expect("plain data");
        writeln!(f, "{text}").map_err(io(&path))
    }
}
