//! Curves over a numeric x axis: lines without markers, solid or dashed, for values per
//! bin (a throughput curve, linear axes) and for distributions (a CDF: a log x axis and
//! y on a percentile scale, `-log10(1 - F)`, on which p50, p99 and p99.9 are all
//! readable). A curve's points carry hover text, thinned to about [`HOVER_POINTS`] per
//! curve; the values are in the CSV beside the figure.

use super::frame::{decades, log_tick, value_range, Entry, Frame, Key, Layout, Scale};
use super::lines::{numeric_x_area, numeric_x_desc, span};
use super::svg::{value, Hover};
use super::{color, err, save, tick, Figure, Width};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// Hover texts per curve, at most about.
const HOVER_POINTS: usize = 120;
/// Line width in pixels (at 300 px/in).
const LINE_W: u32 = 5;
/// Dash and gap of a dashed curve, pixels.
const DASH: (i32, i32) = (16, 10);

/// One curve.
#[derive(Clone, Debug, Default)]
pub struct Curve {
    /// Legend name.
    pub name: String,
    /// Points in data units, in drawing order. On a log x axis only x > 0 is drawn, on
    /// a percentile y axis only 0 ≤ y < 1.
    pub points: Vec<(f64, f64)>,
    /// Index of its colour (`plot::COLORS`, cycling).
    pub color: usize,
    /// Dashed instead of solid.
    pub dashed: bool,
}

/// Curves over a numeric x axis.
#[derive(Default)]
pub struct Curves<'a> {
    /// Figure title.
    pub title: &'a str,
    /// X axis label.
    pub x_label: &'a str,
    /// Y axis label.
    pub y_label: &'a str,
    /// The curves, drawn in order (later ones on top).
    pub curves: &'a [Curve],
    /// A log10 x axis with ticks at whole decades.
    pub log_x: bool,
    /// The label of an x tick, given its position on the axis (log10 of the value on a
    /// log axis); default: the value.
    pub x_tick: Option<fn(f64) -> String>,
    /// y is a cumulative share F in [0, 1), shown as `-log10(1 - F)`: ticks at 0, 90,
    /// 99, 99.9 % ...
    pub percentile_y: bool,
    /// Printed at the page's width instead of a column's.
    pub wide: bool,
}

/// Writes `c` as an SVG file and a PNG beside it.
pub fn curves(path: &Path, c: &Curves) -> Result<(), String> {
    save(path, &CurvesFigure::new(c)).map(|_| ())
}

/// A point on the axes' scales, and the data point it shows.
type Placed = ((f64, f64), (f64, f64));

/// `c` laid out: its points on the axes' scales.
pub(super) struct CurvesFigure<'a> {
    c: &'a Curves<'a>,
    frame: Frame,
    /// Per curve: (axis point, data point) of every point that can be drawn.
    points: Vec<Vec<Placed>>,
    x: std::ops::Range<f64>,
    y: std::ops::Range<f64>,
}

impl<'a> CurvesFigure<'a> {
    pub fn new(c: &'a Curves<'a>) -> Self {
        let points: Vec<Vec<_>> = c
            .curves
            .iter()
            .map(|k| {
                k.points
                    .iter()
                    .filter_map(|&p| Some((to_axes(c, p)?, p)))
                    .collect()
            })
            .collect();
        let all = || points.iter().flatten().map(|&(a, _)| a);
        let x = if c.log_x {
            decades(all().map(|a| 10f64.powf(a.0)))
        } else {
            // From 0 when the values start near it, with little room past the last.
            let (lo, hi) = all().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
                (a.min(p.0), b.max(p.0))
            });
            let start = if lo >= 0.0 && lo <= 0.1 * hi {
                0.0
            } else {
                span(all().map(|a| a.0)).start
            };
            if hi > start {
                start..hi + (hi - start) * 0.02
            } else {
                span(all().map(|a| a.0))
            }
        };
        let y = if c.percentile_y {
            let top = all().map(|a| a.1).fold(0.0f64, f64::max);
            0.0..(top - 1e-9).ceil().max(1.0)
        } else {
            value_range(all().map(|a| a.1))
        };
        let entries = c
            .curves
            .iter()
            .map(|k| Entry {
                label: k.name.clone(),
                key: Key::Curve(color(k.color), LINE_W, k.dashed),
            })
            .collect();
        let width = if c.wide { Width::Page } else { Width::Column };
        let scale = if c.percentile_y {
            Scale::Nines
        } else {
            Scale::Linear
        };
        let mut frame = Frame::new(width, c.title, c.y_label, entries, y.clone(), scale);
        frame.x_area = numeric_x_area();
        frame.x_fmt = match (c.x_tick, c.log_x) {
            (Some(f), _) => f,
            (None, true) => log_tick,
            (None, false) => tick,
        };
        CurvesFigure {
            c,
            frame,
            points,
            x,
            y,
        }
    }
}

/// Point `p` on the axes of `c`, or None where they cannot show it.
fn to_axes(c: &Curves, (x, y): (f64, f64)) -> Option<(f64, f64)> {
    let x = if c.log_x {
        (x > 0.0).then(|| x.log10())?
    } else {
        x
    };
    let y = if c.percentile_y {
        (0.0..1.0).contains(&y).then(|| -(1.0 - y).log10())?
    } else {
        y
    };
    (x.is_finite() && y.is_finite()).then_some((x, y))
}

impl Figure for CurvesFigure<'_> {
    fn size(&self) -> (u32, u32) {
        self.frame.size()
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        hover: &mut Hover,
    ) -> Result<Layout, String> {
        let x_ticks = if self.c.log_x {
            (self.x.end - self.x.start).round() as usize + 1
        } else {
            6
        };
        let (mut chart, legend) =
            self.frame
                .chart(root, self.x.clone(), self.y.clone(), x_ticks)?;
        for (k, pts) in self.c.curves.iter().zip(&self.points) {
            let style = color(k.color).stroke_width(LINE_W);
            let axes = pts.iter().map(|&(a, _)| a);
            if k.dashed {
                chart
                    .draw_series(DashedLineSeries::new(axes, DASH.0, DASH.1, style))
                    .map_err(err)?;
            } else {
                // Segment by segment: a thick polyline's joins are mitred without a limit
                // in the bitmap backend, and a curve that turns back sharply (a throughput
                // alternating bin by bin) would spike far out of the plot.
                let a: Vec<(f64, f64)> = axes.collect();
                let segments = a
                    .windows(2)
                    .map(|w| PathElement::new(vec![w[0], w[1]], style));
                chart.draw_series(segments).map_err(err)?;
            }
        }
        for (k, pts) in self.c.curves.iter().zip(&self.points) {
            let every = pts.len().div_ceil(HOVER_POINTS).max(1);
            let last = pts.len().saturating_sub(1);
            for (i, &(a, (x, y))) in pts.iter().enumerate() {
                if i % every == 0 || i == last {
                    let p = chart.backend_coord(&a);
                    hover.circle(p, 10, format!("{}: {}, {}", k.name, value(x), value(y)));
                }
            }
        }
        let (xr, yr) = chart.plotting_area().get_pixel_range();
        numeric_x_desc(root, self.c.x_label, &xr, &yr)?;
        Ok(Layout {
            size: self.size(),
            width: self.frame.width,
            plot: ((xr.start, yr.start), (xr.end, yr.end)),
            legend,
            turned: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::plot::COLORS;

    fn dir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("ssdlab-curves-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_percentile_axis_has_a_tick_per_nine_and_a_log_axis_one_per_decade() {
        let pts: Vec<(f64, f64)> = (1..=1000)
            .map(|k| (10.0 * f64::from(k), f64::from(k) / 1000.0))
            .collect();
        let list = [Curve {
            name: "reads".into(),
            points: pts,
            color: 1,
            dashed: false,
        }];
        let c = Curves {
            title: "t",
            x_label: "latency",
            y_label: "reads at or below (%)",
            curves: &list,
            log_x: true,
            percentile_y: true,
            ..Default::default()
        };
        let d = dir("cdf");
        curves(&d.join("c.svg"), &c).unwrap();
        let svg = std::fs::read_to_string(d.join("c.svg")).unwrap();
        for label in ["0", "90", "99", "99.9", "10", "100", "1000", "10000"] {
            assert!(
                svg.contains(&format!(">\n{label}\n</text>")),
                "no tick {label}"
            );
        }
        assert!(
            !svg.contains(">\n99.99\n</text>"),
            "no nine beyond the data"
        );
        // F = 1 cannot show on the axis: its point has no hover text.
        assert!(svg.contains("<title>reads: 9990, 0.999</title>"));
        assert!(!svg.contains("<title>reads: 10000, 1</title>"));
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_curve_that_turns_back_sharply_stays_inside_its_plot_area() {
        let zigzag: Vec<(f64, f64)> = (0..400)
            .map(|i| (f64::from(i), if i % 2 == 0 { 450.0 } else { 2430.0 }))
            .collect();
        let list = [Curve {
            name: "bins".into(),
            points: zigzag,
            color: 1,
            dashed: false,
        }];
        let c = Curves {
            title: "t",
            x_label: "GB",
            y_label: "MB/s",
            curves: &list,
            ..Default::default()
        };
        let fig = CurvesFigure::new(&c);
        let (w, h) = fig.size();
        let mut rgb = vec![255u8; w as usize * h as usize * 3];
        let layout = {
            let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
            let l = fig.draw(&root, &mut Hover::default()).unwrap();
            root.present().unwrap();
            l
        };
        let ((x0, y0), (x1, y1)) = layout.plot;
        let legend = layout.legend.unwrap();
        let blue = COLORS[1];
        let stray = (0..h as i32)
            .flat_map(|y| (0..w as i32).map(move |x| (x, y)))
            .filter(|&(x, y)| {
                let inside = |r: ((i32, i32), (i32, i32))| {
                    x >= r.0 .0 - 4 && x <= r.1 .0 + 4 && y >= r.0 .1 - 4 && y <= r.1 .1 + 4
                };
                let i = (y as usize * w as usize + x as usize) * 3;
                rgb[i..i + 3] == [blue.0, blue.1, blue.2]
                    && !inside(((x0, y0), (x1, y1)))
                    && !inside(legend)
            })
            .count();
        assert_eq!(stray, 0, "curve pixels outside the plot area");
    }
}
