//! KingV: the king-safety attack formula and the king-shelter terms.

use super::{bits::*, Info};
use crate::accumulate::Accumulator;
use crate::params::Handle as _;
use crate::table::*;
use crate::S;
use shakmaty::attacks::{
    between, bishop_attacks, king_attacks, knight_attacks, queen_attacks, rook_attacks,
};
use shakmaty::{Bitboard, Color, Role, Square};

/// The checks one side can give against the enemy king.
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct Checks {
    /// Check squares (counted per piece kind) the defender does not attack.
    pub safe: i32,
    /// Of those, bishop checks.
    pub safe_bishop: i32,
    /// Queen or rook checks touching the king, supported and defended only by the king.
    pub touch: i32,
    /// Check squares the defender attacks.
    pub unsafe_: i32,
}

/// The checks `attacker` has against the enemy king.
pub(crate) fn checks(info: &Info, attacker: Color) -> Checks {
    let defender = attacker.other();
    let k = info.king[defender as usize];
    let occ = info.occupied;
    let reach = !info.board.by_color(attacker);
    let by = |r: Role| info.attacked_by(attacker, r) & reach;
    let (diagonal, straight) = (bishop_attacks(k, occ), rook_attacks(k, occ));
    let knight = knight_attacks(k) & by(Role::Knight);
    let bishop = diagonal & by(Role::Bishop);
    let rook = straight & by(Role::Rook);
    let queen = (diagonal | straight) & by(Role::Queen);
    let defended = info.all_attacks[defender as usize];
    let safe = |bb: Bitboard| count(bb & !defended);
    let touch = (rook | queen)
        & king_attacks(k)
        & info.double_attacks[attacker as usize]
        & !info.defended_without_king[defender as usize];
    Checks {
        safe: safe(knight) + safe(bishop) + safe(rook) + safe(queen),
        safe_bishop: safe(bishop),
        touch: count(touch),
        unsafe_: count((knight | bishop | rook | queen) & defended),
    }
}

pub(super) fn evaluate<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    attack(info, us, acc);
    shelter(info, us, acc);
}

/// The largest king danger the formula counts.
const MAX_DANGER: i32 = 1600;

/// The attack of `us` on the enemy king, scored for `us` when its queen or at least two of
/// its pieces attack squares touching the king (see the KingV docs):
/// `raw = W_count · count · max(0, cover − COVER_SUB) + W_mob · mobility / 8 + BASE · count
/// − W_def · defence · DEF_MUL / 16`, `danger = min(raw / 12 − ATTACK_SUB, 1600)`, and when
/// positive the attack is worth `S(danger / 4, danger / 16)` (at most 4 pawns): the product of
/// attacker count and attack units makes the score grow faster than either.
fn attack<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let them = us.other();
    let (ui, ti) = (us as usize, them as usize);
    let k = info.king[ti];
    let touching = king_attacks(k);
    let near = expand(touching | Bitboard::from(k)) & !touching & !Bitboard::from(k);
    let guarded = info.defended_without_king[them as usize] & !info.attacked_by(them, Role::Queen);
    let weak = info.all_attacks[ui] & !guarded;

    let hitters = info.pieces[ui].iter().filter(|p| any(p.attacks & touching));
    let (pieces, queens) = hitters.fold((0, 0), |(n, q), p| {
        (n + 1, q + i32::from(p.role == Role::Queen))
    });
    if pieces < 2 && queens == 0 {
        return;
    }
    let mut cover = 0;
    let mut attackers = 0;
    let mut mobility = 0;
    for p in &info.pieces[ui] {
        let t = p.role as usize - 2;
        let hits = p.attacks & touching;
        if any(hits) {
            attackers += acc.read_int(KS_COUNT_ZONE_BY_PIECE.at(t));
            cover += acc.read_int(KS_BASE_COVER_BY_PIECE.at(t))
                + acc.read_int(KS_SQ_COVER_BY_PIECE.at(t)) * count(hits);
        } else if any(p.attacks & near) {
            attackers += acc.read_int(KS_COUNT_EXTENDED_ZONE);
        } else {
            continue;
        }
        let mob = count(p.attacks & info.mobility_area[ui]);
        mobility +=
            acc.read_int(KS_MOBILITY_BIAS.at(t)) + acc.read_int(KS_MOBILITY_MULT.at(t)) * mob;
    }
    cover += acc.read_int(KS_WEAK_SQ_COVER) * count(weak & touching)
        + acc.read_int(KS_EXTENDED_WEAK_SQ_COVER) * count(weak & near)
        + acc.read_int(KS_EXT_DOUBLE_COVER) * count(info.double_attacks[ui] & (touching | near));

    let diagonal_sliders = info.of(us, Role::Bishop) | info.of(us, Role::Queen);
    let aligned = (bishop_attacks(k, Bitboard::EMPTY) & diagonal_sliders)
        .into_iter()
        .any(|s| any(between(s, k) & info.occupied));
    if aligned {
        cover += acc.read_int(KS_BISHOP_ALIGN_COVER);
        attackers += acc.read_int(KS_BISHOP_ALIGN_COUNT);
    }
    let king_files = file_bb(k) | adjacent_files(k);
    let open_near_king = info.open_files & king_files;
    for r in info.pieces_of(us, Role::Rook) {
        if !open_near_king.contains(r.sq)
            && any(r.attacks & info.mobility_area[ui] & open_near_king)
        {
            cover += acc.read_int(KS_ROOK_TO_OPEN_ATTACK_FILE);
        }
    }
    cover += check_units(info, us, k, acc);
    if info.turn == us {
        attackers += acc.read_int(KS_COUNT_STM_BONUS);
    }
    if any(info.of(us, Role::Queen) & info.all_attacks[ti]) {
        attackers += acc.read_int(KS_COUNT_QUEEN_HANGING);
    }
    let defenders = info.board.by_color(them) & !info.pawns[ti] & !info.of(them, Role::King);
    let minor_rook_cover = info.attacked_by(them, Role::Knight)
        | info.attacked_by(them, Role::Bishop)
        | info.attacked_by(them, Role::Rook);
    let defence = acc.read_int(KS_DEF_KING_ZONE_OCCUPIED) * count(defenders & (touching | near))
        + acc.read_int(KS_DEF_KING_ZONE_COVERED) * count(touching & minor_rook_cover);

    let raw = acc.read_int(KS_PIECE_COUNT_WEIGHT)
        * attackers
        * (cover - acc.read_int(KS_COVER_SUB)).max(0)
        + acc.read_int(KS_MOBILITY_WEIGHT) * mobility / 8
        + acc.read_int(KS_ATTACK_BASE) * attackers
        - acc.read_int(KS_DEFENSE_WEIGHT) * defence * acc.read_int(KS_DEF_COVER_MUL) / 16;
    let danger = (raw / 12 - acc.read_int(KS_ATTACK_SUB)).min(MAX_DANGER);
    if danger > 0 {
        acc.add_formula(us, KS_ATTACK_BASE.term(), S(danger / 4, danger / 16));
    }
}

/// Attack units from the checks `us` has against the king on `k`.
fn check_units<A: Accumulator>(info: &Info, us: Color, k: Square, acc: &mut A) -> i32 {
    let ui = us as usize;
    let c = info.checks[ui];
    let mut units = 0;
    if c.safe > 0 {
        units += acc.read_int(KS_SAFE_CHECK_SCORE.at_most(c.safe as usize - 1));
    }
    units += acc.read_int(KS_SAFE_BISHOP_CHECK_ADJUST) * c.safe_bishop
        + acc.read_int(KS_TOUCH_CHECK_ADJUST) * c.touch
        + acc.read_int(KS_UNSAFE_CHECK) * c.unsafe_;
    if discovered_check(info, us, k) {
        units += acc.read_int(KS_DISCOVERED_CHECK);
    }
    let occ = info.occupied;
    let promoting = info.pawns[ui] & rel_rank_bb(us, 6);
    let promo_check = promoting.into_iter().any(|p| {
        let promo = forward(us, Bitboard::from(p));
        promo
            .first()
            .is_some_and(|sq| !occ.contains(sq) && queen_attacks(sq, occ.without(p)).contains(k))
    });
    if promo_check {
        units += acc.read_int(KS_PROMO_CHECK);
    }
    let pushes = forward(us, info.pawns[ui]) & !occ;
    let pawn_checks = count(pushes & pawn_attacks(us.other(), Bitboard::from(k)));
    units + acc.read_int(KS_PAWN_CHECK) * pawn_checks
}

/// A piece of `us` is the only blocker between a slider of `us` and the enemy king.
fn discovered_check(info: &Info, us: Color, k: Square) -> bool {
    let ours = info.board.by_color(us);
    let sliders = (rook_attacks(k, Bitboard::EMPTY) & ours & info.board.rooks_and_queens())
        | (bishop_attacks(k, Bitboard::EMPTY) & ours & info.board.bishops_and_queens());
    sliders.into_iter().any(|s| {
        let blockers = between(s, k) & info.occupied;
        blockers.count() == 1 && blockers.is_subset(ours)
    })
}

/// Linear king-shelter terms for the king of `us` (middlegame only).
fn shelter<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let (ui, ti) = (us as usize, us.other() as usize);
    let k = info.king[ui];
    let mid = S(1, 0);
    let own_pawns = info.pawns[ui];
    let open = info.openness();
    if (file_bb(k) & own_pawns).is_empty() {
        acc.add_int(us, KS_OPEN_FILE, mid);
    }
    let walls = own_pawns | info.rammed[us.other() as usize];
    let diagonals = bishop_attacks(k, Bitboard::EMPTY) & ahead(us, k);
    let west = diagonals & Bitboard(FILES[..k.file() as usize].iter().fold(0, |a, f| a | f));
    let east = diagonals & !west;
    let open_diagonals = [west, east]
        .iter()
        .filter(|&&d| any(d) && (d & walls).is_empty())
        .count();
    acc.add_int(us, KS_OPEN_DIAGONAL.at(open), mid * open_diagonals as i32);
    let rank = Bitboard::from_rank(k.rank());
    if rel_rank(us, k) > 0 && (rank & (info.pawns[0] | info.pawns[1])).is_empty() {
        acc.add_int(us, KS_OPEN_HORIZONTAL.at(open), mid);
    }
    let shield = own_pawns & king_attacks(k);
    if any(shield & info.all_attacks[ti] & !info.defended_without_king[us as usize]) {
        acc.add_int(us, KS_COVER_PAWN_ENPRISE, mid);
    }
    if info.castles.has_color(us) {
        acc.add_int(us, KS_CASTLE_VAL_MID, mid);
    }
    let front = king_attacks(k) & rel_rank_bb(us, 1);
    if rel_rank(us, k) == 0 && any(front) && front.is_subset(own_pawns) {
        let stuck = (forward(us, front) & info.occupied).count() == front.count();
        let trapped = if stuck {
            KS_TRAPPED_BACKRANK_BY_BLOCKED_PAWN
        } else {
            KS_TRAPPED_BACKRANK_BY_PAWN
        };
        acc.add_int(us, trapped.at(open), mid);
        let heavy = |c: usize| {
            info.board.by_color([Color::Black, Color::White][c]) & info.board.rooks_and_queens()
        };
        if any(heavy(ti)) && (heavy(ui) & rel_rank_bb(us, 0)).is_empty() {
            acc.add_int(us, KS_WEAK_BACK_RANK.at(open), mid);
        }
    }
}
