//! How a tune runs, declared once: the same record whether the positions are texel's own,
//! another engine's trace in memory, or a binary trace read from its file in every pass.
//! The CLI and its config file fill it (`texel tune`'s options), a checkpoint records it (a
//! resume with other settings is refused, naming the setting), and [`crate::Session`] (in
//! memory or streamed), [`crate::tune_engine`] and the loop read it.

use crate::run::{RunOptions, Unstreamed};
use std::path::PathBuf;
use std::str::FromStr;

/// How a tune runs, whatever it tunes.
#[derive(Clone, Debug)]
pub struct TuneSettings {
    /// K (base 10), fitted to the start's evaluations when `None` (a resumed run keeps its
    /// checkpoint's).
    pub k: Option<f64>,
    /// Values counting in fewer training positions than this are held at their start
    /// (0: none are).
    pub min_support: usize,
    /// The pull toward the start.
    pub l2: L2,
    /// Whether values keep the orders and bounds their space declares.
    pub constraints: bool,
    /// Passes, patience, method (a session's log and checkpoint are its outputs').
    pub run: RunOptions,
    /// How a run that reads its positions from their file in every pass reads them (the
    /// subject chooses whether it does: `crate::holding`).
    pub stream: Streaming,
}

impl Default for TuneSettings {
    /// K fitted, the default guards ([`DEFAULT_MIN_SUPPORT`], the L2 pull
    /// chosen by the path of pulls, [`crate::DEFAULT_L2`] when nothing is held out), constraints
    /// kept, the default run, the default chunk when streamed.
    fn default() -> TuneSettings {
        TuneSettings {
            k: None,
            min_support: DEFAULT_MIN_SUPPORT,
            l2: L2::Auto,
            constraints: true,
            run: RunOptions::default(),
            stream: Streaming::default(),
        }
    }
}

/// How a streamed tune reads its trace.
#[derive(Clone, Debug, PartialEq)]
pub struct Streaming {
    /// Positions decoded into memory at a time.
    pub chunk: usize,
    /// A scratch file for the positions' tuner form while the tune runs (written in one
    /// pass, read back in every other, removed at the end); `None`: every pass decodes the
    /// trace's records again. A streamed [`crate::Session`] keeps it beside its checkpoint.
    pub form: Option<PathBuf>,
}

impl Default for Streaming {
    /// 1,048,576 positions a chunk (about 250 MB decoded), no scratch file.
    fn default() -> Streaming {
        Streaming {
            chunk: 1 << 20,
            form: None,
        }
    }
}

impl TuneSettings {
    /// A setting a streamed tune does not have:
    /// a streamed [`crate::Session`] and [`crate::tune_streamed`] refuse it before any work.
    pub fn unstreamed(&self) -> Option<Unstreamed> {
        let run = &self.run;
        let defaults = RunOptions::default();
        [
            (Unstreamed::Method, run.method != defaults.method),
            (Unstreamed::WarmStart, run.warm_start.is_some()),
        ]
        .into_iter()
        .find_map(|(what, given)| given.then_some(what))
    }
}

/// Values counting in fewer training positions than this are held by default.
pub const DEFAULT_MIN_SUPPORT: usize = 20;

/// The L2 pull used when none is given.
pub const DEFAULT_L2: f64 = 0.1;

/// The strength of the pull toward the start.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum L2 {
    /// This λ.
    Fixed(f64),
    /// The pull of the path of pulls (`crate::path`) whose solution scores the held-out
    /// positions best ([`DEFAULT_L2`] when nothing is held out).
    Auto,
}

impl L2 {
    /// The pull given; [`DEFAULT_L2`] for [`L2::Auto`] until a run resolves it.
    pub fn fixed(self) -> f64 {
        match self {
            L2::Fixed(x) => x,
            L2::Auto => DEFAULT_L2,
        }
    }
}

impl std::fmt::Display for L2 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            L2::Fixed(x) => write!(f, "{x}"),
            L2::Auto => f.write_str("auto"),
        }
    }
}

impl FromStr for L2 {
    type Err = String;

    fn from_str(s: &str) -> Result<L2, String> {
        if s.eq_ignore_ascii_case("auto") {
            return Ok(L2::Auto);
        }
        match s.parse::<f64>() {
            Ok(x) if x.is_finite() && x >= 0.0 => Ok(L2::Fixed(x)),
            _ => Err(format!("{s:?} is neither `auto` nor a number from 0 up")),
        }
    }
}
