//! Lists of fixed-size values as bytes, little-endian after their count: what the tuner
//! form and the inner sums' part of it are written in.

use std::io::{self, Read, Write};

/// Writes `xs`, each little-endian, after their count.
pub(crate) fn put<const N: usize, T: Copy>(
    out: &mut impl Write,
    xs: &[T],
    bytes: impl Fn(T) -> [u8; N],
) -> io::Result<()> {
    out.write_all(&(xs.len() as u64).to_le_bytes())?;
    let mut buffer = Vec::with_capacity(xs.len().min(1 << 16) * N);
    for part in xs.chunks(1 << 16) {
        buffer.clear();
        part.iter()
            .for_each(|&x| buffer.extend_from_slice(&bytes(x)));
        out.write_all(&buffer)?;
    }
    Ok(())
}

/// Reads a list [`put`] wrote, each `T` from `N` bytes.
pub(crate) fn list<const N: usize, T>(
    input: &mut impl Read,
    from: impl Fn([u8; N]) -> T,
) -> io::Result<Vec<T>> {
    let mut count = [0; 8];
    input.read_exact(&mut count)?;
    let count = usize::try_from(u64::from_le_bytes(count)).map_err(io::Error::other)?;
    // The count is the file's word: grown as the bytes come, so a torn or foreign file ends
    // in a read error, never in an allocation it cannot back.
    let mut out = Vec::with_capacity(count.min(1 << 16));
    let mut buffer = vec![0; count.min(1 << 16) * N];
    let mut left = count;
    while left > 0 {
        let part = &mut buffer[..left.min(1 << 16) * N];
        input.read_exact(part)?;
        let each = part
            .chunks_exact(N)
            .map(|c| from(c.try_into().expect("N bytes")));
        out.extend(each);
        left -= part.len() / N;
    }
    Ok(out)
}
