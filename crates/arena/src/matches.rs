//! Matches: pairings (gauntlet or round robin), openings played twice with colours swapped,
//! games in parallel, PGN appended game by game, statistics and SPRT.

use crate::elo::{Pentanomial, Score, Sprt};
use crate::engine::{Engine, EngineSpec, Failure};
use crate::game::{play, to_pgn, Adjudication, Ending, GameRecord, ABORTED};
use crate::openings::{with_random_plies, Opening, Rng};
use crate::sprt::SprtTest;
use shakmaty::Color;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::Mutex;
use texel_search::key;

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
    /// Random plies added after each opening (the same for both games of a pair; every
    /// game its own when the two engines play alike).
    pub random_plies: u32,
    /// Seed of the opening order and the random plies.
    pub seed: u64,
    /// Score adjudication.
    pub adjudication: Adjudication,
    /// Append every game to this PGN file.
    pub pgn: Option<PathBuf>,
    /// Stop when this SPRT decides (single pairing): on game pairs when the games are
    /// paired, on single games otherwise.
    pub sprt: Option<SprtTest>,
    /// The PGN `Event` tag.
    pub event: String,
    /// Rounds before this one were played already (their games are in the PGN): the match
    /// plays the rest exactly as it would have without the stop. 1 for a new match.
    pub first_round: u64,
    /// How the rounds before `first_round` ended, in order: they count in the score and the
    /// SPRT as if just played.
    pub earlier: Vec<Ending>,
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
    /// Finished opening pairs by the first engine's points in them (empty when the games
    /// are not paired).
    pub pairs: Pentanomial,
    /// Whether the games are played in colour-swapped pairs of one opening. Engines that
    /// play alike ([`EngineSpec::plays_like`]) would repeat the first game of a pair in the
    /// second, so each of their games gets a start of its own instead.
    pub paired: bool,
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
    /// Stopped from outside: the games in flight were abandoned.
    pub interrupted: bool,
    /// Opening pairs (in the pairing with most) that got random plies beyond the options'
    /// so that no game repeats.
    pub varied: u32,
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
    /// Not enough distinct starts for the games asked (a tiny opening set, no legal moves to
    /// vary them).
    #[error("the games need {starts} distinct starts; {openings} openings with random plies could not give them: give more openings or fewer games")]
    TooFewOpenings {
        /// Distinct starts the games of a pairing need.
        starts: usize,
        /// Openings given.
        openings: usize,
    },
    /// The earlier games given do not match the rounds before `first_round`.
    #[error("{given} earlier games given for {expected} rounds before the first one to play")]
    EarlierGames {
        /// Rounds before `first_round`.
        expected: usize,
        /// Endings given.
        given: usize,
    },
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
    /// The opening pair it belongs to within its pairing (both colours of one opening).
    pair: usize,
    white: usize,
    black: usize,
    first_is_white: bool,
    opening: Opening,
}

/// The engine pairs that play each other, as indices into the engine list.
fn pairings_of(o: &MatchOptions) -> Vec<(usize, usize)> {
    let n = o.engines.len();
    if o.round_robin {
        (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .collect()
    } else {
        (1..n).map(|b| (0, b)).collect()
    }
}

/// Random plies given to a repeated opening when the match asks for none.
const VARYING_PLIES: u32 = 2;

/// Tries per opening pair to find a start no earlier pair of the pairing had.
const TRIES: u64 = 64;

/// `pairs` starts for one pairing (one per opening pair, or per game when the games are
/// not paired), each different from all others: the openings in `order`, cycled, with
/// seeded random plies; where a cycle repeats an opening and no random plies were asked
/// for, [`VARYING_PLIES`] of them make it new. Returns the starts and how many got plies
/// the options did not ask for.
fn distinct_starts(
    o: &MatchOptions,
    openings: &[Opening],
    order: &[usize],
    pairing: usize,
    pairs: usize,
) -> Result<(Vec<Opening>, u32), MatchError> {
    let mut seen = std::collections::HashSet::new();
    let (mut starts, mut varied) = (Vec::with_capacity(pairs), 0);
    for pair in 0..pairs {
        let base = &openings[order[pair % order.len()]];
        let found = (0..TRIES).find_map(|attempt| {
            let plies = match (o.random_plies, pair >= order.len() || attempt > 0) {
                (0, true) => VARYING_PLIES + (attempt / 16) as u32,
                (n, _) => n + (attempt / 16) as u32,
            };
            let seed = o.seed ^ ((pairing as u64) << 32) ^ pair as u64 ^ (attempt << 48);
            let opening = with_random_plies(base, plies, &mut Rng::new(seed));
            let end = opening.end();
            seen.insert(key(&end))
                .then_some((opening, plies != o.random_plies))
        });
        let Some((opening, extra)) = found else {
            return Err(MatchError::TooFewOpenings {
                starts: pairs,
                openings: openings.len(),
            });
        };
        varied += u32::from(extra);
        starts.push(opening);
    }
    Ok((starts, varied))
}

/// What a match plays.
struct Schedule {
    /// The engine pairs.
    pairs: Vec<(usize, usize)>,
    /// Every game, in order.
    jobs: Vec<Job>,
    /// Opening pairs given random plies to keep them distinct (most in one pairing).
    varied: u32,
}

/// The pairings and every game to play, openings shuffled by the seed; no (opening,
/// colours, random plies) game is played twice in a pairing, and engines that play alike
/// get a distinct start for every game (colours still alternate).
fn schedule(o: &MatchOptions) -> Result<Schedule, MatchError> {
    let pairs = pairings_of(o);
    let openings = if o.openings.is_empty() {
        vec![Opening::default()]
    } else {
        o.openings.clone()
    };
    let mut order: Vec<usize> = (0..openings.len()).collect();
    let mut rng = Rng::new(o.seed);
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i + 1));
    }
    let games = o.games_per_pairing();
    let (mut jobs, mut varied) = (Vec::new(), 0);
    for (p, &(a, b)) in pairs.iter().enumerate() {
        let per_start = if twins(o, (a, b)) { 1 } else { 2 };
        let (starts, extra) =
            distinct_starts(o, &openings, &order, p, (games / per_start) as usize)?;
        varied = varied.max(extra);
        let each = starts
            .iter()
            .flat_map(|s| std::iter::repeat_n(s, per_start as usize));
        for (g, opening) in (0..games).zip(each) {
            let first_is_white = g % 2 == 0;
            let (white, black) = if first_is_white { (a, b) } else { (b, a) };
            jobs.push(Job {
                round: jobs.len() as u64 + 1,
                pairing: p,
                pair: (g / 2) as usize,
                white,
                black,
                first_is_white,
                opening: opening.clone(),
            });
        }
    }
    Ok(Schedule {
        pairs,
        jobs,
        varied,
    })
}

/// Whether the engines of a pairing play alike, so that its games are not paired.
fn twins(o: &MatchOptions, (a, b): (usize, usize)) -> bool {
    o.engines[a].plays_like(&o.engines[b])
}

/// Plays a game, starting engines as needed; an engine that fails is dropped so the next
/// game starts it afresh.
fn play_job(
    o: &MatchOptions,
    job: &Job,
    engines: &mut HashMap<usize, Engine>,
    abort: &AtomicBool,
) -> GameRecord {
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
        &job.opening,
        &o.adjudication,
        abort,
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

/// The running tally of a match.
struct Tally {
    pairings: Vec<Pairing>,
    terminations: HashMap<String, u32>,
    /// The first engine's half points in the finished game of each half-played pair.
    open_pairs: HashMap<(usize, usize), usize>,
    sprt: Option<Sprt>,
}

impl Tally {
    fn new(o: &MatchOptions, pairs: &[(usize, usize)]) -> Tally {
        let pairings = pairs
            .iter()
            .map(|&(a, b)| Pairing {
                first: o.engines[a].name.clone(),
                second: o.engines[b].name.clone(),
                score: Score::default(),
                pairs: Pentanomial::default(),
                paired: !twins(o, (a, b)),
            })
            .collect();
        Tally {
            pairings,
            terminations: HashMap::new(),
            open_pairs: HashMap::new(),
            sprt: None,
        }
    }

    /// Counts a finished game: the score, its pair once both games are in, the reason it
    /// ended, and the SPRT of a single pairing.
    fn count(&mut self, o: &MatchOptions, job: &Job, ending: &Ending) {
        let first = if job.first_is_white {
            Color::White
        } else {
            Color::Black
        };
        let pairing = &mut self.pairings[job.pairing];
        let half_points = match ending.winner {
            None => 1,
            Some(c) if c == first => 2,
            Some(_) => 0,
        };
        let s = &mut pairing.score;
        match half_points {
            0 => s.losses += 1,
            1 => s.draws += 1,
            _ => s.wins += 1,
        }
        match self.open_pairs.remove(&(job.pairing, job.pair)) {
            Some(other) => pairing.pairs.0[half_points + other] += 1,
            None if pairing.paired => {
                self.open_pairs.insert((job.pairing, job.pair), half_points);
            }
            None => {}
        }
        *self.terminations.entry(ending.reason.clone()).or_default() += 1;
        if let (Some(test), [only]) = (o.sprt, &self.pairings[..]) {
            self.sprt = Some(match only.paired {
                true => test.pentanomial(&only.pairs),
                false => test.trinomial(&only.score),
            });
        }
    }

    /// The tally after the games of a stopped match (`earlier` jobs, ended as `o.earlier`
    /// says).
    fn with_earlier(
        o: &MatchOptions,
        pairs: &[(usize, usize)],
        earlier: &[Job],
    ) -> Result<Tally, MatchError> {
        if earlier.len() != o.earlier.len() {
            return Err(MatchError::EarlierGames {
                expected: earlier.len(),
                given: o.earlier.len(),
            });
        }
        let mut tally = Tally::new(o, pairs);
        for (job, ending) in earlier.iter().zip(&o.earlier) {
            tally.count(o, job, ending);
        }
        Ok(tally)
    }

    /// Whether the SPRT has decided.
    fn decided(&self) -> bool {
        self.sprt.is_some_and(|v| !matches!(v, Sprt::Continue(_)))
    }

    fn report(self, interrupted: bool, varied: u32) -> MatchReport {
        let mut terminations: Vec<(String, u32)> = self.terminations.into_iter().collect();
        terminations.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        MatchReport {
            pairings: self.pairings,
            terminations,
            sprt: self.sprt,
            interrupted,
            varied,
        }
    }
}

/// Appends games to the PGN file in schedule order (round 1, 2, ...), whatever order they
/// finish in, so the file does not depend on the number of games played at once.
struct PgnWriter {
    file: std::fs::File,
    path: PathBuf,
    /// The round written next.
    next: u64,
    /// Finished games waiting for an earlier round.
    waiting: BTreeMap<u64, String>,
}

impl PgnWriter {
    /// The writer of the match's PGN file, if it has one. A last game that an earlier run
    /// left cut short (killed, disk full) is dropped first, so no game is glued to it.
    fn open(o: &MatchOptions) -> Result<Option<PgnWriter>, MatchError> {
        let Some(path) = &o.pgn else {
            return Ok(None);
        };
        let io = |cause| MatchError::Io {
            path: path.clone(),
            cause,
        };
        crate::results::drop_torn_game(path).map_err(io)?;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|cause| MatchError::Io {
                path: path.clone(),
                cause,
            })?;
        Ok(Some(PgnWriter {
            file,
            path: path.clone(),
            next: o.first_round.max(1),
            waiting: BTreeMap::new(),
        }))
    }

    /// Adds the game of `round`; writes every game now in order.
    fn add(&mut self, round: u64, text: String) -> Result<(), MatchError> {
        self.waiting.insert(round, text);
        while let Some(text) = self.waiting.remove(&self.next) {
            self.write(&text)?;
            self.next += 1;
        }
        Ok(())
    }

    /// Writes the games still waiting (rounds after one that was never played), in order.
    fn finish(mut self) -> Result<(), MatchError> {
        for text in std::mem::take(&mut self.waiting).into_values() {
            self.write(&text)?;
        }
        Ok(())
    }

    fn write(&mut self, text: &str) -> Result<(), MatchError> {
        self.file
            .write_all(text.as_bytes())
            .and_then(|()| self.file.flush())
            .map_err(|cause| MatchError::Io {
                path: self.path.clone(),
                cause,
            })
    }
}

/// A worker: plays games from the queue until it is empty, the SPRT decided (`stop`) or
/// the match is interrupted (the game in flight is then abandoned, not sent).
fn worker(
    o: &MatchOptions,
    queue: &Mutex<VecDeque<Job>>,
    stops: [&AtomicBool; 2],
    tx: Sender<(Job, GameRecord)>,
) {
    let [stop, interrupt] = stops;
    let mut engines = HashMap::new();
    while !stop.load(Ordering::SeqCst) && !interrupt.load(Ordering::SeqCst) {
        let Some(job) = queue.lock().expect("queue").pop_front() else {
            break;
        };
        let record = play_job(o, &job, &mut engines, interrupt);
        if record.ending.reason == ABORTED || tx.send((job, record)).is_err() {
            break;
        }
    }
}

impl MatchOptions {
    /// The games each pairing plays: `games` rounded up to whole colour-swapped pairs.
    pub fn games_per_pairing(&self) -> u32 {
        self.games.div_ceil(2) * 2
    }

    /// The games of the whole match, every pairing's.
    pub fn total_games(&self) -> u64 {
        u64::from(self.games_per_pairing()) * pairings_of(self).len() as u64
    }

    /// Goes on from the games a stopped run of this match left in its PGN: the finished
    /// games of rounds 1, 2, ... are kept (see [`crate::results::keep_finished_games`]),
    /// count in the score, and play resumes at the next round. Returns how many were kept
    /// (none without a PGN file).
    ///
    /// # Errors
    /// The PGN cannot be read or rewritten.
    pub fn continue_games(&mut self) -> Result<usize, MatchError> {
        let Some(pgn) = &self.pgn else {
            return Ok(0);
        };
        let earlier = crate::results::keep_finished_games(pgn).map_err(|cause| MatchError::Io {
            path: pgn.clone(),
            cause,
        })?;
        self.first_round = earlier.len() as u64 + 1;
        self.earlier = earlier;
        Ok(self.earlier.len())
    }
}

/// Runs the match. `progress` is called after every game, in the order games finish. When
/// `interrupt` is set, no new game starts, the games in flight are abandoned before their
/// next move, and the report covers the finished games.
///
/// # Errors
/// Fewer than two engines, too few distinct openings, an engine that does not start
/// (checked before any game), or a PGN file that cannot be written.
pub fn run_match(
    o: &MatchOptions,
    interrupt: &AtomicBool,
    progress: &mut dyn FnMut(&Progress),
) -> Result<MatchReport, MatchError> {
    if o.engines.len() < 2 {
        return Err(MatchError::TooFewEngines);
    }
    let Schedule {
        pairs,
        jobs,
        varied,
    } = schedule(o)?;
    let (earlier, jobs): (Vec<Job>, Vec<Job>) =
        jobs.into_iter().partition(|j| j.round < o.first_round);
    let mut tally = Tally::with_earlier(o, &pairs, &earlier)?;
    check_engines_start(o)?;
    let total = jobs.len() as u32;
    let mut pgn = PgnWriter::open(o)?;
    let queue = Mutex::new(jobs.into_iter().collect::<VecDeque<_>>());
    let stop = AtomicBool::new(false);
    let (tx, rx) = channel::<(Job, GameRecord)>();
    if tally.decided() {
        stop.store(true, Ordering::SeqCst);
    }
    std::thread::scope(|scope| -> Result<(), MatchError> {
        for _ in 0..o.concurrency.max(1) {
            let (queue, stop, tx) = (&queue, &stop, tx.clone());
            scope.spawn(move || worker(o, queue, [stop, interrupt], tx));
        }
        drop(tx);
        // Games are counted in schedule order, so an SPRT decides on the same games
        // whatever the number of games played at once; games after its decision are dropped.
        let mut waiting = BTreeMap::new();
        let mut next = o.first_round.max(1);
        let mut done = 0;
        let mut count = |job: Job, record: GameRecord| -> Result<(), MatchError> {
            if let Some(w) = pgn.as_mut() {
                w.add(job.round, to_pgn(&record, job.round, &o.event))?;
            }
            tally.count(o, &job, &record.ending);
            if tally.decided() {
                stop.store(true, Ordering::SeqCst);
            }
            done += 1;
            progress(&Progress {
                done,
                total,
                pairings: &tally.pairings,
                last: &record,
            });
            Ok(())
        };
        for (job, record) in rx {
            waiting.insert(job.round, (job, record));
            while let Some((job, record)) = waiting.remove(&next) {
                next += 1;
                if !stop.load(Ordering::SeqCst) {
                    count(job, record)?;
                }
            }
        }
        // Stopped from outside: the finished games after a gap count too.
        if !stop.load(Ordering::SeqCst) {
            for (job, record) in std::mem::take(&mut waiting).into_values() {
                count(job, record)?;
            }
        }
        pgn.map_or(Ok(()), PgnWriter::finish)
    })?;
    Ok(tally.report(interrupt.load(Ordering::SeqCst), varied))
}
