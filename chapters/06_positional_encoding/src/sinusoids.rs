//! Lecture 17 demo 03.1 and Lecture 6 02.1 — the paper's sinusoids: a clock
//! with d/2 hands turning at geometric speeds.

pub use blocks::layers::encoding;
use blocks::matmul_t;
use faer::Mat;
use record::svg::Raster;
use record::{Notebook, say, show};

/// The angular speed of pair `i`: ω_i = 1 / 10000^{2i/d}.
pub fn omega(i: usize, d: usize) -> f64 {
    1.0 / libm::pow(10_000.0, 2.0 * i as f64 / d as f64)
}

/// PE of each position, one row each: (positions, d).
pub fn table(positions: impl IntoIterator<Item = f64>, d: usize) -> Mat<f64> {
    let rows: Vec<Vec<f64>> = positions.into_iter().map(|p| encoding(p, d)).collect();
    Mat::from_fn(rows.len(), d, |r, c| rows[r][c])
}

/// ‖x‖, summed in order.
pub fn norm(x: impl IntoIterator<Item = f64>) -> f64 {
    x.into_iter().map(|v| v * v).sum::<f64>().sqrt()
}

/// A wavelength as printed: one decimal below 1000 positions, whole and
/// grouped above.
fn wavelength(lambda: f64) -> String {
    if lambda < 1000.0 { show::num(lambda, 1) } else { show::grouped(lambda.round() as usize) }
}

// ANCHOR: sinusoids
/// The hands of the clock for d_model = `d`: speeds and wavelengths of some
/// pairs, the length of every PE(pos), and the picture.
pub fn sinusoids(d: usize, nb: &mut Notebook) {
    nb.demo("sinusoids", "L17 03.1 · The sinusoids: wavelengths, lengths, the picture");
    let last = d / 2 - 1;
    let mut pairs: Vec<usize> = [0, 1, 2, 4, 8, 16, 24].into_iter().filter(|&i| i < last).collect();
    pairs.push(last);
    say!(nb, "d_model = {d}: pair i holds dimensions 2i and 2i+1, ω_i = 1/10000^(2i/d)");
    say!(nb, "{:>5} {:>12} {:>12} {:>22}", "pair", "dimensions", "ω_i", "wavelength 2π/ω_i");
    for &i in &pairs {
        let lambda = 2.0 * std::f64::consts::PI / omega(i, d);
        let shown = match i {
            0 => nb.value("wavelength_first", wavelength(lambda)),
            i if i == last => nb.value("wavelength_last", wavelength(lambda)),
            _ => wavelength(lambda),
        };
        let dims = format!("{}, {}", 2 * i, 2 * i + 1);
        say!(nb, "{i:>5} {dims:>12} {:>12} {shown:>13} positions", show::sci(omega(i, d), 2));
    }

    let pe = table((0..200).map(f64::from), d); // (200, d)
    let norms: Vec<f64> = (0..200).map(|p| norm(pe.row(p).iter().copied())).collect();
    let lo =
        nb.value("norm_min", show::num(norms.iter().copied().fold(f64::INFINITY, f64::min), 4));
    let hi = nb.value("norm_max", show::num(norms.iter().copied().fold(0.0, f64::max), 4));
    let root = nb.value("norm_formula", show::num((d as f64 / 2.0).sqrt(), 4));
    say!(nb, "‖PE(pos)‖ over positions 0..199: from {lo} to {hi}; √(d/2) = {root}");
    let largest = (0..200).flat_map(|p| pe.row(p).iter().copied()).fold(0.0, |m, v| v.abs().max(m));
    say!(nb, "largest |entry|: {} — every entry lies in [−1, 1]", show::num(largest, 4));

    let rows: Vec<Vec<f64>> = (0..100).map(|p| pe.row(p).iter().copied().collect()).collect();
    let figure = Raster {
        values: &rows,
        cell: 4.0,
        row_axis: "position 0 … 99 ↓",
        col_axis: "dimension 0 … d−1 →",
        range: (-1.0, 1.0),
        legend: "PE value",
    };
    nb.figure("encoding", figure.to_svg());
}
// ANCHOR_END: sinusoids

// ANCHOR: d512_facts
/// Lecture 6's facts for d = 512 over the first `n` positions (2,048 in
/// the lecture): the slowest hand, and that no two positions share an
/// encoding.
pub fn d512_facts(n: usize, nb: &mut Notebook) {
    nb.demo("d512_facts", "L6 02.1 · d = 512: every position has its own encoding");
    let d = 512;
    let fast = 2.0 * std::f64::consts::PI / omega(0, d);
    let slow = 2.0 * std::f64::consts::PI / omega(d / 2 - 1, d);
    let fast = nb.value("d512_fastest", wavelength(fast));
    let slow = nb.value("d512_slowest", wavelength(slow));
    say!(nb, "wavelengths from {fast} (pair 0) to {slow} positions (pair {})", d / 2 - 1);
    let pe = table((0..n).map(|p| p as f64), d); // (n, 512)
    let gram = matmul_t(pe.as_ref(), pe.as_ref()); // (n, n): PE(i)·PE(j)
    // ‖PE(i) − PE(j)‖² = ‖PE(i)‖² + ‖PE(j)‖² − 2 PE(i)·PE(j)
    let dist =
        |i: usize, j: usize| (gram[(i, i)] + gram[(j, j)] - 2.0 * gram[(i, j)]).max(0.0).sqrt();
    let mut closest = (f64::INFINITY, 0, 0);
    let mut adjacent = 0;
    for i in 0..n {
        let mut nearest = (f64::INFINITY, i);
        for j in (0..n).filter(|&j| j != i) {
            let dij = dist(i, j);
            if dij < nearest.0 {
                nearest = (dij, j);
            }
            if j > i && dij < closest.0 {
                closest = (dij, i, j);
            }
        }
        if nearest.1.abs_diff(i) == 1 {
            adjacent += 1;
        }
    }
    let min = nb.value("d512_min_distance", show::num(closest.0, 3));
    say!(
        nb,
        "smallest distance between two of the first {n} positions: {min} (positions {} and {})",
        closest.1,
        closest.2
    );
    let adjacent = nb.value("d512_adjacent", format!("{adjacent}/{n}"));
    say!(nb, "positions whose nearest neighbour is an adjacent position: {adjacent}");
}
// ANCHOR_END: d512_facts
