//! Seeded choices that depend on the data only: which positions are held out for
//! validation, which positions of a game are sampled, which segments a warm start tunes.

/// One step of SplitMix64: a well-spread 64-bit hash of `z`.
pub fn splitmix64(z: u64) -> u64 {
    let mut z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values_and_spread() {
        // The reference SplitMix64 output for state 0 (first step).
        assert_eq!(splitmix64(0), 0xe220_a839_7b1d_cdaf);
        let ones: u32 = (0..1000u64).map(|i| splitmix64(i).count_ones()).sum();
        assert!(
            (31_000..33_000).contains(&ones),
            "about half the bits set: {ones}"
        );
    }
}
