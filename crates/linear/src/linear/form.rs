//! A linear dataset's tuner form as bytes: its labels, offsets, taper weights and block columns,
//! written once and read back in a sequential copy (a streamed tune reads each chunk so in
//! every pass instead of decoding the trace's records again). The sums are not kept: a
//! dataset read back is scored by the caller.

use super::{Block, Columns, LinearDataset, Sums};
use crate::bytes::{list, put};
use std::io::{self, Read, Write};
use std::sync::Arc;
use texel_trace::ParamSpace;

impl<T: Copy> Columns<T> {
    fn put<const N: usize>(
        &self,
        out: &mut impl Write,
        bytes: impl Fn(T) -> [u8; N],
    ) -> io::Result<()> {
        put(out, &self.starts, u32::to_le_bytes)?;
        put(out, &self.pos, u16::to_le_bytes)?;
        put(out, &self.factor, bytes)
    }

    fn read<const N: usize>(
        input: &mut impl Read,
        from: impl Fn([u8; N]) -> T,
    ) -> io::Result<Columns<T>> {
        Ok(Columns {
            starts: list(input, u32::from_le_bytes)?,
            pos: list(input, u16::from_le_bytes)?,
            factor: list(input, from)?,
        })
    }
}

impl LinearDataset {
    /// Writes the dataset's tuner form, without its sums.
    pub fn write_form(&self, out: &mut impl Write) -> io::Result<()> {
        put(out, &self.targets, f32::to_le_bytes)?;
        put(out, self.offsets.stored(), f64::to_le_bytes)?;
        let tapers: Vec<f64> = self.tapers.iter().flatten().copied().collect();
        put(out, &tapers, f64::to_le_bytes)?;
        let spans: Vec<u32> = self.blocks.iter().flat_map(|b| [b.start, b.len]).collect();
        put(out, &spans, u32::to_le_bytes)?;
        for b in &self.blocks {
            b.counts.put(out, |c: i8| c.to_le_bytes())?;
            b.weights.put(out, f32::to_le_bytes)?;
        }
        Ok(())
    }

    /// Reads a dataset [`LinearDataset::write_form`] wrote, in `space`, unscored (every
    /// sum zero).
    ///
    /// # Errors
    /// The input ends early or is not such a form.
    pub fn read_form(space: &ParamSpace, input: &mut impl Read) -> io::Result<LinearDataset> {
        let targets = list(input, f32::from_le_bytes)?;
        let offsets = list(input, f64::from_le_bytes)?;
        let tapers: Vec<f64> = list(input, f64::from_le_bytes)?;
        let spans: Vec<u32> = list(input, u32::from_le_bytes)?;
        let n = targets.len();
        let inside = spans
            .chunks(2)
            .all(|s| s.len() == 2 && s[0] as usize + s[1] as usize <= n);
        let offsets = super::ZeroList::from_stored(offsets, n);
        let (Some(offsets), true) = (offsets, tapers.len() == 2 * n && inside) else {
            return Err(io::Error::other("not a tuner form"));
        };
        let mut blocks = Vec::with_capacity(spans.len() / 2);
        for span in spans.chunks_exact(2) {
            blocks.push(Block {
                start: span[0],
                len: span[1],
                counts: Columns::read(input, i8::from_le_bytes)?,
                weights: Columns::read(input, f32::from_le_bytes)?,
            });
        }
        Ok(LinearDataset {
            layout: super::Layout::new(space),
            targets,
            offsets,
            tapers: Arc::new(tapers.chunks_exact(2).map(|t| [t[0], t[1]]).collect()),
            sums: vec![Sums::default(); n],
            blocks,
            rescoring: Default::default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_the_file_cannot_back_is_a_read_error_not_an_allocation() {
        let mut bytes = u64::MAX.to_le_bytes().to_vec();
        bytes.extend([0; 64]);
        let read = list(&mut bytes.as_slice(), f32::from_le_bytes);
        assert_eq!(read.unwrap_err().kind(), io::ErrorKind::UnexpectedEof);
        let mut whole = 2u64.to_le_bytes().to_vec();
        whole.extend(1.5f32.to_le_bytes().into_iter().chain(2f32.to_le_bytes()));
        assert_eq!(
            list(&mut whole.as_slice(), f32::from_le_bytes).unwrap(),
            [1.5, 2.0]
        );
    }
}
