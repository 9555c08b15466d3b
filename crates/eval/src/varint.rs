//! LEB128 varints and zigzag signed integers: the compact coding of traces (formula inputs
//! here, the tuner's columns).

/// Appends `v` as a varint.
#[inline]
pub fn put(buf: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        buf.push((v as u8) | 0x80);
        v >>= 7;
    }
    buf.push(v as u8);
}

/// Bytes [`put`] writes for `v`.
#[inline]
pub fn len(v: u64) -> usize {
    (64 - (v | 1).leading_zeros() as usize).div_ceil(7)
}

/// Reads a varint at `*at`, advancing it.
#[inline]
pub fn get(bytes: &[u8], at: &mut usize) -> u64 {
    let first = bytes[*at];
    if first < 0x80 {
        *at += 1;
        return u64::from(first);
    }
    let mut v = 0u64;
    let mut shift = 0;
    loop {
        let b = bytes[*at];
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return v;
        }
        shift += 7;
    }
}

/// Maps signed to unsigned so small magnitudes stay small.
#[inline]
pub fn zigzag(i: i32) -> u64 {
    u64::from(((i << 1) ^ (i >> 31)) as u32)
}

/// The inverse of [`zigzag`].
#[inline]
pub fn unzigzag(u: u64) -> i32 {
    let u = u as u32;
    ((u >> 1) as i32) ^ -((u & 1) as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let mut buf = Vec::new();
        let values = [0u64, 1, 127, 128, 300, u64::from(u32::MAX)];
        for v in values {
            let before = buf.len();
            put(&mut buf, v);
            assert_eq!(buf.len() - before, len(v), "{v}");
        }
        let mut at = 0;
        for v in values {
            assert_eq!(get(&buf, &mut at), v);
        }
        for i in [0, 1, -1, 63, -64, 1000, -1000, i32::MAX, i32::MIN] {
            assert_eq!(unzigzag(zigzag(i)), i);
        }
        assert_eq!(zigzag(-1), 1);
    }
}
