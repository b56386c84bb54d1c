//! Per-request time series (the PAQ paper's figure 13): one dot per request against its
//! index, one colour per series, and each series' mean as a horizontal line. SVG only,
//! as in `plot`.

use super::plot::{finish, COLORS};
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

/// Writes the series as an SVG file with title `title` and y label `y_label`.
pub fn series(path: &Path, title: &str, y_label: &str, series: &[Series]) -> Result<(), String> {
    let n = series.iter().map(|s| s.ys.len()).max().unwrap_or(0).max(1);
    let y_max = series
        .iter()
        .flat_map(|s| s.ys.iter().copied())
        .fold(0.0f64, f64::max)
        .max(1e-9)
        * 1.05;
    let root = SVGBackend::new(path, (900, 440)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d(0..n, 0.0..y_max)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc("request")
        .y_desc(y_label)
        .draw()
        .map_err(|e| e.to_string())?;
    for (i, s) in series.iter().enumerate() {
        let color = COLORS[(i + 1) % COLORS.len()];
        chart
            .draw_series(
                s.ys.iter()
                    .enumerate()
                    .map(|(x, &y)| Circle::new((x, y), 1, color.mix(0.6).filled())),
            )
            .map_err(|e| e.to_string())?
            .label(format!("{} (mean {:.0})", s.name, s.mean))
            .legend(move |(x, y)| Rectangle::new([(x, y - 4), (x + 10, y + 4)], color.filled()));
        chart
            .draw_series(LineSeries::new(
                [(0, s.mean), (n, s.mean)],
                color.stroke_width(2),
            ))
            .map_err(|e| e.to_string())?;
    }
    finish(&mut chart, &root, Some(SeriesLabelPosition::UpperRight))
}
