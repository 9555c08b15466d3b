//! Loading labelled EPD/FEN files into datasets: streaming, parsed and traced in parallel,
//! every bad line counted by reason.

use crate::blend::{Blend, Scores};
use crate::dataset::{Dataset, DatasetBuilder, Part, SegmentBuilder, SEGMENT};
use crate::file_labels::FileLabels;
use crate::sources::{Mix, SourceTaken, Taker};
use rayon::prelude::*;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{EnPassantMode, Position};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use texel_data::records::{RecordError, RecordForm};
use texel_data::{
    block_lines, open_input, read_block, BadLine, GameSplit, HeldOut, Label, LabelFormat,
    LabelReading, Labelled, SplitCounts, Survey,
};
use texel_eval::{Params, Trace, Tracer};
use texel_files::Fingerprint;

/// Bytes of lines parsed and traced per parallel batch (some 27,000 EPD lines).
pub(crate) const BATCH_BYTES: usize = 2 << 20;

/// How many line numbers of each kind of bad line are kept for the report.
const EXAMPLES: usize = 5;

/// What to load and how.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// How the labels are read: the side they score, their format when given.
    pub labels: LabelReading,
    /// Share of positions held out for validation, in per mille (0 = none).
    pub held_out: HeldOut,
    /// Go on even when more than 1% of the lines are bad.
    pub allow_bad: bool,
    /// How the engines' own scores (`ce`) mix into the targets (by default: when every
    /// position carries one).
    pub blend: Blend,
    /// A mix of sources (one per file, in order, each with its own reading, cap, filters
    /// and weight, and the phase balance), surveyed before: it replaces `labels`.
    pub mix: Option<std::sync::Arc<Mix>>,
}

/// Bad lines of one kind: how many, and where the first few are.
#[derive(Clone, Debug, Default)]
pub struct BadLines {
    /// Number of such lines.
    pub count: u64,
    /// `file:line` of the first ones.
    pub examples: Vec<String>,
}

/// What loading found.
#[derive(Clone, Debug, Default)]
pub struct LoadReport {
    /// Non-empty lines read.
    pub lines: u64,
    /// Positions in the training set.
    pub train: usize,
    /// Positions held out for validation.
    pub validation: usize,
    /// What each file held: its label forms (detected line by line) and scores.
    pub files: Vec<FileLabels>,
    /// A hash of every loaded position and label, in file order (with the validation
    /// split): a checkpoint made on other data is refused by it.
    pub fingerprint: u64,
    /// Skipped lines by reason.
    pub bad: BTreeMap<BadLine, BadLines>,
    /// With a blend: the positions whose targets mix in their engine's score, and the K
    /// that turned the scores into win probabilities.
    pub blended: Option<(usize, f64)>,
    /// What the targets are, when there is something to say (see [`texel_tune::Lambda::describe`]).
    pub targets: Option<String>,
    /// With a mix of sources: what each gave.
    pub sources: Vec<SourceTaken>,
    /// What the held-out split holds: positions and games on each side, positions
    /// without a game id.
    pub split: SplitCounts,
    /// Where λ auto walks its path of λs: the training positions' results and their
    /// scores as win probabilities (the targets are the results until the path chooses).
    pub labels: Option<texel_tune::ScoredLabels>,
}

impl LoadReport {
    /// Total skipped lines.
    pub fn bad_lines(&self) -> u64 {
        self.bad.values().map(|b| b.count).sum()
    }

    /// What [`LoadReport::lines`] counts: text lines, binary records, or both.
    fn read_units(&self) -> &'static str {
        let forms = || self.files.iter().flat_map(|f| f.formats.keys());
        match (
            forms().any(|f| f.record_form().is_some()),
            forms().any(|f| f.record_form().is_none()),
        ) {
            (true, false) => "records",
            (true, true) => "lines and records",
            _ => "lines",
        }
    }
}

impl fmt::Display for LoadReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}: {} training positions",
            self.lines,
            self.read_units(),
            self.train
        )?;
        if self.validation > 0 {
            write!(f, ", {} validation positions", self.validation)?;
        }
        write!(f, ", {} skipped", self.bad_lines())?;
        if !self.split.nothing_held() {
            write!(f, "\n  {}", self.split)?;
        }
        if let Some(targets) = &self.targets {
            write!(f, "\n  {targets}")?;
        }
        if let Some((_, k)) = self.blended {
            write!(f, " (scores as win probabilities at K {k:.4})")?;
        }
        for file in &self.files {
            write!(f, "\n  {file}")?;
        }
        for source in &self.sources {
            write!(f, "\n  {source}")?;
        }
        for (reason, b) in &self.bad {
            write!(
                f,
                "\n  {reason}: {} (first at {})",
                b.count,
                b.examples.join(", ")
            )?;
        }
        Ok(())
    }
}

/// Why loading failed.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// A file could not be read.
    #[error("{path}: {cause}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        cause: std::io::Error,
    },
    /// No usable position in any file.
    #[error("no usable labelled position in {files}{detail}")]
    NoPositions {
        /// The files read.
        files: String,
        /// What was wrong with their lines.
        detail: String,
    },
    /// The positions do not fit in one dataset.
    #[error(transparent)]
    Full(#[from] crate::dataset::DatasetFull),
    /// More than 1% of the lines are bad.
    #[error("{bad} of {lines} lines are bad (more than 1%, the most a load takes unless told to allow bad lines)\n{report}")]
    TooManyBad {
        /// Bad lines.
        bad: u64,
        /// All lines.
        lines: u64,
        /// The full report.
        report: Box<LoadReport>,
    },
    /// The load was stopped.
    #[error("stopped while the positions were read")]
    Stopped,
    /// The number labels of a file are evaluation scores: its 0 and 1 are too.
    #[error(
        "{path}: {scores} labels are evaluation scores (numbers outside 0 to 1, bare or in \
         brackets), so its {whole_numbers} labels 0 and 1 are centipawns too, not game \
         results: the file is not read (texel tunes on results; a file whose second bracket \
         holds the score, `FEN [1.0] [35]`, reads its first)"
    )]
    ScoreLabels {
        /// The file.
        path: PathBuf,
        /// Lines whose label is a score outside 0 to 1.
        scores: u64,
        /// Lines whose number label is 0 or 1.
        whole_numbers: u64,
    },
    /// A sources file's phase distribution asks for stretches that hold no position: the
    /// balance would keep nothing.
    #[error(
        "the sources file's phases ask for a share of stretch {} of {stretches} (1 the pawn \
         endings, {stretches} full material), and no position of its sources is there: the \
         balance keeps as many positions as its scarcest stretch allows, here none. Give that \
         stretch a share of 0, or add sources that reach it",
        empty.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
    )]
    EmptyPhases {
        /// The stretches asked for that hold nothing (from 1).
        empty: Vec<usize>,
        /// How many stretches the distribution has.
        stretches: usize,
    },
    /// A source's weight counts none of the positions it takes.
    #[error(
        "source {number} ({}): weight {weight:?} counts none of its {taken} positions (a weight \
         of at least 1/{taken} counts one)",
        path.display()
    )]
    WeightCountsNothing {
        /// The source's number in the sources file, from 1.
        number: usize,
        /// Its file.
        path: PathBuf,
        /// Its weight.
        weight: f64,
        /// The positions it takes.
        taken: u64,
    },
    /// A records file whose records read as another form than the one it was read as.
    #[error("{}: {wrong}", path.display())]
    WrongForm {
        /// The file.
        path: PathBuf,
        /// The form asked and the form its records read as.
        wrong: texel_data::WrongForm,
        /// Its number in the sources file it was listed in (from 1), when it was.
        listed: Option<usize>,
    },
    /// A binary file read as text: its form must be named.
    #[error(
        "{}: binary records, not text lines: their form must be named (marlin: \
         marlinformat's 32-byte records; bullet: bulletformat's; viri: viriformat's games)",
        path.display()
    )]
    Binary {
        /// The file.
        path: PathBuf,
        /// Its number in the sources file it was listed in (from 1), when it was.
        listed: Option<usize>,
    },
    /// Scores were to be mixed in, but no position carries one.
    #[error(
        "no position carries its engine's score (`ce N;` after the position, as `texel import` \
         writes from games with score comments): there is nothing to mix into the results"
    )]
    NoScores,
    /// K cannot be fitted to turn scores into win probabilities.
    #[error("cannot fit the K that turns scores into win probabilities: {0}")]
    BlendK(#[from] texel_solve::error::UnfitK),
}

/// One parsed line: the position with its label, its hash and its label format.
pub(crate) type Parsed = Result<(Labelled, u64, LabelFormat), BadLine>;

/// Parses one line: the position with its label, its hash and its label format.
pub(crate) fn parse_one(line: &[u8], labels: LabelReading) -> Parsed {
    // Valid UTF-8 (nearly every line) is checked without the lossy decoder's slower walk.
    let text = match std::str::from_utf8(line) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(line),
    };
    let (labelled, format) = labels.parse(&text)?;
    Ok(keyed(labelled, format))
}

/// A position of a binary file, or why it is not one, as a line's.
fn parsed_record(read: Result<Labelled, RecordError>, format: LabelFormat) -> Parsed {
    let labelled = read.map_err(BadLine::from)?;
    Ok(keyed(labelled, format))
}

/// A parsed position with its hash.
fn keyed(labelled: Labelled, format: LabelFormat) -> (Labelled, u64, LabelFormat) {
    let key = labelled
        .position
        .zobrist_hash::<Zobrist64>(EnPassantMode::Legal)
        .0;
    (labelled, key, format)
}

/// A parsed position (or bad line) with the number of the line, record or game it came
/// from.
pub(crate) type Numbered = (u64, Parsed);

/// Parses a batch of units (lines, records or games) in parallel into `parsed` (emptied
/// first; its memory is reused from batch to batch, so no fresh pages are touched): one
/// position a line or record, every position of a game.
fn parse_batch(
    units: &[(u64, &[u8])],
    (labels, survey): (LabelReading, Survey),
    parsed: &mut Vec<Numbered>,
) {
    parsed.clear();
    // Pieces of at most 1,024 units, so both threads finish a batch at nearly the same time.
    let units = units.par_iter().with_max_len(1024);
    let Some((format, form)) = labels.format.and_then(|f| Some((f, f.record_form()?))) else {
        parsed.par_extend(units.map(|&(no, line)| (no, parse_one(line, labels))));
        return;
    };
    match form.record_reader() {
        Some(read) => {
            let read = move |record| read(record).map(|l| survey.label(l));
            parsed.par_extend(units.map(|&(no, record)| (no, parsed_record(read(record), format))))
        }
        // A game's positions know its number in the file.
        None => parsed.par_extend(units.flat_map_iter(|&(no, game)| {
            let each = texel_data::viri::numbered_positions(game, no);
            each.map(move |read| (no, parsed_record(read.map(|l| survey.label(l)), format)))
        })),
    }
}

/// The positions of a parsed batch that go into one set, by index.
type Picks = Vec<u32>;

/// Splits `picks` into runs of at most [`SEGMENT`] positions of even size, an even number
/// of them (two threads get the same work). The split depends on the data only, never on
/// the thread count: sums by segment stay the same whatever the threads.
fn runs(picks: &[u32]) -> std::slice::Chunks<'_, u32> {
    let count = picks.len().div_ceil(SEGMENT).next_multiple_of(2).max(1);
    picks.chunks(picks.len().div_ceil(count).max(1))
}

/// What one thread traces a run of positions with; kept from run to run, so the builder's
/// column buffers are grown once per load, not once per segment.
struct Workspace<'p> {
    tracer: Tracer<'p>,
    /// The labels and traces of a burst.
    labels: Vec<Label>,
    traces: Vec<Trace>,
    builder: SegmentBuilder,
}

/// Positions traced before their traces go to the segment builder together: the builder's
/// column ends stay in the cache for the whole burst instead of being evicted by each
/// evaluation.
const BURST: usize = 32;

impl<'p> Workspace<'p> {
    fn new(params: &'p Params) -> Self {
        Workspace {
            tracer: Tracer::new(params),
            labels: Vec::with_capacity(BURST),
            traces: vec![Trace::default(); BURST],
            builder: SegmentBuilder::default(),
        }
    }

    /// The segment of the parsed positions `run` picks, traced a burst at a time.
    fn segment(&mut self, parsed: &[Numbered], run: &[u32]) -> Part {
        for burst in run.chunks(BURST) {
            self.labels.clear();
            for &i in burst {
                if let (_, Ok((l, _, _))) = &parsed[i as usize] {
                    let trace = &mut self.traces[self.labels.len()];
                    self.tracer.trace_into(&l.position, trace);
                    self.labels.push(l.label);
                }
            }
            for (&label, trace) in self.labels.iter().zip(&self.traces) {
                self.builder.push(label, trace);
            }
        }
        self.builder.finish()
    }
}

/// The workspaces not in use.
type Workspaces<'p> = Mutex<Vec<Workspace<'p>>>;

/// Traces the picked positions of both sets in parallel into segments, in order; returns
/// the training parts and the validation parts.
fn trace_batch<'p>(
    parsed: &[Numbered],
    sets: &[Picks; 2],
    params: &'p Params,
    spare: &Workspaces<'p>,
) -> [Vec<Part>; 2] {
    let tasks: Vec<(usize, &[u32])> = (0..2)
        .flat_map(|set| runs(&sets[set]).map(move |run| (set, run)))
        .collect();
    // A workspace goes back only once its segment is finished, so a reused one is empty;
    // a lock poisoned by a panic in another run still guards whole workspaces.
    let lock = || {
        spare
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    };
    let parts: Vec<(usize, Part)> = tasks
        .into_par_iter()
        .map(|(set, run)| {
            let mut ws = lock().pop().unwrap_or_else(|| Workspace::new(params));
            let part = ws.segment(parsed, run);
            lock().push(ws);
            (set, part)
        })
        .collect();
    let mut out = [Vec::new(), Vec::new()];
    for (set, part) in parts {
        out[set].push(part);
    }
    out
}

/// The training and the validation set being built.
#[derive(Default)]
struct Sets {
    train: DatasetBuilder,
    validation: DatasetBuilder,
}

impl Sets {
    /// Appends the traced segments of a batch, when there are some.
    fn append(&mut self, traced: Option<[Vec<Part>; 2]>) -> Result<(), LoadError> {
        let Some([train, validation]) = traced else {
            return Ok(());
        };
        for part in train {
            self.train.append(part)?;
        }
        for part in validation {
            self.validation.append(part)?;
        }
        Ok(())
    }
}

/// The datasets being built and what loading found so far.
struct Loading<'p> {
    params: &'p Params,
    spare: Workspaces<'p>,
    sets: Sets,
    report: LoadReport,
    index: u64,
    /// The number of the file being read (game ids are kept apart per file).
    source: u64,
    /// The held-out split, by game where the positions know theirs.
    split: GameSplit,
    /// The positions' engine scores.
    scores: Scores,
    /// Raised, the load ends after the block it is reading.
    interrupt: &'p AtomicBool,
    /// Applies the mix of sources, when there is one.
    taker: Option<Taker<'p>>,
}

impl Loading<'_> {
    /// Sorts a parsed batch of `path` in file order: bad lines into the report, positions
    /// into the training and the validation set (their indices).
    fn sort(&mut self, path: &Path, parsed: &[Numbered], file: &mut FileLabels) -> [Picks; 2] {
        let mut sets = [Vec::new(), Vec::new()];
        for (i, (no, result)) in parsed.iter().enumerate() {
            self.report.lines += 1;
            let times = match &mut self.taker {
                Some(taker) => taker.take(result.as_ref().ok().map(|(l, _, _)| l)),
                None => 1,
            };
            match result {
                Ok((l, key, format)) => {
                    file.count(*format, l.score.is_some());
                    let held = times > 0 && self.split.held(self.source, l.game, self.index);
                    let steps = l.label.steps();
                    // A position a mix counts more than once is in the same set each time.
                    for _ in 0..times {
                        let r = &mut self.report;
                        r.fingerprint = fold_position(r.fingerprint, *key, steps, held);
                        let fold = |f: u64| fold_position(f, *key, steps, held);
                        self.scores.add(held, l.score, fold);
                        sets[usize::from(held)].push(i as u32);
                    }
                    self.index += u64::from(times > 0);
                }
                Err(reason) => {
                    let entry = self.report.bad.entry(*reason).or_default();
                    entry.count += 1;
                    if entry.examples.len() < EXAMPLES {
                        entry.examples.push(format!("{}:{no}", path.display()));
                    }
                }
            }
        }
        sets
    }

    /// Reads, parses and adds every line of one file, a block of lines at a time. The
    /// segments of a block are appended to the datasets while the next block is parsed (the
    /// appending thread then helps parse), so no thread waits for the appending.
    fn file(
        &mut self,
        path: &Path,
        labels: LabelReading,
        progress: &dyn Fn(u64),
    ) -> Result<(), LoadError> {
        let mut input = open_input(path).map_err(|e| io(path, e))?;
        let mut file = FileLabels {
            path: path.to_path_buf(),
            ..FileLabels::default()
        };
        let (mut line_no, mut text, mut parsed) = (0u64, Vec::new(), Vec::new());
        let mut traced: Option<[Vec<Part>; 2]> = None;
        let mut numbers = ScoreSigns::default();
        let form = labels.format.and_then(LabelFormat::record_form);
        let mut survey = None;
        while read_unit(&mut *input.reader, form, &mut text).map_err(|e| io(path, e))? {
            let survey = match survey {
                Some(s) => s,
                None => *survey.insert(self.first_block(path, form, &text)?),
            };
            file.zero_scores = !survey.scored;
            let lines = match form {
                Some(form) => form.units(&text, &mut line_no),
                None => block_lines(&text, &mut line_no),
            };
            let sets = &mut self.sets;
            let (appended, ()) = rayon::join(
                || sets.append(traced.take()),
                || parse_batch(&lines, (labels, survey), &mut parsed),
            );
            appended?;
            numbers.count(&parsed);
            let picks = self.sort(path, &parsed, &mut file);
            traced = Some(trace_batch(&parsed, &picks, self.params, &self.spare));
            progress(input.position());
            if self.interrupt.load(Ordering::SeqCst) {
                return Err(LoadError::Stopped);
            }
        }
        self.sets.append(traced)?;
        if texel_data::numbers_are_scores(numbers.scores, numbers.whole_numbers) {
            return Err(LoadError::ScoreLabels {
                path: path.to_path_buf(),
                scores: numbers.scores,
                whole_numbers: numbers.whole_numbers,
            });
        }
        self.report.files.push(file);
        Ok(())
    }
}

impl Loading<'_> {
    /// Judges a file by its first block: a binary file read as text is refused, a records
    /// file whose records read as another form is refused, and a records file's scores are
    /// kept or, all 0, read as none ([`RecordForm::survey`]).
    fn first_block(
        &self,
        path: &Path,
        form: Option<RecordForm>,
        block: &[u8],
    ) -> Result<Survey, LoadError> {
        let listed = self.taker.is_some().then_some(self.source as usize + 1);
        let path = path.to_path_buf();
        match form {
            None if looks_binary(block) => Err(LoadError::Binary { path, listed }),
            None => Ok(Survey { scored: true }),
            Some(form) => (form.survey(block)).map_err(|wrong| LoadError::WrongForm {
                path,
                wrong,
                listed,
            }),
        }
    }
}

/// Reads the next block of a file: whole lines, or whole records or games of a binary
/// `form`.
fn read_unit(
    reader: &mut dyn std::io::BufRead,
    form: Option<RecordForm>,
    block: &mut Vec<u8>,
) -> std::io::Result<bool> {
    match form {
        Some(form) => form.read_block(reader, BATCH_BYTES, block),
        None => read_block(reader, BATCH_BYTES, block),
    }
}

/// Whether a file's first block is binary: text lines never hold a zero byte, and a
/// record's board nearly always does (an empty rank).
fn looks_binary(block: &[u8]) -> bool {
    block.iter().take(64).any(|&b| b == 0)
}

/// What tells a file of centipawn scores from a file of results: its labels that are
/// scores (numbers outside 0 to 1), and its bare-number labels 0 and 1, which are scores
/// too when the others are.
#[derive(Default)]
struct ScoreSigns {
    scores: u64,
    whole_numbers: u64,
}

impl ScoreSigns {
    /// Counts the lines of a parsed batch.
    fn count(&mut self, parsed: &[Numbered]) {
        for (_, p) in parsed {
            match p {
                Ok((l, _, format)) if format.could_be_centipawns(l.label) => {
                    self.whole_numbers += 1;
                }
                Err(BadLine::ScoreLabel) => self.scores += 1,
                _ => {}
            }
        }
    }
}

/// Loads every file into a training and a validation dataset, tracing under `params`.
/// `progress` is called with the number of bytes read so far. Files may be plain, `.gz`
/// or `.zst`; the label format is detected line by line.
///
/// # Errors
/// An unreadable file, no usable position, or more than 1% bad lines without
/// `allow_bad`.
pub fn load(
    paths: &[PathBuf],
    params: &Params,
    options: &LoadOptions,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(Dataset, Dataset, LoadReport), LoadError> {
    load_until(paths, params, options, &AtomicBool::new(false), progress)
}

/// [`load`], ended by [`LoadError::Stopped`] after the block being read when `interrupt` is
/// raised (from any thread).
///
/// # Errors
/// As [`load`]; stopped.
pub fn load_until(
    paths: &[PathBuf],
    params: &Params,
    options: &LoadOptions,
    interrupt: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(Dataset, Dataset, LoadReport), LoadError> {
    let mut loading = Loading {
        interrupt,
        params,
        spare: Mutex::new(Vec::new()),
        sets: Sets::default(),
        report: LoadReport {
            fingerprint: Fingerprint::new().value(),
            ..LoadReport::default()
        },
        index: 0,
        source: 0,
        split: GameSplit::new(options.held_out),
        scores: Scores::new(options.blend.lambda),
        taker: options.mix.as_deref().map(Taker::new),
    };
    let mut done = 0;
    for (n, path) in paths.iter().enumerate() {
        let labels = match &options.mix {
            Some(mix) => mix.sources[n].reading(),
            None => options.labels,
        };
        if let Some(taker) = &mut loading.taker {
            taker.start(n);
        }
        loading.source = n as u64;
        loading.file(path, labels, &|bytes| progress(done + bytes))?;
        done += std::fs::metadata(path).map_or(0, |m| m.len());
    }
    let Loading {
        sets: Sets { train, validation },
        mut report,
        scores,
        taker,
        split,
        ..
    } = loading;
    report.split = split.counts();
    report.sources = taker.map_or_else(Vec::new, |t| t.taken);
    report.train = train.len();
    report.validation = validation.len();
    if train.is_empty() {
        let files: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        let detail = if report.lines == 0 {
            " (no lines)".to_string()
        } else {
            format!(" ({report})")
        };
        return Err(LoadError::NoPositions {
            files: files.join(", "),
            detail,
        });
    }
    let bad = report.bad_lines();
    if !options.allow_bad && bad * 100 > report.lines {
        return Err(LoadError::TooManyBad {
            bad,
            lines: report.lines,
            report: Box::new(report),
        });
    }
    let (mut train, mut validation) = (train.finish(), validation.finish());
    train.rescore(params);
    validation.rescore(params);
    let sets = (&mut train, &mut validation);
    scores.blend(sets, options.blend.k, &mut report)?;
    Ok((train, validation, report))
}

/// `fingerprint` with a position folded in: its key, its label's steps and its set.
fn fold_position(fingerprint: u64, key: u64, steps: u8, held: bool) -> u64 {
    let f = Fingerprint::from_value(fingerprint).u64(key);
    f.u64(u64::from(steps)).u64(u64::from(held)).value()
}

pub(crate) fn io(path: &Path, cause: std::io::Error) -> LoadError {
    LoadError::Io {
        path: path.to_path_buf(),
        cause,
    }
}

/// The file size, for a progress bar (0 when unknown).
pub fn total_bytes(paths: &[PathBuf]) -> u64 {
    paths
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum()
}
