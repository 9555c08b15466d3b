//! The over-fitting guards of `texel tune`: values with too little support held at their
//! start, the L2 pull toward the start (fixed or chosen on the validation split), and the
//! table's declared constraints.

use crate::data_args::Loaded;
use anyhow::Result;
use std::str::FromStr;
use texel_tune::{best_pull, Guards, L2Search, Model, Variable, L2_GRID};

/// Values counting in fewer training positions than this are held by default.
pub const DEFAULT_MIN_SUPPORT: usize = 20;

/// The L2 pull used when none is given.
pub const DEFAULT_L2: f64 = 0.1;

/// Passes per trial of `--l2 auto`.
const AUTO_PASSES: usize = 4;

/// The strength of the pull toward the start.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum L2 {
    /// This λ.
    Fixed(f64),
    /// The λ of [`L2_GRID`] with the lowest validation error.
    Auto,
}

impl std::fmt::Display for L2 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            L2::Fixed(x) => write!(f, "{x}"),
            L2::Auto => f.write_str("auto"),
        }
    }
}

impl FromStr for L2 {
    type Err = String;

    fn from_str(s: &str) -> Result<L2, String> {
        if s.eq_ignore_ascii_case("auto") {
            return Ok(L2::Auto);
        }
        match s.parse::<f64>() {
            Ok(x) if x.is_finite() && x >= 0.0 => Ok(L2::Fixed(x)),
            _ => Err(format!("{s:?} is neither `auto` nor a number from 0 up")),
        }
    }
}

/// `vars` without the values that count in fewer than `min` training positions; says how
/// many were held.
pub fn hold_sparse<M: Model>(vars: Vec<Variable>, loaded: &Loaded<M>, min: usize) -> Vec<Variable> {
    if min == 0 {
        return vars;
    }
    let before = vars.len();
    let kept: Vec<Variable> = vars
        .into_iter()
        .filter(|v| loaded.train.support(&[v.slot]) >= min)
        .collect();
    let held = before - kept.len();
    if held > 0 {
        say!(
            "held {held} values at their start: they count in fewer than {min} training \
             positions (--min-support 0 tunes them)"
        );
    }
    kept
}

/// The guards of a fresh run with pull `l2` (the default when `None`): `--l2 auto` tunes
/// briefly with each pull of [`L2_GRID`] and takes the one with the lowest validation error.
pub fn choose<M: Model>(
    l2: L2,
    constraints: bool,
    loaded: &mut Loaded<M>,
    start: &M::Values,
    vars: &[Variable],
) -> Result<Guards> {
    let l2 = match l2 {
        L2::Fixed(l2) => l2,
        L2::Auto => {
            anyhow::ensure!(
                !loaded.validation.is_empty(),
                "--l2 auto picks the pull on the validation split: give --validate PERCENT"
            );
            let search = L2Search {
                start,
                k: loaded.k,
                vars,
                constraints,
                passes: AUTO_PASSES,
            };
            let trials = search.run(&mut loaded.train, &mut loaded.validation, &L2_GRID);
            for (l2, error) in &trials {
                say!("--l2 auto: pull {l2}: validation {error:.8}");
            }
            let best = best_pull(&trials);
            say!("--l2 auto chose {best}");
            best
        }
    };
    Ok(Guards { l2, constraints })
}

/// The names (by `name`) of the slots `vars` leaves out of `all` (the values held).
pub fn held_names(
    all: &[Variable],
    vars: &[Variable],
    name: &dyn Fn(usize) -> String,
) -> Vec<String> {
    all.iter()
        .filter(|v| !vars.contains(v))
        .map(|v| name(v.slot))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn l2_reads_auto_and_numbers() {
        assert_eq!("auto".parse::<L2>(), Ok(L2::Auto));
        assert_eq!("0.5".parse::<L2>(), Ok(L2::Fixed(0.5)));
        assert_eq!("0".parse::<L2>(), Ok(L2::Fixed(0.0)));
        assert!("-1".parse::<L2>().is_err());
        assert!("much".parse::<L2>().is_err());
    }
}
