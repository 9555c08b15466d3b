//! A tune on files as one library call: an outside engine's trace tuned into its output,
//! stopped and continued from its checkpoint, and the runs a session refuses.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use texel_run::Settings;
use texel_solve::Method;
use texel_tune::texel_trace::{write_trace, Coef, Param, ParamSpace, TracedPosition};
use texel_tune::{
    EndData, Event, Holding, JobEvent, OutputError, Outputs, RunEnd, RunOptions, Selection,
    Session, SessionError, SessionEvent, StreamWhy, TraceSubject, TuneSettings,
};

/// One value, centipawns per pawn White has more; results as 100 a pawn at K = 1 would
/// give them (`same`: every result a draw), each position with the score 0.6.
fn write_pawn_trace(path: &Path, same: bool) {
    let pawn = Param {
        name: "PAWN".into(),
        len: 1,
        tapered: false,
        default: vec![10],
        group: None,
        candidate: false,
    };
    let space = ParamSpace::new(vec![pawn]).unwrap();
    let positions: Vec<TracedPosition> = (-40..=40)
        .map(|i| {
            let pawns = i % 5;
            let result = 1.0 / (1.0 + 10f32.powf(-(pawns * 100) as f32 / 400.0));
            TracedPosition {
                inner: Vec::new(),
                result: if same { 0.5 } else { result },
                score: Some(0.6),
                coeffs: vec![Coef::Count(0, pawns as f32)],
                phase: 1.0,
                scale: 1.0,
                ..TracedPosition::default()
            }
        })
        .collect();
    let mut file = std::fs::File::create(path).unwrap();
    write_trace(&mut file, &space, &positions).unwrap();
}

/// The session tuning the trace at `trace` into `out` at K 1 by coordinate descent,
/// recording `record`, toward the positions' results alone.
fn session(trace: &Path, out: PathBuf, record: Settings) -> Session<TraceSubject> {
    let subject = TraceSubject {
        lambda: texel_tune::Lambda::RESULTS,
        ..TraceSubject::open(
            trace,
            None,
            &Selection::default(),
            texel_data::HeldOut::NONE,
        )
        .unwrap()
    };
    Session {
        settings: TuneSettings {
            k: Some(1.0),
            min_support: 0,
            run: RunOptions {
                method: Method::Cd,
                ..RunOptions::default()
            },
            ..TuneSettings::default()
        },
        record: Some(record),
        ..Session::new(subject, Outputs::new(out))
    }
}

#[test]
fn a_session_writes_its_values_and_continues_a_stopped_run() {
    let dir = tempfile::tempdir().unwrap();
    let (trace, out) = (dir.path().join("t.jsonl"), dir.path().join("out.json"));
    write_pawn_trace(&trace, false);
    let settings = Settings::default().fixed("--l2", "0.1");
    // Stopped at its first pass: nothing but the checkpoint is written.
    let stop = AtomicBool::new(false);
    let stop_at_pass = &mut |e: SessionEvent<_>| {
        if let SessionEvent::Job(JobEvent::Run(Event::Progress(texel_tune::Progress { .. }))) = e {
            stop.store(true, Ordering::SeqCst);
        }
    };
    let first = session(&trace, out.clone(), settings.clone());
    let stopped = first.run(&stop, &|_| {}, stop_at_pass).unwrap();
    assert_eq!(stopped.tuned.result.end, RunEnd::Interrupted);
    let checkpoint = dir.path().join("out.json.ckpt");
    assert!(checkpoint.exists() && !out.exists());
    // A new run on these outputs neither continues nor clears the checkpoint: refused.
    let again = session(&trace, out.clone(), settings.clone());
    let err = again
        .run(&AtomicBool::new(false), &|_| {}, &mut |_| {})
        .err()
        .unwrap();
    assert!(matches!(
        err,
        SessionError::Outputs(OutputError::EarlierCheckpoint(_))
    ));
    // A resume with another setting is refused, naming it.
    let changed = Session {
        resume: Some(checkpoint.clone()),
        ..session(&trace, out.clone(), Settings::default().fixed("--l2", "0"))
    };
    let err = changed
        .run(&AtomicBool::new(false), &|_| {}, &mut |_| {})
        .err()
        .unwrap();
    assert!(err.to_string().contains("--l2"), "{err}");
    // The same settings go on to the end: the values written, the checkpoint gone.
    let resumed = Session {
        resume: Some(checkpoint.clone()),
        ..session(&trace, out.clone(), settings)
    };
    let mut events = Vec::new();
    let ended = resumed
        .run(&AtomicBool::new(false), &|_| {}, &mut |e| {
            events.push(matches!(e, SessionEvent::Resuming(_)));
        })
        .unwrap();
    assert!(events.contains(&true), "the resume is reported");
    assert_ne!(ended.tuned.result.end, RunEnd::Interrupted);
    assert!(!checkpoint.exists());
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let pawn = written["PAWN"].as_i64().unwrap();
    assert!((90..=110).contains(&pawn), "{written}");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 2, "the trace and the output, no lock left");
}

#[test]
fn a_session_stopped_while_reading_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    write_pawn_trace(&trace, false);
    let out = dir.path().join("out.json");
    let s = session(&trace, out.clone(), Settings::default());
    let mut events = 0;
    let err = s
        .run(&AtomicBool::new(true), &|_| {}, &mut |_| events += 1)
        .err()
        .unwrap();
    assert!(matches!(err, SessionError::Stopped), "{err}");
    assert_eq!(events, 0, "nothing was loaded or tuned");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(
        left.len(),
        1,
        "the trace alone: no output, checkpoint or lock"
    );
}

#[test]
fn positions_of_one_result_are_refused_before_tuning() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("draws.jsonl");
    write_pawn_trace(&trace, true);
    let out = dir.path().join("out.json");
    let s = session(&trace, out.clone(), Settings::default());
    let err = s
        .run(&AtomicBool::new(false), &|_| {}, &mut |_| {})
        .err()
        .unwrap();
    assert!(
        matches!(err, SessionError::OneResult { result, .. } if result == 0.5),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn a_lambda_below_one_mixes_the_score_into_each_target() {
    use texel_solve::Model;
    use texel_tune::{load_traces, Lambda};
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    write_pawn_trace(&trace, true);
    // Every result a draw (0.5), every score 0.6: by hand, 0.25 · 0.5 + 0.75 · 0.6 = 0.575.
    let mixed = load_traces(&trace, texel_data::HeldOut::NONE, Lambda::Given(0.25)).unwrap();
    assert_eq!((mixed.scored, mixed.lambda), (81, 0.25));
    for i in 0..mixed.train.len() {
        assert!((mixed.train.target(i) - 0.575).abs() < 1e-6);
    }
    let results = load_traces(&trace, texel_data::HeldOut::NONE, Lambda::RESULTS).unwrap();
    assert!((0..results.train.len()).all(|i| results.train.target(i) == 0.5));
    assert_ne!(
        mixed.fingerprint, results.fingerprint,
        "other targets, other data"
    );
    // Auto: every position carries a score, so 0.25 (the same targets and data).
    let auto = load_traces(&trace, texel_data::HeldOut::NONE, Lambda::Auto).unwrap();
    assert_eq!(auto.lambda, texel_tune::SCORED_LAMBDA);
    assert_eq!(auto.fingerprint, mixed.fingerprint);
    assert!((0..auto.train.len()).all(|i| (auto.train.target(i) - 0.575).abs() < 1e-6));
    // One position without a score: auto tunes on the results alone.
    let (space, mut positions) = texel_tune::texel_trace::read_trace(&trace).unwrap();
    positions[7].score = None;
    let partial = dir.path().join("partial.jsonl");
    write_trace(
        &mut std::fs::File::create(&partial).unwrap(),
        &space,
        &positions,
    )
    .unwrap();
    let auto = load_traces(&partial, texel_data::HeldOut::NONE, Lambda::Auto).unwrap();
    assert_eq!((auto.scored, auto.lambda), (80, 1.0));
    assert!((0..auto.train.len()).all(|i| auto.train.target(i) == 0.5));
    let given = load_traces(&partial, texel_data::HeldOut::NONE, Lambda::RESULTS).unwrap();
    assert_eq!(auto.fingerprint, given.fingerprint);
}

/// What [`held_run`] saw: whether the run said it streams, whether its end's data is a
/// streamed run's, the values it wrote and its log's last line.
type HeldRun = (Option<StreamWhy>, bool, String, String);

/// The session of `session` run the default way (Newton, then the polish) with the trace
/// held as `holding` says, its log beside `out`.
fn held_run(trace: &Path, out: PathBuf, holding: Holding) -> HeldRun {
    let mut s = session(trace, out.clone(), Settings::default());
    s.settings.run.method = Method::default();
    s.subject.holding = holding;
    let log = out.with_extension("log.jsonl");
    s.outputs.log = Some(log.clone());
    let mut why = None;
    let ended = s
        .run(&AtomicBool::new(false), &|_| {}, &mut |e| {
            if let SessionEvent::Streaming(w) = e {
                why = Some(w);
            }
        })
        .unwrap();
    let streamed = matches!(ended.data, EndData::Streamed(Some(_)));
    assert!(ended.tuned.changes.iter().all(|c| c.support > 0));
    let text = std::fs::read_to_string(&log).unwrap();
    let last = text.lines().last().unwrap_or_default().to_string();
    (why, streamed, std::fs::read_to_string(&out).unwrap(), last)
}

#[test]
fn the_subject_chooses_to_stream_a_binary_trace_past_its_budget_and_ends_alike() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("t.jsonl");
    write_pawn_trace(&text, false);
    let (space, positions) = texel_tune::texel_trace::read_trace(&text).unwrap();
    let binary = dir.path().join("t.bin");
    let mut file = std::fs::File::create(&binary).unwrap();
    texel_tune::texel_trace::write_binary(&mut file, &space, &positions).unwrap();
    drop(file);
    // Within the budget: in memory, nothing said.
    let roomy = held_run(
        &binary,
        dir.path().join("a.json"),
        Holding::Budget(u64::MAX),
    );
    assert_eq!((roomy.0, roomy.1), (None, false));
    // Past it: streamed, saying how much memory it would have needed.
    let need = texel_tune::in_memory_need(&binary).unwrap();
    let tight = held_run(
        &binary,
        dir.path().join("b.json"),
        Holding::Budget(need - 1),
    );
    let budget = need - 1;
    assert_eq!(tight.0, Some(StreamWhy::TooLarge { need, budget }));
    assert!(tight.1, "a streamed end");
    assert_eq!(tight.2, roomy.2, "the same values written either way");
    // Either log ends with the same last line: what was held and what changed.
    let last: serde_json::Value = serde_json::from_str(&roomy.3).unwrap();
    assert_eq!(last["changes"][0]["value"], "PAWN", "{}", roomy.3);
    assert_eq!(tight.3, roomy.3, "the same last line of the log either way");
    // A text trace is always loaded within a budget, and refused when asked to stream.
    let text_run = held_run(&text, dir.path().join("c.json"), Holding::Budget(0));
    assert_eq!((text_run.0, text_run.1), (None, false));
    let mut asked = session(&text, dir.path().join("d.json"), Settings::default());
    asked.subject.holding = Holding::Stream;
    let err = (asked.run(&AtomicBool::new(false), &|_| {}, &mut |_| {}))
        .err()
        .unwrap();
    assert!(
        err.to_string()
            .contains("a streamed run reads a binary one"),
        "{err}"
    );
    let left = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(
        left, 8,
        "the traces and three outputs with their logs, no checkpoint or lock"
    );
}
