//! Adam in real numbers: every epoch takes the gradient of the mean error of the unrounded
//! evaluation (plus the L2 pull) over all tuned values at once and moves each value by
//! Adam's normalised step; a run's pass is [`ADAM_EPOCHS_PER_PASS`] epochs, after which the
//! values are rounded into the table. `adam+cd` then hands the rounded values to coordinate
//! descent, which polishes them to an integer local optimum.

use crate::descent::{relative_fall, AdamState, Descent, PassSummary};
use crate::error::{error_gradient, error_sum};
use crate::model::{Model, Values};
use serde::{Deserialize, Serialize};

/// Which method a run tunes with.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Method {
    /// Slow Chess coordinate descent.
    Cd,
    /// Adam epochs only.
    Adam,
    /// Adam epochs until the validation error stops falling (or an epoch moves nothing),
    /// then coordinate descent from where Adam left.
    AdamThenCd,
    /// Damped Newton iterations in real numbers until the error stops falling, then the
    /// values rounded and polished by coordinate descent ([`crate::newton`]): it reaches the
    /// optimum first, so it is the default.
    #[default]
    Newton,
}

impl std::str::FromStr for Method {
    type Err = String;

    fn from_str(s: &str) -> Result<Method, String> {
        match s {
            "cd" => Ok(Method::Cd),
            "adam" => Ok(Method::Adam),
            "adam+cd" => Ok(Method::AdamThenCd),
            "newton" => Ok(Method::Newton),
            _ => Err(format!(
                "no method {s:?} (methods: newton, cd, adam, adam+cd)"
            )),
        }
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Method::Cd => "cd",
            Method::Adam => "adam",
            Method::AdamThenCd => "adam+cd",
            Method::Newton => "newton",
        })
    }
}

/// Adam's decay of the mean gradient.
const BETA1: f64 = 0.9;
/// Adam's decay of the mean squared gradient.
const BETA2: f64 = 0.999;
/// Keeps the normalised step finite where the gradient is zero.
const EPSILON: f64 = 1e-6;

/// Epochs in one pass of a run (texel-tuner reports every ten epochs as well): the run
/// rounds, scores and logs between passes, not between epochs.
pub const ADAM_EPOCHS_PER_PASS: u64 = 10;

/// Adam has converged after a pass that changed the error of its real values by less than
/// this share of it.
pub const ADAM_TOLERANCE: f64 = 1e-5;

impl<M: Model> Descent<'_, M> {
    /// The state Adam starts from at the current values.
    fn adam_start(&self) -> AdamState {
        let n = self.variables().len();
        AdamState {
            values: self
                .variables()
                .iter()
                .map(|v| f64::from(self.params().values()[v.slot]))
                .collect(),
            mean: vec![0.0; n],
            square: vec![0.0; n],
            epochs: 0,
            handed_over: false,
            error: None,
            converged: false,
        }
    }

    /// One pass of [`ADAM_EPOCHS_PER_PASS`] Adam epochs with learning rate `rate` (the
    /// largest move of a value per epoch, in steps). The values are real: each epoch takes
    /// the gradient of the unrounded evaluation's error over the values the evaluation is
    /// linear in, in one pass over the positions (`error::error_gradient`: nothing rounded,
    /// nothing rescored), and central differences of probes for curve inputs and formula
    /// weights (whose epochs round the values and rescore first). After the last epoch the
    /// values are rounded into the table (where its bounds and constraints allow) and the
    /// error of the real values is taken.
    pub fn adam_pass(&mut self, rate: f64) -> PassSummary {
        let mut state = self.adam.take().unwrap_or_else(|| self.adam_start());
        let vars = self.variables().to_vec();
        let (linear, curved): (Vec<usize>, Vec<usize>) =
            (0..vars.len()).partition(|&j| self.dataset().linear(vars[j].slot));
        let slots: Vec<usize> = linear.iter().map(|&j| vars[j].slot).collect();
        let mut probes = 0;
        for epoch in 0..ADAM_EPOCHS_PER_PASS {
            if !curved.is_empty() && epoch > 0 {
                self.round_to(&state.values);
                self.refresh();
            }
            let delta = self.real_moves(&linear, &state.values);
            let pass = error_gradient(self.dataset(), &slots, &delta, self.k());
            let n = self.dataset().len() as f64;
            let mut gradient = vec![0.0; vars.len()];
            for (&j, g) in linear.iter().zip(&pass.gradient) {
                gradient[j] = g / n;
            }
            for &j in &curved {
                let v = vars[j];
                let up_down = self.probe(v, v.step) - self.probe(v, -v.step);
                gradient[j] = up_down / f64::from(2 * v.step);
                probes += 2;
            }
            self.adam_step(&mut state, &gradient, rate);
        }
        self.count_probes(probes);
        let delta = self.real_moves(&linear, &state.values);
        let error = error_sum(self.dataset(), &slots, &delta, self.k()) / self.len_f64();
        let changed = self.round_to(&state.values);
        let fall = state
            .error
            .map_or(f64::INFINITY, |e| relative_fall(e, error));
        state.converged = fall.abs() < ADAM_TOLERANCE;
        state.error = Some(error);
        self.adam = Some(state);
        PassSummary {
            error,
            fall,
            moves: changed as u64,
            changed,
            probes,
            lifted: 0,
        }
    }

    /// How far each of the variables `vars` (by number) has moved from the table's integer
    /// value, at real values `values` (by variable).
    fn real_moves(&self, vars: &[usize], values: &[f64]) -> Vec<f64> {
        let (at, all) = (self.params().values(), self.variables());
        let moved = vars.iter().map(|&j| values[j] - f64::from(at[all[j].slot]));
        moved.collect()
    }

    /// The number of positions, as a float.
    fn len_f64(&self) -> f64 {
        self.dataset().len() as f64
    }

    /// One Adam update of the real values with `gradient` (of the mean error, by
    /// variable) and the L2 pull at the real values, kept inside the declared constraints.
    fn adam_step(&self, state: &mut AdamState, gradient: &[f64], rate: f64) {
        state.epochs += 1;
        let t = state.epochs as i32;
        let (fix1, fix2) = (1.0 - BETA1.powi(t), 1.0 - BETA2.powi(t));
        let pull = crate::l2::curvature(self.guards().l2) / self.len_f64();
        let anchor = self.anchor().values();
        for (j, v) in self.variables().iter().enumerate() {
            let g = gradient[j] + pull * (state.values[j] - f64::from(anchor[v.slot]));
            state.mean[j] = BETA1 * state.mean[j] + (1.0 - BETA1) * g;
            state.square[j] = BETA2 * state.square[j] + (1.0 - BETA2) * g * g;
            let step = (state.mean[j] / fix1) / ((state.square[j] / fix2).sqrt() + EPSILON);
            state.values[j] -= rate * step * f64::from(v.step);
        }
        let slots: Vec<usize> = self.variables().iter().map(|v| v.slot).collect();
        state.values = self.projected(&slots, &state.values);
    }

    /// Adam epochs taken.
    pub fn adam_epochs(&self) -> u64 {
        self.adam.as_ref().map_or(0, |a| a.epochs)
    }

    /// Whether `adam+cd` has handed over to coordinate descent.
    pub fn adam_handed_over(&self) -> bool {
        self.adam.as_ref().is_some_and(|a| a.handed_over)
    }

    /// Whether Adam's last pass changed its real error by less than [`ADAM_TOLERANCE`].
    pub fn adam_converged(&self) -> bool {
        self.adam.as_ref().is_some_and(|a| a.converged)
    }

    /// `adam+cd`: Adam is done; coordinate descent goes on from the current values.
    pub fn hand_over_to_cd(&mut self) {
        let mut state = self.adam.take().unwrap_or_else(|| self.adam_start());
        state.handed_over = true;
        self.adam = Some(state);
    }
}
