//! Candidate terms from the Tsvetkov compendium, one module per family. A family is only
//! looked for when the accumulator wants it: always when tracing, and when scoring only
//! while some value of the family is non-zero.

mod backward;
mod chains;
mod isolation;

use super::Info;
use crate::accumulate::Accumulator;
use crate::table::Group;
use shakmaty::{Bitboard, Color, Square};

/// Finds the terms of every candidate family the accumulator wants, for both sides.
pub(super) fn evaluate<A: Accumulator>(info: &Info, acc: &mut A) {
    if acc.wants(Group::BackwardV) {
        for color in Color::ALL {
            backward::evaluate(info, color, acc);
        }
    }
    if acc.wants(Group::IsolationV) {
        for color in Color::ALL {
            isolation::evaluate(info, color, acc);
        }
    }
    if acc.wants(Group::ChainV) {
        for color in Color::ALL {
            chains::evaluate(info, color, acc);
        }
    }
}

/// The enemy pawns of `us` that attack `sq`.
fn enemy_pawn_attackers(info: &Info, us: Color, sq: Square) -> Bitboard {
    shakmaty::attacks::pawn_attacks(us, sq) & info.pawns[us.other() as usize]
}

/// The pawns of `us` that attack `sq`.
fn own_pawn_attackers(info: &Info, us: Color, sq: Square) -> Bitboard {
    shakmaty::attacks::pawn_attacks(us.other(), sq) & info.pawns[us as usize]
}
