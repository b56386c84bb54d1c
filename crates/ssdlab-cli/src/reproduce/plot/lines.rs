//! Lines over categorical x values (one line per series, a marker on every point) and
//! scatter plots of points in the plane.

use super::frame::{line, Entry, Frame, Key, Layout, Scale, XLabels};
use super::marks::{draw_marker, draw_paper, draw_range, marker, Marker};
use super::svg::{value, Hover};
use super::{color, err, save, Figure, Mark, Range, Width, LABEL_PT, TICK_PT};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// The series drawn thick and black.
const AVERAGE: &str = "average";

/// Lines over categorical x values: one line per series.
#[derive(Default)]
pub struct Lines<'a> {
    /// Figure title.
    pub title: &'a str,
    /// X axis label.
    pub x_label: &'a str,
    /// Y axis label.
    pub y_label: &'a str,
    /// X categories, in order.
    pub xs: &'a [String],
    /// (series name, one value per category).
    pub series: &'a [(String, Vec<f64>)],
    /// The paper's values: a hollow diamond at its series and category.
    pub paper: &'a [Mark],
    /// Lowest and highest of the runs a point averages: a whisker on it.
    pub ranges: &'a [Range],
}

/// Writes `l` as an SVG file and a PNG beside it.
pub fn lines(path: &Path, l: &Lines) -> Result<(), String> {
    save(path, &LinesFigure::new(l)).map(|_| ())
}

/// `values` spanned with some room on both sides (not below 0 when none is negative).
pub(super) fn span(values: impl Iterator<Item = f64>) -> std::ops::Range<f64> {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    if lo > hi {
        return 0.0..1.0;
    }
    if hi - lo <= hi.abs() * 1e-12 {
        // One value everywhere: a band around it (0 to 1 for zeros), so that the ticks
        // read as distinct numbers.
        let pad = if hi == 0.0 { 1.0 } else { hi.abs() * 0.1 };
        return if lo >= 0.0 {
            (lo - pad).max(0.0)..hi + pad
        } else {
            lo - pad..hi + pad
        };
    }
    let pad = ((hi - lo) * 0.08).max(hi.abs() * 0.02).max(1e-9);
    let bottom = if lo >= 0.0 {
        (lo - pad).max(0.0)
    } else {
        lo - pad
    };
    bottom..hi + pad
}

/// The style of series `s` called `name`: colour, marker, line width.
fn style(s: usize, name: &str) -> (RGBColor, Marker, u32) {
    if name == AVERAGE {
        (BLACK, Marker::Circle, 7)
    } else {
        (color(s), marker(s), 4)
    }
}

/// Legend entries of `series`, with the paper's and the whiskers' keys when present.
fn entries(series: &[(String, Vec<f64>)], paper: bool, ranges: bool) -> Vec<Entry> {
    let mut e: Vec<Entry> = series
        .iter()
        .enumerate()
        .map(|(s, (name, _))| {
            let (c, m, w) = style(s, name);
            Entry {
                label: name.clone(),
                key: Key::Line(c, m, w),
            }
        })
        .collect();
    if paper {
        e.push(Entry {
            label: "paper".into(),
            key: Key::Paper,
        });
    }
    if ranges {
        e.push(Entry {
            label: "min–max of the runs".into(),
            key: Key::Range,
        });
    }
    e
}

/// `l` laid out.
pub(super) struct LinesFigure<'a> {
    l: &'a Lines<'a>,
    frame: Frame,
    labels: XLabels,
    y: std::ops::Range<f64>,
}

impl<'a> LinesFigure<'a> {
    pub fn new(l: &'a Lines<'a>) -> Self {
        let y = span(
            l.series
                .iter()
                .flat_map(|(_, v)| v.iter().copied())
                .chain(l.paper.iter().map(|m| m.value))
                .chain(l.ranges.iter().flat_map(|r| [r.lo, r.hi])),
        );
        let e = entries(l.series, !l.paper.is_empty(), !l.ranges.is_empty());
        let mut frame = Frame::new(
            Width::Column,
            l.title,
            l.y_label,
            e,
            y.clone(),
            Scale::Linear,
        );
        let labels = XLabels::new(l.xs, frame.plot_w() / l.xs.len().max(1) as f64);
        frame.x_area = labels.area(Some(l.x_label));
        LinesFigure {
            l,
            frame,
            labels,
            y,
        }
    }
}

impl Figure for LinesFigure<'_> {
    fn size(&self) -> (u32, u32) {
        self.frame.size()
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        hover: &mut Hover,
    ) -> Result<Layout, String> {
        let l = self.l;
        let n = l.xs.len() as f64;
        let (mut chart, legend) = self.frame.chart(root, -0.5..n - 0.5, self.y.clone(), 0)?;
        for (s, (name, values)) in l.series.iter().enumerate() {
            let (c, _, w) = style(s, name);
            let pts = values.iter().enumerate().map(|(i, &v)| (i as f64, v));
            chart
                .draw_series(LineSeries::new(pts, c.stroke_width(w)))
                .map_err(err)?;
        }
        let at = |x: usize, y: f64| chart.backend_coord(&(x as f64, y));
        for r in l.ranges {
            let (lo, hi) = (at(r.at, r.lo), at(r.at, r.hi));
            draw_range(root, lo.0, lo.1, hi.1)?;
            let text = format!(
                "{}, {}: min {} … max {} of {} runs",
                l.series[r.series].0,
                l.xs[r.at],
                value(r.lo),
                value(r.hi),
                r.runs
            );
            hover.rect((lo.0 - 6, lo.1), (hi.0 + 6, hi.1), text);
        }
        for (s, (name, values)) in l.series.iter().enumerate() {
            let (c, m, _) = style(s, name);
            for (i, &v) in values.iter().enumerate().take(l.xs.len()) {
                let p = at(i, v);
                draw_marker(root, m, c, p)?;
                hover.circle(p, 12, format!("{name}, {}: {}", l.xs[i], value(v)));
            }
        }
        for m in l.paper {
            let p = at(m.at, m.value);
            draw_paper(root, p)?;
            let text = format!(
                "paper, {}, {}: {}",
                l.series[m.series].0,
                l.xs[m.at],
                value(m.value)
            );
            hover.circle(p, 16, text);
        }
        let (xr, yr) = chart.plotting_area().get_pixel_range();
        let centers: Vec<i32> = (0..l.xs.len()).map(|i| at(i, 0.0).0).collect();
        let desc = Some((l.x_label, (xr.start + xr.end) / 2));
        self.labels.draw(root, &centers, yr.end, desc)?;
        Ok(Layout {
            size: self.size(),
            width: self.frame.width,
            plot: ((xr.start, yr.start), (xr.end, yr.end)),
            legend,
            turned: self.labels.turned,
        })
    }
}

/// Points in the plane, one colour and marker per series.
pub struct Scatter<'a> {
    /// Figure title.
    pub title: &'a str,
    /// X axis label.
    pub x_label: &'a str,
    /// Y axis label.
    pub y_label: &'a str,
    /// (series name, points (x, y)).
    pub series: &'a [(String, Vec<(f64, f64)>)],
}

/// Writes `s` as an SVG file and a PNG beside it.
pub fn scatter(path: &Path, s: &Scatter) -> Result<(), String> {
    save(path, &ScatterFigure::new(s)).map(|_| ())
}

/// `s` laid out.
pub(super) struct ScatterFigure<'a> {
    s: &'a Scatter<'a>,
    frame: Frame,
    x: std::ops::Range<f64>,
    y: std::ops::Range<f64>,
}

impl<'a> ScatterFigure<'a> {
    pub fn new(s: &'a Scatter<'a>) -> Self {
        let points = || s.series.iter().flat_map(|(_, v)| v.iter().copied());
        let x = span(points().map(|p| p.0));
        let y = span(points().map(|p| p.1));
        let e = s
            .series
            .iter()
            .enumerate()
            .map(|(i, (name, _))| Entry {
                label: name.clone(),
                key: Key::Point(color(i + 1), marker(i)),
            })
            .collect();
        let mut frame = Frame::new(
            Width::Column,
            s.title,
            s.y_label,
            e,
            y.clone(),
            Scale::Linear,
        );
        frame.x_area = numeric_x_area();
        ScatterFigure { s, frame, x, y }
    }
}

/// Height under the plot for numeric x labels and the x description.
pub(super) fn numeric_x_area() -> i32 {
    line(TICK_PT) * 3 / 2 + line(LABEL_PT)
}

/// Draws the x description `desc` under numeric x labels of the plot area `xr` × `yr`.
pub(super) fn numeric_x_desc<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    desc: &str,
    xr: &std::ops::Range<i32>,
    yr: &std::ops::Range<i32>,
) -> Result<(), String> {
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    let style = super::text(LABEL_PT).pos(Pos::new(HPos::Center, VPos::Top));
    let at = ((xr.start + xr.end) / 2, yr.end + line(TICK_PT) * 3 / 2);
    root.draw_text(desc, &style, at).map_err(err)
}

impl Figure for ScatterFigure<'_> {
    fn size(&self) -> (u32, u32) {
        self.frame.size()
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        hover: &mut Hover,
    ) -> Result<Layout, String> {
        let (chart, legend) = self.frame.chart(root, self.x.clone(), self.y.clone(), 6)?;
        for (i, (name, pts)) in self.s.series.iter().enumerate() {
            for &(x, y) in pts {
                let p = chart.backend_coord(&(x, y));
                draw_marker(root, marker(i), color(i + 1), p)?;
                hover.circle(p, 12, format!("{name}: ({}, {})", value(x), value(y)));
            }
        }
        let (xr, yr) = chart.plotting_area().get_pixel_range();
        numeric_x_desc(root, self.s.x_label, &xr, &yr)?;
        Ok(Layout {
            size: self.size(),
            width: self.frame.width,
            plot: ((xr.start, yr.start), (xr.end, yr.end)),
            legend,
            turned: false,
        })
    }
}
