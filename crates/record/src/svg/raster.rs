//! A large signed matrix drawn as small unlabelled cells.

use std::fmt::Write as _;

use super::{FONT, escape};

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
mod tests {
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
}
