//! Grouped bars: one group per category, one bar per series, the paper's values as
//! diamonds on their bars and whiskers on the bars that average several runs.

use super::frame::{decades, value_range, Entry, Frame, Key, Layout, Scale, XLabels};
use super::marks::{draw_paper, draw_range};
use super::svg::{value, Hover};
use super::{color, err, save, Figure, Mark, Range, Width};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// Bars a column holds at most (bar slots, counting one slot of gap per group); more
/// take the page's width.
const COLUMN_SLOTS: usize = 48;

/// Grouped bars: one group per entry of `groups`, one bar per series.
#[derive(Default)]
pub struct Bars<'a> {
    /// Figure title.
    pub title: &'a str,
    /// Y axis label.
    pub y_label: &'a str,
    /// Group names (x axis).
    pub groups: &'a [String],
    /// (series name, one value per group).
    pub series: &'a [(String, Vec<f64>)],
    /// The paper's values: a hollow diamond on the bar of its series and group.
    pub paper: &'a [Mark],
    /// The legend's name for the diamonds (empty: "paper").
    pub paper_label: &'a str,
    /// Lowest and highest of the runs a bar averages: a whisker on it.
    pub ranges: &'a [Range],
    /// A logarithmic y axis (whole decades), for values that span several.
    pub log_y: bool,
}

/// Writes `b` as an SVG file and a PNG beside it.
pub fn bars(path: &Path, b: &Bars) -> Result<(), String> {
    save(path, &BarsFigure::new(b)).map(|_| ())
}

/// `b` laid out.
pub(super) struct BarsFigure<'a> {
    b: &'a Bars<'a>,
    frame: Frame,
    labels: XLabels,
    y: std::ops::Range<f64>,
}

impl<'a> BarsFigure<'a> {
    pub fn new(b: &'a Bars<'a>) -> Self {
        let slots = b.groups.len() * (b.series.len() + 1);
        let width = if slots <= COLUMN_SLOTS {
            Width::Column
        } else {
            Width::Page
        };
        let values = b
            .series
            .iter()
            .flat_map(|(_, v)| v.iter().copied())
            .chain(b.paper.iter().map(|m| m.value))
            .chain(b.ranges.iter().flat_map(|r| [r.lo, r.hi]));
        let y = if b.log_y {
            decades(values)
        } else {
            value_range(values)
        };
        let mut entries: Vec<Entry> = b
            .series
            .iter()
            .enumerate()
            .map(|(s, (name, _))| Entry {
                label: name.clone(),
                key: Key::Bar(color(s)),
            })
            .collect();
        if !b.paper.is_empty() {
            entries.push(Entry {
                label: if b.paper_label.is_empty() {
                    "paper".into()
                } else {
                    b.paper_label.to_string()
                },
                key: Key::Paper,
            });
        }
        if !b.ranges.is_empty() {
            entries.push(Entry {
                label: "min–max of the runs".into(),
                key: Key::Range,
            });
        }
        let scale = if b.log_y { Scale::Log10 } else { Scale::Linear };
        let mut frame = Frame::new(width, b.title, b.y_label, entries, y.clone(), scale);
        let slot = frame.plot_w() / b.groups.len().max(1) as f64;
        let labels = XLabels::new(b.groups, slot);
        frame.x_area = labels.area(None);
        BarsFigure {
            b,
            frame,
            labels,
            y,
        }
    }

    /// Bar slots per group: one per series and one of gap.
    fn per_group(&self) -> f64 {
        (self.b.series.len() + 1) as f64
    }

    /// Where value `v` sits on the y axis (its log10 on a log axis; the bottom for a
    /// value a log axis cannot show).
    fn y_of(&self, v: f64) -> f64 {
        if !self.b.log_y {
            v
        } else if v > 0.0 {
            v.log10()
        } else {
            self.y.start
        }
    }

    /// The x extent of series `s`'s bar in group `g`.
    fn bar_x(&self, g: usize, s: usize) -> (f64, f64) {
        let x = g as f64 * self.per_group() + 0.5 + s as f64;
        (x, x + 1.0)
    }
}

impl Figure for BarsFigure<'_> {
    fn size(&self) -> (u32, u32) {
        self.frame.size()
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        hover: &mut Hover,
    ) -> Result<Layout, String> {
        let b = self.b;
        let x_max = b.groups.len() as f64 * self.per_group();
        let (chart, legend) = self.frame.chart(root, 0.0..x_max, self.y.clone(), 0)?;
        let at = |x: f64, y: f64| chart.backend_coord(&(x, self.y_of(y)));
        for (s, (name, values)) in b.series.iter().enumerate() {
            for (g, &v) in values.iter().enumerate().take(b.groups.len()) {
                let (x0, x1) = self.bar_x(g, s);
                let base = if b.log_y { self.y.start } else { 0.0 };
                let (p0, p1) = (chart.backend_coord(&(x0, base)), at(x1, v));
                root.draw(&Rectangle::new([p0, p1], color(s).filled()))
                    .map_err(err)?;
                hover.rect(p0, p1, format!("{name}, {}: {}", b.groups[g], value(v)));
            }
        }
        for r in b.ranges {
            let (x0, x1) = self.bar_x(r.at, r.series);
            let (lo, hi) = (at((x0 + x1) / 2.0, r.lo), at((x0 + x1) / 2.0, r.hi));
            draw_range(root, lo.0, lo.1, hi.1)?;
            let text = format!(
                "{}, {}: min {} … max {} of {} runs",
                b.series[r.series].0,
                b.groups[r.at],
                value(r.lo),
                value(r.hi),
                r.runs
            );
            hover.rect((lo.0 - 6, lo.1), (hi.0 + 6, hi.1), text);
        }
        for m in b.paper {
            let (x0, x1) = self.bar_x(m.at, m.series);
            let p = at((x0 + x1) / 2.0, m.value);
            draw_paper(root, p)?;
            let text = format!(
                "paper, {}, {}: {}",
                b.series[m.series].0,
                b.groups[m.at],
                value(m.value)
            );
            hover.circle(p, 16, text);
        }
        let (xr, yr) = chart.plotting_area().get_pixel_range();
        let centers: Vec<i32> = (0..b.groups.len())
            .map(|g| at((g as f64 + 0.5) * self.per_group(), 0.0).0)
            .collect();
        self.labels.draw(root, &centers, yr.end, None)?;
        Ok(Layout {
            size: self.size(),
            width: self.frame.width,
            plot: ((xr.start, yr.start), (xr.end, yr.end)),
            legend,
            turned: self.labels.turned,
        })
    }
}
