//! What a labelling run is asked to do: the teacher (a UCI engine and its options), how
//! long it searches each position, and which share of the input this run takes.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// How long the teacher searches each position: a fixed amount of work, so that the same
/// engine gives the same score whenever and wherever a position is scored.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Limit {
    /// `go nodes N`.
    Nodes(u64),
    /// `go depth N`.
    Depth(u32),
}

impl Limit {
    /// The UCI `go` command of this limit.
    pub fn go(self) -> String {
        match self {
            Limit::Nodes(n) => format!("go nodes {n}"),
            Limit::Depth(d) => format!("go depth {d}"),
        }
    }
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Limit::Nodes(n) => write!(f, "{n} nodes"),
            Limit::Depth(d) => write!(f, "depth {d}"),
        }
    }
}

/// The teacher: a UCI engine, started once per thread.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Teacher {
    /// The executable.
    pub cmd: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// UCI options set after the handshake, in order (`Threads`, `Hash`, `UCI_ShowWDL`, ...).
    /// `UCI_ShowWDL` is set to `true` where the engine offers it and this list does not set it.
    pub options: Vec<(String, String)>,
    /// The hash size in MB, set before `options` (which may set `Hash` again).
    pub hash_mb: usize,
    /// How long each position is searched.
    pub limit: Limit,
}

/// Which share of the input a run scores: the `index`-th (from 1) of `count` runs of
/// consecutive positions of (nearly) equal size, so that the outputs of shards 1 to
/// `count`, joined in that order (`cat`), are the output of the whole file.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// This shard, from 1.
    pub index: u64,
    /// How many shards the input is cut into.
    pub count: u64,
}

impl Shard {
    /// The whole input.
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    /// Reads `K/N` (1 ≤ K ≤ N).
    ///
    /// # Errors
    /// The text is not two whole numbers `K/N` with 1 ≤ K ≤ N.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("`{text}`: a shard is K/N, two whole numbers with 1 <= K <= N");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let index = k.trim().parse::<u64>().map_err(|_| bad())?;
        let count = n.trim().parse::<u64>().map_err(|_| bad())?;
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// The positions (by their number in the input, from 0) this shard takes from an input
    /// of `total`.
    pub fn range(self, total: u64) -> std::ops::Range<u64> {
        let cut = |k: u64| (u128::from(total) * u128::from(k) / u128::from(self.count)) as u64;
        cut(self.index - 1)..cut(self.index)
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Everything a labelling run is asked to do, but where it writes.
#[derive(Clone, Debug)]
pub struct LabelSettings {
    /// The teacher.
    pub teacher: Teacher,
    /// Engine processes, each scoring its own positions.
    pub threads: usize,
    /// How long one position may take before the engine is taken as hung.
    pub timeout: Duration,
    /// Tries of a position (each after a restart of the engine) before it is written
    /// without the teacher's score.
    pub tries: usize,
    /// The share of the input this run scores.
    pub shard: Shard,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_cover_the_input_once_in_order() {
        for total in [0, 1, 7, 100, 1001] {
            for count in 1..=5 {
                let mut next = 0;
                for index in 1..=count {
                    let range = Shard { index, count }.range(total);
                    assert_eq!(range.start, next);
                    next = range.end;
                }
                assert_eq!(next, total);
            }
        }
    }

    #[test]
    fn shards_are_read_strictly() {
        assert_eq!(Shard::parse("2/4"), Ok(Shard { index: 2, count: 4 }));
        for bad in ["0/4", "5/4", "2", "a/b", "-1/3", "1/0", ""] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }
}
