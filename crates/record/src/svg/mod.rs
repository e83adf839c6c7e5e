//! Figures as plain SVG text, drawn from a chapter's own numbers — one
//! figure kind per file.
//!
//! Hand-written SVG keeps figures byte-for-byte reproducible (no font
//! metrics, no rasteriser), small enough to pin as snapshots, and readable
//! in a diff. Every number in a figure is formatted with a fixed number of
//! decimals, so the figure is as deterministic as the printed output.
//!
//! | kind | for |
//! | --- | --- |
//! | [`Heatmap`] | a small matrix in `[0, max]`, each cell labelled (attention weights) |
//! | [`CountGrid`] | counts where "never" is an answer (steps to a target) |
//! | [`Raster`] | a large signed matrix, unlabelled cells (encodings) |
//! | [`LogPlot`] | curves spanning decades (sensitivities, losses) |
//! | [`LinePlot`] | signed curves on linear axes (dot products) |
//!
//! The three cell figures carry a colour bar; the plots, ticks and a legend.

mod cells;
mod colour_bar;
mod count_grid;
mod frame;
mod heatmap;
mod line_plot;
mod log_plot;
mod raster;

pub use count_grid::CountGrid;
pub use frame::Series;
pub use heatmap::Heatmap;
pub use line_plot::LinePlot;
pub use log_plot::LogPlot;
pub use raster::Raster;

const FONT: &str = "font-family=\"sans-serif\"";

/// The opening of a `w` × `h` figure: the `<svg>` tag and a white
/// background.
fn open(w: f64, h: f64) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w:.0} {h:.0}\" width=\"{w:.0}\" height=\"{h:.0}\" role=\"img\">\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
    )
}

/// Escape text for SVG.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}
