//! ScaleV: how much of the endgame score the stronger side keeps, in percent.

use super::{bits::*, distance, Info};
use crate::accumulate::Accumulator;
use crate::score::FULL_SCALE;
use crate::table::*;
use shakmaty::{Bitboard, Color, Role};

/// Conventional piece material (knight and bishop 3, rook 5, queen 9) for scale decisions.
fn piece_material(info: &Info, c: Color) -> i32 {
    3 * count(info.of(c, Role::Knight) | info.of(c, Role::Bishop))
        + 5 * count(info.of(c, Role::Rook))
        + 9 * count(info.of(c, Role::Queen))
}

/// The endgame scale (0..=100) of the side with more material (pawn 1, knight and bishop 3,
/// rook 5, queen 9), or the lower of both sides' scales when material is level.
///
/// The choice depends on the position only, never on parameter values, so a trace's scale
/// stays valid while the tuner moves linear terms.
pub(super) fn scale<A: Accumulator>(info: &Info, acc: &mut A) -> i32 {
    let material = |c: Color| count(info.pawns[c as usize]) + piece_material(info, c);
    match material(Color::White).cmp(&material(Color::Black)) {
        std::cmp::Ordering::Greater => scale_for(info, Color::White, acc),
        std::cmp::Ordering::Less => scale_for(info, Color::Black, acc),
        std::cmp::Ordering::Equal => {
            scale_for(info, Color::White, acc).min(scale_for(info, Color::Black, acc))
        }
    }
}

/// The lowest of the scale rules that apply with `strong` as the stronger side. A side
/// without pawns and at most a minor piece ahead keeps nothing.
fn scale_for<A: Accumulator>(info: &Info, strong: Color, acc: &mut A) -> i32 {
    let weak = strong.other();
    let (si, wi) = (strong as usize, weak as usize);
    let (sp, wp) = (count(info.pawns[si]), count(info.pawns[wi]));
    let (smat, wmat) = (piece_material(info, strong), piece_material(info, weak));
    if sp == 0 && smat - wmat <= 3 {
        return 0;
    }
    let mut scale = FULL_SCALE;
    let (sb, wb) = (info.of(strong, Role::Bishop), info.of(weak, Role::Bishop));
    let knights = info.board.knights();
    let opposite_bishops = sb.count() == 1
        && wb.count() == 1
        && knights.is_empty()
        && sb.is_subset(Bitboard::LIGHT_SQUARES) != wb.is_subset(Bitboard::LIGHT_SQUARES);
    if opposite_bishops {
        let s = acc.read_int(OCB_BASE)
            + acc.read_int(OCB_PAWNS) * (sp - wp).abs()
            + acc.read_int(OCB_ROOK) * count(info.board.rooks())
            + acc.read_int(OCB_QUEEN) * count(info.board.queens());
        scale = scale.min(s);
    }
    let (spc, wpc) = (info.piece_count(strong), info.piece_count(weak));
    if spc == 1 && wpc == 1 && info.board.queens().count() == 2 {
        scale = scale.min(acc.read_int(SCALE_QUEENS));
    }
    let king_gap = front_pawn_gap(info, strong);
    if sp > 0 {
        let own = info.pawns[si];
        let edge = [Bitboard(FILES[0]), Bitboard(FILES[7])]
            .into_iter()
            .find(|f| own.is_subset(*f));
        if let Some(file) = edge {
            let mut s = acc.read_int(SCALE_EDGE_BASE);
            if sp == 1 {
                s += acc.read_int(SCALE_EDGE_ONLY);
            }
            if any(info.passed[si] & file) {
                s += acc.read_int(SCALE_EDGE_PASSED);
            }
            let strongest = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight]
                .into_iter()
                .find(|&r| any(info.of(strong, r)));
            if let Some(r) = strongest {
                s += acc.read_int(SCALE_EDGE_PIECE_TYPE.at(r as usize - 2));
            }
            scale = scale.min(s);
        }
        let mut s = acc.read_int(SCALE_LOW_SPREAD_BASE);
        let (lo, hi) = file_span(own).unwrap_or((0, 0));
        s += acc.read_int(SCALE_PAWN_SPREAD) * (hi - lo) as i32;
        if lo < 4 && hi >= 4 {
            s += acc.read_int(SCALE_PAWN_BOTH_SIDES);
        }
        s += acc.read_int(SCALE_PAWN_COUNT) * sp + acc.read_int(SCALE_KING_DIST) * king_gap;
        if smat > wmat {
            s += acc.read_int(SCALE_PIECE_MAT);
        }
        scale = scale.min(s);
    }
    if wpc == 1 && (spc == 1 || spc == 2) && sp - wp <= 1 && !opposite_bishops {
        let mut s = acc.read_int(SCALE_1P_BASE) + acc.read_int(SCALE_1P_KING_DIST) * king_gap;
        if spc == 2 {
            s += acc.read_int(SCALE_1P_2P);
        }
        scale = scale.min(s);
    }
    scale.clamp(0, FULL_SCALE)
}

/// King distance from the weaker king to the nearest of the stronger side's most advanced
/// pawns (0 without pawns).
fn front_pawn_gap(info: &Info, strong: Color) -> i32 {
    let pawns = info.pawns[strong as usize];
    let Some(rank) = pawns.into_iter().map(|p| rel_rank(strong, p)).max() else {
        return 0;
    };
    let weak_king = info.king[strong.other() as usize];
    (pawns & rel_rank_bb(strong, rank))
        .into_iter()
        .map(|p| distance(weak_king, p))
        .min()
        .unwrap_or(0)
}
