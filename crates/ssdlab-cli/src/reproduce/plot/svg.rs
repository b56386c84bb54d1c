//! What the SVG has beyond plotters' drawing: its printed size in inches, and a layer of
//! invisible shapes over the bars and points whose `<title>` is their value (a viewer
//! shows it on hover).

use super::PX_PER_IN;
use std::fmt::Write as _;

/// An invisible shape with hover text, in canvas pixels.
#[derive(Clone, Debug, PartialEq)]
enum Shape {
    Rect { x0: i32, y0: i32, x1: i32, y1: i32 },
    Circle { x: i32, y: i32, r: i32 },
}

/// The hover texts of a figure.
#[derive(Default, Debug)]
pub(in crate::reproduce) struct Hover {
    items: Vec<(Shape, String)>,
}

impl Hover {
    /// Hover text `text` over the rectangle between corners `a` and `b`.
    pub fn rect(&mut self, a: (i32, i32), b: (i32, i32), text: String) {
        let (x0, x1) = (a.0.min(b.0), a.0.max(b.0));
        let (y0, y1) = (a.1.min(b.1), a.1.max(b.1));
        self.items.push((Shape::Rect { x0, y0, x1, y1 }, text));
    }

    /// Hover text `text` over the disc of radius `r` at `at`.
    pub fn circle(&mut self, at: (i32, i32), r: i32, text: String) {
        self.items.push((
            Shape::Circle {
                x: at.0,
                y: at.1,
                r,
            },
            text,
        ));
    }

    /// How many shapes carry text.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.items.len()
    }
}

/// `s` with `&`, `<`, `>` and `"` escaped for XML.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A value as hover text: four significant digits at most, no exponent.
pub(in crate::reproduce) fn value(v: f64) -> String {
    if v.abs() >= 1000.0 || v == v.trunc() {
        format!("{v:.0}")
    } else {
        let digits = (3 - v.abs().log10().floor() as i32).clamp(0, 6) as usize;
        let s = format!("{v:.digits$}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// The SVG `svg` that plotters wrote for a canvas of `size`, sized in inches and with
/// the hover layer added last (on top, invisible).
pub(super) fn finish(svg: &str, size: (u32, u32), hover: &Hover) -> String {
    let (w, h) = size;
    let plotters_head = format!("<svg width=\"{w}\" height=\"{h}\" ");
    let head = format!(
        "<svg width=\"{}in\" height=\"{}in\" ",
        value(f64::from(w) / PX_PER_IN),
        value(f64::from(h) / PX_PER_IN)
    );
    let mut out = svg.replacen(&plotters_head, &head, 1);
    let end = out.rfind("</svg>").unwrap_or(out.len());
    let mut layer = String::from("<g fill=\"#000000\" fill-opacity=\"0\">\n");
    for (shape, text) in &hover.items {
        let t = escape(text);
        let _ = match *shape {
            Shape::Rect { x0, y0, x1, y1 } => writeln!(
                layer,
                "<rect x=\"{x0}\" y=\"{y0}\" width=\"{}\" height=\"{}\"><title>{t}</title></rect>",
                (x1 - x0).max(1),
                (y1 - y0).max(1)
            ),
            Shape::Circle { x, y, r } => writeln!(
                layer,
                "<circle cx=\"{x}\" cy=\"{y}\" r=\"{r}\"><title>{t}</title></circle>"
            ),
        };
    }
    layer.push_str("</g>\n");
    out.insert_str(end, &layer);
    out
}
