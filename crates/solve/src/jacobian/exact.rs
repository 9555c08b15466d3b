//! What an evaluation answers Newton itself where its columns cannot say it (a trace whose
//! positions compose inner sums: king safety's clamped square, a weighed line, a
//! complexity): each answer exact at the real values asked, through the chain rule that the
//! evaluation's own module keeps (`crate::linear`). Newton asks; it does not know the
//! shapes.

use super::System;

/// Newton's questions an evaluation answers exactly, at real values `x` of the tuned
/// `slots`, its positions scored at the integer values `at` (every slot), at `K` = `k`.
pub trait Exact: Sync {
    /// The summed error, its gradient and Gauss-Newton Hessian.
    fn system(&self, at: &[i32], slots: &[usize], x: &[f64], k: f64) -> (f64, System);

    /// The summed error and its gradient.
    fn gradient(&self, at: &[i32], slots: &[usize], x: &[f64], k: f64) -> (f64, Vec<f64>);

    /// The summed error.
    fn summed_error(&self, at: &[i32], slots: &[usize], x: &[f64], k: f64) -> f64;

    /// How the positions hold each of `slots` (see [`Hold`]).
    fn holds(&self, at: &[i32], slots: &[usize], x: &[f64]) -> Vec<Hold>;

    /// The summed error's curvature among the variables `flat` (numbers among `slots`),
    /// where their Jacobian columns are zero, by rows (`flat.len()` squared).
    fn flat_curvature(&self, at: (&[i32], &[usize], &[f64]), flat: &[usize], k: f64) -> Vec<f64>;

    /// Whether `slot` weighs what the evaluation composes (a product of tuned values: a
    /// step its line search cut short does not end Newton's phase).
    fn weighs(&self, slot: usize) -> bool;
}

/// How the positions of a set hold a tuned value at some point: whether any counts it
/// (through its coefficients or an inner sum), and whether any moves with it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Hold {
    /// Some position counts the value.
    pub counted: bool,
    /// Some position's evaluation moves with it.
    pub moving: bool,
    /// The value weighs a part of an inner term (`times_param`) and is zero: the values
    /// that part's sums count are flat by it, and a step off the saddle moves it with them.
    pub zero_weight: bool,
}

impl Hold {
    /// How the positions of two sets together hold the value.
    pub fn and(self, other: Hold) -> Hold {
        Hold {
            counted: self.counted || other.counted,
            moving: self.moving || other.moving,
            zero_weight: self.zero_weight || other.zero_weight,
        }
    }

    /// Whether the value is flat: counted, and no position moves with it.
    pub fn is_flat(self) -> bool {
        self.counted && !self.moving
    }

    /// Whether the value is a weight at zero (see the field).
    pub fn is_zero_weight(self) -> bool {
        self.zero_weight
    }
}
