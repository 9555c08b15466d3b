//! Step 2 of a round: a tune session from the best table on every round's positions (and
//! the extra EPD files), holding 10 % for validation, with the piece values fixed; a stopped
//! tuning goes on from its checkpoint.

use crate::engine::EngineDescription;
use crate::error::{io, LoopError};
use crate::job::{copy_file, LoopEnd, LoopEvent, LoopJob, Step};
use crate::records::RoundErrors;
use crate::rounds::same_values;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use texel_data::HeldOut;
use texel_dataset::{
    select, Blend, Filters, LoadOptions, Mix, Side, Source, SourcesFile, TableSubject,
};
use texel_eval::Params;
use texel_tune::log::{kept_pass, read_tune_log};
use texel_tune::{
    Outputs, RunEnd, RunOptions, Selection, Session, Subject, TraceSubject, TuneSettings,
    DEFAULT_L2, L2,
};

/// Passes in a row without a new best validation error that end a round's tuning.
const PATIENCE: usize = 2;

impl LoopJob {
    /// The labelled positions round `round` tunes on: every round's so far, then `--epd`.
    fn tuning_files(&self, round: u32) -> Vec<PathBuf> {
        let s = &self.settings;
        let mut epd: Vec<PathBuf> = (1..=round)
            .map(|r| s.round_dir(r).join("positions.epd"))
            .collect();
        epd.extend(s.epd.iter().cloned());
        epd
    }

    /// With `--sources`: the mix of round `round`, the tuning files as sources taken whole
    /// and then the sources file's, surveyed.
    fn tuning_mix(&self, round: u32) -> Result<Option<Mix>, LoopError> {
        let Some(path) = &self.settings.sources else {
            return Ok(None);
        };
        let file = SourcesFile::read(path)?;
        let own = self.tuning_files(round).into_iter().map(|path| Source {
            path,
            format: None,
            labels: Side::White,
            cap: None,
            weight: 1.0,
            filters: Filters::default(),
        });
        let mixed = SourcesFile {
            sources: own.chain(file.sources).collect(),
            ..file
        };
        Ok(Some(Mix::survey(&mixed)?))
    }

    /// Step 2: tunes into `tuned.json` (unless a stopped run already did), then the errors
    /// of the pass whose values were kept, from the tuning's log. Positions that cannot be
    /// tuned on (one result, or no K fits them: a round of few games) keep the best table.
    pub(crate) fn tune_round(
        &self,
        round: u32,
        dir: &Path,
        interrupt: &AtomicBool,
        on: &mut dyn FnMut(LoopEvent),
    ) -> Step<RoundErrors> {
        let (log, tuned) = (dir.join("tune-log.jsonl"), dir.join("tuned.json"));
        if !tuned.exists() {
            match self.tune(round, dir, interrupt, on) {
                Ok(Ok(())) => {}
                Ok(Err(end)) => return Ok(Err(end)),
                Err(LoopError::Tune(unfit)) if unfit.positions_unfit() => {
                    copy_file(&self.settings.best(), &tuned)?;
                    on(LoopEvent::TuningKeptBest(round, &unfit));
                }
                Err(e) => return Err(e),
            }
        }
        let text = match std::fs::read_to_string(&log) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            read => read.map_err(io(&log))?,
        };
        let passes =
            read_tune_log(&text).map_err(|cause| LoopError::TuneLog { path: log, cause })?;
        let kept = kept_pass(&passes);
        Ok(Ok(RoundErrors {
            train: kept.map(|p| p.train_error),
            validation: kept.and_then(|p| p.validation_error),
        }))
    }

    /// Tunes the round's positions from the best values (or goes on from a stopped
    /// tuning's checkpoint); the log gets the changes even when interrupted.
    fn tune(
        &self,
        round: u32,
        dir: &Path,
        interrupt: &AtomicBool,
        on: &mut dyn FnMut(LoopEvent),
    ) -> Step<()> {
        if let Some(engine) = self.settings.outside_engine()? {
            return self.tune_outside(&engine, round, dir, interrupt, on);
        }
        let mix = self.tuning_mix(round)?;
        let subject = TableSubject {
            files: mix
                .as_ref()
                .map_or_else(|| self.tuning_files(round), Mix::paths),
            options: LoadOptions {
                mix: mix.map(std::sync::Arc::new),
                held_out: HeldOut::share(100),
                blend: Blend {
                    lambda: self.settings.lambda,
                    k: None,
                },
                ..LoadOptions::default()
            },
            given: Params::load(&self.settings.best())?,
            vars: select(&Selection {
                freeze_material: true,
                ..Selection::default()
            })?,
            rust: None,
        };
        let session = self.session(subject, dir);
        let ended = session.run(interrupt, &|_| {}, &mut |e| on(LoopEvent::Tune(e)))?;
        on(LoopEvent::Tuned(&ended.tuned));
        Ok(ended_as_step(ended.tuned.result.end))
    }

    /// An outside engine's tuning: every round's positions traced by its own command
    /// (`tuning.epd` into `positions.trace`, once), then tuned from the best values, every
    /// value free (an outside engine's space says nothing of material).
    fn tune_outside(
        &self,
        engine: &EngineDescription,
        round: u32,
        dir: &Path,
        interrupt: &AtomicBool,
        on: &mut dyn FnMut(LoopEvent),
    ) -> Step<()> {
        let trace = dir.join("positions.trace");
        if !trace.exists() {
            let epd = dir.join("tuning.epd");
            let mut text = Vec::new();
            for file in self.tuning_files(round) {
                text.extend(std::fs::read(&file).map_err(io(&file))?);
            }
            texel_files::write_atomically(&epd, &text).map_err(io(&epd))?;
            engine.write_trace(&epd, &trace)?;
        }
        // While the best values are the engine's start file's copy, read the start file: a
        // values file of the wrong shape is then named as the file the user gave.
        let best = match same_values(&engine.start, &self.settings.best())? {
            true => engine.start.clone(),
            false => self.settings.best(),
        };
        let subject = TraceSubject {
            lambda: self.settings.lambda,
            ..TraceSubject::open(
                &trace,
                Some(&best),
                &Selection::default(),
                HeldOut::share(100),
            )?
        };
        let session = self.session(subject, dir);
        let ended = session.run(interrupt, &|_| {}, &mut |e| on(LoopEvent::TuneOutside(e)))?;
        on(LoopEvent::TunedOutside(&ended.tuned));
        Ok(ended_as_step(ended.tuned.result.end))
    }

    /// The round's tune session on `subject`: into `dir/tuned.json`, its checkpoint and
    /// log beside it, going on from a stopped tuning's checkpoint.
    fn session<S: Subject>(&self, subject: S, dir: &Path) -> Session<S> {
        let outputs = Outputs {
            checkpoint: dir.join("tune.ckpt"),
            log: Some(dir.join("tune-log.jsonl")),
            ..Outputs::new(dir.join("tuned.json"))
        };
        let resume = outputs
            .checkpoint
            .exists()
            .then(|| outputs.checkpoint.clone());
        Session {
            settings: TuneSettings {
                min_support: self.settings.min_support,
                // A round's table is judged by its gate match, not by held-out games: the
                // pull is fixed (a round's few games would mostly hold every value at
                // its start).
                l2: L2::Fixed(DEFAULT_L2),
                run: RunOptions {
                    passes: self.settings.passes,
                    patience: Some(PATIENCE),
                    ..RunOptions::default()
                },
                ..TuneSettings::default()
            },
            // Without a checkpoint the round's tuning starts afresh (a stale log is emptied).
            fresh: resume.is_none(),
            resume,
            ..Session::new(subject, outputs)
        }
    }
}

/// How a round's tuning that ended with `end` goes on.
fn ended_as_step(end: RunEnd) -> Result<(), LoopEnd> {
    match end {
        RunEnd::Interrupted => Err(LoopEnd::Interrupted),
        _ => Ok(()),
    }
}
