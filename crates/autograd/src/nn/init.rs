//! Random initial values: the `blocks` crate's draws (one definition for
//! both sides of the book), rounded to the tape's number type.

use faer::Mat;

use crate::Real;

fn rounded<T: Real>(m: Mat<f64>) -> Mat<T> {
    Mat::from_fn(m.nrows(), m.ncols(), |i, j| T::of(m[(i, j)]))
}

/// Entries uniform in `[−bound, bound)`, drawn row by row.
pub fn uniform<T: Real>(
    rows: usize,
    cols: usize,
    bound: f64,
    rng: &mut (impl rand::Rng + ?Sized),
) -> Mat<T> {
    rounded(blocks::init::uniform(rows, cols, bound, rng))
}

/// Entries `N(0, std²)`, drawn row by row (Box–Muller).
pub fn normal<T: Real>(
    rows: usize,
    cols: usize,
    std: f64,
    rng: &mut (impl rand::Rng + ?Sized),
) -> Mat<T> {
    rounded(blocks::init::normal(rows, cols, std, rng))
}

/// A matrix of one value.
pub fn constant<T: Real>(rows: usize, cols: usize, value: f64) -> Mat<T> {
    rounded(blocks::init::constant(rows, cols, value))
}
