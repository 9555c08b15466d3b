//! Step 2 of a round: tune from the best table on every round's positions (and the extra
//! EPD files), holding 10 % for validation, with the piece values fixed; a stopped tuning
//! goes on from its checkpoint.

use crate::error::{io, LoopError};
use crate::job::{LoopEnd, LoopEvent, LoopJob, Step};
use crate::records::RoundErrors;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use texel_dataset::{load, select, LoadOptions};
use texel_eval::params::flat_params;
use texel_eval::Params;
use texel_tune::error::{fit_k, samples};
use texel_tune::log::{kept_pass, read_tune_log};
use texel_tune::{Checkpoint, Control, RunEnd, RunOptions, Selection, TuneData, TuneJob};

/// Passes in a row without a new best validation error that end a round's tuning.
const PATIENCE: usize = 2;

/// The name of a flat slot of texel's table.
fn slot_name(slot: usize) -> String {
    flat_params()[slot].name()
}

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

    /// Step 2: tunes into `tuned.json` (unless a stopped run already did), then the errors
    /// of the pass whose values were kept, from the tuning's log.
    pub(crate) fn tune_round(
        &self,
        round: u32,
        dir: &Path,
        interrupt: &AtomicBool,
        on: &mut dyn FnMut(LoopEvent),
    ) -> Step<RoundErrors> {
        let log = dir.join("tune-log.jsonl");
        if !dir.join("tuned.json").exists() {
            if let Err(end) = self.tune(round, dir, interrupt, on)? {
                return Ok(Err(end));
            }
        }
        let text = std::fs::read_to_string(&log).map_err(io(&log))?;
        let passes =
            read_tune_log(&text).map_err(|cause| LoopError::TuneLog { path: log, cause })?;
        let kept = kept_pass(&passes);
        Ok(Ok(RoundErrors {
            train: kept.map(|p| p.train_error),
            validation: kept.and_then(|p| p.validation_error),
        }))
    }

    /// Loads the round's positions scored with the values the tuning starts (or goes on)
    /// from, and tunes them; the log gets the changes even when interrupted.
    fn tune(
        &self,
        round: u32,
        dir: &Path,
        interrupt: &AtomicBool,
        on: &mut dyn FnMut(LoopEvent),
    ) -> Step<()> {
        let (log, checkpoint) = (dir.join("tune-log.jsonl"), dir.join("tune.ckpt"));
        let resumed = match checkpoint.exists() {
            true => Some(Checkpoint::<Params>::read(&checkpoint)?),
            false => None,
        };
        let best = Params::load(&self.settings.best())?;
        let start = match &resumed {
            Some(c) => c.descent.params.clone(),
            None => best,
        };
        let options = LoadOptions {
            validation_per_mille: 100,
            ..LoadOptions::default()
        };
        let (train, validation, report) =
            load(&self.tuning_files(round), &start, &options, &|_| {})?;
        let k = resumed
            .as_ref()
            .map_or_else(|| fit_k(&samples(&train)), |c| c.k);
        let mut data = TuneData {
            train,
            validation,
            k,
            fingerprint: report.fingerprint,
        };
        on(LoopEvent::Loaded(round, &report, &data));
        let selected = select(&Selection {
            freeze_material: true,
            ..Selection::default()
        })?;
        let run = RunOptions {
            passes: self.settings.passes,
            patience: Some(PATIENCE),
            log: Some(log.clone()),
            checkpoint: Some(checkpoint.clone()),
            ..RunOptions::default()
        };
        let job = TuneJob {
            min_support: self.settings.min_support,
            run,
            resume: resumed.map(|c| (checkpoint.clone(), c)),
            ..TuneJob::new(start, selected)
        };
        let tuned = job.run(&mut data, &slot_name, &mut |e| {
            on(LoopEvent::Tune(e));
            match interrupt.load(Ordering::SeqCst) {
                true => Control::Stop,
                false => Control::Continue,
            }
        })?;
        on(LoopEvent::Tuned(&tuned));
        let result = tuned.result;
        if result.end == RunEnd::Interrupted {
            return Ok(Err(LoopEnd::Interrupted));
        }
        result.params.save(&dir.join("tuned.json"))?;
        texel_run::remove_if_there(&checkpoint)?;
        Ok(Ok(()))
    }
}
