//! Pages built from small fixed runs hold every plot with the number of points or bars
//! their data gives (counted in the SVG), and need nothing from the network.

use texel_arena::elo::Pentanomial;
use texel_arena::results::games;
use texel_arena::sprt::SprtTest;
use texel_eval::params::Group;
use texel_report::games::{loop_page, match_page, pairings, read_loop_lines, LoopRound};
use texel_report::lab::{lab_page, read_lab};
use texel_report::tune::{calibration, read_tune_log, Bucket, Change, PassPoint, TuneReport};
use texel_tune::PullPoint;

/// The SVG of figure `id`.
fn figure<'h>(html: &'h str, id: &str) -> &'h str {
    let open = format!("<figure id=\"{id}\">");
    let start = html.find(&open).unwrap_or_else(|| panic!("no figure {id}"));
    let end = start + html[start..].find("</figure>").unwrap();
    let fig = &html[start..end];
    assert!(
        fig.contains("<svg") && fig.contains("</svg>"),
        "{id} holds no SVG"
    );
    assert!(fig.contains("<figcaption>"), "{id} has no reading guide");
    fig
}

/// Data points: dots.
fn dots(svg: &str) -> usize {
    svg.matches("<circle").count()
}

/// Data bars: opaque coloured rectangles (not the white background, not the legend box).
fn bars(svg: &str) -> usize {
    svg.lines()
        .filter(|l| l.starts_with("<rect") && l.contains("opacity=\"1\""))
        .filter(|l| !l.contains("fill=\"#FFFFFF\""))
        .count()
}

/// Texts drawn in the SVG (titles, axis labels, legend entries).
fn has_text(svg: &str, text: &str) -> bool {
    svg.contains(&format!("\n{text}\n</text>"))
}

/// Nothing is fetched: no scripts, links, images, imports or URLs but the SVG namespace.
fn assert_offline(html: &str) {
    for bad in [
        "<script", "<link", "<img", "src=", "href=", "@import", "url(",
    ] {
        assert!(!html.contains(bad), "the page loads something: {bad}");
    }
    let urls = html.matches("http").count();
    let namespaces = html.matches("xmlns=\"http://www.w3.org/2000/svg\"").count();
    assert_eq!(urls, namespaces, "a URL besides the SVG namespace");
}

fn bucket(centre: f64) -> Bucket {
    Bucket {
        centre,
        positions: 30,
        mean_result: 0.5 + centre / 2000.0,
    }
}

fn tune_report() -> TuneReport {
    let passes = (1..=4)
        .map(|p| PassPoint {
            pass: p,
            train: 0.03 - 0.001 * p as f64,
            validation: (p > 1).then_some(0.031 - 0.0005 * p as f64),
            sample: (p == 1).then_some(8),
            real: (p == 2).then_some(0.0275),
        })
        .collect();
    let change = |name: &str, group: Group, after| Change {
        name: name.into(),
        group: group.name().to_string(),
        before: 0,
        after,
    };
    TuneReport {
        about: vec!["data: fixture".into()],
        passes,
        k: 1.2,
        k_curve: (0..=40)
            .map(|i| (0.6 + 0.03 * f64::from(i), 0.03))
            .collect(),
        k_curve_start: (0..=40)
            .map(|i| (0.6 + 0.03 * f64::from(i), 0.031))
            .collect(),
        before: [-100.0, -50.0, 0.0, 50.0, 100.0].map(bucket).to_vec(),
        after: [-150.0, -100.0, -50.0, 0.0, 50.0, 100.0]
            .map(bucket)
            .to_vec(),
        changes: vec![
            change("A.mid", Group::ALL[0], 30),
            change("B.end", Group::ALL[1], -20),
            change("C.mid", Group::ALL[0], 10),
        ],
        group_gains: Some(vec![
            (Group::ALL[0].name().to_string(), 2e-4),
            (Group::ALL[1].name().to_string(), 5e-5),
        ]),
        path: (Vec::new(), None),
        lambdas: (
            [1.0, 0.75, 0.5, 0.25]
                .map(|lambda| texel_tune::LambdaPoint {
                    lambda,
                    train: 0.02 + 0.01 * lambda,
                    held_out: 0.03 + 0.01 * (lambda - 0.5).abs(),
                    iterations: 3,
                    seconds: 1.5,
                    coarse: false,
                })
                .to_vec(),
            Some(0.5),
        ),
        pull: None,
        written: Some(3),
    }
}

#[test]
fn the_tune_page_holds_every_plot_with_its_points_and_bars() {
    let html = tune_report().page("Tuning run").unwrap().html();
    assert_offline(&html);
    let passes = figure(&html, "error-per-pass");
    assert_eq!(dots(passes), 4 + 3 + 1, "a dot per pass and set");
    assert!(has_text(passes, "training") && has_text(passes, "validation"));
    assert!(
        has_text(passes, "warm start: training error of its sample"),
        "the warm start's pass is a series of its own"
    );
    assert!(
        has_text(passes, "training error of the real values (Newton, Adam)"),
        "Newton's and Adam's real errors are a series of their own"
    );
    assert!(has_text(passes, "pass"), "the x axis is labelled");
    assert!(
        has_text(passes, "values written: pass 3"),
        "the pass written is marked"
    );
    let mut running = tune_report();
    running.written = None;
    let html_running = running.page("Tuning run (in progress)").unwrap().html();
    let marked = figure(&html_running, "error-per-pass");
    assert!(
        has_text(marked, "lowest validation so far: pass 4"),
        "while the run goes on, the best pass so far is marked"
    );
    let k = figure(&html, "error-vs-k");
    assert_eq!(dots(k), 0);
    assert!(has_text(k, "fitted K") && has_text(k, "K"));
    assert!(
        has_text(k, "start table") && has_text(k, "tuned table"),
        "both tables' curves, the fitted K being the start's"
    );
    let calib = figure(&html, "calibration");
    assert_eq!(dots(calib), 5 + 6, "a dot per bucket, before and after");
    assert!(
        has_text(calib, "start") && has_text(calib, "tuned"),
        "the legend names both"
    );
    assert_eq!(bars(figure(&html, "largest-changes")), 3);
    assert_eq!(bars(figure(&html, "group-gains")), 2);
    let lambdas = figure(&html, "path-of-lambdas");
    assert_eq!(dots(lambdas), 4, "a dot per λ");
    assert!(has_text(lambdas, "held-out results") && has_text(lambdas, "chosen: λ 0.5"));
    let mut without = tune_report();
    without.lambdas = (Vec::new(), None);
    let html = without.page("Tuning run").unwrap().html();
    assert!(
        !html.contains("path-of-lambdas"),
        "no path of λs, no figure"
    );
}

#[test]
fn the_path_of_pulls_is_plotted_when_the_run_walked_one() {
    let html = tune_report().page("Tuning run").unwrap().html();
    assert!(
        !html.contains("<figure id=\"path-of-pulls\">"),
        "no path walked"
    );
    let mut report = tune_report();
    let point = |l2: f64, held_out| PullPoint {
        l2,
        train: 0.03 - 0.0001 * l2.log10(),
        held_out,
        iterations: 2,
        seconds: 0.8,
        coarse: false,
    };
    let path = vec![point(1e5, 0.032), point(3e4, 0.031), point(1e4, 0.0315)];
    report.path = (path.clone(), Some(0.0325));
    report.pull = Some(3e4);
    let html = report.page("Tuning run").unwrap().html();
    let plot = figure(&html, "path-of-pulls");
    assert_eq!(dots(plot), 3 + 3, "a dot per pull, training and held out");
    assert!(has_text(plot, "chosen: pull 30000"), "the choice is marked");
    assert!(has_text(plot, "held-out games") && has_text(plot, "training (real values)"));
    assert!(has_text(plot, "the start on held-out games"));
    assert!(
        has_text(plot, "log10 of the L2 pull"),
        "the x axis is labelled"
    );
    assert!(
        !has_text(plot, "coarse"),
        "no coarse step, no coarse series"
    );
    // A walk that refines: four coarse steps first, then the three whole ones.
    let coarse = [1e5, 3e4, 1e4, 3e3].map(|l2| PullPoint {
        coarse: true,
        ..point(l2, 0.033)
    });
    report.path = (coarse.into_iter().chain(path).collect(), Some(0.0325));
    let html = report.page("Tuning run").unwrap().html();
    let plot = figure(&html, "path-of-pulls");
    assert_eq!(
        dots(plot),
        3 + 3 + 4,
        "the coarse steps' held-out errors apart"
    );
    assert!(has_text(
        plot,
        "held-out games, coarse (curves and formulas held)"
    ));
}

#[test]
fn while_the_run_goes_on_the_group_plot_waits_for_its_end() {
    let mut report = tune_report();
    report.group_gains = None;
    let html = report.page("Tuning run").unwrap().html();
    assert!(!html.contains("id=\"group-gains\""));
    assert!(html.contains("Measured when the run ends."));
    assert_eq!(
        html.matches("<figure").count(),
        5,
        "the path of λs has its figure"
    );
}

#[test]
fn calibration_buckets_evaluations_by_fifty_centipawns() {
    let mut samples: Vec<(i32, f64)> = Vec::new();
    samples.extend((0..30).map(|i| (10 + i, 1.0)));
    samples.extend((0..10).map(|i| (10 + i, 0.0)));
    samples.extend((0..19).map(|_| (-60, 0.0)));
    samples.extend((0..50).map(|_| (1000, 1.0)));
    let b = calibration(&samples);
    assert_eq!(
        b.len(),
        1,
        "19 positions are too few, 1000 cp is out of range"
    );
    assert_eq!(b[0].centre, 25.0);
    assert_eq!(b[0].positions, 40);
    assert_eq!(b[0].mean_result, 0.75);
}

#[test]
fn the_tune_log_gives_its_pass_lines() {
    let log =
        "{\"pass\":1,\"train_error\":0.03,\"validation_error\":null,\"moves\":5,\"sample\":8}\n\
               {\"pass\":2,\"train_error\":0.02,\"validation_error\":0.025}\n\
               {\"held\":[],\"changes\":[]}\n";
    let p = read_tune_log(log).unwrap();
    assert_eq!(p.len(), 2);
    assert_eq!(p[0].validation, None);
    assert_eq!(p[1].validation, Some(0.025));
    assert_eq!((p[0].sample, p[1].sample), (Some(8), None));
    let appended = format!("{log}{{\"pass\":1,\"train_error\":0.01}}\n");
    let p = read_tune_log(&appended).unwrap();
    assert_eq!(
        p.len(),
        1,
        "a log appended to by a second run: its last run"
    );
    assert_eq!(p[0].train, 0.01);
}

fn game(round: usize, white: &str, black: &str, result: &str) -> String {
    format!(
        "[Event \"m\"]\n[Round \"{round}\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n\
         [Result \"{result}\"]\n\n1. e4 {result}\n\n"
    )
}

#[test]
fn the_match_page_draws_a_point_per_pairing_and_the_llr_per_game() {
    let pgn = [
        game(1, "a", "b", "1-0"),
        game(2, "b", "a", "1/2-1/2"),
        game(3, "a", "c", "0-1"),
        game(4, "b", "a", "0-1"),
        game(5, "c", "a", "1-0"),
        game(6, "a", "b", "*"),
    ]
    .concat();
    let g = games(&pgn);
    let p = pairings(&g);
    assert_eq!(p.len(), 2);
    assert_eq!(
        (p[0].first.as_str(), p[0].points.clone()),
        ("a", vec![1.0, 0.5, 1.0])
    );
    assert_eq!(
        (p[1].first.as_str(), p[1].points.clone()),
        ("a", vec![0.0, 0.0])
    );
    let test = SprtTest::logistic(0.0, 10.0);
    let path = p[0].llr_path(&test);
    assert_eq!(
        path.len(),
        1,
        "one whole pair; the third game waits for its partner"
    );
    let end = test.pentanomial(&Pentanomial([0, 0, 0, 1, 0])).llr();
    assert_eq!(path[0], (2.0, end));
    let html = match_page("Match", &[], &g, Some(test)).unwrap().html();
    assert_offline(&html);
    assert_eq!(dots(figure(&html, "match-elo")), 2);
    let llr = figure(&html, "match-llr");
    assert!(has_text(llr, "a vs b") && has_text(llr, "a vs c") && has_text(llr, "accept H1"));
    assert!(html.contains("<td>+2 =1 −0</td>"));
    let without = match_page("Match", &[], &g, None).unwrap().html();
    assert!(!without.contains("match-llr"));
}

#[test]
fn the_loop_page_draws_every_round() {
    let lines = "{\"round\":1,\"games\":10,\"positions\":90,\"error\":{\"train\":0.03,\"validation\":0.031},\
                 \"gate\":{\"wins\":5,\"draws\":2,\"losses\":3,\"elo\":1,\"margin\":2,\"llr\":0.1,\"passed\":false}}\n\
                 {\"round\":2,\"games\":10,\"positions\":95,\"error\":{\"train\":0.029,\"validation\":null},\
                 \"gate\":{\"wins\":8,\"draws\":1,\"losses\":1,\"elo\":1,\"margin\":2,\"llr\":3.0,\"sprt\":[0,5],\"passed\":true}}\n";
    let mut rounds: Vec<LoopRound> = read_loop_lines(lines).unwrap();
    assert_eq!(rounds.len(), 2);
    assert_eq!(
        rounds[0].sprt,
        SprtTest::logistic(0.0, 10.0),
        "early lines: the loop's default bounds"
    );
    assert_eq!(rounds[1].sprt, SprtTest::logistic(0.0, 5.0));
    assert!(!rounds[0].outside && !rounds[1].outside);
    assert_eq!(rounds[1].errors, (Some(0.029), None));
    rounds[0].gate_points = vec![1.0, 0.0, 0.5];
    let html = loop_page("Loop", &[], &rounds).unwrap().html();
    assert_offline(&html);
    assert_eq!(dots(figure(&html, "loop-elo")), 2);
    assert_eq!(dots(figure(&html, "loop-error")), 2 + 1);
    let llr = figure(&html, "loop-llr");
    assert!(
        has_text(llr, "round 1") && !has_text(llr, "round 2"),
        "round 2 has no gate PGN"
    );
    assert!(html.contains("new best") && html.contains("kept the best"));
    // A round gated elsewhere shows its verdict, not a score.
    let outside = "{\"round\":3,\"games\":900,\"positions\":9000,\"error\":{\"train\":0.03,\
                   \"validation\":0.03},\"gate\":{\"outside\":true,\"wins\":0,\"draws\":0,\
                   \"losses\":0,\"passed\":true}}\n";
    let rounds = read_loop_lines(outside).unwrap();
    assert!(rounds[0].outside);
    let html = loop_page("Loop", &[], &rounds).unwrap().html();
    assert!(html.contains("<td>outside SPRT</td>"), "{html}");
    assert_eq!(dots(figure(&html, "loop-elo")), 0);
}

#[test]
fn the_lab_page_draws_a_bar_per_verdict() {
    // A verdict of lab.json: the gains follow from the held and free errors.
    let verdict = |subject: &str, kind: &str, kept: bool, share: f64, gains: (f64, f64)| {
        format!(
            "{{\"subject\": \"{subject}\", \"kind\": \"{kind}\", \"partners\": [], \
             \"support\": 10, \"share\": {share}, \"held\": {{\"train\": 0.03, \"validation\": 0.03}}, \
             \"free\": {{\"train\": {}, \"validation\": {}}}, \"values\": {{}}, \"seconds\": 1.0, \
             \"train_gain\": {}, \"validation_gain\": {}, \"relative_gain\": 0.0, \
             \"kept\": {kept}, \"why_not\": null}}",
            0.03 - gains.1,
            0.03 - gains.0,
            gains.1,
            gains.0
        )
    };
    let json = format!(
        "{{\"version\": 1, \"run\": [\"data: x\"], \"min_relative_gain\": 0.0001, \"verdicts\": [{}, {}, {}]}}",
        verdict("PlacementV", "candidate", true, 0.99, (2.4e-4, 3e-4)),
        verdict("ChainV", "candidate", false, 0.5, (-1e-5, 1e-5)),
        verdict("GNU_X", "ablation", false, 0.1, (0.0, 0.0)),
    );
    let json = json.as_str();
    let (about, rows) = read_lab(json).unwrap();
    assert_eq!(about, ["data: x"]);
    let html = lab_page("Lab", &about, &rows).unwrap().html();
    assert_offline(&html);
    let svg = figure(&html, "lab-gains");
    assert_eq!(bars(svg), 3);
    assert!(has_text(svg, "PlacementV (fires 99.0 %)"));
    assert!(html.contains("<td>dead weight</td>"));
    assert!(
        !html.contains("in games"),
        "no proof columns without proofs"
    );
    assert!(read_lab("{\"verdicts\": 3}").is_err());
    let newer = json.replacen("\"version\": 1", "\"version\": 2", 1);
    assert!(read_lab(&newer)
        .unwrap_err()
        .to_string()
        .contains("version 2"));
    // `texel lab --prove`: a kept subject that loses its games says so.
    let proven = json.replacen(
        "\"kept\": true,",
        "\"kept\": true, \"proof\": {\"wins\": 180, \"draws\": 300, \"losses\": 240,
         \"elo\": [-29.0, 18.0], \"llr\": -2.95, \"sprt\": \"H0\", \"test\": \"0,5\"},",
        1,
    );
    let (about, rows) = read_lab(&proven).unwrap();
    let html = lab_page("Lab", &about, &rows).unwrap().html();
    assert!(html.contains("<td>+180 =300 −240</td>") && html.contains("<td>loses in games</td>"));
}

#[test]
fn the_k_curve_of_the_start_table_is_lowest_at_the_fitted_k() {
    // Evaluations whose results follow σ(K·eval) with K 1.1: the fit finds about 1.1, and
    // the start curve drawn around it is lowest next to it.
    let k_true = 1.1;
    let samples: Vec<(i32, f64)> = (-400..=400)
        .step_by(4)
        .map(|q| {
            let p = 1.0 / (1.0 + 10f64.powf(-k_true * f64::from(q) / 400.0));
            (q, p)
        })
        .collect();
    let k = texel_solve::error::fit_k(&samples);
    let view = texel_report::tune::StartView::new(&samples, k);
    let lowest = view
        .k_curve
        .iter()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap()
        .0;
    assert!(
        (lowest - k).abs() <= 0.026 * k,
        "lowest at {lowest}, fitted {k}"
    );
}
