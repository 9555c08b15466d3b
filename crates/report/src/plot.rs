//! The one place that draws. Every report's plots are [`LinePlot`]s (lines, points, error
//! bars) or [`BarPlot`]s (labelled horizontal bars), drawn by plotters into SVG with the same
//! size, fonts, palette and legend, a title and labelled axes.

use plotters::coord::Shift;
use plotters::prelude::*;
use std::ops::Range;

/// Colours of series and bar categories, in order (Okabe–Ito, readable by the colour-blind).
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(120, 120, 120),
    RGBColor(0, 0, 0),
];

const WIDTH: u32 = 760;
const FONT: &str = "sans-serif";
/// Tick labels and legend entries.
const LABEL_SIZE: u32 = 15;
/// Axis descriptions.
const AXIS_SIZE: u32 = 17;

/// How a series is drawn.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mark {
    /// A line through the points.
    Line,
    /// A thin reference line in the series' colour, lighter (a bound, a fitted value;
    /// grey, colour 6, unless it must be told apart from another).
    Reference,
    /// A dot at each point.
    Points,
    /// A line with a dot at each point.
    LineAndPoints,
}

/// One named series of a [`LinePlot`].
#[derive(Clone, Debug)]
pub struct Series {
    /// The legend entry.
    pub name: String,
    /// The points, in x order for lines.
    pub points: Vec<(f64, f64)>,
    /// How it is drawn.
    pub mark: Mark,
    /// Half-widths of vertical error bars, one per point.
    pub errors: Option<Vec<f64>>,
    /// Index into [`PALETTE`].
    pub colour: usize,
}

impl Series {
    /// Points along the series as drawn: its points, and along a line eight points on
    /// each segment.
    fn traced(&self) -> Vec<(f64, f64)> {
        let mut traced = self.points.clone();
        if self.mark != Mark::Points {
            for pair in self.points.windows(2) {
                let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
                let along = |t: f64| (x0 + t * (x1 - x0), y0 + t * (y1 - y0));
                traced.extend((1..9).map(|i| along(f64::from(i) / 9.0)));
            }
        }
        traced
    }

    /// A series without error bars.
    pub fn new(name: &str, mark: Mark, colour: usize, points: Vec<(f64, f64)>) -> Series {
        Series {
            name: name.to_string(),
            points,
            mark,
            errors: None,
            colour,
        }
    }
}

/// Lines and points over two numeric axes.
#[derive(Clone, Debug)]
pub struct LinePlot {
    /// The title drawn above the plot.
    pub title: String,
    /// The x axis, with its unit.
    pub x_label: String,
    /// The y axis, with its unit.
    pub y_label: String,
    /// What is drawn.
    pub series: Vec<Series>,
}

/// One bar of a [`BarPlot`].
#[derive(Clone, Debug)]
pub struct Bar {
    /// The label beside it.
    pub label: String,
    /// Its length (may be negative).
    pub value: f64,
    /// Index into [`BarPlot::categories`] (and the palette).
    pub category: usize,
}

/// Horizontal bars, top to bottom in the given order, coloured by category.
#[derive(Clone, Debug)]
pub struct BarPlot {
    /// The title drawn above the plot.
    pub title: String,
    /// The value axis, with its unit.
    pub value_label: String,
    /// The bars.
    pub bars: Vec<Bar>,
    /// Legend names of the categories (no legend when there is one or none).
    pub categories: Vec<String>,
}

/// Plotters could not draw.
#[derive(Debug, thiserror::Error)]
#[error("cannot draw {title:?}: {cause}")]
pub struct PlotError {
    title: String,
    cause: String,
}

impl PlotError {
    fn new(title: &str, cause: impl std::fmt::Display) -> PlotError {
        PlotError {
            title: title.to_string(),
            cause: cause.to_string(),
        }
    }
}

/// `lo..hi` widened by 5 % on each side (and to a unit when empty).
fn padded(lo: f64, hi: f64) -> Range<f64> {
    if !(lo.is_finite() && hi.is_finite()) {
        return 0.0..1.0;
    }
    let span = if hi > lo { hi - lo } else { 1.0 };
    lo - 0.05 * span..hi + 0.05 * span
}

/// The extent of a set of numbers.
fn extent(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    })
}

/// The row of a segment value.
fn colour(index: usize) -> RGBColor {
    PALETTE[index % PALETTE.len()]
}

/// The legend glyph: a short thick line in the colour (no dot or box, so that counting
/// circles or rectangles counts data).
fn glyph(c: RGBColor, width: u32) -> impl Fn((i32, i32)) -> PathElement<(i32, i32)> {
    move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(width))
}

impl LinePlot {
    fn ranges(&self) -> (Range<f64>, Range<f64>) {
        let points = || self.series.iter().flat_map(|s| s.points.iter());
        let (x0, x1) = extent(points().map(|p| p.0));
        let spans = self.series.iter().flat_map(|s| {
            let errors = s.errors.clone().unwrap_or_default();
            s.points.iter().enumerate().flat_map(move |(i, p)| {
                let e = errors.get(i).copied().unwrap_or(0.0);
                [p.1 - e, p.1 + e]
            })
        });
        let (y0, y1) = extent(spans);
        (padded(x0, x1), padded(y0, y1))
    }

    /// When every x is a whole number (passes, rounds, pairings): their span, so that the
    /// axis is labelled with whole numbers (at each one up to a span of 20).
    fn whole_x_span(&self) -> Option<usize> {
        let xs = || {
            self.series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.0))
        };
        if !xs().all(|x| x.fract() == 0.0) {
            return None;
        }
        let (lo, hi) = extent(xs());
        (hi >= lo).then_some((hi - lo) as usize)
    }

    /// The plot as an SVG document.
    pub fn svg(&self) -> Result<String, PlotError> {
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (WIDTH, 400)).into_drawing_area();
            self.draw(&root)
                .map_err(|e| PlotError::new(&self.title, e))?;
            root.present().map_err(|e| PlotError::new(&self.title, e))?;
        }
        Ok(out)
    }

    /// The y range drawn and the legend's corner: the corner with the fewest points (a
    /// line counts by points along each of its segments, so a line crossing a corner
    /// between its points counts there), upper right when several tie; where every corner
    /// holds some, the y range grows upward until the upper right holds none.
    fn legend_place(&self) -> (Range<f64>, SeriesLabelPosition) {
        let (xs, ys) = self.ranges();
        let traced: Vec<(f64, f64)> = self.series.iter().flat_map(Series::traced).collect();
        let (wide, tall) = self.legend_share();
        let covered = |ys: &Range<f64>, right: bool, upper: bool| {
            let inside = |&&(x, y): &&(f64, f64)| {
                let fx = (x - xs.start) / (xs.end - xs.start);
                let fy = (y - ys.start) / (ys.end - ys.start);
                (if right { fx > 1.0 - wide } else { fx < wide })
                    && (if upper { fy > 1.0 - tall } else { fy < tall })
            };
            traced.iter().filter(inside).count()
        };
        let corners = [
            (SeriesLabelPosition::UpperRight, true, true),
            (SeriesLabelPosition::UpperLeft, false, true),
            (SeriesLabelPosition::LowerRight, true, false),
            (SeriesLabelPosition::LowerLeft, false, false),
        ];
        let fewest = (corners.into_iter())
            .map(|(corner, right, upper)| (corner, covered(&ys, right, upper)))
            .min_by_key(|c| c.1);
        match fewest {
            Some((corner, 0)) => (ys, corner),
            // Every corner hides data: room above it (the data below the legend's height).
            _ => {
                let top = ys.start + (ys.end - ys.start) / (1.0 - tall).max(0.3);
                (ys.start..top, SeriesLabelPosition::UpperRight)
            }
        }
    }

    /// The shares of the plotting area's width and height the legend box covers: at least
    /// 40 % and 30 %, more for long names (about 7.5 pixels a character of the 15-pixel
    /// font, the glyph and padding besides, of about 660 pixels) and many entries (about
    /// 19 pixels each, of about 300).
    fn legend_share(&self) -> (f64, f64) {
        let named = self.series.iter().filter(|s| !s.points.is_empty());
        let longest = named
            .clone()
            .map(|s| s.name.chars().count())
            .max()
            .unwrap_or(0);
        let wide = (longest as f64 * 7.5 + 50.0) / 660.0;
        let tall = (named.count() as f64 * 19.0 + 12.0) / 300.0;
        (wide.clamp(0.4, 0.9), tall.clamp(0.3, 0.7))
    }

    fn draw(
        &self,
        root: &DrawingArea<SVGBackend, Shift>,
    ) -> Result<(), Box<dyn std::error::Error + '_>> {
        root.fill(&WHITE)?;
        let (xs, _) = self.ranges();
        let (ys, corner) = self.legend_place();
        let whole = self.whole_x_span();
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, (FONT, 20))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(72)
            .build_cartesian_2d(xs, ys)?;
        let mut mesh = chart.configure_mesh();
        if let Some(span) = whole {
            mesh.x_label_formatter(&|x| format!("{x:.0}"));
            if span <= 20 {
                mesh.x_labels(span + 1);
            }
        }
        mesh.x_desc(&self.x_label)
            .y_desc(&self.y_label)
            .label_style((FONT, LABEL_SIZE))
            .axis_desc_style((FONT, AXIS_SIZE))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        for s in &self.series {
            let c = colour(s.colour);
            let line = match s.mark {
                Mark::Reference => Some(c.mix(0.8).stroke_width(1)),
                Mark::Line | Mark::LineAndPoints => Some(c.stroke_width(2)),
                Mark::Points => None,
            };
            let legend_colour = c;
            let drawn = match line {
                Some(style) => chart.draw_series(LineSeries::new(s.points.clone(), style))?,
                None => chart.draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())?,
            };
            // A series without points (no round passed) has nothing to explain.
            if !s.points.is_empty() {
                drawn.label(&s.name).legend(glyph(legend_colour, 3));
            }
            if matches!(s.mark, Mark::Points | Mark::LineAndPoints) {
                chart.draw_series(s.points.iter().map(|&p| Circle::new(p, 3, c.filled())))?;
            }
            if let Some(errors) = &s.errors {
                let bars = s.points.iter().zip(errors).map(|(&(x, y), &e)| {
                    PathElement::new(vec![(x, y - e), (x, y + e)], c.stroke_width(1))
                });
                chart.draw_series(bars)?;
            }
        }
        if self.series.iter().filter(|s| !s.points.is_empty()).count() > 1 {
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK.mix(0.4))
                .label_font((FONT, LABEL_SIZE))
                .position(corner)
                .draw()?;
        }
        Ok(())
    }
}

impl BarPlot {
    /// The plot as an SVG document.
    pub fn svg(&self) -> Result<String, PlotError> {
        let height = 110 + 20 * self.bars.len().max(1) as u32;
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (WIDTH, height)).into_drawing_area();
            self.draw(&root)
                .map_err(|e| PlotError::new(&self.title, e))?;
            root.present().map_err(|e| PlotError::new(&self.title, e))?;
        }
        Ok(out)
    }

    fn draw(
        &self,
        root: &DrawingArea<SVGBackend, Shift>,
    ) -> Result<(), Box<dyn std::error::Error + '_>> {
        root.fill(&WHITE)?;
        let (lo, hi) = extent(self.bars.iter().map(|b| b.value).chain([0.0]));
        let n = self.bars.len().max(1) as i32;
        let longest = self.bars.iter().map(|b| b.label.len()).max().unwrap_or(4);
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, (FONT, 20))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size((longest as u32 * 8 + 16).min(WIDTH / 2))
            .build_cartesian_2d(padded(lo, hi), (0..n - 1).into_segmented())?;
        let label = |v: &SegmentValue<i32>| match v {
            SegmentValue::CenterOf(i) => self
                .bars
                .get((n - 1 - i) as usize)
                .map_or(String::new(), |b| b.label.clone()),
            _ => String::new(),
        };
        chart
            .configure_mesh()
            .x_desc(&self.value_label)
            .y_labels(self.bars.len().max(1))
            .y_label_formatter(&label)
            .label_style((FONT, 13))
            .axis_desc_style((FONT, AXIS_SIZE))
            .disable_y_mesh()
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        // Each bar drawn in order (plotters' Histogram draws them in hash order, so the
        // same page would come out in another byte order each time).
        let rows = (0..n - 1).into_segmented();
        let bars = self.bars.iter().enumerate().filter_map(|(i, b)| {
            let row = (n - 1 - i as i32) as usize;
            let (y, next) = (rows.from_index(row)?, rows.from_index(row + 1)?);
            let style = colour(b.category).filled();
            let mut rect = Rectangle::new([(b.value, y), (0.0, next)], style);
            rect.set_margin(3, 3, 0, 0);
            Some(rect)
        });
        chart.draw_series(bars)?;
        // Only the categories that occur are explained.
        let used: Vec<(usize, &String)> = self
            .categories
            .iter()
            .enumerate()
            .filter(|(i, _)| self.bars.iter().any(|b| b.category == *i))
            .collect();
        if used.len() > 1 {
            for (i, name) in used {
                chart
                    .draw_series(std::iter::empty::<Circle<(f64, SegmentValue<i32>), i32>>())?
                    .label(name)
                    .legend(glyph(colour(i), 8));
            }
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK.mix(0.4))
                .label_font((FONT, LABEL_SIZE))
                .position(SeriesLabelPosition::LowerRight)
                .draw()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plot(points: Vec<(f64, f64)>) -> LinePlot {
        LinePlot {
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            series: vec![
                Series::new("a", Mark::Points, 0, points),
                Series::new("b", Mark::Line, 1, vec![(0.0, 0.0), (10.0, 10.0)]),
            ],
        }
    }

    #[test]
    fn the_legend_goes_to_the_corner_with_the_fewest_points() {
        // A calibration: dots rising from lower left to upper right.
        let rising: Vec<(f64, f64)> = (0..=10).map(|i| (f64::from(i), f64::from(i))).collect();
        let corner = plot(rising).legend_place().1;
        assert!(
            matches!(
                corner,
                SeriesLabelPosition::UpperLeft | SeriesLabelPosition::LowerRight
            ),
            "{corner:?}"
        );
        let upper_right = vec![(9.0, 9.5), (9.5, 9.0), (10.0, 10.0), (0.0, 0.0)];
        assert!(!matches!(
            plot(upper_right).legend_place().1,
            SeriesLabelPosition::UpperRight
        ));
    }

    #[test]
    fn a_line_crossing_a_corner_between_its_points_keeps_the_legend_off_it() {
        // A line from the middle of the left edge to the middle of the top crosses the
        // upper left between its two points; a dot in each other corner. By points alone
        // the upper left would be taken, over the line; every corner holds data, so the
        // range grows upward and the legend goes above it all.
        let crossed = LinePlot {
            series: vec![
                Series::new("line", Mark::Line, 0, vec![(0.0, 5.0), (5.0, 10.0)]),
                Series::new(
                    "dots",
                    Mark::Points,
                    1,
                    vec![(0.0, 0.0), (10.0, 0.0), (10.0, 10.0)],
                ),
            ],
            ..plot(Vec::new())
        };
        let (ys, corner) = crossed.legend_place();
        assert!(matches!(corner, SeriesLabelPosition::UpperRight));
        assert!((10.0 - ys.start) / (ys.end - ys.start) < 0.7, "{ys:?}");
        // Without the upper right dot that corner is free: taken as it is.
        let mut free = crossed.clone();
        free.series[1].points.pop();
        let (same, corner) = free.legend_place();
        assert!(matches!(corner, SeriesLabelPosition::UpperRight));
        assert!((same.end - 10.0) < 1.0, "no room added: {same:?}");
    }

    #[test]
    fn a_long_legend_keeps_off_a_line_a_short_one_would_not_reach() {
        // A line through the lower middle of the plot, short of the right 40 %: a legend
        // of short names takes the lower right; one of long names and five entries would
        // cover the line there, so it finds room elsewhere.
        let line = vec![(0.0, 10.0), (4.5, 2.5), (5.5, 2.0)];
        let short = LinePlot {
            series: vec![
                Series::new("line", Mark::Line, 0, line),
                Series::new("dot", Mark::Points, 1, vec![(0.0, 0.0), (10.0, 10.0)]),
            ],
            ..plot(Vec::new())
        };
        assert!(matches!(
            short.legend_place().1,
            SeriesLabelPosition::LowerRight
        ));
        let mut long = short.clone();
        long.series[1].name = "a name as long as a coarse step's series has".into();
        for name in ["c", "d", "e"] {
            long.series
                .push(Series::new(name, Mark::Points, 2, vec![(10.0, 10.0)]));
        }
        assert!(!matches!(
            long.legend_place(),
            (_, SeriesLabelPosition::LowerRight)
        ));
    }

    #[test]
    fn a_line_legend_names_only_series_with_points() {
        let mut p = plot(vec![(1.0, 1.0)]);
        p.series
            .push(Series::new("passed", Mark::Points, 2, vec![]));
        let svg = p.svg().unwrap();
        let texts: Vec<&str> = svg.lines().map(str::trim).collect();
        assert!(texts.contains(&"a") && texts.contains(&"b"), "{svg}");
        assert!(!texts.contains(&"passed"), "no point is a passed round");
    }

    #[test]
    fn a_bar_legend_names_only_the_categories_that_occur() {
        let bar = |category| Bar {
            label: "x".into(),
            value: 1.0,
            category,
        };
        let bars = BarPlot {
            title: "t".into(),
            value_label: "v".into(),
            bars: vec![bar(0), bar(1)],
            categories: vec!["keep".into(), "reject".into(), "dead weight".into()],
        };
        let svg = bars.svg().unwrap();
        assert!(svg.contains("keep") && svg.contains("reject"));
        assert!(!svg.contains("dead weight"), "no bar is dead weight");
    }
}
