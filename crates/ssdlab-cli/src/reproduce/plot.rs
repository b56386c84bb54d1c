//! SVG figures in the style of the papers' bar and line charts, drawn with `plotters`'
//! SVG backend only: no system fonts, no bitmap codecs (text is written as SVG `<text>`
//! and sized by plotters' built-in estimate).

use plotters::coord::{CoordTranslate, Shift};
use plotters::prelude::*;
use std::path::Path;

pub(super) const COLORS: [RGBColor; 6] = [
    RGBColor(90, 90, 90),
    RGBColor(70, 130, 180),
    RGBColor(205, 92, 60),
    RGBColor(60, 160, 90),
    RGBColor(150, 100, 180),
    RGBColor(200, 160, 40),
];

/// A white SVG canvas of `size` pixels, written to `path`.
fn canvas(path: &Path, size: (u32, u32)) -> Result<DrawingArea<SVGBackend<'_>, Shift>, String> {
    let root = SVGBackend::new(path, size).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    Ok(root)
}

/// A chart on `root` titled `title`, with `x_area` pixels under it for the x labels.
fn builder<'a, 'b>(
    root: &'a DrawingArea<SVGBackend<'b>, Shift>,
    title: &str,
    x_area: u32,
) -> ChartBuilder<'a, 'b, SVGBackend<'b>> {
    let mut c = ChartBuilder::on(root);
    c.caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(x_area)
        .y_label_area_size(60);
    c
}

/// Draws the legend of `chart` (at `position`, else plotters' default place) and writes
/// `root` out.
pub(super) fn finish<'a, 'b: 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, SVGBackend<'b>, CT>,
    root: &DrawingArea<SVGBackend<'b>, Shift>,
    position: Option<SeriesLabelPosition>,
) -> Result<(), String> {
    let mut legend = chart.configure_series_labels();
    if let Some(p) = position {
        legend.position(p);
    }
    legend
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}

/// Grouped bars: one group per entry of `groups`, one bar per series.
pub struct Bars<'a> {
    /// Figure title.
    pub title: &'a str,
    /// Y axis label.
    pub y_label: &'a str,
    /// Group names (x axis).
    pub groups: &'a [String],
    /// (series name, one value per group).
    pub series: &'a [(String, Vec<f64>)],
}

/// Writes `b` as an SVG file.
pub fn bars(path: &Path, b: &Bars) -> Result<(), String> {
    let n = b.groups.len() as i32;
    let k = b.series.len() as i32;
    let slot = 2 * k + 2; // 2 units per bar, one unit of gap on each side
    let y_max = b
        .series
        .iter()
        .flat_map(|(_, v)| v.iter().copied())
        .fold(0.0f64, f64::max)
        .max(1e-9)
        * 1.15;
    let width = (120 + 22 * slot as u32 * n as u32).max(640);
    let root = canvas(path, (width, 420))?;
    let mut chart = builder(&root, b.title, 60)
        .build_cartesian_2d(0..n * slot, 0.0..y_max)
        .map_err(|e| e.to_string())?;
    let groups = b.groups.to_vec();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels((n * slot + 1) as usize)
        .x_label_formatter(&|x| {
            if x % slot == slot / 2 {
                groups[(x / slot) as usize].clone()
            } else {
                String::new()
            }
        })
        .y_desc(b.y_label)
        .draw()
        .map_err(|e| e.to_string())?;
    for (s, (name, values)) in b.series.iter().enumerate() {
        let color = COLORS[s % COLORS.len()];
        let x0 = 1 + 2 * s as i32;
        chart
            .draw_series(values.iter().enumerate().map(|(g, &v)| {
                let x = g as i32 * slot + x0;
                Rectangle::new([(x, 0.0), (x + 2, v)], color.filled())
            }))
            .map_err(|e| e.to_string())?
            .label(name.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
    }
    finish(&mut chart, &root, None)
}

/// Lines over categorical x values: one line per series.
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
}

/// Writes `l` as an SVG file.
pub fn lines(path: &Path, l: &Lines) -> Result<(), String> {
    let n = l.xs.len() as i32;
    let values = l.series.iter().flat_map(|(_, v)| v.iter().copied());
    let (lo, hi) = values.fold((f64::MAX, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    let (lo, hi) = ((lo * 0.9).min(hi), hi * 1.1 + 1e-9);
    let root = canvas(path, (720, 440))?;
    let mut chart = builder(&root, l.title, 50)
        .build_cartesian_2d(0..(n - 1).max(1), lo..hi)
        .map_err(|e| e.to_string())?;
    let xs = l.xs.to_vec();
    chart
        .configure_mesh()
        .x_labels(n as usize)
        .x_label_formatter(&|x| xs.get(*x as usize).cloned().unwrap_or_default())
        .x_desc(l.x_label)
        .y_desc(l.y_label)
        .draw()
        .map_err(|e| e.to_string())?;
    for (s, (name, values)) in l.series.iter().enumerate() {
        let color = COLORS[s % COLORS.len()];
        let width = if name == "average" { 3 } else { 1 };
        chart
            .draw_series(LineSeries::new(
                values.iter().enumerate().map(|(i, &v)| (i as i32, v)),
                color.stroke_width(width),
            ))
            .map_err(|e| e.to_string())?
            .label(name.as_str())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 14, y)], color.stroke_width(2)));
    }
    finish(&mut chart, &root, Some(SeriesLabelPosition::UpperRight))
}

/// Points in the plane, one colour per series.
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

/// Writes `s` as an SVG file.
pub fn scatter(path: &Path, s: &Scatter) -> Result<(), String> {
    let points = || s.series.iter().flat_map(|(_, v)| v.iter().copied());
    let (mut x0, mut x1, mut y0, mut y1) = (0.0f64, 1e-9f64, 0.0f64, 1e-9f64);
    for (x, y) in points() {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    let pad = |a: f64, b: f64| 0.05 * (b - a).max(1e-9);
    let (px, py) = (pad(x0, x1), pad(y0, y1));
    let root = canvas(path, (720, 480))?;
    let mut chart = builder(&root, s.title, 50)
        .build_cartesian_2d((x0 - px)..(x1 + px), (y0 - py)..(y1 + py))
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc(s.x_label)
        .y_desc(s.y_label)
        .draw()
        .map_err(|e| e.to_string())?;
    for (i, (name, pts)) in s.series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        chart
            .draw_series(pts.iter().map(|&p| Circle::new(p, 4, color.filled())))
            .map_err(|e| e.to_string())?
            .label(name.as_str())
            .legend(move |(x, y)| Circle::new((x + 6, y), 4, color.filled()));
    }
    finish(&mut chart, &root, None)
}
