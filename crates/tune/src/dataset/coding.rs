//! How a column stores its entries: positions as gaps from the previous entry (the first
//! counted from one before the segment's first position), each with its coefficients.
//!
//! Most entries have a small gap and a small coefficient: a single-coefficient entry with a
//! gap of 1 to 16 and a coefficient from -8 to 7 takes one byte (gap − 1 in the high
//! nibble, the zigzagged coefficient in the low one); anything else is [`ESCAPE`] followed
//! by the gap and the zigzagged coefficient as varints. Two-coefficient entries (untapered
//! integers) and formula reads (no coefficient) use varints throughout.

use texel_eval::varint::{self, unzigzag, zigzag};

/// The byte that announces a single-coefficient entry in varints.
const ESCAPE: u8 = 0xff;

/// A read list made of this one byte stands for every position of its segment (no gap is 0).
pub(super) const EVERY_POSITION: u8 = 0;

/// Appends a single-coefficient entry.
#[inline]
pub(super) fn put_single(out: &mut Vec<u8>, gap: u32, coef: i32) {
    let z = zigzag(coef);
    let token = (u64::from(gap.wrapping_sub(1)) << 4) | z;
    if (1..=16).contains(&gap) && z < 16 && token != u64::from(ESCAPE) {
        out.push(token as u8);
    } else {
        out.push(ESCAPE);
        varint::put(out, u64::from(gap));
        varint::put(out, z);
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

/// Calls `f(position, coefficient)` for every single-coefficient entry of `bytes`.
#[inline]
pub(super) fn for_single(bytes: &[u8], mut f: impl FnMut(u32, i32)) {
    let (mut at, mut pos) = (0, u32::MAX);
    while at < bytes.len() {
        let token = bytes[at];
        at += 1;
        if token != ESCAPE {
            pos = pos.wrapping_add(u32::from(token >> 4) + 1);
            f(pos, unzigzag(u64::from(token & 15)));
        } else {
            pos = pos.wrapping_add(varint::get(bytes, &mut at) as u32);
            f(pos, unzigzag(varint::get(bytes, &mut at)));
        }
    }
}

/// A middlegame and an endgame sum in one integer (`mid × 2³² + end`): adding packed pairs
/// adds both sums, and a coefficient times a packed pair packs the two products.
#[inline]
pub(super) fn pack(mid: i32, end: i32) -> i64 {
    (i64::from(mid) << 32) + i64::from(end)
}

/// The middlegame and endgame sums of a [`pack`]ed pair.
#[inline]
pub(super) fn unpack(packed: i64) -> [i32; 2] {
    let end = packed as i32;
    [((packed - i64::from(end)) >> 32) as i32, end]
}

/// Adds coefficient × `weight` ([`pack`]ed) to `sums[position]` for every single-coefficient
/// entry of `bytes`: the full pass's inner loop, a one-byte entry's product looked up in
/// `table` by its coefficient's nibble.
#[inline]
pub(super) fn add_single(bytes: &[u8], weight: i64, table: &[i64; 16], sums: &mut [i64]) {
    let (mut at, mut pos) = (0, u32::MAX);
    while at < bytes.len() {
        let token = bytes[at];
        at += 1;
        if token != ESCAPE {
            pos = pos.wrapping_add(u32::from(token >> 4) + 1);
            sums[pos as usize] += table[usize::from(token & 15)];
        } else {
            pos = pos.wrapping_add(varint::get(bytes, &mut at) as u32);
            sums[pos as usize] += i64::from(unzigzag(varint::get(bytes, &mut at))) * weight;
        }
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

    #[test]
    fn single_entries_round_trip_in_one_byte_when_small() {
        let entries = [
            (0, 1),
            (1, -1),
            (16, 7),
            (31, -8),
            (32, 8),
            (60, -9),
            (1000, 3),
        ];
        let mut bytes = Vec::new();
        let mut last = u32::MAX;
        for (pos, coef) in entries {
            put_single(&mut bytes, pos - last, coef);
            last = pos;
        }
        // One byte each for the first four; escapes for coefficients 8 and -9 (3 bytes) and
        // for the gap of 940 (a two-byte varint).
        assert_eq!(bytes.len(), 4 + 3 + 3 + 4);
        let mut back = Vec::new();
        for_single(&bytes, |p, c| back.push((p, c)));
        assert_eq!(back, entries);
    }

    #[test]
    fn the_token_that_would_be_the_escape_is_escaped() {
        let mut bytes = Vec::new();
        put_single(&mut bytes, 16, -8);
        assert_eq!(bytes[0], ESCAPE);
        let mut back = Vec::new();
        for_single(&bytes, |p, c| back.push((p, c)));
        assert_eq!(back, [(15, -8)]);
    }

    #[test]
    fn packed_pairs_add_and_scale_both_sums() {
        for (mid, end, c) in [
            (3, -5, 7),
            (-200, 100, -3),
            (0, -1, 1),
            (i32::MAX / 4, -9, 2),
        ] {
            assert_eq!(unpack(pack(mid, end) * i64::from(c)), [mid * c, end * c]);
            assert_eq!(
                unpack(pack(mid, end) + pack(end, mid)),
                [mid + end, end + mid]
            );
        }
        let mut bytes = Vec::new();
        put_single(&mut bytes, 1, -2);
        put_single(&mut bytes, 2, 40);
        let weight = pack(10, -3);
        let mut sums = [0i64; 3];
        add_single(&bytes, weight, &nibble_products(weight), &mut sums);
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
