//! The values file of an outside engine: one JSON object naming each parameter of its space
//! with its values in the shape of its default (`"PAWN": [100, 120]`, a list for an array),
//! the form `texel tune --traces` writes, `--params` reads and a template export fills in.
//! This module is its one writer and its one reader.

use crate::space::{ParamSpace, SpaceError};
use std::path::{Path, PathBuf};
use texel_files::write_atomically;

/// Why a values file cannot be written or read.
#[derive(Debug, thiserror::Error)]
pub enum ValuesFileError {
    /// The file cannot be read or written.
    #[error("cannot {action} {path}: {cause}")]
    Io {
        /// `read` or `write`.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The cause.
        cause: std::io::Error,
    },
    /// The file is not JSON.
    #[error("{path}: not JSON ({cause})")]
    NotJson {
        /// The file.
        path: PathBuf,
        /// The cause.
        cause: serde_json::Error,
    },
    /// The file holds values of another space.
    #[error("{path}: not values of the trace's parameters: {cause}")]
    OtherSpace {
        /// The file.
        path: PathBuf,
        /// The cause.
        cause: SpaceError,
    },
}

impl ParamSpace {
    /// Writes `values` (flat) to `path` as the space's values file, atomically.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn save_values(&self, values: &[i32], path: &Path) -> Result<(), ValuesFileError> {
        let text = serde_json::to_string_pretty(&self.to_json(values)).expect("plain data");
        write_atomically(path, (text + "\n").as_bytes()).map_err(|cause| ValuesFileError::Io {
            action: "write",
            path: path.to_path_buf(),
            cause,
        })
    }

    /// The flat values of the values file `path` (parameters it leaves out keep their
    /// defaults).
    ///
    /// # Errors
    /// The file cannot be read, is not JSON, or holds values of another space.
    pub fn read_values(&self, path: &Path) -> Result<Vec<i32>, ValuesFileError> {
        let path_buf = || path.to_path_buf();
        let text = std::fs::read_to_string(path).map_err(|cause| ValuesFileError::Io {
            action: "read",
            path: path_buf(),
            cause,
        })?;
        let json = serde_json::from_str(&text).map_err(|cause| ValuesFileError::NotJson {
            path: path_buf(),
            cause,
        })?;
        self.values_from_json(&json)
            .map_err(|cause| ValuesFileError::OtherSpace {
                path: path_buf(),
                cause,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_values_file_reads_back_as_written_and_other_files_are_named() {
        let space = crate::space::tests::small();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("values.json");
        let values: Vec<i32> = (1..=space.value_count() as i32).collect();
        space.save_values(&values, &path).unwrap();
        assert_eq!(space.read_values(&path).unwrap(), values);
        std::fs::write(&path, "{\"NO_SUCH\": 1}").unwrap();
        let other = space.read_values(&path).unwrap_err();
        assert!(
            matches!(other, ValuesFileError::OtherSpace { .. }),
            "{other}"
        );
        std::fs::write(&path, "not json").unwrap();
        assert!(matches!(
            space.read_values(&path),
            Err(ValuesFileError::NotJson { .. })
        ));
        let missing = space.read_values(&dir.path().join("gone.json"));
        assert!(missing.unwrap_err().to_string().contains("gone.json"));
    }
}
