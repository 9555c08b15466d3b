//! `texel compare`: how much a term lowers the error, the Slow Chess way of judging a term.
//!
//! For each `--term`: the error with the term at zero; after tuning the term's group with
//! the term held at zero; after tuning the group with the term free. The drop between the
//! last two is what the term itself buys. `--without` reports the rise when a tuned term is
//! zeroed, before and after the rest of its group is tuned again.

use crate::data_args::{load_data, DataArgs};
use anyhow::{Context, Result};
use clap::Args;
use std::process::ExitCode;
use texel_eval::{Params, TermId};
use texel_tune::error::mean_error;
use texel_tune::{select, Control, Dataset, Descent, Selection};

#[derive(Args)]
pub struct CompareArgs {
    #[command(flatten)]
    data: DataArgs,
    /// A term to judge by the error drop it brings (repeatable).
    #[arg(long)]
    term: Vec<String>,
    /// A tuned term to judge by the error rise when it is zeroed (repeatable).
    #[arg(long)]
    without: Vec<String>,
    /// Passes of each group tuning.
    #[arg(allow_negative_numbers = true, long, default_value_t = 5)]
    passes: usize,
}

fn term(name: &str) -> Result<TermId> {
    TermId::by_name(name).with_context(|| format!("unknown term {name:?}"))
}

/// Tunes the group of `t` from `start` (with `t` free or excluded) and returns the error.
fn tune_group(
    ds: &mut Dataset,
    start: &Params,
    k: f64,
    t: TermId,
    free: bool,
    passes: usize,
) -> Result<f64> {
    let selection = Selection {
        groups: vec![t.info().group.name().to_string()],
        exclude: if free {
            vec![]
        } else {
            vec![t.info().name.to_string()]
        },
        ..Default::default()
    };
    let vars = select(&selection)?;
    ds.rescore(start);
    let mut descent = Descent::new(ds, start.clone(), k, vars);
    for _ in 0..passes {
        let summary = descent
            .pass(&mut |_| Control::Continue)
            .expect("never stopped");
        if summary.moves == 0 {
            break;
        }
    }
    Ok(descent.refresh())
}

fn error_with(ds: &mut Dataset, params: &Params, k: f64) -> f64 {
    ds.rescore(params);
    mean_error(ds, k)
}

pub fn run(args: &CompareArgs) -> Result<ExitCode> {
    if args.term.is_empty() && args.without.is_empty() {
        anyhow::bail!("nothing to compare: give --term NAME and/or --without NAME");
    }
    let terms = args
        .term
        .iter()
        .map(|n| term(n))
        .collect::<Result<Vec<_>>>()?;
    let without = args
        .without
        .iter()
        .map(|n| term(n))
        .collect::<Result<Vec<_>>>()?;
    let base = crate::load_params(args.data.params.as_deref())?;
    let mut loaded = load_data(&args.data, base.clone())?;
    let k = loaded.k;
    let ds = &mut loaded.train;
    if !terms.is_empty() {
        print_drops(ds, &base, k, &terms, args.passes)?;
    }
    if !without.is_empty() {
        print_rises(ds, &base, k, &without, args.passes)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// For each of `terms`: the error at zero, with its group tuned without and with it, and
/// the drop the term itself brings.
fn print_drops(
    ds: &mut Dataset,
    base: &Params,
    k: f64,
    terms: &[TermId],
    passes: usize,
) -> Result<()> {
    say!();
    say!(
        "errors: at zero = with the term at 0; group tuned = its group tuned {} passes with \
         the term held at 0; term tuned = the group tuned with the term free; drop = group \
         tuned - term tuned, the error the term itself removes",
        passes
    );
    say!(
        "{:<34} {:<10} {:>12} {:>12} {:>12} {:>12}",
        "term",
        "group",
        "at zero",
        "group tuned",
        "term tuned",
        "drop"
    );
    for &t in terms {
        let mut zeroed = base.clone();
        zeroed.zero_term(t);
        let at_zero = error_with(ds, &zeroed, k);
        let held = tune_group(ds, &zeroed, k, t, false, passes)?;
        let free = tune_group(ds, &zeroed, k, t, true, passes)?;
        let info = t.info();
        say!(
            "{:<34} {:<10} {at_zero:>12.8} {held:>12.8} {free:>12.8} {:>12.8}",
            info.name,
            info.group.name(),
            held - free
        );
    }
    Ok(())
}

/// For each of `without`: the error as given, with the term zeroed, and with its group
/// retuned without it; the rise is what the term removes that its group cannot make up.
fn print_rises(
    ds: &mut Dataset,
    base: &Params,
    k: f64,
    without: &[TermId],
    passes: usize,
) -> Result<()> {
    say!();
    say!(
        "errors: as given = with --params; zeroed = the term set to 0; retuned = its group \
         then tuned {} passes with the term held at 0; rise = retuned - as given, the error \
         the term removes that its group cannot make up",
        passes
    );
    say!(
        "{:<34} {:<10} {:>12} {:>12} {:>12} {:>12}",
        "term",
        "group",
        "as given",
        "zeroed",
        "retuned",
        "rise"
    );
    for &t in without {
        let given = error_with(ds, base, k);
        let mut zeroed = base.clone();
        zeroed.zero_term(t);
        let at_zero = error_with(ds, &zeroed, k);
        let retuned = tune_group(ds, &zeroed, k, t, false, passes)?;
        let info = t.info();
        say!(
            "{:<34} {:<10} {given:>12.8} {at_zero:>12.8} {retuned:>12.8} {:>12.8}",
            info.name,
            info.group.name(),
            retuned - given
        );
    }
    Ok(())
}
