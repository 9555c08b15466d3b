//! A whole solve in one call, for a caller who wants the values and not a run: Newton's
//! iterations until they hand over, then the integer polish until a round gains less than
//! a share of the error. `texel-tune`'s runs take the same steps one at a time, with logs,
//! checkpoints and a held-out check between them.

use crate::descent::{Descent, PassSummary};
use crate::model::Model;
use crate::newton::MAX_ITERATIONS;
use std::sync::atomic::AtomicBool;

impl<M: Model> Descent<'_, M> {
    /// Newton's iterations from where the descent stands until the phase hands over to the
    /// polish (at most [`MAX_ITERATIONS`]), the positions rescored after each: how many
    /// were taken.
    pub fn newton_solve(&mut self) -> u32 {
        self.newton_solve_until(|| false)
    }

    /// [`Descent::newton_solve`], ended early where `stop` says so before an iteration (a
    /// deadline).
    pub fn newton_solve_until(&mut self, stop: impl Fn() -> bool) -> u32 {
        self.newton_iterate(MAX_ITERATIONS, stop)
    }

    /// [`Descent::newton_solve_until`], at most `most` iterations: how many were taken.
    pub fn newton_iterate(&mut self, most: u32, stop: impl Fn() -> bool) -> u32 {
        let mut taken = 0;
        while taken < most && !self.newton_handed_over() && !stop() {
            self.newton_iteration();
            self.refresh();
            taken += 1;
        }
        taken
    }

    /// Minimises the error: [`Descent::newton_solve`], then rounds of the integer polish
    /// (the lattice rounds where [`crate::Probes::lattice_polish`], coordinate descent otherwise)
    /// until one lowers the error by less than `tolerance` of it (0: until one moves
    /// nothing). The last round's summary, its error the mean error at the values the
    /// descent ends at ([`Descent::params`]).
    pub fn minimise(&mut self, tolerance: f64) -> PassSummary {
        self.newton_solve();
        self.hand_over_to_polish();
        let never = AtomicBool::new(false);
        loop {
            let round = match self.dataset().lattice_polish() {
                true => self.polish_round(),
                false => (self.pass(&never, &mut |_| {})).expect("a pass nothing interrupts ends"),
            };
            self.refresh();
            if round.moves == 0 || round.fall < tolerance {
                return PassSummary {
                    error: self.error(),
                    ..round
                };
            }
        }
    }
}
