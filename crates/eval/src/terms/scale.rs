//! ScaleV: how much of the endgame score the stronger side keeps, in percent.

use super::{bits::*, distance, Info};
use crate::formula::{EndgameScale, ScaleRules};
use shakmaty::{Bitboard, Color, Role};

/// Conventional piece material (knight and bishop 3, rook 5, queen 9) for scale decisions.
fn piece_material(info: &Info, c: Color) -> i32 {
    3 * count(info.of(c, Role::Knight) | info.of(c, Role::Bishop))
        + 5 * count(info.of(c, Role::Rook))
        + 9 * count(info.of(c, Role::Queen))
}

/// The inputs of the endgame scale: the rules of the side with more material (pawn 1,
/// knight and bishop 3, rook 5, queen 9), or of both sides when material is level (the
/// scale is then the lower of the two).
///
/// The choice depends on the position only, never on parameter values, so a trace's scale
/// inputs stay valid while the tuner moves any parameter.
pub(super) fn scale(info: &Info) -> EndgameScale {
    let material = |c: Color| count(info.pawns[c as usize]) + piece_material(info, c);
    match material(Color::White).cmp(&material(Color::Black)) {
        std::cmp::Ordering::Greater => EndgameScale {
            stronger: rules(info, Color::White),
            level: None,
        },
        std::cmp::Ordering::Less => EndgameScale {
            stronger: rules(info, Color::Black),
            level: None,
        },
        std::cmp::Ordering::Equal => EndgameScale {
            stronger: rules(info, Color::White),
            level: Some(rules(info, Color::Black)),
        },
    }
}

/// The scale rules that apply with `strong` as the stronger side ([`ScaleRules`]).
fn rules(info: &Info, strong: Color) -> ScaleRules {
    let weak = strong.other();
    let (si, wi) = (strong as usize, weak as usize);
    let (sp, wp) = (count(info.pawns[si]), count(info.pawns[wi]));
    let (smat, wmat) = (piece_material(info, strong), piece_material(info, weak));
    let mut r = ScaleRules::default();
    if sp == 0 && smat - wmat <= 3 {
        r.bare = 1;
        return r;
    }
    let (sb, wb) = (info.of(strong, Role::Bishop), info.of(weak, Role::Bishop));
    let opposite_bishops = sb.count() == 1
        && wb.count() == 1
        && info.board.knights().is_empty()
        && sb.is_subset(Bitboard::LIGHT_SQUARES) != wb.is_subset(Bitboard::LIGHT_SQUARES);
    if opposite_bishops {
        r.opposite_bishops = 1;
        r.pawn_difference = small((sp - wp).abs());
        r.rooks_traded = small(4 - count(info.board.rooks()).min(4));
        r.queens_traded = small(2 - count(info.board.queens()).min(2));
    }
    let (spc, wpc) = (info.piece_count(strong), info.piece_count(weak));
    r.queens_only = u8::from(spc == 1 && wpc == 1 && info.board.queens().count() == 2);
    r.king_gap = small(front_pawn_gap(info, strong));
    if sp > 0 {
        let own = info.pawns[si];
        let edge = [Bitboard(FILES[0]), Bitboard(FILES[7])]
            .into_iter()
            .find(|f| own.is_subset(*f));
        if let Some(file) = edge {
            r.edge_pawns = 1;
            r.single_pawn = u8::from(sp == 1);
            r.edge_passer = u8::from(any(info.passed[si] & file));
            r.strongest_piece = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight]
                .into_iter()
                .find(|&role| any(info.of(strong, role)))
                .map_or(0, |role| role as u8 - 1);
        }
        let (lo, hi) = file_span(own).unwrap_or((0, 0));
        r.has_pawns = 1;
        r.pawn_spread = (hi - lo) as u8;
        r.both_wings = u8::from(lo < 4 && hi >= 4);
        r.pawns = small(sp);
        r.piece_ahead = u8::from(smat > wmat);
    }
    if wpc == 1 && (spc == 1 || spc == 2) && sp - wp <= 1 && !opposite_bishops {
        r.few_pieces = 1;
        r.two_pieces = u8::from(spc == 2);
    }
    r
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
