//! A small matrix of numbers in `[0, max]`, every cell coloured and labelled.

use super::cells::{blues, cells_svg};
use super::colour_bar::ColourBar;

/// A matrix of numbers in `[0, max]` drawn as coloured cells, each labelled
/// with its value, with a colour bar from 0 to `max`: attention weights
/// (`max` = 1), for instance.
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
    /// Decimals printed in each cell and on the colour bar.
    pub decimals: usize,
    /// The value drawn darkest (1 for weights); 0 is drawn white.
    pub max: f64,
    /// What the colours mean, over the colour bar, e.g. "weight".
    pub legend: &'a str,
}

/// The grey of an exact zero, when zeros are marked.
const ZERO: &str = "#d9d9d9";

impl Heatmap<'_> {
    /// The figure as an SVG document with no blank lines (so it can be
    /// inlined in a Markdown page).
    #[track_caller]
    pub fn to_svg(&self) -> String {
        self.draw(None)
    }

    /// The same figure with every cell that is exactly 0 drawn grey, and a
    /// grey swatch labelled `label` (e.g. "exactly 0") under the colour bar.
    /// On the linear scale a 0 is white and a value a few per cent of `max`
    /// nearly so; where a zero is the point of the figure (a mask, an exact
    /// derivative), this tells the two apart.
    #[track_caller]
    pub fn to_svg_marking_zeros(&self, label: &str) -> String {
        self.draw(Some(label))
    }

    #[track_caller]
    fn draw(&self, zeros: Option<&str>) -> String {
        let (rows, cols) = (self.row_labels.len(), self.col_labels.len());
        assert_eq!(self.values.len(), rows, "heatmap: {rows} row labels");
        assert!(self.values.iter().all(|r| r.len() == cols), "heatmap: {cols} column labels");
        assert!(self.max > 0.0, "heatmap: max must be positive");
        let tick = |v: f64| format!("{:.*}", self.decimals, v);
        let bar = ColourBar {
            title: self.legend,
            ticks: vec![(0.0, tick(self.max)), (0.5, tick(self.max / 2.0)), (1.0, tick(0.0))],
            swatch: zeros.map(|label| (ZERO, label)),
        };
        let cell = |i: usize, j: usize| {
            let v = self.values[i][j];
            if zeros.is_some() && v == 0.0 {
                return (ZERO.to_string(), tick(v), "#555555");
            }
            let ink = if v / self.max > 0.55 { "#ffffff" } else { "#111111" };
            (blues(v / self.max), tick(v), ink)
        };
        cells_svg(self.row_labels, self.col_labels, self.row_axis, self.col_axis, cell, &bar)
    }
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
            max: 1.0,
            legend: "weight",
        }
        .to_svg();
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        // 4 cells, the bar's 40 bands and its outline
        assert_eq!(svg.matches("<rect x=").count(), 4 + 40 + 1);
        assert!(svg.contains(">weight</text>") && svg.contains(">0.50</text>"));
        assert!(svg.contains(">0.75</text>") && svg.contains("y&lt;z"));
        assert!(!svg.contains("\n\n"), "no blank lines: the page inlines it");
        assert_eq!(blues(0.0), "#f7fbff");
        assert_eq!(blues(1.0), "#08306b");
    }

    #[test]
    fn exact_zeros_can_be_marked_and_are_not_by_default() {
        let values = vec![vec![0.0, 0.03], vec![1.0, 0.0]];
        let map = Heatmap {
            row_labels: &["a", "b"],
            col_labels: &["x", "y"],
            values: &values,
            row_axis: "out",
            col_axis: "in",
            decimals: 2,
            max: 1.0,
            legend: "norm",
        };
        let plain = map.to_svg();
        assert!(!plain.contains(ZERO), "the default draws a zero white");
        let marked = map.to_svg_marking_zeros("exactly 0");
        // two grey cells and the swatch; 0.03 stays on the blue scale
        assert_eq!(marked.matches(&format!("fill=\"{ZERO}\"")).count(), 3);
        assert!(marked.contains(">exactly 0</text>"));
        assert!(marked.contains(&format!("fill=\"{}\"", blues(0.03))));
    }
}
