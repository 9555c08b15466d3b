//! Alpha-beta search: iterative deepening with aspiration windows, principal variation
//! search, a transposition table, check extension, null-move pruning, late move reductions,
//! killer and history ordering, mate scores, repetition and fifty-move draws; and the
//! quiescence search that returns its principal variation.

use crate::limits::{Deadlines, Limits};
use crate::tt::{Bound, PackedMove, Table};
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, Color, EnPassantMode, Move, MoveList, Position, Role};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;
use texel_eval::{evaluate, Params};

/// A mate score: `MATE - plies` for the side that mates.
pub const MATE: i32 = 30_000;
/// Larger than any score.
const INFINITY: i32 = 32_000;
/// Scores beyond this are mates.
const MATE_BOUND: i32 = MATE - 1_000;
/// The deepest ply the search reaches (quiescence included).
const MAX_PLY: usize = 128;

/// The deepest iteration a search runs (a deeper `go depth` or `go mate` searches to it).
pub(crate) const DEEPEST: u32 = MAX_PLY as u32 - 8;

/// The result of a search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// The best move (`None` when the side to move has no legal move).
    pub best: Option<Move>,
    /// Score from the side to move's view, centipawns or mate ([`MATE`] − plies).
    pub score: i32,
    /// Last completed depth.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Principal variation.
    pub pv: Vec<Move>,
}

/// Where a search's iterations are reported, and when it began.
struct Reporting<'a> {
    start: Instant,
    report: &'a mut dyn FnMut(&Iteration),
}

/// What the searcher reports after each completed iteration of each line.
#[derive(Clone, Debug)]
pub struct Iteration {
    /// Depth completed.
    pub depth: u32,
    /// The deepest ply reached so far, quiescence included.
    pub seldepth: u32,
    /// The line (1 the best; more with [`Limits::multipv`]).
    pub multipv: usize,
    /// Score from the side to move's view.
    pub score: i32,
    /// Nodes so far.
    pub nodes: u64,
    /// Time since the search began.
    pub elapsed: std::time::Duration,
    /// Principal variation.
    pub pv: Vec<Move>,
}

/// Where a node sits in the tree: the depth left, the window and the distance from the root.
#[derive(Copy, Clone, Debug)]
struct Node {
    depth: i32,
    alpha: i32,
    beta: i32,
    ply: usize,
}

impl Node {
    /// A node of the principal variation (an open window).
    fn is_pv(self) -> bool {
        self.beta - self.alpha > 1
    }
}

/// A single-threaded searcher. It keeps its transposition table between searches.
pub struct Searcher {
    params: Arc<Params>,
    tt: Table,
    history: Box<[[[i32; 64]; 64]; 2]>,
    killers: [[Option<Move>; 2]; MAX_PLY],
    /// Position hashes of the game and the current search path, for repetitions.
    path: Vec<u64>,
    nodes: u64,
    stop: Arc<AtomicBool>,
    node_limit: u64,
    hard_deadline: Option<Instant>,
    stopped: bool,
    /// The root moves this iteration may search (`go searchmoves`, or the lines of MultiPV
    /// after the first), when not every legal move.
    root_moves: Option<Vec<Move>>,
    /// The deepest ply reached in this search.
    seldepth: usize,
}

/// Ordering value of a piece as a victim or attacker.
fn piece_value(role: Role) -> i32 {
    [0, 100, 320, 330, 500, 900, 2000][role as usize]
}

/// The position's Zobrist key.
pub fn key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// The principal variation `m` followed by the child's.
fn extend_pv(pv: &mut Vec<Move>, m: Move, child: &[Move]) {
    pv.clear();
    pv.push(m);
    pv.extend_from_slice(child);
}

/// Mate scores in the table count from the node, not from the root.
fn to_table(score: i32, ply: usize) -> i32 {
    match score {
        s if s > MATE_BOUND => s + ply as i32,
        s if s < -MATE_BOUND => s - ply as i32,
        s => s,
    }
}

fn from_table(score: i32, ply: usize) -> i32 {
    match score {
        s if s > MATE_BOUND => s - ply as i32,
        s if s < -MATE_BOUND => s + ply as i32,
        s => s,
    }
}

impl Searcher {
    /// A searcher using `params`, with a transposition table of `hash_mb` megabytes.
    pub fn new(params: Arc<Params>, hash_mb: usize) -> Searcher {
        Searcher {
            params,
            tt: Table::new(hash_mb),
            history: Box::new([[[0; 64]; 64]; 2]),
            killers: [[None; 2]; MAX_PLY],
            path: Vec::with_capacity(512),
            nodes: 0,
            stop: Arc::new(AtomicBool::new(false)),
            node_limit: u64::MAX,
            hard_deadline: None,
            stopped: false,
            root_moves: None,
            seldepth: 0,
        }
    }

    /// The flag that stops a running search from another thread.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Replaces the parameters.
    pub fn set_params(&mut self, params: Arc<Params>) {
        self.params = params;
    }

    /// Resizes (and clears) the transposition table.
    pub fn set_hash(&mut self, mb: usize) {
        self.tt = Table::new(mb);
    }

    /// Forgets everything learnt: table, history, killers (a new game).
    pub fn clear(&mut self) {
        self.tt.clear();
        self.history
            .iter_mut()
            .flatten()
            .for_each(|row| row.fill(0));
        self.killers = [[None; 2]; MAX_PLY];
    }

    /// The static evaluation from the side to move's point of view.
    pub fn evaluate(&self, pos: &Chess) -> i32 {
        let e = evaluate(pos, &self.params);
        if pos.turn() == Color::White {
            e
        } else {
            -e
        }
    }

    fn check_stop(&mut self) -> bool {
        if self.nodes >= self.node_limit || self.stop.load(Ordering::Relaxed) {
            self.stopped = true;
        } else if self.nodes.is_multiple_of(1024) {
            if let Some(d) = self.hard_deadline {
                self.stopped |= Instant::now() >= d;
            }
        }
        self.stopped
    }

    /// Searches `pos` within `limits`. `history` holds the keys of the game's earlier
    /// positions (for repetitions); `report` is told after each completed iteration. A set
    /// stop flag ([`Searcher::stop_flag`]) ends the search at once: clear it before.
    pub fn search(
        &mut self,
        pos: &Chess,
        history: &[u64],
        limits: &Limits,
        report: &mut dyn FnMut(&Iteration),
    ) -> SearchResult {
        let start = Instant::now();
        let Deadlines { soft, hard } = limits.deadlines(start);
        self.hard_deadline = hard;
        self.node_limit = limits.nodes.unwrap_or(u64::MAX);
        self.nodes = 0;
        self.stopped = false;
        self.path.clear();
        self.path.extend_from_slice(history);
        self.seldepth = 0;
        let mut legal = pos.legal_moves();
        if !limits.searchmoves.is_empty() {
            legal.retain(|m| limits.searchmoves.contains(m));
        }
        let mut result = SearchResult {
            best: legal.first().copied(),
            score: 0,
            depth: 0,
            nodes: 0,
            pv: legal.first().copied().into_iter().collect(),
        };
        if legal.is_empty() {
            result.score = if pos.is_check() { -MATE } else { 0 };
            return result;
        }
        let lines = limits.multipv.clamp(1, legal.len());
        let mut scores = vec![0; lines];
        let max_depth = limits.max_depth(DEEPEST);
        let every = limits.searchmoves.is_empty();
        let mut reporting = Reporting { start, report };
        for depth in 1..=max_depth {
            let found = self.lines(pos, &legal, depth, &mut scores, every, &mut reporting);
            if let Some((score, pv)) = found.filter(|(_, pv)| !pv.is_empty()) {
                result = SearchResult {
                    best: Some(pv[0]),
                    score,
                    depth,
                    nodes: self.nodes,
                    pv,
                };
            }
            let score = scores[0];
            if self.stopped
                || soft.is_some_and(|s| Instant::now() >= s)
                || (score.abs() > MATE_BOUND && depth > 4 && !limits.infinite)
                || limits.mate_found(score)
            {
                break;
            }
        }
        result.nodes = self.nodes;
        result
    }

    /// The iteration at `depth` of each of the `scores.len()` best lines (MultiPV): line
    /// `k` searches the `allowed` root moves but the first moves of lines `0..k`, from its
    /// last score. The completed lines are reported best first. Returns the best line's
    /// score and principal variation, or `None` when the search was stopped before one
    /// completed (after depth 1).
    fn lines(
        &mut self,
        pos: &Chess,
        allowed: &[Move],
        depth: u32,
        scores: &mut [i32],
        every: bool,
        reporting: &mut Reporting,
    ) -> Option<(i32, Vec<Move>)> {
        let mut found: Vec<(i32, Vec<Move>)> = Vec::new();
        let mut taken: Vec<Move> = Vec::new();
        for (k, score) in scores.iter_mut().enumerate() {
            let restricted = !every || k > 0;
            self.root_moves = restricted.then(|| {
                allowed
                    .iter()
                    .filter(|m| !taken.contains(m))
                    .copied()
                    .collect()
            });
            let mut pv = Vec::new();
            *score = self.aspiration(pos, depth, *score, &mut pv);
            // Stopped: a deeper iteration is never half-reported; depth 1 only with a move
            // (a search stopped before its first move has nothing to say).
            if self.stopped && (depth > 1 || pv.is_empty()) {
                break;
            }
            taken.extend(pv.first());
            found.push((*score, pv));
            if self.stopped {
                break;
            }
        }
        found.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
        for (k, (score, pv)) in found.iter().enumerate() {
            scores[k] = *score;
            (reporting.report)(&Iteration {
                depth,
                seldepth: self.seldepth as u32,
                multipv: k + 1,
                score: *score,
                nodes: self.nodes,
                elapsed: reporting.start.elapsed(),
                pv: pv.clone(),
            });
        }
        found.into_iter().next()
    }

    /// One iteration at `depth`: a window around the last `score` from depth 4 on, widened
    /// on each fail. Returns the score inside the window (the last `score` when stopped).
    fn aspiration(&mut self, pos: &Chess, depth: u32, score: i32, pv: &mut Vec<Move>) -> i32 {
        let mut delta = 25;
        let (mut alpha, mut beta) = if depth >= 4 {
            (score - delta, score + delta)
        } else {
            (-INFINITY, INFINITY)
        };
        loop {
            let root = Node {
                depth: depth as i32,
                alpha,
                beta,
                ply: 0,
            };
            let s = self.negamax(pos, root, pv, true);
            if self.stopped {
                return score;
            }
            if s <= alpha {
                alpha = (s - delta).max(-INFINITY);
            } else if s >= beta {
                beta = (s + delta).min(INFINITY);
            } else {
                return s;
            }
            delta *= 2;
        }
    }

    /// Whether the position repeats one since the last irreversible move (looking back as
    /// far as the fifty-move counter allows).
    fn repeated(&self, key: u64, halfmoves: u32) -> bool {
        let back = (halfmoves as usize).min(self.path.len());
        self.path[self.path.len() - back..]
            .iter()
            .rev()
            .skip(1)
            .step_by(2)
            .any(|&k| k == key)
    }

    /// Alpha-beta with principal variation search at `node`; `pv` receives the line.
    /// `allow_null` is false right after a null move.
    fn negamax(
        &mut self,
        pos: &Chess,
        mut node: Node,
        pv: &mut Vec<Move>,
        allow_null: bool,
    ) -> i32 {
        pv.clear();
        let in_check = pos.is_check();
        if in_check {
            node.depth += 1;
        }
        if node.depth <= 0 || node.ply >= MAX_PLY - 16 {
            return self.quiesce(pos, node.alpha, node.beta, node.ply, pv);
        }
        self.nodes += 1;
        if self.check_stop() {
            return 0;
        }
        let key = key(pos);
        if node.ply > 0
            && (pos.halfmoves() >= 100
                || pos.is_insufficient_material()
                || self.repeated(key, pos.halfmoves()))
        {
            return 0;
        }
        let hash_move = match self.probe_table(key, node) {
            Ok(m) => m,
            Err(cut) => return cut,
        };
        if !in_check && allow_null {
            if let Some(score) = self.null_move(pos, key, node) {
                return score;
            }
        }
        let mut moves = pos.legal_moves();
        if moves.is_empty() {
            return if in_check { -MATE + node.ply as i32 } else { 0 };
        }
        let restricted = node.ply == 0 && self.root_moves.is_some();
        if let (true, Some(root)) = (restricted, &self.root_moves) {
            moves.retain(|m| root.contains(m));
        }
        self.order(pos, &mut moves, hash_move, node.ply);
        self.path.push(key);
        let best = self.search_moves(pos, &moves, node, in_check, pv);
        self.path.pop();
        let Some((best_score, best_move, alpha)) = best else {
            return 0;
        };
        let bound = if best_score >= node.beta {
            Bound::Lower
        } else if alpha > node.alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if restricted {
            // The score of some root moves only is not the position's.
            return best_score;
        }
        let packed = best_move.map(|m| PackedMove::new(&m)).unwrap_or_default();
        self.tt.store(
            key,
            packed,
            to_table(best_score, node.ply),
            node.depth,
            bound,
        );
        best_score
    }

    /// The table's move for `key`, or `Err(score)` when its entry ends the search of a
    /// non-PV node.
    fn probe_table(&self, key: u64, node: Node) -> Result<PackedMove, i32> {
        let Some(e) = self.tt.probe(key) else {
            return Ok(PackedMove::default());
        };
        let s = from_table(e.score, node.ply);
        if !node.is_pv() && i32::from(e.depth) >= node.depth {
            let cut = match e.bound() {
                Bound::Exact => true,
                Bound::Lower => s >= node.beta,
                Bound::Upper => s <= node.alpha,
            };
            if cut {
                return Err(s);
            }
        }
        Ok(e.best)
    }

    /// Null-move pruning (not in check): when passing still fails high, the score to
    /// return (0 when the search was stopped meanwhile); `None` to search the moves.
    fn null_move(&mut self, pos: &Chess, key: u64, node: Node) -> Option<i32> {
        let board = pos.board();
        let has_pieces = (board.by_color(pos.turn()) & !board.pawns() & !board.kings()).any();
        if node.is_pv() || node.depth < 3 || !has_pieces || self.evaluate(pos) < node.beta {
            return None;
        }
        let null = pos.clone().swap_turn().ok()?;
        let r = 2 + node.depth / 4;
        self.path.push(key);
        let mut child_pv = Vec::new();
        let window = Node {
            depth: node.depth - 1 - r,
            alpha: -node.beta,
            beta: -node.beta + 1,
            ply: node.ply + 1,
        };
        let s = -self.negamax(&null, window, &mut child_pv, false);
        self.path.pop();
        if self.stopped {
            return Some(0);
        }
        (s >= node.beta).then_some(if s > MATE_BOUND { node.beta } else { s })
    }

    /// Searches the ordered `moves` of a node: (best score, best move, raised alpha), or
    /// `None` when the search was stopped.
    fn search_moves(
        &mut self,
        pos: &Chess,
        moves: &MoveList,
        node: Node,
        in_check: bool,
        pv: &mut Vec<Move>,
    ) -> Option<(i32, Option<Move>, i32)> {
        let mut alpha = node.alpha;
        let (mut best_score, mut best_move) = (-INFINITY, None);
        let mut child_pv = Vec::new();
        for (i, m) in moves.iter().enumerate() {
            let mut child = pos.clone();
            child.play_unchecked(*m);
            let quiet = !m.is_capture() && m.promotion().is_none();
            let at = Node { alpha, ..node };
            let score = if i == 0 {
                self.child_score(&child, at, node.depth - 1, node.beta, &mut child_pv)
            } else {
                let late = quiet && i >= 3 && !in_check && !child.is_check();
                let reduce = if late && node.depth >= 3 {
                    1 + i32::from(i >= 8) + node.depth / 8
                } else {
                    0
                };
                self.later_move_score(&child, at, reduce, &mut child_pv)
            };
            if self.stopped {
                return None;
            }
            if score > best_score {
                best_score = score;
                best_move = Some(*m);
                if score > alpha {
                    alpha = score;
                    extend_pv(pv, *m, &child_pv);
                }
            }
            if alpha >= node.beta {
                if quiet {
                    self.remember_cutoff(pos, *m, node);
                }
                break;
            }
        }
        Some((best_score, best_move, alpha))
    }

    /// A move after the first: a null window (reduced by `reduce` plies for late quiet
    /// moves), searched again at full depth and then with the full window as needed.
    fn later_move_score(
        &mut self,
        child: &Chess,
        node: Node,
        reduce: i32,
        pv: &mut Vec<Move>,
    ) -> i32 {
        let (depth, alpha) = (node.depth - 1, node.alpha);
        let mut score = self.child_score(child, node, depth - reduce, alpha + 1, pv);
        if score > alpha && reduce > 0 {
            score = self.child_score(child, node, depth, alpha + 1, pv);
        }
        if score > alpha && score < node.beta {
            score = self.child_score(child, node, depth, node.beta, pv);
        }
        score
    }

    /// A quiet move that caused a cutoff: a killer at this ply, and history by depth².
    fn remember_cutoff(&mut self, pos: &Chess, m: Move, node: Node) {
        let k = &mut self.killers[node.ply];
        if k[0] != Some(m) {
            k[1] = k[0];
            k[0] = Some(m);
        }
        if let Some(from) = m.from() {
            let h = &mut self.history[pos.turn() as usize][from as usize][m.to() as usize];
            *h += node.depth * node.depth;
            if *h > 1 << 20 {
                self.history
                    .iter_mut()
                    .flatten()
                    .flatten()
                    .for_each(|x| *x /= 2);
            }
        }
    }

    /// The score of `child` for the side to move at `node`, searched to `depth` in the
    /// window (`node.alpha`, `beta`) of that side.
    fn child_score(
        &mut self,
        child: &Chess,
        node: Node,
        depth: i32,
        beta: i32,
        pv: &mut Vec<Move>,
    ) -> i32 {
        let window = Node {
            depth,
            alpha: -beta,
            beta: -node.alpha,
            ply: node.ply + 1,
        };
        -self.negamax(child, window, pv, true)
    }

    /// Orders moves: table move, captures by most valuable victim and least valuable
    /// attacker, promotions, killers, then quiet moves by history.
    fn order(&self, pos: &Chess, moves: &mut MoveList, hash_move: PackedMove, ply: usize) {
        let turn = pos.turn() as usize;
        let killers = self.killers[ply.min(MAX_PLY - 1)];
        moves.sort_by_cached_key(|m| {
            let score = if hash_move.matches(m) {
                1 << 30
            } else if let Some(victim) = m.capture() {
                (1 << 28) + piece_value(victim) * 8 - piece_value(m.role()) / 100
            } else if m.promotion().is_some() {
                (1 << 27) + m.promotion().map_or(0, piece_value)
            } else if killers[0] == Some(*m) {
                1 << 26
            } else if killers[1] == Some(*m) {
                (1 << 26) - 1
            } else {
                m.from()
                    .map_or(0, |f| self.history[turn][f as usize][m.to() as usize])
            };
            std::cmp::Reverse(score)
        });
    }

    /// Quiescence search: stand pat, then captures and promotions (all evasions when in
    /// check), best victim first. `pv` receives the line to the quiet leaf.
    pub fn quiesce(
        &mut self,
        pos: &Chess,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        pv: &mut Vec<Move>,
    ) -> i32 {
        pv.clear();
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if self.check_stop() {
            return 0;
        }
        let in_check = pos.is_check();
        let mut moves = pos.legal_moves();
        if in_check && moves.is_empty() {
            return -MATE + ply as i32;
        }
        let mut best = -INFINITY;
        if !in_check {
            let stand_pat = self.evaluate(pos);
            if stand_pat >= beta || ply >= MAX_PLY - 1 {
                return stand_pat;
            }
            best = stand_pat;
            alpha = alpha.max(stand_pat);
            moves.retain(|m| m.is_capture() || m.promotion().is_some());
        }
        self.order(pos, &mut moves, PackedMove::default(), ply.min(MAX_PLY - 1));
        let mut child_pv = Vec::new();
        for m in &moves {
            let mut child = pos.clone();
            child.play_unchecked(*m);
            let score = -self.quiesce(&child, -beta, -alpha, ply + 1, &mut child_pv);
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    extend_pv(pv, *m, &child_pv);
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    /// Nodes searched by the last search.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }
}

/// Quiesces `pos` with `params`: the score (side to move's view) and the principal
/// variation that leads to the quiet leaf.
pub fn quiesce(pos: &Chess, params: Arc<Params>) -> (i32, Vec<Move>) {
    let mut s = Searcher::new(params, 0);
    let mut pv = Vec::new();
    let score = s.quiesce(pos, -INFINITY, INFINITY, 0, &mut pv);
    (score, pv)
}
