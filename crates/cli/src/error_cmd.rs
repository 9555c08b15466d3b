//! `texel error`: the error of a parameter set on labelled positions (texel's table) or on
//! a trace (another engine's values).

use crate::data_args::{load_data, print_errors, DataArgs};
use crate::paths::Files;
use anyhow::Result;
use clap::Args;
use std::process::ExitCode;

#[derive(Args)]
pub struct ErrorArgs {
    #[command(flatten)]
    data: DataArgs,
}

pub fn run_error(args: &ErrorArgs) -> Result<ExitCode> {
    if let Some(path) = &args.data.traces {
        Files::new()
            .read("--traces", Some(path))
            .read("--params", args.data.params.as_deref())
            .check()?;
        let (loaded, _) = crate::tune_traces::load_trace(&args.data, path)?;
        print_errors(&loaded, "error");
        return Ok(ExitCode::SUCCESS);
    }
    let params = crate::load_params(args.data.params.as_deref())?;
    let loaded = load_data(&args.data, params)?;
    print_errors(&loaded, "error");
    Ok(ExitCode::SUCCESS)
}
