//! Segments: the column entries of a run of consecutive positions, built by one thread and
//! never grown afterwards. Every column of a segment lies in one buffer, column after
//! column, so a full pass reads a segment's memory front to back.

use super::coding::{
    dense, dense_pair, for_pair, put_gap, put_pair, stream, Coding, SparseParts, EVERY_POSITION,
};
use super::scales::ScaleBook;
use super::{Hot, ReadBy};
use texel_data::Label;
use texel_eval::curve::slot_count;
use texel_eval::formula::{EndgameScale, Formula};
use texel_eval::params::flat_params;
use texel_eval::table::{FLAT_LEN, TERM_COUNT};
use texel_eval::Trace;

/// First byte of a read list that refers to an earlier term's list (two bytes follow: the
/// term). A list of gaps never starts with 0; the one-byte list [`EVERY_POSITION`] does.
const SAME_AS: u8 = 0;

/// The column of curve slot `d`.
pub(super) fn curve_column(d: usize) -> usize {
    FLAT_LEN + d
}

/// The column listing where a formula reads term `t`.
fn read_column(t: usize) -> usize {
    FLAT_LEN + slot_count() + t
}

/// Columns per segment: the flat slots (an endgame slot's entries are in its middlegame
/// slot's column), the curve slots, the terms read by formulas.
fn column_count() -> usize {
    FLAT_LEN + slot_count() + TERM_COUNT
}

/// The column entries of positions `start..start + len`, positions counted from `start`.
#[derive(Clone, Debug)]
pub(crate) struct Segment {
    /// The first position.
    pub start: u32,
    /// Number of positions.
    pub len: u32,
    bytes: Box<[u8]>,
    /// Where column `c` begins in `bytes`; it ends where column `c + 1` begins.
    starts: Box<[u32]>,
    /// How each single-coefficient column is coded.
    codings: Box<[Coding]>,
    /// What each scalar column holds.
    forms: Box<[ScalarForm]>,
}

/// How a scalar (untapered) column of a segment holds its entries.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(super) enum ScalarForm {
    /// Both coefficients of every entry.
    #[default]
    Pairs,
    /// Every endgame coefficient is 0: the middlegame ones, as a single-coefficient column.
    MidOnly,
    /// Every middlegame coefficient is 0: the endgame ones, as a single-coefficient column.
    EndOnly,
}

impl Segment {
    /// The coded entries of column `c`.
    #[inline]
    pub fn column(&self, c: usize) -> &[u8] {
        &self.bytes[self.starts[c] as usize..self.starts[c + 1] as usize]
    }

    /// The coded positions whose formulas read term `t` (a list the same as an earlier
    /// term's is stored as a reference to it).
    #[inline]
    pub fn reads(&self, t: usize) -> &[u8] {
        match *self.column(read_column(t)) {
            [SAME_AS, lo, hi] => {
                self.column(read_column(usize::from(u16::from_le_bytes([lo, hi]))))
            }
            ref bytes => bytes,
        }
    }

    /// The coded entries of single-coefficient column `c`, and how they are coded.
    #[inline]
    pub(super) fn single(&self, c: usize) -> (&[u8], Coding) {
        match self.codings[c] {
            Coding::DenseHigh => (self.column(self.low_partner(c)), Coding::DenseHigh),
            coding => (self.column(c), coding),
        }
    }

    /// The [`Coding::DenseLow`] column whose bytes [`Coding::DenseHigh`] column `c` shares.
    fn low_partner(&self, c: usize) -> usize {
        let named = self.column(c);
        usize::from(u16::from_le_bytes([named[0], named[1]]))
    }

    /// The dense columns that share their bytes: (low nibbles, high nibbles).
    pub(super) fn dense_pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let high = self.codings.iter().enumerate();
        high.filter(|&(_, &coding)| coding == Coding::DenseHigh)
            .map(|(c, _)| (self.low_partner(c), c))
    }

    /// Scalar column `c`: what it holds, its coded entries, and how a single-coefficient
    /// form is coded.
    #[inline]
    pub(super) fn scalar(&self, c: usize) -> (ScalarForm, &[u8], Coding) {
        (self.forms[c], self.column(c), self.codings[c])
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        let (columns, kinds) = (4 * self.starts.len(), self.codings.len() + self.forms.len());
        self.bytes.len() + columns + kinds + std::mem::size_of::<Self>()
    }
}

/// A finished segment with the per-position parts that go into the dataset's own arrays.
pub(crate) struct Part {
    pub segment: Segment,
    pub hot: Vec<Hot>,
    /// The positions' king attacks, one after the other.
    pub formulas: Vec<u8>,
    /// Where each position's king attacks begin in `formulas`.
    pub offsets: Vec<u32>,
    /// The distinct endgame scale inputs of the positions.
    pub scales: Vec<EndgameScale>,
    /// Each position's number in `scales`.
    pub scale_numbers: Vec<u32>,
    /// Per term, the positions whose formulas read it.
    pub reads: Vec<u32>,
    /// Per term, which formulas read it.
    pub read_by: Vec<ReadBy>,
}

/// Whether a column of `entries` entries, `sparse` bytes coded sparse, is better read as a
/// stream of `stream` bytes with `outside` coefficients outside its words: when it is at
/// most a quarter larger and at most one coefficient in eight lies outside.
fn worth_streaming(entries: u32, outside: u32, stream: usize, sparse: usize) -> bool {
    8 * outside <= entries && 4 * stream <= 5 * sparse
}

/// Builds segments one position at a time; reusable (one per thread).
pub(crate) struct SegmentBuilder {
    columns: Vec<Vec<u8>>,
    /// Per column, the last position with an entry (`u32::MAX` before the first).
    last: Vec<u32>,
    /// The single-coefficient columns, coded at the end of the segment.
    singles: Vec<SparseParts>,
    /// Per scalar column, whether some entry has a middlegame and an endgame coefficient.
    scalar_uses: Vec<[bool; 2]>,
    hot: Vec<Hot>,
    formulas: Vec<u8>,
    offsets: Vec<u32>,
    scales: ScaleBook,
    scale_numbers: Vec<u32>,
    reads: Vec<u32>,
    read_by: Vec<ReadBy>,
    /// Scratch: the terms the formulas of one position read, a bit per term.
    terms_read: [u64; TERM_WORDS],
}

/// Words of a bit set over the terms.
const TERM_WORDS: usize = TERM_COUNT.div_ceil(64);

impl Default for SegmentBuilder {
    fn default() -> Self {
        SegmentBuilder {
            columns: vec![Vec::new(); column_count()],
            last: vec![u32::MAX; column_count()],
            singles: vec![SparseParts::default(); column_count()],
            scalar_uses: vec![[false; 2]; column_count()],
            hot: Vec::new(),
            formulas: Vec::new(),
            offsets: Vec::new(),
            scales: ScaleBook::default(),
            scale_numbers: Vec::new(),
            reads: vec![0; TERM_COUNT],
            read_by: vec![ReadBy::default(); TERM_COUNT],
            terms_read: [0; TERM_WORDS],
        }
    }
}

impl SegmentBuilder {
    /// The gap from column `c`'s last entry to position `p`, which becomes its last.
    #[inline]
    fn gap(&mut self, c: usize, p: u32) -> u32 {
        let gap = p.wrapping_sub(self.last[c]);
        self.last[c] = p;
        gap
    }

    /// Replaces every read list the same as an earlier term's (the king attack's terms are
    /// mostly read together) by a reference to it.
    fn share_reads(&mut self) {
        let read: Vec<usize> = (0..TERM_COUNT).filter(|&t| self.reads[t] > 0).collect();
        for (i, &t) in read.iter().enumerate() {
            let col = read_column(t);
            if self.columns[col].len() <= 3 {
                continue;
            }
            let same = read[..i]
                .iter()
                .find(|&&u| self.columns[read_column(u)] == self.columns[col]);
            if let Some(&u) = same {
                let [lo, hi] = (u as u16).to_le_bytes();
                self.columns[col].clear();
                self.columns[col].extend([SAME_AS, lo, hi]);
            }
        }
    }

    /// Recodes every scalar column whose entries in this segment all have a zero endgame
    /// (or middlegame) coefficient as a single-coefficient column of the other; returns
    /// every column's form.
    fn fold_scalars(&mut self) -> Box<[ScalarForm]> {
        let mut forms = vec![ScalarForm::Pairs; self.columns.len()];
        for (c, uses) in self.scalar_uses.iter_mut().enumerate() {
            let form = match std::mem::take(uses) {
                [true, false] => ScalarForm::MidOnly,
                [false, true] => ScalarForm::EndOnly,
                _ => continue,
            };
            let (single, mut last) = (&mut self.singles[c], u32::MAX);
            for_pair(&self.columns[c], |p, mid, end| {
                let coef = if form == ScalarForm::MidOnly {
                    mid
                } else {
                    end
                };
                single.put(p.wrapping_sub(last), coef);
                last = p;
            });
            forms[c] = form;
        }
        forms.into_boxed_slice()
    }

    /// Codes the single-coefficient columns of a segment of `len` positions: dense from an
    /// entry in every second position when every coefficient fits a nibble (two such
    /// columns share a byte per position), a stream from one in 16 when
    /// [`worth_streaming`], sparse otherwise; returns every column's coding.
    fn code_singles(&mut self, len: u32) -> Box<[Coding]> {
        let mut codings = vec![Coding::Sparse; self.columns.len()];
        let mut outside = Vec::new();
        let mut dense_columns = Vec::new();
        for (c, single) in self.singles.iter().enumerate() {
            let (entries, column) = (single.len(), &mut self.columns[c]);
            if entries == 0 {
                continue;
            } else if !single.large() && 2 * entries >= len {
                dense_columns.push(c);
                continue;
            }
            if 16 * entries >= len {
                let out = stream(single.entries(), column, &mut outside);
                if worth_streaming(entries, out, column.len(), single.written_len()) {
                    codings[c] = Coding::Stream;
                    continue;
                }
            }
            single.write(column);
        }
        self.code_dense(&dense_columns, len, &mut codings);
        self.singles.iter_mut().for_each(SparseParts::clear);
        codings.into_boxed_slice()
    }

    /// Codes the dense `columns` two by two in a byte per position (the first names the
    /// second's partner), the last one alone in a nibble per position if their number is odd.
    fn code_dense(&mut self, columns: &[usize], len: u32, codings: &mut [Coding]) {
        let mut pairs = columns.chunks_exact(2);
        for pair in &mut pairs {
            let (low, high) = (pair[0], pair[1]);
            let (a, b) = (self.singles[low].entries(), self.singles[high].entries());
            dense_pair(a, b, len, &mut self.columns[low]);
            self.columns[high].clear();
            let named = u16::try_from(low).expect("columns are numbered in 16 bits");
            self.columns[high].extend(named.to_le_bytes());
            (codings[low], codings[high]) = (Coding::DenseLow, Coding::DenseHigh);
        }
        if let [last] = *pairs.remainder() {
            dense(self.singles[last].entries(), len, &mut self.columns[last]);
            codings[last] = Coding::Dense;
        }
    }

    /// Appends a position with its label and trace. Its cached evaluation is left empty:
    /// one [`super::Dataset::rescore`] of the finished dataset fills every position's, the
    /// same code path that refreshes them while tuning.
    pub fn push(&mut self, label: Label, trace: &Trace) {
        let p = self.hot.len() as u32;
        self.offsets.push(self.formulas.len() as u32);
        trace.inputs.king_attack.encode(&mut self.formulas);
        let number = self.scales.number(&trace.inputs.scale);
        self.scale_numbers.push(number);
        self.hot.push(Hot {
            sum: [0, 0],
            phase: trace.phase as u8,
            scale: 0,
            label: label.steps(),
        });
        for c in &trace.coefs {
            let slot = usize::from(c.index);
            let gap = self.gap(slot, p);
            if c.tapered {
                // A tapered parameter's one count, in its middlegame slot's column.
                self.singles[slot].put(gap, c.mid);
            } else {
                put_pair(&mut self.columns[slot], gap, c.mid, c.end);
                let uses = &mut self.scalar_uses[slot];
                uses[0] |= c.mid != 0;
                uses[1] |= c.end != 0;
            }
        }
        for c in &trace.curves {
            let col = curve_column(usize::from(c.slot));
            let gap = self.gap(col, p);
            self.singles[col].put(gap, c.count);
        }
        self.record_reads(p, trace);
    }

    /// Records which terms the formulas of position `p` read (and by which formula).
    fn record_reads(&mut self, p: u32, trace: &Trace) {
        let flat = flat_params();
        let (terms, read_by) = (&mut self.terms_read, &mut self.read_by);
        trace.inputs.for_each_read(|p, formula| {
            let t = usize::from(flat[p.flat_index()].term.0);
            match formula {
                Formula::KingAttack => read_by[t].attack = true,
                Formula::Scale => read_by[t].scale = true,
            }
            terms[t / 64] |= 1 << (t % 64);
        });
        for w in 0..TERM_WORDS {
            let mut bits = std::mem::take(&mut self.terms_read[w]);
            while bits != 0 {
                let t = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let col = read_column(t);
                let gap = self.gap(col, p);
                put_gap(&mut self.columns[col], gap);
                self.reads[t] += 1;
            }
        }
    }

    /// The segment of the positions pushed so far; the builder is empty afterwards. A
    /// term read in more than half of the segment's positions is stored as read in all.
    pub fn finish(&mut self) -> Part {
        let len = self.hot.len() as u32;
        for t in 0..TERM_COUNT {
            if self.reads[t] > len / 2 {
                let col = &mut self.columns[read_column(t)];
                col.clear();
                col.push(EVERY_POSITION);
            }
        }
        self.share_reads();
        let forms = self.fold_scalars();
        let codings = self.code_singles(len);
        let total = self.columns.iter().map(Vec::len).sum();
        let mut bytes = Vec::with_capacity(total);
        let mut starts = Vec::with_capacity(self.columns.len() + 1);
        for col in &mut self.columns {
            starts.push(bytes.len() as u32);
            bytes.extend_from_slice(col);
            col.clear();
        }
        starts.push(bytes.len() as u32);
        self.last.fill(u32::MAX);
        let part = Part {
            segment: Segment {
                start: 0,
                len,
                bytes: bytes.into_boxed_slice(),
                starts: starts.into_boxed_slice(),
                codings,
                forms,
            },
            hot: std::mem::take(&mut self.hot),
            formulas: std::mem::take(&mut self.formulas),
            offsets: std::mem::take(&mut self.offsets),
            scales: self.scales.take(),
            scale_numbers: std::mem::take(&mut self.scale_numbers),
            reads: self.reads.clone(),
            read_by: self.read_by.clone(),
        };
        self.reads.fill(0);
        self.read_by.fill(ReadBy::default());
        part
    }
}

#[cfg(test)]
mod tests {
    use super::worth_streaming;

    #[test]
    fn a_stream_must_stay_close_to_the_sparse_size_with_few_large_coefficients() {
        assert!(worth_streaming(800, 0, 1_000, 800));
        assert!(worth_streaming(800, 100, 900, 1_000));
        assert!(
            !worth_streaming(800, 101, 900, 1_000),
            "more than one in eight outside"
        );
        assert!(
            !worth_streaming(800, 0, 1_001, 800),
            "more than a quarter larger"
        );
    }
}
