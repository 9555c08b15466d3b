//! Formulas: the non-linear parts of the evaluation, computed from a few position-only
//! inputs and the parameters they read.
//!
//! The evaluation extracts the inputs from the board ([`KingAttack`] per attacking side,
//! [`ScaleRules`] per candidate stronger side) and hands them to the accumulator, which
//! computes the formula here. The tracer keeps the inputs ([`Formulas`]), so the tuner can
//! recompute a formula under trial parameters without the board. Each formula is written
//! once, over a parameter reader, so the same code also reports which parameters it read.

use crate::packed::{pack, unpack};
use crate::params::{IParam, Params};
use crate::score::FULL_SCALE;
use crate::table::*;
use crate::S;
use bytemuck::{Pod, Zeroable};

/// Reads a parameter for a formula.
pub trait Read {
    /// The value of `p`.
    fn read(&mut self, p: IParam) -> i32;

    /// `p × count`, reading `p` only when `count` is not zero.
    fn times(&mut self, p: IParam, count: u8) -> i32 {
        if count == 0 {
            0
        } else {
            self.read(p) * i32::from(count)
        }
    }
}

impl Read for &Params {
    #[inline]
    fn read(&mut self, p: IParam) -> i32 {
        self.flat()[p.flat_index()]
    }

    /// Reading values has no side effect: multiply without branching on `count`.
    #[inline]
    fn times(&mut self, p: IParam, count: u8) -> i32 {
        self.read(p) * i32::from(count)
    }
}

impl<F: FnMut(IParam) -> i32> Read for F {
    #[inline]
    fn read(&mut self, p: IParam) -> i32 {
        self(p)
    }
}

/// The largest king danger the attack formula counts.
const MAX_DANGER: i32 = 1600;

/// What one side's pieces do around the enemy king: the inputs of the king attack formula
/// (KingV). Arrays are by piece kind: knight, bishop, rook, queen.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[repr(C)]
pub struct KingAttack {
    /// Pieces attacking squares that touch the king.
    pub zone_pieces: [u8; 4],
    /// Squares touching the king those pieces attack, summed.
    pub zone_squares: [u8; 4],
    /// Pieces attacking only the outer ring (squares two steps from the king).
    pub outer_pieces: u8,
    /// Pieces attacking either ring.
    pub attackers: [u8; 4],
    /// Their moves into the mobility area, summed.
    pub attacker_moves: [u8; 4],
    /// Squares touching the king that the attacker hits and the defender guards poorly.
    pub weak_touching: u8,
    /// Such squares on the outer ring.
    pub weak_outer: u8,
    /// Squares of both rings the attacker hits twice.
    pub double_attacked: u8,
    /// A bishop or queen on a diagonal to the king, behind blockers (0 or 1).
    pub aligned_slider: u8,
    /// Rooks that can reach an open file next to the king.
    pub rooks_to_open_file: u8,
    /// Safe check squares, counted per piece kind.
    pub safe_checks: u8,
    /// Of those, bishop checks.
    pub safe_bishop_checks: u8,
    /// Rook or queen contact checks the king alone defends.
    pub contact_checks: u8,
    /// Check squares the defender guards.
    pub unsafe_checks: u8,
    /// A discovered check is possible (0 or 1).
    pub discovered_check: u8,
    /// A pawn can promote with check (0 or 1).
    pub promotion_check: u8,
    /// Pawn pushes that give check.
    pub pawn_checks: u8,
    /// The attacker is to move (0 or 1).
    pub to_move: u8,
    /// The attacker's queen is attacked (0 or 1).
    pub queen_hanging: u8,
    /// Defending pieces (not pawns or king) on either ring.
    pub defenders: u8,
    /// Squares touching the king that defending minors or rooks cover.
    pub covered_touching: u8,
}

impl KingAttack {
    /// The attack's score for the attacker: `raw = W_count · count · max(0, cover −
    /// COVER_SUB) + W_mob · mobility / 8 + BASE · count − W_def · defence · DEF_MUL / 16`,
    /// `danger = min(raw / 12 − ATTACK_SUB, 1600)`, worth `S(danger / 4, danger / 16)` when
    /// positive: the product of attacker count and attack units makes the score grow faster
    /// than either.
    pub fn value_with(&self, r: &mut impl Read) -> S {
        let [count, cover, mobility, defence] = self.linear_sums(r);
        let cover = cover + safe_check_score(self.safe_checks, r);
        attack_score([count, cover, mobility, defence], r)
    }

    /// The attack's four sums that are linear in its fields: attacker count, cover (attack
    /// units less the safe checks), attacker mobility and defence.
    fn linear_sums(&self, r: &mut impl Read) -> [i32; 4] {
        let mut count = r.times(KS_COUNT_EXTENDED_ZONE, self.outer_pieces);
        let mut cover = 0;
        let mut mobility = 0;
        for t in 0..4 {
            count += r.times(KS_COUNT_ZONE_BY_PIECE.at(t), self.zone_pieces[t]);
            cover += r.times(KS_BASE_COVER_BY_PIECE.at(t), self.zone_pieces[t])
                + r.times(KS_SQ_COVER_BY_PIECE.at(t), self.zone_squares[t]);
            mobility += r.times(KS_MOBILITY_BIAS.at(t), self.attackers[t])
                + r.times(KS_MOBILITY_MULT.at(t), self.attacker_moves[t]);
        }
        cover += r.times(KS_WEAK_SQ_COVER, self.weak_touching)
            + r.times(KS_EXTENDED_WEAK_SQ_COVER, self.weak_outer)
            + r.times(KS_EXT_DOUBLE_COVER, self.double_attacked)
            + r.times(KS_BISHOP_ALIGN_COVER, self.aligned_slider)
            + r.times(KS_ROOK_TO_OPEN_ATTACK_FILE, self.rooks_to_open_file);
        count += r.times(KS_BISHOP_ALIGN_COUNT, self.aligned_slider)
            + r.times(KS_COUNT_STM_BONUS, self.to_move)
            + r.times(KS_COUNT_QUEEN_HANGING, self.queen_hanging);
        cover += r.times(KS_SAFE_BISHOP_CHECK_ADJUST, self.safe_bishop_checks)
            + r.times(KS_TOUCH_CHECK_ADJUST, self.contact_checks)
            + r.times(KS_UNSAFE_CHECK, self.unsafe_checks)
            + r.times(KS_DISCOVERED_CHECK, self.discovered_check)
            + r.times(KS_PROMO_CHECK, self.promotion_check)
            + r.times(KS_PAWN_CHECK, self.pawn_checks);
        let defence = r.times(KS_DEF_KING_ZONE_OCCUPIED, self.defenders)
            + r.times(KS_DEF_KING_ZONE_COVERED, self.covered_touching);
        [count, cover, mobility, defence]
    }
}

/// The cover `checks` safe checks add: one value per count, the last for any more.
fn safe_check_score(checks: u8, r: &mut impl Read) -> i32 {
    match checks {
        0 => 0,
        n => r.read(KS_SAFE_CHECK_SCORE.at_most(usize::from(n) - 1)),
    }
}

/// The king attack's score from its [`KingAttack::linear_sums`] (safe checks included).
fn attack_score(sums: [i32; 4], r: &mut impl Read) -> S {
    // In 64 bits: a product of three values near their bound does not fit 32 (the result
    // is the same wherever 32 bits suffice).
    let [count, cover, mobility, defence] = sums.map(i64::from);
    let mut read = |p: IParam| i64::from(r.read(p));
    let raw = read(KS_PIECE_COUNT_WEIGHT) * count * (cover - read(KS_COVER_SUB)).max(0)
        + read(KS_MOBILITY_WEIGHT) * mobility / 8
        + read(KS_ATTACK_BASE) * count
        - read(KS_DEFENSE_WEIGHT) * defence * read(KS_DEF_COVER_MUL) / 16;
    let danger = (raw / 12 - read(KS_ATTACK_SUB)).min(i64::from(MAX_DANGER));
    if danger > 0 {
        let danger = danger as i32;
        S(danger / 4, danger / 16)
    } else {
        S::ZERO
    }
}

/// The king attack formula under one parameter set, ready to value encoded records
/// ([`KingAttacks::encode`]) without decoding them: each field's weights on the linear
/// sums ([`pack`]ed two by two: count and cover, mobility and defence), and the safe check
/// scores by count.
pub struct KingAttackWeights<'a> {
    /// For the parameters of [`attack_score`].
    params: &'a Params,
    /// By field; a mask has 64 bits, the fields past the record's weigh nothing.
    fields: [[i64; 2]; 64],
    safe_checks: [i32; 256],
}

impl<'a> KingAttackWeights<'a> {
    /// The formula under `params`: the linear sums of a record with one field at 1 give
    /// that field's weights.
    pub fn new(mut params: &'a Params) -> Self {
        let mut fields = [[0; 2]; 64];
        for (f, weights) in fields.iter_mut().take(size_of::<KingAttack>()).enumerate() {
            let mut unit = KingAttack::default();
            bytemuck::bytes_of_mut(&mut unit)[f] = 1;
            let [count, cover, mobility, defence] = unit.linear_sums(&mut params);
            *weights = [pack(count, cover), pack(mobility, defence)];
        }
        let safe_checks = std::array::from_fn(|n| safe_check_score(n as u8, &mut params));
        KingAttackWeights {
            params,
            fields,
            safe_checks,
        }
    }

    /// White's king attack minus black's, encoded at `bytes[*at..]` by
    /// [`KingAttacks::encode`] (the same as [`KingAttacks::value`] of the decoded attacks),
    /// moving `at` past them.
    ///
    /// # Panics
    /// On bytes not written by [`KingAttacks::encode`].
    #[inline]
    pub fn value(&self, bytes: &[u8], at: &mut usize) -> S {
        let flags = bytes[*at];
        *at += 1;
        let mut record = |bit: u8| match flags & bit {
            0 => S::ZERO,
            _ => self.record(bytes, at),
        };
        let white = record(1);
        white - record(2)
    }

    /// The score of the record encoded at `bytes[*at..]`, moving `at` past it.
    #[inline]
    fn record(&self, bytes: &[u8], at: &mut usize) -> S {
        let present = get_mask::<KingAttack>(bytes, at);
        let stored = &bytes[*at..*at + present.count_ones() as usize];
        *at += stored.len();
        let (mut mask, mut count_cover, mut mobility_defence) = (present, 0, 0);
        for &b in stored {
            let [first, second] = self.fields[mask.trailing_zeros() as usize];
            count_cover += first * i64::from(b);
            mobility_defence += second * i64::from(b);
            mask &= mask - 1;
        }
        // The safe checks weigh nothing in the linear sums: their score is looked up.
        let checks = match present & 1 << SAFE_CHECKS_FIELD {
            0 => 0,
            bit => {
                let before = (present & (bit - 1)).count_ones() as usize;
                self.safe_checks[usize::from(stored[before])]
            }
        };
        let [count, cover] = unpack(count_cover);
        let [mobility, defence] = unpack(mobility_defence);
        attack_score([count, cover + checks, mobility, defence], &mut {
            self.params
        })
    }
}

/// The byte of [`KingAttack::safe_checks`].
const SAFE_CHECKS_FIELD: u32 = std::mem::offset_of!(KingAttack, safe_checks) as u32;

/// Which endgame scale rules apply with one side as the stronger, and their inputs
/// (ScaleV). Flags are 0 or 1.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[repr(C)]
pub struct ScaleRules {
    /// No pawns and at most a minor piece ahead: the side keeps nothing.
    pub bare: u8,
    /// One bishop each, on opposite colours, and no knights.
    pub opposite_bishops: u8,
    /// Difference of the two sides' pawn counts.
    pub pawn_difference: u8,
    /// Rooks traded off: four less the rooks on the board.
    pub rooks_traded: u8,
    /// Queens traded off: two less the queens on the board.
    pub queens_traded: u8,
    /// A queen each and no other pieces.
    pub queens_only: u8,
    /// All the side's pawns on one edge file.
    pub edge_pawns: u8,
    /// ... and only one of them.
    pub single_pawn: u8,
    /// ... and one of them passed.
    pub edge_passer: u8,
    /// The side's strongest piece: 0 none, 1 knight, 2 bishop, 3 rook, 4 queen.
    pub strongest_piece: u8,
    /// The side has pawns.
    pub has_pawns: u8,
    /// Files between its outermost pawns.
    pub pawn_spread: u8,
    /// Pawns on both wings.
    pub both_wings: u8,
    /// Its pawn count.
    pub pawns: u8,
    /// King distance from the weaker king to the nearest most advanced pawn.
    pub king_gap: u8,
    /// More piece material than the other side.
    pub piece_ahead: u8,
    /// One piece against one or two, at most a pawn ahead, not opposite bishops.
    pub few_pieces: u8,
    /// ... two of them.
    pub two_pieces: u8,
}

/// Hashed as its bytes in one go (a derived hash feeds the fields one at a time).
impl std::hash::Hash for ScaleRules {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write(bytemuck::bytes_of(self));
    }
}

impl ScaleRules {
    /// The lowest of the rules that apply, 0 to 100 percent.
    pub fn value_with(&self, r: &mut impl Read) -> i32 {
        if self.bare != 0 {
            return 0;
        }
        let mut scale = FULL_SCALE;
        if self.opposite_bishops != 0 {
            let s = r.read(OCB_BASE)
                + r.times(OCB_PAWNS, self.pawn_difference)
                + r.times(OCB_ROOK, self.rooks_traded)
                + r.times(OCB_QUEEN, self.queens_traded);
            scale = scale.min(s);
        }
        if self.queens_only != 0 {
            scale = scale.min(r.read(SCALE_QUEENS));
        }
        if self.edge_pawns != 0 {
            let mut s = r.read(SCALE_EDGE_BASE)
                + r.times(SCALE_EDGE_ONLY, self.single_pawn)
                + r.times(SCALE_EDGE_PASSED, self.edge_passer);
            if self.strongest_piece > 0 {
                s += r.read(SCALE_EDGE_PIECE_TYPE.at(usize::from(self.strongest_piece) - 1));
            }
            scale = scale.min(s);
        }
        if self.has_pawns != 0 {
            let s = r.read(SCALE_LOW_SPREAD_BASE)
                + r.times(SCALE_PAWN_SPREAD, self.pawn_spread)
                + r.times(SCALE_PAWN_BOTH_SIDES, self.both_wings)
                + r.times(SCALE_PAWN_COUNT, self.pawns)
                + r.times(SCALE_KING_DIST, self.king_gap)
                + r.times(SCALE_PIECE_MAT, self.piece_ahead);
            scale = scale.min(s);
        }
        if self.few_pieces != 0 {
            let s = r.read(SCALE_1P_BASE)
                + r.times(SCALE_1P_KING_DIST, self.king_gap)
                + r.times(SCALE_1P_2P, self.two_pieces);
            scale = scale.min(s);
        }
        scale.clamp(0, FULL_SCALE)
    }
}

/// The endgame scale's inputs: the rules for the side with more material, or for both sides
/// when material is level (the scale is then the lower of the two).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct EndgameScale {
    /// The stronger side's rules (white's when level).
    pub stronger: ScaleRules,
    /// Black's rules when material is level.
    pub level: Option<ScaleRules>,
}

impl EndgameScale {
    /// The scale in percent.
    pub fn value_with(&self, r: &mut impl Read) -> i32 {
        let first = self.stronger.value_with(r);
        match &self.level {
            Some(other) => first.min(other.value_with(r)),
            None => first,
        }
    }

    /// The scale in percent under `params`.
    pub fn value(&self, mut params: &Params) -> i32 {
        self.value_with(&mut params)
    }
}

/// The non-linear formulas.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Formula {
    /// The king attack ([`KingAttack`]).
    KingAttack,
    /// The endgame scale ([`EndgameScale`]).
    Scale,
}

/// Both sides' king attack inputs (black's, white's), where the formula applies.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct KingAttacks(pub [Option<KingAttack>; 2]);

impl KingAttacks {
    /// White's king attack minus black's.
    pub fn value_with(&self, r: &mut impl Read) -> S {
        let value = |a: &Option<KingAttack>, r: &mut _| a.map_or(S::ZERO, |a| a.value_with(r));
        let white = value(&self.0[1], r);
        white - value(&self.0[0], r)
    }

    /// White's king attack minus black's under `params`.
    pub fn value(&self, mut params: &Params) -> S {
        self.value_with(&mut params)
    }

    /// Appends a compact encoding: a byte of which records follow, then each record as a
    /// mask of its non-zero fields and those fields.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let [black, white] = self.0;
        out.push(u8::from(white.is_some()) | u8::from(black.is_some()) << 1);
        for a in [white, black].into_iter().flatten() {
            put_fields(out, bytemuck::bytes_of(&a));
        }
    }
}

/// Every formula input of one position: what the tuner keeps to recompute the formulas.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Formulas {
    /// The king attacks.
    pub king_attack: KingAttacks,
    /// The endgame scale.
    pub scale: EndgameScale,
}

impl Formulas {
    /// Calls `f` with every parameter the formulas read in this position and the formula
    /// that reads it. What is read depends on the inputs only, never on parameter values.
    pub fn for_each_read(&self, mut f: impl FnMut(IParam, Formula)) {
        self.king_attack.value_with(&mut |p: IParam| {
            f(p, Formula::KingAttack);
            0
        });
        self.scale.value_with(&mut |p: IParam| {
            f(p, Formula::Scale);
            0
        });
    }

    /// White's king attack minus black's under `params`.
    pub fn attack(&self, params: &Params) -> S {
        self.king_attack.value(params)
    }

    /// The endgame scale under `params`.
    pub fn scale(&self, params: &Params) -> i32 {
        self.scale.value(params)
    }
}

// A record's mask has a bit per byte field.
const _: () = assert!(std::mem::size_of::<KingAttack>() <= 64);
const _: () = assert!(std::mem::size_of::<ScaleRules>() <= 64);

/// Bytes of the mask of a record of `fields` one-byte fields (a bit per field).
const fn mask_width(fields: usize) -> usize {
    fields.div_ceil(8)
}

/// Writes the mask of the non-zero fields (little-endian, [`mask_width`] bytes), then
/// those fields.
fn put_fields(out: &mut Vec<u8>, fields: &[u8]) {
    let mask = fields
        .iter()
        .enumerate()
        .fold(0u64, |m, (i, &f)| m | u64::from(f != 0) << i);
    out.extend_from_slice(&mask.to_le_bytes()[..mask_width(fields.len())]);
    out.extend(fields.iter().filter(|&&f| f != 0));
}

/// Reads the mask of a record of `T` at `*at`, moving past it.
#[inline]
fn get_mask<T>(bytes: &[u8], at: &mut usize) -> u64 {
    let width = mask_width(std::mem::size_of::<T>());
    let mut mask = [0; 8];
    mask[..width].copy_from_slice(&bytes[*at..*at + width]);
    *at += width;
    u64::from_le_bytes(mask)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator for the tests below.
    fn next(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    #[test]
    fn compiled_weights_value_encoded_attacks_as_the_formula_does() {
        let mut state = 0x9E37_79B9_7F4A_7C15;
        let mut params = Params::default();
        let mut bytes = Vec::new();
        let mut cases = Vec::new();
        for round in 0..200 {
            let mut record = || {
                let mut a = KingAttack::default();
                for b in bytemuck::bytes_of_mut(&mut a) {
                    // Mostly zero fields (as on the board), some up to 20.
                    *b = match next(&mut state) % 3 {
                        0 => (next(&mut state) % 21) as u8,
                        _ => 0,
                    };
                }
                (!next(&mut state).is_multiple_of(4)).then_some(a)
            };
            let attacks = KingAttacks([record(), record()]);
            attacks.encode(&mut bytes);
            cases.push(attacks);
            if (round + 1) % 50 == 0 {
                // Move every value used by the formula, the attack tables included.
                for i in 0..crate::table::FLAT_LEN {
                    let v = params.flat()[i] + (next(&mut state) % 41) as i32 - 20;
                    params.set_flat(i, v);
                }
                let weights = KingAttackWeights::new(&params);
                let mut at = 0;
                for a in &cases {
                    assert_eq!(weights.value(&bytes, &mut at), a.value(&params), "{a:?}");
                }
                assert_eq!(at, bytes.len());
            }
        }
        assert!(cases.iter().any(|a| a.value(&params) != S::ZERO));
    }

    #[test]
    fn encoded_edge_cases_keep_their_value() {
        let mut attack = KingAttack {
            zone_pieces: [1, 0, 2, 1],
            zone_squares: [2, 0, 5, 6],
            weak_touching: 3,
            safe_checks: 3,
            ..KingAttack::default()
        };
        attack.attacker_moves[3] = 27;
        let cases = [
            KingAttacks::default(),
            KingAttacks([None, Some(attack)]),
            KingAttacks([Some(attack), None]),
            KingAttacks([Some(KingAttack::default()), Some(attack)]),
            KingAttacks([
                Some(attack),
                Some(KingAttack {
                    covered_touching: 255,
                    ..attack
                }),
            ]),
        ];
        let mut bytes = Vec::new();
        for a in &cases {
            a.encode(&mut bytes);
        }
        let params = Params::default();
        let weights = KingAttackWeights::new(&params);
        let mut at = 0;
        for a in &cases {
            assert_eq!(weights.value(&bytes, &mut at), a.value(&params), "{a:?}");
        }
        assert_eq!(at, bytes.len());
        assert_ne!(cases[1].value(&params), S::ZERO);
    }

    #[test]
    fn every_input_is_one_byte_field() {
        assert_eq!(std::mem::size_of::<KingAttack>(), 33);
        assert_eq!(std::mem::size_of::<ScaleRules>(), 18);
        let mut a = KingAttack::default();
        bytemuck::bytes_of_mut(&mut a)[32] = 7;
        assert_eq!(
            a.covered_touching, 7,
            "fields in declaration order, no padding"
        );
    }
}
