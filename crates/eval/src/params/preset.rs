//! Parameter presets: the table's term sets on their own, derived from the defaults so they
//! never drift from the table, and the tuned table the engine plays (shipped as
//! `tuned.json`: terms it does not name keep their defaults).

use super::{Group, Handle, Params, TermId};
use crate::table::{
    OCB_BASE, PIECE_VALUE, SCALE_1P_BASE, SCALE_EDGE_BASE, SCALE_LOW_SPREAD_BASE, SCALE_QUEENS,
};

/// A named parameter set derived from the table's defaults.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Preset {
    /// The table's defaults: every term at its declared value.
    Defaults,
    /// The Slow Chess 2.3 table with the piece values: GNU positional terms and candidate
    /// families at 0.
    Slow23,
    /// The GNU Chess heuristics alone (piece values included): every Slow Chess term and
    /// candidate at 0, the endgame scale rules neutral (each rule's base at 100 %, its
    /// modifiers at 0) so that no position is scaled.
    Gnu87,
    /// Material alone: the piece values, every other value 0 and the endgame scale rules
    /// neutral — the start of a tuning from zero, as the Slow Chess write-up suggests.
    Material,
    /// The best table proven in games, which the engine plays unless told otherwise: the
    /// previous one (tuned on `data/train.epd`, +232.3 ± 25.6 Elo against the defaults,
    /// `reports/engine/tuned-vs-seed.txt`) re-tuned on `data/scored.epd`'s positions with
    /// Stockfish's scores as labels (`--lambda 0 --validate 0 --l2 100`): +31.9 ± 14.0 Elo
    /// against it over 2,000 games (`reports/stronger/`). Tuning starts from the defaults.
    Tuned,
}

/// The shipped tuned table.
const TUNED: &str = include_str!("tuned.json");

impl Preset {
    /// Every preset with its name.
    pub const ALL: [(&'static str, Preset); 5] = [
        ("defaults", Preset::Defaults),
        ("slow23", Preset::Slow23),
        ("gnu87", Preset::Gnu87),
        ("material", Preset::Material),
        ("tuned", Preset::Tuned),
    ];

    /// Every preset's name, comma-separated.
    pub fn names() -> String {
        Preset::ALL.map(|p| p.0).join(", ")
    }

    /// The preset called `name`.
    pub fn by_name(name: &str) -> Option<Preset> {
        Preset::ALL.iter().find(|p| p.0 == name).map(|p| p.1)
    }

    /// The preset's values.
    pub fn params(self) -> Params {
        let defaults = Params::default();
        let mut p = match self {
            Preset::Defaults => return defaults,
            Preset::Tuned => {
                return Params::from_json_str(TUNED).expect("the shipped tuned table loads")
            }
            _ => defaults.without_candidates(),
        };
        let keep = |t: TermId| match self {
            Preset::Slow23 => t.info().group != Group::GnuV || t == PIECE_VALUE.term(),
            Preset::Material => t == PIECE_VALUE.term(),
            _ => t.info().group == Group::GnuV,
        };
        for t in TermId::all().filter(|&t| !keep(t)) {
            p.zero_term(t);
        }
        if matches!(self, Preset::Gnu87 | Preset::Material) {
            for base in [
                SCALE_LOW_SPREAD_BASE,
                SCALE_1P_BASE,
                OCB_BASE,
                SCALE_EDGE_BASE,
                SCALE_QUEENS,
            ] {
                p.set(base, crate::score::FULL_SCALE);
            }
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::*;

    #[test]
    fn the_tuned_table_loads_and_is_not_the_defaults() {
        let tuned = Preset::Tuned.params();
        assert_ne!(tuned, Params::default());
        assert_eq!(Preset::by_name("tuned"), Some(Preset::Tuned));
    }

    #[test]
    fn material_keeps_the_piece_values_only() {
        let m = Preset::Material.params();
        assert_eq!(m.get(PIECE_VALUE), Params::default().get(PIECE_VALUE));
        assert_eq!(m.get(BISHOP_PAIR), crate::S::ZERO);
        assert_eq!(m.get(GNU_KNIGHT_CENTER), crate::S::ZERO);
        assert_eq!(m.get(OCB_BASE), 100);
        let start = crate::parse_fen("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1").unwrap();
        assert_eq!(
            crate::evaluate(&start, &m),
            100,
            "a pawn up is worth a pawn"
        );
    }

    #[test]
    fn presets_keep_their_term_set_only() {
        let slow = Preset::Slow23.params();
        assert_eq!(slow.get(BISHOP_PAIR), Params::default().get(BISHOP_PAIR));
        assert_eq!(slow.get(PIECE_VALUE), Params::default().get(PIECE_VALUE));
        assert_eq!(slow.get(GNU_KNIGHT_CENTER), crate::S::ZERO);
        assert!(!slow.group_active(Group::ShelterV));
        let gnu = Preset::Gnu87.params();
        assert_eq!(gnu.get(BISHOP_PAIR), crate::S::ZERO);
        assert_eq!(
            gnu.get(GNU_KNIGHT_CENTER),
            Params::default().get(GNU_KNIGHT_CENTER)
        );
        assert_eq!(gnu.get(OCB_BASE), 100);
        assert_eq!(gnu.get(OCB_PAWNS), 0);
        assert_eq!(Preset::by_name("gnu87"), Some(Preset::Gnu87));
        assert_eq!(Preset::Defaults.params(), Params::default());
    }

    #[test]
    fn the_neutral_scale_scales_nothing() {
        let gnu = Preset::Gnu87.params();
        // Opposite bishops two pawns up, a lone rook pawn ending: full scale under gnu87.
        for fen in [
            "4k3/p7/8/3b4/8/8/PPPB4/4K3 w - - 0 1",
            "8/B7/7p/8/6b1/8/3k3K/8 w - - 64 98",
        ] {
            let pos = crate::parse_fen(fen).unwrap();
            let trace = crate::trace(&pos, &gnu);
            let scale = trace.inputs.scale.value_with(&mut &gnu);
            assert_eq!(scale, crate::score::FULL_SCALE, "{fen}");
        }
    }
}
