//! Runs that continue where they stopped (self-play, the loop, the lab), as the terminal
//! shows them: the deciding and checking is `texel_run::None`'s.

use std::path::Path;
use texel_run::{Recorded, Rerunning};

/// Says that `--fresh` deleted the earlier work in `earlier`.
pub fn say_rerun(did: Rerunning, earlier: &Path) {
    if did == Rerunning::Discarded {
        say!("--fresh: removed the earlier run's {}", earlier.display());
    }
}

/// Says what the check of a resumed run's recorded settings (in `path`) found.
pub fn say_recorded(recorded: &Recorded, path: &Path) {
    if recorded.missing {
        eprintln!(
            "note: {} is missing, so the settings of the earlier run are not compared",
            path.display()
        );
    }
    for note in &recorded.notes {
        say!("resume: {note}");
    }
}
