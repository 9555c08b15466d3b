//! EndGameV: king activity, outside passers and pawn races (endgame values).

use super::{bits::*, distance, Info};
use crate::accumulate::Accumulator;
use crate::table::*;
use crate::S;
use shakmaty::attacks::{king_attacks, queen_attacks};
use shakmaty::{Bitboard, Color, Role, Square};

/// Count applied to the endgame half only.
const END: S = S(0, 1);

pub(super) fn evaluate<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let them = us.other();
    let (ui, ti) = (us as usize, them as usize);
    let k = info.king[ui];
    let all_pawns = info.pawns[0] | info.pawns[1];
    let pawn_ending = info.piece_count(us) == 0 && info.piece_count(them) == 0;

    if any(all_pawns) {
        acc.add_int(us, PAWN_DIST_MULT, END * nearest_distance(k, all_pawns));
    }
    let free = !info.board.by_color(us) & !info.all_attacks[ti];
    if Bitboard::EDGES.contains(k) && (king_attacks(k) & !Bitboard::EDGES & free).is_empty() {
        acc.add_int(us, KING_STUCK_ON_EDGE, END);
    }
    acc.add_int(
        us,
        KING_MOBILITY.at(count(king_attacks(k) & free) as usize),
        END,
    );

    if let Some(d) = outside_distance(file_span(info.pawns[ti]), info.passed[ui]) {
        if info.piece_count(them) == 1 {
            acc.add_int(us, OUTSIDE_PASSED_PAWN_ONE_PIECE, END);
            if count(info.of(them, Role::Knight)) == 1 {
                acc.add_int(us, OUTSIDE_PASSED_PAWN_ONE_KNIGHT, END);
            }
        }
        if pawn_ending {
            acc.add_int(us, OUTSIDE_PASSED_PAWN_KPK.at_most(d - 2), END);
        }
    }
    if let Some((lo, hi)) = file_span(all_pawns) {
        let f = k.file() as usize;
        let d = if f < lo { lo - f } else { f.saturating_sub(hi) };
        if d > 0 {
            let term = if pawn_ending {
                KING_OUTSIDE_PAWNS_KPK
            } else {
                KING_OUTSIDE_PAWNS_ENDGAME
            };
            acc.add_int(us, term.at_most(d - 1), END);
        }
    }
    if pawn_ending {
        if let Some(i) = race(info, us) {
            acc.add_int(us, PAWN_RACE_WIN.at(i), END);
        }
    }
    connected_unstoppable(info, us, acc);
}

/// King distance from `k` to the nearest square of the non-empty set `targets`: the number
/// of one-step expansions of `k` that reach it.
fn nearest_distance(k: Square, targets: Bitboard) -> i32 {
    let mut reach = Bitboard::from(k);
    let mut d = 0;
    while (reach & targets).is_empty() {
        reach = expand(reach);
        d += 1;
    }
    d
}

/// The largest file distance, two or more, by which a passer lies beyond every enemy pawn.
fn outside_distance(enemy_span: Option<(usize, usize)>, passers: Bitboard) -> Option<usize> {
    let (lo, hi) = enemy_span?;
    passers
        .into_iter()
        .map(|p| {
            let f = p.file() as usize;
            if f < lo {
                lo - f
            } else {
                f.saturating_sub(hi)
            }
        })
        .filter(|&d| d >= 2)
        .max()
}

/// Plies until the fastest passer of `side` queens if the enemy king is outside its square
/// and its path is empty, `None` when no passer runs.
fn runner_plies(info: &Info, side: Color) -> Option<(i32, Square)> {
    let enemy_king = info.king[side.other() as usize];
    let enemy_to_move = i32::from(info.turn != side);
    info.passed[side as usize]
        .into_iter()
        .filter_map(|p| {
            let path = front_span(side, p);
            let promo_sq = if side.is_white() {
                path.last()
            } else {
                path.first()
            }?;
            let mut moves = 7 - rel_rank(side, p) as i32;
            if rel_rank(side, p) == 1 {
                moves -= 1;
            }
            let catches = distance(enemy_king, promo_sq) - enemy_to_move <= moves;
            (!catches && (path & info.occupied).is_empty())
                .then(|| (2 * moves - i32::from(info.turn == side), promo_sq))
        })
        .min_by_key(|&(plies, _)| plies)
}

/// Pawn race result for `us`: 0 if we queen two or more plies first, 1 if one ply first
/// with check.
fn race(info: &Info, us: Color) -> Option<usize> {
    let (ours, promo_sq) = runner_plies(info, us)?;
    let theirs = runner_plies(info, us.other()).map_or(i32::MAX, |(p, _)| p);
    if ours + 1 < theirs {
        Some(0)
    } else if ours + 1 == theirs
        && queen_attacks(promo_sq, info.occupied).contains(info.king[us.other() as usize])
    {
        Some(1)
    } else {
        None
    }
}

/// Two connected passers on ranks 6-7 out of the enemy king's reach against a lone rook or
/// knight.
fn connected_unstoppable<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let them = us.other();
    let index = match (
        info.piece_count(them),
        count(info.of(them, Role::Rook)),
        count(info.of(them, Role::Knight)),
    ) {
        (1, 1, _) => 0,
        (1, _, 1) => 1,
        _ => return,
    };
    let far = rel_rank_bb(us, 5) | rel_rank_bb(us, 6);
    let runners = info.passed[us as usize] & far & !king_attacks(info.king[them as usize]);
    let pair = runners
        .into_iter()
        .any(|p| any(adjacent_files(p) & runners));
    if pair {
        acc.add_int(us, CONNECTED_PAWN_UNSTOPPABLE.at(index), END);
    }
}
