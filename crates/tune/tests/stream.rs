//! `texel tune --stream`: a binary trace tuned with nothing kept per position, read from its
//! file in every pass. It finds what the in-memory tune finds, does not depend on the thread
//! count, stops on the interrupt flag and resumes from any checkpoint to the same values.

mod common;

use common::{on_threads, planted_positions, planted_space, TRUTH};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use texel_solve::error::KChoice;
use texel_tune::texel_trace::{write_binary, BinaryTrace};
use texel_tune::{
    tune_streamed, Checkpoint, Event, JobEvent, Labels, NothingToTune, PullChoice, RunEnd,
    StreamError, StreamEvent, StreamRun, Streamed, Streaming, TuneSettings, Unstreamed, DEFAULT_L2,
    L2, PULL_PATH,
};

/// 30,000 planted positions written as a binary trace in `dir`.
fn planted_trace(dir: &Path) -> PathBuf {
    let path = dir.join("planted.bin");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    write_binary(&mut out, &planted_space(), &planted_positions(30_000)).unwrap();
    drop(out);
    path
}

/// K 1, every value tuned, no pull, chunks of 4,096 positions.
fn settings() -> TuneSettings {
    TuneSettings {
        k: Some(1.0),
        min_support: 0,
        l2: L2::Fixed(0.0),
        stream: Streaming {
            chunk: 4_096,
            form: None,
        },
        ..TuneSettings::default()
    }
}

/// Results alone, `per_mille` positions in 1,000 held out.
fn held(per_mille: u32) -> Labels {
    Labels {
        held_out: texel_data::HeldOut::share(per_mille),
        ..Labels::default()
    }
}

/// The streamed tune of the planted trace from zero, from `resume` if given, with every
/// checkpoint it wrote (read after each pass), its checkpoint beside the trace.
fn tune(
    path: &Path,
    resume: Option<Checkpoint<Vec<i32>>>,
) -> (Streamed, Vec<Checkpoint<Vec<i32>>>) {
    let trace = BinaryTrace::read(path).unwrap();
    let slots: Vec<usize> = (0..13).collect();
    let kept = path.with_extension("checkpoint");
    let mut settings = settings();
    settings.run.checkpoint = Some(kept.clone());
    let mut states = Vec::new();
    let never = AtomicBool::new(false);
    let run = StreamRun::new(&settings, held(0));
    let ended = tune_streamed(&trace, (&[0; 13], &slots), run, resume, &never, |e| {
        if let StreamEvent::Job(JobEvent::Run(Event::Pass(..))) = e {
            states.extend(Checkpoint::<Vec<i32>>::read(&kept).ok());
        }
    })
    .unwrap();
    states.extend(Checkpoint::<Vec<i32>>::read(&kept).ok());
    std::fs::remove_file(&kept).unwrap();
    (ended, states)
}

#[test]
fn a_streamed_tune_finds_the_planted_values() {
    let dir = tempfile::tempdir().unwrap();
    let (ended, _) = tune(&planted_trace(dir.path()), None);
    assert_eq!(ended.values, TRUTH.to_vec());
    // Zero but for the labels kept as 32-bit floats.
    assert!(ended.error < 1e-6 && ended.real_error < 1e-12, "{ended:?}");
    assert!(ended.iterations <= 12, "{ended:?}");
}

#[test]
fn a_streamed_tune_does_not_depend_on_the_thread_count() {
    let one = on_threads(1, |dir| tune(&planted_trace(dir), None).0);
    let two = on_threads(2, |dir| tune(&planted_trace(dir), None).0);
    assert_eq!(one, two);
}

#[test]
fn a_streamed_tune_resumes_from_any_checkpoint_to_the_same_end() {
    let dir = tempfile::tempdir().unwrap();
    let path = planted_trace(dir.path());
    let (ended, states) = tune(&path, None);
    assert!(states.len() >= 3, "{}", states.len());
    let newton = |s: &Checkpoint<Vec<i32>>| s.descent.newton.clone().unwrap();
    let in_newton = (states.iter()).find(|s| newton(s).iterations == 2 && !newton(s).handed_over);
    // Newton handed over: the next pass is the polish's.
    let polishing = states.iter().find(|s| newton(s).handed_over);
    for state in [in_newton, polishing] {
        let (resumed, _) = tune(&path, Some(state.unwrap().clone()));
        assert_eq!(resumed, ended);
    }
}

#[test]
fn a_raised_interrupt_stops_a_streamed_tune_and_a_foreign_checkpoint_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = planted_trace(dir.path());
    let trace = BinaryTrace::read(&path).unwrap();
    let slots: Vec<usize> = (0..13).collect();
    let raised = AtomicBool::new(true);
    let plain = settings();
    let run = StreamRun::new(&plain, held(0));
    let stopped = tune_streamed(&trace, (&[0; 13], &slots), run, None, &raised, |_| {});
    let stopped = stopped.unwrap();
    assert_eq!((stopped.end, stopped.passes), (RunEnd::Interrupted, 0));
    let (_, states) = tune(&path, None);
    let foreign = Checkpoint {
        positions: 29_999,
        ..states[0].clone()
    };
    let never = AtomicBool::new(false);
    let run = StreamRun::new(&plain, held(0));
    let refused = tune_streamed(
        &trace,
        (&[0; 13], &slots),
        run,
        Some(foreign),
        &never,
        |_| {},
    );
    let message = refused.unwrap_err().to_string();
    assert!(message.contains("29999 positions"), "{message}");
}

#[test]
fn a_streamed_tune_without_k_fits_it_on_the_first_training_positions_at_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let trace = BinaryTrace::read(&planted_trace(dir.path())).unwrap();
    let settings = TuneSettings {
        k: None,
        ..settings()
    };
    let mut fitted = Vec::new();
    let never = AtomicBool::new(false);
    let ended = tune_streamed(
        &trace,
        (&TRUTH, &[0]),
        StreamRun::new(&settings, held(0)),
        None,
        &never,
        |e| {
            if let StreamEvent::Fitted(KChoice::Fitted(k)) = e {
                fitted.push(k);
            }
        },
    )
    .unwrap();
    // The labels are expected scores at K = 1 of the values the run starts from.
    assert_eq!(fitted.len(), 1);
    assert!((fitted[0] - 1.0).abs() < 0.01, "{fitted:?}");
    assert_eq!(ended.k, fitted[0]);
    assert_eq!(ended.values, TRUTH.to_vec());
}

#[test]
fn the_tuner_form_kept_in_a_scratch_file_gives_the_decoded_runs_end_and_goes() {
    let dir = tempfile::tempdir().unwrap();
    let path = planted_trace(dir.path());
    let (decoded, _) = tune(&path, None);
    let trace = BinaryTrace::read(&path).unwrap();
    let slots: Vec<usize> = (0..13).collect();
    let scratch = dir.path().join("run.form");
    let settings = TuneSettings {
        stream: Streaming {
            chunk: 4_096,
            form: Some(scratch.clone()),
        },
        ..settings()
    };
    let never = AtomicBool::new(false);
    let mut seen = false;
    let labels = StreamRun::new(&settings, held(100));
    let formed = tune_streamed(&trace, (&[0; 13], &slots), labels, None, &never, |_| {
        seen |= scratch.exists();
    })
    .unwrap();
    assert!(seen, "the form is written while the tune runs");
    assert!(!scratch.exists(), "and removed when it ends");
    let plain = self::settings();
    let decoding = StreamRun::new(&plain, held(100));
    let again = tune_streamed(&trace, (&[0; 13], &slots), decoding, None, &never, |_| {}).unwrap();
    assert_eq!(formed, again);
    assert_eq!(decoded.values, formed.values);
}

/// A setting of the one record that a streamed tune does not have is refused by its
/// option, before any position is read.
#[test]
fn settings_a_streamed_tune_does_not_have_are_refused_by_their_option() {
    let dir = tempfile::tempdir().unwrap();
    let trace = BinaryTrace::read(&planted_trace(dir.path())).unwrap();
    let never = AtomicBool::new(false);
    let refused = |settings: TuneSettings| {
        let labels = StreamRun::new(&settings, held(0));
        match tune_streamed(&trace, (&TRUTH, &[0]), labels, None, &never, |_| {}) {
            Err(StreamError::Unstreamed(what)) => what,
            other => panic!("not refused: {other:?}"),
        }
    };
    let mut warm = settings();
    warm.run.warm_start = Some(8);
    assert_eq!(refused(warm), Unstreamed::WarmStart);
    let mut cd = settings();
    cd.run.method = texel_solve::Method::Cd;
    let said = StreamError::Unstreamed(refused(cd)).to_string();
    assert!(
        said.starts_with("a streamed run does not take a method other"),
        "{said}"
    );
}

/// `--l2 auto` streamed: the path of pulls, strongest first, judged on the held-out
/// positions; on planted labels the held-out error falls as the pull weakens, so the path
/// walks to its end and the run, going on from the weakest pull's solution, finds the truth.
#[test]
fn a_streamed_tune_walks_the_path_of_pulls_on_its_held_out_positions() {
    let dir = tempfile::tempdir().unwrap();
    let trace = BinaryTrace::read(&planted_trace(dir.path())).unwrap();
    let slots: Vec<usize> = (0..13).collect();
    let kept = dir.path().join("run.checkpoint");
    let mut auto = TuneSettings {
        l2: L2::Auto,
        ..settings()
    };
    auto.run.checkpoint = Some(kept.clone());
    let log = dir.path().join("run.log");
    auto.run.log = Some(log.clone());
    let (mut points, mut chosen, mut states) = (Vec::new(), None, Vec::new());
    let never = AtomicBool::new(false);
    let ended = tune_streamed(
        &trace,
        (&[0; 13], &slots),
        StreamRun::new(&auto, held(100)),
        None,
        &never,
        |e| match e {
            StreamEvent::Job(JobEvent::Pull(p)) => points.push(p),
            StreamEvent::Job(JobEvent::PullChosen(c)) => chosen = Some(c),
            StreamEvent::Job(JobEvent::Run(Event::Pass(..))) => {
                states.extend(Checkpoint::<Vec<i32>>::read(&kept).ok())
            }
            _ => {}
        },
    )
    .unwrap();
    assert_eq!(points.iter().map(|p| p.l2).collect::<Vec<_>>(), PULL_PATH);
    assert!(
        points.windows(2).all(|w| w[1].held_out <= w[0].held_out),
        "{points:?}"
    );
    let Some(PullChoice::Path {
        l2,
        held_out,
        start,
        ..
    }) = chosen
    else {
        panic!("{chosen:?}");
    };
    let last = points.last().unwrap();
    assert_eq!((l2, held_out), (last.l2, last.held_out));
    // The path is the log's, as a run in memory writes it (`texel tune --l2 auto` reads it
    // back for its report).
    let written = std::fs::read_to_string(&log).unwrap();
    let (path, path_start) = texel_tune::log::read_tune_path(&written).unwrap();
    assert_eq!((path, path_start), (points.clone(), Some(start)));
    assert_eq!(ended.values, TRUTH.to_vec());
    // Checkpoints after the choice keep its pull: a resume goes on with it.
    assert!(
        states.last().is_some_and(|s| s.descent.guards.l2 == l2),
        "{:?}",
        states.last()
    );
    // Nothing held out: the default pull, said so.
    let (mut chosen, mut pulls) = (None, 0);
    tune_streamed(
        &trace,
        (&[0; 13], &slots),
        StreamRun::new(&auto, held(0)),
        None,
        &never,
        |e| match e {
            StreamEvent::Job(JobEvent::Pull(_)) => pulls += 1,
            StreamEvent::Job(JobEvent::PullChosen(c)) => chosen = Some(c),
            _ => {}
        },
    )
    .unwrap();
    assert_eq!((chosen, pulls), (Some(PullChoice::Default(DEFAULT_L2)), 0));
}

/// The one support hold: values fewer training positions use than `min_support` are held
/// and said, the others tuned; none left is refused as in memory.
#[test]
fn a_streamed_tune_holds_the_values_too_few_positions_use() {
    let dir = tempfile::tempdir().unwrap();
    let trace = BinaryTrace::read(&planted_trace(dir.path())).unwrap();
    let slots: Vec<usize> = (0..13).collect();
    let never = AtomicBool::new(false);
    let holding = |min_support| TuneSettings {
        min_support,
        ..settings()
    };
    let mut on_hold = Vec::new();
    let ended = tune_streamed(
        &trace,
        (&[0; 13], &slots),
        StreamRun::new(&holding(17_000), held(0)),
        None,
        &never,
        |e| {
            if let StreamEvent::Job(JobEvent::Held { held, min_support }) = e {
                assert_eq!(min_support, 17_000);
                on_hold = held.iter().map(|v| v.slot).collect();
            }
        },
    )
    .unwrap();
    assert!(
        !on_hold.is_empty() && !ended.tuned.is_empty(),
        "{on_hold:?} {:?}",
        ended.tuned
    );
    let mut all: Vec<usize> = on_hold.iter().chain(&ended.tuned).copied().collect();
    all.sort_unstable();
    assert_eq!(all, slots, "every slot either held or tuned");
    let refused = tune_streamed(
        &trace,
        (&[0; 13], &slots),
        StreamRun::new(&holding(30_001), held(0)),
        None,
        &never,
        |_| {},
    );
    assert!(
        matches!(
            refused,
            Err(StreamError::NothingToTune(NothingToTune(30_001)))
        ),
        "{refused:?}"
    );
}

/// A streamed tune's passes are the one run's: a log line after each, as in memory, every
/// pass judged on the held-out positions, and the values kept the best there.
#[test]
fn a_streamed_tune_logs_its_passes_and_keeps_the_best_on_validation() {
    let dir = tempfile::tempdir().unwrap();
    let trace = BinaryTrace::read(&planted_trace(dir.path())).unwrap();
    let slots: Vec<usize> = (0..13).collect();
    let log = dir.path().join("passes.jsonl");
    let mut logged = settings();
    logged.run.log = Some(log.clone());
    let mut passes = Vec::new();
    let never = AtomicBool::new(false);
    let run = StreamRun::new(&logged, held(100));
    let ended = tune_streamed(&trace, (&[0; 13], &slots), run, None, &never, |e| {
        if let StreamEvent::Job(JobEvent::Run(Event::Pass(r, None))) = e {
            passes.push(r.clone());
        }
    })
    .unwrap();
    assert_eq!(passes.len(), ended.passes);
    let lines = std::fs::read_to_string(&log).unwrap();
    assert_eq!(lines.lines().count(), passes.len(), "{lines}");
    let held_out: Vec<f64> = passes.iter().filter_map(|r| r.validation_error).collect();
    assert_eq!(held_out.len(), passes.len());
    let best = held_out.iter().copied().fold(f64::INFINITY, f64::min);
    assert_eq!(ended.validation, Some(best));
    assert_eq!(ended.values, TRUTH.to_vec());
}
