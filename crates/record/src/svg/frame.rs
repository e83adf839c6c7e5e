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

/// Where the legend box goes: its top-left corner and width.
#[derive(Clone, Copy)]
pub(super) struct Legend {
    x: f64,
    y: f64,
    width: f64,
}

impl Frame {
    /// The legend's place: the first corner of the plot area (top right,
    /// bottom right, top left, bottom left) whose box covers the fewest
    /// points of the curves, given in pixels; wide enough for the longest label.
    fn legend(&self, series: &[Series], curves_px: &[Vec<(f64, f64)>]) -> Legend {
        let Frame { w, h, left, right, top, bottom } = *self;
        let longest = series.iter().map(|s| s.label.chars().count()).max().unwrap_or(0);
        let width = (40.0 + 6.6 * longest as f64).max(150.0);
        let height = 18.0 * series.len() as f64 + 8.0;
        let (x_right, x_left) = (w - right - 8.0 - width, left + 8.0);
        let (y_top, y_bottom) = (top + 6.0, h - bottom - 6.0 - height);
        let corners = [(x_right, y_top), (x_right, y_bottom), (x_left, y_top), (x_left, y_bottom)];
        // each segment sampled at 8 points, so a line crossing the box counts
        let covered = |&(x, y): &(f64, f64)| {
            let inside =
                |(px, py): (f64, f64)| px >= x && px <= x + width && py >= y && py <= y + height;
            let mut n = 0;
            for curve in curves_px {
                for pair in curve.windows(2) {
                    let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
                    n += (0..8)
                        .filter(|&k| {
                            let t = k as f64 / 8.0;
                            inside((x0 + (x1 - x0) * t, y0 + (y1 - y0) * t))
                        })
                        .count();
                }
                n += curve.last().is_some_and(|&p| inside(p)) as usize;
            }
            n
        };
        let mut best = (corners[0], covered(&corners[0]));
        for c in &corners[1..] {
            let n = covered(c);
            if n < best.1 {
                best = (*c, n);
            }
        }
        if best.1 > 0 {
            // every corner hides a curve: the legend goes under the plot,
            // below the x-axis label, and the figure grows to hold it
            return Legend { x: left, y: h + 2.0, width };
        }
        Legend { x: best.0.0, y: best.0.1, width }
    }

    /// The whole plot from its grid (`grid`, drawn without the opening
    /// tag): the `<svg>` tag, sized to hold the legend if it goes under the
    /// plot, the grid, the box, the axis labels, the curves through `paths`
    /// (pixel points, one list per series) and the legend, placed off the
    /// curves.
    pub(super) fn finish(
        &self,
        grid: String,
        series: &[Series],
        paths: Vec<Vec<(f64, f64)>>,
        x_label: &str,
        y_label: &str,
    ) -> String {
        let legend = self.legend(series, &paths);
        let under = if legend.y > self.h { 18.0 * series.len() as f64 + 8.0 + 10.0 } else { 0.0 };
        let mut s = super::open(self.w, self.h + under);
        s.push_str(&grid);
        self.draw(&mut s, x_label, y_label, series.len(), legend);
        for (i, (series, path)) in series.iter().zip(paths).enumerate() {
            self.curve(&mut s, i, series, path.into_iter(), legend);
        }
        s.push_str("</svg>\n");
        s
    }

    /// The box, both axis labels and the legend's background.
    fn draw(&self, s: &mut String, x_label: &str, y_label: &str, curves: usize, legend: Legend) {
        let Frame { w, h, left, right, top, bottom } = *self;
        writeln!(s, "<rect x=\"{left:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"none\" stroke=\"#888888\"/>", w - left - right, h - top - bottom).unwrap();
        writeln!(s, "<text x=\"{:.1}\" y=\"{:.1}\" {FONT} font-size=\"12\" fill=\"#222222\" text-anchor=\"middle\">{}</text>", (left + w - right) / 2.0, h - 10.0, escape(x_label)).unwrap();
        writeln!(s, "<text x=\"14\" y=\"{:.1}\" {FONT} font-size=\"12\" fill=\"#222222\" text-anchor=\"middle\" transform=\"rotate(-90 14 {:.1})\">{}</text>", (top + h - bottom) / 2.0, (top + h - bottom) / 2.0, escape(y_label)).unwrap();
        let legend_h = 18.0 * curves as f64 + 8.0;
        writeln!(
            s,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{}\" height=\"{legend_h:.1}\" fill=\"#ffffff\" fill-opacity=\"0.9\" stroke=\"#cccccc\"/>",
            legend.x,
            legend.y,
            crate::show::short(legend.width)
        )
        .unwrap();
    }

    /// Curve `i` through the given pixel points, and its legend entry.
    fn curve(
        &self,
        s: &mut String,
        i: usize,
        series: &Series,
        points: impl Iterator<Item = (f64, f64)>,
        legend: Legend,
    ) {
        let Series { label, colour, .. } = series;
        let path: Vec<String> = points.map(|(px, py)| format!("{px:.1},{py:.1}")).collect();
        writeln!(
            s,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"/>",
            path.join(" ")
        )
        .unwrap();
        let ly = legend.y + 12.0 + 18.0 * i as f64;
        writeln!(s, "<line x1=\"{:.1}\" y1=\"{ly:.1}\" x2=\"{:.1}\" y2=\"{ly:.1}\" stroke=\"{colour}\" stroke-width=\"2\"/>", legend.x + 8.0, legend.x + 32.0).unwrap();
        writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" {FONT} font-size=\"12\" fill=\"#222222\">{}</text>",
            legend.x + 38.0,
            ly + 4.0,
            escape(label)
        )
        .unwrap();
    }
}

/// About six round tick values covering `[lo, hi]`.
pub(super) fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let raw = (hi - lo).max(1e-12) / 6.0;
    let mag = libm::pow(10.0, libm::log10(raw).floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|&t| t >= raw).unwrap_or(raw);
    let mut t = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while t <= hi + step * 1e-9 {
        out.push(if t.abs() < step * 1e-9 { 0.0 } else { t });
        t += step;
    }
    out
}
