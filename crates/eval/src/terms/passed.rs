//! PassedV: passed pawns and candidate passed pawns.

use super::{bits::*, distance, Info};
use crate::accumulate::Accumulator;
use crate::curve::passer_index;
use crate::params::SParam;
use crate::table::*;
use crate::Curve;
use shakmaty::{Bitboard, Color, Role, Square};

/// The linear terms of one passed pawn, kept so a multiplier can be applied to them.
struct Terms {
    list: [(SParam, i32); 8],
    len: usize,
}

impl Terms {
    fn push(&mut self, p: SParam) {
        self.list[self.len] = (p, 1);
        self.len += 1;
    }
}

pub(super) fn evaluate<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let them = us.other();
    let theirs = info.piece_count(them);
    let rooks_only = theirs > 0 && theirs == count(info.of(them, Role::Rook));
    for sq in info.passed[us as usize] {
        passer(info, us, sq, rooks_only, acc);
    }
    candidates(info, us, acc);
}

fn passer<A: Accumulator>(info: &Info, us: Color, sq: Square, rooks_only: bool, acc: &mut A) {
    let (ui, ti) = (us as usize, us.other() as usize);
    let rank = rel_rank(us, sq);
    let promo = 7 - rank;
    let mut t = Terms {
        list: [(PP_PASSED_RANK.at(0), 0); 8],
        len: 0,
    };
    t.push(PP_PASSED_RANK.at(rank - 1));
    t.push(PP_PASSED_FILE.at(centralness(sq.file())));
    let stop = forward(us, Bitboard::from(sq));
    let stop_sq = stop.first().expect("a passer is below its last rank");
    if promo <= 4 {
        let i = promo - 1;
        let path = front_span(us, sq);
        let (ours, theirs) = (info.all_attacks[ui], info.all_attacks[ti]);
        if any(stop & ours) {
            t.push(PP_COVERED_ADVANCE.at(i));
        }
        if path.is_subset(ours) {
            t.push(PP_COVERED_ADVANCE_PATH.at(i));
        }
        if (stop & (info.occupied | theirs)).is_empty() {
            t.push(PP_FREE_PUSH.at(i));
        }
        if (path & (info.occupied | theirs)).is_empty() {
            t.push(PP_FREE_ADVANCE_PATH.at(i));
        }
        let neighbours = info.passed[ui] & adjacent_files(sq) & rank_window(sq);
        if any(neighbours) {
            t.push(PP_CONNECTED.at(i));
        }
    }
    if rank >= 5 {
        let (ours, theirs) = (info.all_attacks[ui], info.all_attacks[ti]);
        let can_advance = !info.occupied.contains(stop_sq)
            && (!theirs.contains(stop_sq) || ours.contains(stop_sq));
        if !can_advance && theirs.contains(sq) && !ours.contains(sq) {
            t.push(PP_HANGING.at(6 - rank));
        }
    }
    let dk = distance(info.king[ui], stop_sq) as usize;
    let dok = distance(info.king[ti], stop_sq) as usize;
    let kings = (dk * 8 + dok) * 6 + promo - 1;
    if rooks_only {
        acc.add_curve(us, Curve::RookPasserKings, kings, 1);
        for &(p, n) in &t.list[..t.len] {
            acc.add_curve(us, Curve::RookPasser, passer_index(p), n);
        }
    } else {
        acc.add_curve(us, Curve::PasserKings, kings, 1);
        for &(p, n) in &t.list[..t.len] {
            acc.add(us, p, n);
        }
    }
}

/// Ranks `sq` ± 1.
fn rank_window(sq: Square) -> Bitboard {
    let r = Bitboard::from_rank(sq.rank());
    Bitboard(r.0 | (r.0 << 8) | (r.0 >> 8))
}

/// Candidates: not passed, no enemy pawn ahead on the file, and at least as many own pawns
/// beside or behind on adjacent files as enemy pawns ahead on adjacent files.
fn candidates<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let (ui, ti) = (us as usize, us.other() as usize);
    let (own, theirs) = (info.pawns[ui], info.pawns[ti]);
    // Squares behind an enemy pawn on its file, from our side.
    let opposed = front_spans(us.other(), theirs);
    for sq in own & !info.passed[ui] & !opposed {
        let sentries = attack_span(us, sq) & theirs;
        let helpers = adjacent_files(sq) & own & !ahead(us, sq);
        if sentries.count() > helpers.count() {
            continue;
        }
        let rank = rel_rank(us, sq);
        let nearest = sentries
            .into_iter()
            .map(|s| rel_rank(us, s) - rank)
            .min()
            .unwrap_or(0);
        let curve = if nearest <= 2 {
            Curve::CandidateNear
        } else {
            Curve::CandidateFar
        };
        acc.add_curve(us, curve, (rank - 1) * 4 + centralness(sq.file()), 1);
    }
}
