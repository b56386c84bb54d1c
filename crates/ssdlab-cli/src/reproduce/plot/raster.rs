//! The PNG beside each SVG: plotters' bitmap backend drawing into memory, with text
//! rasterized from the embedded font and placed as the SVG places it (the same anchor,
//! baseline and rotation), then encoded with its resolution.

use super::{font, PX_PER_IN};
use ab_glyph::{point, Font, ScaleFont};
use plotters::backend::BitMapBackend;
use plotters::style::FontTransform;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};
use std::path::Path;

/// plotters' font sizes are 1.24 times the em size the SVG backend writes.
const PLOTTERS_EM: f64 = 1.24;

/// plotters' bitmap backend, drawing text itself.
pub(super) struct Raster<'a>(pub BitMapBackend<'a>);

/// A closure over every pixel of `text` drawn with `style` at `pos`: (x, y, coverage).
pub(super) fn text_pixels<S: BackendTextStyle>(
    text: &str,
    style: &S,
    pos: BackendCoord,
    mut pixel: impl FnMut(i32, i32, f32),
) {
    let f = font();
    let em = (style.size() / PLOTTERS_EM) as f32;
    let scaled = f.as_scaled(em * f.height_unscaled() / f.units_per_em().unwrap_or(2048.0));
    let width: f32 = text
        .chars()
        .map(|c| scaled.h_advance(scaled.glyph_id(c)))
        .sum();
    let ex = -f.glyph_bounds(&scaled.scaled_glyph('x')).min.y;
    // As the SVG backend: text-anchor, and dy of 0.76em, 0.5ex or -0.5ex.
    let x0 = match style.anchor().h_pos {
        HPos::Left => 0.0,
        HPos::Center => -width / 2.0,
        HPos::Right => -width,
    };
    let baseline = match style.anchor().v_pos {
        VPos::Top => 0.76 * em,
        VPos::Center => 0.5 * ex,
        VPos::Bottom => -0.5 * ex,
    };
    let rotate = |dx: i32, dy: i32| match style.transform() {
        FontTransform::Rotate90 => (-dy, dx),
        FontTransform::Rotate180 => (-dx, -dy),
        FontTransform::Rotate270 => (dy, -dx),
        _ => (dx, dy),
    };
    let mut pen = x0;
    for c in text.chars() {
        let glyph = scaled
            .glyph_id(c)
            .with_scale_and_position(scaled.scale(), point(pen, baseline));
        pen += scaled.h_advance(glyph.id);
        let Some(outline) = f.outline_glyph(glyph) else {
            continue;
        };
        let b = outline.px_bounds();
        outline.draw(|x, y, coverage| {
            let (dx, dy) = rotate(b.min.x as i32 + x as i32, b.min.y as i32 + y as i32);
            pixel(pos.0 + dx, pos.1 + dy, coverage);
        });
    }
}

impl DrawingBackend for Raster<'_> {
    type ErrorType = <BitMapBackend<'static> as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.0.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.present()
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.fill_polygon(vert, style)
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let color = style.color();
        let mut result = Ok(());
        text_pixels(text, style, pos, |x, y, coverage| {
            if result.is_ok() && coverage > 0.0 {
                let c = BackendColor {
                    alpha: color.alpha * f64::from(coverage.min(1.0)),
                    rgb: color.rgb,
                };
                result = self.0.draw_pixel((x, y), c);
            }
        });
        result
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        self.0.estimate_text_size(text, style)
    }
}

/// Writes the RGB pixels `rgb` of a `size` image to `path` as a PNG of [`PX_PER_IN`].
pub(super) fn write_png(path: &Path, size: (u32, u32), rgb: &[u8]) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), size.0, size.1);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let per_metre = (PX_PER_IN / 0.0254).round() as u32;
    enc.set_pixel_dims(Some(png::PixelDimensions {
        xppu: per_metre,
        yppu: per_metre,
        unit: png::Unit::Meter,
    }));
    let mut w = enc.write_header().map_err(|e| e.to_string())?;
    w.write_image_data(rgb).map_err(|e| e.to_string())?;
    w.finish().map_err(|e| e.to_string())
}
