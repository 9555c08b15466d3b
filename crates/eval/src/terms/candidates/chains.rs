//! Groups and chains (`ChainV`): 8-connected groups of own pawns, pawns one square short of
//! a group, pawns by file, and chains along a diagonal with their lead (front) and root
//! (rear) pawns.

use super::super::{add_each, bits::*, Info};
use crate::accumulate::Accumulator;
use crate::table::*;
use shakmaty::{Bitboard, Color, Role};

/// One forward diagonal step of every square in `bb` for `color`, toward the h-file when
/// `right`, else toward the a-file.
fn diagonal(color: Color, bb: Bitboard, right: bool) -> Bitboard {
    let f = forward(color, bb).0;
    Bitboard(if right {
        (f & !FILES[7]) << 1
    } else {
        (f & !FILES[0]) >> 1
    })
}

/// The step back along the same diagonal (backward, toward the other side).
fn diagonal_back(color: Color, bb: Bitboard, right: bool) -> Bitboard {
    diagonal(color.other(), bb, !right)
}

/// The chains of `pawns` (of `color`) along one diagonal direction.
pub(super) struct Chains {
    /// Pawns with a chain pawn behind them and none ahead.
    pub lead: Bitboard,
    /// Pawns with a chain pawn ahead of them and none behind.
    pub root: Bitboard,
    /// Pawns with chain pawns both ahead and behind.
    pub middle: Bitboard,
}

impl Chains {
    pub(super) fn of(color: Color, pawns: Bitboard, right: bool) -> Chains {
        let has_behind = pawns & diagonal(color, pawns, right);
        let has_ahead = pawns & diagonal_back(color, pawns, right);
        Chains {
            lead: has_behind & !has_ahead,
            root: has_ahead & !has_behind,
            middle: has_ahead & has_behind,
        }
    }

    /// The chain that ends in `lead`, from the lead back to the root.
    fn members(color: Color, pawns: Bitboard, right: bool, lead: Bitboard) -> Bitboard {
        let mut chain = lead;
        let mut at = lead;
        while any(at) {
            at = diagonal_back(color, at, right) & pawns;
            chain |= at;
        }
        chain
    }
}

pub(super) fn evaluate<A: Accumulator>(info: &Info, us: Color, acc: &mut A) {
    let own = info.pawns[us as usize];
    groups(own, us, acc);
    for (i, files) in FILES_BY_CENTRALNESS.into_iter().enumerate() {
        add_each(acc, us, PAWN_FILE_CENTRALITY.at(i), own & files_bb(files));
    }
    for right in [false, true] {
        chains(info, us, right, acc);
    }
}

/// Groups of own pawns: members, groups, ranks spanned, and lone pawns near a group.
fn groups<A: Accumulator>(own: Bitboard, us: Color, acc: &mut A) {
    let mut left = own;
    while let Some(seed) = left.first() {
        let mut group = Bitboard::from(seed);
        loop {
            let grown = expand(group) & own;
            if grown == group {
                break;
            }
            group = grown;
        }
        left &= !group;
        let n = count(group);
        if n >= 2 {
            acc.add(us, PAWN_GROUP.at(0), n);
        } else {
            near_group(seed, own, us, acc);
        }
        acc.add(us, PAWN_GROUP.at(1), 1);
        // Squares count rank by rank: the first and last square hold the lowest and highest.
        let rank = |sq: Option<shakmaty::Square>| sq.map_or(0, |s| s.rank() as i32);
        let span = rank(group.last()) - rank(group.first()) + 1;
        acc.add(us, PAWN_GROUP.at(2), span);
    }
}

/// A lone pawn one square from touching another own pawn: its own push makes contact, or
/// the missing square is one it cannot reach.
fn near_group<A: Accumulator>(sq: shakmaty::Square, own: Bitboard, us: Color, acc: &mut A) {
    let others = own & !Bitboard::from(sq);
    let one = Bitboard::from(sq);
    if any(expand(expand(one)) & others) {
        let pushed = forward(us, one);
        let i = usize::from(!any(expand(pushed) & others));
        acc.add(us, PAWN_NEAR_GROUP.at(i), 1);
    }
}

/// Chains along one diagonal: leads by length and rank, roots by rank, chains across the
/// centre, chains facing an enemy bishop, and our pawns hitting enemy chains.
fn chains<A: Accumulator>(info: &Info, us: Color, right: bool, acc: &mut A) {
    let own = info.pawns[us as usize];
    let theirs = info.pawns[us.other() as usize];
    let c = Chains::of(us, own, right);
    for lead in c.lead {
        let members = Chains::members(us, own, right, Bitboard::from(lead));
        let n = count(members);
        acc.add(us, LEAD_PAWN.at_most(n as usize - 2), 1);
        let r = rel_rank(us, lead);
        acc.add_if(
            us,
            LEAD_PAWN_RANK.at(r.clamp(2, 5) - 2),
            (2..=5).contains(&r),
        );
        let across = any(members & own_half(us)) && any(members & own_half(us.other()));
        if n >= 3 && across {
            acc.add(us, CHAIN_ACROSS_CENTER.at(0), 1);
            acc.add_if(
                us,
                CHAIN_ACROSS_CENTER.at(1),
                any(forward(us, Bitboard::from(lead)) & theirs),
            );
        }
        let beyond =
            shakmaty::attacks::bishop_attacks(lead, info.occupied) & diagonal_ray(us, lead, right);
        acc.add_if(
            us,
            CHAIN_VS_ENEMY_BISHOP,
            any(beyond & info.of(us.other(), Role::Bishop)),
        );
    }
    for root in c.root {
        let r = rel_rank(us, root);
        acc.add_if(us, ROOT_PAWN.at(r.clamp(1, 5) - 1), (1..=5).contains(&r));
    }
    // Our pawns against the enemy's chains (both of its diagonals count for each).
    let enemy = Chains::of(us.other(), theirs, right);
    let levers = pawn_attacks(us, own);
    let rams = forward(us, own);
    let hits = [
        (levers & enemy.lead, 0),
        (rams & enemy.lead, 1),
        (levers & enemy.middle, 2),
        (rams & enemy.middle, 3),
    ];
    for (targets, i) in hits {
        add_each(acc, us, PAWN_VS_CHAIN.at(i), targets);
    }
}

/// The squares ahead of `sq` for `color` on the diagonal of the chain direction.
fn diagonal_ray(color: Color, sq: shakmaty::Square, right: bool) -> Bitboard {
    let f = sq.file() as u32;
    let side = if right {
        0xffu8.checked_shl(f + 1).unwrap_or(0)
    } else {
        (1u8 << f) - 1
    };
    diagonals(sq) & ahead(color, sq) & files_bb(side)
}
