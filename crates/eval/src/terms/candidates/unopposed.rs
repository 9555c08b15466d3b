//! Unopposed pawns and prospective passers (`UnopposedV`): pawns with no enemy pawn on
//! their path that are not passed, told apart by whether the enemy pawns ahead on the
//! neighbouring files outnumber the own pawns there that are not ahead (unopposed:
//! neutralised) or not (prospective passer); and semi-passers behind an own passer.

use super::super::{add_by_rank, bits::*, Info};
use crate::accumulate::Accumulator;
use crate::table::*;
use shakmaty::{Bitboard, Color, Square};

/// What a pawn with a free path but not passed is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Free {
    /// Enemy pawns ahead on the neighbouring files outnumber its helpers.
    Unopposed,
    /// Its helpers are at least as many: it can become a passer.
    Prospective,
}

/// Whether the pawn of `us` on `sq` has a free path without being passed, and which kind.
pub(super) fn free_path(info: &Info, us: Color, sq: Square) -> Option<Free> {
    let own = info.pawns[us as usize];
    let theirs = info.pawns[us.other() as usize];
    if info.passed[us as usize].contains(sq) || any(front_span(us, sq) & theirs) {
        return None;
    }
    let sentries = count(attack_span(us, sq) & theirs);
    let helpers = count(adjacent_files(sq) & own & !ahead(us, sq));
    Some(if sentries > helpers {
        Free::Unopposed
    } else {
        Free::Prospective
    })
}

pub(super) fn evaluate<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let own = info.pawns[us as usize];
    let them = us.other();
    let theirs = info.pawns[them as usize];
    // Squares with an enemy pawn ahead on their file, or on it and the neighbouring files.
    let file_closed = front_spans(them, theirs);
    let lane_closed = front_spans(them, theirs | beside(theirs));
    let passed = info.passed[us as usize];
    let mut unopposed = Bitboard::EMPTY;
    for sq in own & !passed & !file_closed {
        let r = rel_rank(us, sq);
        match free_path(info, us, sq) {
            Some(Free::Unopposed) => {
                unopposed |= Bitboard::from(sq);
                if r >= 2 {
                    acc.add(us, UNOPPOSED_PAWN.at(usize::from(r >= 3)), 1);
                }
                unopposed_support(info, us, sq, acc);
            }
            Some(Free::Prospective) if (1..=6).contains(&r) => {
                acc.add(us, PROSPECTIVE_PASSER.at(r - 1), 1);
            }
            _ => {}
        }
    }
    // Pawns behind an own passer on their file with a free lane.
    let semi_passers = own & front_spans(them, passed) & !lane_closed;
    add_by_rank(
        acc,
        us,
        SEMI_PASSER,
        semi_passers & rel_ranks_bb(us, 1, 6),
        1,
    );
    for (i, a) in unopposed.into_iter().enumerate() {
        for b in unopposed.into_iter().skip(i + 1) {
            let between = (a.file() as i32 - b.file() as i32).abs() - 1;
            if (1..=3).contains(&between) {
                acc.add(us, UNOPPOSED_PAWN_PAIR_GAP.at(between as usize - 1), 1);
            }
        }
    }
}

/// An unopposed pawn that can step forward, and one defended by own pawns.
fn unopposed_support<A: Accumulator>(info: &Info, us: Color, sq: Square, acc: &mut A) {
    let one = Bitboard::from(sq);
    let stop = forward(us, one);
    let held_twice = any(stop & pawn_double_attacks(us.other(), info.pawns[us.other() as usize]));
    acc.add_if(
        us,
        UNOPPOSED_PAWN_SUPPORT.at(0),
        any(stop) && !any(stop & info.occupied) && !held_twice,
    );
    let defenders = count(super::own_pawn_attackers(info, us, sq));
    if defenders > 0 {
        acc.add(us, UNOPPOSED_PAWN_SUPPORT.at_most(defenders as usize), 1);
    }
}
