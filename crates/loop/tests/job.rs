//! The loop and self-play as library calls: the events a caller sees, the files a round
//! leaves, an interrupted loop that goes on, and earlier games that are not thrown away.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use texel_loop::{LoopEnd, LoopEvent, LoopJob, LoopSettings, SelfplayEvent, SelfplayJob};
use texel_tune::SessionEvent;

fn openings() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/openings.epd")
}

/// One tiny round: 8 games at 400 nodes tuned with 3,000 shipped positions, one tuning
/// pass, a 4-game gate.
fn tiny(dir: &Path) -> LoopJob {
    // The first 3,000 shipped positions beside the round's own: K and the tuning do not
    // hang on the few games the table happens to play.
    let more = dir.with_extension("more.epd");
    let text: String = include_str!("../../../data/train.epd")
        .lines()
        .take(3000)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&more, text).unwrap();
    let settings = LoopSettings {
        epd: vec![more],
        rounds: 1,
        games: 8,
        nodes: 400,
        passes: 1,
        min_support: 1,
        gate_games: 4,
        threads: Some(2),
        openings: openings(),
        ..LoopSettings::new(dir)
    };
    LoopJob {
        settings,
        rerun: texel_run::Rerun {
            resume: true,
            fresh: false,
        },
        verdict: None,
    }
}

/// The kinds of events in the order they came, each kind once per run of equal kinds.
fn kinds(job: &LoopJob, interrupt: &AtomicBool) -> (LoopEnd, Vec<&'static str>) {
    let mut seen: Vec<&'static str> = Vec::new();
    let end = job
        .run(interrupt, &mut |e| {
            let kind = match e {
                LoopEvent::Rerun(..) => "rerun",
                LoopEvent::Playing(..) => "playing",
                LoopEvent::Game(_) => "game",
                LoopEvent::Played(..) => "played",
                LoopEvent::Tune(SessionEvent::Loaded { .. }) => "loaded",
                LoopEvent::Tune(_) => "tune",
                LoopEvent::Tuned(..) => "tuned",
                LoopEvent::Gating(..) => "gating",
                LoopEvent::GateGame(_) => "gate game",
                LoopEvent::Round(_) => "round",
                _ => "other",
            };
            if seen.last() != Some(&kind) {
                seen.push(kind);
            }
        })
        .unwrap();
    (end, seen)
}

#[test]
fn a_round_from_rust_reports_each_step_and_leaves_its_files() {
    let tmp = tempfile::tempdir().unwrap();
    let job = tiny(&tmp.path().join("run"));
    let (end, seen) = kinds(&job, &AtomicBool::new(false));
    assert_eq!(end, LoopEnd::Finished);
    let steps = [
        "rerun",
        "playing",
        "game",
        "played",
        "loaded",
        "tune",
        "tuned",
        "gating",
        "gate game",
        "round",
    ];
    assert_eq!(seen, steps);
    let round = job.settings.round_dir(1);
    for file in [
        "games.pgn",
        "positions.epd",
        "tuned.json",
        "tune-log.jsonl",
        "gate.pgn",
    ] {
        assert!(round.join(file).is_file(), "{file}");
    }
    assert!(
        !round.join("tune.ckpt").exists(),
        "the checkpoint goes at the end"
    );
    let text = std::fs::read_to_string(job.settings.rounds_file()).unwrap();
    let rounds = texel_loop::read_rounds(&text).unwrap();
    assert_eq!((rounds.len(), rounds[0].games), (1, 8));
    // Run again: nothing is left to do.
    let (end, seen) = kinds(&job, &AtomicBool::new(false));
    assert_eq!((end, seen), (LoopEnd::Finished, vec!["rerun"]));
}

#[test]
fn an_interrupted_loop_stops_at_once_and_goes_on_later() {
    let tmp = tempfile::tempdir().unwrap();
    let job = tiny(&tmp.path().join("run"));
    let (end, seen) = kinds(&job, &AtomicBool::new(true));
    assert_eq!(end, LoopEnd::Interrupted);
    assert_eq!(seen, ["rerun", "playing"], "no game starts");
    let (end, _) = kinds(&job, &AtomicBool::new(false));
    assert_eq!(end, LoopEnd::Finished);
}

/// Plays `job`'s games; how many earlier games it kept.
fn kept_by(job: &SelfplayJob) -> (usize, texel_arena::MatchReport) {
    let mut kept = None;
    let report = job
        .play(&AtomicBool::new(false), &mut |e| {
            if let SelfplayEvent::Starting { kept: k, .. } = e {
                kept = Some(k);
            }
        })
        .unwrap();
    (kept.expect("the games start"), report)
}

#[test]
fn earlier_games_are_neither_lost_nor_appended_to_by_accident() {
    let tmp = tempfile::tempdir().unwrap();
    let pgn = tmp.path().join("games.pgn");
    let mut job = SelfplayJob::new(None, 300, &openings(), &pgn);
    (job.games, job.threads) = (4, 2);
    let quiet = AtomicBool::new(false);
    assert_eq!(kept_by(&job).0, 0);
    let before = std::fs::read(&pgn).unwrap();
    let err = job.play(&quiet, &mut |_| {}).unwrap_err().to_string();
    assert!(err.contains("--resume") && err.contains("--fresh"), "{err}");
    assert_eq!(std::fs::read(&pgn).unwrap(), before, "nothing touched");
    job.rerun.resume = true;
    job.games = 6;
    let (kept, report) = kept_by(&job);
    assert_eq!(kept, 4, "the four games are kept");
    assert_eq!(report.pairings[0].score.games(), 6);
    job.seed = 2;
    let err = job.play(&quiet, &mut |_| {}).unwrap_err().to_string();
    assert!(err.contains("--seed was 1"), "{err}");
}

#[test]
fn a_second_run_on_the_same_folder_or_games_is_refused_before_it_touches_them() {
    let tmp = tempfile::tempdir().unwrap();
    let job = tiny(&tmp.path().join("run"));
    std::fs::create_dir_all(&job.settings.dir).unwrap();
    let held = texel_files::RunLock::beside(&job.settings.rounds_file()).unwrap();
    let err = job.run(&AtomicBool::new(false), &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("another run"), "{err}");
    assert!(
        !job.settings.dir.join("settings.json").exists(),
        "nothing written"
    );
    drop(held);
    let pgn = tmp.path().join("games.pgn");
    let mut games = SelfplayJob::new(None, 300, &openings(), &pgn);
    games.games = 2;
    let held = texel_files::RunLock::beside(&pgn).unwrap();
    let err = games
        .play(&AtomicBool::new(false), &mut |_| {})
        .unwrap_err();
    assert!(err.to_string().contains("another run"), "{err}");
    assert!(!pgn.exists(), "no game written");
    drop(held);
    assert_eq!(kept_by(&games).0, 0, "free once the first run ends");
}

#[test]
fn a_loop_resumed_with_an_input_changed_under_its_name_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("openings.epd");
    std::fs::copy(openings(), &copy).unwrap();
    let mut job = tiny(&tmp.path().join("run"));
    job.settings.openings = copy.clone();
    let (end, _) = kinds(&job, &AtomicBool::new(true));
    assert_eq!(end, LoopEnd::Interrupted);
    let mut text = std::fs::read_to_string(&copy).unwrap();
    text.truncate(text.len() / 2);
    std::fs::write(&copy, text).unwrap();
    let err = job.run(&AtomicBool::new(false), &mut |_| {}).unwrap_err();
    let err = err.to_string();
    assert!(
        err.contains("contents of --openings")
            && err.contains("give --openings the files with the contents the run began with"),
        "{err}"
    );
}
