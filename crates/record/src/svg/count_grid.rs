//! A table of counts where "never" is a possible answer.

use super::cells::{blues, cells_svg};
use super::colour_bar::ColourBar;

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
    /// What the counts are, over the colour bar, e.g. "steps".
    pub legend: &'a str,
    /// What a missing entry means, beside its grey swatch, e.g. "never".
    pub missing: &'a str,
}

/// The grey of a missing entry.
const MISSING: &str = "#d9d9d9";

impl CountGrid<'_> {
    /// The figure as an SVG document with no blank lines.
    #[track_caller]
    pub fn to_svg(&self) -> String {
        let (rows, cols) = (self.row_labels.len(), self.col_labels.len());
        assert_eq!(self.counts.len(), rows, "grid: {rows} row labels");
        assert!(self.counts.iter().all(|r| r.len() == cols), "grid: {cols} column labels");
        assert!(self.max > 0, "grid: max must be positive");
        let bar = ColourBar {
            title: self.legend,
            ticks: vec![
                (0.0, "0".to_string()),
                (0.5, (self.max / 2).to_string()),
                (1.0, self.max.to_string()),
            ],
            swatch: Some((MISSING, self.missing)),
        };
        let cell = |i: usize, j: usize| match self.counts[i][j] {
            Some(n) => {
                let v = 1.0 - n as f64 / self.max as f64;
                let ink = if v > 0.55 { "#ffffff" } else { "#111111" };
                (blues(v), n.to_string(), ink)
            }
            None => (MISSING.to_string(), "—".to_string(), "#555555"),
        };
        cells_svg(self.row_labels, self.col_labels, self.row_axis, self.col_axis, cell, &bar)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            legend: "steps",
            missing: "never",
        }
        .to_svg();
        assert!(svg.contains(">25<") && svg.contains(">—<") && svg.contains("#d9d9d9"));
        assert!(svg.contains(">steps<") && svg.contains(">never<") && svg.contains(">50<"));
    }
}
