//! The key to a figure's colours: a vertical bar with ticks, drawn to the
//! right of [`Heatmap`](super::Heatmap), [`CountGrid`](super::CountGrid)
//! and [`Raster`](super::Raster).
//!
//! The bar is a stack of flat bands, not an SVG gradient: a gradient needs
//! an `id`, and ids repeat when several figures are inlined in one page.

use std::fmt::Write as _;

use super::{FONT, escape};

/// Bands the bar is drawn with: enough that no step shows at page size.
const BANDS: usize = 40;
/// The bar's width, and the room its ticks and labels take to its right.
const BAR: f64 = 14.0;

/// A colour bar: `colour(t)` for `t` from 0 (top) to 1 (bottom), its
/// ticks as `(t, label)`, a title over it, and optionally one extra
/// swatch under it for a colour off the scale (a "never" cell, say).
pub(super) struct ColourBar<'a> {
    pub(super) title: &'a str,
    pub(super) ticks: Vec<(f64, String)>,
    pub(super) swatch: Option<(&'a str, &'a str)>,
}

impl ColourBar<'_> {
    /// How wide the bar is with its labels, in pixels (an estimate of the
    /// text's width at 11 px: 6.6 px per character).
    pub(super) fn width(&self) -> f64 {
        let labels = self.ticks.iter().map(|(_, l)| l.chars().count());
        let swatch = self.swatch.map_or(0, |(_, l)| l.chars().count());
        let longest = labels.chain([swatch]).max().unwrap_or(0) as f64;
        let title = self.title.chars().count() as f64 * 6.6;
        (BAR + 8.0 + 6.6 * longest).max(title) + 12.0
    }

    /// Draw the bar with its top-left corner at `(x, y)`, `height` tall.
    pub(super) fn draw(
        &self,
        s: &mut String,
        x: f64,
        y: f64,
        height: f64,
        colour: impl Fn(f64) -> String,
    ) {
        writeln!(
            s,
            "<text x=\"{x:.1}\" y=\"{:.1}\" {FONT} font-size=\"11\" fill=\"#555555\">{}</text>",
            y - 14.0,
            escape(self.title)
        )
        .unwrap();
        let band = height / BANDS as f64;
        for k in 0..BANDS {
            let t = (k as f64 + 0.5) / BANDS as f64;
            // each band overlaps the next by half a pixel, its edges not
            // smoothed: no seams between bands
            writeln!(
                s,
                "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{BAR:.1}\" height=\"{:.1}\" fill=\"{}\" shape-rendering=\"crispEdges\"/>",
                y + band * k as f64,
                band + 0.5,
                colour(t)
            )
            .unwrap();
        }
        writeln!(s, "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{BAR:.1}\" height=\"{height:.1}\" fill=\"none\" stroke=\"#888888\"/>").unwrap();
        for (t, label) in &self.ticks {
            let ty = y + height * t.clamp(0.0, 1.0);
            writeln!(s, "<line x1=\"{:.1}\" y1=\"{ty:.1}\" x2=\"{:.1}\" y2=\"{ty:.1}\" stroke=\"#444444\"/>", x + BAR, x + BAR + 4.0).unwrap();
            writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" {FONT} font-size=\"11\" fill=\"#444444\">{}</text>",
                x + BAR + 7.0,
                ty + 4.0,
                escape(label)
            )
            .unwrap();
        }
        if let Some((fill, label)) = self.swatch {
            let sy = y + height + 12.0;
            writeln!(s, "<rect x=\"{x:.1}\" y=\"{sy:.1}\" width=\"{BAR:.1}\" height=\"{BAR:.1}\" fill=\"{fill}\" stroke=\"#888888\"/>").unwrap();
            writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" {FONT} font-size=\"11\" fill=\"#444444\">{}</text>",
                x + BAR + 7.0,
                sy + 11.0,
                escape(label)
            )
            .unwrap();
        }
    }

    /// The extra height the swatch needs under the bar.
    pub(super) fn below(&self) -> f64 {
        if self.swatch.is_some() { 12.0 + BAR + 4.0 } else { 0.0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bar_has_its_bands_ticks_and_swatch() {
        let bar = ColourBar {
            title: "weight",
            ticks: vec![(0.0, "1".into()), (1.0, "0".into())],
            swatch: Some(("#d9d9d9", "never")),
        };
        let mut s = String::new();
        bar.draw(&mut s, 10.0, 20.0, 100.0, |t| format!("#{:02x}0000", (t * 255.0) as u8));
        assert_eq!(s.matches("<rect").count(), BANDS + 2);
        assert_eq!(s.matches("<line").count(), 2);
        assert!(s.contains(">weight<") && s.contains(">never<") && s.contains("#d9d9d9"));
        assert!(
            s.contains("fill=\"#030000\"") && s.contains("fill=\"#fb0000\""),
            "top and bottom bands"
        );
        assert!(bar.width() > BAR);
    }
}
