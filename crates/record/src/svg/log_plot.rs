//! Curves on a logarithmic y axis.

use std::fmt::Write as _;

use super::FONT;
use super::frame::{Frame, Series};

/// Curves on a logarithmic y axis: sensitivities, losses — quantities that
/// span many orders of magnitude.
#[derive(Clone, Debug)]
pub struct LogPlot<'a> {
    pub series: &'a [Series<'a>],
    pub x_label: &'a str,
    pub y_label: &'a str,
}

impl LogPlot<'_> {
    /// The figure as an SVG document with no blank lines.
    pub fn to_svg(&self) -> String {
        let (w, h) = (640.0, 360.0);
        let (left, right, top, bottom) = (64.0, 16.0, 16.0, 48.0);
        let points = || self.series.iter().flat_map(|s| s.points.iter()).filter(|p| p.1 > 0.0);
        let x_max = points().map(|p| p.0).fold(1.0, f64::max);
        let x_min = points().map(|p| p.0).fold(x_max, f64::min);
        let lo = points().map(|p| libm::log10(p.1)).fold(f64::INFINITY, f64::min);
        let lo = if lo.is_finite() { lo.floor() } else { 0.0 };
        let hi = points().map(|p| libm::log10(p.1)).fold(lo + 1.0, f64::max).ceil();
        let x = |v: f64| left + (v - x_min) / (x_max - x_min).max(1e-300) * (w - left - right);
        let y = |v: f64| top + (hi - libm::log10(v)) / (hi - lo) * (h - top - bottom);
        let mut s = String::new();
        // decade grid lines and labels
        let step = ((hi - lo) / 8.0).ceil().max(1.0) as i64;
        let mut e = lo as i64;
        while e <= hi as i64 {
            let yy = y(10f64.powi(e as i32));
            writeln!(s, "<line x1=\"{left:.1}\" y1=\"{yy:.1}\" x2=\"{:.1}\" y2=\"{yy:.1}\" stroke=\"#e4e4e4\"/>", w - right).unwrap();
            writeln!(s, "<text x=\"{:.1}\" y=\"{:.1}\" {FONT} font-size=\"11\" fill=\"#444444\" text-anchor=\"end\">1e{e}</text>", left - 6.0, yy + 4.0).unwrap();
            e += step;
        }
        // x ticks: about six round numbers
        let span = x_max - x_min;
        let raw = span / 6.0;
        let mag = libm::pow(10.0, libm::log10(raw).floor());
        let tick = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|&t| t >= raw).unwrap_or(raw);
        let mut t = (x_min / tick).ceil() * tick;
        while t <= x_max + 1e-9 {
            let xx = x(t);
            writeln!(s, "<line x1=\"{xx:.1}\" y1=\"{top:.1}\" x2=\"{xx:.1}\" y2=\"{:.1}\" stroke=\"#f0f0f0\"/>", h - bottom).unwrap();
            writeln!(s, "<text x=\"{xx:.1}\" y=\"{:.1}\" {FONT} font-size=\"11\" fill=\"#444444\" text-anchor=\"middle\">{}</text>", h - bottom + 16.0, crate::show::short(t)).unwrap();
            t += tick;
        }
        let paths = self
            .series
            .iter()
            .map(|c| c.points.iter().filter(|p| p.1 > 0.0).map(|&(a, b)| (x(a), y(b))).collect())
            .collect();
        let frame = Frame { w, h, left, right, top, bottom };
        frame.finish(s, self.series, paths, self.x_label, self.y_label)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_plot_spans_its_decades() {
        let series = [
            Series { label: "a", colour: "#1f77b4", points: vec![(0.0, 1.0), (10.0, 1e-6)] },
            Series { label: "b", colour: "#d62728", points: vec![(0.0, 0.5), (10.0, 0.0)] },
        ];
        let svg = LogPlot { series: &series, x_label: "x", y_label: "y" }.to_svg();
        assert!(svg.contains(">1e-6<") && svg.contains(">1e0<"));
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert!(!svg.contains("\n\n") && !svg.contains("NaN"));
    }

    #[test]
    fn the_legend_moves_off_the_curves() {
        let legend_x = |svg: &str| {
            let at = svg.find("fill-opacity").unwrap();
            let rect = &svg[svg[..at].rfind("<rect").unwrap()..at];
            rect.split('"').nth(1).unwrap().parse::<f64>().unwrap()
        };
        // a flat curve along the top: the legend leaves the top right
        let flat = [Series {
            label: "flat",
            colour: "#000000",
            points: vec![(0.0, 0.5), (10.0, 0.5), (10.0, 1e-3)],
        }];
        let svg = LogPlot { series: &flat, x_label: "x", y_label: "y" }.to_svg();
        let top_right = 640.0 - 16.0 - 8.0 - 150.0;
        assert!(!svg.contains(&format!("x=\"{top_right:.1}\" y=\"22.0\" width=\"150\"")), "{svg}");
        // a falling curve leaves the top right free: the legend stays there
        let falling = [Series {
            label: "falling",
            colour: "#000000",
            points: vec![(0.0, 1.0), (10.0, 1e-6)],
        }];
        let svg = LogPlot { series: &falling, x_label: "x", y_label: "y" }.to_svg();
        assert_eq!(legend_x(&svg), top_right);
        // a long label widens the box
        let long = [Series {
            label: "a rather long label for a curve",
            colour: "#000",
            points: vec![(0.0, 1.0), (10.0, 1e-6)],
        }];
        let svg = LogPlot { series: &long, x_label: "x", y_label: "y" }.to_svg();
        assert!(!svg.contains("width=\"150\" height"));
    }
}
