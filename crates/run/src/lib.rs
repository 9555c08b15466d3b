//! The run protocol every long texel job follows (tune, lab, loop, self-play, matches): the
//! settings a run was started with are recorded beside its outputs, a resume with other
//! settings is refused by name ([`SettingChanged`], with the flag that restores it), and a
//! rerun over finished outputs is decided once ([`Rerun`]). Files themselves (atomic
//! writes, locks, fingerprints) are `texel_files`'.

mod record;
mod settings;

pub use record::{flag_of, Role};

pub use settings::{
    record_settings, remove_if_there, values_fingerprint, Recorded, Rerun, Rerunning, RunFileError,
    SettingChanged, Settings,
};
