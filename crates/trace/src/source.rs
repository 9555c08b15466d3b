//! Positions read one at a time on any thread, whether held in memory or decoded on demand.

use crate::binary::BinaryTrace;
use crate::text::{TraceError, TracedPosition};
use std::borrow::Borrow;
use std::convert::Infallible;

/// Numbered positions a reader visits one at a time, from any thread: a slice in memory, or
/// a binary trace whose records are decoded only when visited (no position is kept).
pub trait PositionSource: Sync {
    /// Why a position cannot be read.
    type Error: Send;

    /// The number of positions.
    fn len(&self) -> usize;

    /// Whether there is no position.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `f` of position `i`, decoded into `scratch` where the source must decode.
    ///
    /// # Errors
    /// Position `i` cannot be read.
    fn with<R>(
        &self,
        i: usize,
        scratch: &mut TracedPosition,
        f: impl FnOnce(&TracedPosition) -> R,
    ) -> Result<R, Self::Error>;

    /// `f(j, position)` for each position `chosen[j]` (rising numbers) in order, decoded
    /// into `scratch` where the source must decode; a source read from a file reads runs of
    /// them at once.
    ///
    /// # Errors
    /// The first chosen position that cannot be read.
    fn for_each(
        &self,
        chosen: &[usize],
        scratch: &mut TracedPosition,
        mut f: impl FnMut(usize, &TracedPosition),
    ) -> Result<(), Self::Error> {
        for (j, &i) in chosen.iter().enumerate() {
            self.with(i, scratch, |p| f(j, p))?;
        }
        Ok(())
    }
}

/// Positions held in memory, by value or by reference.
impl<T: Borrow<TracedPosition> + Sync> PositionSource for [T] {
    type Error = Infallible;

    fn len(&self) -> usize {
        <[T]>::len(self)
    }

    fn with<R>(
        &self,
        i: usize,
        _: &mut TracedPosition,
        f: impl FnOnce(&TracedPosition) -> R,
    ) -> Result<R, Infallible> {
        Ok(f(self[i].borrow()))
    }
}

impl PositionSource for BinaryTrace {
    type Error = TraceError;

    fn len(&self) -> usize {
        BinaryTrace::len(self)
    }

    fn with<R>(
        &self,
        i: usize,
        scratch: &mut TracedPosition,
        f: impl FnOnce(&TracedPosition) -> R,
    ) -> Result<R, TraceError> {
        self.decode_into(i, scratch)?;
        Ok(f(scratch))
    }

    fn for_each(
        &self,
        chosen: &[usize],
        scratch: &mut TracedPosition,
        f: impl FnMut(usize, &TracedPosition),
    ) -> Result<(), TraceError> {
        BinaryTrace::for_each(self, chosen, scratch, f)
    }
}
