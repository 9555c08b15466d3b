//! Pages of played games: a match (score and Elo with 95 % intervals per pairing, the SPRT
//! log-likelihood ratio pair by pair) and a loop (the gate of every round).

use crate::page::Page;
use crate::plot::{LinePlot, Mark, PlotError, Series};
use texel_arena::elo::{llr_bounds, Pentanomial, Score, SPRT_ERROR_RATE};
use texel_arena::results::GameTags;
use texel_arena::sprt::SprtTest;

/// The games two engines played against each other, in file order.
#[derive(Clone, Debug, PartialEq)]
pub struct PairingGames {
    /// The engine whose score is counted (White in the pairing's first game).
    pub first: String,
    /// Its opponent.
    pub second: String,
    /// The first engine's points in each finished game: 0, ½ or 1.
    pub points: Vec<f64>,
}

impl PairingGames {
    /// Wins, draws and losses of the first engine after `n` games.
    pub fn score_after(&self, n: usize) -> Score {
        let mut s = Score::default();
        for &p in &self.points[..n.min(self.points.len())] {
            match p {
                1.0 => s.wins += 1,
                0.0 => s.losses += 1,
                _ => s.draws += 1,
            }
        }
        s
    }

    /// The SPRT log-likelihood ratio after each pair of games (texel plays a pairing's
    /// games in colour-swapped pairs, one after the other), on the pentanomial model as the
    /// match computed it; `x` is the games played.
    pub fn llr_path(&self, test: &SprtTest) -> Vec<(f64, f64)> {
        let mut pairs = Pentanomial::default();
        self.points
            .chunks_exact(2)
            .enumerate()
            .map(|(i, pair)| {
                pairs.0[((pair[0] + pair[1]) * 2.0).round() as usize] += 1;
                (2.0 * (i + 1) as f64, test.pentanomial(&pairs).llr())
            })
            .collect()
    }
}

/// The finished games of a match PGN, by pairing in order of first appearance.
pub fn pairings(games: &[GameTags]) -> Vec<PairingGames> {
    let mut out: Vec<PairingGames> = Vec::new();
    for g in games {
        let at = out.iter().position(|p| {
            (p.first == g.white && p.second == g.black)
                || (p.first == g.black && p.second == g.white)
        });
        let at = at.unwrap_or_else(|| {
            out.push(PairingGames {
                first: g.white.clone(),
                second: g.black.clone(),
                points: Vec::new(),
            });
            out.len() - 1
        });
        if let Some(p) = g.points_of(&out[at].first) {
            out[at].points.push(p);
        }
    }
    out
}

/// The LLR bounds as two reference series over `games` games.
fn bounds_series(games: f64) -> Vec<Series> {
    let (lower, upper) = llr_bounds(SPRT_ERROR_RATE, SPRT_ERROR_RATE);
    // Told apart by shade: dark where the gain is accepted, light grey where it is not.
    [("accept H1", upper, 7), ("accept H0", lower, 6)]
        .into_iter()
        .map(|(name, y, c)| Series::new(name, Mark::Reference, c, vec![(0.0, y), (games, y)]))
        .collect()
}

/// The LLR of each pairing (or round) after each game pair, with the bounds.
fn llr_plot(title: String, paths: Vec<(String, Vec<(f64, f64)>)>) -> LinePlot {
    // The bounds run as far as the games played (the x of the last point).
    let longest = paths
        .iter()
        .filter_map(|p| p.1.last().map(|q| q.0))
        .fold(1.0, f64::max);
    let mut series: Vec<Series> = paths
        .into_iter()
        .enumerate()
        .map(|(i, (name, points))| Series::new(&name, Mark::Line, i, points))
        .collect();
    series.extend(bounds_series(longest));
    LinePlot {
        title,
        x_label: "games played".into(),
        y_label: "log-likelihood ratio".into(),
        series,
    }
}

/// Elo with 95 % intervals, one point per x.
fn elo_series(name: &str, colour: usize, points: Vec<(f64, Score)>) -> Series {
    let (xy, errors) = points
        .iter()
        .map(|(x, s)| {
            let (elo, margin) = s.elo();
            ((*x, elo), margin)
        })
        .unzip();
    Series {
        errors: Some(errors),
        ..Series::new(name, Mark::Points, colour, xy)
    }
}

/// The page of a match: a table of pairings, their Elo with 95 % intervals and, with SPRT
/// bounds in Elo, the log-likelihood ratio pair by pair.
pub fn match_page(
    title: &str,
    about: &[String],
    games: &[GameTags],
    sprt: Option<SprtTest>,
) -> Result<Page, PlotError> {
    let pairs = pairings(games);
    let mut page = Page::new(title, about);
    let rows: Vec<Vec<String>> = pairs
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let s = p.score_after(p.points.len());
            let (elo, margin) = s.elo();
            vec![
                format!("{}", i + 1),
                format!("{} vs {}", p.first, p.second),
                format!("{}", s.games()),
                format!("+{} ={} −{}", s.wins, s.draws, s.losses),
                format!("{:.1} %", 100.0 * s.fraction()),
                format!("{elo:+.1} ± {margin:.1}"),
                format!("{:.1} %", 100.0 * s.los()),
            ]
        })
        .collect();
    page.heading("Pairings");
    page.table(
        &[
            "#",
            "pairing",
            "games",
            "score",
            "points",
            "Elo (95 %)",
            "LOS",
        ],
        &rows,
    );
    let points = pairs
        .iter()
        .enumerate()
        .map(|(i, p)| ((i + 1) as f64, p.score_after(p.points.len())))
        .collect();
    let elo = LinePlot {
        title: "Elo of the first engine of each pairing".into(),
        x_label: "pairing (numbered as in the table)".into(),
        y_label: "Elo difference".into(),
        series: vec![elo_series("Elo ± 95 %", 0, points), zero_line(pairs.len())],
    };
    page.heading("Elo");
    page.figure("match-elo", &elo.svg()?,
        "Each dot is a pairing's Elo with its 95 % interval; an interval clear of the zero line is a \
         real difference.");
    if let Some(test) = sprt {
        let paths = pairs
            .iter()
            .map(|p| (format!("{} vs {}", p.first, p.second), p.llr_path(&test)))
            .collect();
        let plot = llr_plot(format!("SPRT log-likelihood ratio, {test}"), paths);
        page.heading("SPRT");
        page.figure("match-llr", &plot.svg()?,
            "The test stops when the line leaves the band: above, the gain is at least elo1; below, \
             at most elo0 (α = β = 0.05).");
    }
    Ok(page)
}

/// A grey line at zero Elo across the points 1 to `n` (from 0 to n + 1).
fn zero_line(n: usize) -> Series {
    Series::new(
        "0 Elo",
        Mark::Reference,
        6,
        vec![(0.0, 0.0), (n as f64 + 1.0, 0.0)],
    )
}

/// One round of a loop, as its `loop.jsonl` line and gate games tell it.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopRound {
    /// Round number.
    pub round: u32,
    /// Self-play games.
    pub games: u64,
    /// Positions imported from them.
    pub positions: u64,
    /// Training and validation error at the end of the round's tuning.
    pub errors: (Option<f64>, Option<f64>),
    /// The gate's score of the tuned table against the best.
    pub gate: Score,
    /// Whether the tuned table became the best.
    pub passed: bool,
    /// The gate's SPRT.
    pub sprt: SprtTest,
    /// The gate was an SPRT run elsewhere: only its verdict is known.
    pub outside: bool,
    /// No gate was played: the round's tuning kept its start, the best itself.
    pub skipped: bool,
    /// The tuned table's points in each gate game, in order (empty when the PGN is gone).
    pub gate_points: Vec<f64>,
}

/// The loop's rounds from `loop.jsonl`; gate games are filled in by the caller.
///
/// # Errors
/// A line that is not a round, or of another version.
pub fn read_loop_lines(text: &str) -> Result<Vec<LoopRound>, texel_loop::LoopFileError> {
    let rounds = texel_loop::read_rounds(text)?;
    Ok(rounds
        .into_iter()
        .map(|r| LoopRound {
            round: r.round,
            games: r.games,
            positions: r.positions,
            errors: (r.error.train, r.error.validation),
            gate: Score {
                wins: r.gate.wins,
                draws: r.gate.draws,
                losses: r.gate.losses,
            },
            passed: r.gate.passed,
            sprt: r.gate.sprt,
            outside: r.gate.outside,
            skipped: r.gate.skipped,
            gate_points: Vec::new(),
        })
        .collect())
}

/// The page of a loop: a table of rounds, the gate's Elo and the errors per round, and the
/// gate's log-likelihood ratio pair by pair.
pub fn loop_page(title: &str, about: &[String], rounds: &[LoopRound]) -> Result<Page, PlotError> {
    let mut page = Page::new(title, about);
    page.heading("Rounds");
    rounds_table(&mut page, rounds);
    page.heading("Elo per round");
    page.figure(
        "loop-elo",
        &loop_elo_plot(rounds).svg()?,
        "Each dot is a round's gate match with its 95 % interval; a passed round's table became \
         the best that the next round plays with.",
    );
    page.heading("Error per round");
    page.figure(
        "loop-error",
        &loop_error_plot(rounds).svg()?,
        "Each round tunes on more positions (its own games are added), so the errors need not \
         fall; a gap between the lines that widens is over-fitting.",
    );
    let paths = rounds
        .iter()
        .filter(|r| !r.gate_points.is_empty())
        .map(|r| {
            let p = PairingGames {
                first: String::new(),
                second: String::new(),
                points: r.gate_points.clone(),
            };
            (format!("round {}", r.round), p.llr_path(&r.sprt))
        })
        .collect();
    page.heading("Gate SPRT");
    page.figure(
        "loop-llr",
        &llr_plot("Gate log-likelihood ratio, pair by pair".into(), paths).svg()?,
        "A round passes when its line reaches the upper bound, or, when the games run out first, \
         when the score's LOS is at least 95 %.",
    );
    Ok(page)
}

/// One row per round: data, errors, the gate and its verdict.
fn rounds_table(page: &mut Page, rounds: &[LoopRound]) {
    let fmt = |e: Option<f64>| e.map_or("-".to_string(), |e| format!("{e:.6}"));
    let rows: Vec<Vec<String>> = rounds
        .iter()
        .map(|r| {
            let (elo, margin) = r.gate.elo();
            let verdict = if r.passed {
                "new best"
            } else {
                "kept the best"
            };
            let (gate, elo) = match (r.skipped, r.outside) {
                (true, _) => ("none: tuning kept the best".into(), "-".into()),
                (_, true) => ("outside SPRT".into(), "-".into()),
                _ => (
                    format!("+{} ={} −{}", r.gate.wins, r.gate.draws, r.gate.losses),
                    format!("{elo:+.1} ± {margin:.1}"),
                ),
            };
            vec![
                r.round.to_string(),
                r.games.to_string(),
                r.positions.to_string(),
                fmt(r.errors.0),
                fmt(r.errors.1),
                gate,
                elo,
                verdict.to_string(),
            ]
        })
        .collect();
    let head = [
        "round",
        "games",
        "positions",
        "train error",
        "validation error",
        "gate",
    ];
    page.table(&[&head[..], &["Elo (95 %)", "verdict"]].concat(), &rows);
}

/// The gate's Elo per round, passed and failed rounds apart.
fn loop_elo_plot(rounds: &[LoopRound]) -> LinePlot {
    let by = |passed: bool| -> Vec<(f64, Score)> {
        rounds
            .iter()
            .filter(|r| r.passed == passed && !r.outside && !r.skipped)
            .map(|r| (f64::from(r.round), r.gate))
            .collect()
    };
    LinePlot {
        title: "Gate: the round's tuned table against the best so far".into(),
        x_label: "round".into(),
        y_label: "Elo difference".into(),
        series: vec![
            elo_series("passed", 2, by(true)),
            elo_series("failed", 1, by(false)),
            zero_line(rounds.len()),
        ],
    }
}

/// Training and validation error at the end of each round's tuning.
fn loop_error_plot(rounds: &[LoopRound]) -> LinePlot {
    let error = |pick: fn(&LoopRound) -> Option<f64>| -> Vec<(f64, f64)> {
        rounds
            .iter()
            .filter_map(|r| Some((f64::from(r.round), pick(r)?)))
            .collect()
    };
    LinePlot {
        title: "Error at the end of each round's tuning".into(),
        x_label: "round".into(),
        y_label: "mean squared error".into(),
        series: vec![
            Series::new("training", Mark::LineAndPoints, 0, error(|r| r.errors.0)),
            Series::new("validation", Mark::LineAndPoints, 1, error(|r| r.errors.1)),
        ],
    }
}
