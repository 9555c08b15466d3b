//! Adam on the traced dataset: every epoch takes the gradient of the mean error (plus the L2
//! pull) over all tuned values at once, moves a real-valued copy of each value by Adam's
//! normalised step, and rounds to the table's integers. `adam+cd` then hands the result to
//! coordinate descent, which polishes it to an integer local optimum.

use crate::descent::{Descent, PassSummary};
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

/// Adam's memory, one entry per tuned variable.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AdamState {
    /// The values before rounding, in units of the table.
    pub values: Vec<f64>,
    /// Running mean of the gradient.
    pub mean: Vec<f64>,
    /// Running mean of the squared gradient.
    pub square: Vec<f64>,
    /// Epochs taken.
    pub epochs: u64,
    /// `adam+cd`: Adam is done and coordinate descent has taken over.
    pub handed_over: bool,
}

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
        }
    }

    /// One Adam epoch with learning rate `rate` (the largest move of a value per epoch, in
    /// steps): gradient, update, rounding (a value whose rounded move would cross a declared
    /// constraint stays), and a full rescore with the new values.
    pub fn adam_epoch(&mut self, rate: f64) -> PassSummary {
        let mut state = self.adam.take().unwrap_or_else(|| self.adam_start());
        let vars = self.variables().to_vec();
        let probes = self.gradient_probes(&vars);
        self.count_probes(probes);
        let gradient = self.gradient(&vars);
        state.epochs += 1;
        let t = state.epochs as i32;
        let (fix1, fix2) = (1.0 - BETA1.powi(t), 1.0 - BETA2.powi(t));
        let mut params = self.params().clone();
        let mut changed = 0;
        for (j, v) in vars.iter().enumerate() {
            let g = gradient[j] + self.penalty_slope(v.slot);
            state.mean[j] = BETA1 * state.mean[j] + (1.0 - BETA1) * g;
            state.square[j] = BETA2 * state.square[j] + (1.0 - BETA2) * g * g;
            let step = (state.mean[j] / fix1) / ((state.square[j] / fix2).sqrt() + EPSILON);
            state.values[j] -= rate * step * f64::from(v.step);
            let (now, target) = (params.values()[v.slot], state.values[j].round() as i32);
            if target == now {
                continue;
            }
            let allowed = !self.guards().constraints || params.allows_value(v.slot, target);
            if !allowed || !texel_eval::params::in_bounds(target) {
                state.values[j] = f64::from(now);
                continue;
            }
            params.set_value(v.slot, target);
            changed += 1;
        }
        self.set_params(params);
        self.adam = Some(state);
        PassSummary {
            error: self.error(),
            moves: changed as u64,
            changed,
            probes,
        }
    }

    /// Adam epochs taken.
    pub fn adam_epochs(&self) -> u64 {
        self.adam.as_ref().map_or(0, |a| a.epochs)
    }

    /// Whether `adam+cd` has handed over to coordinate descent.
    pub fn adam_handed_over(&self) -> bool {
        self.adam.as_ref().is_some_and(|a| a.handed_over)
    }

    /// `adam+cd`: Adam is done; coordinate descent goes on from the current values.
    pub fn hand_over_to_cd(&mut self) {
        let mut state = self.adam.take().unwrap_or_else(|| self.adam_start());
        state.handed_over = true;
        self.adam = Some(state);
    }
}
