//! Candidate terms from the Tsvetkov compendium, one module per family. A family is only
//! looked for when the accumulator wants it: always when tracing, and when scoring only
//! while some value of the family is non-zero.

mod backward;
mod blockers;
mod chains;
mod fixed;
mod harmony;
mod isolation;
mod lines;
mod placement;
mod shelter;
mod unopposed;

use super::Info;
use crate::accumulate::Accumulator;
use crate::table::Group;
pub(super) use backward::Backward;
use shakmaty::{Bitboard, Color, Square};

/// The evaluation of one family for one side.
type Family<A> = fn(&Info, Color, &mut A);

/// Finds the terms of every candidate family the accumulator wants, for both sides.
pub(super) fn evaluate<A: Accumulator>(info: &Info, acc: &mut A) {
    let families: [(Group, Family<A>); 10] = [
        (Group::BackwardV, backward::evaluate),
        (Group::IsolationV, isolation::evaluate),
        (Group::ChainV, chains::evaluate),
        (Group::UnopposedV, unopposed::evaluate),
        (Group::BlockerV, blockers::evaluate),
        (Group::ShelterV, shelter::evaluate),
        (Group::FixedV, fixed::evaluate),
        (Group::PlacementV, placement::evaluate),
        (Group::LinesV, lines::evaluate),
        (Group::HarmonyV, harmony::evaluate),
    ];
    for (group, family) in families {
        if acc.wants(group) {
            for color in Color::ALL {
                family(info, color, acc);
            }
        }
    }
}

/// Files a to d: the queen's wing (the king's wing is the rest).
const QUEEN_WING: Bitboard = Bitboard(0x0f0f_0f0f_0f0f_0f0f);

/// How many knights, bishops, rooks and queens of `us` attack `sq`.
fn piece_attackers(info: &Info, us: Color, sq: Square) -> i32 {
    info.pieces[us as usize]
        .iter()
        .filter(|p| p.attacks.contains(sq))
        .count() as i32
}

/// The pawns of `us` that attack `sq`.
fn own_pawn_attackers(info: &Info, us: Color, sq: Square) -> Bitboard {
    shakmaty::attacks::pawn_attacks(us.other(), sq) & info.pawns[us as usize]
}
