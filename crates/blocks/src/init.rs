//! Random initial values, drawn from `rand_pcg` in a fixed order, with
//! `ln`, `sqrt`, `cos`, `sin` from `libm`: the same numbers on every machine.
//! The autograd crate's initialisers are these, rounded to its number type.

use faer::Mat;
use rand::RngExt;

/// Entries uniform in `[−bound, bound)`, drawn row by row.
pub fn uniform(
    rows: usize,
    cols: usize,
    bound: f64,
    rng: &mut (impl rand::Rng + ?Sized),
) -> Mat<f64> {
    let draws: Vec<f64> = (0..rows * cols).map(|_| rng.random_range(-bound..bound)).collect();
    Mat::from_fn(rows, cols, |i, j| draws[i * cols + j])
}

/// Entries `N(0, std²)`, drawn row by row (Box–Muller).
pub fn normal(rows: usize, cols: usize, std: f64, rng: &mut (impl rand::Rng + ?Sized)) -> Mat<f64> {
    let mut draws = Vec::with_capacity(rows * cols + 1);
    while draws.len() < rows * cols {
        let u1: f64 = 1.0 - rng.random::<f64>(); // (0, 1]: ln is finite
        let u2: f64 = rng.random::<f64>();
        let r = libm::sqrt(-2.0 * libm::log(u1));
        let t = 2.0 * std::f64::consts::PI * u2;
        draws.push(r * libm::cos(t));
        draws.push(r * libm::sin(t));
    }
    Mat::from_fn(rows, cols, |i, j| std * draws[i * cols + j])
}

/// A matrix of one value.
pub fn constant(rows: usize, cols: usize, value: f64) -> Mat<f64> {
    Mat::from_fn(rows, cols, |_, _| value)
}
