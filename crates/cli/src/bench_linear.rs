//! `texel bench tune`'s comparison of a pass over an outside linear evaluation with a pass
//! over texel's own table of the same size: the bench positions traced by texel, written as
//! another engine's trace of every value of the table (every linear coefficient as a count;
//! curves and formulas, which a linear trace cannot hold, left out), then rescored as a
//! [`TraceDataset`].

use anyhow::{Context, Result};
use rayon::prelude::*;
use std::path::Path;
use std::time::Instant;
use texel_eval::{Params, Trace};
use texel_solve::Model;
use texel_tune::texel_trace::{Coef, ParamSpace, TracedPosition};
use texel_tune::TraceDataset;

/// The entry of the trace format holding each flat slot of `space`.
fn entries_by_slot(space: &ParamSpace) -> Vec<u32> {
    let mut entry = 0u32;
    let mut by_slot = Vec::with_capacity(space.value_count());
    for p in space.params() {
        for _ in 0..p.len {
            by_slot.extend(std::iter::repeat_n(entry, p.width()));
            entry += 1;
        }
    }
    by_slot
}

/// texel's trace of one position as a linear trace of the table: a tapered value's count
/// (its middlegame and endgame counts apart when they differ, weighted by the phase), a
/// plain value's two counts merged by the phase.
fn as_linear(trace: &Trace, result: f32, entries: &[u32]) -> TracedPosition {
    let phase = trace.phase as f32 / texel_eval::MAX_PHASE as f32;
    let coeffs = trace
        .coefs
        .iter()
        .map(|c| {
            let (entry, mid, end) = (entries[usize::from(c.index)], c.mid as f32, c.end as f32);
            if c.tapered && c.mid == c.end {
                Coef::Count(entry, mid)
            } else if c.tapered {
                Coef::Split(entry, mid * phase, end * (1.0 - phase))
            } else {
                Coef::Count(entry, mid * phase + end * (1.0 - phase))
            }
        })
        .collect();
    TracedPosition {
        inner: Vec::new(),
        game: None,
        result,
        score: None,
        phase,
        scale: 1.0,
        offset: 0.0,
        offset_end: 0.0,
        coeffs,
    }
}

/// The positions of `epd` traced by texel as a linear trace of its table.
fn traced(epd: &Path, params: &Params, space: &ParamSpace) -> Result<Vec<TracedPosition>> {
    let text = std::fs::read_to_string(epd).with_context(|| epd.display().to_string())?;
    let entries = entries_by_slot(space);
    let lines: Vec<&str> = text.lines().collect();
    Ok(lines
        .par_iter()
        .filter_map(|line| texel_data::parse_line(line, None, false).ok())
        .map(|(l, _)| {
            let result = l.label.white_score() as f32;
            as_linear(&texel_eval::trace(&l.position, params), result, &entries)
        })
        .collect())
}

/// Times a full pass over texel's table as an outside linear evaluation of the same
/// positions (`epd` repeated `repeat` times) and prints it beside texel's own
/// `rescore_secs` for `n` positions.
pub fn bench_linear_pass(epd: &Path, repeat: usize, n: usize, rescore_secs: f64) -> Result<()> {
    let params = Params::default();
    let space = texel_eval::params::param_space();
    let once = traced(epd, &params, &space)?;
    let all: Vec<&TracedPosition> = (0..repeat.max(1)).flat_map(|_| once.iter()).collect();
    let mut ds = TraceDataset::new(&space, &all, |p| p.result);
    let values = params.flat().to_vec();
    let rounds = 20;
    let start = Instant::now();
    for _ in 0..rounds {
        ds.rescore(&values);
    }
    let secs = start.elapsed().as_secs_f64() / rounds as f64;
    let coefficients = once.iter().map(|p| p.coeffs.len()).sum::<usize>() as f64;
    say!(
        "linear     {:>10.0} positions/s  ({:.2} ms: the same positions as another engine's linear trace of the table's {} values, {:.1} coefficients a position; texel's own rescore {:.2} ms for {n})",
        ds.len() as f64 / secs,
        secs * 1e3,
        space.value_count(),
        coefficients / once.len() as f64,
        rescore_secs * 1e3
    );
    Ok(())
}
