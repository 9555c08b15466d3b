//! `texel params` and `texel export`: the table as text, JSON or Rust.

use anyhow::{bail, Context, Result};
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};
use texel_eval::params::{rust_value, to_rust, Group};
use texel_eval::TermId;
use texel_files::write_atomically;

#[derive(Args)]
pub struct ParamsArgs {
    /// Only the terms of these groups (e.g. `KnightV`); repeatable.
    #[arg(long)]
    group: Vec<String>,
    /// Parameter file (JSON) whose values to list; the table's defaults when absent.
    #[arg(long)]
    params: Option<PathBuf>,
    /// Print a JSON array of terms instead of the table.
    #[arg(long)]
    json: bool,
    /// Show each value's support in these labelled positions (how many positions it counts
    /// in); repeatable.
    #[arg(long)]
    epd: Vec<PathBuf>,
}

#[derive(Args)]
pub struct ExportArgs {
    /// Parameter file (JSON) to export, or `preset:NAME` (defaults, slow23, gnu87); the
    /// table's defaults when absent.
    #[arg(long)]
    params: Option<PathBuf>,
    /// Write the table as Rust source (a drop-in `crates/eval/src/table.rs`).
    #[arg(long)]
    rust: Option<PathBuf>,
    /// Write the parameters as JSON.
    #[arg(long)]
    json: Option<PathBuf>,
    /// An engine's own source with `{{NAME}}` where a parameter's values go (`{{NAME[i]}}`,
    /// `{{NAME.mid}}`, `{{NAME[i].end}}` for parts): written to `--out` with the values.
    #[arg(long, requires = "out")]
    template: Option<PathBuf>,
    /// Where `--template` is written (atomically).
    #[arg(long, requires = "template")]
    out: Option<PathBuf>,
    /// How `--template` writes a tapered entry.
    #[arg(long, default_value = texel_trace::template::DEFAULT_PAIR)]
    pair: String,
    /// Another engine's parameters: the trace whose header names them; `--params` is then
    /// that engine's tuned JSON (its defaults when absent).
    #[arg(long)]
    space: Option<PathBuf>,
}

/// The groups named on the command line, or every group.
fn selected_groups(names: &[String]) -> Result<Vec<Group>> {
    if names.is_empty() {
        return Ok(Group::ALL.to_vec());
    }
    names
        .iter()
        .map(|n| {
            Group::ALL
                .iter()
                .copied()
                .find(|g| g.name().eq_ignore_ascii_case(n))
                .with_context(|| {
                    let all: Vec<_> = Group::ALL.iter().map(|g| g.name()).collect();
                    format!("unknown group {n:?} (groups: {})", all.join(", "))
                })
        })
        .collect()
}

/// Every flat slot's support in the positions of `epd` (none without files).
fn supports(epd: &[PathBuf], params: &texel_eval::Params) -> Result<Option<Vec<usize>>> {
    if epd.is_empty() {
        return Ok(None);
    }
    let options = texel_dataset::LoadOptions::default();
    let (ds, _, report) = texel_dataset::load(epd, params, &options, &|_| {})?;
    eprintln!("{report}");
    Ok(Some(
        (0..params.flat().len()).map(|i| ds.support(&[i])).collect(),
    ))
}

pub fn run_list(args: &ParamsArgs) -> Result<()> {
    let groups = selected_groups(&args.group)?;
    let params = crate::load_params(args.params.as_deref())?;
    let support = supports(&args.epd, &params)?;
    let support_of = |t: TermId| support.as_ref().map(|s| s[t.info().flat_range()].to_vec());
    let terms: Vec<TermId> = TermId::all()
        .filter(|t| groups.contains(&t.info().group))
        .collect();
    let mut out = std::io::stdout().lock();
    if args.json {
        let list: Vec<_> = (terms.iter())
            .map(|&t| texel_eval::records::TermListing::of(t, &params, support.as_deref()))
            .collect();
        writeln!(out, "{}", serde_json::to_string_pretty(&list)?)?;
        return Ok(());
    }
    let mut slots = 0;
    for &g in &groups {
        let kind = if g.is_candidate() {
            " (candidate family)"
        } else {
            ""
        };
        writeln!(out, "[{}]{kind} {}", g.name(), g.doc())?;
        for &t in terms.iter().filter(|t| t.info().group == g) {
            let i = t.info();
            slots += i.slots();
            let mark = if i.linear { ' ' } else { '*' };
            let value = rust_value(&params, t);
            writeln!(
                out,
                "  {mark}{:<36} {:<10} {value}",
                i.name,
                i.shape.rust_type()
            )?;
            writeln!(out, "      {}", i.doc())?;
            if !i.index.is_empty() {
                writeln!(out, "      index: {}", i.index)?;
            }
            let marks = i.constraint_marks();
            if !marks.is_empty() {
                writeln!(out, "      keeps: {}", marks.trim_start_matches(", "))?;
            }
            if let Some(s) = support_of(t) {
                writeln!(out, "      support: {s:?}")?;
            }
        }
    }
    writeln!(
        out,
        "{} terms, {} tunable values; * marks non-linear terms",
        terms.len(),
        slots
    )?;
    Ok(())
}

pub fn run_export(args: &ExportArgs) -> Result<()> {
    if args.rust.is_none() && args.json.is_none() && args.template.is_none() {
        bail!("nothing to export: give --rust OUT.rs, --json OUT.json or --template with --out");
    }
    crate::paths::Files::new()
        .read("--params", args.params.as_deref())
        .read("--template", args.template.as_deref())
        .read("--space", args.space.as_deref())
        .write("--rust", args.rust.as_deref())
        .write("--json", args.json.as_deref())
        .write("--out", args.out.as_deref())
        .check()?;
    if let Some(space) = &args.space {
        anyhow::ensure!(
            args.rust.is_none(),
            "--rust writes texel's own table: not with --space"
        );
        return export_other(args, space);
    }
    let params =
        crate::load_params(args.params.as_deref()).map_err(|e| match unknown_term(&e) {
            Some(term) => e.context(format!(
                "texel's own table has no term {term:?}: another engine's values are exported \
                 with --space (its trace, or a trace header naming its parameters)"
            )),
            None => e,
        })?;
    if let (Some(template), Some(out)) = (&args.template, &args.out) {
        let space = texel_eval::params::param_space();
        write_template(template, out, &space, params.flat(), &args.pair)?;
    }
    if let Some(path) = &args.rust {
        write_atomically(path, to_rust(&params).as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
        say!("wrote the table as Rust to {}", path.display());
    }
    if let Some(path) = &args.json {
        params.save(path)?;
        say!("wrote the parameters as JSON to {}", path.display());
    }
    Ok(())
}

/// The term a parameter file names that texel's table does not have, where that is why it
/// could not be read.
fn unknown_term(e: &anyhow::Error) -> Option<String> {
    e.chain().find_map(|cause| {
        let mut error = cause.downcast_ref::<texel_eval::params::ParamsError>()?;
        while let texel_eval::params::ParamsError::InFile { error: inner, .. } = error {
            error = inner;
        }
        match error {
            texel_eval::params::ParamsError::UnknownTerm(term) => Some(term.clone()),
            _ => None,
        }
    })
}

/// `template` rendered with `values` of `space` into `out` (atomically).
fn write_template(
    template: &Path,
    out: &Path,
    space: &texel_trace::ParamSpace,
    values: &[i32],
    pair: &str,
) -> Result<()> {
    let text = std::fs::read_to_string(template)
        .with_context(|| format!("cannot read {}", template.display()))?;
    let filled = texel_trace::template::render(&text, space, values, pair)
        .with_context(|| template.display().to_string())?;
    write_atomically(out, filled.as_bytes())
        .with_context(|| format!("cannot write {}", out.display()))?;
    say!(
        "wrote {} from the template {}",
        out.display(),
        template.display()
    );
    Ok(())
}

/// `--space`: another engine's values (the tuned JSON `--params`, or the trace header's
/// defaults) as JSON and through its template.
fn export_other(args: &ExportArgs, trace: &Path) -> Result<()> {
    let space = texel_trace::read_space(trace)?;
    let values = match &args.params {
        Some(p) => space.read_values(p)?,
        None => space.defaults(),
    };
    if let Some(path) = &args.json {
        space.save_values(&values, path)?;
        say!("wrote the values as JSON to {}", path.display());
    }
    if let (Some(template), Some(out)) = (&args.template, &args.out) {
        write_template(template, out, &space, &values, &args.pair)?;
    }
    Ok(())
}

#[derive(Args)]
pub struct SpsaArgs {
    /// Only the terms of these groups; repeatable.
    #[arg(long)]
    group: Vec<String>,
    /// Parameter file (JSON) with the starting values; the table's defaults when absent.
    #[arg(long)]
    params: Option<PathBuf>,
}

/// One line per flat parameter: `name, int, value, min, max, c_end, r_end`, the names and
/// ranges of `texel uci`'s spin options.
pub fn run_spsa(args: &SpsaArgs) -> Result<()> {
    let groups = selected_groups(&args.group)?;
    eprintln!(
        "note: the engine lists these options when built with `make EXE=... PARAMS=list` (for \
         OpenBench SPSA) or started as `texel uci --list-params`"
    );
    let params = crate::load_params(args.params.as_deref())?;
    let mut out = std::io::stdout().lock();
    for (i, fp) in texel_eval::params::flat_params().iter().enumerate() {
        if !groups.contains(&fp.term.info().group) {
            continue;
        }
        let v = params.flat()[i];
        let (lo, hi) = texel_search::uci::option_range(v);
        let c_end = ((hi - lo) as f64 / 20.0).max(1.0);
        writeln!(
            out,
            "{}, int, {v}, {lo}, {hi}, {c_end:.1}, 0.002",
            fp.name()
        )?;
    }
    Ok(())
}
