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

    /// Whether every value keeps every declared constraint.
    pub fn keeps_constraints(&self) -> bool {
        (0..self.flat().len()).all(|slot| violations(self, slot, self.flat()[slot]) == [0; 4])
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
