//! The parts every figure shares: the header (wrapped title, legend in rows), the y axis
//! with its description wrapped to the plot's height, categorical x labels (wrapped at a
//! hyphen, turned 90° or thinned when they do not fit their slot) and the light major
//! grid.

use super::marks::{draw_key, Marker};
use super::{err, measure, px, text, tick, wrap, Width, LABEL_PT, PX_PER_IN, TICK_PT, TITLE_PT};
use plotters::coord::ranged1d::{BoldPoints, Ranged};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// A rectangle of the canvas: (left, top), (right, bottom), in pixels.
pub type Rect = ((i32, i32), (i32, i32));

/// A chart over `f64` coordinates.
pub(super) type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Where a figure drew what (read by the tests).
#[derive(Clone, Debug)]
#[cfg_attr(not(test), allow(dead_code))]
pub struct Layout {
    /// Canvas size in pixels.
    pub size: (u32, u32),
    /// The printed width.
    pub width: Width,
    /// The plot area (inside the axes).
    pub plot: Rect,
    /// The legend, if any.
    pub legend: Option<Rect>,
    /// The x labels are turned 90°.
    pub turned: bool,
}

/// Blank space around the figure.
pub(super) const MARGIN: i32 = 18;
/// Major grid lines: light grey.
const GRID: RGBColor = RGBColor(222, 222, 222);
/// Ticks on the y axis, at most.
const Y_TICKS: usize = 6;

/// Line height of text at `pt`.
pub(super) fn line(pt: f64) -> i32 {
    (px(pt) * 1.25).round() as i32
}

/// What a legend entry shows before its label.
#[derive(Clone, Copy, Debug)]
pub(super) enum Key {
    Bar(RGBColor),
    Line(RGBColor, Marker, u32),
    Point(RGBColor, Marker),
    /// A line without markers: colour, width, dashed.
    Curve(RGBColor, u32, bool),
    Paper,
    Range,
}

/// How the y axis maps values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Scale {
    /// The values themselves.
    Linear,
    /// log10 of the values, ticks at whole decades labelled with the value.
    Log10,
    /// A cumulative share `F` as `-log10(1 - F)`, ticks at whole "nines" labelled in
    /// percent: 0, 90, 99, 99.9, ...
    Nines,
}

impl Scale {
    /// Whether ticks sit at whole units of the axis (decades or nines).
    fn whole(self) -> bool {
        self != Scale::Linear
    }
}

/// A legend entry.
pub(super) struct Entry {
    pub label: String,
    pub key: Key,
}

/// The layout of a figure around its plot area.
pub(super) struct Frame {
    pub width: Width,
    title: Vec<String>,
    entries: Vec<Entry>,
    /// Legend rows: (entry, x offset from the left margin).
    rows: Vec<Vec<(usize, i32)>>,
    y_desc: Vec<String>,
    /// How the y axis maps values.
    y_scale: Scale,
    y_ticks: usize,
    y_area: i32,
    header: i32,
    plot_h: i32,
    /// Height under the plot for the x labels and description.
    pub x_area: i32,
    /// The label of numeric x tick `v` (a log axis names the value its exponent is of).
    pub x_fmt: fn(f64) -> String,
}

pub(super) fn key_w() -> i32 {
    (px(TICK_PT) * 1.8) as i32
}

impl Frame {
    /// A frame of `width` for `title`, the legend `entries`, the y axis `y_label` over the
    /// values `y` (mapped by `y_scale`: whole decades or nines unless linear).
    pub fn new(
        width: Width,
        title: &str,
        y_label: &str,
        entries: Vec<Entry>,
        y: std::ops::Range<f64>,
        y_scale: Scale,
    ) -> Frame {
        let avail = f64::from(width.px()) - 2.0 * f64::from(MARGIN);
        let title = wrap(title, TITLE_PT, avail);
        let em = px(TICK_PT) as i32;
        let mut rows: Vec<Vec<(usize, i32)>> = Vec::new();
        let mut x = 0;
        for (i, e) in entries.iter().enumerate() {
            let w = key_w() + em / 3 + measure(&e.label, TICK_PT).ceil() as i32;
            if rows.is_empty() || x > 0 && f64::from(x + w) > avail {
                rows.push(Vec::new());
                x = 0;
            }
            rows.last_mut().expect("a row").push((i, x));
            x += w + em;
        }
        let header = MARGIN
            + title.len() as i32 * line(TITLE_PT)
            + rows.len() as i32 * (line(TICK_PT) + em / 4)
            + em / 2;
        let plot_h = match width {
            Width::Column => (1.45 * PX_PER_IN) as i32,
            Width::Page => (1.7 * PX_PER_IN) as i32,
        };
        let y_desc = wrap(y_label, LABEL_PT, f64::from(plot_h));
        let y_ticks = if y_scale.whole() {
            Y_TICKS.min((y.end - y.start).round() as usize + 1)
        } else {
            Y_TICKS
        };
        let ticks_w = RangedCoordf64::from(y)
            .key_points(BoldPoints(y_ticks))
            .iter()
            .map(|&v| measure(&y_tick(v, y_scale), TICK_PT).ceil() as i32)
            .max()
            .unwrap_or(0);
        let y_area = y_desc.len() as i32 * line(LABEL_PT) + em / 2 + ticks_w + 2 * tick_len();
        Frame {
            width,
            title,
            entries,
            rows,
            y_desc,
            y_scale,
            y_ticks,
            y_area,
            header,
            plot_h,
            x_area: line(TICK_PT),
            x_fmt: tick,
        }
    }

    /// The plot area's width in pixels.
    pub fn plot_w(&self) -> f64 {
        f64::from(self.width.px() as i32 - self.y_area - 2 * MARGIN)
    }

    /// The canvas size.
    pub fn size(&self) -> (u32, u32) {
        let h = self.header + self.plot_h + self.x_area + MARGIN;
        (self.width.px(), h as u32)
    }

    /// Draws the header and the axes: the chart over `x` × `y` on `root`, its y axis
    /// described, `x_ticks` numeric x labels (0: the caller labels the x axis).
    pub fn chart<'a, DB: DrawingBackend>(
        &self,
        root: &'a DrawingArea<DB, Shift>,
        x: std::ops::Range<f64>,
        y: std::ops::Range<f64>,
        x_ticks: usize,
    ) -> Result<(Chart<'a, DB>, Option<Rect>), String> {
        let legend = self.header(root)?;
        let mut chart = ChartBuilder::on(root)
            .margin_top(self.header)
            .margin_left(MARGIN)
            .margin_right(if x_ticks > 0 {
                MARGIN + line(TICK_PT)
            } else {
                MARGIN
            })
            .margin_bottom(MARGIN)
            .x_label_area_size(self.x_area)
            .y_label_area_size(self.y_area)
            .build_cartesian_2d(x, y)
            .map_err(err)?;
        let y_scale = self.y_scale;
        let y_fmt = move |v: &f64| y_tick(*v, y_scale);
        let x_tick = self.x_fmt;
        let x_fmt = move |v: &f64| x_tick(*v);
        let mut mesh = chart.configure_mesh();
        mesh.disable_x_mesh()
            .max_light_lines(0)
            .bold_line_style(GRID.stroke_width(2))
            .axis_style(BLACK.stroke_width(3))
            .set_all_tick_mark_size(tick_len())
            .y_labels(self.y_ticks)
            .y_label_formatter(&y_fmt)
            .x_labels(x_ticks)
            .x_label_formatter(&x_fmt)
            .label_style(text(TICK_PT));
        mesh.draw().map_err(err)?;
        let (xr, yr) = chart.plotting_area().get_pixel_range();
        for (i, l) in self.y_desc.iter().enumerate() {
            let style = text(super::LABEL_PT)
                .transform(FontTransform::Rotate270)
                .pos(Pos::new(HPos::Center, VPos::Top));
            let at = (MARGIN + i as i32 * line(LABEL_PT), (yr.start + yr.end) / 2);
            root.draw_text(l, &style, at).map_err(err)?;
        }
        let _ = xr;
        Ok((chart, legend))
    }

    /// Draws the title and the legend; returns the legend's rectangle.
    fn header<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<Option<Rect>, String> {
        let mut y = MARGIN;
        let w = self.width.px() as i32;
        for l in &self.title {
            let style = text(TITLE_PT).pos(Pos::new(HPos::Center, VPos::Top));
            root.draw_text(l, &style, (w / 2, y)).map_err(err)?;
            y += line(TITLE_PT);
        }
        if self.rows.is_empty() {
            return Ok(None);
        }
        let em = px(TICK_PT) as i32;
        let top = y + em / 4;
        let mut right = 0;
        for row in &self.rows {
            let cy = y + em / 4 + line(TICK_PT) / 2;
            for &(i, dx) in row {
                let x = MARGIN + dx;
                let e = &self.entries[i];
                draw_key(root, e.key, (x, cy))?;
                let style = text(TICK_PT).pos(Pos::new(HPos::Left, VPos::Center));
                let tx = x + key_w() + em / 3;
                root.draw_text(&e.label, &style, (tx, cy)).map_err(err)?;
                right = right.max(tx + measure(&e.label, TICK_PT).ceil() as i32);
            }
            y += line(TICK_PT) + em / 4;
        }
        Ok(Some(((MARGIN, top), (right, y))))
    }
}

/// Length of the tick marks.
fn tick_len() -> i32 {
    (px(TICK_PT) * 0.3) as i32
}

/// The label of y tick `v`: on a log axis, the power of ten `v` is the exponent of; on
/// a nines axis, the percentage `100 (1 - 10^-v)`.
fn y_tick(v: f64, scale: Scale) -> String {
    if scale == Scale::Linear {
        tick(v)
    } else if (v - v.round()).abs() > 1e-9 {
        String::new()
    } else if scale == Scale::Nines {
        nines(v.round() as i32)
    } else {
        log_tick(v)
    }
}

/// The label of tick `v` of a log10 axis: the power of ten it is the exponent of, none
/// between whole decades.
pub(super) fn log_tick(v: f64) -> String {
    if (v - v.round()).abs() > 1e-9 {
        String::new()
    } else if (-3.0..=6.0).contains(&v) {
        tick(10f64.powi(v.round() as i32))
    } else {
        format!("1e{}", v.round())
    }
}

/// `n` nines as a percentage: 0, 90, 99, 99.9, ...
fn nines(n: i32) -> String {
    match n {
        i32::MIN..=0 => "0".into(),
        1 => "90".into(),
        _ => format!("99.{}", "9".repeat(n as usize - 2))
            .trim_end_matches('.')
            .to_string(),
    }
}

/// The whole decades that hold the positive `values`, as log10.
pub(super) fn decades(values: impl Iterator<Item = f64>) -> std::ops::Range<f64> {
    let (lo, hi) = values
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    if lo > hi {
        return 0.0..1.0;
    }
    let (lo, hi) = (lo.log10().floor(), hi.log10().ceil());
    lo..hi.max(lo + 1.0)
}

/// `lo..hi` grown to hold every value of `values`, from 0 when none is negative, with
/// headroom above.
pub(super) fn value_range(values: impl Iterator<Item = f64>) -> std::ops::Range<f64> {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((0.0f64, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    let hi = if hi <= lo { lo + 1.0 } else { hi };
    lo..hi + (hi - lo) * 0.06
}

/// Categorical x labels: each on one or two lines, or all turned 90°; when even turned
/// labels would overlap, only every `step`-th category is labelled.
pub(super) struct XLabels {
    lines: Vec<Vec<String>>,
    pub turned: bool,
    step: usize,
    height: i32,
}

/// Label steps tried, in order.
const STEPS: [usize; 12] = [1, 2, 4, 5, 8, 10, 16, 20, 25, 32, 50, 100];

/// `label` in at most two lines no wider than `w` (split after a hyphen or underscore,
/// or at a space), if it can be.
fn fit(label: &str, w: f64) -> Option<Vec<String>> {
    if measure(label, TICK_PT) <= w {
        return Some(vec![label.to_string()]);
    }
    label
        .char_indices()
        .filter(|(_, c)| matches!(c, '-' | '_' | ' '))
        .map(|(i, c)| {
            let (a, b) = if c == ' ' {
                (&label[..i], &label[i + 1..])
            } else {
                (&label[..=i], &label[i + 1..])
            };
            vec![a.to_string(), b.to_string()]
        })
        .filter(|l| l.iter().all(|s| measure(s, TICK_PT) <= w))
        .min_by(|a, b| {
            let m = |l: &Vec<String>| measure(&l[0], TICK_PT).max(measure(&l[1], TICK_PT));
            m(a).total_cmp(&m(b))
        })
}

impl XLabels {
    /// Labels for categories `slot` pixels apart.
    pub fn new(labels: &[String], slot: f64) -> XLabels {
        let gap = 2 * tick_len();
        let shown = |step: usize| labels.iter().step_by(step);
        for step in STEPS {
            let w = slot * step as f64 * 0.94;
            let fitted: Option<Vec<Vec<String>>> = shown(step).map(|l| fit(l, w)).collect();
            if let Some(lines) = fitted {
                let n = lines.iter().map(Vec::len).max().unwrap_or(1) as i32;
                return XLabels {
                    lines,
                    turned: false,
                    step,
                    height: gap + n * line(TICK_PT),
                };
            }
            if slot * step as f64 >= f64::from(line(TICK_PT)) {
                let widest = shown(step)
                    .map(|l| measure(l, TICK_PT).ceil() as i32)
                    .max()
                    .unwrap_or(0);
                return XLabels {
                    lines: shown(step).map(|l| vec![l.clone()]).collect(),
                    turned: true,
                    step,
                    height: gap + widest + tick_len(),
                };
            }
        }
        XLabels {
            lines: Vec::new(),
            turned: false,
            step: labels.len().max(1),
            height: gap,
        }
    }

    /// Height of the x area with these labels and description `desc`.
    pub fn area(&self, desc: Option<&str>) -> i32 {
        self.height + desc.map_or(0, |_| line(LABEL_PT))
    }

    /// Draws the labels of categories centred at `centers` under the plot area that ends
    /// at `bottom`, and the description `desc` centred at its x.
    pub fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        centers: &[i32],
        bottom: i32,
        desc: Option<(&str, i32)>,
    ) -> Result<(), String> {
        let y = bottom + 2 * tick_len();
        for (lines, &x) in self.lines.iter().zip(centers.iter().step_by(self.step)) {
            root.draw(&PathElement::new(
                vec![(x, bottom), (x, bottom + tick_len())],
                BLACK.stroke_width(3),
            ))
            .map_err(err)?;
            for (j, l) in lines.iter().enumerate() {
                let style = if self.turned {
                    text(TICK_PT)
                        .transform(FontTransform::Rotate270)
                        .pos(Pos::new(HPos::Right, VPos::Center))
                } else {
                    text(TICK_PT).pos(Pos::new(HPos::Center, VPos::Top))
                };
                let at = (x, y + j as i32 * line(TICK_PT));
                root.draw_text(l, &style, at).map_err(err)?;
            }
        }
        if let Some((d, cx)) = desc {
            let style = text(LABEL_PT).pos(Pos::new(HPos::Center, VPos::Top));
            root.draw_text(d, &style, (cx, bottom + self.height))
                .map_err(err)?;
        }
        Ok(())
    }
}
