//! Per-request time series (the PAQ paper's figure 13): one dot per request against its
//! index, one colour per series, and each series' mean as a horizontal line. The values
//! of the dots are in the CSV beside the figure (fig13-timeseries.csv); the hover text is
//! on the mean lines only.

use super::frame::{value_range, Entry, Frame, Key, Layout, Scale};
use super::lines::{numeric_x_area, numeric_x_desc};
use super::marks::Marker;
use super::svg::{value, Hover};
use super::{color, err, save, Figure, Width};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// One series: a value per request, in request order.
pub struct Series {
    /// Legend name.
    pub name: String,
    /// One value per request.
    pub ys: Vec<f64>,
    /// Drawn as a horizontal line.
    pub mean: f64,
}

/// Writes the series as an SVG file and a PNG beside it, with title `title` and y label
/// `y_label`.
pub fn series(path: &Path, title: &str, y_label: &str, series: &[Series]) -> Result<(), String> {
    save(path, &SeriesFigure::new(title, y_label, series)).map(|_| ())
}

/// The series laid out.
pub(super) struct SeriesFigure<'a> {
    series: &'a [Series],
    frame: Frame,
    y: std::ops::Range<f64>,
}

impl<'a> SeriesFigure<'a> {
    pub fn new(title: &str, y_label: &str, series: &'a [Series]) -> Self {
        let y = value_range(series.iter().flat_map(|s| s.ys.iter().copied()));
        let e = series
            .iter()
            .enumerate()
            .map(|(i, s)| Entry {
                label: format!("{} (line: mean {})", s.name, value(s.mean)),
                key: Key::Line(color(i + 1), Marker::Circle, 5),
            })
            .collect();
        let mut frame = Frame::new(Width::Column, title, y_label, e, y.clone(), Scale::Linear);
        frame.x_area = numeric_x_area();
        SeriesFigure { series, frame, y }
    }
}

impl Figure for SeriesFigure<'_> {
    fn size(&self) -> (u32, u32) {
        self.frame.size()
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        hover: &mut Hover,
    ) -> Result<Layout, String> {
        let n = self
            .series
            .iter()
            .map(|s| s.ys.len())
            .max()
            .unwrap_or(0)
            .max(1) as f64;
        let (mut chart, legend) = self.frame.chart(root, 0.0..n, self.y.clone(), 6)?;
        for (i, s) in self.series.iter().enumerate() {
            let c = color(i + 1).mix(0.5).filled();
            chart
                .draw_series(
                    s.ys.iter()
                        .enumerate()
                        .map(|(x, &y)| Circle::new((x as f64, y), 3, c)),
                )
                .map_err(err)?;
        }
        for (i, s) in self.series.iter().enumerate() {
            let c = color(i + 1);
            chart
                .draw_series(LineSeries::new(
                    [(0.0, s.mean), (n, s.mean)],
                    BLACK.stroke_width(9),
                ))
                .map_err(err)?;
            chart
                .draw_series(LineSeries::new(
                    [(0.0, s.mean), (n, s.mean)],
                    c.stroke_width(5),
                ))
                .map_err(err)?;
            let (a, b) = (
                chart.backend_coord(&(0.0, s.mean)),
                chart.backend_coord(&(n, s.mean)),
            );
            let text = format!(
                "{}: mean {} over {} requests",
                s.name,
                value(s.mean),
                s.ys.len()
            );
            hover.rect((a.0, a.1 - 6), (b.0, b.1 + 6), text);
        }
        let (xr, yr) = chart.plotting_area().get_pixel_range();
        numeric_x_desc(root, "request", &xr, &yr)?;
        Ok(Layout {
            size: self.size(),
            width: self.frame.width,
            plot: ((xr.start, yr.start), (xr.end, yr.end)),
            legend,
            turned: false,
        })
    }
}
