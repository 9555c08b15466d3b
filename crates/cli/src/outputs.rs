//! Where `texel tune` writes, decided and checked before any data is loaded, so that a
//! long run never ends unable to save and Ctrl-C never overwrites a finished result.
//!
//! The rule: the tuned parameters go to `--out` (without it, to `texel-tuned.json` in the
//! working directory, or `texel-tuned-2.json`, ... when that exists); the checkpoint goes to
//! `--checkpoint`, or `OUT.ckpt` beside the output. Ctrl-C writes the checkpoint only; a run
//! that ends normally writes the outputs and removes its checkpoint.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use texel_eval::params::{to_rust, write_atomically};
use texel_eval::Params;

/// The files of one tune run.
#[derive(Debug)]
pub struct Outputs {
    /// The tuned parameters (JSON).
    pub out: PathBuf,
    /// `out` was chosen by texel, not given.
    pub out_defaulted: bool,
    /// The tuned table as Rust source.
    pub rust: Option<PathBuf>,
    /// The pass log (appended to).
    pub log: Option<PathBuf>,
    /// The checkpoint.
    pub checkpoint: PathBuf,
}

/// The first of `texel-tuned.json`, `texel-tuned-2.json`, ... that does not exist.
fn default_out() -> PathBuf {
    (1..)
        .map(|n| match n {
            1 => PathBuf::from("texel-tuned.json"),
            n => PathBuf::from(format!("texel-tuned-{n}.json")),
        })
        .find(|p| !p.exists())
        .expect("some name is free")
}

/// Checks that `path` can be written: its folder (made when missing) takes a new file, and
/// the path is not a folder. Nothing but the folder is left behind.
fn check_writable(path: &Path, what: &str) -> Result<()> {
    if path.is_dir() {
        bail!("{what} {} is a folder", path.display());
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).with_context(|| {
        format!(
            "{what} {}: cannot make the folder {}",
            path.display(),
            dir.display()
        )
    })?;
    tempfile::NamedTempFile::new_in(dir)
        .map(drop)
        .with_context(|| {
            format!(
                "{what} {}: cannot write in {}",
                path.display(),
                dir.display()
            )
        })
}

impl Outputs {
    /// The outputs of a run from its options; each is checked to be writable.
    ///
    /// # Errors
    /// An output that cannot be written, or two outputs at the same path.
    pub fn new(
        out: Option<&Path>,
        rust: Option<&Path>,
        log: Option<&Path>,
        checkpoint: Option<&Path>,
    ) -> Result<Outputs> {
        let (out, out_defaulted) = match out {
            Some(p) => (p.to_path_buf(), false),
            None => (default_out(), true),
        };
        let checkpoint = checkpoint.map_or_else(
            || PathBuf::from(format!("{}.ckpt", out.display())),
            Path::to_path_buf,
        );
        let o = Outputs {
            out,
            out_defaulted,
            rust: rust.map(Path::to_path_buf),
            log: log.map(Path::to_path_buf),
            checkpoint,
        };
        let mut named: Vec<(&Path, &str)> = vec![(&o.out, "--out"), (&o.checkpoint, "checkpoint")];
        named.extend(o.rust.as_deref().map(|p| (p, "--rust")));
        named.extend(o.log.as_deref().map(|p| (p, "--log")));
        for (i, (path, what)) in named.iter().enumerate() {
            if let Some((_, other)) = named[..i].iter().find(|(p, _)| p == path) {
                bail!("{what} and {other} are the same file {}", path.display());
            }
            check_writable(path, what)?;
        }
        Ok(o)
    }

    /// Writes the tuned parameters (JSON, and Rust with `--rust`) and removes the
    /// checkpoint, which the finished result replaces.
    ///
    /// # Errors
    /// A file cannot be written.
    pub fn finish(&self, tuned: &Params) -> Result<()> {
        tuned.save(&self.out)?;
        let note = if self.out_defaulted {
            " (no --out given)"
        } else {
            ""
        };
        say!("wrote the tuned parameters to {}{note}", self.out.display());
        if let Some(path) = &self.rust {
            write_atomically(path, to_rust(tuned).as_bytes())
                .with_context(|| format!("cannot write {}", path.display()))?;
            say!("wrote the tuned table as Rust to {}", path.display());
        }
        match std::fs::remove_file(&self.checkpoint) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                eprintln!("note: cannot remove {}: {e}", self.checkpoint.display());
            }
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unwritable_and_clashing_outputs_are_refused_up_front() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("t.json");
        let o = Outputs::new(Some(&out), None, None, None).unwrap();
        assert_eq!(o.checkpoint, dir.path().join("t.json.ckpt"));
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "nothing left"
        );
        let nested = dir.path().join("runs/a/t.json");
        Outputs::new(Some(&nested), None, None, None).unwrap();
        assert!(dir.path().join("runs/a").is_dir());
        let under_a_file = dir.path().join("runs/a/t.json.x/t.json");
        std::fs::write(dir.path().join("runs/a/t.json.x"), "").unwrap();
        assert!(Outputs::new(Some(&under_a_file), None, None, None).is_err());
        let err = Outputs::new(Some(&out), Some(&out), None, None).unwrap_err();
        assert!(err.to_string().contains("same file"), "{err}");
        assert!(Outputs::new(Some(dir.path()), None, None, None).is_err());
    }
}
