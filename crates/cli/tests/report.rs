//! `texel report` and `texel tune --report` through the real binary: every plot of each page,
//! the points and bars the run's data gives, and nothing fetched from the network.

mod common;

use common::{fails, sample, stdout_of, texel};
use std::path::Path;

/// The SVG of figure `id` in `html`.
fn figure<'h>(html: &'h str, id: &str) -> &'h str {
    let open = format!("<figure id=\"{id}\">");
    let start = html.find(&open).unwrap_or_else(|| panic!("no figure {id}"));
    let end = start + html[start..].find("</figure>").unwrap();
    &html[start..end]
}

fn dots(svg: &str) -> usize {
    svg.matches("<circle").count()
}

/// Data bars: opaque coloured rectangles (not the background, not a legend box).
fn bars(svg: &str) -> usize {
    svg.lines()
        .filter(|l| l.starts_with("<rect") && l.contains("opacity=\"1\""))
        .filter(|l| !l.contains("fill=\"#FFFFFF\""))
        .count()
}

fn offline(html: &str) -> bool {
    let urls = html.matches("http").count();
    urls == html.matches("xmlns=\"http://www.w3.org/2000/svg\"").count()
        && !["<script", "<link", "<img", "src=", "href=", "url("]
            .iter()
            .any(|bad| html.contains(bad))
}

const TUNE_PLOTS: [&str; 5] = [
    "error-per-pass",
    "error-vs-k",
    "calibration",
    "largest-changes",
    "group-gains",
];

/// Checks a finished tune page against the run's printout and log.
fn check_tune_page(html: &str, printed: &str, passes: usize) {
    assert!(offline(html));
    for id in TUNE_PLOTS {
        figure(html, id);
    }
    let newton = printed
        .lines()
        .filter(|l| l.starts_with("pass ") && l.contains("Newton iteration"))
        .count();
    assert_eq!(
        dots(figure(html, "error-per-pass")),
        2 * passes + newton,
        "training and validation, and the real values of Newton's iterations"
    );
    let changed: usize = printed
        .lines()
        .find_map(|l| {
            l.strip_suffix(" values changed; the largest (support: positions it counts in):")
        })
        .expect("the count of changes")
        .parse()
        .unwrap();
    assert_eq!(bars(figure(html, "largest-changes")), changed.min(30));
    let calib = dots(figure(html, "calibration"));
    assert!(calib > 10 && calib <= 80, "{calib} calibration buckets");
    assert!(bars(figure(html, "group-gains")) >= 1);
}

/// The run's page says what was held out, the pull chosen and the pass written, as the
/// run `printed` them, and its plots mark the two choices.
fn check_choices(html: &str, printed: &str) {
    let written = printed
        .lines()
        .find(|l| l.starts_with("the values written are ") || l.starts_with("no pass beat"))
        .unwrap_or_else(|| panic!("the pass written is said: {printed}"));
    let chose = printed
        .lines()
        .find(|l| l.starts_with("--l2 auto chose pull "))
        .unwrap_or_else(|| panic!("{printed}"));
    assert!(html.contains(chose), "the page says the pull chosen");
    assert!(
        html.contains("held out by "),
        "the page says what was held out"
    );
    assert!(html.contains("values written: "), "{written}");
    let pull = chose.split(' ').nth(4).unwrap();
    let path = figure(html, "path-of-pulls");
    assert!(path.contains(&format!("chosen: pull {pull}")), "{chose}");
    let pass_written = match written.strip_prefix("the values written are pass ") {
        Some(rest) => format!("values written: pass {}", rest.split('\'').next().unwrap()),
        None => "values written: where the passes began".to_string(),
    };
    assert!(
        figure(html, "error-per-pass").contains(&pass_written),
        "{written}"
    );
}

#[test]
fn tune_writes_its_page_and_report_rebuilds_it_from_the_log() {
    let tmp = tempfile::tempdir().unwrap();
    let epd = sample(tmp.path(), "s.epd", 3000);
    let (log, tuned, page) = (
        tmp.path().join("log.jsonl"),
        tmp.path().join("t.json"),
        tmp.path().join("run.html"),
    );
    let printed = stdout_of(
        texel()
            .args(["tune", "--validate", "10", "--passes", "2", "--epd"])
            .arg(&epd)
            .arg("--log")
            .arg(&log)
            .arg("--out")
            .arg(&tuned)
            .arg("--report")
            .arg(&page),
    );
    let logged = std::fs::read_to_string(&log).unwrap();
    let passes = logged.lines().filter(|l| l.contains("\"pass\":")).count();
    assert!(passes >= 1, "{printed}");
    let pulls = printed
        .lines()
        .filter(|l| l.starts_with("--l2 auto: pull "))
        .count();
    assert!(pulls >= 2, "a path of pulls walked: {printed}");
    assert_eq!(
        logged.matches("\"pull\":").count(),
        pulls,
        "the log keeps the path"
    );
    let html = std::fs::read_to_string(&page).unwrap();
    check_tune_page(&html, &printed, passes);
    check_choices(&html, &printed);
    // The page again from the log, on the data (validation split) given.
    let report = |validate: &str, page: &Path| {
        let mut c = texel();
        c.args(["report", "--validate", validate, "--epd"])
            .arg(&epd)
            .arg("--tune-log")
            .arg(&log)
            .arg("--tuned")
            .arg(&tuned)
            .arg("--out")
            .arg(page);
        c
    };
    let again = tmp.path().join("again.html");
    stdout_of(&mut report("10", &again));
    let again_html = std::fs::read_to_string(&again).unwrap();
    check_tune_page(&again_html, &printed, passes);
    let first_html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(
        figure(&again_html, "path-of-pulls"),
        figure(&first_html, "path-of-pulls"),
        "the path drawn from the log as the run drew it"
    );
    assert_eq!(
        figure(&again_html, "error-per-pass"),
        figure(&first_html, "error-per-pass"),
        "the pass written marked from the log as the run marked it"
    );
    // The log of a run on other data (here: another validation split) draws no page.
    let other = tmp.path().join("other.html");
    let err = fails(&mut report("20", &other));
    assert!(
        err.contains("other data") && err.contains("--validate"),
        "{err}"
    );
    assert!(!other.exists());
}

#[test]
fn the_lab_page_has_a_bar_per_verdict() {
    let tmp = tempfile::tempdir().unwrap();
    let lab = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../reports/lab");
    let page = tmp.path().join("lab.html");
    stdout_of(
        texel()
            .arg("report")
            .arg("--lab")
            .arg(&lab)
            .arg("--out")
            .arg(&page),
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(lab.join("lab.json")).unwrap()).unwrap();
    let verdicts = json["verdicts"].as_array().unwrap().len();
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(offline(&html));
    assert_eq!(bars(figure(&html, "lab-gains")), verdicts);
    let not_lab = tmp.path().join("x.json");
    std::fs::write(&not_lab, "{}").unwrap();
    let err = fails(
        texel()
            .arg("report")
            .arg("--lab")
            .arg(&not_lab)
            .arg("--out")
            .arg(&page),
    );
    assert!(err.contains("not a term lab report"), "{err}");
}

#[test]
fn the_match_page_counts_the_games_of_a_real_match() {
    let tmp = tempfile::tempdir().unwrap();
    let pgn = tmp.path().join("m.pgn");
    stdout_of(
        texel()
            .args([
                "match",
                "--engine",
                "name=a",
                "--engine",
                "name=b,params=preset:material",
            ])
            .args([
                "--each",
                "nodes=300",
                "--games",
                "6",
                "--concurrency",
                "2",
                "--pgn",
            ])
            .arg(&pgn),
    );
    let page = tmp.path().join("m.html");
    stdout_of(
        texel()
            .args(["report", "--sprt", "0,10", "--match"])
            .arg(&pgn)
            .arg("--out")
            .arg(&page),
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(offline(&html));
    assert_eq!(dots(figure(&html, "match-elo")), 1, "one pairing");
    assert!(figure(&html, "match-llr").contains("\na vs b\n</text>"));
    assert!(
        html.contains("<td>a vs b</td><td>6</td>"),
        "six games counted"
    );
    let err = fails(texel().args(["report", "--out"]).arg(&page));
    assert!(
        err.contains("--tune-log") || err.contains("required"),
        "{err}"
    );
}
