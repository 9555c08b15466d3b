//! The settings of a long run, recorded in its checkpoint so that a resume with other
//! settings is refused by name instead of silently mixing two runs.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Display;
use std::path::{Path, PathBuf};
use texel_files::Fingerprint;

/// What a run was started with: settings that change its result (`fixed`), and settings
/// that only change how long it goes (`length`, such as more passes), each by the name the
/// user gives it (`--method`) and its value as text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// How the settings are written: records of another version are not compared (1:
    /// before the settings were read off the settings record, see
    /// [`Settings::of_record`]).
    #[serde(default = "first_version")]
    pub version: u32,
    /// Settings a resumed run must repeat.
    pub fixed: BTreeMap<String, String>,
    /// Settings a resumed run may change.
    pub length: BTreeMap<String, String>,
    /// What a result setting left out of a record meant when its default was another
    /// (`--lambda`: `1` before `auto`); a resume compares that value instead of "not given".
    #[serde(skip)]
    pub defaults_then: BTreeMap<String, String>,
}

/// The version of settings this texel writes.
const SETTINGS_VERSION: u32 = 2;

/// The version of records written before settings carried one.
fn first_version() -> u32 {
    1
}

impl Default for Settings {
    /// No settings, in this texel's version.
    fn default() -> Settings {
        Settings {
            version: SETTINGS_VERSION,
            fixed: BTreeMap::new(),
            length: BTreeMap::new(),
            defaults_then: BTreeMap::new(),
        }
    }
}

/// A resumed run gives a setting another value than the run it continues.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingChanged {
    /// The setting.
    pub name: String,
    /// Its value when the run began.
    pub then: String,
    /// Its value now.
    pub now: String,
}

impl std::fmt::Display for SettingChanged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (name, then, now) = (&self.name, &self.then, &self.now);
        write!(
            f,
            "{name} was {then} when the run began and is {now} now: {} to continue it, or \
             start a new run",
            self.hint()
        )
    }
}

impl std::error::Error for SettingChanged {}

impl SettingChanged {
    /// What gives the setting its value of when the run began, as words of the command:
    /// a setting of the data that is no flag (a sources file's source) by restoring it,
    /// a setting not given then by leaving its flag out, `true` by the flag alone, a list
    /// by the flag for each entry, the start values by their file, a file's contents by
    /// the file as it was.
    pub fn hint(&self) -> String {
        let (name, then) = (&self.name, self.then.as_str());
        if let Some(flag) = name.strip_prefix(crate::record::CONTENTS) {
            return format!("give {flag} the files with the contents the run began with");
        }
        if !name.starts_with('-') {
            // A setting of the data (a source of a sources file), not a flag.
            return format!("restore {name} as it was when the run began");
        }
        match then {
            "not given" | "false" => format!("leave out {name}"),
            "true" => format!("give {name}"),
            _ if then.starts_with("values ") => format!(
                "give the {name} the run began from (its values' fingerprint is {}; the \
                 table's own defaults when it began without {name})",
                &then["values ".len()..]
            ),
            _ if then.contains(", ") => format!("give {name} for each of {then}"),
            _ => format!("give {name} {then}"),
        }
    }
}

impl Settings {
    /// With a setting that changes the result.
    pub fn fixed(mut self, name: &str, value: impl Display) -> Settings {
        self.fixed.insert(name.to_string(), value.to_string());
        self
    }

    /// With a result setting whose default was `then` in records that leave it out.
    pub fn default_was(mut self, name: &str, then: impl Display) -> Settings {
        self.defaults_then
            .insert(name.to_string(), then.to_string());
        self
    }

    /// With a setting that only changes how long the run goes.
    pub fn length(mut self, name: &str, value: impl Display) -> Settings {
        self.length.insert(name.to_string(), value.to_string());
        self
    }

    /// Checks that `now` (the resuming command's settings) continues the run recorded in
    /// `self`; returns a note for each length setting that changed.
    ///
    /// # Errors
    /// The first result setting whose value differs (or is new or gone).
    pub fn check_resume(&self, now: &Settings) -> Result<Vec<String>, SettingChanged> {
        if self.version != now.version {
            return Ok(vec![format!(
                "the run's settings were recorded by another version of texel (settings \
                 version {}, now {}): they are not compared",
                self.version, now.version
            )]);
        }
        let absent = || "not given".to_string();
        let names = self.fixed.keys().chain(now.fixed.keys());
        for name in names {
            let old_default = now.defaults_then.get(name);
            let then = self.fixed.get(name).or(old_default);
            let later = now.fixed.get(name);
            if then != later {
                return Err(SettingChanged {
                    name: name.clone(),
                    then: then.cloned().unwrap_or_else(absent),
                    now: later.cloned().unwrap_or_else(absent),
                });
            }
        }
        Ok(now
            .length
            .iter()
            .filter(|(name, value)| self.length.get(*name) != Some(value))
            .map(|(name, value)| {
                let then = self.length.get(name).cloned().unwrap_or_else(absent);
                format!("{name} changed from {then} to {value}: the run goes on with {value}")
            })
            .collect())
    }
}

/// A short fingerprint of `values` (FNV-1a), to record a parameter set by its content.
pub fn values_fingerprint(values: &[i32]) -> String {
    format!("{:016x}", Fingerprint::new().i32s(values).value())
}

/// The format of a run's settings file.
const RUN_FILE_FORMAT: &str = "texel-run-settings-1";

/// The settings a resumable run (self-play, the loop) began with, kept beside its files.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RunFile {
    format: String,
    /// The command that wrote it (`selfplay`, `loop`).
    command: String,
    settings: Settings,
}

/// Why earlier work cannot be continued or recorded.
#[derive(Debug, thiserror::Error)]
pub enum RunFileError {
    /// Earlier work, and neither resume nor fresh asked for.
    #[error(
        "{0} holds the work of an earlier run: continue it with --resume, or start again \
         with --fresh (which deletes it)"
    )]
    EarlierWork(PathBuf),
    /// The settings file is not one.
    #[error("{path}: not a texel settings file: {cause}")]
    NotSettings {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        cause: serde_json::Error,
    },
    /// The settings file belongs to another command.
    #[error("{path}: the settings of a {then} run ({format}), not of texel {now}")]
    OtherCommand {
        /// The file.
        path: PathBuf,
        /// The command that wrote it.
        then: String,
        /// Its format.
        format: String,
        /// The command reading it.
        now: String,
    },
    /// A setting that changes the result differs.
    #[error("cannot resume the run recorded in {path}: {cause}")]
    Changed {
        /// The file.
        path: PathBuf,
        /// The setting.
        cause: SettingChanged,
    },
    /// A file cannot be read, written or removed.
    #[error("{path}: {cause}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        cause: std::io::Error,
    },
}

/// What to do when an earlier run left work behind.
#[derive(Copy, Clone, Debug, Default)]
pub struct Rerun {
    /// Continue the earlier run.
    pub resume: bool,
    /// Throw the earlier run's work away and start again.
    pub fresh: bool,
}

/// What [`Rerun::decide`] did.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Rerunning {
    /// No earlier work: a new run.
    New,
    /// The earlier work is continued.
    Resumed,
    /// The earlier work was deleted (`fresh`).
    Discarded,
}

impl Rerun {
    /// When `earlier` holds an earlier run's work (`has_work`): refuses unless resuming;
    /// with `fresh`, calls `discard` first.
    ///
    /// # Errors
    /// Earlier work without `resume` or `fresh`, or `discard` failed.
    pub fn decide(
        self,
        earlier: &Path,
        has_work: bool,
        discard: impl FnOnce() -> Result<(), RunFileError>,
    ) -> Result<Rerunning, RunFileError> {
        if !has_work {
            return Ok(Rerunning::New);
        }
        if self.resume {
            return Ok(Rerunning::Resumed);
        }
        if !self.fresh {
            return Err(RunFileError::EarlierWork(earlier.to_path_buf()));
        }
        discard()?;
        Ok(Rerunning::Discarded)
    }
}

/// Removes `path`; a file already gone is no error.
///
/// # Errors
/// The file exists and cannot be removed.
pub fn remove_if_there(path: &Path) -> Result<(), RunFileError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(RunFileError::Io {
            path: path.to_path_buf(),
            cause: e,
        }),
        _ => Ok(()),
    }
}

/// What [`record_settings`] found of the earlier run's settings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recorded {
    /// Resuming, but the earlier run left no settings file, so none were compared.
    pub missing: bool,
    /// A note for each setting that only changes how long the run goes and changed.
    pub notes: Vec<String>,
}

/// Records `settings` of `command` in `path`; when `resuming`, first checks them against
/// the settings recorded there.
///
/// # Errors
/// A result setting differs from the recorded one, the file is another command's or not a
/// settings file, or it cannot be read or written.
pub fn record_settings(
    path: &Path,
    command: &str,
    settings: &Settings,
    resuming: bool,
) -> Result<Recorded, RunFileError> {
    let io = |cause| RunFileError::Io {
        path: path.to_path_buf(),
        cause,
    };
    let mut recorded = Recorded::default();
    if resuming {
        match std::fs::read_to_string(path) {
            Ok(text) => recorded.notes = check_recorded(path, &text, command, settings)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => recorded.missing = true,
            Err(e) => return Err(io(e)),
        }
    }
    let file = RunFile {
        format: RUN_FILE_FORMAT.into(),
        command: command.into(),
        settings: settings.clone(),
    };
    let text = serde_json::to_string_pretty(&file).expect("plain data") + "\n";
    texel_files::write_atomically(path, text.as_bytes()).map_err(io)?;
    Ok(recorded)
}

/// Checks the recorded settings `text` (of `path`) against `now`; the notes of changed
/// length settings.
fn check_recorded(
    path: &Path,
    text: &str,
    command: &str,
    now: &Settings,
) -> Result<Vec<String>, RunFileError> {
    let file: RunFile = serde_json::from_str(text).map_err(|cause| RunFileError::NotSettings {
        path: path.to_path_buf(),
        cause,
    })?;
    if file.format != RUN_FILE_FORMAT || file.command != command {
        return Err(RunFileError::OtherCommand {
            path: path.to_path_buf(),
            then: file.command,
            format: file.format,
            now: command.into(),
        });
    }
    file.settings
        .check_resume(now)
        .map_err(|cause| RunFileError::Changed {
            path: path.to_path_buf(),
            cause,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_result_setting_is_named_with_both_values() {
        let then = Settings::default()
            .fixed("--method", "cd")
            .length("--passes", 5);
        let same = then.clone();
        assert_eq!(then.check_resume(&same), Ok(vec![]));
        let other = Settings::default()
            .fixed("--method", "adam")
            .length("--passes", 5);
        let err = then.check_resume(&other).unwrap_err();
        assert_eq!((err.then.as_str(), err.now.as_str()), ("cd", "adam"));
        assert!(err.to_string().contains("--method was cd"), "{err}");
        let more = Settings::default()
            .fixed("--method", "cd")
            .length("--passes", 9);
        let notes = then.check_resume(&more).unwrap();
        assert!(
            notes[0].contains("--passes changed from 5 to 9"),
            "{notes:?}"
        );
        let new = then.clone().fixed("--l2", "0.5");
        assert_eq!(then.check_resume(&new).unwrap_err().then, "not given");
    }

    #[test]
    fn every_hint_is_words_of_a_command() {
        let hint = |name: &str, then: &str| {
            let changed = SettingChanged {
                name: name.into(),
                then: then.into(),
                now: "x".into(),
            };
            assert!(changed.to_string().contains(&changed.hint()));
            changed.hint()
        };
        assert_eq!(hint("--group", "not given"), "leave out --group");
        assert_eq!(
            hint("--freeze-material", "false"),
            "leave out --freeze-material"
        );
        assert_eq!(hint("--no-candidates", "true"), "give --no-candidates");
        assert_eq!(hint("--sprt", "0,10"), "give --sprt 0,10");
        assert_eq!(
            hint("--group", "KnightV, KingV"),
            "give --group for each of KnightV, KingV"
        );
        assert!(hint("--params", "values 00ff").contains("fingerprint is 00ff"));
    }

    #[test]
    fn settings_of_another_version_are_not_compared() {
        let old: Settings =
            serde_json::from_str(r#"{"fixed": {"--group": "all"}, "length": {}}"#).unwrap();
        assert_eq!(old.version, 1);
        let notes = old.check_resume(&Settings::default()).unwrap();
        assert!(notes[0].contains("not compared"), "{notes:?}");
    }

    #[test]
    fn a_setting_left_out_of_an_old_record_reads_as_its_default_then() {
        let old = Settings::default().fixed("--seed", 1);
        let now = |lambda: &str| {
            Settings::default()
                .fixed("--seed", 1)
                .fixed("--lambda", lambda)
                .default_was("--lambda", 1)
        };
        assert_eq!(old.check_resume(&now("1")), Ok(vec![]));
        let err = old.check_resume(&now("auto")).unwrap_err();
        assert_eq!((err.then.as_str(), err.now.as_str()), ("1", "auto"));
        assert!(err.to_string().contains("give --lambda 1"), "{err}");
        let plain = Settings::default()
            .fixed("--seed", 1)
            .fixed("--lambda", "auto");
        let err = old.check_resume(&plain).unwrap_err();
        assert_eq!(err.then, "not given");
    }

    #[test]
    fn fingerprints_tell_values_apart() {
        assert_ne!(values_fingerprint(&[1, 2]), values_fingerprint(&[2, 1]));
        assert_eq!(values_fingerprint(&[7]), values_fingerprint(&[7]));
    }

    #[test]
    fn settings_are_recorded_and_checked_on_resume() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.json");
        let s = Settings::default().fixed("--seed", 1).length("--games", 10);
        assert_eq!(
            record_settings(&path, "selfplay", &s, true).unwrap(),
            Recorded {
                missing: true,
                notes: vec![]
            }
        );
        let more = Settings::default().fixed("--seed", 1).length("--games", 20);
        let recorded = record_settings(&path, "selfplay", &more, true).unwrap();
        assert!(recorded.notes[0].contains("--games changed from 10 to 20"));
        let other = Settings::default().fixed("--seed", 2).length("--games", 20);
        let err = record_settings(&path, "selfplay", &other, true)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("--seed was 1") && err.contains("is 2"),
            "{err}"
        );
        let err = record_settings(&path, "loop", &more, true)
            .unwrap_err()
            .to_string();
        assert!(err.contains("not of texel loop"), "{err}");
        std::fs::write(&path, "{}").unwrap();
        let err = record_settings(&path, "loop", &more, true).unwrap_err();
        assert!(matches!(err, RunFileError::NotSettings { .. }), "{err}");
    }

    #[test]
    fn earlier_work_needs_resume_or_fresh() {
        let dir = tempfile::tempdir().unwrap();
        let earlier = dir.path().join("games.pgn");
        let rerun = |resume, fresh| Rerun { resume, fresh };
        let none = || Ok(());
        let decide = |r: Rerun, work| r.decide(&earlier, work, none);
        assert_eq!(decide(rerun(false, false), false).unwrap(), Rerunning::New);
        let err = decide(rerun(false, false), true).unwrap_err().to_string();
        assert!(err.contains("--resume") && err.contains("--fresh"), "{err}");
        assert_eq!(
            decide(rerun(true, false), true).unwrap(),
            Rerunning::Resumed
        );
        let mut discarded = false;
        let did = rerun(false, true)
            .decide(&earlier, true, || {
                discarded = true;
                Ok(())
            })
            .unwrap();
        assert!(did == Rerunning::Discarded && discarded);
    }
}
