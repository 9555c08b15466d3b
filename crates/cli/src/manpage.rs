//! `texel manpage`: the manual page of `texel` on standard output, or with `--dir` the pages
//! of `texel` and of every subcommand (`texel-tune.1`, `texel-traces-convert.1`, ...), the
//! pages the main page's SEE ALSO names.

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// Where the pages go.
#[derive(clap::Args)]
pub struct ManpageArgs {
    /// Write `texel.1` and a page for every subcommand into this directory (made if
    /// missing; existing pages replaced) instead of printing the main page.
    #[arg(long)]
    dir: Option<PathBuf>,
}

/// Prints the main page, or writes every page into `--dir`.
pub fn run(args: &ManpageArgs, command: clap::Command) -> Result<()> {
    let mut command = command.disable_help_subcommand(true);
    command.build();
    match &args.dir {
        None => Ok(clap_mangen::Man::new(command).render(&mut std::io::stdout())?),
        Some(dir) => {
            std::fs::create_dir_all(dir).with_context(|| format!("{}", dir.display()))?;
            let written = write_pages(&command, dir)?;
            eprintln!("wrote {written} manual pages to {}", dir.display());
            Ok(())
        }
    }
}

/// Writes the page of `command` and of each of its subcommands (named by clap's
/// `texel-sub-subsub` convention) into `dir`; the number written.
fn write_pages(command: &clap::Command, dir: &Path) -> Result<usize> {
    let mut written = 0;
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        written += write_pages(sub, dir)?;
    }
    let man = clap_mangen::Man::new(command.clone());
    let mut page = Vec::new();
    man.render(&mut page)?;
    let path = dir.join(man.get_filename());
    texel_files::write_atomically(&path, &page).with_context(|| format!("{}", path.display()))?;
    Ok(written + 1)
}
