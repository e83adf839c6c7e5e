//! Curves on linear axes.

use std::fmt::Write as _;

use super::FONT;
use super::frame::{Frame, Series, ticks};

/// Curves on linear axes, with a horizontal line at y = 0 when the range
/// crosses it: quantities that change sign, such as a dot product.
#[derive(Clone, Debug)]
pub struct LinePlot<'a> {
    pub series: &'a [Series<'a>],
    pub x_label: &'a str,
    pub y_label: &'a str,
}

impl LinePlot<'_> {
    /// The figure as an SVG document with no blank lines.
    pub fn to_svg(&self) -> String {
        let (w, h) = (640.0, 360.0);
        let (left, right, top, bottom) = (64.0, 16.0, 16.0, 48.0);
        let points = || self.series.iter().flat_map(|s| s.points.iter());
        let x_min = points().map(|p| p.0).fold(f64::INFINITY, f64::min);
        let x_max = points().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
        let y_min = points().map(|p| p.1).fold(f64::INFINITY, f64::min);
        let y_max = points().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
        let pad = (y_max - y_min).max(1e-12) * 0.05;
        let (lo, hi) = (y_min - pad, y_max + pad);
        let x = |v: f64| left + (v - x_min) / (x_max - x_min).max(1e-300) * (w - left - right);
        let y = |v: f64| top + (hi - v) / (hi - lo) * (h - top - bottom);
        let mut s = String::new();
        for t in ticks(lo, hi) {
            let yy = y(t);
            let stroke = if t == 0.0 { "#999999" } else { "#e4e4e4" };
            writeln!(s, "<line x1=\"{left:.1}\" y1=\"{yy:.1}\" x2=\"{:.1}\" y2=\"{yy:.1}\" stroke=\"{stroke}\"/>", w - right).unwrap();
            writeln!(s, "<text x=\"{:.1}\" y=\"{:.1}\" {FONT} font-size=\"11\" fill=\"#444444\" text-anchor=\"end\">{}</text>", left - 6.0, yy + 4.0, crate::show::short(t)).unwrap();
        }
        for t in ticks(x_min, x_max) {
            let xx = x(t);
            writeln!(s, "<line x1=\"{xx:.1}\" y1=\"{top:.1}\" x2=\"{xx:.1}\" y2=\"{:.1}\" stroke=\"#f0f0f0\"/>", h - bottom).unwrap();
            writeln!(s, "<text x=\"{xx:.1}\" y=\"{:.1}\" {FONT} font-size=\"11\" fill=\"#444444\" text-anchor=\"middle\">{}</text>", h - bottom + 16.0, crate::show::short(t)).unwrap();
        }
        let paths = self
            .series
            .iter()
            .map(|c| c.points.iter().map(|&(a, b)| (x(a), y(b))).collect())
            .collect();
        let frame = Frame { w, h, left, right, top, bottom };
        frame.finish(s, self.series, paths, self.x_label, self.y_label)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_plot_marks_zero_and_has_round_ticks() {
        let series =
            [Series { label: "a", colour: "#1f77b4", points: vec![(0.0, 32.0), (10.0, -4.0)] }];
        let svg = LinePlot { series: &series, x_label: "k", y_label: "dot" }.to_svg();
        assert!(svg.contains("stroke=\"#999999\"") && svg.contains(">0<") && svg.contains(">30<"));
        assert!(!svg.contains("\n\n") && !svg.contains("NaN"));
        assert_eq!(ticks(0.0, 10.0), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
    }

    #[test]
    fn a_legend_with_no_free_corner_goes_under_the_plot() {
        // a curve round the whole border covers all four corners
        let border = vec![(0.0, 0.0), (10.0, 0.0), (10.0, 1.0), (0.0, 1.0), (0.0, 0.0)];
        let series = [Series { label: "border", colour: "#000000", points: border }];
        let svg = LinePlot { series: &series, x_label: "x", y_label: "y" }.to_svg();
        assert!(
            svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 640 396\"")
        );
        assert!(
            svg.contains("<rect x=\"64.0\" y=\"362.0\" width=\"150\" height=\"26.0\""),
            "{svg}"
        );
    }
}
