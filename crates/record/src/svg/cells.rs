//! The layout shared by [`Heatmap`](super::Heatmap) and
//! [`CountGrid`](super::CountGrid): one labelled square per cell.

use std::fmt::Write as _;

use super::{FONT, escape};

const CELL: f64 = 58.0;

/// Labels on top and on the left, one square per cell; `cell(i, j)` gives its fill, text and ink.
pub(super) fn cells_svg(
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
pub(super) fn blues(v: f64) -> String {
    let t = v.clamp(0.0, 1.0);
    let mix = |lo: f64, hi: f64| (lo + (hi - lo) * t).round() as u8;
    format!("#{:02x}{:02x}{:02x}", mix(247.0, 8.0), mix(251.0, 48.0), mix(255.0, 107.0))
}
