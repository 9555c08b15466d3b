//! Two 32-bit sums in one 64-bit integer (`high × 2³² + low`): adding packed pairs adds
//! both sums, and a small integer times a packed pair packs the two products, so one
//! addition or multiplication does the work of two. Exact as long as each sum fits 32 bits.

/// `high` and `low` in one integer.
#[inline]
pub fn pack(high: i32, low: i32) -> i64 {
    (i64::from(high) << 32) + i64::from(low)
}

/// The two sums of a [`pack`]ed pair.
#[inline]
pub fn unpack(packed: i64) -> [i32; 2] {
    let low = packed as i32;
    [((packed - i64::from(low)) >> 32) as i32, low]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_pairs_add_and_scale_both_sums() {
        for (high, low, c) in [
            (3, -5, 7),
            (-200, 100, -3),
            (0, -1, 1),
            (i32::MAX / 4, -9, 2),
        ] {
            assert_eq!(unpack(pack(high, low) * i64::from(c)), [high * c, low * c]);
            assert_eq!(
                unpack(pack(high, low) + pack(low, high)),
                [high + low, low + high]
            );
        }
    }
}
