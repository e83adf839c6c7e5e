//! Figures as plain SVG text, drawn from a chapter's own numbers.
//!
//! Hand-written SVG keeps figures byte-for-byte reproducible (no font
//! metrics, no rasteriser), small enough to pin as snapshots, and readable
//! in a diff. Every number in a figure is formatted with a fixed number of
//! decimals, so the figure is as deterministic as the printed output.

use std::fmt::Write as _;

/// A matrix of numbers in `[0, 1]` drawn as coloured cells, each labelled
/// with its value: attention weights, for instance.
#[derive(Clone, Debug)]
pub struct Heatmap<'a> {
    /// One label per row (the queries, say), drawn on the left.
    pub row_labels: &'a [&'a str],
    /// One label per column (the keys), drawn on top.
    pub col_labels: &'a [&'a str],
    /// `values[i][j]` is the cell in row `i`, column `j`.
    pub values: &'a [Vec<f64>],
    /// A short axis note for the rows, e.g. "query ↓".
    pub row_axis: &'a str,
    /// A short axis note for the columns, e.g. "key →".
    pub col_axis: &'a str,
    /// Decimals printed in each cell.
    pub decimals: usize,
}

impl Heatmap<'_> {
    /// The figure as an SVG document with no blank lines (so it can be
    /// inlined in a Markdown page).
    #[track_caller]
    pub fn to_svg(&self) -> String {
        let (rows, cols) = (self.row_labels.len(), self.col_labels.len());
        assert_eq!(self.values.len(), rows, "heatmap: {rows} row labels");
        assert!(self.values.iter().all(|r| r.len() == cols), "heatmap: {cols} column labels");
        cells_svg(self.row_labels, self.col_labels, self.row_axis, self.col_axis, |i, j| {
            let v = self.values[i][j];
            let ink = if v > 0.55 { "#ffffff" } else { "#111111" };
            (blues(v), format!("{:.*}", self.decimals, v), ink)
        })
    }
}

/// A table of counts (steps, say) drawn as cells: the smaller the count, the
/// darker the cell; a missing entry is a grey cell with a dash. Used where
/// "how soon" matters and "never" is a possible answer.
#[derive(Clone, Debug)]
pub struct CountGrid<'a> {
    pub row_labels: &'a [&'a str],
    pub col_labels: &'a [&'a str],
    /// `counts[i][j]`, or `None` for "never".
    pub counts: &'a [Vec<Option<u64>>],
    pub row_axis: &'a str,
    pub col_axis: &'a str,
    /// The count drawn lightest (e.g. the last step of a run).
    pub max: u64,
}

impl CountGrid<'_> {
    /// The figure as an SVG document with no blank lines.
    #[track_caller]
    pub fn to_svg(&self) -> String {
        let (rows, cols) = (self.row_labels.len(), self.col_labels.len());
        assert_eq!(self.counts.len(), rows, "grid: {rows} row labels");
        assert!(self.counts.iter().all(|r| r.len() == cols), "grid: {cols} column labels");
        assert!(self.max > 0, "grid: max must be positive");
        cells_svg(self.row_labels, self.col_labels, self.row_axis, self.col_axis, |i, j| match self
            .counts[i][j]
        {
            Some(n) => {
                let v = 1.0 - n as f64 / self.max as f64;
                let ink = if v > 0.55 { "#ffffff" } else { "#111111" };
                (blues(v), n.to_string(), ink)
            }
            None => ("#d9d9d9".to_string(), "—".to_string(), "#555555"),
        })
    }
}

const CELL: f64 = 58.0;
const FONT: &str = "font-family=\"sans-serif\"";

/// The layout shared by [`Heatmap`] and [`CountGrid`]: labels on top and on
/// the left, one square per cell; `cell(i, j)` gives its fill, text and ink.
fn cells_svg(
    row_labels: &[&str],
    col_labels: &[&str],
    row_axis: &str,
    col_axis: &str,
    cell: impl Fn(usize, usize) -> (String, String, &'static str),
) -> String {
    let (rows, cols) = (row_labels.len(), col_labels.len());
    let longest = row_labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let left = 20.0 + 8.0 * longest as f64;
    let top = 58.0;
    let (width, height) = (left + CELL * cols as f64 + 10.0, top + CELL * rows as f64 + 10.0);
    let mut s = String::new();
    writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width:.0} {height:.0}\" width=\"{width:.0}\" height=\"{height:.0}\" role=\"img\">"
    )
    .unwrap();
    writeln!(s, "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>").unwrap();
    writeln!(
        s,
        "<text x=\"{:.1}\" y=\"14\" {FONT} font-size=\"12\" fill=\"#555555\" text-anchor=\"middle\">{}</text>",
        left + CELL * cols as f64 / 2.0,
        escape(col_axis)
    )
    .unwrap();
    writeln!(
        s,
        "<text x=\"4\" y=\"{:.1}\" {FONT} font-size=\"12\" fill=\"#555555\">{}</text>",
        top - 8.0,
        escape(row_axis)
    )
    .unwrap();
    for (j, label) in col_labels.iter().enumerate() {
        writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" {FONT} font-size=\"13\" fill=\"#222222\" text-anchor=\"middle\">{}</text>",
            left + CELL * (j as f64 + 0.5),
            top - 10.0,
            escape(label)
        )
        .unwrap();
    }
    for (i, label) in row_labels.iter().enumerate() {
        let y = top + CELL * i as f64;
        writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" {FONT} font-size=\"13\" fill=\"#222222\" text-anchor=\"end\">{}</text>",
            left - 8.0,
            y + CELL / 2.0 + 4.5,
            escape(label)
        )
        .unwrap();
        for j in 0..cols {
            let x = left + CELL * j as f64;
            let (fill, text, ink) = cell(i, j);
            writeln!(
                s,
                "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{CELL:.1}\" height=\"{CELL:.1}\" fill=\"{fill}\" stroke=\"#ffffff\"/>"
            )
            .unwrap();
            writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" {FONT} font-size=\"13\" fill=\"{ink}\" text-anchor=\"middle\">{}</text>",
                x + CELL / 2.0,
                y + CELL / 2.0 + 4.5,
                escape(&text)
            )
            .unwrap();
        }
    }
    s.push_str("</svg>\n");
    s
}

/// A white-to-blue colour for `v` in `[0, 1]` (clamped).
fn blues(v: f64) -> String {
    let t = v.clamp(0.0, 1.0);
    let mix = |lo: f64, hi: f64| (lo + (hi - lo) * t).round() as u8;
    format!("#{:02x}{:02x}{:02x}", mix(247.0, 8.0), mix(251.0, 48.0), mix(255.0, 107.0))
}

/// Escape text for SVG.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_two_by_two_heatmap() {
        let values = vec![vec![0.25, 0.75], vec![1.0, 0.0]];
        let svg = Heatmap {
            row_labels: &["a", "b"],
            col_labels: &["x", "y<z"],
            values: &values,
            row_axis: "query",
            col_axis: "key",
            decimals: 2,
        }
        .to_svg();
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert_eq!(svg.matches("<rect x=").count(), 4);
        assert!(svg.contains(">0.75</text>") && svg.contains("y&lt;z"));
        assert!(!svg.contains("\n\n"), "no blank lines: the page inlines it");
        assert_eq!(blues(0.0), "#f7fbff");
        assert_eq!(blues(1.0), "#08306b");
    }
}

/// One curve of a plot.
#[derive(Clone, Debug)]
pub struct Series<'a> {
    pub label: &'a str,
    /// An SVG colour, e.g. `#1f77b4`.
    pub colour: &'a str,
    /// `(x, y)` points; on a log axis, points with y ≤ 0 are left out.
    pub points: Vec<(f64, f64)>,
}

/// Curves on a logarithmic y axis: sensitivities, losses — quantities that
/// span many orders of magnitude.
#[derive(Clone, Debug)]
pub struct LogPlot<'a> {
    pub series: &'a [Series<'a>],
    pub x_label: &'a str,
    pub y_label: &'a str,
}

/// The plot area of [`LogPlot`] and [`LinePlot`]: its box, axis labels,
/// and a legend with one entry per curve.
struct Frame {
    w: f64,
    h: f64,
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
}

impl Frame {
    /// The box, both axis labels and the legend's background.
    fn draw(&self, s: &mut String, x_label: &str, y_label: &str, curves: usize) {
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
    fn curve(
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

impl LogPlot<'_> {
    /// The figure as an SVG document with no blank lines.
    pub fn to_svg(&self) -> String {
        let (w, h) = (640.0, 360.0);
        let (left, right, top, bottom) = (64.0, 16.0, 16.0, 48.0);
        let points = || self.series.iter().flat_map(|s| s.points.iter()).filter(|p| p.1 > 0.0);
        let x_max = points().map(|p| p.0).fold(1.0, f64::max);
        let x_min = points().map(|p| p.0).fold(x_max, f64::min);
        let lo = points().map(|p| p.1.log10()).fold(f64::INFINITY, f64::min);
        let lo = if lo.is_finite() { lo.floor() } else { 0.0 };
        let hi = points().map(|p| p.1.log10()).fold(lo + 1.0, f64::max).ceil();
        let x = |v: f64| left + (v - x_min) / (x_max - x_min).max(1e-300) * (w - left - right);
        let y = |v: f64| top + (hi - v.log10()) / (hi - lo) * (h - top - bottom);
        let mut s = String::new();
        writeln!(s, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w:.0} {h:.0}\" width=\"{w:.0}\" height=\"{h:.0}\" role=\"img\">").unwrap();
        writeln!(s, "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>").unwrap();
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
        let mag = 10f64.powf(raw.log10().floor());
        let tick = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|&t| t >= raw).unwrap_or(raw);
        let mut t = (x_min / tick).ceil() * tick;
        while t <= x_max + 1e-9 {
            let xx = x(t);
            writeln!(s, "<line x1=\"{xx:.1}\" y1=\"{top:.1}\" x2=\"{xx:.1}\" y2=\"{:.1}\" stroke=\"#f0f0f0\"/>", h - bottom).unwrap();
            writeln!(s, "<text x=\"{xx:.1}\" y=\"{:.1}\" {FONT} font-size=\"11\" fill=\"#444444\" text-anchor=\"middle\">{}</text>", h - bottom + 16.0, crate::show::short(t)).unwrap();
            t += tick;
        }
        let frame = Frame { w, h, left, right, top, bottom };
        frame.draw(&mut s, self.x_label, self.y_label, self.series.len());
        for (i, series) in self.series.iter().enumerate() {
            let path = series.points.iter().filter(|p| p.1 > 0.0).map(|&(a, b)| (x(a), y(b)));
            frame.curve(&mut s, i, series, path);
        }
        s.push_str("</svg>\n");
        s
    }
}

#[cfg(test)]
mod log_tests {
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
}

/// A large matrix of numbers in `[−1, 1]` drawn as small coloured cells
/// (blue negative, white zero, red positive), without a label per cell:
/// positional encodings, for instance.
#[derive(Clone, Debug)]
pub struct Raster<'a> {
    /// `values[i][j]`: row `i` drawn top to bottom, column `j` left to right.
    pub values: &'a [Vec<f64>],
    /// Side of one cell in pixels.
    pub cell: f64,
    /// What the rows are, e.g. "position ↓", and the columns.
    pub row_axis: &'a str,
    pub col_axis: &'a str,
}

impl Raster<'_> {
    /// The figure as an SVG document with no blank lines.
    #[track_caller]
    pub fn to_svg(&self) -> String {
        let rows = self.values.len();
        let cols = self.values.first().map_or(0, Vec::len);
        assert!(self.values.iter().all(|r| r.len() == cols), "raster: ragged rows");
        let (left, top) = (28.0, 24.0);
        let (w, h) = (left + self.cell * cols as f64 + 8.0, top + self.cell * rows as f64 + 8.0);
        let mut s = String::new();
        writeln!(s, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w:.0} {h:.0}\" width=\"{w:.0}\" height=\"{h:.0}\" role=\"img\">").unwrap();
        writeln!(s, "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>").unwrap();
        writeln!(
            s,
            "<text x=\"{left:.1}\" y=\"16\" {FONT} font-size=\"12\" fill=\"#555555\">{}</text>",
            escape(self.col_axis)
        )
        .unwrap();
        writeln!(s, "<text x=\"16\" y=\"{top:.1}\" {FONT} font-size=\"12\" fill=\"#555555\" transform=\"rotate(90 16 {top:.1})\">{}</text>", escape(self.row_axis)).unwrap();
        for (i, row) in self.values.iter().enumerate() {
            for (j, &v) in row.iter().enumerate() {
                writeln!(
                    s,
                    "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\"/>",
                    left + self.cell * j as f64,
                    top + self.cell * i as f64,
                    self.cell,
                    self.cell,
                    diverging(v)
                )
                .unwrap();
            }
        }
        s.push_str("</svg>\n");
        s
    }
}

/// Blue (−1) through white (0) to red (+1), clamped.
fn diverging(v: f64) -> String {
    let t = v.clamp(-1.0, 1.0);
    let (r, g, b) = if t < 0.0 { (33.0, 102.0, 172.0) } else { (178.0, 24.0, 43.0) };
    let a = t.abs();
    let mix = |c: f64| (255.0 + (c - 255.0) * a).round() as u8;
    format!("#{:02x}{:02x}{:02x}", mix(r), mix(g), mix(b))
}

#[cfg(test)]
mod raster_tests {
    use super::*;

    #[test]
    fn a_raster_has_one_cell_per_value_and_a_diverging_scale() {
        let values = vec![vec![-1.0, 0.0], vec![0.5, 1.0], vec![2.0, -3.0]];
        let svg = Raster { values: &values, cell: 4.0, row_axis: "r", col_axis: "c" }.to_svg();
        assert_eq!(svg.matches("<rect").count(), 1 + 6);
        assert_eq!(diverging(-1.0), "#2166ac");
        assert_eq!(diverging(0.0), "#ffffff");
        assert_eq!(diverging(1.0), "#b2182b");
        assert!(!svg.contains("\n\n"));
    }

    #[test]
    fn a_count_grid_marks_missing_cells() {
        let counts = vec![vec![Some(25), None]];
        let svg = CountGrid {
            row_labels: &["a"],
            col_labels: &["x", "y"],
            counts: &counts,
            row_axis: "r",
            col_axis: "c",
            max: 100,
        }
        .to_svg();
        assert!(svg.contains(">25<") && svg.contains(">—<") && svg.contains("#d9d9d9"));
    }
}

/// Curves on linear axes, with a horizontal line at y = 0 when the range
/// crosses it: quantities that change sign, such as a dot product.
#[derive(Clone, Debug)]
pub struct LinePlot<'a> {
    pub series: &'a [Series<'a>],
    pub x_label: &'a str,
    pub y_label: &'a str,
}

/// About six round tick values covering `[lo, hi]`.
fn ticks(lo: f64, hi: f64) -> Vec<f64> {
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
        writeln!(s, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w:.0} {h:.0}\" width=\"{w:.0}\" height=\"{h:.0}\" role=\"img\">").unwrap();
        writeln!(s, "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>").unwrap();
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
        let frame = Frame { w, h, left, right, top, bottom };
        frame.draw(&mut s, self.x_label, self.y_label, self.series.len());
        for (i, series) in self.series.iter().enumerate() {
            frame.curve(&mut s, i, series, series.points.iter().map(|&(a, b)| (x(a), y(b))));
        }
        s.push_str("</svg>\n");
        s
    }
}

#[cfg(test)]
mod line_tests {
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
}
