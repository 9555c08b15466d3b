//! texel's own table as the [`Subject`] of a tune on files: positions read from labelled EPD,
//! the values chosen by group and term, the tuned table written as JSON (and as Rust source
//! when asked).

use crate::dataset::Dataset;
use crate::load::{load_until, total_bytes, LoadOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;
use texel_eval::params::{flat_params, param_space, to_rust};
use texel_eval::Params;
use texel_files::write_atomically;
use texel_solve::Variable;
use texel_trace::ParamSpace;
use texel_tune::{Positions, Subject, SubjectError};

/// texel's table tuned on labelled EPD files.
#[derive(Clone, Debug)]
pub struct TableSubject {
    /// The labelled positions.
    pub files: Vec<PathBuf>,
    /// How they are read (labels, validation share, bad lines).
    pub options: LoadOptions,
    /// The table a fresh run starts from.
    pub given: Params,
    /// The values tuned, with their steps.
    pub vars: Vec<Variable>,
    /// Where the tuned table is also written as Rust source.
    pub rust: Option<PathBuf>,
}

impl Subject for TableSubject {
    type Model = Dataset;

    fn given(&self) -> &Params {
        &self.given
    }

    fn load(
        &self,
        start: &Params,
        interrupt: &AtomicBool,
        reading: &(dyn Fn(u64) + Sync),
    ) -> Result<Positions<Dataset>, SubjectError> {
        let began = Instant::now();
        let files = &self.files;
        let (train, validation, report) =
            load_until(files, start, &self.options, interrupt, reading)?;
        let secs = began.elapsed().as_secs_f64();
        let n = train.len() + validation.len();
        let mut report = report;
        let labels = report.labels.take();
        let about = format!(
            "{report}\nloaded and traced in {secs:.2}s ({:.0} positions/s), {:.1} \
             bytes/position",
            n as f64 / secs,
            train.memory_bytes() as f64 / train.len() as f64
        );
        Ok(Positions {
            train,
            validation,
            fingerprint: report.fingerprint,
            about,
            labels,
        })
    }

    fn bytes(&self) -> u64 {
        total_bytes(&self.files)
    }

    fn variables(&self) -> &[Variable] {
        &self.vars
    }

    fn name(&self, slot: usize) -> String {
        flat_params()[slot].name()
    }

    fn space(&self) -> ParamSpace {
        param_space()
    }

    fn source(&self) -> String {
        let files: Vec<String> = self.files.iter().map(|p| p.display().to_string()).collect();
        files.join(", ")
    }

    /// With a mix of sources: each source's request and what it gives, so a resume with
    /// a changed sources file or source is refused naming it.
    fn recorded(&self) -> Vec<(String, String)> {
        let Some(mix) = &self.options.mix else {
            return Vec::new();
        };
        let each = mix.sources.iter().zip(&mix.taken).enumerate();
        each.map(|(n, (source, taken))| {
            let asked = serde_json::to_string(source).unwrap_or_default();
            (
                format!("source {}", n + 1),
                format!("{asked} gives {taken}"),
            )
        })
        .chain(
            mix.phases()
                .map(|p| ("phases".to_string(), format!("{p:?}"))),
        )
        .collect()
    }

    fn save(&self, values: &Params, out: &Path) -> Result<(), SubjectError> {
        values.save(out)?;
        if let Some(path) = &self.rust {
            write_atomically(path, to_rust(values).as_bytes())
                .map_err(|cause| format!("cannot write {}: {cause}", path.display()))?;
        }
        Ok(())
    }
}
