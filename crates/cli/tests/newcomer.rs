//! What a newcomer meets first: `texel` alone on a terminal says what it is, completions
//! and a manual page come from the CLI's own definition, and the binary ships without
//! debug info.

mod common;

use common::{fails, stdout_of, texel};

#[test]
fn texel_alone_on_a_terminal_says_what_it_is_and_stays_quiet_for_programs() {
    let bin = assert_cmd::cargo::cargo_bin("texel");
    // `script` gives texel a terminal as its standard input.
    let out = std::process::Command::new("script")
        .args(["-qec", &bin.display().to_string(), "/dev/null"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(b"quit\n")?;
            child.wait_with_output()
        })
        .expect("`script` (util-linux) runs texel on a terminal");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("a UCI chess engine") && text.contains("texel --help"),
        "{text}"
    );
    let piped = texel().write_stdin("quit\n").output().unwrap();
    assert!(piped.status.success());
    assert!(
        piped.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&piped.stderr)
    );
}

#[test]
fn completions_and_the_manual_page_cover_every_command() {
    for shell in ["bash", "zsh", "fish"] {
        let script = stdout_of(texel().args(["completions", shell]));
        for command in ["tune", "lab", "selfplay", "loop", "--resume"] {
            assert!(script.contains(command), "{shell}: {command}");
        }
    }
    let err = fails(texel().args(["completions", "tcsh"]));
    assert!(
        err.contains("bash") && err.contains("fish"),
        "names the shells it knows: {err}"
    );
    let page = stdout_of(texel().arg("manpage"));
    assert!(
        page.contains(".TH texel 1") && page.contains("tune"),
        "{page}"
    );
}

#[test]
fn every_page_the_manual_names_is_written_by_manpage_dir() {
    let dir = tempfile::tempdir().unwrap();
    texel()
        .args(["manpage", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let main = std::fs::read_to_string(dir.path().join("texel.1")).unwrap();
    let named: Vec<&str> = main
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '\\'))
        .filter_map(|w| w.strip_prefix("texel\\-"))
        .collect();
    assert!(
        named.len() > 15,
        "the main page names the subcommands' pages"
    );
    for sub in named {
        let page = dir.path().join(format!("texel-{sub}.1"));
        assert!(page.exists(), "{} is named but not written", page.display());
    }
    let traces = std::fs::read_to_string(dir.path().join("texel-traces-convert.1")).unwrap();
    assert!(traces.contains(".TH texel-traces-convert 1"), "{traces}");
}

#[test]
#[cfg(target_os = "linux")]
fn printing_to_a_full_disk_or_a_closed_pipe_is_an_error_or_nothing_never_a_panic() {
    let run = |args: &[&str], stdout: std::process::Stdio| {
        let bin = assert_cmd::cargo::cargo_bin("texel");
        let out = std::process::Command::new(bin)
            .args(args)
            .stdout(stdout)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    for args in [&["completions", "bash"][..], &["manpage"], &["params"]] {
        let full = std::fs::File::create("/dev/full").unwrap();
        let (code, err) = run(args, full.into());
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(
            err.starts_with("error: ") && err.contains("No space left"),
            "{args:?}: {err}"
        );
        // A reader that has gone: nothing more to say, and no panic.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let (code, err) = run(args, writer.into());
        assert!(
            code == Some(0) && !err.contains("panicked"),
            "{args:?}: {err}"
        );
    }
}

/// The names of an ELF file's sections (64-bit, little-endian), or `None` if it is not one.
fn elf_section_names(elf: &[u8]) -> Option<Vec<String>> {
    let u16_at = |at: usize| Some(u16::from_le_bytes(elf.get(at..at + 2)?.try_into().ok()?));
    let u32_at = |at: usize| Some(u32::from_le_bytes(elf.get(at..at + 4)?.try_into().ok()?));
    let u64_at = |at: usize| Some(u64::from_le_bytes(elf.get(at..at + 8)?.try_into().ok()?));
    if elf.get(..5)? != b"\x7fELF\x02" {
        return None;
    }
    let (table, size) = (u64_at(0x28)? as usize, usize::from(u16_at(0x3a)?));
    let (count, names_at) = (usize::from(u16_at(0x3c)?), usize::from(u16_at(0x3e)?));
    let names = u64_at(table + names_at * size + 0x18)? as usize;
    (0..count)
        .map(|i| {
            let from = names + u32_at(table + i * size)? as usize;
            let name = elf.get(from..)?.split(|&b| b == 0).next()?;
            Some(String::from_utf8_lossy(name).into_owned())
        })
        .collect()
}

#[test]
fn the_release_binary_carries_no_debug_info() {
    let bin = assert_cmd::cargo::cargo_bin("texel");
    let elf = std::fs::read(&bin).unwrap();
    // With debug info it was 31 MB, its sections `.debug_info`, `.debug_line` and more.
    if cfg!(all(target_os = "linux", not(debug_assertions))) {
        let names = elf_section_names(&elf).expect("an ELF binary");
        assert!(names.iter().any(|n| n == ".text"), "{names:?}");
        let debug: Vec<&String> = names.iter().filter(|n| n.starts_with(".debug")).collect();
        assert!(debug.is_empty(), "{} holds {debug:?}", bin.display());
    }
}

#[test]
fn commands_say_what_they_wrote_and_what_their_numbers_mean() {
    let tmp = tempfile::tempdir().unwrap();
    let json = tmp.path().join("p.json");
    let text = stdout_of(texel().args(["export", "--json"]).arg(&json));
    assert!(
        text.contains(&format!(
            "wrote the parameters as JSON to {}",
            json.display()
        )),
        "{text}"
    );
    let epd = common::sample(tmp.path(), "s.epd", 400);
    let text = stdout_of(
        texel()
            .args([
                "compare",
                "--term",
                "BISHOP_PAIR",
                "--without",
                "PAWN_DOUBLED",
            ])
            .args(["--passes", "1", "--epd"])
            .arg(&epd),
    );
    assert!(
        text.contains("gain = held - free, the error the term removes"),
        "{text}"
    );
    assert!(
        text.contains("for --without, the error its removal adds"),
        "{text}"
    );
    let help = stdout_of(texel().args(["tune", "--help"]));
    assert!(help.contains("bring no new best validation"), "{help}");
}

/// The guides the README's table lists (under `docs/`), whose commands a newcomer types.
const GUIDES: [&str; 8] = [
    "tuning.md",
    "own-engine.md",
    "data-formats.md",
    "term-lab.md",
    "loop.md",
    "long-runs.md",
    "speed.md",
    "engine.md",
];

/// The repository's root.
fn repo_root() -> &'static std::path::Path {
    std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// The README and its guides, in that order: (name, text).
fn guide_pages() -> Vec<(String, String)> {
    let mut names = vec!["README.md".to_string()];
    names.extend(GUIDES.map(|g| format!("docs/{g}")));
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    for guide in GUIDES {
        assert!(
            readme.contains(&format!("(docs/{guide})")),
            "the README lists {guide}"
        );
    }
    (names.into_iter())
        .map(|n| {
            let text = std::fs::read_to_string(repo_root().join(&n)).unwrap();
            (n, text)
        })
        .collect()
}

/// The command lines of the `sh` blocks of `text`, continuation lines joined, comments
/// left out.
fn commands_of(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for block in text.split("```sh\n").skip(1) {
        let block = &block[..block.find("```").unwrap()];
        let joined = block.replace("\\\n", " ");
        out.extend(
            joined
                .lines()
                .map(|l| l.split(" # ").next().unwrap().trim().to_string())
                .filter(|l| !l.starts_with('#') && !l.is_empty()),
        );
    }
    out
}

/// The command lines of the `sh` blocks of the README and its guides.
fn guide_commands() -> Vec<String> {
    guide_pages()
        .iter()
        .flat_map(|(_, text)| commands_of(text))
        .collect()
}

/// The flags whose value a command writes.
const OUTPUT_FLAGS: [&str; 13] = [
    "--out",
    "--json",
    "--rust",
    "--pgn",
    "--apply",
    "--log",
    "--report",
    "--dir",
    "--stats-json",
    "--checkpoint",
    "--marlin",
    "--viri",
    "--bullet",
];

/// Files the guides' commands read that the reader makes by hand, as their pages say: the
/// trace the documented Python writer writes, the export templates the pages show, a
/// sources file, the reader's own positions and an outside engine's games.
const MADE_BY_HAND: [&str; 7] = [
    "runs/my-engine.jsonl",
    "runs/eval.c.in",
    "runs/eval.rs.in",
    "mix.json",
    "theirs.epd",
    "YOUR.epd",
    "runs/outside",
];

/// The files `line` writes: its outputs' values (and a tune's checkpoint beside its
/// output), a self-play's `--epd`, a config's outputs (relative to the config's folder).
fn written_by(line: &str) -> Vec<String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut written = Vec::new();
    for pair in words.windows(2) {
        let reads_pgn = pair[0] == "--pgn" && line.starts_with("texel import");
        let selfplay_epd = pair[0] == "--epd" && line.starts_with("texel selfplay");
        if (OUTPUT_FLAGS.contains(&pair[0]) && !reads_pgn) || selfplay_epd {
            written.extend([pair[1].to_string(), format!("{}.ckpt", pair[1])]);
        }
        if pair[0] == "--config" {
            let text = std::fs::read_to_string(repo_root().join(pair[1])).unwrap();
            let config: serde_json::Value = serde_json::from_str(&text).unwrap();
            let strings = config
                .as_object()
                .unwrap()
                .values()
                .filter_map(|v| v.as_str());
            written.extend(strings.filter_map(|v| v.strip_prefix("../").map(String::from)));
        }
    }
    if let Some(games) = line.strip_prefix("scripts/gen-games.sh ") {
        written.push(games.split_whitespace().next().unwrap().to_string());
    }
    written
}

/// The files `line` reads: the values of its other flags that name a path in the
/// repository's folder (engine specs and presets aside).
fn read_by(line: &str) -> Vec<String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let path_like = |v: &str| {
        let ends = [
            ".epd", ".json", ".jsonl", ".pgn", ".gz", ".bin", ".trace", ".in",
        ];
        !v.starts_with('/')
            && !v.contains('=')
            && (v.contains('/') || ends.iter().any(|e| v.ends_with(e)))
    };
    (words.windows(2))
        .filter(|p| p[0].starts_with("--") && !OUTPUT_FLAGS.contains(&p[0]))
        .filter(|p| !(p[0] == "--epd" && line.starts_with("texel selfplay")))
        .filter(|p| p[0] != "--pgn" || line.starts_with("texel import"))
        .map(|p| p[1])
        .filter(|v| path_like(v))
        .map(String::from)
        .collect()
}

/// Every `texel` command of the README and its guides parses as written (its flags and
/// values: run with `--help` appended, which clap answers only after reading them all),
/// and every file it reads is shipped, written by a command before it (on its page or in
/// the README, which a newcomer runs first), or one the pages have the reader make.
#[test]
fn the_guides_commands_parse_and_read_only_files_a_step_before_makes() {
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_texel"))
        .parent()
        .unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let pages = guide_pages();
    let readme: Vec<String> = commands_of(&pages[0].1)
        .iter()
        .flat_map(|l| written_by(l))
        .collect();
    for (page, text) in &pages {
        let mut written = readme.clone();
        for line in commands_of(text) {
            if !line.starts_with("texel ") {
                written.extend(written_by(&line));
                continue;
            }
            let command = line.split(['>', '|']).next().unwrap();
            let command = command.split(" && ").next().unwrap();
            let run = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("{command} --help"))
                .env("PATH", &path)
                .current_dir(repo_root())
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&run.stderr);
            assert!(
                run.status.success(),
                "{page}: `{line}` does not parse: {err}"
            );
            for read in read_by(&line) {
                let made = written
                    .iter()
                    .any(|w| read == *w || read.starts_with(&format!("{w}/")))
                    || MADE_BY_HAND.contains(&read.as_str());
                assert!(
                    made || repo_root().join(&read).exists(),
                    "{page}: `{line}` reads {read}, which no command before it writes"
                );
            }
            written.extend(written_by(&line));
        }
    }
}

#[test]
fn the_guides_examples_write_under_runs_and_can_be_typed_as_written() {
    let commands = guide_commands();
    assert!(commands.len() > 40, "{commands:?}");
    let outputs = OUTPUT_FLAGS;
    for line in &commands {
        let words: Vec<&str> = line.split_whitespace().collect();
        assert!(
            !line.contains('<') && !words.contains(&"...") && !line.contains("START.json"),
            "a placeholder: {line}"
        );
        for pair in words.windows(2) {
            // `eval --json` and `params --json` print JSON: a switch, not a file.
            let switch = line.starts_with("texel eval") || line.starts_with("texel params");
            let reads_pgn = pair[0] == "--pgn" && line.starts_with("texel import");
            let writes =
                (outputs.contains(&pair[0]) && !(switch && pair[0] == "--json") && !reads_pgn)
                    || (pair[0] == "--epd" && line.starts_with("texel selfplay"));
            let inside = ["runs/", "crates/", "/dev/"]
                .iter()
                .any(|d| pair[1].starts_with(d));
            assert!(
                !writes || inside,
                "{} writes {} outside runs/: {line}",
                pair[0],
                pair[1]
            );
        }
        if line.starts_with("scripts/gen-games.sh") {
            assert!(words[1].starts_with("runs/"), "{line}");
        }
    }
}

#[test]
fn traces_convert_between_text_and_binary_without_loss() {
    let tmp = tempfile::tempdir().unwrap();
    let text = tmp.path().join("t.jsonl");
    std::fs::write(
        &text,
        concat!(
            r#"{"format":"texel-trace","version":1,"params":[{"name":"P","len":2,"tapered":true,"default":[[1,2],[3,4]]},{"name":"T","len":1,"tapered":false,"default":5}]}"#,
            "\n",
            r#"{"result":1,"phase":0.25,"offset":-3,"coeffs":[[0,1],[1,-2],[2,0.5]]}"#,
            "\n",
            r#"{"result":0.5,"phase":0,"scale":0.5,"coeffs":[[1,0.25,0.75]],"score":0.4}"#,
            "\n"
        ),
    )
    .unwrap();
    let (bin, back) = (tmp.path().join("t.bin"), tmp.path().join("back.jsonl"));
    let said = stdout_of(
        texel()
            .args(["traces", "convert", "--input"])
            .arg(&text)
            .arg("--out")
            .arg(&bin),
    );
    assert!(
        said.contains("wrote 2 positions of 2 parameters (5 values)") && said.contains("binary")
    );
    assert!(std::fs::read(&bin).unwrap().starts_with(b"TXTRACE1"));
    stdout_of(
        texel()
            .args(["traces", "convert", "--input"])
            .arg(&bin)
            .arg("--out")
            .arg(&back),
    );
    let again = tmp.path().join("again.jsonl");
    stdout_of(
        texel()
            .args(["traces", "convert", "--to", "text", "--input"])
            .arg(&text)
            .arg("--out")
            .arg(&again),
    );
    assert_eq!(
        std::fs::read(&back).unwrap(),
        std::fs::read(&again).unwrap()
    );
    let err = fails(
        texel()
            .args(["traces", "convert", "--input"])
            .arg(&text)
            .arg("--out")
            .arg(&text),
    );
    assert!(err.contains("--out") && err.contains("--input"), "{err}");
    std::fs::write(&bin, b"TXTRACE1\x02\x00\x00\x00{}").unwrap();
    let err = fails(
        texel()
            .args(["traces", "convert", "--input"])
            .arg(&bin)
            .arg("--out")
            .arg(&back),
    );
    assert!(err.contains("t.bin: byte 12: format"), "{err}");
}

#[test]
fn tuned_values_regenerate_an_engine_s_own_source_from_its_template() {
    let tmp = tempfile::tempdir().unwrap();
    let template = tmp.path().join("eval.rs.in");
    std::fs::write(
        &template,
        "pub const BISHOP_PAIR: S = {{BISHOP_PAIR}};\nconst SUB: i32 = {{KS_ATTACK_SUB}};\n",
    )
    .unwrap();
    let params = tmp.path().join("p.json");
    std::fs::write(&params, r#"{"BISHOP_PAIR": [31, 62]}"#).unwrap();
    let out = tmp.path().join("eval.rs");
    stdout_of(
        texel()
            .args(["export", "--template"])
            .arg(&template)
            .arg("--out")
            .arg(&out)
            .arg("--params")
            .arg(&params),
    );
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "pub const BISHOP_PAIR: S = S(31, 62);\nconst SUB: i32 = 280;\n"
    );
    // Another engine: its parameters named by a trace header, its values as JSON, a
    // Python table written with its own pair pattern.
    let trace = tmp.path().join("t.jsonl");
    std::fs::write(
        &trace,
        r#"{"format":"texel-trace","version":1,"params":[{"name":"PST","len":2,"tapered":true,"default":[[1,2],[3,4]]},{"name":"TEMPO","len":1,"default":5}]}"#,
    )
    .unwrap();
    let tuned = tmp.path().join("tuned.json");
    std::fs::write(&tuned, r#"{"PST": [[10, 20], [30, 40]]}"#).unwrap();
    let py = tmp.path().join("eval.py.in");
    std::fs::write(&py, "PST = [{{PST}}]\nTEMPO = {{TEMPO}}\n").unwrap();
    let py_out = tmp.path().join("eval.py");
    stdout_of(
        texel()
            .args(["export", "--pair", "({mid}, {end})", "--space"])
            .arg(&trace)
            .arg("--params")
            .arg(&tuned)
            .arg("--template")
            .arg(&py)
            .arg("--out")
            .arg(&py_out),
    );
    assert_eq!(
        std::fs::read_to_string(&py_out).unwrap(),
        "PST = [(10, 20), (30, 40)]\nTEMPO = 5\n"
    );
    std::fs::write(&py, "x = 1\nPST = {{PSQT}}\n").unwrap();
    let err = fails(
        texel()
            .args(["export", "--space"])
            .arg(&trace)
            .arg("--template")
            .arg(&py)
            .arg("--out")
            .arg(&py_out),
    );
    assert!(
        err.contains("template line 2: {{PSQT}}: no parameter"),
        "{err}"
    );
    assert!(py_out.exists(), "a failed export leaves the earlier output");
}

#[test]
fn a_tune_whose_every_pass_validates_worse_writes_its_start_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let epd = dir.path().join("s.epd");
    let lines: String = include_str!("../../../data/train.epd")
        .lines()
        .take(6_000)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&epd, lines).unwrap();
    let (first, second) = (dir.path().join("t.json"), dir.path().join("t2.json"));
    let knights = ["tune", "--group", "KnightV", "--min-support", "1", "--epd"];
    let tune = |extra: &[&str], out: &std::path::Path| {
        let run = texel()
            .args(knights)
            .arg(&epd)
            .args(extra)
            .arg("--out")
            .arg(out)
            .output()
            .unwrap();
        assert!(run.status.success());
        String::from_utf8_lossy(&run.stderr).to_string() + &String::from_utf8_lossy(&run.stdout)
    };
    tune(&[], &first);
    let params = first.to_str().unwrap();
    let again = [
        "--params",
        params,
        "--validate",
        "10",
        "--passes",
        "5",
        "--patience",
        "1",
    ];
    let text = tune(&again, &second);
    assert!(
        text.contains("the start is kept") && text.contains("no value changed"),
        "{text}"
    );
    assert_eq!(
        std::fs::read(&first).unwrap(),
        std::fs::read(&second).unwrap(),
        "the values written are the start's"
    );
    // Patience without validation could never stop a run: refused, saying what to add.
    let err = fails(
        texel()
            .args(knights)
            .arg(&epd)
            .args(["--patience", "1", "--out"])
            .arg(dir.path().join("never.json")),
    );
    assert!(err.contains("give --validate PERCENT"), "{err}");
}

/// `--resume` of a checkpoint that is not there (a finished run removed it) says so and
/// what to do, not a bare "No such file or directory".
#[test]
fn resuming_a_finished_run_says_its_checkpoint_is_gone_and_where_its_values_are() {
    let dir = tempfile::tempdir().unwrap();
    let epd = common::sample(dir.path(), "few.epd", 300);
    let (out, ckpt) = (dir.path().join("t.json"), dir.path().join("run.ckpt"));
    let tune = |resume: bool| {
        let mut cmd = texel();
        cmd.args(["tune", "--passes", "1", "--l2", "1", "--epd"])
            .arg(&epd)
            .arg("--out")
            .arg(&out)
            .arg(if resume { "--resume" } else { "--checkpoint" })
            .arg(&ckpt);
        cmd
    };
    stdout_of(&mut tune(false));
    assert!(
        out.exists() && !ckpt.exists(),
        "a finished run removes its checkpoint"
    );
    let err = fails(&mut tune(true));
    assert!(
        err.contains("no such file: a run that finished removed its checkpoint")
            && err.contains("--out"),
        "{err}"
    );
}

/// `command` run on a terminal (`script`, util-linux): what the terminal showed.
fn on_a_terminal(command: &str) -> String {
    let out = std::process::Command::new("script")
        .args(["-qec", command, "/dev/null"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("`script` (util-linux) runs texel on a terminal");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{text}");
    text
}

/// On a terminal, the path of pulls shows a bar of the pulls solved and the one under way;
/// a walk resumed from its checkpoint counts the pulls it told again.
#[test]
fn the_path_of_pulls_shows_its_progress_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let epd = common::sample(dir.path(), "few.epd", 3000);
    let bin = assert_cmd::cargo::cargo_bin("texel");
    let out = dir.path().join("t.json");
    let args = format!("tune --passes 1 --validate 10 --epd {}", epd.display());
    let command = format!("{} {args} --out {}", bin.display(), out.display());
    let text = on_a_terminal(&command);
    assert!(
        text.contains("solved, ") && text.contains(": solving pull "),
        "the path's bar: {text}"
    );
    assert!(text.contains("--l2 auto chose pull"), "{text}");
    let stopped = dir.path().join("stopped.json");
    let mut tune = std::process::Command::new(&bin);
    tune.args(args.split(' ')).arg("--out").arg(&stopped);
    // Pull 1000 solved (coarse on texel's table, whose curves move by secants).
    let at_1000 =
        |l: &str| (l.strip_prefix("--l2 auto: pull 1000")).is_some_and(|r| !r.starts_with('0'));
    let (code, said) = common::interrupt_when(tune, at_1000);
    assert_eq!(code, Some(130), "{said}");
    let ckpt = dir.path().join("stopped.json.ckpt");
    let resume = format!("{command} --resume {}", ckpt.display());
    let text =
        on_a_terminal(&resume.replace(&out.display().to_string(), &stopped.display().to_string()));
    let solved: usize = (text.split("resuming the path of pulls after ").nth(1))
        .and_then(|rest| rest.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert!(solved >= 5, "the pulls up to 1000 kept: {text}");
    let steps = texel_tune::PULL_PATH.len() + texel_tune::WHOLE_STEPS;
    assert!(
        text.contains(&format!("{solved}/{steps} solved, "))
            && !text.contains(&format!(" 0/{steps} solved")),
        "the bar counts the pulls told again: {text}"
    );
}

/// The C template `docs/trace-format.md` prints, filled by `texel export` with the pair it
/// names, compiles; without `--space` the values of another engine are refused with the
/// hint to give it.
#[test]
fn the_documented_c_template_compiles_with_the_exported_values() {
    let doc = include_str!("../../../docs/trace-format.md");
    let start = doc.find("```c\n").expect("a C block") + "```c\n".len();
    let template = &doc[start..start + doc[start..].find("```").unwrap()];
    let pair = template
        .split("--pair \"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the block names its pair");
    let dir = tempfile::tempdir().unwrap();
    let default: Vec<[i32; 2]> = (0..64).map(|i| [i, -i]).collect();
    let header = serde_json::json!({"format": "texel-trace", "version": 1, "params": [
        {"name": "KNIGHT_PST", "len": 64, "tapered": true, "default": default}]});
    std::fs::write(dir.path().join("trace.jsonl"), format!("{header}\n")).unwrap();
    std::fs::write(dir.path().join("eval.c.in"), template).unwrap();
    stdout_of(
        texel()
            .current_dir(dir.path())
            .args([
                "export",
                "--space",
                "trace.jsonl",
                "--template",
                "eval.c.in",
            ])
            .args(["--out", "eval.c", "--pair", pair]),
    );
    let cc = std::process::Command::new("cc")
        .args(["-c", "-Wall", "-Werror", "eval.c", "-o", "eval.o"])
        .current_dir(dir.path())
        .output()
        .expect("a C compiler (the Rust linker's)");
    assert!(
        cc.status.success(),
        "{}",
        String::from_utf8_lossy(&cc.stderr)
    );
    let values = dir.path().join("values.json");
    stdout_of(
        texel()
            .current_dir(dir.path())
            .args(["export", "--space", "trace.jsonl", "--json"])
            .arg(&values),
    );
    let err = fails(
        texel()
            .current_dir(dir.path())
            .args([
                "export",
                "--params",
                "values.json",
                "--template",
                "eval.c.in",
            ])
            .args(["--out", "again.c"]),
    );
    assert!(
        err.contains("no term \"KNIGHT_PST\"") && err.contains("--space"),
        "{err}"
    );
}
