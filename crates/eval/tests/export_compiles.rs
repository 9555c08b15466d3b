//! The Rust export of tuned values compiles in place of `table.rs` and evaluates exactly
//! like the parameter file it came from.
//!
//! The test copies this crate into a temporary workspace, replaces the table with the export
//! of changed values, builds it offline and compares its evaluations of the sample positions
//! with this crate's evaluations under the same values loaded from JSON.

use std::path::{Path, PathBuf};
use std::process::Command;
use texel_eval::params::{flat_params, to_rust};
use texel_eval::{evaluate, parse_fen, Params};

/// The shipped sample of 2,000 positions from engine games (`data/positions.fen`).
const SAMPLE_POSITIONS: &str = include_str!("../../../data/positions.fen");

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

const PRINTER: &str = r#"fn main() {
    let params = texel_eval::Params::default();
    let path = std::env::args().nth(1).expect("a file of FENs");
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let pos = texel_eval::parse_fen(line).unwrap();
        println!("{}", texel_eval::evaluate(&pos, &params));
    }
}
"#;

/// The workspace crates a manifest names: its `path = "../NAME"` entries.
fn path_entries(manifest: &str) -> Vec<String> {
    manifest
        .lines()
        .filter_map(|l| l.split("path = \"../").nth(1)?.split('"').next())
        .map(str::to_string)
        .collect()
}

/// The workspace crates the crate at `crate_dir` depends on, directly or through another
/// (`crates` holds them all).
fn dependencies(crate_dir: &Path, crates: &Path) -> Vec<String> {
    let manifest = |dir: &Path| std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    let mut names = path_entries(&manifest(crate_dir));
    let mut next = 0;
    while next < names.len() {
        for name in path_entries(&manifest(&crates.join(&names[next]))) {
            if !names.contains(&name) {
                names.push(name);
            }
        }
        next += 1;
    }
    names
}

#[test]
fn exported_table_compiles_and_evaluates_identically() {
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let workspace = crate_dir.parent().unwrap().parent().unwrap();
    let mut tuned = Params::default();
    for i in 0..flat_params().len() {
        tuned.set_flat(i, tuned.flat()[i] + (i as i32 % 7) - 3);
    }
    let from_json = Params::from_json_str(&tuned.to_json_string()).unwrap();

    let root = workspace.join("target").join("export-roundtrip");
    let copy = root.join("crates").join("eval");
    let _ = std::fs::remove_dir_all(copy.join("src"));
    copy_dir(&crate_dir.join("src"), &copy.join("src"));
    // The crates it depends on, as they are.
    let names = dependencies(&crate_dir, &workspace.join("crates"));
    assert!(names.contains(&"trace".to_string()), "{names:?}");
    for name in &names {
        let dependency = root.join("crates").join(name);
        let _ = std::fs::remove_dir_all(&dependency);
        let from = workspace.join("crates").join(name);
        copy_dir(&from.join("src"), &dependency.join("src"));
        std::fs::copy(from.join("Cargo.toml"), dependency.join("Cargo.toml")).unwrap();
    }
    // The real manifests, with the workspace cut down to this crate and its dependencies.
    let workspace_manifest = std::fs::read_to_string(workspace.join("Cargo.toml")).unwrap();
    let members = workspace_manifest
        .lines()
        .find(|l| l.starts_with("members"))
        .expect("the workspace lists its members");
    let listed: Vec<String> = names
        .iter()
        .map(String::as_str)
        .chain(["eval"])
        .map(|n| format!("\"crates/{n}\""))
        .collect();
    std::fs::write(
        root.join("Cargo.toml"),
        workspace_manifest.replace(members, &format!("members = [{}]", listed.join(", "))),
    )
    .unwrap();
    std::fs::copy(crate_dir.join("Cargo.toml"), copy.join("Cargo.toml")).unwrap();
    std::fs::create_dir_all(copy.join("src/bin")).unwrap();
    std::fs::write(copy.join("src/bin/print_evals.rs"), PRINTER).unwrap();
    std::fs::write(copy.join("src/table.rs"), to_rust(&tuned)).unwrap();

    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "run",
            "--offline",
            "--quiet",
            "--release",
            "--bin",
            "print_evals",
        ])
        .arg(workspace.join("data/positions.fen"))
        .current_dir(&copy)
        .env("CARGO_TARGET_DIR", root.join("target"))
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: Vec<i32> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    let expected: Vec<i32> = SAMPLE_POSITIONS
        .lines()
        .map(|l| evaluate(&parse_fen(l).unwrap(), &from_json))
        .collect();
    assert_eq!(printed.len(), expected.len());
    assert_eq!(printed, expected);
    assert_ne!(
        expected,
        SAMPLE_POSITIONS
            .lines()
            .map(|l| evaluate(&parse_fen(l).unwrap(), &Params::default()))
            .collect::<Vec<_>>()
    );
}
