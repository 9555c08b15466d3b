//! Sources files through the real binary: three forms mixed with caps, a side-to-move
//! source read right, weights, filters and a phase balance counted as asked, what each
//! source gives printed and recorded (a changed source refuses a resume).

mod common;

use common::{as_records, fails, interrupt_when, sample, stdout_of as ok, texel};
use std::path::{Path, PathBuf};

/// The shipped positions of `white` labelled from the side to move's view, `FEN; 1.0` as
/// gedas_filtered_sf_d9 writes them.
fn side_to_move_file(white: &Path, out: PathBuf) {
    let text = std::fs::read_to_string(white).unwrap();
    let lines: String = (text.lines())
        .map(|line| {
            let (fen, label) = line.rsplit_once(' ').unwrap();
            let result: f64 = label.trim_matches(['[', ']']).parse().unwrap();
            let black = fen.split(' ').nth(1) == Some("b");
            format!("{fen}; {:.1}\n", if black { 1.0 - result } else { result })
        })
        .collect();
    std::fs::write(&out, lines).unwrap();
}

/// The `error:` line of a `texel error` run (K 1).
fn error_line(args: &[&std::ffi::OsStr]) -> String {
    let printed = ok(texel().args(["error", "--k", "1"]).args(args));
    let line = printed.lines().find(|l| l.starts_with("error:"));
    line.unwrap_or_else(|| panic!("{printed}")).to_string()
}

#[test]
fn three_forms_mix_with_caps_weights_filters_and_a_side_to_move_source() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    let white = sample(dir.path(), "white.epd", 3000);
    side_to_move_file(&white, path("stm.epd"));
    let text = std::fs::read_to_string(&white).unwrap();
    let first: String = text.lines().take(1000).map(|l| format!("{l}\n")).collect();
    let records = as_records(&first, texel_data::marlin::write_record, |_| 0);
    std::fs::write(path("r.marlin"), records).unwrap();
    let mix = r#"{
        "version": 1,
        "sources": [
            { "path": "white.epd", "cap": 1000 },
            { "path": "stm.epd", "labels": "stm", "cap": 1500, "weight": 2 },
            { "path": "r.marlin", "format": "marlin", "cap": 500, "filters": { "min_fullmove": 40 } }
        ]
    }"#;
    std::fs::write(path("mix.json"), mix).unwrap();
    let tuned = ok(texel()
        .args(["tune", "--passes", "1", "--group", "KnightV", "--sources"])
        .arg(path("mix.json"))
        .arg("--out")
        .arg(path("t.json")));
    assert!(path("t.json").exists(), "{tuned}");
    // Its form left out, the marlin source is named by its place in the file, not by a flag
    // that --sources would refuse.
    let unnamed = mix.replace(r#""format": "marlin", "#, "");
    std::fs::write(path("unnamed.json"), unnamed).unwrap();
    let said = fails(
        texel()
            .args(["error", "--sources"])
            .arg(path("unnamed.json")),
    );
    assert!(
        said.contains(r#"give source 3 of the sources file its "format""#)
            && !said.contains("--format"),
        "{said}"
    );
    // Named as the other 32-byte form, it is refused at the survey, named by its place.
    let bullet = mix.replace(r#""format": "marlin""#, r#""format": "bullet""#);
    std::fs::write(path("bullet.json"), bullet).unwrap();
    let said = fails(
        texel()
            .args(["error", "--sources"])
            .arg(path("bullet.json")),
    );
    assert!(
        said.contains("it holds marlinformat records, not bulletformat")
            && said.contains(r#"give source 3 of the sources file its "format": "marlin""#),
        "{said}"
    );
    // A position of the marlin file counts when its move number is 40 or more.
    let late = (text.lines().take(1000).skip(1).step_by(2))
        .filter(|l| l.split(' ').nth(5).unwrap().parse::<u32>().unwrap() >= 40)
        .count();
    for want in [
        "white.epd: 1000 positions in the mix (1000 taken of 3000 entries, 0 filtered)".to_string(),
        "stm.epd: 3000 positions in the mix (1500 taken of 3000 entries, 0 filtered)".to_string(),
        format!(
            "r.marlin: {late} positions in the mix ({late} taken of 1000 entries, {} filtered)",
            500 - late
        ),
    ] {
        assert_eq!(
            tuned.matches(&want).count(),
            2,
            "surveyed and loaded: {want}\n{tuned}"
        );
    }
    // The cap takes every third line, evenly: the same error as those lines alone.
    let thirds: String = text
        .lines()
        .skip(2)
        .step_by(3)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(path("thirds.epd"), thirds).unwrap();
    let only = |source: &str, name: &str| {
        let file = format!(r#"{{ "version": 1, "sources": [ {source} ] }}"#);
        std::fs::write(path(name), file).unwrap();
        path(name)
    };
    let capped = only(r#"{ "path": "white.epd", "cap": 1000 }"#, "capped.json");
    assert_eq!(
        error_line(&["--sources".as_ref(), capped.as_os_str()]),
        error_line(&["--epd".as_ref(), path("thirds.epd").as_os_str()])
    );
    // The side-to-move source alone reads as the white-labelled file.
    let stm_only = only(r#"{ "path": "stm.epd", "labels": "stm" }"#, "stm.json");
    assert_eq!(
        error_line(&["--sources".as_ref(), stm_only.as_os_str()]),
        error_line(&["--epd".as_ref(), white.as_os_str()])
    );
}

#[test]
fn a_phase_distribution_keeps_as_many_positions_as_its_scarcest_stretch_allows() {
    let dir = tempfile::tempdir().unwrap();
    sample(dir.path(), "white.epd", 3000);
    let text = std::fs::read_to_string(dir.path().join("white.epd")).unwrap();
    // texel's phase: knight and bishop 1, rook 2, queen 4 (at most 24); two stretches,
    // 0–12 and 13–24.
    let phase = |line: &str| -> u32 {
        let board = line.split(' ').next().unwrap();
        let p: u32 = (board.chars())
            .map(|c| match c.to_ascii_lowercase() {
                'n' | 'b' => 1,
                'r' => 2,
                'q' => 4,
                _ => 0,
            })
            .sum();
        p.min(24)
    };
    let late = text.lines().filter(|l| phase(l) * 2 / 25 == 0).count();
    let early = 3000 - late;
    let mix = r#"{ "version": 1, "sources": [ { "path": "white.epd" } ], "phases": [1, 1] }"#;
    std::fs::write(dir.path().join("mix.json"), mix).unwrap();
    let printed = ok(texel()
        .args(["error", "--sources"])
        .arg(dir.path().join("mix.json")));
    let kept = 2 * late.min(early);
    let want = format!("white.epd: {kept} positions in the mix (3000 taken of 3000 entries");
    assert!(
        printed.contains(&want),
        "{late} late, {early} early\n{printed}"
    );
    // A distribution asking for a stretch no position reaches keeps nothing: refused naming
    // the stretch, not blaming the file. In 25 stretches, stretch k holds phase k − 1.
    let low: String = (text.lines())
        .filter(|l| phase(l) <= 12)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(dir.path().join("low.epd"), &low).unwrap();
    let empty = 24;
    let mut shares = vec![0; 25];
    shares[empty] = 1;
    shares[phase(low.lines().next().unwrap()) as usize] = 1;
    let mix = format!(
        r#"{{ "version": 1, "sources": [ {{ "path": "low.epd" }} ], "phases": {shares:?} }}"#
    );
    std::fs::write(dir.path().join("mix.json"), mix).unwrap();
    let err = fails(
        texel()
            .args(["error", "--sources"])
            .arg(dir.path().join("mix.json")),
    );
    let named = format!("a share of stretch {} of 25", empty + 1);
    assert!(
        err.contains(&named) && err.contains("share of 0") && !err.contains("no usable"),
        "{err}"
    );
}

#[test]
fn a_changed_source_refuses_a_resume_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    sample(dir.path(), "white.epd", 70_000);
    let write_mix = |cap: u64| {
        let mix = format!(
            r#"{{ "version": 1, "sources": [ {{ "path": "white.epd", "cap": {cap} }} ] }}"#
        );
        std::fs::write(path("mix.json"), mix).unwrap();
    };
    write_mix(60_000);
    let tune = |extra: &[&str]| {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("texel"));
        c.args([
            "tune",
            "--passes",
            "3",
            "--group",
            "KnightV",
            "--group",
            "PassedV",
            "--sources",
        ])
        .arg(path("mix.json"))
        .arg("--out")
        .arg(path("t.json"))
        .args(extra);
        c
    };
    let (code, text) = interrupt_when(tune(&[]), |l| l.contains("tuning "));
    assert_eq!(code, Some(130), "{text}");
    let ckpt = path("t.json.ckpt");
    assert!(ckpt.exists(), "{text}");
    write_mix(50_000);
    let ckpt = ckpt.to_str().unwrap();
    let err = fails(&mut tune(&["--resume", ckpt]).into());
    assert!(err.contains("source 1") && err.contains("50000"), "{err}");
    assert!(
        err.contains("restore source 1 as it was") && !err.contains("for each of"),
        "{err}"
    );
    write_mix(60_000);
    // A line of the source relabelled: refused, the advice naming the sources file, not
    // `--epd`; restored, the resume goes on.
    let epd = std::fs::read_to_string(path("white.epd")).unwrap();
    let flipped = |line: &str| {
        let (fen, label) = line.rsplit_once(' ').unwrap();
        let other = if label == "[1.0]" { "[0.0]" } else { "[1.0]" };
        format!("{fen} {other}\n")
    };
    let relabelled: String = epd.lines().map(flipped).collect();
    std::fs::write(path("white.epd"), relabelled).unwrap();
    let err = fails(&mut tune(&["--resume", ckpt]).into());
    assert!(
        err.contains("--sources file") && !err.contains("give the --epd"),
        "{err}"
    );
    std::fs::write(path("white.epd"), epd).unwrap();
    let resumed = ok(&mut tune(&["--resume", ckpt]).into());
    assert!(resumed.contains("resuming after "), "{resumed}");
}

/// A bad sources file is refused, named, with what is wrong in it.
#[test]
fn a_bad_sources_file_is_named_with_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    sample(dir.path(), "white.epd", 3_000);
    let refused = |name: &str, sources: &str| {
        let text = format!(r#"{{ "version": 1, "sources": [ {sources} ] }}"#);
        std::fs::write(path(name), text).unwrap();
        fails(texel().args(["error", "--sources"]).arg(path(name)))
    };
    let err = refused("bad.json", r#"{ "path": "white.epd", "weight": -1 }"#);
    assert!(
        err.contains("bad.json") && err.contains("weight -1"),
        "{err}"
    );
    let err = refused("typo.json", r#"{ "path": "white.epd", "capp": 5 }"#);
    assert!(err.contains("typo.json") && err.contains("capp"), "{err}");
    // One file named twice, once as ./, or through a hard link: its positions would count
    // twice.
    let err = refused(
        "twice.json",
        r#"{ "path": "white.epd" }, { "path": "./white.epd" }"#,
    );
    let twice = |err: &str| err.contains("sources 1") && err.contains("same file");
    assert!(twice(&err) && err.contains("weight"), "{err}");
    std::fs::hard_link(path("white.epd"), path("linked.epd")).unwrap();
    let err = refused(
        "linked.json",
        r#"{ "path": "white.epd" }, { "path": "linked.epd" }"#,
    );
    assert!(twice(&err), "{err}");
    // A weight too small to count one position, a score bound below 1: each named.
    let err = refused("tiny.json", r#"{ "path": "white.epd", "weight": 1e-300 }"#);
    assert!(
        err.contains("source 1") && err.contains("weight 1e-300 counts none"),
        "{err}"
    );
    let err = refused(
        "bound.json",
        r#"{ "path": "white.epd", "filters": { "max_score": -5 } }"#,
    );
    assert!(err.contains("max_score -5"), "{err}");
}

#[test]
fn compare_and_the_lab_read_a_sources_file_as_tune_does() {
    let dir = tempfile::tempdir().unwrap();
    sample(dir.path(), "white.epd", 3000);
    let mix = r#"{ "version": 1, "sources": [ { "path": "white.epd", "cap": 2000 } ] }"#;
    std::fs::write(dir.path().join("mix.json"), mix).unwrap();
    let taken = "white.epd: 2000 positions in the mix (2000 taken of 3000 entries, 0 filtered)";
    let compared = ok(texel()
        .args([
            "compare",
            "--passes",
            "1",
            "--term",
            "BISHOP_PAIR",
            "--sources",
        ])
        .arg(dir.path().join("mix.json")));
    assert!(compared.contains(taken), "{compared}");
    let judged = ok(texel()
        .args(["lab", "--passes", "1", "--family", "FixedV", "--sources"])
        .arg(dir.path().join("mix.json"))
        .arg("--out")
        .arg(dir.path().join("lab")));
    assert!(judged.contains(taken), "{judged}");
}
