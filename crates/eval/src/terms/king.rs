//! KingV: the king-safety attack formula and the king-shelter terms.

use super::{bits::*, Info};
use crate::accumulate::Accumulator;
use crate::formula::KingAttack;
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

/// The attack of `us` on the enemy king, when its queen or at least two of its pieces attack
/// squares touching the king: the inputs of the formula ([`KingAttack::value_with`]).
fn attack<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let them = us.other();
    let (ui, ti) = (us as usize, them as usize);
    let k = info.king[ti];
    let touching = king_attacks(k);
    let near = expand(touching | Bitboard::from(k)) & !touching & !Bitboard::from(k);
    let guarded = info.defended_without_king[ti] & !info.attacked_by(them, Role::Queen);
    let weak = info.all_attacks[ui] & !guarded;

    let hitters = info.pieces[ui].iter().filter(|p| any(p.attacks & touching));
    let (pieces, queens) = hitters.fold((0, 0), |(n, q), p| {
        (n + 1, q + i32::from(p.role == Role::Queen))
    });
    if pieces < 2 && queens == 0 {
        return;
    }
    let mut a = KingAttack::default();
    // Written without a branch per piece: a piece that attacks nothing near the king adds
    // zeros.
    for p in &info.pieces[ui] {
        let t = p.role as usize - 2;
        let hits = p.attacks & touching;
        let zone = any(hits);
        let attacking = zone | any(p.attacks & near);
        a.zone_pieces[t] += u8::from(zone);
        a.zone_squares[t] += small(count(hits));
        a.outer_pieces += u8::from(attacking & !zone);
        a.attackers[t] += u8::from(attacking);
        let moves = small(count(p.attacks & info.mobility_area[ui]));
        a.attacker_moves[t] += u8::from(attacking) * moves;
    }
    a.weak_touching = small(count(weak & touching));
    a.weak_outer = small(count(weak & near));
    a.double_attacked = small(count(info.double_attacks[ui] & (touching | near)));
    let diagonal_sliders = info.of(us, Role::Bishop) | info.of(us, Role::Queen);
    a.aligned_slider = u8::from(
        (diagonals(k) & diagonal_sliders)
            .into_iter()
            .any(|s| any(between(s, k) & info.occupied)),
    );
    let king_files = file_bb(k) | adjacent_files(k);
    let open_near_king = info.open_files & king_files;
    a.rooks_to_open_file = small(
        info.pieces_of(us, Role::Rook)
            .iter()
            .filter(|r| {
                !open_near_king.contains(r.sq)
                    && any(r.attacks & info.mobility_area[ui] & open_near_king)
            })
            .count() as i32,
    );
    check_inputs(info, us, k, &mut a);
    a.to_move = u8::from(info.turn == us);
    a.queen_hanging = u8::from(any(info.of(us, Role::Queen) & info.all_attacks[ti]));
    let defenders = info.board.by_color(them) & !info.pawns[ti] & !info.of(them, Role::King);
    let minor_rook_cover = info.attacked_by(them, Role::Knight)
        | info.attacked_by(them, Role::Bishop)
        | info.attacked_by(them, Role::Rook);
    a.defenders = small(count(defenders & (touching | near)));
    a.covered_touching = small(count(touching & minor_rook_cover));
    acc.king_attack(us, &a);
}

/// The checks `us` has against the king on `k`.
fn check_inputs(info: &Info, us: Color, k: Square, a: &mut KingAttack) {
    let ui = us as usize;
    let c = info.checks[ui];
    a.safe_checks = small(c.safe);
    a.safe_bishop_checks = small(c.safe_bishop);
    a.contact_checks = small(c.touch);
    a.unsafe_checks = small(c.unsafe_);
    a.discovered_check = u8::from(discovered_check(info, us, k));
    let occ = info.occupied;
    let promoting = info.pawns[ui] & rel_rank_bb(us, 6);
    a.promotion_check = u8::from(promoting.into_iter().any(|p| {
        let promo = forward(us, Bitboard::from(p));
        promo
            .first()
            .is_some_and(|sq| !occ.contains(sq) && queen_attacks(sq, occ.without(p)).contains(k))
    }));
    let pushes = forward(us, info.pawns[ui]) & !occ;
    a.pawn_checks = small(count(pushes & pawn_attacks(us.other(), Bitboard::from(k))));
}

/// A piece of `us` is the only blocker between a slider of `us` and the enemy king.
fn discovered_check(info: &Info, us: Color, k: Square) -> bool {
    let ours = info.board.by_color(us);
    let sliders = (lines(k) & ours & info.board.rooks_and_queens())
        | (diagonals(k) & ours & info.board.bishops_and_queens());
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
    let diagonals = diagonals(k) & ahead(us, k);
    let west = diagonals & Bitboard(FILES[..k.file() as usize].iter().fold(0, |a, f| a | f));
    let east = diagonals & !west;
    let open_diagonals = [west, east]
        .iter()
        .filter(|&&d| any(d) && (d & walls).is_empty())
        .count();
    acc.add_int(us, KS_OPEN_DIAGONAL.at(open), mid * open_diagonals as i32);
    // The same walls as for the diagonals: own pawns and blocked enemy pawns.
    if (Bitboard::from_rank(k.rank()) & walls).is_empty() {
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
