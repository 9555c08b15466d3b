//! Where `texel tune` writes, decided and checked before any data is loaded, so that a
//! long run never ends unable to save and Ctrl-C never overwrites a finished result.
//!
//! The rule: the tuned parameters go to `--out` (without it, to `texel-tuned.json` in the
//! working directory, or `texel-tuned-2.json`, ... when that exists); the checkpoint goes to
//! `--checkpoint`, or `OUT.ckpt` beside the output. Ctrl-C writes the checkpoint only; a run
//! that ends normally writes the outputs and removes its checkpoint.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use texel_eval::params::to_rust;
use texel_eval::Params;
use texel_files::write_atomically;

use crate::paths::Files;

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
    /// The HTML report, rewritten after every pass.
    pub report: Option<PathBuf>,
}

/// Writes `value` to `path` as pretty JSON, atomically.
///
/// # Errors
/// The file cannot be written.
pub fn write_json(path: &Path, value: &serde_json::Value) -> Result<()> {
    let text = serde_json::to_string_pretty(value)? + "\n";
    write_atomically(path, text.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))
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
    /// The outputs of a run from its options, not yet checked or touched.
    pub fn plan(
        out: Option<&Path>,
        rust: Option<&Path>,
        log: Option<&Path>,
        checkpoint: Option<&Path>,
        report: Option<&Path>,
    ) -> Outputs {
        let (out, out_defaulted) = match out {
            Some(p) => (p.to_path_buf(), false),
            None => (default_out(), true),
        };
        let checkpoint = checkpoint.map_or_else(
            || PathBuf::from(format!("{}.ckpt", out.display())),
            Path::to_path_buf,
        );
        Outputs {
            out,
            out_defaulted,
            rust: rust.map(Path::to_path_buf),
            log: log.map(Path::to_path_buf),
            checkpoint,
            report: report.map(Path::to_path_buf),
        }
    }

    /// `files` (the run's inputs) with these outputs.
    pub fn files(&self, files: Files) -> Files {
        files
            .write("--out", Some(&self.out))
            .write("--checkpoint", Some(&self.checkpoint))
            .write("--rust", self.rust.as_deref())
            .write("--log", self.log.as_deref())
            .write("--report", self.report.as_deref())
            .allow_same("--checkpoint", "--resume")
    }

    /// Checks that no output is an input or another output, then that each can be written
    /// (missing folders are made).
    ///
    /// # Errors
    /// A clash, or an output that cannot be written.
    pub fn check(&self, inputs: Files) -> Result<()> {
        self.files(inputs).check()?;
        let mut named: Vec<(&Path, &str)> =
            vec![(&self.out, "--out"), (&self.checkpoint, "checkpoint")];
        named.extend(self.rust.as_deref().map(|p| (p, "--rust")));
        named.extend(self.log.as_deref().map(|p| (p, "--log")));
        named.extend(self.report.as_deref().map(|p| (p, "--report")));
        for (path, what) in named {
            check_writable(path, what)?;
        }
        Ok(())
    }

    /// A `--log` that holds an earlier run's passes is neither appended to by a new run nor
    /// emptied by accident: a new run (not `--resume`) is refused unless `fresh` (which
    /// empties it), so one log holds one run and the report draws that run.
    ///
    /// # Errors
    /// The log holds passes, the run does not resume and `fresh` is not given.
    pub fn keep_log(&self, resume: Option<&Path>, fresh: bool) -> Result<()> {
        let Some(log) = self.log.as_deref() else {
            return Ok(());
        };
        let earlier = std::fs::metadata(log).is_ok_and(|m| m.is_file() && m.len() > 0);
        if resume.is_some() || !earlier {
            return Ok(());
        }
        if !fresh {
            bail!(
                "--log {} holds the passes of an earlier run: give another --log, continue \
                 that run with --resume, or start again with --fresh (which empties it)",
                log.display()
            );
        }
        std::fs::remove_file(log).with_context(|| format!("cannot remove {}", log.display()))?;
        say!("--fresh: emptied the earlier log {}", log.display());
        Ok(())
    }

    /// A checkpoint of these outputs left by an earlier run is never thrown away by
    /// accident: without `--resume` the run is refused unless `fresh` (which removes it).
    ///
    /// # Errors
    /// A checkpoint exists, the run does not resume it and `fresh` is not given.
    pub fn keep_checkpoint(&self, resume: Option<&Path>, fresh: bool) -> Result<()> {
        let ckpt = &self.checkpoint;
        if resume.is_some() || !ckpt.is_file() {
            return Ok(());
        }
        if !fresh {
            bail!(
                "{} holds the checkpoint of an earlier run of these outputs: continue it with \
                 --resume {}, or start again with --fresh (which deletes it)",
                ckpt.display(),
                ckpt.display()
            );
        }
        std::fs::remove_file(ckpt).with_context(|| format!("cannot remove {}", ckpt.display()))?;
        say!("--fresh: removed the earlier checkpoint {}", ckpt.display());
        Ok(())
    }

    /// Takes the lock of these outputs (the checkpoint's path and `.lock`) for this run, held
    /// until the returned lock is dropped: a second run on them is refused at once. A
    /// checkpoint that is a device (`/dev/null`) keeps nothing to guard: no lock.
    ///
    /// # Errors
    /// Another live run holds the lock, or it cannot be made.
    pub fn lock(&self) -> Result<Option<texel_files::RunLock>> {
        Ok(texel_files::RunLock::beside(&self.checkpoint)?)
    }

    /// Writes the tuned parameters (JSON, and Rust with `--rust`) and removes the
    /// checkpoint, which the finished result replaces.
    ///
    /// # Errors
    /// A file cannot be written.
    pub fn finish(&self, tuned: &Params) -> Result<()> {
        tuned.save(&self.out)?;
        self.say_written();
        if let Some(path) = &self.rust {
            write_atomically(path, to_rust(tuned).as_bytes())
                .with_context(|| format!("cannot write {}", path.display()))?;
            say!("wrote the tuned table as Rust to {}", path.display());
        }
        self.remove_checkpoint();
        Ok(())
    }

    /// Writes tuned values of another engine (`name → values` JSON) to `--out` and removes
    /// the checkpoint.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn finish_json(&self, tuned: &serde_json::Value) -> Result<()> {
        write_json(&self.out, tuned)?;
        self.say_written();
        self.remove_checkpoint();
        Ok(())
    }

    /// Says where the tuned values went.
    fn say_written(&self) {
        let note = if self.out_defaulted {
            " (no --out given)"
        } else {
            ""
        };
        say!("wrote the tuned parameters to {}{note}", self.out.display());
    }

    /// Removes the checkpoint, which the finished result replaces.
    fn remove_checkpoint(&self) {
        match std::fs::remove_file(&self.checkpoint) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                eprintln!("note: cannot remove {}: {e}", self.checkpoint.display());
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checked(out: &Path, rust: Option<&Path>) -> Result<Outputs> {
        let o = Outputs::plan(Some(out), rust, None, None, None);
        o.check(Files::new()).map(|()| o)
    }

    #[test]
    fn unwritable_and_clashing_outputs_are_refused_up_front() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("t.json");
        let o = checked(&out, None).unwrap();
        assert_eq!(o.checkpoint, dir.path().join("t.json.ckpt"));
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "nothing left"
        );
        let nested = dir.path().join("runs/a/t.json");
        checked(&nested, None).unwrap();
        assert!(dir.path().join("runs/a").is_dir());
        let under_a_file = dir.path().join("runs/a/t.json.x/t.json");
        std::fs::write(dir.path().join("runs/a/t.json.x"), "").unwrap();
        assert!(checked(&under_a_file, None).is_err());
        let err = checked(&out, Some(&out)).unwrap_err();
        assert!(err.to_string().contains("same file"), "{err}");
        assert!(checked(dir.path(), None).is_err());
    }

    #[test]
    fn an_earlier_checkpoint_is_kept_unless_fresh() {
        let dir = tempfile::tempdir().unwrap();
        let o = Outputs::plan(Some(&dir.path().join("t.json")), None, None, None, None);
        o.keep_checkpoint(None, false).unwrap();
        std::fs::write(&o.checkpoint, "{}").unwrap();
        let err = o.keep_checkpoint(None, false).unwrap_err().to_string();
        assert!(err.contains("--resume") && err.contains("--fresh"), "{err}");
        o.keep_checkpoint(Some(&o.checkpoint), false).unwrap();
        assert!(o.checkpoint.exists());
        o.keep_checkpoint(None, true).unwrap();
        assert!(!o.checkpoint.exists());
    }
}
