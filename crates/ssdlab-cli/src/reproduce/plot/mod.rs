//! Figures for papers: grouped bars, lines over categories, scatter plots, per-request
//! series and curves over a numeric axis ([`bars`], [`lines`], [`scatter`], [`series`],
//! [`curves`]), each written as an SVG of its printed size and a PNG of 300 px/in beside
//! it (same name, `.png`).
//!
//! A figure is designed for one column of a two-column paper, 3.5 in wide, or for the
//! page's width, 7 in, where its bars do not fit a column ([`Width`]). Text is DejaVu
//! Sans, embedded so that the PNG is the same on every machine, and at least 7 pt
//! at the printed width. The title and the legend sit above the plot area, never over the
//! data; the grid is a light major grid. In the SVG every bar and point carries its value
//! as `<title>` hover text. A value the paper reports is a hollow diamond ([`Mark`],
//! labelled "paper"), and a bar or point that averages several runs has a whisker from
//! the lowest to the highest of them ([`Range`]).
//!
//! ```text
//!  ┌ title (wrapped) ────────────────────┐
//!  │ legend: ■ a  ■ b  ◇ paper  ┬ range  │  Frame: header, then the chart
//!  ├──┬──────────────────────────────────┤
//!  │y │ plot area (Bars, Lines, Scatter) │
//!  │  ├──────────────────────────────────┤
//!  │  │ x labels (wrapped or turned 90°) │
//!  └──┴──────────────────────────────────┘
//! ```

mod bars;
mod curves;
mod frame;
mod lines;
mod marks;
mod raster;
mod series;
mod svg;

pub use bars::{bars, Bars};
pub use curves::{curves, Curve, Curves};
pub use lines::{lines, scatter, Lines, Scatter};
pub use series::{series, Series};

use ab_glyph::{Font, FontRef, ScaleFont};
use frame::Layout;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;
use svg::Hover;

/// Pixels per inch of the canvas: the PNG's resolution; the SVG is scaled to its printed
/// size.
pub(super) const PX_PER_IN: f64 = 300.0;
/// Tick labels and legend.
const TICK_PT: f64 = 7.5;
/// Axis descriptions.
const LABEL_PT: f64 = 8.0;
/// The title.
const TITLE_PT: f64 = 8.5;
/// The font family written in the SVG (DejaVu Sans where a viewer has it).
const FAMILY: &str = "DejaVu Sans, sans-serif";
/// DejaVu Sans 2.37 (assets/DejaVuSans-LICENSE.txt).
static FONT: &[u8] = include_bytes!("../../../assets/DejaVuSans.ttf");

/// Series colours: a neutral grey for the first (usually the baseline), then the
/// Okabe–Ito palette, which stays distinct for colour-blind readers.
pub(super) const COLORS: [RGBColor; 8] = [
    RGBColor(120, 120, 120),
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(160, 140, 20),
];

/// The colour of series `i`.
pub(super) fn color(i: usize) -> RGBColor {
    COLORS[i % COLORS.len()]
}

/// How wide a figure prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// One column of a two-column paper: 3.5 in.
    Column,
    /// The page's width: 7 in.
    Page,
}

impl Width {
    /// Printed width in inches.
    pub fn inches(self) -> f64 {
        match self {
            Width::Column => 3.5,
            Width::Page => 7.0,
        }
    }

    /// Canvas width in pixels.
    pub(super) fn px(self) -> u32 {
        (self.inches() * PX_PER_IN).round() as u32
    }
}

/// A value the paper reports, drawn as a hollow diamond on the same axis as ours:
/// series `series` (its bar or line) at group or x position `at`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mark {
    /// Index of the series the paper's value belongs to.
    pub series: usize,
    /// Index of the group (bars) or x category (lines).
    pub at: usize,
    /// The paper's value, in the figure's unit.
    pub value: f64,
}

/// The lowest and highest of the runs a plotted value averages: a whisker.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Range {
    /// Index of the series.
    pub series: usize,
    /// Index of the group (bars) or x category (lines).
    pub at: usize,
    /// Lowest run.
    pub lo: f64,
    /// Highest run.
    pub hi: f64,
    /// How many runs the value averages.
    pub runs: usize,
}

impl Range {
    /// The range of the defined `values` for series `series` at `at` (None when fewer
    /// than two are defined, nothing is averaged, or all are equal).
    pub fn over(series: usize, at: usize, values: &[Option<f64>]) -> Option<Range> {
        let v: Vec<f64> = values.iter().flatten().copied().collect();
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (v.len() >= 2 && hi > lo).then_some(Range {
            series,
            at,
            lo,
            hi,
            runs: v.len(),
        })
    }
}

/// The embedded font (registered with plotters on first use, for its text layout).
pub(super) fn font() -> FontRef<'static> {
    static REGISTER: std::sync::Once = std::sync::Once::new();
    REGISTER.call_once(|| {
        // The font is a constant: a failure is a broken build, not bad input.
        if plotters::style::register_font(FAMILY, FontStyle::Normal, FONT).is_err() {
            panic!("the embedded font does not parse");
        }
    });
    FontRef::try_from_slice(FONT).expect("the embedded font parses")
}

/// Pixels of `pt` points.
pub(super) fn px(pt: f64) -> f64 {
    pt * PX_PER_IN / 72.0
}

/// The text style of `pt` points (plotters' sizes are 1.24 times the em size it writes).
pub(super) fn text(pt: f64) -> TextStyle<'static> {
    font();
    TextStyle::from((FAMILY, px(pt) * 1.24).into_font()).color(&BLACK)
}

/// The width in pixels of `s` set at `pt` points.
pub(super) fn measure(s: &str, pt: f64) -> f64 {
    let f = font();
    let scale = px(pt) as f32 * f.height_unscaled() / f.units_per_em().unwrap_or(2048.0);
    let scaled = f.as_scaled(scale);
    s.chars()
        .map(|c| f64::from(scaled.h_advance(scaled.glyph_id(c))))
        .sum()
}

/// Words of `s` in lines no wider than `width` pixels at `pt` points (a word wider than
/// that gets a line of its own; a unit such as `%` does not start a line: its number
/// moves down with it).
pub(super) fn wrap(s: &str, pt: f64, width: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in s.split_whitespace() {
        match lines.last_mut() {
            Some(l) if measure(&format!("{l} {word}"), pt) <= width => {
                l.push(' ');
                l.push_str(word);
            }
            Some(l) if word.starts_with('%') && l.contains(' ') => {
                let cut = l.rfind(' ').expect("a space");
                let number = l.split_off(cut);
                lines.push(format!("{} {word}", number.trim_start()));
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// A tick label: integers plainly, otherwise at most three decimals.
pub(super) fn tick(v: f64) -> String {
    if v.abs() >= 100.0 || v == v.trunc() {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Maps a plotters error to text.
pub(super) fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// A figure that draws itself on any plotters backend.
pub(super) trait Figure {
    /// Canvas size in pixels.
    fn size(&self) -> (u32, u32);
    /// Draws on `root`, recording hover text in `hover`.
    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        hover: &mut Hover,
    ) -> Result<Layout, String>;
}

/// Writes `fig` as the SVG `path` and the PNG beside it; returns where it drew what.
pub(super) fn save(path: &Path, fig: &impl Figure) -> Result<Layout, String> {
    let size = fig.size();
    let mut hover = Hover::default();
    let mut text = String::new();
    let layout = {
        let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let layout = fig.draw(&root, &mut hover)?;
        root.present().map_err(err)?;
        layout
    };
    let text = svg::finish(&text, size, &hover);
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut rgb = vec![255u8; size.0 as usize * size.1 as usize * 3];
    {
        let backend = raster::Raster(BitMapBackend::with_buffer(&mut rgb, size));
        let root = backend.into_drawing_area();
        fig.draw(&root, &mut Hover::default())?;
        root.present().map_err(err)?;
    }
    raster::write_png(&path.with_extension("png"), size, &rgb)?;
    Ok(layout)
}

#[cfg(test)]
mod tests;
