//! A job's settings record read as the settings a resume compares: every field the record
//! serialises is a setting named by its flag, so no list of flags is written by hand and a
//! new setting is compared from the day it is declared.

use crate::{RunFileError, Settings};
use serde::Serialize;
use serde_json::Value;
use std::path::Path;
use texel_files::Fingerprint;

/// What a field of a settings record is to a resume.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// It changes what the run finds: a resume must repeat it.
    Fixed,
    /// It changes only how long the run goes: a resume may change it.
    Length,
    /// It names a file the run writes, or changes neither (threads, outputs): not recorded.
    Ignored,
}

/// The flag of a settings record's key: `min_support` is `--min-support`.
pub fn flag_of(key: &str) -> String {
    format!("--{}", key.replace('_', "-"))
}

impl Settings {
    /// The settings of `record` (a job's settings struct whose serde keys are its flags'
    /// names, `_` for `-`): each key that `role` does not ignore, named by its flag, its
    /// value as text. A value that means "not given" (null, false, an empty list or map)
    /// is left out, as a flag left out is; lists are joined by `, `, maps written
    /// `KEY=VALUE, ...`.
    ///
    /// # Panics
    /// `record` does not serialise to a JSON object (a settings struct always does).
    pub fn of_record<T: Serialize>(record: &T, role: impl Fn(&str) -> Role) -> Settings {
        let Ok(Value::Object(fields)) = serde_json::to_value(record) else {
            panic!("a settings record serialises to a JSON object");
        };
        let mut settings = Settings::default();
        for (key, value) in &fields {
            let Some(text) = as_text(value) else { continue };
            settings = match role(key) {
                Role::Fixed => settings.fixed(&flag_of(key), text),
                Role::Length => settings.length(&flag_of(key), text),
                Role::Ignored => settings,
            };
        }
        settings
    }

    /// With the contents of the files of `key` recorded as a setting (`contents of
    /// --epd`), so that a resume refuses a file changed under the same name.
    ///
    /// # Errors
    /// A file that cannot be read.
    pub fn with_contents(self, key: &str, files: &[&Path]) -> Result<Settings, RunFileError> {
        if files.is_empty() {
            return Ok(self);
        }
        let mut hash = Fingerprint::new();
        for file in files {
            hash = hash.file(file).map_err(|cause| RunFileError::Io {
                path: file.to_path_buf(),
                cause,
            })?;
            hash = hash.bytes(&[0]);
        }
        let name = format!("{CONTENTS}{}", flag_of(key));
        Ok(self.fixed(&name, format!("{:016x}", hash.value())))
    }
}

/// How the name of a contents setting begins.
pub(crate) const CONTENTS: &str = "contents of ";

/// The text of a recorded value; `None` for one that means "not given".
fn as_text(value: &Value) -> Option<String> {
    // Numbers as Rust writes them (`10`, not JSON's `10.0`): what a user types.
    let scalar = |v: &Value| match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n
            .as_f64()
            .filter(|_| n.is_f64())
            .map_or(n.to_string(), |x| x.to_string()),
        v => v.to_string(),
    };
    match value {
        Value::Null | Value::Bool(false) => None,
        Value::Array(list) if list.is_empty() => None,
        Value::Object(map) if map.is_empty() => None,
        Value::Array(list) => Some(list.iter().map(scalar).collect::<Vec<_>>().join(", ")),
        Value::Object(map) => Some(
            map.iter()
                .map(|(k, v)| format!("{k}={}", scalar(v)))
                .collect::<Vec<_>>()
                .join(", "),
        ),
        v => Some(scalar(v)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[derive(Serialize)]
    struct Record {
        validate: f64,
        min_support: usize,
        group: Vec<String>,
        step: BTreeMap<String, u32>,
        k: Option<f64>,
        freeze_material: bool,
        no_candidates: bool,
        passes: usize,
        out: Option<String>,
    }

    fn record() -> Record {
        Record {
            validate: 10.0,
            min_support: 5,
            group: vec!["KnightV".into(), "KingV".into()],
            step: BTreeMap::from([("PAWN".into(), 2)]),
            k: None,
            freeze_material: false,
            no_candidates: true,
            passes: 30,
            out: Some("t.json".into()),
        }
    }

    fn role(key: &str) -> Role {
        match key {
            "passes" => Role::Length,
            "out" => Role::Ignored,
            _ => Role::Fixed,
        }
    }

    #[test]
    fn every_field_is_a_setting_named_by_its_flag() {
        let s = Settings::of_record(&record(), role);
        let fixed: Vec<(&str, &str)> = (s.fixed.iter())
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            fixed,
            [
                ("--group", "KnightV, KingV"),
                ("--min-support", "5"),
                ("--no-candidates", "true"),
                ("--step", "PAWN=2"),
                ("--validate", "10"),
            ]
        );
        assert_eq!(s.length.get("--passes").map(String::as_str), Some("30"));
        assert!(!s.fixed.contains_key("--out") && !s.fixed.contains_key("--k"));
    }

    #[test]
    fn a_field_changed_on_resume_is_named_with_the_words_that_restore_it() {
        let then = Settings::of_record(&record(), role);
        let mut other = record();
        other.no_candidates = false;
        let err = then
            .check_resume(&Settings::of_record(&other, role))
            .unwrap_err();
        assert_eq!(err.hint(), "give --no-candidates");
        other = record();
        other.k = Some(1.5);
        let err = then
            .check_resume(&Settings::of_record(&other, role))
            .unwrap_err();
        assert_eq!(err.hint(), "leave out --k");
        other = record();
        other.group.clear();
        let err = then
            .check_resume(&Settings::of_record(&other, role))
            .unwrap_err();
        assert_eq!(err.hint(), "give --group for each of KnightV, KingV");
    }

    #[test]
    fn a_file_changed_under_its_name_is_refused_by_its_contents() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.epd");
        std::fs::write(&file, "one\n").unwrap();
        let with = |s: Settings| s.with_contents("epd", &[file.as_path()]).unwrap();
        let then = with(Settings::default());
        assert_eq!(then.check_resume(&with(Settings::default())), Ok(vec![]));
        std::fs::write(&file, "two\n").unwrap();
        let err = then.check_resume(&with(Settings::default())).unwrap_err();
        assert_eq!(err.name, "contents of --epd");
        assert!(err.hint().contains("--epd"), "{}", err.hint());
        assert!(err.to_string().contains(&err.hint()));
    }
}
