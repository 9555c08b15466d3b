//! A trace file's positions (either form, `docs/trace-format.md`): loaded into training
//! and validation sets of an outside engine's linear evaluation, or surveyed for a run that
//! reads them from the file in every pass; their split, targets and fingerprint are the
//! same either way.

use crate::lambda::{Lambda, ScoredLabels};
use crate::select::SelectionError;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use texel_data::splitmix64;
use texel_data::{GameSplit, HeldOut, SplitCounts};
use texel_files::Fingerprint;
use texel_linear::TraceDataset;
use texel_solve::model::Model;
use texel_trace::{
    is_binary, read_trace, BinaryTrace, Coef, InnerSum, ParamSpace, PositionSource, TraceError,
    TracedPosition, ValuesFileError,
};

/// A loaded trace.
#[derive(Debug)]
pub struct TraceLoad {
    /// The parameter space of the header.
    pub space: ParamSpace,
    /// The training positions, scored with the space's defaults.
    pub train: TraceDataset,
    /// The positions held out for validation, scored with the defaults.
    pub validation: TraceDataset,
    /// A hash of the header, every position and the validation split: a checkpoint made on
    /// other data is refused by it.
    pub fingerprint: u64,
    /// Positions that carry a score (the engine's own win probability).
    pub scored: usize,
    /// The share of the game result in each training target, resolved for these positions
    /// (1 where λ auto walks its path: the path chooses).
    pub lambda: f64,
    /// Where λ auto walks its path: the training positions' results and scores.
    pub labels: Option<ScoredLabels>,
    /// What the held-out split holds.
    pub split: SplitCounts,
}

/// Folds the header into a fingerprint.
fn fold_space(mut h: Fingerprint, space: &ParamSpace) -> Fingerprint {
    for p in space.params() {
        h = p.name.bytes().fold(h, |h, b| h.u64(u64::from(b)));
        h = h.u64(p.len as u64).u64(u64::from(p.tapered));
    }
    for t in space.inner() {
        h = t.name.bytes().fold(h, |h, b| h.u64(u64::from(b)));
        for shape in t.parts() {
            let Some(s) = shape else {
                h = h.u64(0);
                continue;
            };
            for x in [Some(s.times), s.floor, s.ceiling] {
                h = h.u64(x.map_or(u64::MAX, f64::to_bits));
            }
            h = h
                .u64(s.curve as u64)
                .u64(s.times_value.map_or(u64::MAX, |v| v as u64));
        }
    }
    h
}

/// A hash of one position and whether it is held out: every field the evaluation or the
/// label reads, mixed in turn (taken apart whole, so a field added to the trace must be
/// added here).
fn position_hash(p: &TracedPosition, held: bool) -> u64 {
    let mix = |h: u64, x: u64| splitmix64(h ^ x);
    let TracedPosition {
        result,
        score,
        phase,
        scale,
        offset,
        offset_end,
        coeffs,
        inner,
        game,
    } = p;
    let mut h = u64::from(held);
    for x in [
        *result,
        *phase,
        *scale,
        *offset,
        *offset_end,
        score.unwrap_or(-1.0),
    ] {
        h = mix(h, u64::from(x.to_bits()));
    }
    h = mix(h, game.map_or(u64::MAX, splitmix64));
    h = coeffs_hash(h, coeffs);
    for InnerSum {
        term,
        side,
        offset,
        coeffs,
    } in inner
    {
        h = mix(mix(h, u64::from(*term)), u64::from(side.to_bits()));
        for x in offset {
            h = mix(h, u64::from(x.to_bits()));
        }
        h = coeffs_hash(h, coeffs);
    }
    h
}

/// `h` with every coefficient of `coeffs` mixed in.
fn coeffs_hash(mut h: u64, coeffs: &[Coef]) -> u64 {
    let mix = |h: u64, x: u64| splitmix64(h ^ x);
    for c in coeffs {
        let (i, a, b) = match *c {
            Coef::Count(i, n) => (i, n, f32::NAN),
            Coef::Split(i, m, e) => (i, m, e),
        };
        let bits = u64::from(a.to_bits()) << 32 | u64::from(b.to_bits());
        h = mix(mix(h, u64::from(i)), bits);
    }
    h
}

/// Which positions of `source` are held out for validation as `held_out` says (as `--epd`
/// does: whole games where the positions carry their game; the others one by one, or not at
/// all), and what the split holds. Nothing held out reads no position.
///
/// # Errors
/// A position cannot be read.
pub(crate) fn held_split<S: PositionSource + ?Sized>(
    source: &S,
    held_out: HeldOut,
) -> Result<(Vec<bool>, SplitCounts), S::Error> {
    let mut split = GameSplit::new(held_out);
    if held_out.per_mille == 0 {
        let held = vec![false; source.len()];
        let counts = SplitCounts {
            positions: [source.len() as u64, 0],
            ..SplitCounts::default()
        };
        return Ok((held, counts));
    }
    let mut held = Vec::with_capacity(source.len());
    let all: Vec<usize> = (0..source.len()).collect();
    source.for_each(&all, &mut TracedPosition::default(), |i, p| {
        held.push(split.held(0, p.game, i as u64));
    })?;
    Ok((held, split.counts()))
}

/// The target a position is tuned toward: its game result, or with `lambda` below 1 and a
/// score in the position, `lambda · result + (1 − lambda) · score` (the engine's own win
/// probability, White's view). Positions without a score keep their result.
pub fn target(p: &TracedPosition, lambda: f64) -> f32 {
    match p.score {
        Some(score) if lambda < 1.0 => blended(p.result, score, lambda),
        _ => p.result,
    }
}

/// `lambda · result + (1 − lambda) · score`.
fn blended(result: f32, score: f32, lambda: f64) -> f32 {
    (lambda * f64::from(result) + (1.0 - lambda) * f64::from(score)) as f32
}

/// Training and validation sets of a trace, a hash of each position in the source's order,
/// how many positions carry a score, the λ the training targets were built with (the
/// held-out positions keep their results), and where λ auto walks its path the training
/// positions' results and scores.
pub(crate) struct Split {
    pub train: TraceDataset,
    pub validation: TraceDataset,
    pub hashes: Vec<u64>,
    pub scored: usize,
    pub lambda: f64,
    pub labels: Option<ScoredLabels>,
}

/// What a split keeps of each position besides its evaluation: its hash, score and result.
type Kept = (u64, Option<f32>, f32);

/// The training and validation datasets of the positions of `source` (held out where `held`
/// says), each tuned toward its [`target`] with `lambda` resolved for them, scored with
/// `start`.
///
/// # Errors
/// The first position of `source` that cannot be read.
pub(crate) fn split_sets<S: PositionSource + ?Sized>(
    space: &ParamSpace,
    source: &S,
    held: &[bool],
    (start, lambda): (&[i32], Lambda),
) -> Result<Split, S::Error> {
    let (mut train, mut validation) = (Vec::new(), Vec::new());
    for (i, &held) in held.iter().enumerate() {
        match held {
            true => validation.push(i),
            false => train.push(i),
        }
    }
    let result = |p: &TracedPosition| p.result;
    let kept = |held: bool| move |p: &TracedPosition| (position_hash(p, held), p.score, p.result);
    let sets =
        TraceDataset::from_source(space, source, &train, result, kept(false)).and_then(|t| {
            let v = TraceDataset::from_source(space, source, &validation, result, kept(true));
            v.map(|v| (t, v))
        });
    // Either set may hold the fault met: the error names the first in the source.
    let ((mut train, train_kept), (mut validation, validation_kept)) =
        sets.map_err(|e| first_fault(source).unwrap_or(e))?;
    let start = start.to_vec();
    train.rescore(&start);
    validation.rescore(&start);
    let scored = (train_kept.iter().chain(&validation_kept))
        .filter(|h| h.1.is_some())
        .count();
    let walks = lambda.walks(scored, held.len(), validation_kept.len());
    let labels = walks.then(|| {
        let scores = train_kept.iter().map(|h| h.1.unwrap_or(h.2)).collect();
        ScoredLabels::new(train_kept.iter().map(|h| h.2).collect(), scores)
    });
    let lambda = if walks {
        1.0
    } else {
        lambda.resolve(scored, held.len())
    };
    if lambda < 1.0 {
        let blend = |h: &Kept| h.1.map_or(h.2, |s| blended(h.2, s, lambda));
        train.set_targets(train_kept.iter().map(blend).collect());
    }
    let (mut t, mut v) = (train_kept.into_iter(), validation_kept.into_iter());
    let hashes = held
        .iter()
        .filter_map(|&held| if held { v.next() } else { t.next() })
        .map(|h| h.0)
        .collect();
    Ok(Split {
        train,
        validation,
        hashes,
        scored,
        lambda,
        labels,
    })
}

/// The first position of `source` that cannot be read, if any.
fn first_fault<S: PositionSource + ?Sized>(source: &S) -> Option<S::Error> {
    let mut scratch = TracedPosition::default();
    (0..source.len()).find_map(|i| source.with(i, &mut scratch, |_| ()).err())
}

/// Reads the trace at `path` (text or binary, told by its first bytes), holds out about
/// `held_out` positions in 1,000 for validation (whole games where the positions
/// carry their `game`, else by a hash of each position's number, as `--epd` does), tunes each position toward its [`target`] with `lambda`
/// resolved for the file's positions, and scores both sets with the defaults of the header.
///
/// # Errors
/// The file cannot be read, or its header or a position is malformed: the error names the
/// file and the line (or byte) and field.
pub fn load_traces(
    path: &Path,
    held_out: HeldOut,
    lambda: Lambda,
) -> Result<TraceLoad, TraceError> {
    if is_binary(path)? {
        let trace = BinaryTrace::read(path)?;
        return load_from(trace.space().clone(), &trace, (held_out, lambda));
    }
    let (space, positions) = read_trace(path)?;
    let Ok(load) = load_from(space, positions.as_slice(), (held_out, lambda));
    Ok(load)
}

/// The load of the positions of `source` of `space` (see [`load_traces`]).
fn load_from<S: PositionSource + ?Sized>(
    space: ParamSpace,
    source: &S,
    (held_out, lambda): (HeldOut, Lambda),
) -> Result<TraceLoad, S::Error> {
    let (held, counts) = held_split(source, held_out)?;
    let split = split_sets(&space, source, &held, (&space.defaults(), lambda))?;
    let mut start = fold_space(Fingerprint::new(), &space);
    let lambda = split.lambda;
    if lambda < 1.0 || split.labels.is_some() {
        // Other targets are other data: a checkpoint or verdict of the results alone (or of
        // another λ) is not taken for these; the path of λs is a λ of its own.
        let walked = if split.labels.is_some() { -1.0 } else { lambda };
        start = start.u64(f64::to_bits(walked));
    }
    let fingerprint = split.hashes.iter().fold(start, |f, &h| f.u64(h)).value();
    Ok(TraceLoad {
        space,
        train: split.train,
        validation: split.validation,
        fingerprint,
        scored: split.scored,
        lambda,
        labels: split.labels,
        split: counts,
    })
}

/// Why a trace cannot be a tune's subject.
#[derive(Debug, thiserror::Error)]
pub enum TraceSubjectError {
    /// The trace's header cannot be read.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// The values file cannot be read.
    #[error(transparent)]
    Values(#[from] ValuesFileError),
    /// The selection names what the space does not have.
    #[error(transparent)]
    Selection(#[from] SelectionError),
    /// The trace holds no training position.
    #[error("{0}: no position to tune on")]
    Empty(PathBuf),
    /// Asked to stream a text trace.
    #[error("{} is a text trace: a streamed run reads a binary one", .0.display())]
    NotBinary(PathBuf),
    /// Targets that mix in the score, but no position has one.
    #[error(
        "{0}: no position carries a score, so a target of λ · result + (1 − λ) · score has \
         nothing to mix in (write each position's \"score\", the engine's own win probability)"
    )]
    NoScores(PathBuf),
}

/// What a pass over a binary trace finds before a streamed tune: the fingerprint the
/// in-memory load gives the same positions and split (so a checkpoint of other data is
/// refused as in memory), how many positions carry a score, and the λ resolved for them.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceSurvey {
    /// The fingerprint of the header, every position, the split and the targets' λ.
    pub fingerprint: u64,
    /// Positions that carry a score.
    pub scored: usize,
    /// `lambda` resolved for the positions.
    pub lambda: f64,
    /// What the targets are, in words, where λ auto decided it or they blend.
    pub targets: Option<String>,
}

/// Surveys `trace` (see [`TraceSurvey`]) with positions `held` out, reading `chunk`
/// positions at a time; `None` when `interrupt` was raised.
///
/// # Errors
/// A position cannot be read.
pub fn survey_trace(
    trace: &BinaryTrace,
    held: &[bool],
    lambda: Lambda,
    chunk: usize,
    interrupt: &AtomicBool,
) -> Result<Option<TraceSurvey>, TraceError> {
    let space = fold_space(Fingerprint::new(), trace.space());
    // The λ, and so the fingerprint's start, is known once the scores are counted: both
    // candidates are folded, one kept.
    let candidates = [lambda.resolve(1, 1), lambda.resolve(0, 1)];
    let mut folds = candidates.map(|l| match l < 1.0 {
        true => space.u64(l.to_bits()),
        false => space,
    });
    let (mut scratch, mut scored) = (TracedPosition::default(), 0);
    for first in (0..trace.len()).step_by(chunk.max(1)) {
        if interrupt.load(std::sync::atomic::Ordering::Relaxed) {
            return Ok(None);
        }
        let chosen: Vec<usize> = (first..trace.len().min(first + chunk.max(1))).collect();
        trace.for_each(&chosen, &mut scratch, |i, p| {
            scored += usize::from(p.score.is_some());
            let h = position_hash(p, held[first + i]);
            folds = folds.map(|f| f.u64(h));
        })?;
    }
    let targets = lambda.describe(scored, trace.len());
    let lambda = lambda.resolve(scored, trace.len());
    let fingerprint = match lambda == candidates[0] {
        true => folds[0],
        false => folds[1],
    };
    Ok(Some(TraceSurvey {
        fingerprint: fingerprint.value(),
        scored,
        lambda,
        targets,
    }))
}
