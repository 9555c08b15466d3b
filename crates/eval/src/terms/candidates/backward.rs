//! Backwardness varieties (`BackwardV`): pawns whose advance is held by enemy pawns, told
//! apart by how many enemy pawns hold the square, whether an own pawn covers it now and
//! whether own pawns further back could still come up.

use super::super::{add_by_rank, add_each, bits::*, Info};
use crate::accumulate::Accumulator;
use crate::table::*;
use shakmaty::{Bitboard, Color};

/// The pawns of one side by how their advance is held, every pawn in at most one set.
#[derive(Copy, Clone, Debug, Default)]
pub(in crate::terms) struct Backward {
    /// One enemy pawn holds the stop square, no own pawn covers it or can come up.
    full: Bitboard,
    /// One enemy pawn holds it, an own pawn covers it.
    semi: Bitboard,
    /// Two enemy pawns hold it, no own pawn covers it or can come up.
    fated: Bitboard,
    /// Two enemy pawns hold it, an own pawn covers it.
    semi_fated: Bitboard,
    /// One enemy pawn holds it, none covers it, but an own pawn behind can come up.
    potential: Bitboard,
    /// The first held square is 2, 3 or 4 squares ahead, the way there free, held by enemy
    /// pawns that are rammed (cannot advance out of the way); none covers it or can come up.
    distant: [Bitboard; 3],
}

impl Backward {
    /// Sorts the pawns of `us`: each walks up its file to the first square an enemy pawn
    /// holds (the stop square, or a square further up held for good) and stops at a
    /// unit in the way. All pawns walk at once, a rank a step.
    fn of(info: &Info, us: Color) -> Backward {
        let (own, them) = (info.pawns[us as usize], us.other());
        let theirs = info.pawns[them as usize];
        let held = pawn_attacks(them, theirs);
        let held_twice = pawn_double_attacks(them, theirs);
        // Squares an enemy pawn holds that could still advance out of the way.
        let loose = pawn_attacks(them, theirs & !info.rammed[them as usize]);
        let covered = pawn_attacks(us, own);
        // Pawns with an own pawn on a neighbouring file behind them, which can come up.
        let later = beside(front_spans(us, own));
        let back = |bb: Bitboard, steps: u32| (0..steps).fold(bb, |b, _| backward(us, b));
        let stop = forward(us, own);
        let once = back(stop & held & !held_twice, 1);
        let twice = back(stop & held_twice, 1);
        let open = back(stop & !covered, 1);
        let mut b = Backward {
            full: once & open & !later,
            potential: once & open & later,
            semi: once & !open,
            fated: twice & open & !later,
            semi_fated: twice & !open,
            distant: [Bitboard::EMPTY; 3],
        };
        let mut walking = stop & !held & !info.occupied;
        for d in 2..=4 {
            let at = forward(us, walking);
            let held_for_good = at & held & !loose;
            b.distant[d as usize - 2] = back(held_for_good & !covered, d) & !later;
            walking = at & !held_for_good & !info.occupied;
        }
        b
    }
}

/// The pawns of `us` that are fully backward (one enemy pawn holds the stop square, no own
/// pawn covers it or can come up).
pub(super) fn fully_backward(info: &Info, us: Color) -> Bitboard {
    backward_pawns(info, us).full
}

/// The pawns of `us` by backwardness, found once per evaluation (four families ask).
fn backward_pawns<'a>(info: &'a Info, us: Color) -> &'a Backward {
    let sides = info
        .backward
        .get_or_init(|| [Color::Black, Color::White].map(|c| Backward::of(info, c)));
    &sides[us as usize]
}

pub(super) fn evaluate<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let b = backward_pawns(info, us);
    // Ranks 2 to 5, and 2 to 3.
    let (low, lower) = (rel_ranks_bb(us, 1, 4), rel_ranks_bb(us, 1, 2));
    add_by_rank(acc, us, PAWN_BACKWARD_FULL, b.full & low, 1);
    add_by_rank(acc, us, PAWN_SEMI_BACKWARD, b.semi & lower, 1);
    add_by_rank(acc, us, PAWN_BACKWARD_FATED, b.fated & low, 1);
    add_by_rank(acc, us, PAWN_SEMI_BACKWARD_FATED, b.semi_fated & low, 1);
    add_by_rank(acc, us, PAWN_POTENTIALLY_BACKWARD, b.potential & low, 1);
    for (d, &distant) in b.distant.iter().enumerate() {
        add_each(acc, us, PAWN_BACKWARD_DISTANT.at(d), distant & low);
    }
    stop_square_pressure(info, us, acc);
}

/// Our pieces attacking or standing on the stop square of an enemy fully backward pawn.
fn stop_square_pressure<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let them = us.other();
    let pieces = info.board.by_color(us) & !info.board.pawns() & !info.board.kings();
    for sq in fully_backward(info, them) {
        let Some(stop) = forward(them, Bitboard::from(sq)).first() else {
            continue;
        };
        let attackers = super::piece_attackers(info, us, stop);
        acc.add(us, STOP_SQUARE_PRESSURE.at(0), attackers);
        acc.add_if(us, STOP_SQUARE_PRESSURE.at(1), pieces.contains(stop));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Square::*;

    fn sorted(fen: &str, us: Color) -> Backward {
        let pos = crate::parse_fen(fen).unwrap();
        Backward::of(&Info::new(&pos), us)
    }

    #[test]
    fn pawns_are_sorted_by_what_holds_their_advance() {
        // a5 is held on a6 by b7 alone, with nothing to cover it or come up.
        let white = sorted("4k3/1p6/p7/P7/8/8/8/4K3 w - - 0 1", Color::White);
        assert_eq!(white.full, Bitboard::from(A5));
        assert_eq!(white.semi | white.fated | white.potential, Bitboard::EMPTY);
        // c6 is held on c5 by d4, but b7 behind it can come up.
        let black = sorted("4k3/1p6/2p5/3p4/3P4/8/8/4K3 w - - 0 1", Color::Black);
        assert_eq!(black.potential, Bitboard::from(C6));
        assert_eq!(black.full, Bitboard::EMPTY);
        // d7 walks to d5, held for good by the rammed e4 pawn: two squares ahead.
        let black = sorted("4k3/3p4/8/4p3/4P3/8/8/4K3 w - - 0 1", Color::Black);
        assert_eq!(
            black.distant,
            [Bitboard::from(D7), Bitboard::EMPTY, Bitboard::EMPTY]
        );
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        for us in Color::ALL {
            let b = sorted(start, us);
            let all = b.full | b.semi | b.fated | b.semi_fated | b.potential;
            assert_eq!(
                all | b.distant[0] | b.distant[1] | b.distant[2],
                Bitboard::EMPTY
            );
        }
    }
}
