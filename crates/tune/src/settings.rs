//! The settings of a long run, recorded in its checkpoint so that a resume with other
//! settings is refused by name instead of silently mixing two runs.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Display;

/// What a run was started with: settings that change its result (`fixed`), and settings
/// that only change how long it goes (`length`, such as more passes), each by the name the
/// user gives it (`--method`) and its value as text.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// Settings a resumed run must repeat.
    pub fixed: BTreeMap<String, String>,
    /// Settings a resumed run may change.
    pub length: BTreeMap<String, String>,
}

/// A resumed run gives a setting another value than the run it continues.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{name} was {then} when the run began and is {now} now: give {name} {then} to continue \
     it, or start a new run"
)]
pub struct SettingChanged {
    /// The setting.
    pub name: String,
    /// Its value when the run began.
    pub then: String,
    /// Its value now.
    pub now: String,
}

impl Settings {
    /// With a setting that changes the result.
    pub fn fixed(mut self, name: &str, value: impl Display) -> Settings {
        self.fixed.insert(name.to_string(), value.to_string());
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
        let absent = || "not given".to_string();
        let names = self.fixed.keys().chain(now.fixed.keys());
        for name in names {
            let (then, later) = (self.fixed.get(name), now.fixed.get(name));
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
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for b in values.iter().flat_map(|v| v.to_le_bytes()) {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
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
    fn fingerprints_tell_values_apart() {
        assert_ne!(values_fingerprint(&[1, 2]), values_fingerprint(&[2, 1]));
        assert_eq!(values_fingerprint(&[7]), values_fingerprint(&[7]));
    }
}
