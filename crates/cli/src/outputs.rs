//! Where `texel tune` writes, named by its flags: the tuned values go to `--out` (without it,
//! to `texel-tuned.json` in the working directory, or `texel-tuned-2.json`, ... when that
//! exists); the checkpoint goes to `--checkpoint`, or `OUT.ckpt` beside the output. No output
//! may be an input or another output. The library's [`texel_tune::Outputs`] checks the rest
//! (writable, one run at a time, an earlier run's files kept) when the tune runs.

use crate::config::TuneArgs;
use crate::paths::Files;
use anyhow::Result;
use std::path::{Path, PathBuf};
use texel_tune::Outputs;

/// The outputs of a tune, as planned from its flags.
pub struct Planned {
    /// The files.
    pub outputs: Outputs,
    /// `--out` was chosen by texel, not given.
    pub out_defaulted: bool,
}

/// The first of `texel-tuned.json`, `texel-tuned-2.json`, ... that does not exist.
fn default_out() -> PathBuf {
    (1..)
        .map(|n| match n {
            1 => PathBuf::from("texel-tuned.json"),
            n => PathBuf::from(format!("texel-tuned-{n}.json")),
        })
        .find(|p| !p.exists())
        .expect("some name is free")
}

/// The files a tune run reads.
fn inputs(args: &TuneArgs) -> Files {
    Files::new()
        .read_all("--epd", &args.data.epd)
        .read("--traces", args.data.traces.as_deref())
        .read("--params", args.data.params.as_deref())
        .read("--resume", args.resume.as_deref())
        .read("--config", args.config.as_deref())
}

/// The outputs of `args`, checked against the files the run reads and each other (the
/// session checks that each can be written before it loads anything).
///
/// # Errors
/// A clash, or an output that cannot be written.
pub fn plan(args: &TuneArgs) -> Result<Planned> {
    let (out, out_defaulted) = match &args.out {
        Some(p) => (p.clone(), false),
        None => (default_out(), true),
    };
    let mut outputs = Outputs {
        log: args.log.clone(),
        ..Outputs::new(out)
    };
    if let Some(path) = &args.checkpoint {
        outputs.checkpoint = path.clone();
    }
    let also = [("--rust", &args.rust), ("--report", &args.report)];
    outputs.also = (also.into_iter())
        .filter_map(|(flag, path)| Some((path.clone()?, flag.to_string())))
        .collect();
    inputs(args)
        .write("--out", Some(&outputs.out))
        .write("--checkpoint", Some(&outputs.checkpoint))
        .write("--rust", args.rust.as_deref())
        .write("--log", args.log.as_deref())
        .write("--report", args.report.as_deref())
        .allow_same("--checkpoint", "--resume")
        .check()?;
    Ok(Planned {
        outputs,
        out_defaulted,
    })
}

/// Says where the tuned values went.
pub fn say_written(planned: &Planned, rust: Option<&Path>) {
    let note = match planned.out_defaulted {
        true => " (no --out given)",
        false => "",
    };
    let out = planned.outputs.out.display();
    say!("wrote the tuned parameters to {out}{note}");
    if let Some(path) = rust {
        say!("wrote the tuned table as Rust to {}", path.display());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Tune {
        #[command(flatten)]
        args: TuneArgs,
    }

    fn planned(words: &[&str]) -> Result<Planned> {
        let args = Tune::try_parse_from(std::iter::once("tune").chain(words.iter().copied()))?;
        plan(&args.args)
    }

    #[test]
    fn outputs_clash_and_defaults_are_planned_up_front() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("t.json");
        let out = out.to_str().unwrap();
        let p = planned(&["--out", out]).unwrap();
        assert_eq!(p.outputs.checkpoint, dir.path().join("t.json.ckpt"));
        assert!(!p.out_defaulted);
        let err = planned(&["--out", out, "--rust", out]).err().unwrap();
        assert!(err.to_string().contains("same file"), "{err}");
        let ckpt = dir.path().join("c.ckpt");
        let p = planned(&["--out", out, "--checkpoint", ckpt.to_str().unwrap()]).unwrap();
        assert_eq!(p.outputs.checkpoint, ckpt);
        let folder = planned(&["--out", dir.path().to_str().unwrap()])
            .err()
            .unwrap();
        assert!(folder.to_string().contains("is a folder"), "{folder}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
