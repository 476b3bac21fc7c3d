//! PNG figures: the SVG that plotters writes, rendered by resvg (text laid
//! out by usvg's shaping engine, with kerning and one baseline, from the
//! DejaVu Sans embedded by the `dejavu` crate — no system font is looked
//! up) and encoded as 8-bit RGB by the `png` crate. One drawing for both
//! formats: a PNG shows exactly what its SVG shows.

use resvg::tiny_skia;
use resvg::usvg;
use std::sync::{Arc, OnceLock};

/// The font database: DejaVu Sans regular and bold, which is also the
/// `sans-serif` family the figures ask for.
fn fonts() -> Arc<usvg::fontdb::Database> {
    static DB: OnceLock<Arc<usvg::fontdb::Database>> = OnceLock::new();
    DB.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_font_data(dejavu::sans::regular().to_vec());
        db.load_font_data(dejavu::sans::bold().to_vec());
        db.set_sans_serif_family("DejaVu Sans");
        Arc::new(db)
    })
    .clone()
}

/// Renders `svg` on a white canvas of `size` pixels and encodes it as PNG.
/// Errors are messages (the caller names the file).
pub fn png(svg: &str, (w, h): (u32, u32)) -> Result<Vec<u8>, String> {
    let opt = usvg::Options {
        font_family: "DejaVu Sans".to_string(),
        fontdb: fonts(),
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_str(svg, &opt).map_err(|e| format!("SVG not understood: {e}"))?;
    let mut pixmap =
        tiny_skia::Pixmap::new(w, h).ok_or_else(|| format!("no canvas of {w}×{h} pixels"))?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        tiny_skia::Transform::identity(),
        &mut pixmap.as_mut(),
    );
    // Opaque (white underneath): premultiplied RGBA is plain RGB + 255,
    // packed to RGB in place (pixel i moves from 4i to 3i ≤ 4i).
    let data = pixmap.data_mut();
    let n = data.len() / 4;
    for i in 0..n {
        data.copy_within(4 * i..4 * i + 3, 3 * i);
    }
    let rgb = &data[..3 * n];
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().map_err(|e| e.to_string())?;
        writer.write_image_data(rgb).map_err(|e| e.to_string())?;
        writer.finish().map_err(|e| e.to_string())?;
    }
    Ok(out)
}
