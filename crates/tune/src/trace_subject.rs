//! An outside engine's evaluation read from a trace as the [`Subject`] of a tune on files:
//! loaded into memory (`crate::traces`), or read from its file in every pass where the run
//! streams (`crate::holding`).

use crate::holding::{stream_why, Holding, StreamPlan};
use crate::lambda::Lambda;
use crate::select::{select_in_space, Selection};
use crate::session::{Positions, Subject, SubjectError};
use crate::traces::{load_traces, TraceSubjectError};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;
use texel_data::HeldOut;
use texel_linear::TraceDataset;
use texel_solve::descent::Variable;
use texel_solve::model::Model;
use texel_trace::{read_space, BinaryTrace, ParamSpace};

/// An outside engine's evaluation read from a trace, as a [`Subject`] of a tune: the space
/// of the header, the values to start from (a JSON file of them, or the header's defaults),
/// the values selected, and the share held out for validation.
#[derive(Clone, Debug)]
pub struct TraceSubject {
    /// The trace file.
    pub path: PathBuf,
    /// The space of its header.
    pub space: ParamSpace,
    /// The values a fresh run starts from.
    pub given: Vec<i32>,
    /// The values tuned.
    pub vars: Vec<Variable>,
    /// Positions in 1,000 held out for validation.
    pub held_out: HeldOut,
    /// How much of each target is the game result, the rest the position's own score
    /// ([`crate::target`]).
    pub lambda: Lambda,
    /// Whether a run loads the positions or reads them from the file in every pass.
    pub holding: Holding,
}

impl TraceSubject {
    /// The trace at `path` from its header: started from the values of the JSON file
    /// `values` (the defaults when `None`), tuning what `selection` picks.
    ///
    /// # Errors
    /// An unreadable header or values file, or a selection of names the space lacks.
    pub fn open(
        path: &Path,
        values: Option<&Path>,
        selection: &Selection,
        held_out: HeldOut,
    ) -> Result<TraceSubject, TraceSubjectError> {
        let space = read_space(path)?;
        let given = match values {
            Some(file) => space.read_values(file)?,
            None => space.defaults(),
        };
        let vars = select_in_space(&space, selection)?;
        Ok(TraceSubject {
            path: path.to_path_buf(),
            space,
            given,
            vars,
            held_out,
            lambda: Lambda::default(),
            holding: Holding::default(),
        })
    }
}

impl Subject for TraceSubject {
    type Model = TraceDataset;

    fn given(&self) -> &Vec<i32> {
        &self.given
    }

    fn load(
        &self,
        start: &Vec<i32>,
        _interrupt: &AtomicBool,
        _reading: &(dyn Fn(u64) + Sync),
    ) -> Result<Positions<TraceDataset>, SubjectError> {
        let began = Instant::now();
        let mut load = load_traces(&self.path, self.held_out, self.lambda)?;
        let secs = began.elapsed().as_secs_f64();
        load.train.rescore(start);
        load.validation.rescore(start);
        if load.train.len() == 0 {
            return Err(TraceSubjectError::Empty(self.path.clone()).into());
        }
        if load.lambda < 1.0 && load.scored == 0 {
            return Err(TraceSubjectError::NoScores(self.path.clone()).into());
        }
        let mut about = format!(
            "{}: {} parameters ({} values), {} training positions, {} validation positions, \
             read in {secs:.2}s",
            self.path.display(),
            load.space.params().len(),
            load.space.value_count(),
            load.train.len(),
            load.validation.len()
        );
        let n = load.train.len() + load.validation.len();
        if !load.split.nothing_held() {
            about += &format!("\n{}", load.split);
        }
        let targets = match load.labels.is_some() {
            true => Some(crate::lambda::walking_words(load.scored)),
            false => self.lambda.describe(load.scored, n),
        };
        if let Some(targets) = targets {
            about += &format!("\n{targets}");
        }
        Ok(Positions {
            train: load.train,
            validation: load.validation,
            fingerprint: load.fingerprint,
            about,
            labels: load.labels,
        })
    }

    fn variables(&self) -> &[Variable] {
        &self.vars
    }

    fn name(&self, slot: usize) -> String {
        self.space.value_name(slot).unwrap_or_default()
    }

    fn space(&self) -> ParamSpace {
        self.space.clone()
    }

    fn source(&self) -> String {
        self.path.display().to_string()
    }

    fn save(&self, values: &Vec<i32>, out: &Path) -> Result<(), SubjectError> {
        Ok(self.space.save_values(values, out)?)
    }

    fn streamed(
        &self,
        resume: Option<&Path>,
    ) -> Result<Option<StreamPlan<Vec<i32>>>, SubjectError> {
        let Some(why) = stream_why(&self.path, self.holding, resume)? else {
            return Ok(None);
        };
        if !texel_trace::is_binary(&self.path)? {
            return Err(TraceSubjectError::NotBinary(self.path.clone()).into());
        }
        Ok(Some(StreamPlan {
            trace: BinaryTrace::read(&self.path)?,
            why,
            start: self.given.clone(),
            slots: self.vars.iter().map(|v| v.slot).collect(),
            lambda: self.lambda,
            held_out: self.held_out,
            values: |values| values,
        }))
    }
}
