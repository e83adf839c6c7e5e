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

const CELL: f64 = 58.0;
const FONT: &str = "font-family=\"sans-serif\"";

impl Heatmap<'_> {
    /// The figure as an SVG document with no blank lines (so it can be
    /// inlined in a Markdown page).
    #[track_caller]
    pub fn to_svg(&self) -> String {
        let (rows, cols) = (self.row_labels.len(), self.col_labels.len());
        assert_eq!(self.values.len(), rows, "heatmap: {rows} row labels");
        assert!(self.values.iter().all(|r| r.len() == cols), "heatmap: {cols} column labels");
        let longest = self.row_labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
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
            escape(self.col_axis)
        )
        .unwrap();
        writeln!(
            s,
            "<text x=\"4\" y=\"{:.1}\" {FONT} font-size=\"12\" fill=\"#555555\">{}</text>",
            top - 8.0,
            escape(self.row_axis)
        )
        .unwrap();
        for (j, label) in self.col_labels.iter().enumerate() {
            writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" {FONT} font-size=\"13\" fill=\"#222222\" text-anchor=\"middle\">{}</text>",
                left + CELL * (j as f64 + 0.5),
                top - 10.0,
                escape(label)
            )
            .unwrap();
        }
        for (i, label) in self.row_labels.iter().enumerate() {
            let y = top + CELL * i as f64;
            writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" {FONT} font-size=\"13\" fill=\"#222222\" text-anchor=\"end\">{}</text>",
                left - 8.0,
                y + CELL / 2.0 + 4.5,
                escape(label)
            )
            .unwrap();
            for (j, &v) in self.values[i].iter().enumerate() {
                let x = left + CELL * j as f64;
                let ink = if v > 0.55 { "#ffffff" } else { "#111111" };
                writeln!(
                    s,
                    "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{CELL:.1}\" height=\"{CELL:.1}\" fill=\"{}\" stroke=\"#ffffff\"/>",
                    blues(v)
                )
                .unwrap();
                writeln!(
                    s,
                    "<text x=\"{:.1}\" y=\"{:.1}\" {FONT} font-size=\"13\" fill=\"{ink}\" text-anchor=\"middle\">{:.*}</text>",
                    x + CELL / 2.0,
                    y + CELL / 2.0 + 4.5,
                    self.decimals,
                    v
                )
                .unwrap();
            }
        }
        s.push_str("</svg>\n");
        s
    }
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
