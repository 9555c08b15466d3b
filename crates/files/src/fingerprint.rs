//! The one fingerprint of contents: what a resume, a checkpoint or a verdict compares to know
//! that its data, values or table are the ones it began with.

/// FNV-1a over 64 bits, fed bytes and little-endian integers in order. Fast and stable
/// across runs and machines; not a defence against anyone forging contents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fingerprint(u64);

impl Default for Fingerprint {
    fn default() -> Self {
        Fingerprint::new()
    }
}

impl Fingerprint {
    /// The fingerprint of nothing.
    pub const fn new() -> Fingerprint {
        Fingerprint(0xcbf2_9ce4_8422_2325)
    }

    /// The fingerprint so far as a number (to store or compare).
    pub const fn value(self) -> u64 {
        self.0
    }

    /// A fingerprint taken up again from its [`Fingerprint::value`].
    pub const fn from_value(value: u64) -> Fingerprint {
        Fingerprint(value)
    }

    /// `bytes` folded in.
    pub fn bytes(self, bytes: &[u8]) -> Fingerprint {
        let h = bytes.iter().fold(self.0, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        Fingerprint(h)
    }

    /// The contents of the file `path` folded in, read in chunks (a file of gigabytes is
    /// never held whole): the same as [`Fingerprint::bytes`] of its contents.
    ///
    /// # Errors
    /// The file cannot be read.
    pub fn file(self, path: &std::path::Path) -> std::io::Result<Fingerprint> {
        use std::io::Read;
        let mut file = std::fs::File::open(path)?;
        let (mut hash, mut chunk) = (self, vec![0; 1 << 16]);
        loop {
            match file.read(&mut chunk)? {
                0 => return Ok(hash),
                n => hash = hash.bytes(&chunk[..n]),
            }
        }
    }

    /// `value` folded in, as its eight little-endian bytes.
    pub fn u64(self, value: u64) -> Fingerprint {
        self.bytes(&value.to_le_bytes())
    }

    /// Every value of `values` folded in, as four little-endian bytes each.
    pub fn i32s(self, values: &[i32]) -> Fingerprint {
        values.iter().fold(self, |h, v| h.bytes(&v.to_le_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_is_fnv_1a() {
        // The published FNV-1a 64 test vectors.
        assert_eq!(Fingerprint::new().value(), 0xcbf2_9ce4_8422_2325);
        assert_eq!(
            Fingerprint::new().bytes(b"a").value(),
            0xaf63_dc4c_8601_ec8c
        );
        assert_eq!(
            Fingerprint::new().bytes(b"foobar").value(),
            0x8594_4171_f739_67e8
        );
    }

    #[test]
    fn integers_fold_as_their_little_endian_bytes_in_order() {
        let h = Fingerprint::new().u64(0x0102).i32s(&[-1, 7]);
        let mut bytes = 0x0102u64.to_le_bytes().to_vec();
        bytes.extend((-1i32).to_le_bytes());
        bytes.extend(7i32.to_le_bytes());
        assert_eq!(h, Fingerprint::new().bytes(&bytes));
        assert_ne!(h, Fingerprint::new().u64(0x0102).i32s(&[7, -1]));
        assert_eq!(Fingerprint::from_value(h.value()), h);
    }

    #[test]
    fn a_file_hashes_as_its_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big");
        let bytes: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let from_file = Fingerprint::new().file(&path).unwrap();
        assert_eq!(from_file, Fingerprint::new().bytes(&bytes));
    }
}
