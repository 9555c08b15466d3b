//! Seeded choices that depend on the data only: which positions are held out for
//! validation, which positions of a game are sampled, which segments a warm start tunes.

/// One step of SplitMix64: a well-spread 64-bit hash of `z`.
pub fn splitmix64(z: u64) -> u64 {
    let mut z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Whether the position numbered `index` (its line's place among all input lines) is held
/// out for validation, `per_mille` in a thousand held.
pub fn held_out(index: u64, per_mille: u32) -> bool {
    splitmix64(index) % 1000 < u64::from(per_mille)
}

/// The seed of the warm start's segment sample.
const SAMPLE_SEED: u64 = 0x7e7e_15a3_9e11_0001;

/// Whether the warm start's sample of about one segment in `n` holds segment `i` (the
/// first always).
pub fn sampled(i: usize, n: usize) -> bool {
    i == 0 || splitmix64(SAMPLE_SEED ^ i as u64).is_multiple_of(n.max(1) as u64)
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

    #[test]
    fn the_sample_takes_about_one_segment_in_n_without_following_a_period() {
        let picked: Vec<usize> = (0..8_000).filter(|&i| sampled(i, 8)).collect();
        assert!((900..1_100).contains(&picked.len()), "{}", picked.len());
        assert_eq!(picked[0], 0);
        // Data made of copies of one file of 10 segments: every one of the file's segments
        // is in the sample, about as often as the others (every 8th segment would take
        // the even ones only).
        let mut by_residue = [0; 10];
        for i in picked {
            by_residue[i % 10] += 1;
        }
        assert!(
            by_residue.iter().all(|&c| (60..140).contains(&c)),
            "{by_residue:?}"
        );
        assert!((0..50).all(|i| sampled(i, 1)), "n = 1 takes every segment");
    }
}
