//! The term lab as a library job: every subject judged (verdicts appended to
//! `OUT/lab.jsonl` as they finish, kept across reruns), the kept ones proven in games when
//! a [`Prover`] is given, the ranked reports (`lab.md`, `lab.json`) written, and the kept
//! candidates adopted into `apply`'s values. `texel lab` is a front over [`LabJob`].

use crate::lab::{Errors, Lab, LabSpace, LabSubject, Verdict};
use crate::report::{apply, markdown, verdict_json, GameProof, KeepRule, VerdictLine};
use crate::report::{LabReport, Proofs};
use crate::settings::{LabSettings, SubjectError};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use texel_files::Fingerprint;
use texel_files::{open_lines_for_append, read_versioned_lines, write_atomically};
use texel_run::{remove_if_there, Rerun, Rerunning, RunFileError};
use texel_solve::{Model, Values};
use texel_tune::SelectionError;
use texel_tune::TuneData;

/// Why a lab run cannot go on.
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    /// What to judge.
    #[error(transparent)]
    Subject(#[from] SubjectError),
    /// Another run is writing the same folder.
    #[error(transparent)]
    Lock(#[from] texel_files::LockError),
    /// A file or folder cannot be read, written or made.
    #[error("cannot {action} {path}: {cause}")]
    Io {
        /// What was tried: `read`, `write`, `make the folder`.
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        cause: std::io::Error,
    },
    /// Earlier verdicts without resume or fresh.
    #[error(transparent)]
    RunFile(#[from] RunFileError),
    /// A verdict log that cannot be read back.
    #[error("the earlier verdicts in {path} cannot be read back: {cause}")]
    Log {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        cause: texel_files::LinesError,
    },
    /// A subject whose partners leave nothing to tune, or a name the space lacks.
    #[error(transparent)]
    Select(#[from] SelectionError),
    /// Adopted values that cannot be written as the table's parameters.
    #[error(transparent)]
    Params(#[from] texel_eval::params::ParamsError),
    /// An outside engine's values file could not be written.
    #[error(transparent)]
    ValuesFile(#[from] texel_trace::ValuesFileError),
    /// Values that are not texel's table (another count).
    #[error("the values are not texel's table: {0}")]
    Values(String),
    /// Playing a proof.
    #[error("{0}")]
    Prove(ProveError),
}

/// Why a proof could not be played.
pub type ProveError = Box<dyn std::error::Error + Send + Sync>;

/// The error of an I/O failure of `action` on `path`.
fn io<'p>(action: &'static str, path: &'p Path) -> impl Fn(std::io::Error) -> LabError + 'p {
    move |cause| LabError::Io {
        action,
        path: path.to_path_buf(),
        cause,
    }
}

/// Plays a kept subject in games against the base (`texel_loop::GameProver` plays
/// texel's own engine at fixed nodes).
pub trait Prover<V> {
    /// The proof of `verdict`'s subject, tuned from `base` (the lab's base, candidates at
    /// 0), or `None` when `interrupt` stopped the games (their finished part is kept).
    ///
    /// # Errors
    /// The games cannot be played.
    fn prove(
        &mut self,
        base: &V,
        verdict: &Verdict,
        rule: &KeepRule,
        interrupt: &AtomicBool,
    ) -> Result<Option<GameProof>, ProveError>;
}

/// `OUT/lab.jsonl` opened for a run, before any data is loaded: the verdicts of an earlier
/// run it holds, and the file to append to.
pub struct LabLog {
    path: PathBuf,
    done: Vec<(String, Verdict)>,
    file: std::fs::File,
    /// This run's hold on the folder (`lab.jsonl.lock`): a second lab there is refused.
    _lock: Option<texel_files::RunLock>,
}

impl LabLog {
    /// Makes `out`, takes it for this run (held while the log lives), decides about an
    /// earlier lab's verdicts there (`rerun.resume` keeps them, `rerun.fresh` deletes
    /// them) and opens `out/lab.jsonl` for appending.
    ///
    /// # Errors
    /// Another lab runs in `out`; earlier verdicts without resume or fresh; the folder or
    /// file cannot be made or read.
    pub fn open(out: &Path, rerun: Rerun) -> Result<(LabLog, Rerunning), LabError> {
        std::fs::create_dir_all(out).map_err(io("make the folder", out))?;
        let path = out.join("lab.jsonl");
        let lock = texel_files::RunLock::beside(&path)?;
        let earlier = std::fs::metadata(&path).is_ok_and(|m| m.len() > 0);
        let did = rerun.decide(&path, earlier, || remove_if_there(&path))?;
        let done = match std::fs::read_to_string(&path) {
            Ok(text) => read_versioned_lines::<VerdictLine>(&text)
                .map_err(|cause| LabError::Log {
                    path: path.clone(),
                    cause,
                })?
                .into_iter()
                .map(|line| (line.key, line.verdict))
                .collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(io("read", &path)(e)),
        };
        let file = open_lines_for_append(&path).map_err(io("write", &path))?;
        let log = LabLog {
            path,
            done,
            file,
            _lock: lock,
        };
        Ok((log, did))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `verdict` under `key`.
    fn append(&mut self, verdict: &Verdict, key: &str) -> Result<(), LabError> {
        writeln!(self.file, "{}", verdict_json(verdict, key))
            .and_then(|()| self.file.flush())
            .map_err(io("write", &self.path))
    }
}

/// A lab run: the subjects, the base they are judged against and the run's settings.
pub struct LabJob<'s, V> {
    /// What is judged, where the files go, the keep rule's threshold, `apply`.
    pub settings: LabSettings,
    /// The run asked for a validation split: verdicts are decided on it.
    pub needs_validation: bool,
    /// The parameter space (texel's table or an outside trace's).
    pub space: LabSpace<'s>,
    /// The subjects, in order ([`LabSettings::subjects`]).
    pub subjects: Vec<LabSubject>,
    /// The values subjects are judged against (candidates at 0); the data is scored with
    /// them.
    pub base: V,
    /// Lines that describe the run at the top of the reports ([`header`]).
    pub header: Vec<String>,
}

/// What a lab run reports on its way.
#[derive(Debug)]
pub enum LabEvent<'e> {
    /// Subject `at` of `of` has its verdict: judged now, or found in `lab.jsonl` from
    /// before (`before`).
    Verdict {
        /// 1-based.
        at: usize,
        /// Subjects in all.
        of: usize,
        /// The verdict.
        verdict: &'e Verdict,
        /// Read from an earlier run's line, not judged now.
        before: bool,
    },
    /// `lab.md` and `lab.json` were written.
    Reports {
        /// `lab.md`.
        markdown: &'e Path,
        /// `lab.json`.
        json: &'e Path,
    },
    /// A kept subject was played against the base.
    Proved {
        /// Its name.
        subject: &'e str,
        /// The games' result.
        proof: &'e GameProof,
    },
    /// The kept candidates set into `apply`'s values (the others at 0).
    Adopting {
        /// Candidate parameters kept.
        terms: usize,
    },
    /// The kept candidates tuned once more together with their partners.
    Adopted {
        /// The errors after that tuning.
        errors: Errors,
    },
    /// `apply`'s values were written.
    Applied {
        /// The file.
        path: &'e Path,
    },
}

/// What a lab run came to.
#[derive(Clone, Debug, PartialEq)]
pub struct LabOutcome {
    /// The verdicts in, in the order of the subjects.
    pub verdicts: Vec<Verdict>,
    /// The games of the proven subjects.
    pub proofs: Proofs,
    /// Every verdict (and asked-for proof) is in: false when interrupted.
    pub complete: bool,
}

/// The lines that describe a run at the top of its reports: the data `files` and how many
/// positions they gave, the base (`base_file`, or the defaults of `space`), K and passes.
pub fn header<M: Model>(
    files: &[PathBuf],
    base_file: Option<&Path>,
    space: LabSpace<'_>,
    data: &TuneData<M>,
    passes: usize,
) -> Vec<String> {
    let files: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    let (defaults, zeroed) = match space {
        LabSpace::Outside(_) => ("the trace's defaults", "candidate"),
        LabSpace::Table => ("the table's defaults", "candidate family"),
    };
    let base = base_file.map_or(defaults.to_string(), |p| p.display().to_string());
    vec![
        format!(
            "data: {} ({} training, {} validation positions)",
            files.join(", "),
            data.train.len(),
            data.validation.len()
        ),
        format!("base: {base} with every {zeroed} at 0"),
        format!("K {:.4}, at most {passes} passes per tuning", data.k),
    ]
}

/// A key that names one verdict of one run: the data, base values, K, passes and subject.
fn verdict_key(fingerprint: u64, base: &[i32], k: f64, passes: usize, subject: &str) -> String {
    let h = Fingerprint::new().u64(fingerprint).i32s(base);
    let h = h
        .u64(k.to_bits())
        .u64(passes as u64)
        .bytes(subject.as_bytes());
    format!("{:016x}", h.value())
}

impl<V: Values> LabJob<'_, V> {
    /// Judges every subject on `data` (verdicts of an earlier run in `log` are kept),
    /// proves the kept ones with `prover` when one is given and every verdict is in, writes
    /// the reports, and with `apply` set writes the adopted values. Stops at the next
    /// subject or game once `interrupt` is set; the same job run again goes on.
    ///
    /// # Errors
    /// A subject the space cannot tune, a proof that cannot be played, a file that cannot
    /// be written.
    pub fn run<M: Model<Values = V>>(
        &self,
        log: LabLog,
        data: &mut TuneData<M>,
        prover: Option<&mut dyn Prover<V>>,
        interrupt: &AtomicBool,
        on: &mut dyn FnMut(LabEvent<'_>),
    ) -> Result<LabOutcome, LabError> {
        let (k, fingerprint) = (data.k, data.fingerprint);
        let passes = self.settings.passes;
        let mut lab = Lab::new(
            &mut data.train,
            &mut data.validation,
            self.space,
            self.base.clone(),
            k,
            passes,
        );
        let key = |subject: &str| verdict_key(fingerprint, self.base.values(), k, passes, subject);
        let verdicts = self.judge_all(&mut lab, log, &key, interrupt, on)?;
        let rule = self.settings.rule(self.needs_validation);
        let mut outcome = LabOutcome {
            complete: verdicts.len() == self.subjects.len(),
            verdicts,
            proofs: Proofs::new(),
        };
        let proving = prover.is_some();
        if let (Some(prover), true) = (prover, outcome.complete) {
            self.write_reports(&outcome, &rule, on)?;
            (outcome.proofs, outcome.complete) =
                self.prove(prover, &outcome.verdicts, &rule, interrupt, on)?;
        }
        self.write_reports(&outcome, &rule, on)?;
        if let (Some(path), true) = (&self.settings.apply, outcome.complete) {
            let tuned = self.adopt(&mut lab, (&outcome, proving), &rule, on)?;
            self.space.save(tuned.values(), path)?;
            on(LabEvent::Applied { path });
        }
        Ok(outcome)
    }

    /// Every subject's verdict: those in the log from before, the rest judged and appended
    /// one by one. Stops early once `interrupt` is set.
    fn judge_all<M: Model<Values = V>>(
        &self,
        lab: &mut Lab<M>,
        mut log: LabLog,
        key: &dyn Fn(&str) -> String,
        interrupt: &AtomicBool,
        on: &mut dyn FnMut(LabEvent<'_>),
    ) -> Result<Vec<Verdict>, LabError> {
        let of = self.subjects.len();
        let mut verdicts = Vec::new();
        for (i, subject) in self.subjects.iter().enumerate() {
            let key = key(&subject.name);
            let before = log
                .done
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| v.clone());
            let verdict = match &before {
                Some(v) => v.clone(),
                None if interrupt.load(Ordering::SeqCst) => break,
                None => {
                    let v = lab.judge(subject)?;
                    log.append(&v, &key)?;
                    v
                }
            };
            let (at, before) = (i + 1, before.is_some());
            on(LabEvent::Verdict {
                at,
                of,
                verdict: &verdict,
                before,
            });
            verdicts.push(verdict);
        }
        Ok(verdicts)
    }

    /// Proves every kept subject in turn: the proofs, and whether all were played (false
    /// when interrupted).
    fn prove(
        &self,
        prover: &mut dyn Prover<V>,
        verdicts: &[Verdict],
        rule: &KeepRule,
        interrupt: &AtomicBool,
        on: &mut dyn FnMut(LabEvent<'_>),
    ) -> Result<(Proofs, bool), LabError> {
        let mut proofs = Proofs::new();
        for v in verdicts.iter().filter(|v| rule.keeps(v)) {
            let played = prover.prove(&self.base, v, rule, interrupt);
            let Some(proof) = played.map_err(LabError::Prove)? else {
                return Ok((proofs, false));
            };
            on(LabEvent::Proved {
                subject: &v.subject,
                proof: &proof,
            });
            proofs.insert(v.subject.clone(), proof);
        }
        Ok((proofs, true))
    }

    /// Writes `lab.md` and `lab.json`.
    fn write_reports(
        &self,
        outcome: &LabOutcome,
        rule: &KeepRule,
        on: &mut dyn FnMut(LabEvent<'_>),
    ) -> Result<(), LabError> {
        let (verdicts, proofs, header) = (&outcome.verdicts, &outcome.proofs, &self.header);
        let md = self.settings.out.join("lab.md");
        let text = markdown(verdicts, rule, header, proofs);
        write_atomically(&md, text.as_bytes()).map_err(io("write", &md))?;
        let json = self.settings.out.join("lab.json");
        let report = LabReport::new(verdicts, rule, header, proofs);
        let text = serde_json::to_string_pretty(&report).expect("plain data");
        write_atomically(&json, text.as_bytes()).map_err(io("write", &json))?;
        on(LabEvent::Reports {
            markdown: &md,
            json: &json,
        });
        Ok(())
    }

    /// `apply`'s values: the base with the kept candidates' values (when `proving`, only
    /// those whose games accepted them, SPRT H1), tuned once more together with the groups they
    /// work with; the other candidates at 0.
    fn adopt<M: Model<Values = V>>(
        &self,
        lab: &mut Lab<M>,
        (outcome, proving): (&LabOutcome, bool),
        rule: &KeepRule,
        on: &mut dyn FnMut(LabEvent<'_>),
    ) -> Result<V, LabError> {
        let proven = |v: &&Verdict| {
            !proving
                || outcome
                    .proofs
                    .get(&v.subject)
                    .is_some_and(|p| p.sprt == "H1")
        };
        let adopted: Vec<Verdict> = outcome.verdicts.iter().filter(proven).cloned().collect();
        let (start, terms, partners) = apply(self.space, &self.base, &adopted, rule);
        on(LabEvent::Adopting { terms: terms.len() });
        if terms.is_empty() {
            return Ok(start);
        }
        let (tuned, errors) = lab.adopt(&start, &terms, &partners)?;
        on(LabEvent::Adopted { errors });
        Ok(tuned)
    }
}

impl LabSpace<'_> {
    /// Writes `values` of this space to `path` (atomically): texel's table as a parameter
    /// file, an outside engine's as the JSON object of its parameters.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn save(&self, values: &[i32], path: &Path) -> Result<(), LabError> {
        match self {
            LabSpace::Table => {
                let params = texel_eval::Params::from_values(values).map_err(LabError::Values)?;
                Ok(params.save(path)?)
            }
            LabSpace::Outside(space) => Ok(space.save_values(values, path)?),
        }
    }
}

/// The values subjects are judged against: `given` with every candidate of `space` at 0,
/// and `data` scored with them (fit K on them again unless it was given: candidates are
/// judged against the established values).
pub fn judged_base<M: Model>(
    space: LabSpace<'_>,
    data: &mut TuneData<M>,
    given: M::Values,
) -> M::Values {
    let mut base = given;
    for slot in space.candidates().iter().flat_map(|c| space.slots(c)) {
        base.set_value(slot, 0);
    }
    data.train.rescore(&base);
    data.validation.rescore(&base);
    base
}
