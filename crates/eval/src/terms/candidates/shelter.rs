//! King shelter and king attack (`ShelterV`): own pawns in the shelter zones, pawns and
//! sliders near the enemy king, blocked enemy shelter pawns, confined kings, piece
//! shelters, and lines of attacked squares in front of the enemy king.

use super::super::{add_each, bits::*, Info};
use super::unopposed::{free_path, Free};
use crate::accumulate::Accumulator;
use crate::table::*;
use shakmaty::attacks::{between, king_attacks, knight_attacks};
use shakmaty::{Bitboard, Color, Role, Square};

/// The king's immediate shelter zone: neighbouring squares level with or in front of it.
pub(super) fn immediate_zone(us: Color, k: Square) -> Bitboard {
    king_attacks(k) & !ahead(us.other(), k)
}

/// The wider zone: squares two steps along a line, and knight jumps, level or in front.
fn wider_zones(us: Color, k: Square) -> (Bitboard, Bitboard) {
    let front = !ahead(us.other(), k);
    let two_steps = (lines(k) | diagonals(k)) & !king_attacks(k) & expand(king_attacks(k));
    (two_steps & front, knight_attacks(k) & front)
}

/// The king's file and its neighbours.
fn wing(k: Square) -> Bitboard {
    file_bb(k) | adjacent_files(k)
}

pub(super) fn evaluate<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    shelter_pawns(info, us, acc);
    attack_pawns(info, us, acc);
    sliders_near_king(info, us, acc);
    confinement(info, us, acc);
    piece_shelter(info, us, acc);
    attack_line(info, us, acc);
}

/// Own pawns in the own king's shelter zones.
fn shelter_pawns<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let own = info.pawns[us as usize];
    let k = info.king[us as usize];
    let near = immediate_zone(us, k);
    let (straight, jumps) = wider_zones(us, k);
    for (i, zone) in [near, straight, jumps].into_iter().enumerate() {
        add_each(acc, us, KING_SHELTER_PAWN.at(i), zone & own);
    }
    let front_three = forward(us, Bitboard::from(k)) & wing(k);
    acc.add_if(
        us,
        KING_SHELTER_PAWN.at(3),
        rel_rank(us, k) == 0 && count(front_three & own) == 3,
    );
    let rams = count((near | straight | jumps) & info.rammed[us as usize]);
    acc.add(us, KING_SHELTER_PAWN.at(4), rams);
}

/// Own pawns near the enemy king, free pawns and pawn groups on its wing, and own pieces
/// on the stop squares of its shelter pawns.
fn attack_pawns<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let them = us.other();
    let own = info.pawns[us as usize];
    let their_king = info.king[them as usize];
    // Own pawns by their distance to the enemy king, 1 to 4: rings around it.
    let (mut inside, mut within) = (Bitboard::from(their_king), Bitboard::from(their_king));
    for d in 0..4 {
        within = expand(within);
        add_each(acc, us, PAWN_NEAR_ENEMY_KING.at(d), own & within & !inside);
        inside = within;
    }
    for sq in own & wing(their_king) & rel_ranks_bb(us, 4, 7) {
        match free_path(info, us, sq) {
            Some(Free::Unopposed) => acc.add(us, UNOPPOSED_PAWN_KING_ATTACK.at(0), 1),
            Some(Free::Prospective) => acc.add(us, UNOPPOSED_PAWN_KING_ATTACK.at(1), 1),
            None => {}
        }
    }
    let stormers = own & wing(their_king) & (!own_half(us) | rel_rank_bb(us, 3));
    let mut left = stormers;
    while let Some(seed) = left.first() {
        let mut group = Bitboard::from(seed);
        while (expand(group) & stormers) != group {
            group = expand(group) & stormers;
        }
        left &= !group;
        acc.add_if(us, PAWN_STORM_GROUP, count(group) >= 3);
    }
    let shelter = immediate_zone(them, their_king) & info.pawns[them as usize];
    let stops = forward(them, shelter);
    let rooks = info.of(us, Role::Rook);
    let others = info.board.by_color(us) & !info.board.pawns() & !info.board.kings() & !rooks;
    add_each(acc, us, SHELTER_PAWN_BLOCKED.at(0), stops & rooks);
    add_each(acc, us, SHELTER_PAWN_BLOCKED.at(1), stops & others);
}

/// Own sliders that attack the enemy king's immediate zone from its own line, by the
/// squares between them and the king.
fn sliders_near_king<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let k = info.king[us.other() as usize];
    let roles = [Role::Bishop, Role::Rook, Role::Queen];
    let on_line = |role| info.of(us, role) & slider_lines(role, k);
    if roles.iter().all(|&role| on_line(role).is_empty()) {
        return;
    }
    let zone = immediate_zone(us.other(), k);
    for role in roles {
        let on_line = on_line(role);
        for p in info.pieces_of(us, role) {
            if !on_line.contains(p.sq) || !any(p.attacks & zone) {
                continue;
            }
            let i = match count(between(p.sq, k)) {
                0 | 1 => 0,
                2 => 1,
                3 => 2,
                _ => continue,
            };
            acc.add(us, SLIDER_KING_PROXIMITY.at(i), 1);
        }
    }
}

/// A king with no free square, a back-rank king cut from its second rank, and an enemy
/// king cut from every square behind it.
fn confinement<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let them = us.other();
    let k = info.king[us as usize];
    let blocked = info.board.by_color(us) | info.all_attacks[them as usize];
    let steps = king_attacks(k);
    acc.add_if(us, KING_CONFINED.at(0), (steps & !blocked).is_empty());
    let heavies = info.of(them, Role::Rook) | info.of(them, Role::Queen);
    acc.add_if(
        us,
        KING_CONFINED.at(1),
        rel_rank(us, k) == 0 && any(heavies) && (steps & rel_rank_bb(us, 1) & !blocked).is_empty(),
    );
    let their_king = info.king[them as usize];
    let behind = king_attacks(their_king) & ahead(us, their_king) & !info.board.by_color(them);
    acc.add_if(
        us,
        KING_CONFINED.at(2),
        any(behind) && (behind & !info.all_attacks[us as usize]).is_empty(),
    );
}

/// Pieces sheltering an own king whose immediate zone has no own pawn left.
fn piece_shelter<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let k = info.king[us as usize];
    if any(immediate_zone(us, k) & info.pawns[us as usize]) {
        return;
    }
    let around = king_attacks(k);
    let minors_and_rooks = [
        (false, info.minor_pieces(us)),
        (true, info.pieces_of(us, Role::Rook)),
    ];
    for (rook, pieces) in minors_and_rooks {
        for p in pieces {
            // Next to the king, or else guarding a square next to it.
            let next_to = around.contains(p.sq);
            let guards = !next_to && any(p.attacks & around);
            acc.add_if(us, KING_ZONE_DEFENDER.at(usize::from(rook)), next_to);
            acc.add_if(us, KING_ZONE_DEFENDER.at(2 + usize::from(rook)), guards);
        }
    }
}

/// Every square of the rank in front of the enemy king (toward us) attacked by our pawns
/// or minor pieces; or else every square one rank further.
fn attack_line<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let k = info.king[us.other() as usize];
    let ours = info.attacked_by(us, Role::Pawn)
        | info.attacked_by(us, Role::Knight)
        | info.attacked_by(us, Role::Bishop);
    let row = (king_attacks(k) | Bitboard::from(k)) & Bitboard::from_rank(k.rank());
    let near = forward(us.other(), row);
    let far = forward(us.other(), near);
    if any(near) && (near & !ours).is_empty() {
        acc.add(us, CONTINUOUS_ATTACK_LINE.at(0), 1);
    } else if any(far) && (far & !ours).is_empty() {
        acc.add(us, CONTINUOUS_ATTACK_LINE.at(1), 1);
    }
}
