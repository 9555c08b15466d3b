//! The evaluation parameter table: every term declared once, with its group, shape,
//! default value, tuner step and a one-line description of what it measures.
//!
//! This file is the output of `texel export`: a tuned parameter file exported with
//! `texel export --params P.json --rust crates/eval/src/table.rs` replaces it and compiles.
//! Counts are from the point of view of the side that owns the feature; the evaluation adds
//! white's terms and subtracts black's.

use crate::S;

crate::params::declare_params! {
    /// Base piece values and GNU Chess heuristics (John Stanback, 1987).
    group GnuV {
        /// Material value of each piece on the board.
        PIECE_VALUE: [S; 5] = [S(100, 100), S(330, 330), S(330, 330), S(520, 520), S(980, 980)], index "pawn, knight, bishop, rook, queen";
        /// Pawn with no friendly pawn on an adjacent file, by the file it stands on.
        GNU_ISOLATED_PAWN: [S; 8] = [S(-12, -12), S(-14, -14), S(-16, -16), S(-20, -20), S(-20, -20), S(-16, -16), S(-14, -14), S(-12, -12)], index "file a to h";
        /// Knight per step of centre proximity (0 in a corner ring, 3 on the four centre squares).
        GNU_KNIGHT_CENTER: S = S(10, 10);
        /// King per step of centre proximity (0 on the edge, 3 on the four centre squares).
        GNU_KING_CENTER: S = S(-8, 12);
        /// King on a file without friendly pawns, and the adjacent file toward the corner likewise.
        GNU_KING_OPEN_FILE: [S; 2] = [S(-15, 0), S(-8, 0)], index "king's file, adjacent file toward the nearer corner";
        /// Safe checks the opponent has against this king (check squares it attacks that we do not defend).
        GNU_SAFE_CHECKS: [S; 4] = [S(-6, -6), S(-20, -20), S(-35, -35), S(-50, -50)], index "1, 2, 3, 4 or more checks";
        /// King stands on a castled square (g1 or c1 and beyond toward the corner) with no castling rights left.
        GNU_CASTLED: S = S(10, 0);
        /// King has lost every castling right while still on the d, e or f file of its back rank or above it.
        GNU_KING_MOVED_UNCASTLED: S = S(-40, 0);
        /// More than one piece hung: attacked and undefended, attacked by a lower-valued piece, or pinned to the king.
        GNU_HUNG_PIECES: S = S(-10, -10);
        /// King with no friendly pawn on an adjacent square.
        GNU_KING_NO_ADJACENT_PAWN: S = S(-8, 0);
        /// Unmoved d- or e-pawn on its second rank; blocked ones get GNU_CENTER_PAWN_BLOCKED too.
        GNU_CENTER_PAWN_UNMOVED: S = S(-10, -10);
        /// Unmoved d- or e-pawn on its second rank whose square in front is occupied.
        GNU_CENTER_PAWN_BLOCKED: S = S(-15, -15);
        /// Pawn per rank advanced beyond its second rank, by file: about 4 a rank in the opening to 8 in the ending in the centre, less on the edges.
        GNU_PAWN_ADVANCE: [S; 4] = [S(1, 2), S(2, 4), S(3, 6), S(4, 8)], index "file a/h, b/g, c/f, d/e";
        /// Each extra pawn on a file of several own pawns that are not isolated (Slow's PAWN_DOUBLED measures the same).
        GNU_DOUBLED_PAWN: S = S(-12, -12);
        /// Backward pawn: no own pawn defends it or the square in front; more per enemy pawn attacking it and on a file without enemy pawns (Slow's PAWN_BACKWARD is defined otherwise).
        GNU_BACKWARD_PAWN: [S; 3] = [S(-6, -6), S(-4, -4), S(-4, -4)], index "backward pawn, per enemy pawn attacking it, on a half-open file";
        /// Own pawn within two squares of the own king.
        GNU_PAWN_NEAR_KING: S = S(10, 10);
        /// Passed pawn by rank, growing toward the ending (Slow's PP_PASSED_RANK measures the same).
        GNU_PASSED_PAWN: [S; 6] = [S(10, 15), S(15, 25), S(25, 45), S(40, 70), S(60, 110), S(90, 170)], index "rank 2 to rank 7", rising;
        /// Passed pawn whose path holds an enemy unit, whose path the enemy attacks, or whose square holds the enemy king.
        GNU_PASSED_HINDERED: [S; 3] = [S(-10, -20), S(-5, -10), S(0, -30)], index "path blocked, path attacked, enemy king in the square";
        /// Passed pawn with a free path, the enemy king outside its square and no enemy piece: it queens.
        GNU_PASSED_UNSTOPPABLE: S = S(0, 130), at_least 0;
        /// Knight per enemy piece (knight to queen) within two squares of it.
        GNU_KNIGHT_NEAR_ENEMY: S = S(4, 4);
        /// Knight per square of king distance from each king.
        GNU_KNIGHT_KING_DISTANCE: S = S(-1, -1);
        /// Knight on a square no enemy pawn can attack now or after advancing.
        GNU_KNIGHT_SAFE: S = S(8, 4);
        /// Every bishop, worth more as material comes off.
        GNU_BISHOP_MATERIAL: S = S(0, 10);
        /// Bishop by the squares it attacks with only pawns blocking (mobility and x-ray mobility through pieces).
        GNU_BISHOP_MOBILITY: [S; 13] = [S(-4, -4), S(-2, -2), S(0, 0), S(2, 2), S(3, 3), S(5, 5), S(7, 7), S(9, 9), S(11, 11), S(13, 13), S(14, 14), S(16, 16), S(18, 18)], index "0 to 12 or more squares";
        /// Bishop or rook x-ray through one unit onto an enemy rook, queen or king, or an undefended enemy piece.
        GNU_XRAY: [S; 2] = [S(8, 8), S(8, 8)], index "bishop, rook";
        /// Bishop by centre proximity, 14 on the edge to 22 in the centre.
        GNU_BISHOP_CENTER: [S; 4] = [S(14, 14), S(17, 17), S(19, 19), S(22, 22)], index "edge ring to the four centre squares";
        /// Bishop per attacked square next to the enemy king.
        GNU_BISHOP_KING_ATTACK: S = S(5, 5);
        /// Rook by the squares it attacks with only pawns blocking.
        GNU_ROOK_MOBILITY: [S; 13] = [S(0, 0), S(2, 2), S(3, 3), S(5, 5), S(7, 7), S(8, 8), S(10, 10), S(12, 12), S(13, 13), S(15, 15), S(17, 17), S(18, 18), S(20, 20)], index "0 to 12 or more squares";
        /// Rook on a file without own pawns, and on one without enemy pawns (Slow's ROOK_FILE_* measure the same).
        GNU_ROOK_FILE: [S; 2] = [S(10, 10), S(4, 4)], index "no own pawn, no enemy pawn";
        /// Rook per square of taxicab distance to the enemy king, after the opening.
        GNU_ROOK_KING_TAXICAB: S = S(0, -1);
        /// Queen per square of taxicab distance to the enemy king, after the opening.
        GNU_QUEEN_KING_TAXICAB: S = S(0, -1);
    }

    /// Material balance beyond the piece values.
    group MaterialV {
        /// Side owns bishops on both square colours.
        BISHOP_PAIR: S = S(27, 51);
        /// Side has more knights, bishops, rooks and queens (counted as pieces) than the opponent.
        MORE_PIECE_BONUS: S = S(46, 114);
        /// Side has two minor pieces more and one rook less than the opponent.
        TWO_MINORS_VS_ROOK: S = S(57, 101);
        /// Side's only piece is one rook and the opponent's only piece is one knight.
        ROOK_V_KNIGHT_END: S = S(-17, 56);
        /// Side's only piece is one rook and the opponent's only pieces are two knights.
        ROOK_V_2_KNIGHT_END: S = S(0, 31);
        /// Side's only piece is one rook and the opponent's only piece is one bishop.
        ROOK_V_BISHOP_END: S = S(-13, 33);
    }

    /// Knights: mobility curve, outposts and placement.
    group KnightV {
        /// Every knight: an adjustment of the knight's value.
        KNIGHT_BASE_OFFSET: S = S(-11, 30);
        /// Knight mobility score with no safe move (safe: not own-occupied, not attacked by enemy pawns).
        KNIGHT_MOB_MIN: S = S(-23, -20), nonlinear;
        /// Knight mobility score with all 8 moves safe.
        KNIGHT_MOB_MAX: S = S(6, 27), nonlinear;
        /// Bend of the knight mobility curve from MIN to MAX in percent (0 straight, above 0 early moves count more).
        KNIGHT_MOB_CURVE_FACTOR: S = S(49, 55), nonlinear;
        /// Knight outside the 16 centre squares with a safe move into them.
        KNIGHT_CENTER_MOVE_BONUS: S = S(8, 18);
        /// Knight five or more squares (king distance) away from its own king.
        KNIGHT_AWOL: S = S(-5, -7);
        /// Knight on an outpost: pawn-defended square on ranks 4-7 that no enemy pawn can ever attack.
        KNIGHT_OUTPOST: [S; 2] = [S(30, 17), S(16, 8)], index "outpost on ranks 5-7, on rank 4";
        /// Knight not on an outpost with a move to an empty outpost square.
        KNIGHT_OUTPOST_MOVE: [S; 2] = [S(17, 13), S(14, 11)], index "target on ranks 5-7, on rank 4";
        /// Knight on an outpost five or more squares away from the enemy king.
        KNIGHT_OUTPOST_AWOL: [S; 2] = [S(-12, 0), S(-6, -4)], index "outpost on ranks 5-7, on rank 4";
    }

    /// Bishops: mobility curve, pawn colour complex, outposts and lines.
    group BishopV {
        /// Every bishop: an adjustment of the bishop's value.
        BISHOP_BASE_OFFSET: S = S(5, 31);
        /// Bishop mobility score with no safe move (safe: not own-occupied, not attacked by enemy pawns).
        BISHOP_MOB_MIN: S = S(-25, -28), nonlinear;
        /// Bishop mobility score with 13 safe moves.
        BISHOP_MOB_MAX: S = S(9, 23), nonlinear;
        /// Bend of the bishop mobility curve in percent.
        BISHOP_MOB_CURVE_FACTOR: S = S(38, 41), nonlinear;
        /// Per own pawn on the bishop's square colour.
        BISHOP_COLOR_PAWNS: S = S(-3, -5);
        /// Per own pawn on the bishop's square colour that is blocked by an enemy pawn in front of it.
        BISHOP_COLOR_BLOCKED_PAWN: S = S(0, -1);
        /// Per own d- or e-pawn on the bishop's square colour blocked by an enemy pawn.
        BISHOP_COLOR_BLOCKED_CENTER_PAWN: S = S(-5, -4);
        /// Per forward diagonal neighbour of the bishop holding an own pawn blocked by an enemy pawn.
        BISHOP_FORWARD_BLOCKED_PAWN: S = S(-5, -5);
        /// Bishop on its back rank whose every forward diagonal neighbour holds an own blocked pawn.
        BISHOP_STUCK_BLOCKED_PAWN: S = S(-43, -51);
        /// Bishop on b2 or g2 (relative) on the wing where its own king stands.
        BISHOP_FIANCHETTO: S = S(11, 8);
        /// Bishop on an outpost square.
        BISHOP_OUTPOST: S = S(29, 20);
        /// Bishop not on an outpost with a move to an empty outpost square.
        BISHOP_OUTPOST_MOVE: S = S(9, 9);
        /// Bishop whose moves all lie in one half of the board (ranks 1-4 or ranks 5-8).
        BISHOP_ONLY_REACHES_ONE_SIDE: S = S(-6, -11);
        /// Opponent has pawns and none of them stands on the bishop's square colour.
        BISHOP_NO_PAWN_TARGETS: S = S(0, -23);
        /// Enemy rook, queen or king on the bishop's diagonal with no own blocked pawn or pawn-defended enemy pawn between.
        BISHOP_MAJOR_ALIGNED: S = S(8, 17);
        /// Bishop attacks some of the centre squares d4, e4, d5, e5.
        BISHOP_CENTER_CONTROL: [S; 2] = [S(9, 9), S(18, 16)], index "one centre square, two or more";
        /// Bishop trapped by enemy pawns: on a7/h7 behind b6/g6 counts 5, on a6/h6 behind b5/g5 counts 2 (fifths).
        BISHOP_TRAPPED_OVER_5: S = S(-24, -21);
    }

    /// Rooks: mobility curve, files and placement.
    group RookV {
        /// Every rook: an adjustment of the rook's value.
        ROOK_BASE_OFFSET: S = S(-7, 18);
        /// Per rook, per file of the board with no pawns.
        ROOK_OPEN_FILE_COUNT: S = S(10, 4);
        /// Rook mobility score with no safe move (safe: not own-occupied, not attacked by enemy pawns).
        ROOK_MOB_MIN: S = S(-22, -35), nonlinear;
        /// Rook mobility score with 14 safe moves.
        ROOK_MOB_MAX: S = S(15, 48), nonlinear;
        /// Bend of the rook mobility curve in percent.
        ROOK_MOB_CURVE_FACTOR: S = S(30, 30), nonlinear;
        /// Rook on an outpost square.
        ROOK_OUTPOST_BONUS: S = S(19, 7);
        /// Rook not on an open file with a safe move to one (open: no pawns on the file).
        ROOK_CAN_MOVE_TO_OPEN_FILE: [S; 2] = [S(5, 10), S(9, 9)], index "rook's file has no own pawn, has an own pawn";
        /// Rook that an enemy knight can attack with a move to a square our pawns do not guard.
        ROOK_THREATENED_BY_KNIGHT_MOVE: S = S(-5, -11);
        /// Rook on the back rank shut in toward the corner by its own king, with no castling right left.
        ROOK_TRAPPED_BY_KING: S = S(-30, -16);
        /// Rook shut in toward the corner by its own king that can still castle or stands on the 2nd rank.
        ROOK_TRAPPED_BY_KING_PARTIAL: S = S(-15, -3);
        /// Rook on a file with no pawns.
        ROOK_FILE_OPEN: S = S(16, 24);
        /// Rook on a file with enemy pawns but no own pawns.
        ROOK_FILE_HALF_OPEN: S = S(4, 11);
        /// Rook on a half-open file whose enemy pawn is defended by an enemy pawn.
        ROOK_FILE_HALF_OPEN_DEFENDED_PAWN: S = S(-2, 2);
        /// Rook on a file with an own pawn whose square in front is empty.
        ROOK_FILE_MOBILE_PAWN: S = S(-2, 3);
        /// Rook on a file with an own pawn blocked by a piece (not a pawn).
        ROOK_FILE_BLOCKED_PAWN_BY_PIECE: S = S(-8, -3);
        /// Rook on a file with an own pawn blocked by a pawn.
        ROOK_FILE_BLOCKED_PAWN: S = S(-11, -12);
        /// Two rooks on the 7th rank with the enemy king on the 8th.
        ROOKS_TWO_7_K8: S = S(36, 87);
        /// Rook with its own queen directly behind it on a file without own pawns.
        ROOK_QUEEN_GUN: S = S(16, 11);
    }

    /// Queens: mobility curve and placement.
    group QueenV {
        /// Every queen: an adjustment of the queen's value.
        QUEEN_BASE_OFFSET: S = S(-33, 62);
        /// Per queen, per file between the leftmost and rightmost pawn on the board.
        QUEEN_PAWN_SPREAD: S = S(-1, 12);
        /// Queen mobility score with no safe move (safe: not own-occupied, not attacked by enemy pawns).
        QUEEN_MOB_MIN: S = S(-41, -48), nonlinear;
        /// Queen mobility score with 27 safe moves.
        QUEEN_MOB_MAX: S = S(15, 70), nonlinear;
        /// Bend of the queen mobility curve in percent.
        QUEEN_MOB_CURVE_FACTOR: S = S(4, 6), nonlinear;
        /// Enemy rook on the queen's file.
        QUEEN_OPP_ROOK_ON_FILE: S = S(-10, -7);
        /// Queen has a move into the opponent's half to a square the opponent does not attack.
        QUEEN_OPP_SIDE: S = S(0, 13);
        /// Queen has no move into its own half to a square the opponent does not attack.
        QUEEN_NO_RETREAT: S = S(-17, -6);
        /// Queen behind an own pawn on a file that also holds an enemy pawn.
        QUEEN_CLOSED_FILE: S = S(-5, -11);
    }

    /// Threats: what this side attacks and can attack.
    group TacticalV {
        /// Per enemy knight, bishop, rook or queen attacked by our pawns.
        PIECE_HANGING_TO_PAWN: S = S(52, 39);
        /// Per enemy rook attacked by our knights or bishops.
        ROOK_HANGING_TO_MINOR: S = S(48, 24);
        /// Per enemy queen attacked by our knights, bishops or rooks.
        QUEEN_HANGING_TO_LESSER_PIECE: S = S(39, 53);
        /// Per enemy knight attacked by our bishops and enemy bishop attacked by our knights.
        MINOR_ON_MINOR: S = S(22, 17);
        /// Per minor counted by MINOR_ON_MINOR that stands on one of its side's outposts.
        MINOR_ON_OUTPOST: S = S(10, 9);
        /// Per enemy minor attacked by our rooks and not defended by an enemy pawn.
        ROOK_ON_MINOR: S = S(13, 18);
        /// Per enemy knight, bishop, rook or queen we attack that nothing defends.
        UNDEFENDED_PIECE_HANGING: S = S(33, 39);
        /// Per enemy pawn we attack that nothing defends.
        UNDEFENDED_PAWN_HANGING: S = S(7, 27);
        /// Per enemy pawn we attack that exactly one piece (no pawn) defends.
        WEAKLY_DEFENDED_PAWN: S = S(2, 10);
        /// Per enemy knight, bishop, rook or queen we attack that exactly one piece (no pawn) defends.
        WEAKLY_DEFENDED_PIECE: S = S(13, 20);
        /// Per enemy piece not yet attacked by our pawns that a safe single pawn push would attack.
        PIECE_CAN_BE_THREATENED_BY_PAWN: S = S(17, 18);
        /// Per undefended enemy pawn our king attacks.
        KING_ON_PAWN: S = S(4, 18);
        /// Enemy queen that one of our knights can attack by a move to a square enemy pawns do not guard.
        QUEEN_THREATENED_BY_KNIGHT_MOVE: S = S(19, 6);
        /// Enemy queen that one of our bishops or rooks can attack by a move to a square enemy pawns do not guard.
        QUEEN_THREATENED_BY_BISHOP_ROOK_MOVE: S = S(23, 13);
        /// Enemy queen behind exactly one enemy piece on the line of one of our bishops or rooks.
        QUEEN_BEHIND_PIN: S = S(37, 9);
        /// Per enemy piece pinned to its king that we attack and that is undefended or attacked by our pawn.
        PINNED_PIECE_THREATENED: S = S(100, 163);
        /// Per enemy piece pinned to its king that a safe single push of our pawn would attack.
        PINNED_PAWN_PUSH_THREAT: S = S(25, 50);
        /// Per own piece pinned to its king, by piece (its mobility only counts moves along the pin).
        PINNED_PIECE_MOBILITY: [S; 4] = [S(1, 21), S(1, -14), S(11, 2), S(0, 0)], index "knight, bishop, rook, queen";
        /// Per square of our half (ranks 1-4) the opponent attacks and we do not.
        OPP_COVERED_SQS: S = S(-3, -3);
    }

    /// King safety: the attack formula (the opponent's pieces against this king) and king shelter.
    group KingV {
        /// Attack units per enemy-attacked weak square touching the king (weak: we defend it only with king or queen, or not at all).
        KS_WEAK_SQ_COVER: i32 = 6, nonlinear;
        /// Attack units per enemy-attacked weak square two squares from the king.
        KS_EXTENDED_WEAK_SQ_COVER: i32 = 4, nonlinear;
        /// Attack units per square within two squares of the king that the enemy attacks twice.
        KS_EXT_DOUBLE_COVER: i32 = 5, nonlinear;
        /// Attack units per enemy piece that attacks a square touching the king.
        KS_BASE_COVER_BY_PIECE: [i32; 4] = [2, 2, 1, 2], index "knight, bishop, rook, queen", nonlinear;
        /// Attack units per square touching the king attacked by an enemy piece.
        KS_SQ_COVER_BY_PIECE: [i32; 4] = [7, 9, 7, 10], index "knight, bishop, rook, queen", nonlinear;
        /// Attack units for safe checks (check squares the enemy can reach and we do not attack).
        KS_SAFE_CHECK_SCORE: [i32; 5] = [10, 15, 24, 31, 29], index "1, 2, 3, 4, 5 or more safe checks", nonlinear, rising;
        /// Attack units added per safe bishop check.
        KS_SAFE_BISHOP_CHECK_ADJUST: i32 = -3, nonlinear;
        /// Attack units per queen or rook check on a square touching the king, supported and not otherwise defended.
        KS_TOUCH_CHECK_ADJUST: i32 = 5, nonlinear;
        /// Attack units per check square the enemy can reach that we defend.
        KS_UNSAFE_CHECK: i32 = 2, nonlinear;
        /// Attack units when an enemy piece is the only blocker between an enemy slider and the king.
        KS_DISCOVERED_CHECK: i32 = 22, nonlinear;
        /// Attack units when an enemy pawn can promote to a queen that gives check.
        KS_PROMO_CHECK: i32 = 30, nonlinear;
        /// Attack units per enemy pawn push that gives check.
        KS_PAWN_CHECK: i32 = 3, nonlinear;
        /// Attacker count per enemy piece attacking a square touching the king.
        KS_COUNT_ZONE_BY_PIECE: [i32; 4] = [6, 4, 4, 5], index "knight, bishop, rook, queen", nonlinear;
        /// Attacker count per enemy piece attacking only squares two away from the king.
        KS_COUNT_EXTENDED_ZONE: i32 = 2, nonlinear;
        /// Attacker count when the attacking side is to move.
        KS_COUNT_STM_BONUS: i32 = 6, nonlinear;
        /// Attacker count when the attacking queen is itself attacked.
        KS_COUNT_QUEEN_HANGING: i32 = -5, nonlinear;
        /// Attack units when an enemy bishop or queen is on the king's diagonal behind blockers.
        KS_BISHOP_ALIGN_COVER: i32 = 7, nonlinear;
        /// Attacker count when an enemy bishop or queen is on the king's diagonal behind blockers.
        KS_BISHOP_ALIGN_COUNT: i32 = 2, nonlinear;
        /// Defence per own knight, bishop, rook or queen within two squares of the king.
        KS_DEF_KING_ZONE_OCCUPIED: i32 = 14, nonlinear;
        /// Defence per square touching the king that own knights, bishops or rooks attack.
        KS_DEF_KING_ZONE_COVERED: i32 = 7, nonlinear;
        /// Multiplier (sixteenths) of the defence before it is weighed.
        KS_DEF_COVER_MUL: i32 = 11, nonlinear;
        /// Weight of the attacker count alone.
        KS_ATTACK_BASE: i32 = 27, nonlinear;
        /// Danger subtracted before the danger is squared (sixteenths of raw units).
        KS_ATTACK_SUB: i32 = 280, step 2, nonlinear;
        /// Attack units that do not count toward the product with the attacker count.
        KS_COVER_SUB: i32 = 40, nonlinear;
        /// King on a file with no own pawn (middlegame).
        KS_OPEN_FILE: i32 = -10;
        /// Per forward diagonal from the king with no own pawn and no enemy blocked pawn (middlegame).
        KS_OPEN_DIAGONAL: [i32; 3] = [-4, -7, -10], index "openness: more than 12 pawns, 7 to 12, 6 or fewer";
        /// King on a rank with no own pawn and no blocked enemy pawn (middlegame), as for KS_OPEN_DIAGONAL.
        KS_OPEN_HORIZONTAL: [i32; 3] = [-6, -13, -18], index "openness: more than 12 pawns, 7 to 12, 6 or fewer";
        /// Some own pawn touching the king is attacked by the enemy and defended by nothing but the king (middlegame).
        KS_COVER_PAWN_ENPRISE: i32 = -30;
        /// Side still has a castling right (middlegame).
        KS_CASTLE_VAL_MID: i32 = 21;
        /// King on its back rank with every forward neighbour an own pawn, one of which can move (middlegame).
        KS_TRAPPED_BACKRANK_BY_PAWN: [i32; 3] = [-17, -27, -35], index "openness: more than 12 pawns, 7 to 12, 6 or fewer";
        /// King on its back rank with every forward neighbour an own pawn that cannot move (middlegame).
        KS_TRAPPED_BACKRANK_BY_BLOCKED_PAWN: [i32; 3] = [-32, -44, -74], index "openness: more than 12 pawns, 7 to 12, 6 or fewer";
        /// Back-rank-trapped king against an enemy rook or queen with no own rook or queen on the back rank (middlegame).
        KS_WEAK_BACK_RANK: [i32; 3] = [-1, -12, -25], index "openness: more than 12 pawns, 7 to 12, 6 or fewer", at_most 0;
        /// Attack units per attacking piece whatever its mobility.
        KS_MOBILITY_BIAS: [i32; 4] = [33, 40, 58, 89], index "knight, bishop, rook, queen", nonlinear;
        /// Attack units per safe move of an attacking piece.
        KS_MOBILITY_MULT: [i32; 4] = [26, 20, 26, 18], index "knight, bishop, rook, queen", nonlinear;
        /// Weight of the attackers' mobility units.
        KS_MOBILITY_WEIGHT: i32 = 7, nonlinear;
        /// Weight of the defence.
        KS_DEFENSE_WEIGHT: i32 = 19, nonlinear;
        /// Weight of the attacker count times the attack units.
        KS_PIECE_COUNT_WEIGHT: i32 = 8, nonlinear;
        /// Attack units per enemy rook that can move to an open file on or beside the king's file.
        KS_ROOK_TO_OPEN_ATTACK_FILE: i32 = 3, nonlinear;
    }

    /// Endgame knowledge (endgame values).
    group EndGameV {
        /// Per square of king distance from the own king to the nearest pawn (endgame).
        PAWN_DIST_MULT: i32 = -6;
        /// King on the edge whose every non-edge neighbour is own-occupied or enemy-attacked (endgame).
        KING_STUCK_ON_EDGE: i32 = -6;
        /// Outside passed pawn (two or more files beyond every enemy pawn) against exactly one enemy piece (endgame).
        OUTSIDE_PASSED_PAWN_ONE_PIECE: i32 = 10;
        /// Outside passed pawn against a lone enemy knight (endgame).
        OUTSIDE_PASSED_PAWN_ONE_KNIGHT: i32 = 57;
        /// Outside passed pawn in a pawn ending, by its file distance to the nearest enemy pawn (endgame).
        OUTSIDE_PASSED_PAWN_KPK: [i32; 4] = [-23, 0, 22, 44], index "2, 3, 4, 5 or more files", rising;
        /// King outside the files of all pawns while pieces remain, by file distance to the nearest pawn (endgame).
        KING_OUTSIDE_PAWNS_ENDGAME: [i32; 6] = [-15, -24, -37, -61, -88, -94], index "1, 2, 3, 4, 5, 6 or more files", falling;
        /// Number of safe king moves (endgame).
        KING_MOBILITY: [i32; 9] = [-30, -4, 6, 7, 9, 7, 7, 7, -2], index "0 to 8 safe moves";
        /// King outside the files of all pawns in a pawn ending, by file distance to the nearest pawn (endgame).
        KING_OUTSIDE_PAWNS_KPK: [i32; 6] = [1, 4, 3, -57, -114, -180], index "1, 2, 3, 4, 5, 6 or more files", falling;
        /// Pawn ending race: our unstoppable passer queens first (endgame).
        PAWN_RACE_WIN: [i32; 2] = [610, 410], index "queens two or more plies first, queens one ply first with check", falling;
        /// Two connected passed pawns on ranks 6-7 the enemy king cannot reach, against a lone rook or knight (endgame).
        CONNECTED_PAWN_UNSTOPPABLE: [i32; 2] = [321, 240], index "against a rook, against a knight", at_least 0;
    }

    /// Endgame scale in percent for the side with more material (100 is full, lower draws the score toward zero).
    group ScaleV {
        /// Base of the pawn-structure scale.
        SCALE_LOW_SPREAD_BASE: i32 = 26, nonlinear;
        /// Pawn-structure scale per file between the stronger side's outermost pawns.
        SCALE_PAWN_SPREAD: i32 = 4, nonlinear;
        /// Pawn-structure scale when the stronger side has pawns on both wings.
        SCALE_PAWN_BOTH_SIDES: i32 = 6, step 2, nonlinear;
        /// Pawn-structure scale per pawn of the stronger side.
        SCALE_PAWN_COUNT: i32 = 9, nonlinear;
        /// Pawn-structure scale per square of king distance from the weaker king to the stronger side's most advanced pawn.
        SCALE_KING_DIST: i32 = 7, nonlinear;
        /// Pawn-structure scale when the stronger side has more piece material.
        SCALE_PIECE_MAT: i32 = 38, nonlinear;
        /// Scale when each side has one piece and the stronger side at most one pawn more.
        SCALE_1P_BASE: i32 = 86, nonlinear;
        /// One-piece scale per square of king distance from the weaker king to the stronger side's most advanced pawn.
        SCALE_1P_KING_DIST: i32 = 0, nonlinear;
        /// One-piece scale when the stronger side has two pieces against one.
        SCALE_1P_2P: i32 = 9, nonlinear;
        /// Scale with opposite-coloured bishops (one each, no knights) and every rook and queen on.
        OCB_BASE: i32 = 52, nonlinear;
        /// Opposite-bishop scale per pawn of difference.
        OCB_PAWNS: i32 = 12, nonlinear;
        /// Opposite-bishop scale per rook traded off (negative: fewer heavies, more drawish).
        OCB_ROOK: i32 = -6, nonlinear;
        /// Opposite-bishop scale per queen traded off (negative: fewer heavies, more drawish).
        OCB_QUEEN: i32 = -27, nonlinear;
        /// Scale when all the stronger side's pawns are on one rook file.
        SCALE_EDGE_BASE: i32 = 73, step 2, nonlinear;
        /// Rook-file scale when the stronger side has exactly one pawn.
        SCALE_EDGE_ONLY: i32 = -11, step 2, nonlinear;
        /// Rook-file scale when the rook-file pawn is passed.
        SCALE_EDGE_PASSED: i32 = 13, step 2, nonlinear;
        /// Rook-file scale by the stronger side's strongest piece.
        SCALE_EDGE_PIECE_TYPE: [i32; 4] = [26, -1, -22, -7], index "knight, bishop, rook, queen", nonlinear;
        /// Scale when each side has exactly one queen and no other piece.
        SCALE_QUEENS: i32 = 76, nonlinear;
    }

    /// Coordination of pieces and pawns.
    group CoordV {
        /// Knight or bishop with an own pawn directly in front of it.
        MINOR_BEHIND_PAWN: S = S(6, 3);
        /// Own pawn on files a-c or f-h whose square in front holds an own piece.
        PAWN_BLOCKED_BY_PIECE: S = S(-5, -11);
        /// Own d- or e-pawn whose square in front holds an own piece.
        PAWN_BLOCKED_BY_PIECE_CENTER: S = S(-7, -11);
        /// Per empty square on files c-f of ranks 2-4 behind an own pawn that no enemy pawn attacks.
        OUR_SIDE_SAFE_MOVE: S = S(17, 0);
    }

    /// Pawn structure.
    group PawnV {
        /// Every pawn: an adjustment of the pawn's value.
        PAWN_BASE_OFFSET: S = S(-13, 10);
        /// Pawn defended by own pawns.
        PAWN_SUPPORTED: [S; 2] = [S(1, 3), S(14, 10)], index "one defender, two";
        /// Backward pawn: no own pawn beside or behind on adjacent files, and an enemy pawn guards its front square.
        PAWN_BACKWARD: [S; 4] = [S(2, -3), S(-1, -5), S(-3, -6), S(-4, -6)], index "file a/h, b/g, c/f, d/e";
        /// Pawn with no own pawn on an adjacent file.
        PAWN_ISOLATED: [S; 4] = [S(-4, -8), S(-1, -10), S(-4, -9), S(-5, -7)], index "file a/h, b/g, c/f, d/e";
        /// Pawn neither defended by nor beside an own pawn, with no enemy pawn ahead on its file.
        PAWN_UNCONNECTED_OPEN_FILE: S = S(-10, 1);
        /// Pawn neither defended by nor beside an own pawn, with an enemy pawn ahead on its file.
        PAWN_UNCONNECTED_CLOSED_FILE: S = S(-9, -1);
        /// Backward or isolated pawn with no enemy pawn ahead on its file.
        PAWN_WEAK_OPEN_FILE: S = S(-6, -11);
        /// Pawn with an own pawn ahead of it on its file.
        PAWN_DOUBLED: S = S(-4, -14);
        /// Connected pawn (defended by or beside an own pawn), by rank.
        PAWN_CONNECTED_RANK: [S; 6] = [S(-5, -1), S(2, 3), S(2, 1), S(4, 3), S(17, 22), S(60, 45)], index "rank 2 to rank 7", rising;
        /// Connected pawn, by file.
        PAWN_CONNECTED_FILE: [S; 4] = [S(-1, -2), S(-1, 2), S(2, 5), S(0, 5)], index "file a/h, b/g, c/f, d/e";
        /// Connected pawn with no enemy pawn ahead on its file, by rank.
        PAWN_CONNECTED_OPEN_RANK: [S; 4] = [S(3, 7), S(12, 19), S(41, 25), S(6, 7)], index "rank 4 or lower, 5, 6, 7";
        /// Pawn whose square in front is attacked by two enemy pawns.
        PAWN_PUSH_DOUBLE_COVERED: S = S(-9, -8);
    }

    /// Passed pawns (no enemy pawn ahead on its own or an adjacent file) and candidates.
    group PassedV {
        /// Passed pawn, by rank.
        PP_PASSED_RANK: [S; 6] = [S(-3, 8), S(2, 10), S(0, 19), S(18, 37), S(46, 75), S(96, 141)], index "rank 2 to rank 7", rising;
        /// Passed pawn, by file.
        PP_PASSED_FILE: [S; 4] = [S(1, 1), S(-1, 1), S(-10, -7), S(-11, -11)], index "file a/h, b/g, c/f, d/e";
        /// Own king distance to the square in front of the passer; the sum with PP_O_KING_DIST is weighted by PP_PROMO_DIST / 128.
        PP_KING_DIST: [S; 8] = [S(47, 151), S(79, 119), S(61, 79), S(32, 41), S(10, 13), S(5, 0), S(-5, -7), S(-9, -6)], index "distance 0 to 7", nonlinear;
        /// Enemy king distance to the square in front of the passer (see PP_KING_DIST).
        PP_O_KING_DIST: [S; 8] = [S(-73, -87), S(-51, -70), S(-9, -55), S(-1, -4), S(8, 33), S(19, 48), S(29, 59), S(44, 56)], index "distance 0 to 7", nonlinear;
        /// Weight in 128ths of the king-distance sum, by the passer's distance to promotion.
        PP_PROMO_DIST: [S; 6] = [S(145, 112), S(99, 92), S(47, 54), S(10, 27), S(2, 8), S(5, 2)], index "1 to 6 squares to promotion", nonlinear;
        /// We attack the square in front of the passer, by distance to promotion.
        PP_COVERED_ADVANCE: [S; 4] = [S(21, 75), S(30, 42), S(12, 22), S(10, 10)], index "1 to 4 squares to promotion";
        /// We attack every square on the passer's way to promotion, by distance to promotion.
        PP_COVERED_ADVANCE_PATH: [S; 4] = [S(60, 104), S(21, 62), S(15, 36), S(14, 15)], index "1 to 4 squares to promotion";
        /// The square in front of the passer is empty and not attacked by the opponent, by distance to promotion.
        PP_FREE_PUSH: [S; 4] = [S(186, 153), S(14, 51), S(2, 19), S(3, 3)], index "1 to 4 squares to promotion";
        /// Every square on the passer's way is empty and not attacked by the opponent, by distance to promotion.
        PP_FREE_ADVANCE_PATH: [S; 4] = [S(122, 298), S(29, 142), S(0, 50), S(-4, 24)], index "1 to 4 squares to promotion";
        /// Passer with an own passer on an adjacent file at most one rank away, by distance to promotion.
        PP_CONNECTED: [S; 4] = [S(42, 31), S(-7, 15), S(1, 5), S(3, 2)], index "1 to 4 squares to promotion";
        /// Passer on rank 7 or 6 that cannot safely advance and is attacked but not defended.
        PP_HANGING: [S; 2] = [S(-21, -48), S(-26, -12)], index "rank 7, rank 6";
        /// Percentage applied to all passed-pawn terms when the opponent's only pieces are rooks.
        PP_V_ROOK_MULT: S = S(100, 121), step 3, nonlinear;
        /// Percentage of the passed-pawn rank and file terms a candidate gets when its nearest sentry is at most two ranks ahead.
        PP_CANDIDATE_NEAR_MULT: S = S(110, 70), step 5, nonlinear;
        /// Percentage of the passed-pawn rank and file terms a candidate gets when its sentries are further ahead.
        PP_CANDIDATE_FAR_MULT: S = S(-15, 38), step 3, nonlinear;
    }

    /// Candidates (Tsvetkov): backwardness varieties by enemy pawns holding the stop square.
    candidates BackwardV with PawnV {
        /// Pawn whose stop square one enemy pawn attacks, no own pawn covers and no own pawn behind on a neighbouring file can come to cover (wpa5 vs bpa6, bpb7: b7).
        PAWN_BACKWARD_FULL: [S; 4] = [S(-25, -50), S(-12, -25), S(-6, -12), S(-3, -6)], index "pawn on rank 2, 3, 4, 5";
        /// Pawn whose stop square one enemy pawn attacks and an own pawn level with it covers (wpa5 vs bpa6, bpb7, bpc7: b7).
        PAWN_SEMI_BACKWARD: [S; 2] = [S(-15, -30), S(-8, -15)], index "pawn on rank 2, 3";
        /// Pawn whose stop square two enemy pawns attack, with no own pawn covering it or able to come up (wpa5, wpc5 vs bpa6, bpc6, bpb7: b7).
        PAWN_BACKWARD_FATED: [S; 4] = [S(-35, -70), S(-23, -47), S(-16, -31), S(-10, -21)], index "pawn on rank 2, 3, 4, 5";
        /// Pawn whose stop square two enemy pawns attack while an own pawn covers it (wpa5, wpc5 vs bpa6, bpb7, bpc7: b7).
        PAWN_SEMI_BACKWARD_FATED: [S; 4] = [S(-25, -50), S(-14, -29), S(-7, -15), S(-5, -9)], index "pawn on rank 2, 3, 4, 5";
        /// Pawn whose stop square one enemy pawn attacks and no own pawn covers yet, but an own pawn behind on a neighbouring file can still come up (wpd4 vs bpd5, bpc6, bpb7: c6).
        PAWN_POTENTIALLY_BACKWARD: [S; 4] = [S(-10, -20), S(-5, -10), S(-2, -3), S(-1, -2)], index "pawn on rank 2, 3, 4, 5";
        /// Pawn whose first square held by an enemy pawn lies 2 to 4 squares ahead on a free path, with no own pawn covering it or able to come up (wpe4 vs bpe5, bpd7: d7).
        PAWN_BACKWARD_DISTANT: [S; 3] = [S(-12, -25), S(-6, -12), S(-3, -6)], index "held square 2, 3, 4 squares ahead";
        /// Pressure on the stop square of an enemy fully backward pawn: each own piece attacking it, and an own piece standing on it.
        STOP_SQUARE_PRESSURE: [S; 2] = [S(5, 5), S(1, 1)], index "per attacking piece, piece on the square";
    }

    /// Candidates (Tsvetkov): isolated and doubled pawn variants.
    candidates IsolationV with PawnV {
        /// Pawn with own pawns on a neighbouring file but none on the eight squares around it (a group of one, a2 with b4).
        PAWN_DETACHED: S = S(-10, -20);
        /// Per whole file (isolated pawn) or rank (detached pawn) between the pawn and the nearest own pawn.
        PAWN_ISOLATION_GAP: S = S(-2, -4);
        /// Isolated pawn with an enemy pawn on its stop square.
        PAWN_ISOLATED_FIXED: [S; 2] = [S(-5, -10), S(-2, -3)], index "pawn on rank 2, on rank 3 or beyond";
        /// File holding several own pawns, counted once per file by how many.
        PAWN_DOUBLED_FILE: [S; 3] = [S(-20, -40), S(-60, -120), S(-150, -300)], index "2, 3, 4 or more pawns on the file";
        /// Doubled file whose front pawn an enemy pawn rams: the immobilised pair, the relief of an own pawn further back on a neighbouring file, and the ramming side's bonus.
        PAWN_DOUBLED_FIXED: [S; 3] = [S(-20, -40), S(10, 10), S(8, 8)], index "immobilised pair, relief, rammer";
    }

    /// Candidates (Tsvetkov): pawn groups, file placement, and chains with their lead and root pawns.
    candidates ChainV with PawnV {
        /// Pawn groups (8-connected own pawns): each member of a group of two or more, each group, each rank a group spans.
        PAWN_GROUP: [S; 3] = [S(3, 3), S(-3, -3), S(-1, -1)], index "per member of a group of 2 or more, per group, per rank spanned";
        /// Lone pawn one square from touching another own pawn.
        PAWN_NEAR_GROUP: [S; 2] = [S(-1, -1), S(-6, -6)], index "its own push makes contact, it cannot make it";
        /// Every pawn by its file, more toward the centre.
        PAWN_FILE_CENTRALITY: [S; 4] = [S(0, 0), S(7, 7), S(14, 14), S(21, 21)], index "file a/h, b/g, c/f, d/e";
        /// Front pawn of a chain along one diagonal, each member defended by the one behind (a2, b3, c4: c4), by the chain's length.
        LEAD_PAWN: [S; 4] = [S(3, 3), S(6, 6), S(9, 9), S(12, 12)], index "chain of 2, 3, 4, 5 or more pawns";
        /// Front pawn of a chain by its rank.
        LEAD_PAWN_RANK: [S; 4] = [S(2, 2), S(4, 4), S(6, 6), S(8, 8)], index "lead on rank 3, 4, 5, 6";
        /// Rear pawn of a chain along one diagonal, by its rank.
        ROOT_PAWN: [S; 5] = [S(0, 0), S(-5, -5), S(-7, -7), S(-9, -9), S(-11, -11)], index "root on rank 2, 3, 4, 5, 6";
        /// Chain of three or more pawns reaching from the own half into the enemy half (bpe6, bpd5, bpc4), and its lead rammed by an enemy pawn.
        CHAIN_ACROSS_CENTER: [S; 2] = [S(20, 20), S(7, 7)], index "chain across the centre, its lead rammed";
        /// Chain whose diagonal leads on to an enemy bishop (wpb2, wpc3 vs bbf6).
        CHAIN_VS_ENEMY_BISHOP: S = S(7, 7);
        /// Own pawn attacking (lever) or standing in front of (ram) a lead or middle pawn of an enemy chain.
        PAWN_VS_CHAIN: [S; 4] = [S(5, 5), S(3, 3), S(2, 2), S(1, 1)], index "lever on a lead, ram on a lead, lever on a middle pawn, ram on a middle pawn";
    }

    /// Candidates (Tsvetkov): unopposed pawns, prospective passers and semi-passers.
    candidates UnopposedV with PassedV, PawnV {
        /// Pawn with no enemy pawn on its path, not passed, whose helpers (own pawns on neighbouring files not ahead of it) are outnumbered by enemy pawns ahead on those files.
        UNOPPOSED_PAWN: [S; 2] = [S(3, 3), S(6, 6)], index "pawn on rank 3, on rank 4 or beyond";
        /// Unopposed pawn that can step forward (stop square empty, not held by two enemy pawns), or defended by own pawns.
        UNOPPOSED_PAWN_SUPPORT: [S; 3] = [S(10, 10), S(5, 5), S(12, 12)], index "can step forward, defended by one own pawn, by two";
        /// Two own unopposed pawns by the files between them.
        UNOPPOSED_PAWN_PAIR_GAP: [S; 3] = [S(2, 2), S(2, 2), S(1, 1)], index "1, 2, 3 files between them";
        /// Pawn with no enemy pawn on its path, not passed, not outnumbered on the neighbouring files (a candidate passer), by rank: 20 / 35 plus half the passer rank bonus.
        PROSPECTIVE_PASSER: [S; 6] = [S(18, 39), S(21, 40), S(20, 45), S(29, 54), S(43, 73), S(68, 106)], index "rank 2 to rank 7";
        /// Pawn behind an own passer on its file that would be passed without it, by rank (half the passer rank bonus).
        SEMI_PASSER: [S; 6] = [S(-2, 4), S(1, 5), S(0, 10), S(9, 19), S(23, 38), S(48, 71)], index "rank 2 to rank 7";
    }

    /// Candidates (Tsvetkov): blockers of passers and weak pawns, connected passers.
    candidates BlockerV with PassedV {
        /// Own piece on the stop square of an enemy passed pawn, by the piece.
        PASSER_BLOCKER: [S; 5] = [S(0, 0), S(0, 0), S(5, 5), S(-20, -20), S(0, 10)], index "knight, bishop, rook, queen, king";
        /// Own piece on the stop square of the rear pawn of an enemy chain, a square enemy pawns can never attack (wpd4, wpe5 vs bpe6: d5).
        ROOT_PAWN_BLOCKER: [S; 4] = [S(25, 25), S(20, 20), S(15, 15), S(10, 10)], index "knight, bishop, rook, queen";
        /// Own king on the stop square of an enemy pawn with three or more fixed pairs on the board, or of an enemy passer with no pawn on the neighbouring files.
        KING_BLOCKER: [S; 2] = [S(15, 15), S(0, 10)], index "in a fixed structure, against a separate passer";
        /// Own piece (not the king) on the stop square of an enemy pawn that is not passed, by the kind of pawn.
        PIECE_BLOCKS_PAWN: [S; 5] = [S(0, 0), S(2, 2), S(1, 1), S(8, 8), S(4, 4)], index "isolated, doubled and isolated, fully backward, lead of a chain, in our half (not by a rook)";
        /// Own passers on neighbouring files touching side by side or diagonally: each pair, a diagonal link, and each such passer on the d/e or c/f files.
        PP_CONNECTED_EXTRA: [S; 4] = [S(50, 50), S(10, 10), S(30, 0), S(20, 0)], index "pair, diagonal link, passer on d/e, passer on c/f";
        /// Two or more own passers none of which are connected, against exactly one enemy passer.
        PP_SEPARATE_MAJORITY: S = S(10, 10);
        /// Passers on the enemy king's wing files: two connected ones, or one with an own unopposed pawn beside it.
        PP_DUO_VS_KING: [S; 2] = [S(100, 100), S(50, 50)], index "two connected passers, passer beside an unopposed pawn";
    }

    /// Candidates (Tsvetkov): king shelter pawns, pawns and pieces against the enemy king, confined kings.
    candidates ShelterV with KingV {
        /// Own pawns in the own king's shelter: in the immediate zone (neighbours level or in front), two steps along a line, a knight jump away (level or in front); all three pawns in front of a back-rank king unmoved; each shelter pawn ramming an enemy pawn.
        KING_SHELTER_PAWN: [S; 5] = [S(50, 0), S(25, 0), S(17, 0), S(5, 0), S(2, 0)], index "immediate zone, two steps on a line, knight jump, three unmoved in front, per ramming shelter pawn";
        /// Own pawn by its king distance to the enemy king.
        PAWN_NEAR_ENEMY_KING: [S; 4] = [S(20, 20), S(15, 15), S(10, 10), S(5, 5)], index "distance 1, 2, 3, 4";
        /// Unopposed pawn or prospective passer on rank 5 or beyond on the enemy king's file or a neighbouring one.
        UNOPPOSED_PAWN_KING_ATTACK: [S; 2] = [S(15, 15), S(20, 20)], index "unopposed pawn, prospective passer";
        /// Three or more own pawns in one group on rank 4 or beyond on the enemy king's file and its neighbours.
        PAWN_STORM_GROUP: S = S(10, 10);
        /// Own bishop, rook or queen on a line through the enemy king that attacks its immediate zone, by the squares between it and the king.
        SLIDER_KING_PROXIMITY: [S; 3] = [S(15, 15), S(10, 10), S(5, 5)], index "0 or 1 squares between, 2, 3";
        /// Own piece on the stop square of a pawn in the enemy king's immediate zone.
        SHELTER_PAWN_BLOCKED: [S; 2] = [S(20, 20), S(10, 10)], index "rook, other piece";
        /// Own king with no free square (own units or enemy control); own back-rank king cut from its second rank while the enemy has a rook or queen; every square behind the enemy king controlled by us.
        KING_CONFINED: [S; 3] = [S(-50, -50), S(-10, -10), S(75, 75)], index "no free square, no second-rank square, enemy king cut from behind";
        /// Own pieces around an own king with no own pawn in its immediate zone: a minor or rook next to the king, or attacking a square next to it.
        KING_ZONE_DEFENDER: [S; 4] = [S(15, 15), S(10, 10), S(5, 5), S(3, 3)], index "minor adjacent, rook adjacent, minor covers, rook covers";
        /// Every square of the rank in front of the enemy king (toward us) attacked by our pawns or minors; else every square one rank further.
        CONTINUOUS_ATTACK_LINE: [S; 2] = [S(20, 20), S(10, 10)], index "adjacent line, one rank further";
    }

    /// Candidates (Tsvetkov): space pawns, both wings, central pawns splitting the wings, weak spots.
    candidates FixedV with PawnV {
        /// Own pawn on rank 5: defended by an own pawn, or defendable by one own push; each own piece defending it; the enemy's bonus for ramming it.
        SPACE_PAWN: [S; 4] = [S(5, 5), S(3, 3), S(1, 1), S(2, 2)], index "pawn-defended, defendable by a push, per defending piece, rammer";
        /// Own pawns on rank 5 or beyond on both wings (files a-d and e-h); own weak pawns (isolated, doubled or fully backward) on both wings.
        BOTH_WINGS: [S; 2] = [S(20, 20), S(-10, -10)], index "space on both wings, weaknesses on both wings";
        /// Own d- or e-pawn on rank 5 or 6 rammed by an enemy pawn (wpd5 vs bpd6); own passer on the d- or e-file on rank 6 or 7.
        SEPARATING_CENTRAL_PAWN: [S; 2] = [S(20, 20), S(20, 20)], index "rammed central pawn, central passer";
        /// Squares of the own third rank no own pawn attacks (weak spots), outside and inside the own king's shelter; unguarded squares of the own fourth rank, elsewhere and in front of the shelter.
        WEAK_SPOT: [S; 4] = [S(-10, -10), S(-20, -20), S(-2, -2), S(-4, -4)], index "rank 3, rank 3 in the shelter, rank 4, rank 4 in front of the shelter";
        /// Own pieces attacking own weak spots (rank 3) and unguarded rank-4 squares; enemy pieces standing on them (scored for the enemy).
        WEAK_SPOT_CONTROL: [S; 4] = [S(5, 5), S(2, 2), S(5, 5), S(2, 2)], index "own piece covers a rank-3 spot, a rank-4 square, enemy piece on a rank-3 spot, on a rank-4 square";
    }

    /// Candidates (Tsvetkov): piece placement, mobility shape and material grading.
    candidates PlacementV with KnightV, BishopV, RookV, QueenV {
        /// Every knight, bishop, rook and queen by its rank.
        PIECE_RANK: [S; 8] = [S(-2, -2), S(2, 2), S(3, 3), S(5, 5), S(6, 6), S(8, 8), S(6, 6), S(3, 3)], index "rank 1 to rank 8";
        /// Every knight, bishop, rook and queen by its centre ring.
        PIECE_CENTER_RING: [S; 4] = [S(10, 10), S(8, 8), S(5, 5), S(3, 3)], index "d4-e5 centre, c3-f6 ring, b2-g7 ring, edge";
        /// Each mobility square (not own-occupied, not attacked by enemy pawns) of a piece that lies in the enemy half.
        MOBILITY_ENEMY_CAMP: S = S(5, 5);
        /// Each direction in which a piece has a move: lines for sliders, forward, back, left or right (the long leg) for a knight.
        MOBILITY_DIRECTIONS: S = S(3, 3);
        /// Exactly one own knight, bishop, rook or queen in the enemy half.
        SINGLE_PIECE_IN_ENEMY_CAMP: S = S(-15, -15);
        /// Knight defended by one or by two own pawns.
        KNIGHT_PAWN_SUPPORT: [S; 2] = [S(5, 5), S(12, 12)], index "one pawn, two pawns";
        /// Each own piece of the kind, once per fixed pair of pawns (a white and a black pawn head to head) on the board.
        FIXED_PAIR_PIECE_AFFINITY: [S; 4] = [S(5, 5), S(3, 3), S(-5, -5), S(-7, -7)], index "knight, rook, queen, bishop";
        /// Own queen on the square colour the own bishops (all on one colour) do not cover.
        QUEEN_BISHOP_OPPOSITE_COLOR: S = S(2, 2);
        /// Own piece on the file or a diagonal of an own pawn, nearer the enemy camp than the pawn or further back.
        PIECE_AHEAD_OF_PAWN: [S; 4] = [S(2, 2), S(-1, -1), S(2, 2), S(-1, -1)], index "ahead on the file, behind on the file, ahead on a diagonal, behind on a diagonal";
        /// Each queen of a side with two queens, or with three or more.
        MULTIPLE_QUEENS: [S; 2] = [S(45, 45), S(90, 90)], index "two queens, three or more";
        /// Each queen, rook, bishop and knight by the pawns on the board (both sides).
        PIECE_VALUE_BY_PAWN_COUNT: [S; 16] = [S(-90, -90), S(-45, -45), S(180, 180), S(270, 270), S(-68, -68), S(-45, -45), S(45, 45), S(45, 45), S(0, 0), S(15, 15), S(45, 45), S(60, 60), S(30, 30), S(30, 30), S(-30, -30), S(-45, -45)], index "queen, rook, bishop, knight, each with 13-16, 9-12, 5-8, 0-4 pawns";
        /// Each pawn by the piece material on the board (N = B = 3, R = 4.5, Q = 9, both sides; 60 at the start).
        PAWN_VALUE_BY_PIECE_MATERIAL: [S; 4] = [S(0, 0), S(5, 5), S(10, 10), S(15, 15)], index "material above 45, 30-45, 15-30, 15 or less";
    }

    /// Candidates (Tsvetkov): rooks and heavy pieces on files and ranks, pins and x-rays.
    candidates LinesV with RookV, QueenV {
        /// Rook whose attacks reach both wings (files a-d and e-h).
        ROOK_BOTH_WINGS: S = S(15, 15);
        /// Both own rooks on the back rank with nothing between them; a rook whose only free squares are on the back rank; the own king between its two rooks on the back rank.
        ROOK_FIRST_RANK: [S; 3] = [S(7, 7), S(-2, -2), S(-30, -30)], index "rooks connected, back-rank moves only, king between the rooks";
        /// Rook on the seventh or eighth rank, and each empty seventh-rank square while a rook stands there.
        HEAVY_ON_7TH_8TH: [S; 3] = [S(30, 30), S(15, 15), S(5, 5)], index "rook on rank 7, on rank 8, per empty rank-7 square";
        /// Rook on the enemy king's file or a neighbouring one with no own pawn: with no pawn at all, or only enemy pawns.
        HEAVY_OPEN_FILE_VS_KING: [S; 2] = [S(50, 50), S(25, 25)], index "open file, semi-open file";
        /// Rook on a file with no pawns blocked further up by an enemy minor that an enemy pawn defends (wrb1 vs bbb4, bpa5).
        ROOK_FILE_NEUTRALISED: S = S(-2, -2);
        /// Own slider attacking an enemy unit no more valuable than itself with a more valuable enemy unit behind it, by the pinner.
        PIN: [S; 3] = [S(20, 20), S(15, 15), S(10, 10)], index "bishop, rook, queen";
        /// Own slider reaching an enemy unit through exactly one unit of either colour, by the target.
        XRAY_ATTACK: [S; 6] = [S(1, 1), S(2, 2), S(2, 2), S(2, 2), S(5, 5), S(9, 9)], index "pawn, knight, bishop, rook, queen, king";
    }

    /// Candidates (Tsvetkov): coordination of pieces.
    candidates HarmonyV with CoordV {
        /// Empty squares attacked by at least one, two, three own pieces (spread of control; the catalogue's 0.3, 0.2, 0.1 start at 0).
        COMPLEMENTARITY: [S; 3] = [S(0, 0), S(0, 0), S(0, 0)], index "first attacker, second, third";
        /// Squares attacked both by an own pawn and by an own piece, by the piece.
        PAWN_PIECE_COVER_OVERLAP: [S; 3] = [S(1, 1), S(1, 1), S(2, 2)], index "knight or bishop, rook, queen";
        /// Squares attacked by own pieces from both wings (files a-d and e-h).
        WING_COMMUNICATION: S = S(1, 1);
        /// Each own piece in a chain of three or more own pieces each defending the next.
        SERIAL_DEFENCE: S = S(2, 2);
        /// Own rooks side by side; own king and queen next to each other; pairs of own sliders, or a slider and the king, an enemy knight could fork from one free square.
        PIECE_PLACEMENT_CLASH: [S; 4] = [S(-1, -1), S(-2, 0), S(-2, -2), S(-4, -4)], index "rooks side by side, king next to queen, fork pair, fork pair with the king";
        /// Four own pieces on the corners of a 4x4 block of squares (c3, f3, c6, f6).
        MAGIC_SQUARE: S = S(20, 20);
    }
}
