//! The term lab as a library job: subjects from the settings, verdicts appended and kept
//! across reruns, reports written, kept candidates adopted (only those proven in games when
//! a prover plays them), and a stop that goes on later.

use std::sync::atomic::AtomicBool;
use texel_lab::report::{GameProof, KeepRule, LabReport};
use texel_lab::{LabEvent, LabJob, LabLog, LabSettings, LabSpace};
use texel_lab::{ProveError, Prover, SubjectError, Verdict};
use texel_run::Rerun;
use texel_solve::Model;
use texel_tune::texel_trace::{Coef, Param, ParamSpace, TracedPosition};
use texel_tune::TraceDataset;
use texel_tune::TuneData;

/// PAWN (established, 100 a pawn), BONUS (a candidate worth 50 in the labels) and NOISE (a
/// candidate the labels do not follow), all in group `material`.
fn space() -> ParamSpace {
    let param = |name: &str, default: i32, candidate: bool| Param {
        name: name.into(),
        len: 1,
        tapered: false,
        default: vec![default],
        group: Some("material".into()),
        candidate,
    };
    ParamSpace::new(vec![
        param("PAWN", 100, false),
        param("BONUS", 0, true),
        param("NOISE", 0, true),
    ])
    .unwrap()
}

/// Every mix of pawns, bonus and noise features, labelled by `100·pawns + 50·bonus` at K 1.
fn positions() -> Vec<TracedPosition> {
    let mut list = Vec::new();
    for pawns in -3..=3 {
        for bonus in -1..=1 {
            for noise in -1..=1 {
                let eval = (100 * pawns + 50 * bonus) as f32;
                list.push(TracedPosition {
                    inner: Vec::new(),
                    result: 1.0 / (1.0 + 10f32.powf(-eval / 400.0)),
                    coeffs: vec![
                        Coef::Count(0, pawns as f32),
                        Coef::Count(1, bonus as f32),
                        Coef::Count(2, noise as f32),
                    ],
                    phase: 1.0,
                    scale: 1.0,
                    ..TracedPosition::default()
                });
            }
        }
    }
    list
}

/// The positions as training and validation sets, scored with `base`.
fn data(space: &ParamSpace, base: &Vec<i32>) -> TuneData<TraceDataset> {
    let positions = positions();
    let refs: Vec<&TracedPosition> = positions.iter().collect();
    let mut train = TraceDataset::new(space, &refs, |p| p.result);
    let mut validation = TraceDataset::new(space, &refs, |p| p.result);
    train.rescore(base);
    validation.rescore(base);
    TuneData {
        train,
        validation,
        k: 1.0,
        fingerprint: 7,
        labels: None,
    }
}

fn job<'s>(space: &'s ParamSpace, settings: LabSettings) -> LabJob<'s, Vec<i32>> {
    let space = LabSpace::Outside(space);
    LabJob {
        subjects: settings.subjects(space).unwrap(),
        settings,
        needs_validation: true,
        space,
        base: vec![100, 0, 0],
        header: vec!["a test".into()],
    }
}

/// Plays nothing: says every subject lost its games.
struct LosesInGames;

impl Prover<Vec<i32>> for LosesInGames {
    fn prove(
        &mut self,
        _: &Vec<i32>,
        _: &Verdict,
        _: &KeepRule,
        _: &AtomicBool,
    ) -> Result<Option<GameProof>, ProveError> {
        Ok(Some(GameProof {
            wins: 0,
            draws: 0,
            losses: 2,
            elo: (-400.0, 0.0),
            llr: -3.0,
            sprt: "H0".into(),
            test: texel_arena::sprt::SprtTest::logistic(0.0, 5.0),
        }))
    }
}

#[test]
fn a_lab_keeps_the_term_the_labels_follow_and_adopts_it() {
    let dir = tempfile::tempdir().unwrap();
    let space = space();
    let settings = LabSettings {
        each_term: true,
        out: dir.path().join("lab"),
        apply: Some(dir.path().join("adopted.json")),
        ..LabSettings::default()
    };
    let job = job(&space, settings);
    let names: Vec<&str> = job.subjects.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["BONUS", "NOISE"]);
    let mut data = data(&space, &job.base);
    let (log, _) = LabLog::open(&job.settings.out, Rerun::default()).unwrap();
    let mut steps = Vec::new();
    let outcome = job
        .run(log, &mut data, None, &AtomicBool::new(false), &mut |e| {
            steps.push(
                format!("{e:?}")
                    .split([' ', '{'])
                    .next()
                    .unwrap()
                    .to_string(),
            );
        })
        .unwrap();
    assert_eq!(
        steps,
        ["Verdict", "Verdict", "Reports", "Adopting", "Adopted", "Applied"]
    );
    assert!(outcome.complete);
    let rule = job.settings.rule(true);
    let [bonus, noise] = &outcome.verdicts[..] else {
        panic!("two verdicts")
    };
    assert!(
        rule.keeps(bonus) && !rule.keeps(noise),
        "{bonus:?} {noise:?}"
    );
    assert!((45..=55).contains(&bonus.values[0].1[0]), "{bonus:?}");
    let adopted: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("adopted.json")).unwrap())
            .unwrap();
    assert!(
        (45..=55).contains(&adopted["BONUS"].as_i64().unwrap()),
        "{adopted}"
    );
    assert_eq!(adopted["NOISE"], 0);
    let report = std::fs::read_to_string(job.settings.out.join("lab.json")).unwrap();
    let report = LabReport::read(&report).unwrap();
    assert_eq!(report.run, ["a test"]);
    assert!(report.verdicts[0].kept && report.verdicts[0].verdict.subject == "BONUS");
}

#[test]
fn a_rerun_keeps_earlier_verdicts_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let space = space();
    let settings = LabSettings {
        out: dir.path().to_path_buf(),
        ..LabSettings::default()
    };
    let job = job(&space, settings);
    assert_eq!(job.subjects.len(), 1, "one family: material");
    let mut data = data(&space, &job.base);
    let stop = AtomicBool::new(true);
    let (log, _) = LabLog::open(dir.path(), Rerun::default()).unwrap();
    let stopped = job.run(log, &mut data, None, &stop, &mut |_| {}).unwrap();
    assert!(!stopped.complete && stopped.verdicts.is_empty());
    let (log, _) = LabLog::open(dir.path(), Rerun::default()).unwrap();
    let go = AtomicBool::new(false);
    let first = job.run(log, &mut data, None, &go, &mut |_| {}).unwrap();
    assert!(first.complete);
    let refused = LabLog::open(dir.path(), Rerun::default()).err().unwrap();
    assert!(refused.to_string().contains("--resume"), "{refused}");
    let resume = Rerun {
        resume: true,
        fresh: false,
    };
    let (log, _) = LabLog::open(dir.path(), resume).unwrap();
    let mut before = Vec::new();
    let again = job
        .run(log, &mut data, None, &go, &mut |e| {
            if let LabEvent::Verdict { before: b, .. } = e {
                before.push(b);
            }
        })
        .unwrap();
    assert_eq!(before, [true]);
    // Read back from lab.jsonl: the same verdict (JSON keeps errors to the last bit or so).
    let (a, b) = (&again.verdicts[0], &first.verdicts[0]);
    assert_eq!(
        (&a.subject, &a.values, a.support),
        (&b.subject, &b.values, b.support)
    );
    assert!(
        (a.train_gain() - b.train_gain()).abs() < 1e-15,
        "{a:?} {b:?}"
    );
}

#[test]
fn with_proofs_only_subjects_that_win_their_games_are_adopted() {
    let dir = tempfile::tempdir().unwrap();
    let space = space();
    let settings = LabSettings {
        term: vec!["BONUS".into()],
        out: dir.path().to_path_buf(),
        apply: Some(dir.path().join("adopted.json")),
        ..LabSettings::default()
    };
    let job = job(&space, settings);
    let mut data = data(&space, &job.base);
    let (log, _) = LabLog::open(dir.path(), Rerun::default()).unwrap();
    let mut prover = LosesInGames;
    let (mut reports, mut proved) = (0, Vec::new());
    let outcome = job
        .run(
            log,
            &mut data,
            Some(&mut prover),
            &AtomicBool::new(false),
            &mut |e| match e {
                LabEvent::Reports { .. } => reports += 1,
                LabEvent::Proved { subject, .. } => proved.push(subject.to_string()),
                _ => {}
            },
        )
        .unwrap();
    assert_eq!((reports, proved), (2, vec!["BONUS".to_string()]));
    assert_eq!(outcome.proofs["BONUS"].sprt, "H0");
    let adopted = std::fs::read_to_string(dir.path().join("adopted.json")).unwrap();
    let adopted: serde_json::Value = serde_json::from_str(&adopted).unwrap();
    assert_eq!(adopted["BONUS"], 0, "lost its games: not adopted");
    let md = std::fs::read_to_string(dir.path().join("lab.md")).unwrap();
    assert!(md.contains("loses in games"), "{md}");
}

#[test]
fn the_settings_ask_for_subjects_the_space_has() {
    let space = space();
    let outside = LabSpace::Outside(&space);
    let ask = |settings: LabSettings| settings.subjects(outside);
    let err = |settings| ask(settings).unwrap_err().to_string();
    let term = |t: &str| LabSettings {
        term: vec![t.into()],
        ..LabSettings::default()
    };
    assert!(err(term("PAWN")).contains("not a candidate parameter"));
    let ablate = |a: &str| LabSettings {
        ablate: vec![a.into()],
        ..LabSettings::default()
    };
    assert!(matches!(
        ask(ablate("material")),
        Err(SubjectError::IsCandidate(name)) if name == "BONUS"
    ));
    let pawn = ask(ablate("PAWN")).unwrap();
    assert_eq!(
        (pawn[0].name.as_str(), &pawn[0].partners[..]),
        ("-PAWN", &["material".to_string()][..])
    );
    assert!(err(ablate("KING")).contains("no parameter or group \"KING\""));
    // texel's table: every candidate family by default; names are checked.
    let table = |settings: LabSettings| settings.subjects(LabSpace::Table);
    let families = table(LabSettings::default()).unwrap();
    assert!(families.len() > 1 && families.iter().all(|s| s.kind.name() == "candidate"));
    let family = LabSettings {
        family: vec!["PawnV".into()],
        ..LabSettings::default()
    };
    assert!(table(family)
        .unwrap_err()
        .to_string()
        .contains("no candidate family"));
    let established = table(term("BISHOP_PAIR")).unwrap_err().to_string();
    assert!(established.contains("use --ablate"), "{established}");
}

#[test]
fn the_default_settings_are_the_flags_defaults() {
    let settings = LabSettings::default();
    assert_eq!((settings.passes, settings.out.to_str()), (4, Some("lab")));
    let text = serde_json::to_string(&settings).unwrap();
    let back: LabSettings = serde_json::from_str(&text).unwrap();
    assert_eq!(back, settings);
    let partial: LabSettings = serde_json::from_str(r#"{"passes": 2}"#).unwrap();
    assert_eq!(partial.out, settings.out);
    assert!(serde_json::from_str::<LabSettings>(r#"{"pases": 2}"#).is_err());
}

#[test]
fn a_second_lab_in_the_same_folder_is_refused_while_the_first_runs() {
    let dir = tempfile::tempdir().unwrap();
    let (first, _) = LabLog::open(dir.path(), Rerun::default()).unwrap();
    let refused = LabLog::open(dir.path(), Rerun::default()).err().unwrap();
    assert!(refused.to_string().contains("another run"), "{refused}");
    drop(first);
    assert!(LabLog::open(dir.path(), Rerun::default()).is_ok());
}
