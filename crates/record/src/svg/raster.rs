//! A large signed matrix drawn as small unlabelled cells.

use std::fmt::Write as _;

use super::colour_bar::ColourBar;
use super::{FONT, escape};

/// A large matrix of numbers in `[−1, 1]` drawn as small coloured cells
/// (blue negative, white zero, red positive), without a label per cell,
/// and a colour bar over `range`: positional encodings, for instance.
#[derive(Clone, Debug)]
pub struct Raster<'a> {
    /// `values[i][j]`: row `i` drawn top to bottom, column `j` left to right.
    pub values: &'a [Vec<f64>],
    /// Side of one cell in pixels.
    pub cell: f64,
    /// What the rows are, e.g. "position ↓", and the columns.
    pub row_axis: &'a str,
    pub col_axis: &'a str,
    /// The part of `[−1, 1]` the colour bar shows: `(−1, 1)` for signed
    /// values, `(0, 1)` for weights.
    pub range: (f64, f64),
    /// What the colours mean, over the colour bar, e.g. "value".
    pub legend: &'a str,
}

impl Raster<'_> {
    /// The figure as an SVG document with no blank lines.
    #[track_caller]
    pub fn to_svg(&self) -> String {
        let rows = self.values.len();
        let cols = self.values.first().map_or(0, Vec::len);
        assert!(self.values.iter().all(|r| r.len() == cols), "raster: ragged rows");
        let (lo, hi) = self.range;
        assert!(-1.0 <= lo && lo < hi && hi <= 1.0, "raster: range within [−1, 1]");
        let mut ticks = vec![(0.0, crate::show::short(hi)), (1.0, crate::show::short(lo))];
        if lo < 0.0 && hi > 0.0 {
            ticks.insert(1, (hi / (hi - lo), "0".to_string()));
        }
        let bar = ColourBar { title: self.legend, ticks, swatch: None };
        let (left, top) = (52.0, 44.0);
        let grid = self.cell * rows as f64;
        let bar_x = left + self.cell * cols as f64 + 18.0;
        let (w, h) = (bar_x + bar.width(), top + grid.max(116.0) + 8.0);
        let mut s = super::open(w, h);
        writeln!(
            s,
            "<text x=\"{left:.1}\" y=\"14\" {FONT} font-size=\"12\" fill=\"#555555\">{}</text>",
            escape(self.col_axis)
        )
        .unwrap();
        writeln!(s, "<text x=\"14\" y=\"{top:.1}\" {FONT} font-size=\"12\" fill=\"#555555\" transform=\"rotate(90 14 {top:.1})\">{}</text>", escape(self.row_axis)).unwrap();
        // index ticks at round numbers, on each cell's centre
        for j in index_ticks(cols) {
            let x = left + self.cell * (j as f64 + 0.5);
            writeln!(s, "<line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{top:.1}\" stroke=\"#444444\"/>", top - 4.0).unwrap();
            writeln!(s, "<text x=\"{x:.1}\" y=\"{:.1}\" {FONT} font-size=\"11\" fill=\"#444444\" text-anchor=\"middle\">{}</text>", top - 7.0, j).unwrap();
        }
        for i in index_ticks(rows) {
            let y = top + self.cell * (i as f64 + 0.5);
            writeln!(s, "<line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{left:.1}\" y2=\"{y:.1}\" stroke=\"#444444\"/>", left - 4.0).unwrap();
            writeln!(s, "<text x=\"{:.1}\" y=\"{:.1}\" {FONT} font-size=\"11\" fill=\"#444444\" text-anchor=\"end\">{}</text>", left - 7.0, y + 4.0, i).unwrap();
        }
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
        bar.draw(&mut s, bar_x, top, grid.max(116.0), |t| diverging(hi - t * (hi - lo)));
        s.push_str("</svg>\n");
        s
    }
}

/// Indices `0, step, 2·step, … < n` with a round step (1, 2, 5, 10, 20, …)
/// that leaves at most 8 ticks.
fn index_ticks(n: usize) -> Vec<usize> {
    let step = [1, 2, 5].iter().flat_map(|&m| (0..6).map(move |e| m * 10usize.pow(e)));
    let mut steps: Vec<usize> = step.collect();
    steps.sort_unstable();
    let step = steps.into_iter().find(|&s| n.div_ceil(s) <= 8).unwrap_or(n.max(1));
    (0..n).step_by(step).collect()
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
mod tests {
    use super::*;

    #[test]
    fn a_raster_has_one_cell_per_value_and_a_diverging_scale() {
        let values = vec![vec![-1.0, 0.0], vec![0.5, 1.0], vec![2.0, -3.0]];
        let svg = Raster {
            values: &values,
            cell: 4.0,
            row_axis: "r",
            col_axis: "c",
            range: (-1.0, 1.0),
            legend: "value",
        }
        .to_svg();
        // the background, 6 cells, the bar's 40 bands and its outline
        assert_eq!(svg.matches("<rect").count(), 1 + 6 + 40 + 1);
        assert!(svg.contains(">-1<"));
        assert!(svg.contains(">0<") && svg.contains(">value<"));
        // index ticks: columns 0 and 1, rows 0, 1 and 2
        assert_eq!(svg.matches("<line").count(), 3 /* bar ticks */ + 2 + 3, "{svg}");
        assert_eq!(diverging(-1.0), "#2166ac");
        assert_eq!(diverging(0.0), "#ffffff");
        assert_eq!(diverging(1.0), "#b2182b");
        assert!(!svg.contains("\n\n"));
        assert_eq!(index_ticks(100), [0, 20, 40, 60, 80]);
        assert_eq!(index_ticks(64), [0, 10, 20, 30, 40, 50, 60]);
        assert_eq!(index_ticks(20), [0, 5, 10, 15]);
        assert_eq!(index_ticks(3), [0, 1, 2]);
    }
}
