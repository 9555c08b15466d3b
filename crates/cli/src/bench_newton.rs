//! `texel bench newton` and `texel bench adam`: what an iteration of the default method, or
//! an epoch of Adam, costs on a synthetic trace of the race's shape (148 tapered entries,
//! 296 values, 30 coefficients a position, results drawn from a planted evaluation), so
//! their speed is watched without the peer tuner: each pass's seconds (a Newton iteration
//! with a fresh Hessian or a chord step reusing one; ten Adam epochs, with the seconds of
//! one), the real error it reaches, and the process's peak memory.

use anyhow::Result;
use std::time::Instant;
use texel_data::splitmix64;
use texel_solve::{Method, Variable, ADAM_EPOCHS_PER_PASS};
use texel_tune::log::PassKind;
use texel_tune::texel_trace::{Coef, Param, ParamSpace, TracedPosition};
use texel_tune::{fresh, run, Event, RunOptions, TraceDataset};

/// The race's shape: material, rank and file tables, and other terms, all tapered.
fn space() -> ParamSpace {
    let param = |name: &str, len: usize| Param {
        name: name.into(),
        len,
        tapered: true,
        default: vec![0; 2 * len],
        group: None,
        candidate: false,
    };
    let params = [("MATERIAL", 6), ("RANK", 48), ("FILE", 48), ("OTHER", 46)];
    ParamSpace::new(params.iter().map(|&(n, len)| param(n, len)).collect())
        .expect("a well-formed space")
}

/// The planted value of slot `s`.
fn planted(s: usize) -> f64 {
    match s {
        0..12 => [
            100.0, 120.0, 320.0, 300.0, 330.0, 310.0, 500.0, 550.0, 950.0, 1000.0, 0.0, 0.0,
        ][s],
        _ => (splitmix64(s as u64) % 61) as f64 - 30.0,
    }
}

/// `n` positions of 30 coefficients (material counts and table entries), labelled by a draw
/// from the planted evaluation's expected score at K = 1.
fn positions(space: &ParamSpace, n: usize) -> Vec<TracedPosition> {
    let entries = space.entry_count() as u64;
    (0..n as u64)
        .map(|i| {
            let r = |k: u64| splitmix64(i * 64 + k);
            let phase = (r(0) % 25) as f64 / 24.0;
            let coeffs: Vec<Coef> = (0..30u64)
                .map(|k| {
                    let entry = if k < 5 {
                        k
                    } else {
                        6 + r(k + 2) % (entries - 6)
                    };
                    Coef::Count(entry as u32, (r(k + 40) % 3) as f32 - 1.0)
                })
                .collect();
            let eval: f64 = (coeffs.iter())
                .map(|c| match *c {
                    Coef::Count(e, c) => {
                        let (m, g) = (planted(2 * e as usize), planted(2 * e as usize + 1));
                        f64::from(c) * (phase * m + (1.0 - phase) * g)
                    }
                    Coef::Split(..) => 0.0,
                })
                .sum();
            let win = 1.0 / (1.0 + 10f64.powf(-eval / 400.0));
            let draw = (r(1) >> 11) as f64 / (1u64 << 53) as f64;
            TracedPosition {
                inner: Vec::new(),
                game: None,
                result: if draw < win { 1.0 } else { 0.0 },
                score: None,
                phase: phase as f32,
                scale: 1.0,
                offset: 0.0,
                offset_end: 0.0,
                coeffs,
            }
        })
        .collect()
}

/// Tunes `n` synthetic positions from zero with `method` at K = 1 (Newton: up to 30
/// passes; Adam: 20 passes of ten epochs), printing every pass's seconds and errors and the
/// peak memory.
pub fn bench_method(n: usize, method: Method) -> Result<()> {
    let space = space();
    let positions = positions(&space, n);
    let refs: Vec<&TracedPosition> = positions.iter().collect();
    let mut train = TraceDataset::new(&space, &refs, |p| p.result);
    drop(refs);
    drop(positions);
    let zero = vec![0; space.value_count()];
    texel_solve::Model::rescore(&mut train, &zero);
    let mut validation = TraceDataset::new(&space, &[], |p| p.result);
    let vars = (0..space.value_count())
        .map(|slot| Variable { slot, step: 1 })
        .collect();
    let start = fresh(&train, 0, zero, 1.0, vars, Default::default());
    let passes = if method == Method::Adam { 20 } else { 30 };
    let options = RunOptions {
        method,
        passes,
        ..RunOptions::default()
    };
    say!("{n} synthetic positions, 296 values, 30 coefficients each; K 1, from zero; {method}");
    let began = Instant::now();
    let mut last = 0.0;
    let mut on = |e: Event<TraceDataset>| say_pass(&e, &mut last);
    let never = std::sync::atomic::AtomicBool::new(false);
    run(
        &mut train,
        &mut validation,
        start,
        &options,
        &never,
        &mut on,
    )?;
    say!("tuned in {:.2} s", began.elapsed().as_secs_f64());
    if let Some(peak) = crate::memory::peak_memory() {
        say!("peak memory {:.0} MiB", peak as f64 / (1 << 20) as f64);
    }
    Ok(())
}

/// Tunes the same `n` synthetic positions streamed (written as a binary trace in a
/// temporary folder, the tuner form in a scratch file beside it, chunks of 1,048,576),
/// printing every Newton iteration's and polish round's seconds and the peak memory: the
/// cost of a streamed pass against `texel bench newton`'s in-memory one.
pub fn bench_stream(n: usize) -> Result<()> {
    use texel_tune::{JobEvent, Labels, StreamEvent, StreamRun, Streaming, TuneSettings, L2};
    let space = space();
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("bench.bin");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path)?);
    texel_tune::texel_trace::write_binary(&mut out, &space, &positions(&space, n))?;
    drop(out);
    let trace = texel_tune::texel_trace::BinaryTrace::read(&path)?;
    let zero = vec![0; space.value_count()];
    let slots: Vec<usize> = (0..space.value_count()).collect();
    let mut settings = TuneSettings {
        k: Some(1.0),
        min_support: 0,
        l2: L2::Fixed(0.0),
        stream: Streaming {
            form: Some(dir.path().join("bench.form")),
            ..Streaming::default()
        },
        ..TuneSettings::default()
    };
    settings.run.passes = 30;
    say!("{n} synthetic positions, 296 values, 30 coefficients each; K 1, from zero; streamed");
    let began = Instant::now();
    let never = std::sync::atomic::AtomicBool::new(false);
    let mut last = 0.0;
    let show = |e: StreamEvent| {
        if let StreamEvent::Job(JobEvent::Run(e)) = e {
            say_pass(&e, &mut last);
        }
    };
    let run = StreamRun::new(&settings, Labels::default());
    let tuned = texel_tune::tune_streamed(&trace, (&zero, &slots), run, None, &never, show)?;
    say!(
        "tuned in {:.2} s (the tuner form written once, read back in every pass), error {:.8}",
        began.elapsed().as_secs_f64(),
        tuned.error
    );
    if let Some(peak) = crate::memory::peak_memory() {
        say!("peak memory {:.0} MiB", peak as f64 / (1 << 20) as f64);
    }
    Ok(())
}

/// A pass of a bench's run in a line: its seconds (since the last, `last`), what it was,
/// its error.
fn say_pass(e: &Event<TraceDataset>, last: &mut f64) {
    let Event::Pass(r, _) = e else {
        return;
    };
    let seconds = r.seconds - *last;
    let kind = match (r.kind, r.real_error) {
        (PassKind::Adam, Some(real)) => format!(
            "{ADAM_EPOCHS_PER_PASS} Adam epochs, {:.4} s an epoch, real values {real:.8}",
            seconds / ADAM_EPOCHS_PER_PASS as f64
        ),
        (_, Some(real)) => format!("Newton, real values {real:.8}"),
        (_, None) => format!("polish, {} values moved", r.summary.changed),
    };
    say!(
        "pass {:>2}: {seconds:.3} s ({kind}), error {:.8}",
        r.pass,
        r.train_error
    );
    *last = r.seconds;
}
