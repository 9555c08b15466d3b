//! Runs that continue where they stopped (self-play, the loop, the lab): earlier work is
//! never thrown away or appended to by accident, and a resume with other settings is
//! refused by name.

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;
use texel_files::write_atomically;
use texel_tune::Settings;

/// The settings file's format.
const FORMAT: &str = "texel-run-settings-1";

/// The settings a run began with, kept beside its files.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SettingsFile {
    format: String,
    /// The command that wrote it (`selfplay`, `loop`).
    command: String,
    settings: Settings,
}

/// What to do when an earlier run left work behind.
#[derive(Copy, Clone)]
pub struct Rerun {
    /// Continue the earlier run.
    pub resume: bool,
    /// Throw the earlier run's work away and start again.
    pub fresh: bool,
}

impl Rerun {
    /// When `earlier` (a file or folder named `what`) holds an earlier run's work: refuses
    /// unless resuming; with `fresh`, calls `discard` first. Returns whether the run
    /// resumes earlier work.
    ///
    /// # Errors
    /// Earlier work without `--resume` or `--fresh`, or `discard` failed.
    pub fn decide(
        self,
        earlier: &Path,
        has_work: bool,
        discard: impl FnOnce() -> Result<()>,
    ) -> Result<bool> {
        if !has_work {
            return Ok(false);
        }
        if self.resume {
            return Ok(true);
        }
        if !self.fresh {
            bail!(
                "{} holds the work of an earlier run: continue it with --resume, or start \
                 again with --fresh (which deletes it)",
                earlier.display()
            );
        }
        discard()?;
        say!("--fresh: removed the earlier run's {}", earlier.display());
        Ok(false)
    }
}

/// Records `settings` of `command` in `path`; when `resuming`, first checks them against
/// the settings recorded there (a run recorded before settings were kept gets a note).
///
/// # Errors
/// A result setting differs from the recorded one, or the file cannot be read or written.
pub fn record_settings(
    path: &Path,
    command: &str,
    settings: &Settings,
    resuming: bool,
) -> Result<()> {
    if resuming {
        match std::fs::read_to_string(path) {
            Ok(text) => check(path, &text, command, settings)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => eprintln!(
                "note: {} is missing, so the settings of the earlier run are not compared",
                path.display()
            ),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        }
    }
    let file = SettingsFile {
        format: FORMAT.into(),
        command: command.into(),
        settings: settings.clone(),
    };
    let text = serde_json::to_string_pretty(&file).expect("plain data") + "\n";
    write_atomically(path, text.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Checks the recorded settings `text` (of `path`) against `now`.
fn check(path: &Path, text: &str, command: &str, now: &Settings) -> Result<()> {
    let file: SettingsFile = serde_json::from_str(text)
        .with_context(|| format!("{}: not a texel settings file", path.display()))?;
    anyhow::ensure!(
        file.format == FORMAT && file.command == command,
        "{}: the settings of a {} run ({}), not of texel {command}",
        path.display(),
        file.command,
        file.format
    );
    let notes = file
        .settings
        .check_resume(now)
        .with_context(|| format!("cannot resume the run recorded in {}", path.display()))?;
    for note in notes {
        say!("resume: {note}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_recorded_and_checked_on_resume() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.json");
        let s = Settings::default().fixed("--seed", 1).length("--games", 10);
        record_settings(&path, "selfplay", &s, false).unwrap();
        let more = Settings::default().fixed("--seed", 1).length("--games", 20);
        record_settings(&path, "selfplay", &more, true).unwrap();
        let other = Settings::default().fixed("--seed", 2).length("--games", 20);
        let err = format!(
            "{:#}",
            record_settings(&path, "selfplay", &other, true).unwrap_err()
        );
        assert!(
            err.contains("--seed was 1") && err.contains("is 2"),
            "{err}"
        );
        let err = format!(
            "{:#}",
            record_settings(&path, "loop", &more, true).unwrap_err()
        );
        assert!(err.contains("not of texel loop"), "{err}");
    }

    #[test]
    fn earlier_work_needs_resume_or_fresh() {
        let dir = tempfile::tempdir().unwrap();
        let earlier = dir.path().join("games.pgn");
        let rerun = |resume, fresh| Rerun { resume, fresh };
        assert!(!rerun(false, false)
            .decide(&earlier, false, || Ok(()))
            .unwrap());
        let err = rerun(false, false)
            .decide(&earlier, true, || Ok(()))
            .unwrap_err()
            .to_string();
        assert!(err.contains("--resume") && err.contains("--fresh"), "{err}");
        assert!(rerun(true, false)
            .decide(&earlier, true, || Ok(()))
            .unwrap());
        let mut discarded = false;
        let resumes = rerun(false, true)
            .decide(&earlier, true, || {
                discarded = true;
                Ok(())
            })
            .unwrap();
        assert!(!resumes && discarded);
    }
}
