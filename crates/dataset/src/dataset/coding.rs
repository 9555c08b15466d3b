//! How a column stores its entries: positions as gaps from the previous entry (the first
//! counted from one before the segment's first position), each with its coefficients.
//!
//! Most entries have a small gap and a small coefficient. In a [`Coding::Sparse`] column
//! every single-coefficient entry has a one-byte token: for a gap of 1 to 15 and a
//! coefficient from -8 to 7 (zigzagged: 0 to 15) it is the whole entry (gap − 1 in the high
//! nibble, the coefficient in the low one); for a gap of 16 to 271 the high nibble is 15
//! and one extra byte holds gap − 16; anything else is the token [`LONG`] with the gap and
//! the zigzagged coefficient as varints in the extras. The column is the number of tokens,
//! the tokens, then the extras, so a reader finds the next token without decoding this
//! one.
//!
//! A column with an entry in at least half of its segment's positions and only such
//! coefficients is stored dense instead: one nibble per position, and two such columns
//! share a byte per position ([`Coding::DenseLow`], [`Coding::DenseHigh`]; an odd one out
//! is [`Coding::Dense`], two positions a byte). Most other columns with an entry in at
//! least one position in 16 are a [`Coding::Stream`]: one byte per entry (the gap of 0 to
//! 15 in the high nibble, the zigzagged coefficient in the low one), a longer gap bridged
//! by entries of coefficient 0, in words of eight bytes that the full pass reads without a
//! branch per entry.
//!
//! Two-coefficient entries (an untapered integer whose entries in the segment count for
//! both sums; one that counts for one sum only is a single-coefficient column) and formula
//! reads (no coefficient) use varints throughout.

use texel_eval::varint::{self, unzigzag, zigzag};

/// The byte that announces a single-coefficient entry in varints.
const LONG: u8 = 0xff;

/// High nibble of a two-byte single-coefficient entry.
const MEDIUM: u8 = 0xf0;

/// A read list made of this one byte stands for every position of its segment (no gap is 0).
pub(super) const EVERY_POSITION: u8 = 0;

/// How a single-coefficient column of a segment is coded.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(super) enum Coding {
    /// Entries of one byte or more, read one at a time.
    #[default]
    Sparse,
    /// One byte per entry (and per bridge over a long gap), in words of eight bytes; after
    /// them, the coefficients too large for the byte.
    Stream,
    /// One nibble per position.
    Dense,
    /// The low nibbles of one byte per position; the high nibbles are another column's.
    DenseLow,
    /// The high nibbles of a [`Coding::DenseLow`] column's bytes (this column's own bytes
    /// name that column).
    DenseHigh,
}

/// A stream byte's low nibble that says: the coefficient is in the list after the words.
const OUTSIDE: u8 = 15;

/// The longest gap one stream byte holds.
const STREAM_GAP: u32 = 15;

/// One in every byte of a word.
const BYTES: u64 = 0x0101_0101_0101_0101;

/// Codes single-coefficient entries (positions in order) as a [`Coding::Stream`]: the
/// number of words (two bytes), the words, then per entry whose coefficient does not fit
/// its byte the gap from the previous such entry and the zigzagged coefficient (varints).
/// Returns the number of such entries; `outside` is scratch.
pub(super) fn stream(
    entries: impl Iterator<Item = (u32, i32)>,
    out: &mut Vec<u8>,
    outside: &mut Vec<u8>,
) -> u32 {
    out.clear();
    out.extend([0, 0]);
    outside.clear();
    let (mut last, mut last_outside, mut count) = (u32::MAX, u32::MAX, 0);
    for (pos, coef) in entries {
        let mut gap = pos.wrapping_sub(last);
        last = pos;
        while gap > STREAM_GAP {
            out.push((STREAM_GAP << 4) as u8);
            gap -= STREAM_GAP;
        }
        let z = zigzag(coef);
        if z < u64::from(OUTSIDE) {
            out.push((gap << 4) as u8 | z as u8);
        } else {
            out.push((gap << 4) as u8 | OUTSIDE);
            varint::put(outside, u64::from(pos.wrapping_sub(last_outside)));
            varint::put(outside, z);
            last_outside = pos;
            count += 1;
        }
    }
    // Padding: gap 0, coefficient 0.
    out.resize(2 + (out.len() - 2).next_multiple_of(8), 0);
    let words = u16::try_from((out.len() - 2) / 8).expect("a segment's column fits 65,535 words");
    out[..2].copy_from_slice(&words.to_le_bytes());
    out.extend_from_slice(outside);
    count
}

/// A stream's words and the list of coefficients outside them.
#[inline]
fn stream_parts(bytes: &[u8]) -> (&[u8], &[u8]) {
    let words = usize::from(u16::from_le_bytes([bytes[0], bytes[1]]));
    bytes[2..].split_at(8 * words)
}

/// The entries of a stream's list of coefficients outside its words: (position,
/// coefficient).
fn outside_entries(list: &[u8]) -> impl Iterator<Item = (u32, i32)> + '_ {
    let (mut at, mut pos) = (0, u32::MAX);
    std::iter::from_fn(move || {
        (at < list.len()).then(|| {
            pos = pos.wrapping_add(varint::get(list, &mut at) as u32);
            (pos, unzigzag(varint::get(list, &mut at)))
        })
    })
}

/// Calls `f(position, coefficient)` for every entry of a [`Coding::Stream`] column.
fn for_stream(bytes: &[u8], mut f: impl FnMut(u32, i32)) {
    let (words, outside) = stream_parts(bytes);
    let mut outside = outside_entries(outside);
    let mut pos = u32::MAX;
    for &b in words {
        pos = pos.wrapping_add(u32::from(b >> 4));
        match b & 15 {
            0 => {}
            OUTSIDE => {
                let (_, coef) = outside
                    .next()
                    .expect("a listed coefficient per marked byte");
                f(pos, coef);
            }
            z => f(pos, unzigzag(u64::from(z))),
        }
    }
}

/// [`add_single`] for a [`Coding::Stream`] column: eight entries a word, their gaps summed
/// in place by one multiplication (each byte then holds the gaps up to it, at most 120);
/// the bridges and the padding add 0.
#[inline(always)]
fn add_stream(bytes: &[u8], weight: i64, table: &[i64; 16], sums: &mut [i64]) {
    let (words, outside) = stream_parts(bytes);
    let mut products = *table;
    products[usize::from(OUTSIDE)] = 0;
    let mut pos = u32::MAX;
    for word in words.chunks_exact(8) {
        let word = u64::from_le_bytes(word.try_into().expect("a word is eight bytes"));
        let ends = ((word >> 4) & (15 * BYTES)).wrapping_mul(BYTES);
        for k in (0..64).step_by(8) {
            let p = pos.wrapping_add(u32::from((ends >> k) as u8));
            sums[p as usize] += products[(word >> k) as usize & 15];
        }
        pos = pos.wrapping_add((ends >> 56) as u32);
    }
    for (pos, coef) in outside_entries(outside) {
        sums[pos as usize] += i64::from(coef) * weight;
    }
}

/// A [`Coding::Sparse`] column being built: the token of every entry, and the rest of the
/// entries longer than one byte.
#[derive(Clone, Debug, Default)]
pub(super) struct SparseParts {
    tokens: Vec<u8>,
    extras: Vec<u8>,
    /// Whether some coefficient does not fit a dense column's nibble.
    large: bool,
}

impl SparseParts {
    /// Appends an entry: inline for the one-byte form, out of line for the others.
    #[inline(always)]
    pub(super) fn put(&mut self, gap: u32, coef: i32) {
        let z = zigzag(coef);
        if gap.wrapping_sub(1) < 15 && z < 16 {
            self.tokens.push(((gap - 1) << 4) as u8 | z as u8);
        } else {
            self.put_longer(gap, z);
        }
    }

    /// [`SparseParts::put`] of an entry longer than one byte (`z` zigzagged).
    #[inline(never)]
    fn put_longer(&mut self, gap: u32, z: u64) {
        self.large |= z >= 16;
        if (16..=271).contains(&gap) && z < 15 {
            self.tokens.push(MEDIUM | z as u8);
            self.extras.push((gap - 16) as u8);
        } else {
            self.tokens.push(LONG);
            varint::put(&mut self.extras, u64::from(gap));
            varint::put(&mut self.extras, z);
        }
    }

    /// Number of entries.
    pub(super) fn len(&self) -> u32 {
        self.tokens.len() as u32
    }

    /// Whether some coefficient does not fit a dense column's nibble.
    pub(super) fn large(&self) -> bool {
        self.large
    }

    /// The entries so far.
    pub(super) fn entries(&self) -> Sparse<'_> {
        Sparse::from_parts(&self.tokens, &self.extras)
    }

    /// Bytes [`SparseParts::write`] writes.
    pub(super) fn written_len(&self) -> usize {
        varint::len(self.tokens.len() as u64) + self.tokens.len() + self.extras.len()
    }

    /// Writes the column to `out` (cleared first): the number of entries, the tokens, the
    /// extras.
    pub(super) fn write(&self, out: &mut Vec<u8>) {
        out.clear();
        varint::put(out, self.tokens.len() as u64);
        out.extend_from_slice(&self.tokens);
        out.extend_from_slice(&self.extras);
    }

    /// Empties the column, keeping its buffers.
    pub(super) fn clear(&mut self) {
        self.tokens.clear();
        self.extras.clear();
        self.large = false;
    }
}

/// A sparse column's tokens and extras.
#[inline]
fn sparse_parts(bytes: &[u8]) -> (&[u8], &[u8]) {
    if bytes.is_empty() {
        return (bytes, bytes);
    }
    let mut at = 0;
    let tokens = varint::get(bytes, &mut at) as usize;
    bytes[at..].split_at(tokens)
}

/// Codes single-coefficient entries (positions in order, coefficients that fit a nibble)
/// as a dense column of `len` positions.
pub(super) fn dense(entries: impl Iterator<Item = (u32, i32)>, len: u32, out: &mut Vec<u8>) {
    out.clear();
    out.resize(len.div_ceil(2) as usize, 0);
    for (pos, coef) in entries {
        out[pos as usize / 2] |= (zigzag(coef) as u8) << (4 * (pos % 2));
    }
}

/// Codes two columns' entries (positions in order, coefficients that fit a nibble) as one
/// byte per position of `len`: `low`'s coefficient in the low nibble, `high`'s in the high.
pub(super) fn dense_pair(
    low: impl Iterator<Item = (u32, i32)>,
    high: impl Iterator<Item = (u32, i32)>,
    len: u32,
    out: &mut Vec<u8>,
) {
    out.clear();
    out.resize(len as usize, 0);
    for (pos, coef) in low {
        out[pos as usize] |= zigzag(coef) as u8;
    }
    for (pos, coef) in high {
        out[pos as usize] |= (zigzag(coef) as u8) << 4;
    }
}

/// Adds both columns of a [`Coding::DenseLow`] byte array at once: `low` and `high` are
/// the products of each column's weight by nibble ([`nibble_products`]).
pub(super) fn add_dense_pair(bytes: &[u8], low: &[i64; 16], high: &[i64; 16], sums: &mut [i64]) {
    let table: [i64; 256] = std::array::from_fn(|b| low[b & 15] + high[b >> 4]);
    for (sum, &b) in sums.iter_mut().zip(bytes) {
        *sum += table[usize::from(b)];
    }
}

/// Appends a two-coefficient entry.
#[inline]
pub(super) fn put_pair(out: &mut Vec<u8>, gap: u32, a: i32, b: i32) {
    varint::put(out, u64::from(gap));
    varint::put(out, zigzag(a));
    varint::put(out, zigzag(b));
}

/// Appends a position without coefficient.
#[inline]
pub(super) fn put_gap(out: &mut Vec<u8>, gap: u32) {
    varint::put(out, u64::from(gap));
}

/// The gap and the zigzagged coefficient of a sparse entry whose token is `token`, its
/// extras (if any) at `extras[*at..]`, moving `at` past them.
///
/// Every entry has one token, so the next token's place never waits for this one: one-
/// and two-byte entries are read without a branch (a two-byte entry's extra is its
/// gap − 16); only the long form branches.
#[inline(always)]
fn next_single(token: u8, extras: &[u8], at: &mut usize) -> (u32, u64) {
    if token == LONG {
        let gap = varint::get(extras, at) as u32;
        return (gap, varint::get(extras, at));
    }
    let two = token >= MEDIUM;
    let next = u32::from(extras.get(*at).copied().unwrap_or(0));
    let gap = if two {
        next + 16
    } else {
        u32::from(token >> 4) + 1
    };
    *at += usize::from(two);
    (gap, u64::from(token & 15))
}

/// Calls `f(position, coefficient)` for every entry of a single-coefficient column coded
/// as `coding` (a stream or dense column leaves out coefficients of 0).
#[inline]
pub(super) fn for_single(bytes: &[u8], coding: Coding, mut f: impl FnMut(u32, i32)) {
    match coding {
        Coding::Sparse => Sparse::new(bytes).for_each(|(p, c)| f(p, c)),
        Coding::Stream => for_stream(bytes, f),
        Coding::Dense => {
            for (i, &b) in bytes.iter().enumerate() {
                for (half, z) in [(0, b & 15), (1, b >> 4)] {
                    if z != 0 {
                        f(2 * i as u32 + half, unzigzag(u64::from(z)));
                    }
                }
            }
        }
        Coding::DenseLow | Coding::DenseHigh => {
            let shift = if coding == Coding::DenseHigh { 4 } else { 0 };
            for (i, &b) in bytes.iter().enumerate() {
                let z = (b >> shift) & 15;
                if z != 0 {
                    f(i as u32, unzigzag(u64::from(z)));
                }
            }
        }
    }
}

/// The entries of a [`Coding::Sparse`] column: (position, coefficient).
pub(super) struct Sparse<'a> {
    tokens: std::slice::Iter<'a, u8>,
    extras: &'a [u8],
    at: usize,
    pos: u32,
}

impl<'a> Sparse<'a> {
    /// The entries of a written sparse column ([`SparseParts::write`]).
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        let (tokens, extras) = sparse_parts(bytes);
        Self::from_parts(tokens, extras)
    }

    fn from_parts(tokens: &'a [u8], extras: &'a [u8]) -> Self {
        Sparse {
            tokens: tokens.iter(),
            extras,
            at: 0,
            pos: u32::MAX,
        }
    }
}

impl Iterator for Sparse<'_> {
    type Item = (u32, i32);

    #[inline]
    fn next(&mut self) -> Option<(u32, i32)> {
        let &token = self.tokens.next()?;
        let (gap, z) = next_single(token, self.extras, &mut self.at);
        self.pos = self.pos.wrapping_add(gap);
        Some((self.pos, unzigzag(z)))
    }
}

/// Adds coefficient × `weight` ([`pack`](texel_eval::packed::pack)ed) to `sums[position]`
/// for every entry of a
/// single-coefficient column: the full pass's inner loop, products of the coefficients
/// that fit a nibble looked up in `table`.
#[inline]
pub(super) fn add_single(
    (bytes, coding): (&[u8], Coding),
    weight: i64,
    table: &[i64; 16],
    sums: &mut [i64],
) {
    match coding {
        Coding::Sparse => add_sparse(bytes, weight, table, sums),
        Coding::Stream => add_stream(bytes, weight, table, sums),
        Coding::Dense => {
            let (pairs, odd) = sums.as_chunks_mut::<2>();
            for (pair, &b) in pairs.iter_mut().zip(bytes) {
                pair[0] += table[usize::from(b & 15)];
                pair[1] += table[usize::from(b >> 4)];
            }
            if let ([last], Some(&b)) = (odd, bytes.get(pairs.len())) {
                *last += table[usize::from(b & 15)];
            }
        }
        Coding::DenseLow => add_dense_pair(bytes, table, &[0; 16], sums),
        Coding::DenseHigh => add_dense_pair(bytes, &[0; 16], table, sums),
    }
}

/// [`add_single`] for a [`Coding::Sparse`] column: the long form multiplies, the others
/// look their product up.
#[inline(always)]
fn add_sparse(bytes: &[u8], weight: i64, table: &[i64; 16], sums: &mut [i64]) {
    let (tokens, extras) = sparse_parts(bytes);
    let (mut at, mut pos) = (0, u32::MAX);
    for &token in tokens {
        let (gap, z) = next_single(token, extras, &mut at);
        pos = pos.wrapping_add(gap);
        sums[pos as usize] += if token == LONG {
            i64::from(unzigzag(z)) * weight
        } else {
            table[z as usize]
        };
    }
}

/// The products of `weight` with every coefficient a one-byte entry can hold, by nibble.
pub(super) fn nibble_products(weight: i64) -> [i64; 16] {
    std::array::from_fn(|z| i64::from(unzigzag(z as u64)) * weight)
}

/// Calls `f(position, a, b)` for every two-coefficient entry of `bytes`.
#[inline]
pub(super) fn for_pair(bytes: &[u8], mut f: impl FnMut(u32, i32, i32)) {
    let (mut at, mut pos) = (0, u32::MAX);
    while at < bytes.len() {
        // Mostly three one-byte varints: read them at once.
        if let Some(&[gap, a, b]) = bytes.get(at..at + 3) {
            if (gap | a | b) < 0x80 {
                pos = pos.wrapping_add(u32::from(gap));
                f(pos, unzigzag(u64::from(a)), unzigzag(u64::from(b)));
                at += 3;
                continue;
            }
        }
        pos = pos.wrapping_add(varint::get(bytes, &mut at) as u32);
        let a = unzigzag(varint::get(bytes, &mut at));
        f(pos, a, unzigzag(varint::get(bytes, &mut at)));
    }
}

/// Calls `f(position)` for every position of a read list of a segment of `len` positions.
#[inline]
pub(super) fn for_gaps(bytes: &[u8], len: u32, mut f: impl FnMut(u32)) {
    if bytes == [EVERY_POSITION] {
        (0..len).for_each(f);
        return;
    }
    let (mut at, mut pos) = (0, u32::MAX);
    while at < bytes.len() {
        pos = pos.wrapping_add(varint::get(bytes, &mut at) as u32);
        f(pos);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use texel_eval::packed::{pack, unpack};

    /// `entries` coded sparse.
    fn sparse(entries: &[(u32, i32)]) -> Vec<u8> {
        let (mut parts, mut last) = (SparseParts::default(), u32::MAX);
        for &(pos, coef) in entries {
            parts.put(pos.wrapping_sub(last), coef);
            last = pos;
        }
        assert_eq!(parts.entries().collect::<Vec<_>>(), entries);
        let mut bytes = vec![1, 2, 3];
        parts.write(&mut bytes);
        bytes
    }

    /// Codes `entries` sparse and reads them back.
    fn round_trip(entries: &[(u32, i32)]) -> (Vec<u8>, Vec<(u32, i32)>) {
        let bytes = sparse(entries);
        let mut back = Vec::new();
        for_single(&bytes, Coding::Sparse, |p, c| back.push((p, c)));
        (bytes, back)
    }

    #[test]
    fn single_entries_take_one_byte_when_small_and_two_for_a_longer_gap() {
        let entries = [
            (0, 1),
            (1, -1),
            (16, 7),
            (31, -8),
            (47, 7),
            (303, -7),
            (304, 8),
        ];
        let (bytes, back) = round_trip(&entries);
        assert_eq!(back, entries);
        // The count; one byte each for the first four; two for the gaps of 16 and 256; the
        // long form for coefficient 8 (marker, gap, coefficient).
        assert_eq!(bytes.len(), 1 + 4 + 2 + 2 + 3);
        assert_eq!(bytes[0], 7, "seven tokens");
        let tokens = [0x02, 0x01, 0xee, 0xef, MEDIUM | 14, MEDIUM | 13, LONG];
        assert_eq!(bytes[1..8], tokens, "then the tokens, one an entry");
        assert_eq!(
            bytes[8..],
            [0, 240, 1, 16],
            "then the extras: 16 − 16, 256 − 16, (1, 8)"
        );
    }

    #[test]
    fn what_the_short_forms_cannot_hold_takes_the_long_form() {
        // A gap of 16 with coefficient -8 (zigzag 15 would be the marker), a gap of 272, a
        // coefficient beyond a nibble.
        for entries in [[(15, -8)], [(271, 1)], [(0, -300)]] {
            let (bytes, back) = round_trip(&entries);
            assert_eq!(bytes[1], LONG);
            assert_eq!(back, entries);
        }
    }

    #[test]
    fn dense_columns_hold_a_nibble_per_position_and_skip_zeros() {
        let entries = [(0, -8), (1, 7), (2, 1), (4, -1)];
        let mut bytes = Vec::new();
        dense(entries.iter().copied(), 5, &mut bytes);
        assert_eq!(bytes.len(), 3);
        let mut back = Vec::new();
        for_single(&bytes, Coding::Dense, |p, c| back.push((p, c)));
        assert_eq!(back, entries);
        let weight = pack(2, -3);
        let mut sums = [0i64; 5];
        add_single(
            (&bytes, Coding::Dense),
            weight,
            &nibble_products(weight),
            &mut sums,
        );
        assert_eq!(
            sums.map(unpack),
            [[-16, 24], [14, -21], [2, -3], [0, 0], [-2, 3]]
        );
        // A column is large when some coefficient does not fit a nibble: -8 to 7 do.
        for (coefs, large) in [([-8, 7], false), ([-8, 8], true), ([-9, 7], true)] {
            let mut parts = SparseParts::default();
            coefs.into_iter().for_each(|c| parts.put(1, c));
            assert_eq!(parts.large(), large, "{coefs:?}");
            parts.clear();
            assert!(parts.len() == 0 && !parts.large());
        }
    }

    #[test]
    fn streams_bridge_long_gaps_list_large_coefficients_and_pad_to_words() {
        // Gaps of 1, 15, 16 (one bridge), 46 (three bridges), a coefficient of -8 and one
        // of 300 outside the bytes.
        let entries = [(0, 1), (15, -1), (31, 7), (77, -8), (78, 300), (79, -7)];
        let mut bytes = Vec::new();
        assert_eq!(
            stream(entries.iter().copied(), &mut bytes, &mut Vec::new()),
            2
        );
        // Entries and bridges: 1 + 1 + (1 + 1) + (3 + 1) + 1 + 1 = 10 bytes, two words.
        assert_eq!(u16::from_le_bytes([bytes[0], bytes[1]]), 2);
        let outside = bytes.len() - 2 - 16;
        assert_eq!(outside, 2 + 3, "(gap, -8) and (gap, 300) as varints");
        let mut back = Vec::new();
        for_single(&bytes, Coding::Stream, |p, c| back.push((p, c)));
        assert_eq!(back, entries);
        let weight = pack(3, -2);
        let mut sums = vec![0i64; 80];
        add_single(
            (&bytes, Coding::Stream),
            weight,
            &nibble_products(weight),
            &mut sums,
        );
        let mut expected = vec![[0, 0]; 80];
        for (p, c) in entries {
            expected[p as usize] = [3 * c, -2 * c];
        }
        assert_eq!(
            sums.iter().map(|&s| unpack(s)).collect::<Vec<_>>(),
            expected
        );
    }

    #[test]
    fn every_coding_gives_the_same_entries_and_sums() {
        // A column with an entry in about one position in three, coefficients -3 to 3.
        let entries: Vec<(u32, i32)> = (0..3_000u32)
            .filter(|p| p % 3 == 0 || p % 7 == 0)
            .map(|p| (p, (p % 7) as i32 - 3))
            .filter(|&(_, c)| c != 0)
            .collect();
        // Another column to share a byte per position with.
        let other: Vec<(u32, i32)> = (0..3_000u32).map(|p| (p, (p % 5) as i32 - 2)).collect();
        let weight = pack(-5, 11);
        let mut results = Vec::new();
        for coding in [
            Coding::Sparse,
            Coding::Stream,
            Coding::Dense,
            Coding::DenseLow,
            Coding::DenseHigh,
        ] {
            let mut bytes = Vec::new();
            let (mine, others) = (entries.iter().copied(), other.iter().copied());
            match coding {
                Coding::Sparse => bytes = sparse(&entries),
                Coding::Stream => {
                    stream(mine, &mut bytes, &mut Vec::new());
                }
                Coding::Dense => dense(mine, 3_000, &mut bytes),
                Coding::DenseLow => dense_pair(mine, others, 3_000, &mut bytes),
                Coding::DenseHigh => dense_pair(others, mine, 3_000, &mut bytes),
            }
            let mut back = Vec::new();
            for_single(&bytes, coding, |p, c| back.push((p, c)));
            let mut sums = vec![0i64; 3_000];
            add_single(
                (&bytes, coding),
                weight,
                &nibble_products(weight),
                &mut sums,
            );
            results.push((back, sums));
        }
        assert_eq!(results[0].0, entries);
        assert!(results.iter().all(|r| r == &results[0]));
        // A pair added at once: both columns' products.
        let (mut pair, mut sums) = (Vec::new(), vec![0i64; 3_000]);
        dense_pair(
            entries.iter().copied(),
            other.iter().copied(),
            3_000,
            &mut pair,
        );
        let other_weight = pack(7, -1);
        let (low, high) = (nibble_products(weight), nibble_products(other_weight));
        add_dense_pair(&pair, &low, &high, &mut sums);
        for (p, c) in other {
            sums[p as usize] -= i64::from(c) * other_weight;
        }
        assert_eq!(sums, results[0].1);
    }

    #[test]
    fn packed_weights_add_both_sums() {
        let bytes = sparse(&[(0, -2), (2, 40)]);
        let weight = pack(10, -3);
        let mut sums = [0i64; 3];
        add_single(
            (&bytes, Coding::Sparse),
            weight,
            &nibble_products(weight),
            &mut sums,
        );
        assert_eq!(sums.map(unpack), [[-20, 6], [0, 0], [400, -120]]);
    }

    #[test]
    fn pairs_and_gaps_round_trip() {
        let mut pairs = Vec::new();
        put_pair(&mut pairs, 3, -300, 7);
        put_pair(&mut pairs, 2, 0, -1);
        let mut back = Vec::new();
        for_pair(&pairs, |p, a, b| back.push((p, a, b)));
        assert_eq!(back, [(2, -300, 7), (4, 0, -1)]);
        let mut gaps = Vec::new();
        put_gap(&mut gaps, 1);
        put_gap(&mut gaps, 200);
        let mut seen = Vec::new();
        for_gaps(&gaps, 300, |p| seen.push(p));
        assert_eq!(seen, [0, 200]);
        seen.clear();
        for_gaps(&[EVERY_POSITION], 3, |p| seen.push(p));
        assert_eq!(seen, [0, 1, 2]);
    }
}
