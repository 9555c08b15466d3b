//! Loading a trace file (either form, `docs/trace-format.md`) into training and validation
//! sets of an outside engine's linear evaluation.

use crate::linear::LinearDataset;
use crate::model::Model;
use std::path::Path;
use texel_data::held_out;
use texel_data::splitmix64;
use texel_files::Fingerprint;
use texel_trace::{
    is_binary, read_trace, BinaryTrace, Coef, ParamSpace, PositionSource, TraceError,
    TracedPosition,
};

/// A loaded trace.
#[derive(Debug)]
pub struct TraceLoad {
    /// The parameter space of the header.
    pub space: ParamSpace,
    /// The training positions, scored with the space's defaults.
    pub train: LinearDataset,
    /// The positions held out for validation, scored with the defaults.
    pub validation: LinearDataset,
    /// A hash of the header, every position and the validation split: a checkpoint made on
    /// other data is refused by it.
    pub fingerprint: u64,
}

/// Folds the header into a fingerprint.
fn fold_space(mut h: Fingerprint, space: &ParamSpace) -> Fingerprint {
    for p in space.params() {
        h = p.name.bytes().fold(h, |h, b| h.u64(u64::from(b)));
        h = h.u64(p.len as u64).u64(u64::from(p.tapered));
    }
    h
}

/// A hash of one position and whether it is held out (mixing each field in turn).
fn position_hash(p: &TracedPosition, held: bool) -> u64 {
    let mix = |h: u64, x: u64| splitmix64(h ^ x);
    let mut h = u64::from(held);
    for x in [
        p.result,
        p.phase,
        p.scale,
        p.offset,
        p.score.unwrap_or(-1.0),
    ] {
        h = mix(h, u64::from(x.to_bits()));
    }
    for c in &p.coeffs {
        let (i, a, b) = match *c {
            Coef::Count(i, n) => (i, n, f32::NAN),
            Coef::Split(i, m, e) => (i, m, e),
        };
        let bits = u64::from(a.to_bits()) << 32 | u64::from(b.to_bits());
        h = mix(mix(h, u64::from(i)), bits);
    }
    h
}

/// Which of `n` positions are held out for validation: about `per_mille` in 1,000, by a hash
/// of each position's number (as `--epd` does).
pub(crate) fn held_flags(n: usize, per_mille: u32) -> Vec<bool> {
    (0..n as u64).map(|i| held_out(i, per_mille)).collect()
}

/// The training and validation datasets of the positions of `source` (held out where `held`
/// says), labelled by their results and scored with `start`; and a hash of each position and
/// its place (training or validation), in the source's order.
///
/// # Errors
/// The first position of `source` that cannot be read.
pub(crate) fn split_sets<S: PositionSource + ?Sized>(
    space: &ParamSpace,
    source: &S,
    held: &[bool],
    start: &[i32],
) -> Result<(LinearDataset, LinearDataset, Vec<u64>), S::Error> {
    let (mut train, mut validation) = (Vec::new(), Vec::new());
    for (i, &held) in held.iter().enumerate() {
        match held {
            true => validation.push(i),
            false => train.push(i),
        }
    }
    let result = |p: &TracedPosition| p.result;
    let hashed = |held: bool| move |p: &TracedPosition| position_hash(p, held);
    let sets =
        LinearDataset::from_source(space, source, &train, result, hashed(false)).and_then(|t| {
            let v = LinearDataset::from_source(space, source, &validation, result, hashed(true));
            v.map(|v| (t, v))
        });
    // Either set may hold the fault met: the error names the first in the source.
    let ((mut train, train_hashes), (mut validation, validation_hashes)) =
        sets.map_err(|e| first_fault(source).unwrap_or(e))?;
    let start = start.to_vec();
    train.rescore(&start);
    validation.rescore(&start);
    let (mut t, mut v) = (train_hashes.into_iter(), validation_hashes.into_iter());
    let hashes = held
        .iter()
        .filter_map(|&held| if held { v.next() } else { t.next() })
        .collect();
    Ok((train, validation, hashes))
}

/// The first position of `source` that cannot be read, if any.
fn first_fault<S: PositionSource + ?Sized>(source: &S) -> Option<S::Error> {
    let mut scratch = TracedPosition::default();
    (0..source.len()).find_map(|i| source.with(i, &mut scratch, |_| ()).err())
}

/// Reads the trace at `path` (text or binary, told by its first bytes), holds out about
/// `validation_per_mille` positions in 1,000 for validation (by a hash of each position's
/// number, as `--epd` does), labels each position by its game result, and scores both sets
/// with the defaults of the header.
///
/// # Errors
/// The file cannot be read, or its header or a position is malformed: the error names the
/// file and the line (or byte) and field.
pub fn load_traces(path: &Path, validation_per_mille: u32) -> Result<TraceLoad, TraceError> {
    if is_binary(path)? {
        let trace = BinaryTrace::read(path)?;
        return load_from(trace.space().clone(), &trace, validation_per_mille);
    }
    let (space, positions) = read_trace(path)?;
    let Ok(load) = load_from(space, positions.as_slice(), validation_per_mille);
    Ok(load)
}

/// The load of the positions of `source` of `space` (see [`load_traces`]).
fn load_from<S: PositionSource + ?Sized>(
    space: ParamSpace,
    source: &S,
    validation_per_mille: u32,
) -> Result<TraceLoad, S::Error> {
    let held = held_flags(source.len(), validation_per_mille);
    let (train, validation, hashes) = split_sets(&space, source, &held, &space.defaults())?;
    let start = fold_space(Fingerprint::new(), &space);
    let fingerprint = hashes.iter().fold(start, |f, &h| f.u64(h)).value();
    Ok(TraceLoad {
        space,
        train,
        validation,
        fingerprint,
    })
}
