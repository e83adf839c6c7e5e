//! The layout shared by [`Heatmap`](super::Heatmap) and
//! [`CountGrid`](super::CountGrid): one labelled square per cell.

use std::fmt::Write as _;

use super::colour_bar::ColourBar;
use super::{FONT, escape};

/// The side of a cell; wide tables get narrower cells (down to
/// [`CELL_MIN`]) so that they fit a page column of about 750 pixels.
const CELL: f64 = 58.0;
const CELL_MIN: f64 = 36.0;
/// The colour bar is at least this tall, however few the rows.
const BAR_MIN: f64 = 116.0;

/// Labels on top and on the left, one square per cell, and the colour bar
/// on the right, darkest at its top; `cell(i, j)` gives a cell's fill, text
/// and ink.
pub(super) fn cells_svg(
    row_labels: &[&str],
    col_labels: &[&str],
    row_axis: &str,
    col_axis: &str,
    cell: impl Fn(usize, usize) -> (String, String, &'static str),
    bar: &ColourBar,
) -> String {
    let (rows, cols) = (row_labels.len(), col_labels.len());
    let cell_side = (640.0 / cols.max(1) as f64).clamp(CELL_MIN, CELL);
    let longest = row_labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    // room for the row labels, and for the rows' axis note above them
    let note = 12.0 + 6.6 * row_axis.chars().count() as f64;
    let left = (20.0 + 8.0 * longest as f64).max(note);
    let top = 58.0;
    let grid = cell_side * rows as f64;
    let bar_h = grid.max(BAR_MIN);
    let bar_x = left + cell_side * cols as f64 + 18.0;
    let width = bar_x + bar.width();
    let height = top + grid.max(bar_h + bar.below()) + 10.0;
    let mut s = super::open(width, height);
    writeln!(
        s,
        "<text x=\"{:.1}\" y=\"14\" {FONT} font-size=\"12\" fill=\"#555555\" text-anchor=\"middle\">{}</text>",
        left + cell_side * cols as f64 / 2.0,
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
            left + cell_side * (j as f64 + 0.5),
            top - 10.0,
            escape(label)
        )
        .unwrap();
    }
    for (i, label) in row_labels.iter().enumerate() {
        let y = top + cell_side * i as f64;
        writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" {FONT} font-size=\"13\" fill=\"#222222\" text-anchor=\"end\">{}</text>",
            left - 8.0,
            y + cell_side / 2.0 + 4.5,
            escape(label)
        )
        .unwrap();
        for j in 0..cols {
            let x = left + cell_side * j as f64;
            let (fill, text, ink) = cell(i, j);
            writeln!(
                s,
                "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{cell_side:.1}\" height=\"{cell_side:.1}\" fill=\"{fill}\" stroke=\"#ffffff\"/>"
            )
            .unwrap();
            writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" {FONT} font-size=\"13\" fill=\"{ink}\" text-anchor=\"middle\">{}</text>",
                x + cell_side / 2.0,
                y + cell_side / 2.0 + 4.5,
                escape(&text)
            )
            .unwrap();
        }
    }
    bar.draw(&mut s, bar_x, top, bar_h, |t| blues(1.0 - t));
    s.push_str("</svg>\n");
    s
}

/// A white-to-blue colour for `v` in `[0, 1]` (clamped).
pub(super) fn blues(v: f64) -> String {
    let t = v.clamp(0.0, 1.0);
    let mix = |lo: f64, hi: f64| (lo + (hi - lo) * t).round() as u8;
    format!("#{:02x}{:02x}{:02x}", mix(247.0, 8.0), mix(251.0, 48.0), mix(255.0, 107.0))
}
