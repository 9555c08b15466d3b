//! Every job's settings are one struct for the flags and the serde record: each key is a
//! flag of the same name (`_` for `-`) and each flag that is a setting a key; a record that
//! leaves keys out takes the flags' defaults.

use clap::{Args, Command};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::collections::BTreeSet;

/// The keys of `value` as a record.
fn keys<T: Serialize>(value: &T) -> BTreeSet<String> {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::Object(map)) => map.into_iter().map(|(k, _)| k).collect(),
        other => panic!("settings are a JSON object, not {other:?}"),
    }
}

/// The long flags of `T`, but those in `runs` (flags that name a run, not a setting).
fn flags<T: Args>(runs: &[&str]) -> BTreeSet<String> {
    T::augment_args(Command::new("settings"))
        .get_arguments()
        .filter_map(|a| a.get_long())
        .filter(|l| !runs.contains(l))
        .map(|l| l.replace('-', "_"))
        .collect()
}

/// Checks keys against flags, and that `value` reads back as itself and `{}` plus the
/// `required` keys of `value` as the defaults (`value` parsed from those flags alone).
fn check<T: Args + Serialize + DeserializeOwned>(value: &T, runs: &[&str], required: &[&str]) {
    let (keys, flags) = (keys(value), flags::<T>(runs));
    assert_eq!(
        keys,
        flags,
        "keys and flags of {}",
        std::any::type_name::<T>()
    );
    let record = serde_json::to_value(value).unwrap();
    let back: T = serde_json::from_value(record.clone()).unwrap();
    assert_eq!(serde_json::to_value(back).unwrap(), record);
    let given: serde_json::Map<_, _> = record
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| required.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let filled: T = serde_json::from_value(given.into()).unwrap();
    assert_eq!(serde_json::to_value(filled).unwrap(), record);
}

fn parsed<T: Args>(words: &[&str]) -> T {
    crate::parse_flags(words).unwrap()
}

#[test]
fn tune_settings_are_its_flags() {
    let tune: crate::config::TuneArgs = parsed(&[]);
    check(&tune, &["config", "fresh", "resume"], &[]);
}

#[test]
fn lab_settings_are_its_flags() {
    check(&parsed::<texel_lab::LabSettings>(&[]), &[], &[]);
    check(&parsed::<texel_loop::ProveSettings>(&[]), &[], &[]);
    // texel lab's flags are the data's, the lab's, the proofs' and the two of a rerun.
    let lab = flags::<crate::lab_cmd::LabArgs>(&["resume", "fresh"]);
    let parts = [
        keys(&crate::data_args::DataArgs::default()),
        keys(&texel_lab::LabSettings::default()),
        keys(&texel_loop::ProveSettings::default()),
    ];
    assert_eq!(lab, parts.into_iter().flatten().collect());
}

#[test]
fn loop_selfplay_and_match_settings_are_their_flags() {
    let looped: texel_loop::LoopSettings = parsed(&["--dir", "runs/loop"]);
    check(&looped, &[], &["dir"]);
    let selfplay: crate::selfplay_cmd::SelfplayArgs = parsed(&["--pgn", "games.pgn"]);
    check(&selfplay, &["resume", "fresh"], &["pgn"]);
    let played: crate::match_cmd::MatchArgs = parsed(&["--engine", "name=a", "--engine", "name=b"]);
    check(&played, &[], &["engine"]);
}
