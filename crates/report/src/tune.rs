//! The tuning run's page: error per pass, error against K, calibration before and after,
//! the largest value changes and the error each group's tuning removed.

use crate::page::Page;
use crate::plot::{Bar, BarPlot, LinePlot, Mark, PlotError, Series};
use texel_solve::error::{chunked_sum, mean_error, samples, sigmoid, squared_error};
use texel_solve::{Model, Values};
use texel_tune::texel_trace::ParamSpace;
use texel_tune::{LambdaPoint, PullPoint};

/// One pass of the run, as its log line tells it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PassPoint {
    /// Pass number (from 1).
    pub pass: usize,
    /// Training error after the pass.
    pub train: f64,
    /// Validation error after the pass, when there was a validation set.
    pub validation: Option<f64>,
    /// A warm start's pass on about one segment in `n`: `train` is that sample's error.
    pub sample: Option<usize>,
    /// A Newton iteration or an Adam pass: the training error of its real values (`train`
    /// is that of the values rounded).
    pub real: Option<f64>,
}

/// The pass lines of a tune log (`texel tune --log`) of its latest run: the log is appended
/// to, and a pass number that does not go up starts a new run.
///
/// # Errors
/// A line that is not a tune log line, or of another version.
pub fn read_tune_log(text: &str) -> Result<Vec<PassPoint>, texel_tune::log::TuneLogError> {
    Ok(pass_points(&texel_tune::log::read_tune_log(text)?))
}

/// The points the page draws of a log's pass lines.
pub fn pass_points(lines: &[texel_tune::log::PassLine]) -> Vec<PassPoint> {
    lines
        .iter()
        .map(|p| PassPoint {
            pass: p.pass,
            train: p.train_error,
            validation: p.validation_error,
            sample: p.sample,
            real: p.real_error,
        })
        .collect()
}

/// Positions whose evaluation falls in one bucket, and their mean game result.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Bucket {
    /// The bucket's middle, in centipawns.
    pub centre: f64,
    /// Positions in it.
    pub positions: usize,
    /// Their mean result, white's view (0 to 1).
    pub mean_result: f64,
}

/// Evaluations (centipawns, white's view) within ±[`CALIBRATION_RANGE`] bucketed by
/// [`CALIBRATION_WIDTH`].
pub const CALIBRATION_RANGE: i32 = 1000;
/// Bucket width of the calibration plot, centipawns.
pub const CALIBRATION_WIDTH: i32 = 50;
/// Buckets with fewer positions are left out (their mean says little).
pub const CALIBRATION_MIN: usize = 20;

/// The calibration buckets of `(evaluation, result)` pairs: evaluations beyond the range
/// are left out, buckets with fewer than [`CALIBRATION_MIN`] positions too.
pub fn calibration(samples: &[(i32, f64)]) -> Vec<Bucket> {
    let count = (2 * CALIBRATION_RANGE / CALIBRATION_WIDTH) as usize;
    let mut sums = vec![(0usize, 0.0f64); count];
    for &(q, target) in samples {
        if q.abs() >= CALIBRATION_RANGE {
            continue;
        }
        let b = ((q + CALIBRATION_RANGE) / CALIBRATION_WIDTH) as usize;
        sums[b].0 += 1;
        sums[b].1 += target;
    }
    sums.iter()
        .enumerate()
        .filter(|(_, &(n, _))| n >= CALIBRATION_MIN)
        .map(|(b, &(n, total))| Bucket {
            centre: f64::from(-CALIBRATION_RANGE + CALIBRATION_WIDTH * b as i32)
                + f64::from(CALIBRATION_WIDTH) / 2.0,
            positions: n,
            mean_result: total / n as f64,
        })
        .collect()
}

/// The mean error of `samples` at `K` from half to one and a half times `k`, 41 points.
pub fn k_curve(samples: &[(i32, f64)], k: f64) -> Vec<(f64, f64)> {
    let n = samples.len().max(1) as f64;
    (0..=40)
        .map(|i| {
            let kk = k * (0.5 + f64::from(i) / 40.0);
            let e = chunked_sum(samples.len(), |j| {
                let (q, t) = samples[j];
                squared_error(kk, q, t)
            });
            (kk, e / n)
        })
        .collect()
}

/// A changed value.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// Its readable name (`KNIGHT_OUTPOST[1].end`).
    pub name: String,
    /// Its parameter's group (the parameter's name when it has none).
    pub group: String,
    /// Before and after.
    pub before: i32,
    /// After.
    pub after: i32,
}

/// The group of each value of `space`: its parameter's group, or its name when it has none.
fn value_groups(space: &ParamSpace) -> Vec<String> {
    space
        .params()
        .iter()
        .flat_map(|p| {
            let group = p.group.clone().unwrap_or_else(|| p.name.clone());
            std::iter::repeat_n(group, p.values())
        })
        .collect()
}

/// The `n` largest changes of `space`'s values from `start` to `tuned`, largest first (ties
/// in the space's order).
pub fn largest_changes(space: &ParamSpace, start: &[i32], tuned: &[i32], n: usize) -> Vec<Change> {
    let groups = value_groups(space);
    let mut changes: Vec<Change> = (0..start.len())
        .filter(|&i| start[i] != tuned[i])
        .map(|i| Change {
            name: space.value_name(i).unwrap_or_default(),
            group: groups[i].clone(),
            before: start[i],
            after: tuned[i],
        })
        .collect();
    changes.sort_by_key(|c| std::cmp::Reverse((c.after - c.before).abs()));
    changes.truncate(n);
    changes
}

/// For each group with a changed value, the training error its tuning removed: the error
/// with that group's values put back to `start` (every other value tuned) minus the error of
/// `tuned`. Leaves `train` scored with `tuned`.
pub fn group_gains<M: Model>(
    train: &mut M,
    space: &ParamSpace,
    start: &M::Values,
    tuned: &M::Values,
    k: f64,
) -> Vec<(String, f64)> {
    train.rescore(tuned);
    let base = mean_error(train, k);
    let groups = value_groups(space);
    let mut names: Vec<&String> = Vec::new();
    for g in &groups {
        if !names.contains(&g) {
            names.push(g);
        }
    }
    let (from, to) = (start.values(), tuned.values());
    let mut gains = Vec::new();
    for group in names {
        let slots: Vec<usize> = (0..from.len())
            .filter(|&i| groups[i] == *group && from[i] != to[i])
            .collect();
        if slots.is_empty() {
            continue;
        }
        let mut reverted = tuned.clone();
        for &i in &slots {
            reverted.set_value(i, from[i]);
        }
        train.rescore(&reverted);
        gains.push((group.clone(), mean_error(train, k) - base));
    }
    train.rescore(tuned);
    gains
}

/// What a tune page shows of the table a run started from, measured before it moved.
#[derive(Clone, Debug, Default)]
pub struct StartView {
    /// Calibration with the start parameters.
    pub calibration: Vec<Bucket>,
    /// Error against K with the start parameters.
    pub k_curve: Vec<(f64, f64)>,
}

impl StartView {
    /// From `samples` (evaluation, result) of the start table and its fitted `k`.
    pub fn new(samples: &[(i32, f64)], k: f64) -> StartView {
        StartView {
            calibration: calibration(samples),
            k_curve: k_curve(samples, k),
        }
    }
}

/// What a tune page shows.
#[derive(Clone, Debug)]
pub struct TuneReport {
    /// Lines describing the run (data, K, passes, ...).
    pub about: Vec<String>,
    /// The passes so far.
    pub passes: Vec<PassPoint>,
    /// The run's K.
    pub k: f64,
    /// Error against K, with the tuned parameters.
    pub k_curve: Vec<(f64, f64)>,
    /// Error against K, with the start parameters (K was fitted to these).
    pub k_curve_start: Vec<(f64, f64)>,
    /// Calibration with the start parameters.
    pub before: Vec<Bucket>,
    /// Calibration with the tuned parameters.
    pub after: Vec<Bucket>,
    /// The largest changes.
    pub changes: Vec<Change>,
    /// Error removed per group (`None`: not measured yet, e.g. while the run goes on).
    pub group_gains: Option<Vec<(String, f64)>>,
    /// The path of pulls `--l2 auto` walked (empty: none), and the start's held-out error.
    pub path: (Vec<PullPoint>, Option<f64>),
    /// The path of λs `--lambda auto` walked (empty: none), and the λ it chose.
    pub lambdas: (Vec<LambdaPoint>, Option<f64>),
    /// The pull the run tuned at, where the path of pulls chose it.
    pub pull: Option<f64>,
    /// The pass whose values the run wrote (0: the start), once it ended; while it runs,
    /// the pass of the lowest validation error so far is marked.
    pub written: Option<usize>,
}

impl TuneReport {
    /// The report of a run from `start` (values of `space`) to `tuned`, the values `train`
    /// is scored with now.
    pub fn new<M: Model>(
        train: &M,
        start: &StartView,
        space: &ParamSpace,
        (start_values, tuned): (&[i32], &[i32]),
        k: f64,
    ) -> TuneReport {
        let now = samples(train);
        TuneReport {
            about: Vec::new(),
            passes: Vec::new(),
            k,
            k_curve: k_curve(&now, k),
            k_curve_start: start.k_curve.clone(),
            before: start.calibration.clone(),
            after: calibration(&now),
            changes: largest_changes(space, start_values, tuned, 30),
            group_gains: None,
            path: (Vec::new(), None),
            lambdas: (Vec::new(), None),
            pull: None,
            written: None,
        }
    }

    /// The page: every plot, with its reading guide.
    pub fn page(&self, title: &str) -> Result<Page, PlotError> {
        let mut page = Page::new(title, &self.about);
        page.heading("Error per pass");
        page.figure(
            "error-per-pass",
            &self.passes_plot().svg()?,
            "Both lines should fall and flatten. A validation line that turns up while the \
             training line still falls is over-fitting; the run keeps the best validation pass. \
             A warm start's passes show the error of its sample, lower than on all positions \
             when it over-fits the sample: the passes over every position then take over. \
             Newton's iterations and Adam's passes also show the error of their real values, \
             before rounding; the polish of the rounded values follows them. The grey \
             upright line marks the pass whose values the run wrote (while it runs, the pass \
             with the lowest validation error so far).",
        );
        self.paths(&mut page)?;
        page.heading("Error against K");
        let lowest = |curve: &[(f64, f64)]| {
            curve
                .iter()
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map_or(self.k, |p| p.0)
        };
        page.figure(
            "error-vs-k",
            &self.k_plot().svg()?,
            &format!(
                "The mean error for other scales K of the start table and of the tuned table. \
                 K was fitted to the start table: the grey line sits at the start curve's \
                 lowest point (K {:.3} on this grid). Tuning changes the scale of the \
                 evaluation, so the tuned curve's lowest point moves (here to K {:.3}); a run \
                 that starts from the tuned table fits K there.",
                lowest(&self.k_curve_start),
                lowest(&self.k_curve)
            ),
        );
        page.heading("Calibration");
        page.figure(
            "calibration",
            &self.calibration_plot().svg()?,
            "Dots: the mean game result of positions evaluated within 25 cp of x (buckets of at \
             least 20 positions). On the curve, an evaluation scores what σ(K·eval) promises; \
             after tuning the dots should hug it.",
        );
        page.heading("Largest changes");
        page.figure(
            "largest-changes",
            &self.changes_plot().svg()?,
            "The 30 values that moved most (tuned − start, centipawns), in blocks by group (the \
             first word of each label), the group with the largest change first.",
        );
        page.heading("Error removed by each group");
        match &self.group_gains {
            Some(gains) => page.figure(
                "group-gains",
                &gains_plot(gains).svg()?,
                "How much higher the training error would be with this group's values back at \
                 the start and every other value tuned: where the gain of the run comes from.",
            ),
            None => page.note("Measured when the run ends."),
        }
        Ok(page)
    }

    /// The paths of pulls and of λs the run walked, each where it walked one.
    fn paths(&self, page: &mut Page) -> Result<(), PlotError> {
        if !self.path.0.is_empty() {
            page.heading("Path of pulls");
            page.figure(
                "path-of-pulls",
                &path_plot(&self.path.0, self.path.1, self.pull).svg()?,
                "Each pull --l2 auto solved (the path walks from the strongest, on the right, \
                 leftwards until the held-out error has risen twice): the error of its \
                 solution on the training positions and, rounded, on the held-out games. The \
                 run tunes at the pull lowest on the held-out line (marked); a held-out line above \
                 the start's everywhere says the data cannot tell a better table than the \
                 start, and the run gives the start back. Where the curves and formulas move \
                 by secants, the path walks coarse first with them held (their own line, \
                 until it rises once), then steps whole at the best coarse pull and its \
                 neighbours, each from its own coarse solution, chooses among those, and the \
                 run goes on from the chosen step.",
            );
        }
        if !self.lambdas.0.is_empty() {
            page.heading("Path of λs");
            page.figure(
                "path-of-lambdas",
                &lambda_plot(&self.lambdas.0, self.lambdas.1).svg()?,
                "Each λ --lambda auto solved (results alone, λ 1, on the right; the scores \
                 alone, λ 0, on the left; every training target λ · result + (1 − λ) · \
                 score): the error of its solution, rounded, on the held-out games' results, \
                 which judge every λ alike. The run tunes at the λ lowest on the line (marked; the \
                 run's output gives each λ's training error too, against its own targets).",
            );
        }
        Ok(())
    }

    /// Training errors (a warm start's, on its sample, as a series of their own: they are
    /// not comparable with the passes over all positions) and validation errors.
    fn passes_plot(&self) -> LinePlot {
        let train = |warm: bool| -> Vec<(f64, f64)> {
            self.passes
                .iter()
                .filter(|p| p.sample.is_some() == warm)
                .map(|p| (p.pass as f64, p.train))
                .collect()
        };
        let validation: Vec<(f64, f64)> = self
            .passes
            .iter()
            .filter_map(|p| Some((p.pass as f64, p.validation?)))
            .collect();
        let mut series = vec![Series::new(
            "training",
            Mark::LineAndPoints,
            0,
            train(false),
        )];
        let warm = train(true);
        if !warm.is_empty() {
            series.push(Series::new(
                "warm start: training error of its sample",
                Mark::LineAndPoints,
                2,
                warm,
            ));
        }
        if !validation.is_empty() {
            series.push(Series::new(
                "validation",
                Mark::LineAndPoints,
                1,
                validation,
            ));
        }
        let real: Vec<(f64, f64)> = (self.passes.iter())
            .filter_map(|p| Some((p.pass as f64, p.real?)))
            .collect();
        if !real.is_empty() {
            series.push(Series::new(
                "training error of the real values (Newton, Adam)",
                Mark::LineAndPoints,
                3,
                real,
            ));
        }
        series.extend(self.written_mark(&series));
        LinePlot {
            title: "Mean squared error after each pass".into(),
            x_label: "pass".into(),
            y_label: "mean squared error (result − σ(K·eval))²".into(),
            series,
        }
    }

    /// A vertical line at the pass whose values were written (while the run goes on, the
    /// pass of the lowest validation error so far), spanning `series`.
    fn written_mark(&self, series: &[Series]) -> Option<Series> {
        let lowest_so_far = || {
            (self.passes.iter())
                .filter_map(|p| Some((p.pass, p.validation?)))
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map(|p| p.0)
        };
        let (pass, name) = match self.written {
            Some(0) => (0, "values written: where the passes began".to_string()),
            Some(pass) => (pass, format!("values written: pass {pass}")),
            None => {
                let pass = lowest_so_far()?;
                (pass, format!("lowest validation so far: pass {pass}"))
            }
        };
        upright(&name, pass as f64, series)
    }

    fn k_plot(&self) -> LinePlot {
        let (lo, hi) = self
            .k_curve
            .iter()
            .chain(&self.k_curve_start)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                (lo.min(p.1), hi.max(p.1))
            });
        LinePlot {
            title: format!(
                "Error against the scale K (K {:.4} fitted to the start)",
                self.k
            ),
            x_label: "K".into(),
            y_label: "mean squared error".into(),
            series: vec![
                Series::new("start table", Mark::Line, 0, self.k_curve_start.clone()),
                Series::new("tuned table", Mark::Line, 1, self.k_curve.clone()),
                Series::new(
                    "fitted K",
                    Mark::Reference,
                    6,
                    vec![(self.k, lo), (self.k, hi)],
                ),
            ],
        }
    }

    fn calibration_plot(&self) -> LinePlot {
        let curve = (-CALIBRATION_RANGE..=CALIBRATION_RANGE)
            .step_by(20)
            .map(|q| (f64::from(q), sigmoid(self.k, q)))
            .collect();
        let dots = |b: &[Bucket]| b.iter().map(|b| (b.centre, b.mean_result)).collect();
        LinePlot {
            title: "Calibration: mean result by evaluation".into(),
            x_label: "evaluation (centipawns, white's view)".into(),
            y_label: "mean result for white (0 to 1)".into(),
            series: vec![
                Series::new("σ(K·eval)", Mark::Line, 6, curve),
                Series::new("start", Mark::Points, 0, dots(&self.before)),
                Series::new("tuned", Mark::Points, 1, dots(&self.after)),
            ],
        }
    }

    /// Bars in blocks by group (groups in order of their largest change), each block in
    /// its own colour and its group named in the labels.
    fn changes_plot(&self) -> BarPlot {
        let mut groups: Vec<&str> = Vec::new();
        for c in &self.changes {
            if !groups.contains(&c.group.as_str()) {
                groups.push(&c.group);
            }
        }
        let block = |c: &Change| groups.iter().position(|&g| g == c.group).unwrap_or(0);
        let mut sorted: Vec<&Change> = self.changes.iter().collect();
        sorted.sort_by_key(|c| block(c));
        let bars = sorted
            .iter()
            .map(|c| Bar {
                label: format!("{} {} ({} → {})", c.group, c.name, c.before, c.after),
                value: f64::from(c.after - c.before),
                category: block(c),
            })
            .collect();
        BarPlot {
            title: "The largest value changes, by group".into(),
            value_label: "tuned − start (centipawns)".into(),
            bars,
            categories: Vec::new(),
        }
    }
}

/// Bars of the error removed per group, largest first.
fn gains_plot(gains: &[(String, f64)]) -> BarPlot {
    let mut sorted = gains.to_vec();
    sorted.sort_by(|a, b| b.1.total_cmp(&a.1));
    BarPlot {
        title: "Training error removed by each group's tuning".into(),
        value_label: "error removed (×10⁻⁴)".into(),
        bars: sorted
            .iter()
            .map(|(g, gain)| Bar {
                label: g.clone(),
                value: gain * 1e4,
                category: 0,
            })
            .collect(),
        categories: Vec::new(),
    }
}

/// The path of λs: the held-out results' error by λ (the whole steps, and the coarse
/// ones apart), and the λ chosen. (The training errors are against each λ's own targets,
/// not comparable: the page's text says them.)
fn lambda_plot(points: &[LambdaPoint], chosen: Option<f64>) -> LinePlot {
    let by = |coarse: bool| -> Vec<(f64, f64)> {
        let steps = points.iter().filter(|p| p.coarse == coarse);
        sorted(steps.map(|p| (p.lambda, p.held_out)))
    };
    let held = by(false);
    let mut series = vec![Series::new(
        "held-out results",
        Mark::LineAndPoints,
        1,
        held.clone(),
    )];
    series.extend(coarse_series("held-out results, coarse", by(true)));
    if let Some(lambda) = chosen.filter(|c| held.iter().any(|p| p.0 == *c)) {
        series.extend(upright(&format!("chosen: λ {lambda}"), lambda, &series));
    }
    LinePlot {
        title: "Each λ's table on the held-out games' results".into(),
        x_label: "λ, the share of the game result in each training target".into(),
        y_label: "mean squared error (result − σ(K·eval))²".into(),
        series,
    }
}

/// Points sorted by their x.
fn sorted(points: impl Iterator<Item = (f64, f64)>) -> Vec<(f64, f64)> {
    let mut xy: Vec<(f64, f64)> = points.collect();
    xy.sort_by(|a, b| a.0.total_cmp(&b.0));
    xy
}

/// A path's coarse steps (solved with the curves and formulas held, to find where the
/// whole solves go) as a series of their own, named `name` (none where there are none).
fn coarse_series(name: &str, points: Vec<(f64, f64)>) -> Option<Series> {
    let name = format!("{name} (curves and formulas held)");
    (!points.is_empty()).then(|| Series::new(&name, Mark::LineAndPoints, 3, points))
}

/// The path of pulls: training and held-out errors by the pull's decimal logarithm (the
/// whole steps; the coarse ones' held-out errors apart), the start's held-out error, and
/// the pull `chosen`.
fn path_plot(points: &[PullPoint], start: Option<f64>, chosen: Option<f64>) -> LinePlot {
    let by = |coarse: bool, f: fn(&PullPoint) -> f64| -> Vec<(f64, f64)> {
        let steps = points.iter().filter(|p| p.coarse == coarse);
        sorted(steps.map(|p| (p.l2.log10(), f(p))))
    };
    let held = by(false, |p| p.held_out);
    let mut series = vec![
        Series::new("held-out games", Mark::LineAndPoints, 1, held.clone()),
        Series::new(
            "training (real values)",
            Mark::LineAndPoints,
            0,
            by(false, |p| p.train),
        ),
    ];
    let coarse = by(true, |p| p.held_out);
    let all = sorted(held.iter().chain(&coarse).copied());
    series.extend(coarse_series("held-out games, coarse", coarse));
    if let (Some(start), Some(first), Some(last)) = (start, all.first(), all.last()) {
        let line = vec![(first.0, start), (last.0, start)];
        series.push(Series::new(
            "the start on held-out games",
            Mark::Line,
            2,
            line,
        ));
    }
    if let Some(l2) = chosen.filter(|c| points.iter().any(|p| p.l2 == *c)) {
        series.extend(upright(&format!("chosen: pull {l2}"), l2.log10(), &series));
    }
    LinePlot {
        title: "Error of each pull's table".into(),
        x_label: "log10 of the L2 pull".into(),
        y_label: "mean squared error (result − σ(K·eval))²".into(),
        series,
    }
}

/// A grey upright line named `name` at `x`, as tall as `series` (none where they have no
/// point): the mark of a choice.
fn upright(name: &str, x: f64, series: &[Series]) -> Option<Series> {
    let ys = series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
    let (lo, hi) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), y| {
        (lo.min(y), hi.max(y))
    });
    (lo <= hi).then(|| Series::new(name, Mark::Reference, 6, vec![(x, lo), (x, hi)]))
}
