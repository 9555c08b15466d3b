//! The README's figures of the shipped configurations come from runs, not from memory: this
//! test runs them (a few seconds) and checks every stated figure. `UPDATE_DOCS=1 cargo test
//! --release --test docs` writes the figures of the run into the README instead
//! (`scripts/refresh-docs.sh` does that and retakes the report screenshot).

mod common;

use common::{stdout_of, texel};
use std::path::Path;

/// The repository's root.
fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// What a tune run printed that the README states.
#[derive(Default)]
struct Run {
    start: f64,
    end: f64,
    validation: f64,
    passes: u64,
    probes: u64,
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
            run.start = number("error").unwrap();
        } else if line.starts_with("end:") {
            run.end = number("error").unwrap();
            run.validation = number("validation").unwrap_or(0.0);
        } else if line.starts_with("finished after") {
            run.passes = number("finished after").unwrap() as u64;
        } else if line.starts_with("pass ") {
            run.probes += number("moves,").unwrap() as u64;
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

/// A sentence of the README with `{}` where figures stand, and the figures of the runs.
struct Figures {
    template: &'static str,
    values: Vec<String>,
}

/// The README's text with each template's figures replaced by `values`; the figures it
/// stated, in the same order.
fn fill(readme: &str, figures: &[Figures]) -> (String, Vec<String>, Vec<String>) {
    let (mut text, mut stated, mut wanted) = (readme.to_string(), Vec::new(), Vec::new());
    for f in figures {
        let parts: Vec<&str> = f.template.split("{}").collect();
        let mut at = text
            .find(parts[0])
            .unwrap_or_else(|| panic!("the README no longer says {:?}", parts[0]))
            + parts[0].len();
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
    (text, stated, wanted)
}

#[test]
fn the_readme_states_the_figures_the_shipped_configurations_give() {
    let quick = tune("configs/quick.json", &[]);
    let full = tune("configs/full.json", &[]);
    let unguarded = tune(
        "configs/full.json",
        &["--min-support", "0", "--l2", "0", "--no-constraints"],
    );
    let figures = [
        Figures {
            template: "seconds of CPU on two cores; error {} → {}), prints",
            values: vec![format!("{:.4}", quick.start), format!("{:.4}", quick.end)],
        },
        Figures {
            template: "the same configuration ends\nafter {} passes and {} probes at training {}, \
                       validation {} (these figures",
            values: vec![
                full.passes.to_string(),
                thousands(full.probes),
                format!("{:.5}", full.end),
                format!("{:.5}", full.validation),
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
    let path = root().join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let (updated, stated, wanted) = fill(&readme, &figures);
    if std::env::var_os("UPDATE_DOCS").is_some() {
        texel_files::write_atomically(&path, updated.as_bytes()).unwrap();
        return;
    }
    assert_eq!(
        stated, wanted,
        "the README's figures differ from a run: UPDATE_DOCS=1 cargo test --release --test docs"
    );
}
