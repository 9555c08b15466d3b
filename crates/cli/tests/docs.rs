//! The figures the README and the guides under `docs/` state of the shipped configurations
//! come from runs, not from memory: this test runs them (a few seconds) and checks every
//! stated figure, wherever it stands. `UPDATE_DOCS=1 cargo test --release --test docs` writes
//! the figures of the run into the pages instead (`scripts/refresh-docs.sh` does that and
//! retakes the report screenshot).

mod common;

use common::{stdout_of, texel};
use std::path::Path;

/// The repository's root.
fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// The README and every guide under `docs/`: (path from the root, text).
fn pages() -> Vec<(String, String)> {
    let mut names = vec!["README.md".to_string()];
    let mut guides: Vec<String> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    guides.sort();
    names.extend(guides);
    (names.into_iter())
        .map(|n| {
            let text = std::fs::read_to_string(root().join(&n)).unwrap();
            (n, text)
        })
        .collect()
}

/// What a tune run printed that the docs state.
#[derive(Default)]
struct Run {
    start_validation: f64,
    end: f64,
    validation: f64,
    held_out: Vec<String>,
    pull: String,
    lambda: String,
    passes: u64,
    probes: u64,
    newton: u64,
}

/// The number after `key` in `line` (up to a space, comma or parenthesis).
fn after(line: &str, key: &str) -> Option<String> {
    let at = line.find(key)? + key.len();
    let rest = line[at..].trim_start();
    let end = rest.find([' ', ',', ')']).unwrap_or(rest.len());
    Some(rest[..end].to_string())
}

/// Runs `texel tune --config CONFIG` with `extra` flags, its outputs in a temporary folder.
fn tune(config: &str, extra: &[&str]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let text = stdout_of(
        texel()
            .current_dir(root())
            .args(["tune", "--config", config, "--out"])
            .arg(dir.path().join("tuned.json"))
            .args(extra),
    );
    let mut run = Run::default();
    for line in text.lines() {
        let number = |key: &str| after(line, key).and_then(|n| n.parse::<f64>().ok());
        if line.starts_with("start:") {
            run.start_validation = number("validation").unwrap_or(0.0);
        } else if line.contains("held out by game:") {
            let held = line.rsplit(" for training, ").next().unwrap();
            run.held_out = vec![after(held, "").unwrap(), after(held, "games (").unwrap()];
        } else if line.starts_with("--l2 auto chose pull") {
            run.pull = after(line, "chose pull").unwrap();
        } else if line.starts_with("--lambda auto chose λ") {
            run.lambda = after(line, "chose λ").unwrap();
        } else if line.starts_with("end:") {
            run.end = number("error").unwrap();
            run.validation = number("validation").unwrap_or(0.0);
        } else if line.starts_with("finished after") {
            run.passes = number("finished after").unwrap() as u64;
        } else if line.starts_with("pass ") {
            // Newton's lines make no probes.
            run.probes += number("moves,").map_or(0, |n| n as u64);
            run.newton += u64::from(line.contains("(Newton iteration"));
        }
    }
    run
}

/// `n` with thousands separated by commas.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A sentence of the docs with `{}` where figures stand, and the figures of the runs.
struct Figures {
    template: &'static str,
    values: Vec<String>,
}

/// The pages with each template's figures replaced by `values`; the figures they stated, in
/// the same order. A template's opening stands in exactly one place of all the pages.
fn fill(
    pages: &[(String, String)],
    figures: &[Figures],
) -> (Vec<String>, Vec<String>, Vec<String>) {
    let mut texts: Vec<String> = pages.iter().map(|p| p.1.clone()).collect();
    let (mut stated, mut wanted) = (Vec::new(), Vec::new());
    for f in figures {
        let parts: Vec<&str> = f.template.split("{}").collect();
        // The opening places the figures: found anywhere else, it would replace other text.
        let count: usize = texts.iter().map(|t| t.matches(parts[0]).count()).sum();
        assert!(
            count <= 1,
            "{:?} opens {count} places in the docs",
            parts[0]
        );
        let page = (texts.iter().position(|t| t.contains(parts[0])))
            .unwrap_or_else(|| panic!("the docs no longer say {:?}", parts[0]));
        let text = &mut texts[page];
        let mut at = text.find(parts[0]).expect("found") + parts[0].len();
        for (k, part) in parts[1..].iter().enumerate() {
            let len = text[at..]
                .find(part)
                .unwrap_or_else(|| panic!("{:?}", f.template));
            stated.push(text[at..at + len].to_string());
            wanted.push(f.values[k].clone());
            text.replace_range(at..at + len, &f.values[k]);
            at += f.values[k].len() + part.len();
        }
    }
    (texts, stated, wanted)
}

#[test]
fn the_docs_state_the_figures_the_shipped_configurations_give() {
    let quick = tune("configs/quick.json", &[]);
    let full = tune("configs/full.json", &[]);
    let full_cd = tune("configs/full.json", &["--method", "cd"]);
    let unguarded = tune(
        "configs/full.json",
        &["--min-support", "0", "--l2", "0", "--no-constraints"],
    );
    let figures = [
        Figures {
            template: "that the tune never sees (here {} games, {} positions), fits",
            values: vec![
                quick.held_out[0].clone(),
                thousands(quick.held_out[1].parse().unwrap()),
            ],
        },
        Figures {
            template: "towards their start (the path of pulls,\nhere pull {}) and",
            values: vec![quick.pull.clone()],
        },
        Figures {
            template: "(the path of λs 1, 0.75, 0.5, 0.25, 0, here λ {}). Then",
            values: vec![quick.lambda.clone()],
        },
        Figures {
            template: "than 0.1 % (here {} Newton iterations and {} polish passes;\nthe held-out games' error {} → {};",
            values: vec![
                quick.newton.to_string(),
                (quick.passes - quick.newton).to_string(),
                format!("{:.4}", quick.start_validation),
                format!("{:.4}", quick.validation),
            ],
        },
        Figures {
            template: "the same configuration with\n`--method cd` ends after {} passes and {} probes at \
                       training {}, validation {} (these figures",
            values: vec![
                full_cd.passes.to_string(),
                thousands(full_cd.probes),
                format!("{:.5}", full_cd.end),
                format!("{:.5}", full_cd.validation),
            ],
        },
        Figures {
            template:
                "(`configs/full.json`): unguarded train {} / validation {}, guarded\n{} / {} (both figures",
            values: [
                unguarded.end,
                unguarded.validation,
                full.end,
                full.validation,
            ]
            .map(|x| format!("{x:.8}"))
            .to_vec(),
        },
    ];
    check_docs(&figures, "a run");
}

/// Tests run at once: one reads and writes the pages at a time.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static PAGES: std::sync::Mutex<()> = std::sync::Mutex::new(());
    PAGES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Whether the figures are to be written into the pages rather than checked.
fn updating() -> bool {
    std::env::var_os("UPDATE_DOCS").is_some()
}

/// Checks that the docs state `figures` (made by `source`), or with `UPDATE_DOCS` writes
/// them in.
fn check_docs(figures: &[Figures], source: &str) {
    let _one = one_at_a_time();
    let pages = pages();
    let (updated, stated, wanted) = fill(&pages, figures);
    if updating() {
        for ((name, before), after) in pages.iter().zip(&updated) {
            if before != after {
                texel_files::write_atomically(&root().join(name), after.as_bytes()).unwrap();
            }
        }
        return;
    }
    assert_eq!(
        stated, wanted,
        "the docs' figures differ from {source}: UPDATE_DOCS=1 cargo test --release --test docs"
    );
}

/// The verdicts of the lab report `reports/DIR/lab.json`.
fn verdicts(dir: &str) -> Vec<serde_json::Value> {
    let path = root().join("reports").join(dir).join("lab.json");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    report["verdicts"].as_array().unwrap().clone()
}

/// The subjects of `verdicts`, ordered by validation gain (largest first).
fn by_gain(verdicts: &[&serde_json::Value]) -> Vec<String> {
    let mut v = verdicts.to_vec();
    let gain = |v: &serde_json::Value| v["validation_gain"].as_f64().unwrap();
    v.sort_by(|a, b| gain(b).total_cmp(&gain(a)));
    // An ablation's subject is `-TERM`: the term is named.
    let name = |v: &serde_json::Value| {
        let subject = v["subject"].as_str().unwrap();
        subject.trim_start_matches('-').to_string()
    };
    v.iter().map(|v| name(v)).collect()
}

/// `kept` and all of `verdicts`, as figures.
fn kept_of(verdicts: &[serde_json::Value]) -> [String; 2] {
    let kept = verdicts.iter().filter(|v| v["kept"] == true).count();
    [kept.to_string(), verdicts.len().to_string()]
}

/// The validation error `texel error` gives the parameter file `params` on the lab's data.
fn validation_error(params: &str) -> f64 {
    let text = stdout_of(
        texel()
            .current_dir(root())
            .args([
                "error",
                "--epd",
                "data/train.epd",
                "--validate",
                "10",
                "--params",
            ])
            .arg(params),
    );
    let line = text.lines().find(|l| l.starts_with("error:")).unwrap();
    after(line, "validation").unwrap().parse().unwrap()
}

#[test]
fn the_docs_state_the_lab_figures_its_reports_hold() {
    let families = verdicts("lab");
    let first = by_gain(&families.iter().collect::<Vec<_>>());
    let ablations = verdicts("lab-ablate-gnu");
    let dead: Vec<&serde_json::Value> = ablations.iter().filter(|v| v["kept"] != true).collect();
    let dead_most = by_gain(&dead);
    let carry = by_gain(&ablations.iter().collect::<Vec<_>>());
    let match_line = std::fs::read_to_string(root().join("reports/lab/match-adopted.txt"))
        .unwrap()
        .lines()
        .find(|l| l.starts_with("applied"))
        .unwrap()
        .split_whitespace()
        .map(str::to_string)
        .collect::<Vec<_>>();
    let (base, applied) = (
        validation_error("reports/lab/base.json"),
        validation_error("reports/lab/applied.json"),
    );
    let [kept, all] = kept_of(&families);
    let [terms_kept, terms] = kept_of(&verdicts("lab-terms"));
    let figures = [
        Figures {
            template: "committed as `reports/lab/base.json`: validation {}):\n[families](../reports/lab/lab.md) ({} of {} kept, {} and {} first), [single terms](../reports/lab-terms/lab.md) ({} of {} kept)",
            values: vec![
                format!("{base:.8}"),
                kept,
                all,
                first[0].clone(),
                first[1].clone(),
                terms_kept,
                terms,
            ],
        },
        Figures {
            template: "[GNU ablation](../reports/lab-ablate-gnu/lab.md) ({} of {} GNU terms are dead weight beside the Slow Chess table, most of all `{}`, `{}` and `{}`;\n`{}`, `{}` and `{}` carry the most). The adopted table lowers the validation error from {} to {}. Played",
            values: vec![
                dead.len().to_string(),
                ablations.len().to_string(),
                dead_most[dead_most.len() - 1].clone(),
                dead_most[dead_most.len() - 2].clone(),
                dead_most[dead_most.len() - 3].clone(),
                carry[0].clone(),
                carry[1].clone(),
                carry[2].clone(),
                format!("{base:.5}"),
                format!("{applied:.5}"),
            ],
        },
        Figures {
            template: "colours swapped: **+{} ={} −{}, {} Elo** (`reports/lab/match-adopted.txt`)",
            values: vec![
                match_line[2].clone(),
                match_line[3].clone(),
                match_line[4].clone(),
                format!("{} ± {}", match_line[6], match_line[8]),
            ],
        },
    ];
    check_docs(&figures, "reports/lab* (scripts/refresh-lab.sh makes them)");
}

/// The table's counts as the README states them: Slow Chess terms and groups, GNU terms,
/// candidate terms and families, all terms, tunable values.
fn table_counts() -> [(String, u64); 7] {
    use texel_eval::params::Group;
    use texel_eval::TermId;
    let terms = |keep: &dyn Fn(Group) -> bool| {
        TermId::all().filter(|t| keep(t.info().group)).count() as u64
    };
    let groups =
        |keep: &dyn Fn(Group) -> bool| Group::ALL.iter().filter(|&&g| keep(g)).count() as u64;
    let slow = |g: Group| !g.is_candidate() && g != Group::GnuV;
    [
        ("Slow Chess terms".into(), terms(&slow)),
        ("Slow Chess groups".into(), groups(&slow)),
        ("GNU terms".into(), terms(&|g| g == Group::GnuV)),
        ("candidate terms".into(), terms(&|g| g.is_candidate())),
        ("candidate families".into(), groups(&|g| g.is_candidate())),
        ("terms".into(), TermId::all().count() as u64),
        (
            "tunable values".into(),
            texel_eval::params::flat_params().len() as u64,
        ),
    ]
}

#[test]
fn the_term_counts_in_the_docs_are_the_tables() {
    let [slow, slow_groups, gnu, candidates, families, terms, values] =
        table_counts().map(|(_, n)| n);
    let values_text = thousands(values);
    let n = |x: u64| x.to_string();
    let figures = [
        Figures {
            template: "whole Slow Chess 2.3\ntable ({} terms in {} groups), the GNU Chess \
                       heuristics ({} terms in `GnuV`",
            values: vec![n(slow), n(slow_groups), n(gnu)],
        },
        Figures {
            template: "not evaluation)\nand {} candidate terms from the Tsvetkov compendium in {} \
                       candidate families: {} terms,\n{} tunable values.",
            values: vec![n(candidates), n(families), n(terms), values_text.clone()],
        },
        Figures {
            template: "A review of all {} Slow Chess terms against",
            values: vec![n(slow)],
        },
        Figures {
            template: "| probe, average over the {} values |",
            values: vec![values_text.clone()],
        },
    ];
    check_docs(&figures, "the table (crates/eval/src/table.rs)");
    value_counts_written_by_hand(&values_text);
    // Written by the lab's figures (its reports name every subject of the table).
    let docs: String = pages().into_iter().map(|p| p.1).collect();
    for stated in [
        format!("of {candidates} kept"),
        format!("of {gnu} GNU terms"),
    ] {
        assert!(docs.contains(&stated), "the docs should say {stated:?}");
    }
    let listed = stdout_of(texel().arg("params"));
    assert!(
        listed.contains(&format!("{terms} terms")),
        "{}",
        listed.lines().last().unwrap()
    );
}

/// Every other mention of the table's value count (`1,103 tunable`, `1,103 of them`, `the
/// table's 1,103`), wherever it is written by hand: checked to be `values`, or with
/// `UPDATE_DOCS` written in.
fn value_counts_written_by_hand(values: &str) {
    let _one = one_at_a_time();
    let files = [
        "Makefile",
        "crates/cli/src/main.rs",
        "crates/cli/src/bench_linear.rs",
    ];
    let written = files.map(|f| {
        let text = std::fs::read_to_string(root().join(f)).unwrap();
        (f.to_string(), text)
    });
    for (file, text) in pages().into_iter().chain(written) {
        // A count before `tunable` or `of them`, on the same line or the line before.
        let mentions = ["tunable", "of them"]
            .into_iter()
            .flat_map(|w| text.match_indices(w))
            .filter(|&(at, _)| at > 0 && text.as_bytes()[at - 1].is_ascii_whitespace())
            .map(|(at, k)| (at - 1, k));
        let in_table = text
            .match_indices("table's ")
            .map(|(at, k)| (at + k.len() + 5, k));
        let mut stale = Vec::new();
        for (at, _) in mentions.chain(in_table) {
            let before = text[..at].rsplit([' ', '(', '\n']).next().unwrap_or("");
            let looks_like_count = before.len() == 5 && before.as_bytes()[1] == b',';
            if looks_like_count && before.starts_with(|c: char| c.is_ascii_digit()) {
                stale.extend((before != values).then_some(at - before.len()..at));
            }
        }
        if updating() && !stale.is_empty() {
            let mut fixed = text.clone();
            stale
                .iter()
                .rev()
                .for_each(|r| fixed.replace_range(r.clone(), values));
            texel_files::write_atomically(&root().join(&file), fixed.as_bytes()).unwrap();
        } else if let Some(r) = stale.first() {
            let around = &text[r.start.saturating_sub(60)..r.end + 10];
            panic!("{file}: {around:?} should say {values}: UPDATE_DOCS=1 cargo test --release --test docs");
        }
    }
}

/// A heading's anchor as GitHub makes it: lower case, spaces as dashes, other punctuation
/// dropped.
fn anchor(heading: &str) -> String {
    let kept = heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_' || *c == ' ')
        .collect::<String>();
    kept.replace(' ', "-")
}

#[test]
fn every_link_of_the_readme_and_its_guides_leads_to_a_file_and_heading() {
    for (page, text) in pages() {
        let dir = root().join(&page).parent().unwrap().to_path_buf();
        for (at, _) in text.match_indices("](") {
            let rest = &text[at + 2..];
            let link = &rest[..rest.find(')').unwrap()];
            if link.starts_with("http") || link.contains(' ') {
                continue;
            }
            let (path, heading) = link.split_once('#').unwrap_or((link, ""));
            let target = if path.is_empty() {
                root().join(&page)
            } else {
                dir.join(path)
            };
            assert!(target.exists(), "{page}: {link} leads nowhere");
            if !heading.is_empty() {
                let body = std::fs::read_to_string(&target).unwrap();
                let headings: Vec<String> = (body.lines())
                    .filter_map(|l| l.strip_prefix('#'))
                    .map(|l| anchor(l.trim_start_matches('#')))
                    .collect();
                assert!(
                    headings.contains(&heading.to_string()),
                    "{page}: {link}: no such heading"
                );
            }
        }
    }
}
