//! Random initial values, drawn from `rand_pcg` in a fixed order, with
//! `ln`, `sqrt`, `cos` from `libm`: the same numbers on every machine.

use faer::Mat;
use rand::RngExt;

use crate::Real;

/// Entries uniform in `[−bound, bound)`, drawn row by row.
pub fn uniform<T: Real>(
    rows: usize,
    cols: usize,
    bound: f64,
    rng: &mut (impl rand::Rng + ?Sized),
) -> Mat<T> {
    let draws: Vec<f64> = (0..rows * cols).map(|_| rng.random_range(-bound..bound)).collect();
    Mat::from_fn(rows, cols, |i, j| T::of(draws[i * cols + j]))
}

/// Entries `N(0, std²)`, drawn row by row (Box–Muller).
pub fn normal<T: Real>(
    rows: usize,
    cols: usize,
    std: f64,
    rng: &mut (impl rand::Rng + ?Sized),
) -> Mat<T> {
    let mut draws = Vec::with_capacity(rows * cols + 1);
    while draws.len() < rows * cols {
        let u1: f64 = 1.0 - rng.random::<f64>(); // (0, 1]: ln is finite
        let u2: f64 = rng.random::<f64>();
        let r = libm::sqrt(-2.0 * libm::log(u1));
        let t = 2.0 * std::f64::consts::PI * u2;
        draws.push(r * libm::cos(t));
        draws.push(r * libm::sin(t));
    }
    Mat::from_fn(rows, cols, |i, j| T::of(std * draws[i * cols + j]))
}

/// A matrix of one value.
pub fn constant<T: Real>(rows: usize, cols: usize, value: f64) -> Mat<T> {
    Mat::from_fn(rows, cols, |_, _| T::of(value))
}
