//! A labelling run: the input read on a thread of its own, a block of positions at a time
//! scored by one engine per thread, the lines appended to `OUT.part` in input order and the
//! progress recorded, until the shard is done (the lines become the output) or the run is
//! stopped (they stay, and the same command goes on from them).

use crate::line::write_line;
use crate::progress::{Asked, Progress, RunFiles, Tally, PROGRESS_VERSION};
use crate::scorer::{Scorer, Verdict};
use crate::settings::LabelSettings;
use crate::LabelError;
use shakmaty::fen::Fen;
use shakmaty::EnPassantMode;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use texel_data::records::{for_each_position, Read};
use texel_data::{open_input, LabelReading, Labelled};
use texel_files::{Fingerprint, RunLock};

/// What a run tells as it goes.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// The run starts: its shard's positions and how many an earlier run did.
    Begin {
        /// Positions (and unreadable lines) of the shard.
        total: u64,
        /// Of them done before this run.
        done: u64,
    },
    /// Positions done so far (this run's and earlier ones').
    Done(u64),
    /// The teacher failed on a position and was restarted.
    Failed {
        /// The position's line (or record) in the input.
        line: u64,
        /// The position.
        fen: String,
        /// What happened and what the engine said.
        words: String,
    },
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Ending {
    /// Every position of the shard is in the output.
    Finished(Tally),
    /// Stopped by the interrupt flag: `done` of `total` positions are kept and the same
    /// command goes on from them.
    Stopped {
        /// What was written so far.
        tally: Tally,
        /// Positions done.
        done: u64,
        /// Positions of the shard.
        total: u64,
    },
}

/// Positions of the input a thread scores before the lines are written.
const PER_THREAD: usize = 16;

/// How often progress is recorded (the lines fsynced, the record written).
const RECORD_EVERY: Duration = Duration::from_secs(2);

/// One item of the input: its line (or record) number and the position, or why none.
type Item = (u64, Read);

/// Scores the positions of `input` (read as `reading`) with the teacher of `settings` and
/// writes them to `out`, going on from what an earlier run with the same settings kept
/// (`fresh`: forgetting it). Stops early, keeping what is done, when `stop` is set.
///
/// # Errors
/// The input cannot be read, another run writes `out`, what is kept is another run's, or
/// the engine cannot be started.
pub fn label(
    input: &Path,
    reading: LabelReading,
    out: &Path,
    settings: &LabelSettings,
    fresh: bool,
    stop: &AtomicBool,
    events: &mut dyn FnMut(Event),
) -> Result<Ending, LabelError> {
    let _lock = RunLock::beside(out)?;
    let files = RunFiles::of(out);
    let asked = Asked {
        input: Fingerprint::new()
            .file(input)
            .map_err(LabelError::io(input))?
            .value(),
        reading: format!("{reading:?}"),
        teacher: settings.teacher.clone(),
        shard: settings.shard,
    };
    let total = count_items(input, reading)?;
    let range = settings.shard.range(total);
    let mut progress = kept_progress(&files, asked, fresh)?;
    let mut part = files
        .open_part(progress.bytes)
        .map_err(LabelError::io(&files.part))?;
    let mut scorers = start_scorers(settings)?;
    let shard_total = range.end - range.start;
    events(Event::Begin {
        total: shard_total,
        done: progress.done,
    });
    let items = read_items(input, reading, range.start + progress.done, range.end);
    let mut recorded = Instant::now();
    while progress.done < shard_total && !stop.load(Ordering::SeqCst) {
        let block: Vec<Item> = items.iter().take(PER_THREAD * scorers.len()).collect();
        if block.is_empty() {
            break;
        }
        let verdicts = score_block(&block, &mut scorers, settings, stop)?;
        for (item, verdict) in block.iter().zip(&verdicts) {
            let Some(verdict) = verdict else { break };
            let line = write_item(item, verdict, &mut progress.tally, events);
            write_part(&mut part, &line, &files)?;
            progress.bytes += line.len() as u64;
            progress.done += 1;
        }
        events(Event::Done(progress.done));
        if recorded.elapsed() >= RECORD_EVERY {
            record(&files, &mut part, &progress)?;
            recorded = Instant::now();
        }
    }
    finish(files, part, progress, shard_total)
}

/// Ends a run: the output made when every position is done, else the progress recorded.
fn finish(
    files: RunFiles,
    mut part: std::fs::File,
    progress: Progress,
    total: u64,
) -> Result<Ending, LabelError> {
    if progress.done < total {
        record(&files, &mut part, &progress)?;
        let (tally, done) = (progress.tally, progress.done);
        return Ok(Ending::Stopped { tally, done, total });
    }
    if progress.tally.written == 0 {
        files.forget().map_err(LabelError::io(&files.part))?;
        return Err(LabelError::NothingWritten(Box::new(progress.tally)));
    }
    files.finish(part).map_err(LabelError::io(&files.out))?;
    Ok(Ending::Finished(progress.tally))
}

fn record(files: &RunFiles, part: &mut std::fs::File, p: &Progress) -> Result<(), LabelError> {
    files.record(part, p).map_err(LabelError::io(&files.record))
}

fn write_part(part: &mut std::fs::File, line: &str, files: &RunFiles) -> Result<(), LabelError> {
    part.write_all(line.as_bytes())
        .map_err(LabelError::io(&files.part))
}

/// The progress an earlier run kept when it was asked the same, else a fresh one.
fn kept_progress(files: &RunFiles, asked: Asked, fresh: bool) -> Result<Progress, LabelError> {
    if fresh {
        files.forget().map_err(LabelError::io(&files.part))?;
    }
    let kept = files.kept().map_err(LabelError::Kept)?;
    match kept {
        Some(progress) if progress.asked == asked => Ok(progress),
        Some(progress) => Err(LabelError::OtherRun {
            record: files.record.clone(),
            why: differences(&progress.asked, &asked),
        }),
        None => {
            // Lines without a record are a run killed before its first record: none count.
            Ok(Progress {
                version: PROGRESS_VERSION,
                asked,
                done: 0,
                bytes: 0,
                tally: Tally::default(),
            })
        }
    }
}

/// What differs between what an earlier run was asked and this one, in words.
fn differences(then: &Asked, now: &Asked) -> String {
    let mut why = Vec::new();
    if then.input != now.input {
        why.push("the input's contents".to_string());
    }
    if then.reading != now.reading {
        why.push(format!("how labels are read ({} then)", then.reading));
    }
    if then.teacher != now.teacher {
        let t = &then.teacher;
        why.push(format!(
            "the engine or its settings ({} at {} with {:?} then)",
            t.cmd.display(),
            t.limit,
            t.options
        ));
    }
    if then.shard != now.shard {
        why.push(format!("the shard ({} then)", then.shard));
    }
    why.join(", ")
}

/// Items of the input, line by line (or record by record), for counting the shards.
fn count_items(input: &Path, reading: LabelReading) -> Result<u64, LabelError> {
    let mut file = open_input(input).map_err(LabelError::io(input))?;
    let mut count = 0;
    for_each_position(&mut file.reader, reading, &mut |_, _| count += 1)
        .map_err(|e| LabelError::Read(input.to_path_buf(), e))?;
    Ok(count)
}

/// The items numbered `from..to` of the input, read on a thread of their own. A read
/// error ends the items early; the count of the items then tells.
fn read_items(input: &Path, reading: LabelReading, from: u64, to: u64) -> Receiver<Item> {
    let (send, items) = sync_channel(1 << 12);
    let input = input.to_path_buf();
    std::thread::spawn(move || {
        let Ok(mut file) = open_input(&input) else {
            return;
        };
        let (mut index, mut open) = (0u64, true);
        let _ = for_each_position(&mut file.reader, reading, &mut |no, read| {
            if open && (from..to).contains(&index) {
                open = send.send((no, read)).is_ok();
            }
            index += 1;
        });
    });
    items
}

/// One engine per thread, each started (so that an engine that is no UCI engine is said
/// at once).
fn start_scorers(settings: &LabelSettings) -> Result<Vec<Scorer>, LabelError> {
    (0..settings.threads.max(1))
        .map(|_| Scorer::start(&settings.teacher).map_err(LabelError::Engine))
        .collect()
}

/// The verdicts of `block`, each position scored by one of the scorers' threads; a
/// position not reached before `stop` was set has none (nor has any after it, in effect:
/// only the block's first positions up to the first gap are written).
fn score_block(
    block: &[Item],
    scorers: &mut [Scorer],
    settings: &LabelSettings,
    stop: &AtomicBool,
) -> Result<Vec<Option<Verdict>>, LabelError> {
    let next = AtomicUsize::new(0);
    let verdicts: Vec<Mutex<Option<Verdict>>> = block.iter().map(|_| Mutex::new(None)).collect();
    let failed = std::thread::scope(|s| {
        let threads: Vec<_> = scorers
            .iter_mut()
            .map(|scorer| {
                let (next, verdicts) = (&next, &verdicts);
                s.spawn(move || loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= block.len() || stop.load(Ordering::SeqCst) {
                        return Ok(());
                    }
                    let verdict = match &block[i].1 {
                        Ok((position, _)) => score_one(scorer, position, settings)?,
                        Err(_) => Verdict::default(),
                    };
                    *verdicts[i].lock().expect("no panic holds it") = Some(verdict);
                })
            })
            .collect();
        let joined = threads.into_iter().map(|t| t.join().expect("no panic"));
        joined.collect::<Result<Vec<()>, _>>().err()
    });
    match failed {
        Some(failure) => Err(LabelError::Engine(failure)),
        None => Ok(verdicts
            .into_iter()
            .map(|v| v.into_inner().expect("no panic holds it"))
            .collect()),
    }
}

fn score_one(
    scorer: &mut Scorer,
    position: &Labelled,
    settings: &LabelSettings,
) -> Result<Verdict, texel_arena::engine::Failure> {
    let fen = Fen::from_position(&position.position, EnPassantMode::Legal).to_string();
    scorer.score(&position.position, &fen, settings)
}

/// The output of one item (nothing for an unreadable line), counted in `tally`.
fn write_item(
    (no, read): &Item,
    verdict: &Verdict,
    tally: &mut Tally,
    events: &mut dyn FnMut(Event),
) -> String {
    let position = match read {
        Ok((position, _)) => position,
        Err(bad) => {
            tally.bad_line(*no, &bad.to_string());
            return String::new();
        }
    };
    let fen = || Fen::from_position(&position.position, EnPassantMode::Legal).to_string();
    for words in &verdict.complaints {
        let (line, fen, words) = (*no, fen(), words.clone());
        events(Event::Failed { line, fen, words });
    }
    tally.written += 1;
    match &verdict.analysis {
        Some(analysis) => {
            tally.scored += 1;
            tally.with_wdl += u64::from(analysis.wdl.is_some());
            tally.replaced += u64::from(position.score.is_some());
        }
        None => tally.unscored += 1,
    }
    write_line(position, verdict.analysis.as_ref()) + "\n"
}
