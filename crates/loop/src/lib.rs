//! The Slow Chess loop as a library job: each round plays games with the best parameters
//! so far (or imports games played elsewhere), labels their quiet positions, tunes on every
//! round's positions, and gates the tuned table with a fixed-node SPRT match against the
//! best; a passing round becomes the new best. Every round leaves its files in
//! `DIR/round-NN/` and one [`RoundLine`] in `DIR/loop.jsonl`; the same job run again goes on
//! where it stopped. `texel loop` and `texel selfplay` are fronts over [`LoopJob`] and
//! [`SelfplayJob`].
//!
//! A whole loop from Rust, as `texel loop --dir runs/loop --rounds 2 --games 100 --nodes
//! 2000` runs it (the binary adds progress bars, messages and Ctrl-C):
//!
//! ```no_run
//! use std::sync::atomic::AtomicBool;
//! use texel_loop::{LoopEnd, LoopEvent, LoopJob, LoopSettings};
//!
//! let settings = LoopSettings {
//!     rounds: 2,
//!     games: 100,
//!     nodes: 2_000,
//!     ..LoopSettings::new("runs/loop")
//! };
//! let job = LoopJob { settings, rerun: Default::default(), verdict: None };
//! let end = job.run(&AtomicBool::new(false), &mut |event| {
//!     if let LoopEvent::Round(line) = event {
//!         println!("round {}: gate passed: {}", line.round, line.gate.passed);
//!     }
//! })?;
//! assert_eq!(end, LoopEnd::Finished);
//! # Ok::<(), texel_loop::LoopError>(())
//! ```

mod engine;
mod error;
mod job;
mod prove;
mod records;
mod rounds;
mod selfplay;
mod settings;
mod tune;

pub use engine::{EngineDescription, EngineError, ENGINE_FORMAT};
pub use error::LoopError;
pub use job::{LoopEnd, LoopEvent, LoopJob};
pub use prove::{GameProver, ProveSettings};
pub use records::{read_rounds, GateLine, LoopFileError, RoundErrors, RoundLine, LOOP_VERSION};
pub use rounds::{outside_games_dir, pgn_files, GATE_ADJUDICATION};
pub use selfplay::{SelfplayEvent, SelfplayJob, ADJUDICATION, RANDOM_PLIES};
pub use settings::{Gate, LoopSettings, ResultFilter, Verdict};
