//! The marks drawn on the data and in the legend: point markers, the paper's hollow
//! diamond and whiskers.

use super::frame::{key_w, Key};
use super::{err, px, TICK_PT};
use plotters::coord::Shift;
use plotters::prelude::*;

/// A point marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Marker {
    Circle,
    Square,
    Triangle,
    Cross,
}

/// The marker of series `i`.
pub(super) fn marker(i: usize) -> Marker {
    [
        Marker::Circle,
        Marker::Square,
        Marker::Triangle,
        Marker::Cross,
    ][i % 4]
}

/// Radius of markers and of the paper's diamond.
pub(super) fn marker_r() -> i32 {
    (px(TICK_PT) * 0.28) as i32
}

/// Draws marker `m` of `color` at pixel `at`.
pub(super) fn draw_marker<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    m: Marker,
    color: RGBColor,
    at: (i32, i32),
) -> Result<(), String> {
    let r = marker_r();
    let (x, y) = at;
    let fill = color.filled();
    match m {
        Marker::Circle => root.draw(&Circle::new(at, r, fill)),
        Marker::Square => root.draw(&Rectangle::new([(x - r, y - r), (x + r, y + r)], fill)),
        Marker::Triangle => root.draw(&Polygon::new(
            vec![(x, y - r - 2), (x + r + 2, y + r), (x - r - 2, y + r)],
            fill,
        )),
        Marker::Cross => {
            let s = color.stroke_width(5);
            root.draw(&PathElement::new(vec![(x - r, y - r), (x + r, y + r)], s))
                .and_then(|_| root.draw(&PathElement::new(vec![(x - r, y + r), (x + r, y - r)], s)))
        }
    }
    .map_err(err)
}

/// Draws the paper's hollow diamond at pixel `at`: black, with a white halo so that it
/// shows on a bar of any colour.
pub(super) fn draw_paper<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    at: (i32, i32),
) -> Result<(), String> {
    let r = marker_r() + 6;
    let (x, y) = at;
    let d = vec![(x, y - r), (x + r, y), (x, y + r), (x - r, y), (x, y - r)];
    root.draw(&PathElement::new(d.clone(), WHITE.stroke_width(10)))
        .map_err(err)?;
    root.draw(&PathElement::new(d, BLACK.stroke_width(4)))
        .map_err(err)
}

/// Draws a whisker at x from y `lo` to `hi` (pixels).
pub(super) fn draw_range<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    x: i32,
    lo: i32,
    hi: i32,
) -> Result<(), String> {
    let c = marker_r();
    let s = BLACK.stroke_width(3);
    for path in [
        vec![(x, lo), (x, hi)],
        vec![(x - c, lo), (x + c, lo)],
        vec![(x - c, hi), (x + c, hi)],
    ] {
        root.draw(&PathElement::new(path, s)).map_err(err)?;
    }
    Ok(())
}

/// Draws legend key `key` with its left end at `x`, centred on `y`.
pub(super) fn draw_key<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    key: Key,
    (x, y): (i32, i32),
) -> Result<(), String> {
    let w = key_w();
    let h = (px(TICK_PT) * 0.35) as i32;
    let mid = (x + w / 2, y);
    match key {
        Key::Bar(c) => root
            .draw(&Rectangle::new([(x, y - h), (x + w, y + h)], c.filled()))
            .map_err(err),
        Key::Line(c, m, width) => {
            root.draw(&PathElement::new(
                vec![(x, y), (x + w, y)],
                c.stroke_width(width),
            ))
            .map_err(err)?;
            draw_marker(root, m, c, mid)
        }
        Key::Point(c, m) => draw_marker(root, m, c, mid),
        Key::Curve(c, width, dashed) => {
            let style = c.stroke_width(width);
            if dashed {
                let third = w / 3;
                for x0 in [x, x + 2 * third] {
                    root.draw(&PathElement::new(vec![(x0, y), (x0 + third, y)], style))
                        .map_err(err)?;
                }
                Ok(())
            } else {
                root.draw(&PathElement::new(vec![(x, y), (x + w, y)], style))
                    .map_err(err)
            }
        }
        Key::Paper => draw_paper(root, mid),
        Key::Range => draw_range(root, x + w / 2, y + h + 4, y - h - 4),
    }
}
