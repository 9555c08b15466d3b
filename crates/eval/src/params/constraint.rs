//! The constraints a term declares (`rising`, `falling`, `at_least N`, `at_most N`) and the
//! rule the tuner follows with them: a move may never cross one. A start that already
//! violates a constraint (a seed table is not always ordered) may stay as it is or come
//! closer to it, never move further away.

use super::{flat_params, Component, Order, Params};

/// How far apart a pair must not be: `low` above `high` by this much (0 when in order).
fn excess(low: i32, high: i32) -> i64 {
    (i64::from(low) - i64::from(high)).max(0)
}

/// Every amount by which `slot` (holding `value`) breaks its term's constraints: the
/// bounds, then the order with the element before and after it.
fn violations(params: &Params, slot: usize, value: i32) -> [i64; 4] {
    let fp = flat_params()[slot];
    let info = fp.term.info();
    let mut out = [0; 4];
    if let Some(b) = info.at_least {
        out[0] = excess(b, value);
    }
    if let Some(b) = info.at_most {
        out[1] = excess(value, b);
    }
    let (Some(e), Order::Rising | Order::Falling) = (fp.element, info.order) else {
        return out;
    };
    let stride = info.shape.slots_per_element();
    let part = usize::from(fp.component == Component::End);
    let at = |element: usize| params.flat()[info.offset + element * stride + part];
    let rising = info.order == Order::Rising;
    if e > 0 {
        let before = at(e - 1);
        out[2] = if rising {
            excess(before, value)
        } else {
            excess(value, before)
        };
    }
    if e + 1 < info.shape.elements() {
        let after = at(e + 1);
        out[3] = if rising {
            excess(value, after)
        } else {
            excess(after, value)
        };
    }
    out
}

impl Params {
    /// Whether flat `slot` may take `value` under its term's declared constraints: no
    /// constraint is broken by more than it is now (see the module docs).
    pub fn allows(&self, slot: usize, value: i32) -> bool {
        let now = violations(self, slot, self.flat()[slot]);
        let then = violations(self, slot, value);
        now.iter().zip(&then).all(|(a, b)| b <= a)
    }

    /// Moves the real values `real` (the whole flat table) to the nearest ones that keep
    /// every declared constraint, changing only the slots `free` marks: each bound clamps,
    /// and each ordered array is put in order by pooling adjacent free elements that break it
    /// (the least-squares projection onto the order), fixed elements bounding the free runs
    /// between them. Where the fixed elements break an order themselves, the runs between
    /// them are only kept within their neighbours as far as possible.
    pub fn project_real(real: &mut [f64], free: &[bool]) {
        for info in crate::table::TERMS.iter() {
            let (low, high) = (info.at_least, info.at_most);
            if low.is_none() && high.is_none() && info.order == Order::Free {
                continue;
            }
            let stride = info.shape.slots_per_element();
            for part in 0..stride {
                let mut chain: Vec<usize> = (0..info.shape.elements())
                    .map(|e| info.offset + e * stride + part)
                    .collect();
                if info.order == Order::Falling {
                    chain.reverse();
                }
                let bounds = (
                    low.map_or(f64::NEG_INFINITY, f64::from),
                    high.map_or(f64::INFINITY, f64::from),
                );
                project_chain(real, free, &chain, bounds, info.order != Order::Free);
            }
        }
    }

    /// Whether every value keeps every declared constraint.
    pub fn keeps_constraints(&self) -> bool {
        (0..self.flat().len()).all(|slot| violations(self, slot, self.flat()[slot]) == [0; 4])
    }
}

/// Projects the free values of `chain` (slots in the order they must rise, when `ordered`)
/// into `bounds` and, when ordered, into order between the fixed values around them.
fn project_chain(
    real: &mut [f64],
    free: &[bool],
    chain: &[usize],
    bounds: (f64, f64),
    ordered: bool,
) {
    let mut e = 0;
    while e < chain.len() {
        if !free[chain[e]] {
            e += 1;
            continue;
        }
        let run_start = e;
        while e < chain.len() && free[chain[e]] {
            e += 1;
        }
        let run = &chain[run_start..e];
        let (mut low, mut high) = bounds;
        if ordered {
            if run_start > 0 {
                low = low.max(real[chain[run_start - 1]]);
            }
            if e < chain.len() {
                high = high.min(real[chain[e]]);
            }
            pool_adjacent_violators(real, run);
        }
        for &slot in run {
            real[slot] = real[slot].max(low).min(high);
        }
    }
}

/// Puts the values of `slots` in rising order by replacing each run that breaks it with its
/// mean (equal weights): the least-squares rising sequence.
fn pool_adjacent_violators(real: &mut [f64], slots: &[usize]) {
    // Pools as (sum, count), merged from the left while the last two are out of order.
    let mut pools: Vec<(f64, usize)> = Vec::with_capacity(slots.len());
    for &slot in slots {
        pools.push((real[slot], 1));
        while let [.., (a, n), (b, m)] = pools[..] {
            if a / n as f64 <= b / m as f64 {
                break;
            }
            pools.pop();
            *pools.last_mut().expect("two pools") = (a + b, n + m);
        }
    }
    let mut at = slots.iter();
    for (sum, n) in pools {
        for &slot in at.by_ref().take(n) {
            real[slot] = sum / n as f64;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::table::*;
    use crate::{Params, S};

    #[test]
    fn a_rising_array_cannot_cross_its_neighbours() {
        let mut p = Params::default();
        p.set(
            PP_PASSED_RANK,
            [
                S(0, 0),
                S(10, 10),
                S(20, 20),
                S(30, 30),
                S(40, 40),
                S(50, 50),
            ],
        );
        let mid = PP_PASSED_RANK.at(2).flat_index();
        assert!(p.allows(mid, 25) && p.allows(mid, 10) && p.allows(mid, 30));
        assert!(!p.allows(mid, 9) && !p.allows(mid, 31));
        let end = mid + 1;
        assert!(p.allows(end, 11) && !p.allows(end, 31));
        assert!(Params::zeroed().keeps_constraints());
        // The seed's safe-check scores fall at five checks: the defaults are not all in order.
        assert!(!Params::default().keeps_constraints());
    }

    #[test]
    fn a_start_out_of_order_may_only_come_closer() {
        let mut p = Params::default();
        p.set(PAWN_RACE_WIN, [400, 600]);
        let second = PAWN_RACE_WIN.at(1).flat_index();
        assert!(!p.keeps_constraints());
        assert!(p.allows(second, 599) && p.allows(second, 600));
        assert!(!p.allows(second, 601));
    }

    #[test]
    fn real_values_project_into_order_and_bounds() {
        let rising = PP_PASSED_RANK.at(0).flat_index();
        let mut real: Vec<f64> = Params::default()
            .flat()
            .iter()
            .map(|&v| f64::from(v))
            .collect();
        let mids: Vec<usize> = (0..6).map(|e| rising + 2 * e).collect();
        for (&slot, v) in mids.iter().zip([0.0, 30.0, 10.0, 20.0, 50.0, 40.0]) {
            real[slot] = v;
        }
        let mut free = vec![false; real.len()];
        mids.iter().for_each(|&s| free[s] = true);
        free[mids[5]] = false;
        Params::project_real(&mut real, &free);
        let got: Vec<f64> = mids.iter().map(|&s| real[s]).collect();
        // 30, 10, 20 pool to 20; 50 then stays under the fixed 40 after it.
        assert_eq!(got, vec![0.0, 20.0, 20.0, 20.0, 40.0, 40.0]);
        let weak = KS_WEAK_BACK_RANK.at(0).flat_index();
        real[weak] = 7.5;
        free[weak] = true;
        Params::project_real(&mut real, &free);
        assert_eq!(real[weak], 0.0, "at_most 0");
        let bishop = BISHOP_PAIR.flat_index();
        (real[bishop], free[bishop]) = (-1234.5, true);
        Params::project_real(&mut real, &free);
        assert_eq!(real[bishop], -1234.5, "no constraint");
    }

    #[test]
    fn bounds_hold_for_each_element() {
        let p = Params::default();
        let weak = KS_WEAK_BACK_RANK.at(0).flat_index();
        assert!(p.allows(weak, 0) && !p.allows(weak, 1));
        let pair = CONNECTED_PAWN_UNSTOPPABLE.at(1).flat_index();
        assert!(p.allows(pair, 0) && !p.allows(pair, -1));
        let free = BISHOP_PAIR.flat_index();
        assert!(p.allows(free, -500) && p.allows(free, 500));
    }
}
