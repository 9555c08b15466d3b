//! Where loading spends its time: the steps of one position timed apart, on one thread, the
//! same code the loader runs on every thread.

use crate::dataset::{SegmentBuilder, SEGMENT};
use crate::load::{io, parse_one, LoadError, BATCH_BYTES};
use std::path::Path;
use std::time::{Duration, Instant};
use texel_data::{block_lines, open_input, read_block, LabelReading};
use texel_eval::{Params, Trace, Tracer};

/// Time per position of each step of loading, on one thread.
#[derive(Clone, Copy, Debug, Default)]
pub struct LoadPhases {
    /// Positions timed (bad lines are skipped, not timed).
    pub positions: usize,
    /// Parsing the line: the position (checked legal), its hash and its label.
    pub parse: Duration,
    /// Tracing the evaluation.
    pub trace: Duration,
    /// Adding the trace to its segment (column entries, formula inputs, reads), a
    /// segment finished every 8,192 positions.
    pub segment: Duration,
}

/// Times the steps of loading on the first `limit` positions of `path`, one thread.
///
/// # Errors
/// An unreadable file.
pub fn load_phases(path: &Path, params: &Params, limit: usize) -> Result<LoadPhases, LoadError> {
    let mut input = open_input(path).map_err(|e| io(path, e))?;
    let (mut tracer, mut trace) = (Tracer::new(params), Trace::default());
    let mut builder = SegmentBuilder::default();
    let (mut text, mut line_no) = (Vec::new(), 0);
    let mut total = LoadPhases::default();
    let mut in_segment = 0;
    while total.positions < limit
        && read_block(&mut input.reader, BATCH_BYTES, &mut text).map_err(|e| io(path, e))?
    {
        for (_, line) in block_lines(&text, &mut line_no) {
            let start = Instant::now();
            let Ok((labelled, _, _)) = parse_one(line, LabelReading::default()) else {
                continue;
            };
            let parsed = Instant::now();
            tracer.trace_into(&labelled.position, &mut trace);
            let traced = Instant::now();
            builder.push(labelled.label, &trace);
            in_segment += 1;
            if in_segment == SEGMENT {
                builder.finish();
                in_segment = 0;
            }
            total.parse += parsed - start;
            total.trace += traced - parsed;
            total.segment += traced.elapsed();
            total.positions += 1;
            if total.positions == limit {
                break;
            }
        }
    }
    let n = total.positions.max(1) as u32;
    Ok(LoadPhases {
        positions: total.positions,
        parse: total.parse / n,
        trace: total.trace / n,
        segment: total.segment / n,
    })
}
