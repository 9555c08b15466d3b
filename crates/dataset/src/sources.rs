//! A mix of sources: several files of labelled positions in one load, each read in its own
//! form and label side, capped (positions taken evenly through the file, the same ones
//! every time), filtered and weighted, and the whole mix optionally rebalanced to a
//! distribution of game phases. The mix is described by a sources file ([`SourcesFile`], a
//! versioned JSON record), surveyed once before the load ([`Mix::survey`]: what each
//! source gives is known, printed and recorded before tuning starts), and applied position
//! by position while loading ([`Taker`]).

use serde::{Deserialize, Serialize};
use shakmaty::Position;
use std::path::{Path, PathBuf};
use texel_data::{LabelFormat, LabelReading, Labelled};

/// The version of the sources file this texel writes and reads.
pub const SOURCES_VERSION: u32 = 1;

/// Whose view a source's labels and scores take.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// White's: 1 is a white win.
    #[default]
    White,
    /// The side to move's (gedas_filtered_sf_d9 and other `FEN; 1.0` sets).
    Stm,
}

/// Positions a source leaves out.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Filters {
    /// Leave out positions whose side to move is in check.
    pub no_check: bool,
    /// Leave out positions whose engine score (where the source has one) is this many
    /// centipawns from zero or more: the game was decided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_score: Option<i32>,
    /// Leave out positions before this move number (the opening).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_fullmove: Option<u32>,
}

impl Filters {
    /// Whether `l` passes.
    fn keep(&self, l: &Labelled) -> bool {
        let scored_far = match (self.max_score, l.score) {
            (Some(most), Some(score)) => score.unsigned_abs() >= most.unsigned_abs(),
            _ => false,
        };
        let early = self
            .min_fullmove
            .is_some_and(|m| l.position.fullmoves().get() < m);
        let checked = self.no_check && l.position.is_check();
        !(checked || scored_far || early)
    }
}

fn one() -> f64 {
    1.0
}

/// One file of a mix.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// The file (relative to the sources file).
    pub path: PathBuf,
    /// Its form, as `--format` names it (`bracket`, `marlin`, `viri`, ...); detected line
    /// by line when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Whose view its labels take.
    #[serde(default)]
    pub labels: Side,
    /// Positions taken at most, evenly through the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cap: Option<u64>,
    /// How much each taken position counts: 2 counts it twice, 0.5 every other one once.
    #[serde(default = "one")]
    pub weight: f64,
    /// Positions left out.
    #[serde(default)]
    pub filters: Filters,
}

impl Source {
    /// How its positions are read.
    pub fn reading(&self) -> LabelReading {
        LabelReading {
            stm: self.labels == Side::Stm,
            format: self.format.as_deref().and_then(LabelFormat::named),
        }
    }
}

/// A sources file: the sources of a mix and an optional phase distribution.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourcesFile {
    /// [`SOURCES_VERSION`].
    pub version: u32,
    /// The files mixed, in order.
    pub sources: Vec<Source>,
    /// The share of positions wanted in each stretch of game phase, from pawn endings
    /// (first) to full material (last), the stretches equal parts of texel's phase 0–24:
    /// positions of over-full stretches are left out (evenly) until the mix has these
    /// shares.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phases: Option<Vec<f64>>,
}

/// A sources file that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {what}", path = path.display())]
pub struct SourcesError {
    /// The sources file.
    pub path: PathBuf,
    /// What is wrong.
    pub what: String,
}

impl SourcesFile {
    /// Reads and checks a sources file; the sources' paths become relative to where texel
    /// runs.
    ///
    /// # Errors
    /// An unreadable file, one that is not a sources record of this version, or a value out
    /// of range (named).
    pub fn read(path: &Path) -> Result<SourcesFile, SourcesError> {
        let wrong = |what: String| SourcesError {
            path: path.to_path_buf(),
            what,
        };
        let text = std::fs::read_to_string(path).map_err(|e| wrong(e.to_string()))?;
        let mut file: SourcesFile =
            serde_json::from_str(&text).map_err(|e| wrong(e.to_string()))?;
        file.check().map_err(wrong)?;
        let dir = path.parent().unwrap_or(Path::new(""));
        for source in &mut file.sources {
            source.path = dir.join(&source.path);
        }
        file.refuse_one_file_twice().map_err(wrong)?;
        Ok(file)
    }

    /// Two sources that are one file (named alike, or `./x.epd` and `x.epd`, or linked,
    /// softly or hard), refused: each would count its positions again.
    fn refuse_one_file_twice(&self) -> Result<(), String> {
        let files: Vec<FileId> = self.sources.iter().map(|s| file_id(&s.path)).collect();
        for (j, file) in files.iter().enumerate() {
            if let Some(i) = files[..j].iter().position(|f| f == file) {
                let (a, b) = (&self.sources[i].path, &self.sources[j].path);
                return Err(format!(
                    "sources {} ({}) and {} ({}) are the same file: its positions would count \
                     twice (a \"weight\" of 2 counts a source's positions twice)",
                    i + 1,
                    a.display(),
                    j + 1,
                    b.display()
                ));
            }
        }
        Ok(())
    }

    /// The first value out of range, in words.
    fn check(&self) -> Result<(), String> {
        if self.version != SOURCES_VERSION {
            return Err(format!(
                "version {} (this texel reads version {SOURCES_VERSION})",
                self.version
            ));
        }
        if self.sources.is_empty() {
            return Err("no sources: \"sources\" lists the files to mix".into());
        }
        for (n, s) in self.sources.iter().enumerate() {
            let at = format!("source {} ({})", n + 1, s.path.display());
            if let Some(name) = s
                .format
                .as_deref()
                .filter(|f| LabelFormat::named(f).is_none())
            {
                let names: Vec<&str> = LabelFormat::GIVEN.map(LabelFormat::name).to_vec();
                return Err(format!("{at}: no form {name:?} ({})", names.join(", ")));
            }
            if !(s.weight.is_finite() && s.weight > 0.0 && s.weight <= 100.0) {
                return Err(format!(
                    "{at}: weight {} is not above 0 and at most 100",
                    s.weight
                ));
            }
            if s.cap == Some(0) {
                return Err(format!("{at}: cap 0 takes nothing"));
            }
            if let Some(most) = s.filters.max_score.filter(|&m| m < 1) {
                return Err(format!(
                    "{at}: max_score {most} leaves out every scored position (centipawns \
                     from zero: 1 or more)"
                ));
            }
        }
        match &self.phases {
            Some(p) if p.len() < 2 || p.len() > 25 => Err(format!(
                "phases: {} shares (2 to 25 stretches of the phase)",
                p.len()
            )),
            Some(p) if p.iter().any(|s| !(s.is_finite() && *s >= 0.0)) => {
                Err("phases: every share is a number, 0 or more".into())
            }
            Some(p) if p.iter().sum::<f64>() <= 0.0 => Err("phases: the shares add to 0".into()),
            _ => Ok(()),
        }
    }
}

/// What names a file whatever path reaches it: its device and inode where it can be read
/// (hard links alike), else its path made absolute.
#[derive(PartialEq, Eq)]
enum FileId {
    Inode(u64, u64),
    Path(PathBuf),
}

/// The file `path` reaches.
fn file_id(path: &Path) -> FileId {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(path) {
        Ok(m) => FileId::Inode(m.dev(), m.ino()),
        Err(_) => FileId::Path(std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())),
    }
}

/// What a source gives a load.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceTaken {
    /// The file.
    pub path: PathBuf,
    /// Its entries: positions, and lines or records that are none (what a cap divides).
    pub entries: u64,
    /// Positions taken: within the cap, readable, through the filters.
    pub taken: u64,
    /// Positions within the cap the filters left out.
    pub filtered: u64,
    /// Positions in the mix: the taken ones as their weight counts them, after the phase
    /// balance.
    pub counted: u64,
}

impl std::fmt::Display for SourceTaken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} positions in the mix ({} taken of {} entries, {} filtered)",
            self.path.display(),
            self.counted,
            self.taken,
            self.entries,
            self.filtered
        )
    }
}

/// A mix surveyed before loading: each source's entries (what its cap divides), the share
/// of each phase stretch kept, and what each source gives.
#[derive(Clone, Debug, PartialEq)]
pub struct Mix {
    /// The sources, in order.
    pub sources: Vec<Source>,
    /// Entries of each source.
    entries: Vec<u64>,
    /// Per phase stretch, the share of its positions kept (a phase distribution was asked).
    keep: Option<Vec<f64>>,
    /// What each source gives the load.
    pub taken: Vec<SourceTaken>,
}

impl Mix {
    /// Surveys the sources of `file`: reads each once to count its entries, once more to
    /// count what it gives (and once more before that when a phase distribution is asked:
    /// the positions of each stretch).
    ///
    /// # Errors
    /// A source that cannot be read.
    pub fn survey(file: &SourcesFile) -> Result<Mix, crate::LoadError> {
        let entries = (file.sources.iter().enumerate())
            .map(|(n, s)| sweep_source((n, s), &mut |_| {}))
            .collect::<Result<Vec<u64>, _>>()?;
        let mut mix = Mix {
            sources: file.sources.clone(),
            entries,
            keep: None,
            taken: Vec::new(),
        };
        if let Some(shares) = &file.phases {
            let mut taker = Taker::stretches(&mix, shares.len());
            mix.sweep(&mut taker)?;
            let empty: Vec<usize> = (shares.iter().zip(&taker.seen).enumerate())
                .filter(|(_, (&share, &seen))| share > 0.0 && seen == 0)
                .map(|(k, _)| k + 1)
                .collect();
            if !empty.is_empty() {
                let stretches = shares.len();
                return Err(crate::LoadError::EmptyPhases { empty, stretches });
            }
            mix.keep = Some(keep_rates(shares, &taker.seen));
        }
        let mut taker = Taker::new(&mix);
        mix.sweep(&mut taker)?;
        mix.taken = taker.taken;
        mix.refuse_weights_that_count_nothing()?;
        Ok(mix)
    }

    /// Refuses a source whose weight is too small to count one of the positions it takes.
    fn refuse_weights_that_count_nothing(&self) -> Result<(), crate::LoadError> {
        let counts_none = |(s, t): &(&Source, &SourceTaken)| t.taken as f64 * s.weight < 1.0;
        let pairs = self.sources.iter().zip(&self.taken).enumerate();
        match pairs
            .filter(|(_, p)| p.1.taken > 0)
            .find(|(_, p)| counts_none(p))
        {
            Some((n, (source, taken))) => Err(crate::LoadError::WeightCountsNothing {
                number: n + 1,
                path: source.path.clone(),
                weight: source.weight,
                taken: taken.taken,
            }),
            None => Ok(()),
        }
    }

    /// Feeds every entry of every source to `taker`.
    fn sweep(&self, taker: &mut Taker) -> Result<(), crate::LoadError> {
        for (n, source) in self.sources.iter().enumerate() {
            taker.start(n);
            sweep_source((n, source), &mut |read| {
                taker.take(read);
            })?;
        }
        Ok(())
    }

    /// The phase distribution asked, if any: the share of each stretch kept.
    pub fn phases(&self) -> Option<&[f64]> {
        self.keep.as_deref()
    }

    /// The paths of the sources, in order.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.sources.iter().map(|s| s.path.clone()).collect()
    }
}

/// Reads every entry of a source (its number in the file from 0), handing each (its
/// position, if it is one) to `each`; the number of entries.
fn sweep_source(
    (n, source): (usize, &Source),
    each: &mut dyn FnMut(Option<&Labelled>),
) -> Result<u64, crate::LoadError> {
    let path = &source.path;
    let mut input = texel_data::open_input(path).map_err(|e| crate::load::io(path, e))?;
    let mut entries = 0;
    let mut count = |_: u64, read: texel_data::records::Read| {
        entries += 1;
        each(read.ok().map(|(l, _)| l).as_ref());
    };
    let read =
        texel_data::records::for_each_position(&mut *input.reader, source.reading(), &mut count);
    read.map_err(|e| match e {
        texel_data::records::ReadError::Io(cause) => crate::load::io(path, cause),
        texel_data::records::ReadError::WrongForm(wrong) => crate::LoadError::WrongForm {
            path: path.to_path_buf(),
            wrong,
            listed: Some(n + 1),
        },
    })?;
    Ok(entries)
}

/// The share of each stretch kept so the mix has the `shares` asked, from `counted`
/// positions per stretch: as many positions as the scarcest stretch allows.
fn keep_rates(shares: &[f64], counted: &[u64]) -> Vec<f64> {
    let sum: f64 = shares.iter().sum();
    let total = (shares.iter().zip(counted))
        .filter(|(s, _)| **s > 0.0)
        .map(|(s, c)| *c as f64 / (s / sum))
        .fold(f64::INFINITY, f64::min);
    (shares.iter().zip(counted))
        .map(|(s, c)| match *c {
            0 => 0.0,
            c => (total * s / sum / c as f64).min(1.0),
        })
        .collect()
}

/// Whether the `at`-th of a run of items is one of those `rate` of them keeps, spread
/// evenly (the same ones every time).
fn evenly(at: u64, rate: f64) -> bool {
    ((at + 1) as f64 * rate).floor() > (at as f64 * rate).floor()
}

/// How many times the `at`-th taken position of a source of `weight` counts: the counts
/// add up to the weight times the positions, spread evenly.
fn repeats(at: u64, weight: f64) -> u32 {
    ((at + 1) as f64 * weight).floor() as u32 - (at as f64 * weight).floor() as u32
}

/// Applies a mix entry by entry, in file order: how many times each counts (0: left out).
#[derive(Debug)]
pub(crate) struct Taker<'m> {
    mix: &'m Mix,
    source: usize,
    entry: u64,
    /// Counted positions seen per phase stretch (before the balance).
    seen: Vec<u64>,
    /// What each source gave so far.
    pub(crate) taken: Vec<SourceTaken>,
}

impl<'m> Taker<'m> {
    /// A taker of `mix` as surveyed.
    pub(crate) fn new(mix: &'m Mix) -> Taker<'m> {
        let stretches = mix.keep.as_ref().map_or(1, Vec::len);
        Taker::stretches(mix, stretches)
    }

    /// A taker counting the positions of `stretches` phase stretches.
    fn stretches(mix: &'m Mix, stretches: usize) -> Taker<'m> {
        let taken = (mix.sources.iter().zip(&mix.entries))
            .map(|(s, &entries)| SourceTaken {
                path: s.path.clone(),
                entries,
                ..SourceTaken::default()
            })
            .collect();
        Taker {
            mix,
            source: 0,
            entry: 0,
            seen: vec![0; stretches],
            taken,
        }
    }

    /// The next entries come from source `n`.
    pub(crate) fn start(&mut self, n: usize) {
        (self.source, self.entry) = (n, 0);
    }

    /// How many times the next entry counts: 0 when it is beyond the cap, no position,
    /// filtered out or left out by the phase balance.
    pub(crate) fn take(&mut self, read: Option<&Labelled>) -> u32 {
        let (n, at) = (self.source, self.entry);
        self.entry += 1;
        let (source, entries) = (&self.mix.sources[n], self.mix.entries[n]);
        if let Some(cap) = source.cap.filter(|&c| c < entries) {
            // Exactly `cap` of the entries, spread evenly: integer arithmetic.
            let part = |k: u64| u128::from(k) * u128::from(cap) / u128::from(entries);
            if part(at + 1) == part(at) {
                return 0;
            }
        }
        let Some(l) = read else { return 0 };
        let t = &mut self.taken[n];
        if !source.filters.keep(l) {
            t.filtered += 1;
            return 0;
        }
        t.taken += 1;
        let stretches = self.seen.len() as i32;
        let stretch = (texel_eval::phase(l.position.board()) * stretches
            / (texel_eval::MAX_PHASE + 1)) as usize;
        let mut kept = 0;
        for _ in 0..repeats(t.taken - 1, source.weight) {
            let at = self.seen[stretch];
            self.seen[stretch] += 1;
            kept += u32::from(
                self.mix
                    .keep
                    .as_ref()
                    .is_none_or(|k| evenly(at, k[stretch])),
            );
        }
        t.counted += u64::from(kept);
        kept
    }
}
