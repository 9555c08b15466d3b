//! Matches: pairings (gauntlet or round robin), openings played twice with colours swapped,
//! games in parallel, PGN appended game by game, statistics and SPRT.

use crate::elo::{Score, Sprt};
use crate::engine::{Engine, EngineSpec, Failure};
use crate::game::{play, to_pgn, Adjudication, Ending, GameRecord};
use crate::openings::{with_random_plies, Opening, Rng};
use shakmaty::Color;
use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex};

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchOptions {
    /// The engines; the first plays all others (gauntlet) unless `round_robin`.
    pub engines: Vec<EngineSpec>,
    /// Every engine plays every other.
    pub round_robin: bool,
    /// Games per pairing (rounded up to an even number: openings are played in pairs).
    pub games: u32,
    /// Games played at once.
    pub concurrency: usize,
    /// Openings (empty: the standard start).
    pub openings: Vec<Opening>,
    /// Random plies added after each opening (the same for both games of a pair).
    pub random_plies: u32,
    /// Seed of the opening order and the random plies.
    pub seed: u64,
    /// Score adjudication.
    pub adjudication: Adjudication,
    /// Append every game to this PGN file.
    pub pgn: Option<PathBuf>,
    /// Stop when an SPRT between `elo0` and `elo1` (α = β = 0.05) decides (single pairing).
    pub sprt: Option<(f64, f64)>,
    /// The PGN `Event` tag.
    pub event: String,
}

/// The score of one pairing from the first engine's point of view.
#[derive(Clone, Debug, PartialEq)]
pub struct Pairing {
    /// First engine (the gauntlet's challenger).
    pub first: String,
    /// Second engine.
    pub second: String,
    /// Wins, draws and losses of the first engine.
    pub score: Score,
}

/// What a running match reports after each game.
#[derive(Clone, Debug)]
pub struct Progress<'p> {
    /// Games finished.
    pub done: u32,
    /// Games scheduled.
    pub total: u32,
    /// The pairings so far.
    pub pairings: &'p [Pairing],
    /// The game just finished.
    pub last: &'p GameRecord,
}

/// The result of a match.
#[derive(Clone, Debug)]
pub struct MatchReport {
    /// Per pairing.
    pub pairings: Vec<Pairing>,
    /// Why games ended, with counts.
    pub terminations: Vec<(String, u32)>,
    /// The SPRT state, when one was run.
    pub sprt: Option<Sprt>,
}

/// Why a match could not run.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// The PGN file cannot be written.
    #[error("{path}: {cause}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        cause: std::io::Error,
    },
    /// Fewer than two engines.
    #[error("a match needs at least two engines")]
    TooFewEngines,
    /// An engine does not start (missing program, crash or no `uciok`): no game is played.
    #[error("engine {name} does not start: {reason}")]
    EngineStart {
        /// The engine's name in the match.
        name: String,
        /// What went wrong.
        reason: String,
    },
}

/// One scheduled game.
#[derive(Clone, Debug)]
struct Job {
    round: u64,
    pairing: usize,
    white: usize,
    black: usize,
    first_is_white: bool,
    opening: Opening,
}

fn schedule(o: &MatchOptions) -> (Vec<(usize, usize)>, Vec<Job>) {
    let n = o.engines.len();
    let pairs: Vec<(usize, usize)> = if o.round_robin {
        (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .collect()
    } else {
        (1..n).map(|b| (0, b)).collect()
    };
    let openings = if o.openings.is_empty() {
        vec![Opening {
            start: Default::default(),
            moves: vec![],
        }]
    } else {
        o.openings.clone()
    };
    let mut order: Vec<usize> = (0..openings.len()).collect();
    let mut rng = Rng::new(o.seed);
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i + 1));
    }
    let games = o.games.div_ceil(2) * 2;
    let mut jobs = Vec::new();
    for (p, &(a, b)) in pairs.iter().enumerate() {
        for g in 0..games {
            let pair_index = (g / 2) as usize;
            let base = &openings[order[pair_index % order.len()]];
            let mut plies_rng = Rng::new(o.seed ^ ((p as u64) << 32) ^ pair_index as u64);
            let opening = with_random_plies(base, o.random_plies, &mut plies_rng);
            let first_is_white = g % 2 == 0;
            let (white, black) = if first_is_white { (a, b) } else { (b, a) };
            jobs.push(Job {
                round: jobs.len() as u64 + 1,
                pairing: p,
                white,
                black,
                first_is_white,
                opening,
            });
        }
    }
    (pairs, jobs)
}

/// Plays a game, starting engines as needed; an engine that fails is dropped so the next
/// game starts it afresh.
fn play_job(o: &MatchOptions, job: &Job, engines: &mut HashMap<usize, Engine>) -> GameRecord {
    for (idx, color) in [(job.white, Color::White), (job.black, Color::Black)] {
        if let std::collections::hash_map::Entry::Vacant(slot) = engines.entry(idx) {
            match Engine::start(&o.engines[idx]) {
                Ok(e) => {
                    slot.insert(e);
                }
                Err(f) => {
                    return GameRecord {
                        white: o.engines[job.white].name.clone(),
                        black: o.engines[job.black].name.clone(),
                        start: job.opening.start.clone(),
                        moves: vec![],
                        ending: Ending {
                            winner: Some(color.other()),
                            reason: format!("{color} {f}"),
                        },
                    };
                }
            }
        }
    }
    let mut w = engines.remove(&job.white).expect("started");
    let mut b = engines.remove(&job.black).expect("started");
    let record = play(
        (&o.engines[job.white], &mut w),
        (&o.engines[job.black], &mut b),
        &job.opening.start,
        &job.opening.moves,
        &o.adjudication,
    );
    // An engine that lost by failing (crash, timeout, illegal move) is started afresh.
    let failed = |c: Color| {
        record.ending.winner == Some(c.other()) && record.ending.reason.starts_with(&c.to_string())
    };
    if !failed(Color::White) {
        engines.insert(job.white, w);
    }
    if !failed(Color::Black) {
        engines.insert(job.black, b);
    }
    record
}

/// Starts every engine once, so one that cannot start stops the match before any game.
fn check_engines_start(o: &MatchOptions) -> Result<(), MatchError> {
    for spec in &o.engines {
        Engine::start(spec).map_err(|f| MatchError::EngineStart {
            name: spec.name.clone(),
            reason: match f {
                Failure::Start(reason) => reason,
                other => other.to_string(),
            },
        })?;
    }
    Ok(())
}

/// Runs the match. `progress` is called after every game, in the order games finish.
///
/// # Errors
/// Fewer than two engines, an engine that does not start (checked before any game), or a
/// PGN file that cannot be written.
pub fn run_match(
    o: &MatchOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Result<MatchReport, MatchError> {
    if o.engines.len() < 2 {
        return Err(MatchError::TooFewEngines);
    }
    check_engines_start(o)?;
    let (pairs, jobs) = schedule(o);
    let total = jobs.len() as u32;
    let mut pgn = match &o.pgn {
        Some(path) => Some(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|cause| MatchError::Io {
                    path: path.clone(),
                    cause,
                })?,
        ),
        None => None,
    };
    let queue = Arc::new(Mutex::new(jobs.into_iter().collect::<VecDeque<_>>()));
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = channel::<(Job, GameRecord)>();
    let mut pairings: Vec<Pairing> = pairs
        .iter()
        .map(|&(a, b)| Pairing {
            first: o.engines[a].name.clone(),
            second: o.engines[b].name.clone(),
            score: Score::default(),
        })
        .collect();
    let mut terminations: HashMap<String, u32> = HashMap::new();
    let mut sprt = None;
    std::thread::scope(|scope| -> Result<(), MatchError> {
        for _ in 0..o.concurrency.max(1) {
            let (queue, stop, tx) = (queue.clone(), stop.clone(), tx.clone());
            scope.spawn(move || {
                let mut engines = HashMap::new();
                loop {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Some(job) = queue.lock().expect("queue").pop_front() else {
                        break;
                    };
                    let record = play_job(o, &job, &mut engines);
                    if tx.send((job, record)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (done, (job, record)) in (1..).zip(rx) {
            if let Some(file) = pgn.as_mut() {
                let path = o.pgn.clone().unwrap_or_default();
                file.write_all(to_pgn(&record, job.round, &o.event).as_bytes())
                    .and_then(|()| file.flush())
                    .map_err(|cause| MatchError::Io { path, cause })?;
            }
            let s = &mut pairings[job.pairing].score;
            let first = if job.first_is_white {
                Color::White
            } else {
                Color::Black
            };
            match record.ending.winner {
                None => s.draws += 1,
                Some(c) if c == first => s.wins += 1,
                Some(_) => s.losses += 1,
            }
            *terminations
                .entry(record.ending.reason.clone())
                .or_default() += 1;
            if let (Some((e0, e1)), 1) = (o.sprt, pairings.len()) {
                let verdict = pairings[0].score.sprt(e0, e1, 0.05, 0.05);
                if !matches!(verdict, Sprt::Continue(_)) {
                    stop.store(true, Ordering::SeqCst);
                }
                sprt = Some(verdict);
            }
            progress(&Progress {
                done,
                total,
                pairings: &pairings,
                last: &record,
            });
        }
        Ok(())
    })?;
    let mut terminations: Vec<(String, u32)> = terminations.into_iter().collect();
    terminations.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    Ok(MatchReport {
        pairings,
        terminations,
        sprt,
    })
}
