//! The table's values as the tuner moves them: [`Params`] is a [`texel_trace::Values`],
//! numbered as [`Params::flat`], constrained as the terms declare.

use super::{Params, TermInfo};
use crate::table::{FLAT_LEN, TERMS};
use texel_files::Fingerprint;

/// A hash of the table's layout (term names and shapes): checkpoints of another table are
/// refused.
pub fn table_fingerprint() -> u64 {
    let term = |h: Fingerprint, t: &TermInfo| {
        let shape = t.shape.rust_type();
        h.bytes(t.name.as_bytes())
            .bytes(shape.as_bytes())
            .bytes(&[0])
    };
    TERMS.iter().fold(Fingerprint::new(), term).value()
}

impl texel_trace::Values for Params {
    fn values(&self) -> &[i32] {
        self.flat()
    }

    fn set_value(&mut self, slot: usize, value: i32) {
        self.set_flat(slot, value);
    }

    fn from_values(values: &[i32]) -> Result<Self, String> {
        if values.len() != FLAT_LEN {
            return Err("parameter count does not match the table".into());
        }
        let mut p = Params::zeroed();
        for (i, &x) in values.iter().enumerate() {
            p.set_flat(i, x);
        }
        Ok(p)
    }

    fn allows_value(&self, slot: usize, value: i32) -> bool {
        self.allows(slot, value)
    }

    fn layout(&self) -> u64 {
        table_fingerprint()
    }

    fn project_real(real: &mut [f64], free: &[bool]) {
        Params::project_real(real, free);
    }
}
