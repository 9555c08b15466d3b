//! Loading a trace file (either form, `docs/trace-format.md`) into training and validation
//! sets of an outside engine's linear evaluation.

use crate::linear::LinearDataset;
use crate::load::{fold, held_out};
use crate::model::Model;
use rayon::prelude::*;
use std::path::Path;
use texel_data::splitmix64;
use texel_trace::{read_trace, Coef, ParamSpace, TraceError, TracedPosition};

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
fn fold_space(mut h: u64, space: &ParamSpace) -> u64 {
    for p in space.params() {
        for b in p.name.bytes() {
            h = fold(h, u64::from(b));
        }
        h = fold(fold(h, p.len as u64), u64::from(p.tapered));
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

/// The training and validation datasets of `positions` of `space` (held out where `held`
/// says), labelled by their results and scored with `start`.
pub(crate) fn split_sets(
    space: &ParamSpace,
    positions: &[TracedPosition],
    held: &[bool],
    start: &[i32],
) -> (LinearDataset, LinearDataset) {
    let (mut train, mut validation) = (Vec::new(), Vec::new());
    for (p, &held) in positions.iter().zip(held) {
        if held {
            validation.push(p);
        } else {
            train.push(p);
        }
    }
    let result = |p: &TracedPosition| p.result;
    let mut sets = [&train, &validation].map(|set| LinearDataset::new(space, set, result));
    let start = start.to_vec();
    for set in &mut sets {
        set.rescore(&start);
    }
    let [train, validation] = sets;
    (train, validation)
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
    let (space, positions) = read_trace(path)?;
    let held = held_flags(positions.len(), validation_per_mille);
    // Each position hashed on its own (in parallel), the hashes folded in order.
    let hashes: Vec<u64> = (positions.par_iter().zip(&held))
        .map(|(p, &h)| position_hash(p, h))
        .collect();
    let start = fold_space(0xcbf2_9ce4_8422_2325, &space);
    let fingerprint = hashes.iter().fold(start, |f, &h| fold(f, h));
    let (train, validation) = split_sets(&space, &positions, &held, &space.defaults());
    Ok(TraceLoad {
        space,
        train,
        validation,
        fingerprint,
    })
}
