//! What [`LogPlot`](super::LogPlot) and [`LinePlot`](super::LinePlot) share: a
//! curve, the plot area with its axis labels and legend, round tick values.

use std::fmt::Write as _;

use super::{FONT, escape};

/// One curve of a plot.
#[derive(Clone, Debug)]
pub struct Series<'a> {
    pub label: &'a str,
    /// An SVG colour, e.g. `#1f77b4`.
    pub colour: &'a str,
    /// `(x, y)` points; on a log axis, points with y ≤ 0 are left out.
    pub points: Vec<(f64, f64)>,
}

/// The plot area: its box, axis labels,
/// and a legend with one entry per curve.
pub(super) struct Frame {
    pub(super) w: f64,
    pub(super) h: f64,
    pub(super) left: f64,
    pub(super) right: f64,
    pub(super) top: f64,
    pub(super) bottom: f64,
}

impl Frame {
    /// The box, both axis labels and the legend's background.
    pub(super) fn draw(&self, s: &mut String, x_label: &str, y_label: &str, curves: usize) {
        let Frame { w, h, left, right, top, bottom } = *self;
        writeln!(s, "<rect x=\"{left:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"none\" stroke=\"#888888\"/>", w - left - right, h - top - bottom).unwrap();
        writeln!(s, "<text x=\"{:.1}\" y=\"{:.1}\" {FONT} font-size=\"12\" fill=\"#222222\" text-anchor=\"middle\">{}</text>", (left + w - right) / 2.0, h - 10.0, escape(x_label)).unwrap();
        writeln!(s, "<text x=\"14\" y=\"{:.1}\" {FONT} font-size=\"12\" fill=\"#222222\" text-anchor=\"middle\" transform=\"rotate(-90 14 {:.1})\">{}</text>", (top + h - bottom) / 2.0, (top + h - bottom) / 2.0, escape(y_label)).unwrap();
        let legend_h = 18.0 * curves as f64 + 8.0;
        writeln!(
            s,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"150\" height=\"{legend_h:.1}\" fill=\"#ffffff\" fill-opacity=\"0.9\" stroke=\"#cccccc\"/>",
            w - right - 158.0,
            top + 6.0
        )
        .unwrap();
    }

    /// Curve `i` through the given pixel points, and its legend entry.
    pub(super) fn curve(
        &self,
        s: &mut String,
        i: usize,
        series: &Series,
        points: impl Iterator<Item = (f64, f64)>,
    ) {
        let Series { label, colour, .. } = series;
        let path: Vec<String> = points.map(|(px, py)| format!("{px:.1},{py:.1}")).collect();
        writeln!(
            s,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"/>",
            path.join(" ")
        )
        .unwrap();
        let (right, w, ly) = (self.right, self.w, self.top + 18.0 + 18.0 * i as f64);
        writeln!(s, "<line x1=\"{:.1}\" y1=\"{ly:.1}\" x2=\"{:.1}\" y2=\"{ly:.1}\" stroke=\"{colour}\" stroke-width=\"2\"/>", w - right - 150.0, w - right - 126.0).unwrap();
        writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" {FONT} font-size=\"12\" fill=\"#222222\">{}</text>",
            w - right - 120.0,
            ly + 4.0,
            escape(label)
        )
        .unwrap();
    }
}

/// About six round tick values covering `[lo, hi]`.
pub(super) fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let raw = (hi - lo).max(1e-12) / 6.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|&t| t >= raw).unwrap_or(raw);
    let mut t = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while t <= hi + step * 1e-9 {
        out.push(if t.abs() < step * 1e-9 { 0.0 } else { t });
        t += step;
    }
    out
}
