//! The one Gauss-Newton iteration, over any data that answers [`Passes`]: the positions in
//! memory (`Descent`) or read from a file chunk by chunk (`stream`). An iteration takes the
//! damped system at the current real values (fresh, or the factor of an earlier one for a
//! chord step), solves for the step, and searches along it for the largest of the step
//! lengths 1, ½, ¼, … that lowers the objective (summed error plus the L2 pull) by Armijo's
//! share of the fall the gradient predicts. The damping shrinks after a full step and grows
//! after a cut one; the phase ends when an iteration lowers the objective by less than
//! [`NEWTON_TOLERANCE`] of itself.

use crate::jacobian::{Factor, Hold, System};

/// The Newton phase ends after an iteration that lowers the objective by less than this
/// share of it (see `ends_phase`).
pub const NEWTON_TOLERANCE: f64 = 1e-4;

/// Where the evaluation composes inner sums (a clamped square, a weighed sum), the phase
/// ends at this smaller share: Gauss-Newton converges there linearly, each iteration
/// falling by a share of what is left, and the polish gains far less a second. Measured on
/// Stash's problem of `reports/nonlinear/` (a default tune):
/// Newton's end at 10⁻⁴ (4 iterations) 0.10632244 and the polished end 0.10631783; at 10⁻⁵
/// (6) 0.10631872 and 0.10631454; at 10⁻⁶ (7) 0.10631689 and 0.10631299. The race trace
/// (linear) gains nothing from more iterations: its rounding is 40 times the last falls.
pub const COMPOSED_NEWTON_TOLERANCE: f64 = 1e-6;

/// What an evaluation does with its tuned values that changes when Newton's phase ends.
#[derive(Clone, Copy, Debug, Default)]
pub struct Shape {
    /// It multiplies tuned values together (a weight that is tuned and the sums it weighs).
    pub multiplies: bool,
    /// It composes inner sums ([`Passes::may_hold_flat`]).
    pub composes: bool,
}

impl Shape {
    /// The share of the objective an iteration must lower it by for the phase to go on.
    pub fn tolerance(self) -> f64 {
        match self.composes {
            true => COMPOSED_NEWTON_TOLERANCE,
            false => NEWTON_TOLERANCE,
        }
    }
}

/// Whether an iteration that lowered the objective by `fall` (relative) ends the Newton
/// phase of an evaluation of `shape`. Where the evaluation multiplies tuned values
/// together, a step its line search `cut` short does not: in a product's curved valley
/// such steps fall little while the valley still goes down (on the planted king safety
/// from a weight of 5, Newton stopped at 0.16745713 and the polish crawled to 0.16740146;
/// going on, it crosses the valley to 0.16737053, below the planted values).
pub fn ends_phase(fall: f64, cut: bool, shape: Shape) -> bool {
    fall < shape.tolerance() && !(cut && shape.multiplies)
}

/// Marquardt's damping of the first iteration.
pub const FIRST_DAMPING: f64 = 1e-3;
/// The damping never grows past this: the matrix is then as good as diagonal.
const MAX_DAMPING: f64 = 1e12;
/// Halvings of a step before the iteration counts as stuck.
const MAX_HALVINGS: usize = 40;
/// Armijo's share of the predicted fall a step must bring.
const ARMIJO: f64 = 1e-4;
/// After a full step that lowered the objective by less than this share, the next
/// iterations reuse its Hessian (chord steps: a gradient pass instead of a Hessian), until a
/// step is cut or stalls.
const CHORD_BELOW: f64 = 5e-2;

/// What Newton asks of the positions: each answer is one pass over the training positions,
/// at real values `x` of the tuned variables (in the order the iteration numbers them).
pub trait Passes {
    /// Why a pass failed (reading a file, an interrupt).
    type Error;

    /// The summed error at `x`, its gradient and its Gauss-Newton Hessian.
    fn system(&mut self, x: &[f64]) -> Result<(f64, System), Self::Error>;

    /// The summed error at `x` and its gradient.
    fn gradient(&mut self, x: &[f64]) -> Result<(f64, Vec<f64>), Self::Error>;

    /// The summed error at `x + alpha · p` for each of `alphas`, `x` being the values of
    /// the last [`Passes::system`] or [`Passes::gradient`].
    fn sums_along(&mut self, x: &[f64], p: &[f64], alphas: &[f64])
        -> Result<Vec<f64>, Self::Error>;

    /// The summed error at `y`, a step from the values of the last [`Passes::system`] or
    /// [`Passes::gradient`] that the constraints bent.
    fn sum_at(&mut self, y: &[f64]) -> Result<f64, Self::Error>;

    /// `x` moved into the declared constraints.
    fn project(&self, x: &[f64]) -> Vec<f64>;

    /// How many step lengths one pass of [`Passes::sums_along`] judges (a pass that reads a
    /// file judges several; in memory a pass costs one length's work).
    fn lengths_per_pass(&self) -> usize;

    /// Whether the positions may hold values flat where Newton stands (a square at a zero
    /// sum, a sum weighed by a weight at zero: an evaluation that composes inner sums); only
    /// then is a step off a saddle looked for.
    fn may_hold_flat(&self) -> bool {
        false
    }

    /// Whether the evaluation multiplies tuned values together (a weight that is tuned and
    /// the sums it weighs: see `ends_phase`).
    fn multiplies(&self) -> bool {
        false
    }

    /// How the training positions hold each variable at `x` ([`Hold`]): an evaluation
    /// linear in its values moves with every value it counts, so it holds none flat (the
    /// answer is empty).
    fn holds(&mut self, _x: &[f64]) -> Result<Vec<Hold>, Self::Error> {
        Ok(Vec::new())
    }

    /// The summed error's curvature among the flat variables `flat` at `x`, by rows
    /// ([`crate::Exact::flat_curvature`]); only asked where [`Passes::holds`] found them.
    fn flat_curvature(&mut self, _x: &[f64], flat: &[usize]) -> Result<Vec<f64>, Self::Error> {
        Ok(vec![0.0; flat.len() * flat.len()])
    }
}

/// The L2 pull toward the anchors: `l2 · Σ (x − anchor)² / 10,000`.
pub struct Pull<'a> {
    /// Its strength.
    pub l2: f64,
    /// The values each variable is pulled to.
    pub anchor: &'a [f64],
}

impl Pull<'_> {
    /// The pull at `x` (summed-error units).
    pub fn penalty(&self, x: &[f64]) -> f64 {
        let away = x.iter().zip(self.anchor).map(|(x, a)| (x - a) * (x - a));
        crate::l2::penalty(self.l2, away.sum::<f64>())
    }

    /// Its curvature per variable.
    pub fn curvature(&self) -> f64 {
        crate::l2::curvature(self.l2)
    }

    /// `g` with the pull's slope at `x` added.
    fn pulled(&self, x: &[f64], mut g: Vec<f64>) -> Vec<f64> {
        let c = self.curvature();
        for ((g, x), a) in g.iter_mut().zip(x).zip(self.anchor) {
            *g += c * (x - a);
        }
        g
    }
}

/// What the iterations carry from one to the next.
#[derive(Clone, Debug, Default)]
pub struct Memory {
    /// Marquardt's damping for the next iteration.
    pub damping: f64,
    /// Where the Hessian the next iteration reuses was taken (real values) and its damping;
    /// `None` when the next iteration takes a fresh one.
    pub chord: Option<(Vec<f64>, f64)>,
    /// The factor of that Hessian, when this run took it (a resumed run takes it again).
    pub factor: Option<Factor>,
}

/// A step the line search took.
pub struct Taken {
    /// The new real values.
    pub x: Vec<f64>,
    /// The summed error there.
    pub sum: f64,
    /// The objective there (error and pull).
    pub objective: f64,
    /// Whether the whole step was taken.
    pub full: bool,
}

/// What one iteration found before it is committed: the step taken (if any), the
/// objective and summed error it started from, whether its factor was reused, the factor
/// and where it was taken.
pub struct Proposal {
    /// The step, if one lowers the objective.
    pub taken: Option<Taken>,
    /// The objective at the values the iteration started from.
    pub objective: f64,
    /// The summed error there.
    pub sum_now: f64,
    reused: bool,
    factor: Option<Factor>,
    at: (Vec<f64>, f64),
}

/// The iteration's step at `x`: the factor (reused from `memory` or fresh), the step it
/// gives and the line search along it.
pub fn propose<P: Passes>(
    passes: &mut P,
    x: &[f64],
    pull: &Pull,
    memory: &mut Memory,
) -> Result<Proposal, P::Error> {
    let kept = memory.factor.take();
    let (sum_now, factor, g, reused, at) = match memory.chord.take() {
        Some((at, damping)) => {
            let factor = chord_factor(passes, (&at, kept), pull, damping)?;
            let (sum, g) = passes.gradient(x)?;
            (sum, factor, pull.pulled(x, g), true, (at, damping))
        }
        None => {
            let (sum, sys) = passes.system(x)?;
            let (factor, g) = fresh_factor(sys, x, pull, &mut memory.damping);
            (sum, factor, g, false, (x.to_vec(), memory.damping))
        }
    };
    let objective = sum_now + pull.penalty(x);
    let step = factor.as_ref().map(|f| f.step(&g));
    let step = step.filter(|p| p.iter().zip(&g).map(|(p, g)| p * g).sum::<f64>() < 0.0);
    let taken = match step {
        Some(p) => line_search(passes, x, pull, objective, (&p, &g))?,
        None => None,
    };
    Ok(Proposal {
        taken,
        objective,
        sum_now,
        reused,
        factor,
        at,
    })
}

impl Proposal {
    /// Where the iteration's Hessian was taken (real values) and its damping.
    pub fn hessian_at(&self) -> &(Vec<f64>, f64) {
        &self.at
    }
}

/// Commits `tried` to `memory`: the damping follows the step, the next iteration reuses
/// this factor when the step was full and fell little, and `allow_chord` (not where the
/// evaluation is only linearized). Returns the relative fall of the objective (0 without
/// a step) and the step.
pub fn commit(
    memory: &mut Memory,
    tried: Proposal,
    (allow_chord, tolerance): (bool, f64),
) -> (f64, Option<Taken>) {
    memory.factor = tried.factor;
    let Some(taken) = tried.taken else {
        return (0.0, None);
    };
    let fall = (tried.objective - taken.objective) / taken.objective.abs().max(f64::MIN_POSITIVE);
    if !tried.reused {
        memory.damping = match taken.full {
            true => memory.damping / 3.0,
            false => (memory.damping * 4.0).max(FIRST_DAMPING),
        };
    }
    let chord_next = taken.full && (tolerance..CHORD_BELOW).contains(&fall);
    memory.chord = (chord_next && allow_chord).then_some(tried.at);
    (fall, Some(taken))
}

/// The factor of the damped Hessian (the pull's curvature added), raising `damping` until
/// it is positive definite (`None` when even the largest damping does not make it so), and
/// the gradient with the pull's slope.
fn fresh_factor(
    mut sys: System,
    x: &[f64],
    pull: &Pull,
    damping: &mut f64,
) -> (Option<Factor>, Vec<f64>) {
    let g = pull.pulled(x, std::mem::take(&mut sys.gradient));
    while *damping <= MAX_DAMPING {
        if let Some(factor) = Factor::pulled(&sys.hessian, sys.n, pull.curvature(), *damping) {
            return (Some(factor), g);
        }
        *damping = (*damping * 10.0).max(1e-6);
    }
    (None, g)
}

/// The factor a chord step reuses: the kept one, at this pull (a path's next pull factors
/// the same Hessian at its own), or where none was kept (after a resume) the same one
/// taken again at the real values `at`.
fn chord_factor<P: Passes>(
    passes: &mut P,
    (at, kept): (&[f64], Option<Factor>),
    pull: &Pull,
    damping: f64,
) -> Result<Option<Factor>, P::Error> {
    if let Some(factor) = kept.filter(|f| f.variables() == at.len()) {
        return Ok(factor.at_pull(pull.curvature()));
    }
    let (_, sys) = passes.system(at)?;
    Ok(Factor::pulled(
        &sys.hessian,
        sys.n,
        pull.curvature(),
        damping,
    ))
}

/// How near (in every value) a trial may come to where the declared constraints move `x`
/// itself before the line search gives up: shorter steps only come nearer (a start outside
/// the constraints, as texel's default table is, under a strong pull that makes moving
/// there cost more than it gains).
const NEAR_CONSTRAINED_START: f64 = 1e-3;

/// A trial whose predicted fall is below this share of the objective ends the search: the
/// summed error's rounding is of that order, so neither it nor a shorter trial can show a
/// fall (near an optimum, or where the constraints bend the step off its descent, the
/// forty halvings of such a search cost forty passes for nothing).
const UNRESOLVED: f64 = 1e-13;

/// Halves the step `p` from `x` (objective `objective`, gradient `g`), each trial moved
/// into the declared constraints, until the objective falls by Armijo's share of the
/// predicted fall; the passes judge [`Passes::lengths_per_pass`] lengths at a time. The
/// search ends at a failed trial that predicts a fall below [`UNRESOLVED`]. Where the
/// constraints move `x` itself, the trials close in on that point, not on `x`: the search
/// ends with the first failed trial near it.
fn line_search<P: Passes>(
    passes: &mut P,
    x: &[f64],
    pull: &Pull,
    objective: f64,
    (p, g): (&[f64], &[f64]),
) -> Result<Option<Taken>, P::Error> {
    let per = passes.lengths_per_pass().max(1);
    let limit = Some(passes.project(x)).filter(|limit| limit != x);
    let near_limit = |y: &[f64]| {
        limit.as_ref().is_some_and(|limit| {
            (y.iter().zip(limit)).all(|(y, l)| (y - l).abs() < NEAR_CONSTRAINED_START)
        })
    };
    let mut halvings = 0;
    while halvings < MAX_HALVINGS {
        let alphas: Vec<f64> = (halvings..(halvings + per).min(MAX_HALVINGS))
            .map(|h| 0.5f64.powi(h as i32))
            .collect();
        for (t, (y, sum)) in judged(passes, x, p, &alphas)?.into_iter().enumerate() {
            let value = sum + pull.penalty(&y);
            let predicted: f64 = y.iter().zip(x).zip(g).map(|((y, x), g)| (y - x) * g).sum();
            if value <= objective + ARMIJO * predicted.min(0.0) && value < objective {
                let full = halvings + t == 0;
                return Ok(Some(Taken {
                    x: y,
                    sum,
                    objective: value,
                    full,
                }));
            }
            if near_limit(&y) || -predicted < UNRESOLVED * objective.abs() {
                return Ok(None);
            }
        }
        halvings += per;
    }
    Ok(None)
}

/// The points `x + α · p` for each of `alphas`, each moved into the declared constraints,
/// with their summed errors: one pass of [`Passes::sums_along`] when none was bent.
pub fn judged<P: Passes>(
    passes: &mut P,
    x: &[f64],
    p: &[f64],
    alphas: &[f64],
) -> Result<Vec<(Vec<f64>, f64)>, P::Error> {
    let trials: Vec<(Vec<f64>, bool)> = alphas
        .iter()
        .map(|&alpha| {
            let straight: Vec<f64> = x.iter().zip(p).map(|(x, p)| x + alpha * p).collect();
            let bent = passes.project(&straight);
            let is_straight = bent == straight;
            (bent, is_straight)
        })
        .collect();
    let sums = if trials.iter().all(|t| t.1) {
        passes.sums_along(x, p, alphas)?
    } else {
        let mut sums = Vec::with_capacity(trials.len());
        for (y, _) in &trials {
            sums.push(passes.sum_at(y)?);
        }
        sums
    };
    Ok(trials.into_iter().map(|t| t.0).zip(sums).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::convert::Infallible;

    /// One value whose summed error is `floor + (y − 3)²`, at most `cap` (a constraint),
    /// counting the sums asked.
    struct Bowl {
        floor: f64,
        cap: f64,
        sums: usize,
    }

    impl Bowl {
        fn at(&self, y: f64) -> f64 {
            self.floor + (y - 3.0) * (y - 3.0)
        }
    }

    impl Passes for Bowl {
        type Error = Infallible;

        fn system(&mut self, x: &[f64]) -> Result<(f64, System), Infallible> {
            let mut system = System::zero(1);
            (system.gradient[0], system.hessian[0]) = (2.0 * (x[0] - 3.0), 2.0);
            Ok((self.at(x[0]), system))
        }

        fn gradient(&mut self, x: &[f64]) -> Result<(f64, Vec<f64>), Infallible> {
            Ok((self.at(x[0]), vec![2.0 * (x[0] - 3.0)]))
        }

        fn sums_along(
            &mut self,
            x: &[f64],
            p: &[f64],
            alphas: &[f64],
        ) -> Result<Vec<f64>, Infallible> {
            self.sums += alphas.len();
            Ok(alphas.iter().map(|a| self.at(x[0] + a * p[0])).collect())
        }

        fn sum_at(&mut self, y: &[f64]) -> Result<f64, Infallible> {
            self.sums += 1;
            Ok(self.at(y[0]))
        }

        fn project(&self, x: &[f64]) -> Vec<f64> {
            vec![x[0].min(self.cap)]
        }

        fn lengths_per_pass(&self) -> usize {
            1
        }
    }

    fn searched(bowl: &mut Bowl, x: f64, p: f64, g: f64) -> Option<Taken> {
        let pull = Pull {
            l2: 0.0,
            anchor: &[0.0],
        };
        let objective = bowl.at(x);
        let Ok(taken) = line_search(bowl, &[x], &pull, objective, (&[p], &[g]));
        taken
    }

    #[test]
    fn a_search_that_cannot_show_a_fall_ends_at_its_first_trial() {
        // A start above the cap of 0: every trial is bent to 0, where the error is higher.
        let mut bowl = Bowl {
            floor: 10.0,
            cap: 0.0,
            sums: 0,
        };
        assert!(searched(&mut bowl, 1.0, 2.0, -4.0).is_none());
        assert_eq!(bowl.sums, 1, "not forty halvings toward the bent start");
        // A fall far below the sum's rounding: nothing to search.
        let mut bowl = Bowl {
            floor: 1e6,
            cap: f64::INFINITY,
            sums: 0,
        };
        let x = 3.0 - 1e-9;
        assert!(searched(&mut bowl, x, 1e-9, -2e-9).is_none());
        assert_eq!(bowl.sums, 1);
        // A step that falls is taken whole.
        let taken = searched(&mut bowl, 1.0, 2.0, -4.0).expect("a fall");
        assert!(taken.full && taken.x == [3.0]);
    }

    #[test]
    fn a_composed_evaluation_goes_on_where_a_linear_one_ends() {
        let linear = Shape::default();
        let composed = Shape {
            composes: true,
            ..Shape::default()
        };
        let products = Shape {
            multiplies: true,
            composes: true,
        };
        assert!(ends_phase(5e-5, false, linear));
        assert!(!ends_phase(5e-5, false, composed));
        assert!(ends_phase(5e-7, false, composed));
        assert!(!ends_phase(2e-4, false, linear));
        // A cut step in a product's valley goes on, however little it fell.
        assert!(!ends_phase(5e-7, true, products));
        assert!(ends_phase(5e-7, true, composed));
    }
}
