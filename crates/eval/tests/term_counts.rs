//! Hand-checked counts of the linear terms (`counts.txt`) and scale factors, through an
//! accumulator that records how often each slot is added for each side.

use shakmaty::Color;
use std::collections::HashMap;
use texel_eval::formula::{EndgameScale, KingAttack};
use texel_eval::params::{IParam, SParam};
use texel_eval::{evaluate_with, parse_fen, Accumulator, Curve, Evaluator, Params, TermId, S};

/// Counts per (flat slot, side), forwarding everything to an [`Evaluator`] for the sum.
struct Counter<'a> {
    inner: Evaluator<'a>,
    counts: HashMap<(usize, bool), i32>,
    scale: i32,
}

impl Accumulator for Counter<'_> {
    fn params(&self) -> &Params {
        self.inner.params()
    }
    fn add(&mut self, color: Color, p: SParam, count: i32) {
        *self
            .counts
            .entry((p.flat_index(), color.is_white()))
            .or_default() += count;
        self.inner.add(color, p, count);
    }
    fn add_int(&mut self, color: Color, p: IParam, count: S) {
        *self
            .counts
            .entry((p.flat_index(), color.is_white()))
            .or_default() += count.0 + count.1;
        self.inner.add_int(color, p, count);
    }
    fn add_curve(&mut self, color: Color, curve: Curve, index: usize, count: i32) {
        self.inner.add_curve(color, curve, index, count);
    }
    fn king_attack(&mut self, color: Color, attack: &KingAttack) {
        self.inner.king_attack(color, attack);
    }
    fn finish(&mut self, phase: i32, scale: &EndgameScale) {
        self.scale = scale.value_with(&mut self.inner.params());
        self.inner.finish(phase, scale);
    }
}

fn counter<'a>(params: &'a Params, fen: &str) -> Counter<'a> {
    let pos = parse_fen(fen).unwrap_or_else(|e| panic!("{e}"));
    let mut c = Counter {
        inner: Evaluator::new(params),
        counts: HashMap::new(),
        scale: 0,
    };
    evaluate_with(&pos, &mut c);
    c
}

#[test]
fn linear_terms_count_what_their_docs_say() {
    let params = Params::default();
    let mut failures = Vec::new();
    for (n, line) in include_str!("counts.txt").lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let mut parts = line.splitn(4, ' ');
        let name = parts.next().unwrap();
        let white: i32 = parts.next().unwrap().parse().unwrap();
        let black: i32 = parts.next().unwrap().parse().unwrap();
        let fen = parts.next().unwrap();
        let (term, element) = match name.split_once('[') {
            Some((t, rest)) => (t, rest.trim_end_matches(']').parse::<usize>().unwrap()),
            None => (name, 0),
        };
        let info = TermId::by_name(term)
            .unwrap_or_else(|| panic!("unknown term {term}"))
            .info();
        assert!(info.linear, "line {}: {term} is not linear", n + 1);
        let slot = info.offset + element * info.shape.slots_per_element();
        let c = counter(&params, fen);
        let got = |w: bool| c.counts.get(&(slot, w)).copied().unwrap_or(0);
        if (got(true), got(false)) != (white, black) {
            failures.push(format!(
                "line {}: {name} expected {white} {black}, got {} {} in {fen}",
                n + 1,
                got(true),
                got(false)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn scale_rules_give_the_documented_percentages() {
    let params = Params::default();
    let scale = |fen: &str| counter(&params, fen).scale;
    // Opposite bishops, white two pawns up, every rook and queen on: OCB_BASE 52 + OCB_PAWNS 12 x 2.
    assert_eq!(scale("r2qk2r/p7/8/3b4/8/8/PPPB4/R2QK2R w - - 0 1"), 76);
    // Both queens traded: 76 + OCB_QUEEN -27 x 2 = 22; a pair of rooks more: 22 + OCB_ROOK -6 x 2.
    assert_eq!(scale("r3k2r/p7/8/3b4/8/8/PPPB4/R3K2R w - - 0 1"), 22);
    assert_eq!(scale("r3k3/p7/8/3b4/8/8/PPPB4/R3K3 w - - 0 1"), 10);
    // Each trade makes opposite bishops more drawish: the bare bishop ending is a draw.
    assert_eq!(scale("4k3/p7/8/3b4/8/8/PPPB4/4K3 w - - 0 1"), 0);
    // A lone minor piece ahead without pawns cannot win.
    assert_eq!(scale("4k3/8/8/8/8/8/8/3BK3 w - - 0 1"), 0);
    // One rook pawn with a knight: EDGE_BASE 73 + EDGE_ONLY -11 + EDGE_PASSED 13 + knight 26
    // = 101, while the pawn rule gives 26 + 9 x 1 + 7 x 7 (black king h8 to a2) + 38 = 122.
    assert_eq!(scale("7k/8/8/8/8/8/P7/3NK3 w - - 0 1"), 100);
    // Queens only, white a pawn up: SCALE_QUEENS 76 beats the 1-piece rule 86.
    assert_eq!(scale("3qk3/8/8/8/8/8/4P3/3QK3 w - - 0 1"), 76);
    // Full material: nothing scales.
    assert_eq!(
        scale("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"),
        100
    );
}
