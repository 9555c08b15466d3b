//! Where a run keeps its positions: loaded into memory, or read from their file in every
//! pass (a binary trace too large for the memory budget, asked to, or a streamed run
//! resumed). The choice is the data's own: a [`crate::Subject`] answers it, from its size
//! estimate, and the session runs either way through the same protocol.

use crate::checkpoint::{checkpoint_kind, RunKind};
use crate::lambda::Lambda;
use std::path::Path;
use texel_data::HeldOut;
use texel_trace::BinaryTrace;

/// How a run holds a trace's positions.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Holding {
    /// In memory, unless their tuner form would need more than this many bytes: then read
    /// from the file in every pass (a binary trace; a text one is always loaded).
    Budget(u64),
    /// Read from the file in every pass (a binary trace only).
    Stream,
}

impl Default for Holding {
    /// In memory within half the machine's memory ([`default_budget`]).
    fn default() -> Holding {
        Holding::Budget(default_budget())
    }
}

/// Why a run reads its positions from the file in every pass.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StreamWhy {
    /// It was asked to ([`Holding::Stream`]).
    Asked,
    /// It continues a streamed run's checkpoint.
    Resumed,
    /// In memory it would need about `need` bytes, more than the `budget`.
    TooLarge {
        /// The estimate ([`in_memory_need`]).
        need: u64,
        /// The budget ([`Holding::Budget`]).
        budget: u64,
    },
}

/// A streamed run's data: the binary trace, the values it starts from and tunes, how its
/// targets are labelled and split, and how its values become the subject's.
pub struct StreamPlan<V> {
    /// The trace, read from its file in every pass.
    pub trace: BinaryTrace,
    /// Why it streams.
    pub why: StreamWhy,
    /// Every value of the space the run starts from.
    pub start: Vec<i32>,
    /// The slots asked to tune.
    pub slots: Vec<usize>,
    /// The share of the result in the targets (resolved once the scores are counted).
    pub lambda: Lambda,
    /// What is held out for validation.
    pub held_out: HeldOut,
    /// The subject's values of a streamed run's flat values.
    pub values: fn(Vec<i32>) -> V,
}

/// The default memory budget: half the machine's memory (8 GiB where the machine does not
/// say).
pub fn default_budget() -> u64 {
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kib * 1024)
        });
    total.map_or(8 << 30, |t| t / 2)
}

/// About what an in-memory tune of the binary trace at `path` takes, in bytes: its tuner
/// form, measured at 1.3 to 1.6 times the file (columns, labels, sums, Newton's vectors;
/// the race trace's 181 MB peak at 295 MB, twenty times it at 4.5 GiB). Newton's Hessian
/// sums add `64 n²` bytes for `n` tuned values (72 MB for 1,066), not counted.
///
/// # Errors
/// The file cannot be looked at.
pub fn in_memory_need(path: &Path) -> std::io::Result<u64> {
    Ok(std::fs::metadata(path)?.len() / 2 * 3)
}

/// Whether a run of the trace at `path` streams, and why: asked; a resumed run as its
/// checkpoint's kind; a fresh binary trace whose tuner form exceeds the budget. `None`:
/// loaded into memory.
///
/// # Errors
/// The checkpoint or the trace cannot be looked at.
pub(crate) fn stream_why(
    path: &Path,
    holding: Holding,
    resume: Option<&Path>,
) -> Result<Option<StreamWhy>, Box<dyn std::error::Error + Send + Sync>> {
    let budget = match holding {
        Holding::Stream => return Ok(Some(StreamWhy::Asked)),
        Holding::Budget(budget) => budget,
    };
    if let Some(checkpoint) = resume {
        let streamed = checkpoint_kind(checkpoint)? == RunKind::Streamed;
        return Ok(streamed.then_some(StreamWhy::Resumed));
    }
    if !texel_trace::is_binary(path)? {
        return Ok(None);
    }
    let need = in_memory_need(path)?;
    Ok((need > budget).then_some(StreamWhy::TooLarge { need, budget }))
}
