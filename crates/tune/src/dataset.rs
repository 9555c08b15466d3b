//! The compact in-memory dataset: traced positions stored column by column.
//!
//! Per position: the game result, phase, scale, the cached linear and formula sums for the
//! current parameters, and the position itself packed (to re-evaluate formulas). Per flat
//! parameter: a column of (position, coefficient) pairs, delta- and varint-coded, which is
//! also the reverse index. Per term read by a formula: the positions where it was read, or
//! "all" when it is read in most positions.

use crate::varint;
use shakmaty::packed::PackedSetup;
use shakmaty::{CastlingMode, Chess, EnPassantMode, FromSetup, Position};
use texel_data::Outcome;
use texel_eval::params::{flat_params, Component};
use texel_eval::table::{FLAT_LEN, TERM_COUNT};
use texel_eval::{taper, Params, TermId, Trace, S};

/// Which positions a formula reads a term in.
#[derive(Clone, Debug)]
enum Reads {
    /// Never read by a formula.
    None,
    /// Read in these positions (delta-coded varints) — `count` of them.
    Some { bytes: Vec<u8>, count: u32 },
    /// Read in most positions: treated as read everywhere.
    All,
}

/// The positions a parameter change touches.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Touch {
    /// Position index.
    pub pos: u32,
    /// Change of the middlegame sum per unit of the parameter.
    pub mid: i32,
    /// Change of the endgame sum per unit of the parameter.
    pub end: i32,
    /// A formula reads the parameter here: the position must be evaluated again.
    pub full: bool,
}

/// Traced positions ready for tuning.
pub struct Dataset {
    outcomes: Vec<u8>,
    phase: Vec<u8>,
    scale: Vec<u8>,
    linear: Vec<[i32; 2]>,
    formulas: Vec<[i32; 2]>,
    packed: Vec<u8>,
    offsets: Vec<u32>,
    columns: Vec<Vec<u8>>,
    reads: Vec<Reads>,
}

impl std::fmt::Debug for Dataset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dataset")
            .field("positions", &self.len())
            .field("memory_bytes", &self.memory_bytes())
            .finish_non_exhaustive()
    }
}

/// Builds a [`Dataset`] one traced position at a time, in order.
pub struct DatasetBuilder {
    ds: Dataset,
    column_last: Vec<u32>,
    read_last: Vec<u32>,
}

impl Default for DatasetBuilder {
    fn default() -> Self {
        DatasetBuilder {
            ds: Dataset {
                outcomes: Vec::new(),
                phase: Vec::new(),
                scale: Vec::new(),
                linear: Vec::new(),
                formulas: Vec::new(),
                packed: Vec::new(),
                offsets: vec![0],
                columns: vec![Vec::new(); FLAT_LEN],
                reads: vec![Reads::None; TERM_COUNT],
            },
            column_last: vec![0; FLAT_LEN],
            read_last: vec![0; TERM_COUNT],
        }
    }
}

/// The packed bytes of a position (move counters dropped: the evaluation ignores them).
pub(crate) fn pack(pos: &Chess) -> Vec<u8> {
    let setup = pos.to_setup(EnPassantMode::Legal);
    PackedSetup::pack_standard_normalized(&setup)
        .expect("a legal standard position packs")
        .as_bytes()
        .to_vec()
}

impl DatasetBuilder {
    /// Appends a position with its result and its trace under `params`.
    pub fn push(&mut self, pos: &Chess, outcome: Outcome, trace: &Trace, params: &Params) {
        let ds = &mut self.ds;
        let p = ds.outcomes.len() as u32;
        ds.outcomes.push(outcome.index());
        ds.phase.push(trace.phase as u8);
        ds.scale.push(trace.scale as u8);
        let lin = trace.linear_sum(params);
        ds.linear.push([lin.0, lin.1]);
        ds.formulas.push([trace.formulas.0, trace.formulas.1]);
        ds.packed.extend(pack(pos));
        ds.offsets.push(ds.packed.len() as u32);
        let flat = flat_params();
        for c in &trace.coefs {
            let slot = usize::from(c.index);
            let col = &mut ds.columns[slot];
            match flat[slot].component {
                Component::End => continue,
                Component::Mid => {
                    varint::put(col, u64::from(p - self.column_last[slot]));
                    varint::put(col, varint::zigzag(c.mid));
                }
                Component::Scalar => {
                    varint::put(col, u64::from(p - self.column_last[slot]));
                    varint::put(col, varint::zigzag(c.mid));
                    varint::put(col, varint::zigzag(c.end));
                }
            }
            self.column_last[slot] = p;
        }
        let mut last_term = None;
        for &slot in &trace.formula_reads {
            let term = flat[usize::from(slot)].term;
            if last_term == Some(term) {
                continue;
            }
            last_term = Some(term);
            let t = term.0 as usize;
            let delta = p - self.read_last[t];
            match &mut ds.reads[t] {
                r @ Reads::None => {
                    let mut bytes = Vec::new();
                    varint::put(&mut bytes, u64::from(delta));
                    *r = Reads::Some { bytes, count: 1 };
                }
                Reads::Some { bytes, count } => {
                    varint::put(bytes, u64::from(delta));
                    *count += 1;
                }
                Reads::All => unreachable!("lists become `All` only when finished"),
            }
            self.read_last[t] = p;
        }
    }

    /// Number of positions so far.
    pub fn len(&self) -> usize {
        self.ds.outcomes.len()
    }

    /// Whether no position was pushed.
    pub fn is_empty(&self) -> bool {
        self.ds.outcomes.is_empty()
    }

    /// The finished dataset. Terms read in more than half of the positions are treated as
    /// read everywhere (a list would cost more than it saves).
    pub fn finish(mut self) -> Dataset {
        let n = self.ds.outcomes.len() as u32;
        for r in &mut self.ds.reads {
            if let Reads::Some { count, .. } = r {
                if *count > n / 2 {
                    *r = Reads::All;
                }
            }
        }
        let ds = &mut self.ds;
        ds.outcomes.shrink_to_fit();
        ds.phase.shrink_to_fit();
        ds.scale.shrink_to_fit();
        ds.linear.shrink_to_fit();
        ds.formulas.shrink_to_fit();
        ds.packed.shrink_to_fit();
        ds.offsets.shrink_to_fit();
        for c in &mut ds.columns {
            c.shrink_to_fit();
        }
        for r in &mut ds.reads {
            if let Reads::Some { bytes, .. } = r {
                bytes.shrink_to_fit();
            }
        }
        self.ds
    }
}

impl Dataset {
    /// Number of positions.
    pub fn len(&self) -> usize {
        self.outcomes.len()
    }

    /// Whether the dataset holds no position.
    pub fn is_empty(&self) -> bool {
        self.outcomes.is_empty()
    }

    /// Bytes held in memory, reverse index and packed positions included.
    pub fn memory_bytes(&self) -> usize {
        let fixed = self.outcomes.capacity()
            + self.phase.capacity()
            + self.scale.capacity()
            + 8 * (self.linear.capacity() + self.formulas.capacity())
            + self.packed.capacity()
            + 4 * self.offsets.capacity();
        let columns: usize = self.columns.iter().map(|c| c.capacity() + 24).sum();
        let reads: usize = self
            .reads
            .iter()
            .map(|r| match r {
                Reads::Some { bytes, .. } => bytes.capacity() + 32,
                _ => 32,
            })
            .sum();
        fixed + columns + reads
    }

    /// The game result of position `i`, white's view: 0, 0.5 or 1.
    #[inline]
    pub(crate) fn target(&self, i: usize) -> f64 {
        f64::from(self.outcomes[i]) * 0.5
    }

    /// The evaluation of position `i` from the cached sums, moved by `delta`.
    #[inline]
    pub(crate) fn eval_with(&self, i: usize, delta: [i32; 2]) -> i32 {
        let (l, f) = (self.linear[i], self.formulas[i]);
        let sum = S(l[0] + f[0] + delta[0], l[1] + f[1] + delta[1]);
        taper(sum, i32::from(self.phase[i]), i32::from(self.scale[i]))
    }

    /// The evaluation of position `i` from the cached sums.
    #[inline]
    pub(crate) fn eval(&self, i: usize) -> i32 {
        self.eval_with(i, [0, 0])
    }

    /// Position `i`, unpacked.
    pub fn position(&self, i: usize) -> Chess {
        let bytes = &self.packed[self.offsets[i] as usize..self.offsets[i + 1] as usize];
        let packed = PackedSetup::try_from_bytes(bytes).expect("packed by this dataset");
        let setup = packed.unpack_standard().expect("packed by this dataset");
        Chess::from_setup(setup, CastlingMode::Standard).expect("was legal when packed")
    }

    /// Stores the sums of a fresh trace of position `i`.
    pub(crate) fn store(&mut self, i: usize, t: &Trace, params: &Params) {
        let lin = t.linear_sum(params);
        self.linear[i] = [lin.0, lin.1];
        self.formulas[i] = [t.formulas.0, t.formulas.1];
        self.scale[i] = t.scale as u8;
    }

    /// Applies a linear change of the cached sums.
    #[inline]
    pub(crate) fn shift_linear(&mut self, i: usize, delta: [i32; 2]) {
        self.linear[i][0] += delta[0];
        self.linear[i][1] += delta[1];
    }

    /// The positions a change of flat parameter `slot` touches, in position order.
    pub(crate) fn touches(&self, slot: usize) -> Vec<Touch> {
        let fp = flat_params()[slot];
        let mut linear = Vec::new();
        let (col, kind) = match fp.component {
            Component::Mid => (slot, 0),
            Component::End => (slot - 1, 1),
            Component::Scalar => (slot, 2),
        };
        let bytes = &self.columns[col];
        let (mut at, mut pos) = (0, 0u32);
        while at < bytes.len() {
            pos += varint::get(bytes, &mut at) as u32;
            let a = varint::unzigzag(varint::get(bytes, &mut at));
            let (mid, end) = match kind {
                0 => (a, 0),
                1 => (0, a),
                _ => (a, varint::unzigzag(varint::get(bytes, &mut at))),
            };
            linear.push(Touch {
                pos,
                mid,
                end,
                full: false,
            });
        }
        match &self.reads[fp.term.0 as usize] {
            Reads::None => linear,
            Reads::All => (0..self.len() as u32)
                .map(|pos| Touch {
                    pos,
                    mid: 0,
                    end: 0,
                    full: true,
                })
                .collect(),
            Reads::Some { bytes, .. } => {
                let mut full = Vec::new();
                let (mut at, mut pos) = (0, 0u32);
                while at < bytes.len() {
                    pos += varint::get(bytes, &mut at) as u32;
                    full.push(pos);
                }
                merge(linear, &full)
            }
        }
    }

    /// How many positions read `term` through a formula (all of them when `None`).
    pub fn formula_reads(&self, term: TermId) -> Option<usize> {
        match &self.reads[term.0 as usize] {
            Reads::None => Some(0),
            Reads::Some { count, .. } => Some(*count as usize),
            Reads::All => None,
        }
    }
}

/// Merges linear touches with the positions that need a full evaluation (both sorted).
fn merge(linear: Vec<Touch>, full: &[u32]) -> Vec<Touch> {
    let mut out = Vec::with_capacity(linear.len() + full.len());
    let mut f = full.iter().peekable();
    for t in linear {
        while let Some(&&p) = f.peek() {
            if p >= t.pos {
                break;
            }
            out.push(Touch {
                pos: p,
                mid: 0,
                end: 0,
                full: true,
            });
            f.next();
        }
        if f.peek() == Some(&&t.pos) {
            f.next();
            out.push(Touch { full: true, ..t });
        } else {
            out.push(t);
        }
    }
    out.extend(f.map(|&p| Touch {
        pos: p,
        mid: 0,
        end: 0,
        full: true,
    }));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_keeps_order_and_marks_full_positions() {
        let t = |pos| Touch {
            pos,
            mid: 1,
            end: 0,
            full: false,
        };
        let merged = merge(vec![t(1), t(4), t(6)], &[0, 4, 9]);
        let got: Vec<_> = merged.iter().map(|t| (t.pos, t.full)).collect();
        assert_eq!(
            got,
            vec![(0, true), (1, false), (4, true), (6, false), (9, true)]
        );
        assert_eq!(merged[2].mid, 1);
    }
}
