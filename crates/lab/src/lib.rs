//! The term lab over any model: every candidate term or family judged by the held-out
//! error it removes (established terms by the error their removal adds), verdicts kept
//! across reruns as JSON lines, kept candidates proven in games through a [`Prover`] and
//! adopted. Subjects are texel's own table terms or an outside engine's trace parameters
//! ([`LabSpace`]); `texel lab` is a front over [`LabJob`].

mod job;
mod lab;
pub mod report;
mod settings;

pub use job::{
    header, judged_base, LabError, LabEvent, LabJob, LabLog, LabOutcome, ProveError, Prover,
};
pub use lab::{Errors, Lab, LabSpace, LabSubject, Subject, SubjectKind, Verdict};
pub use settings::{LabSettings, SubjectError};
