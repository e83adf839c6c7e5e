//! Small helpers for building and multiplying matrices.
//!
//! All products go through [`matmul`] (or [`matmul_t`]), which runs faer's
//! kernel sequentially: for the book's small matrices that is the fastest
//! choice, and it gives the same bits as any parallel split.

use faer::linalg::matmul::matmul as faer_matmul;
use faer::{Accum, Mat, MatRef, Par};

/// A matrix from rows written out by hand: `mat(&[[1.0, 0.0], [0.0, 1.0]])`.
pub fn mat<const C: usize>(rows: &[[f64; C]]) -> Mat<f64> {
    Mat::from_fn(rows.len(), C, |i, j| rows[i][j])
}

/// The largest absolute difference between two matrices of one shape:
/// how far apart two implementations of the same thing came out. NaN if
/// either holds a NaN, so that no tolerance is met by accident.
#[track_caller]
pub fn max_diff(a: &Mat<f64>, b: &Mat<f64>) -> f64 {
    assert_eq!((a.nrows(), a.ncols()), (b.nrows(), b.ncols()), "max_diff: shapes differ");
    let mut worst: f64 = 0.0;
    for j in 0..a.ncols() {
        for i in 0..a.nrows() {
            worst = worse(worst, (a[(i, j)] - b[(i, j)]).abs());
        }
    }
    worst
}

/// The larger of two differences, and NaN if either is NaN — where `f64::max`
/// would quietly return the other one.
pub fn worse(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() { f64::NAN } else { a.max(b) }
}

/// The index of the largest value — greedy decoding's choice, and every
/// "which key won" of the book. A tie goes to the lowest index, so the
/// choice never depends on how a loop happens to run. Values compare in
/// IEEE total order: a NaN counts as larger than any number, so a broken
/// score is chosen (and shows) rather than skipped. `None` when empty.
pub fn argmax(xs: impl IntoIterator<Item = f64>) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, x) in xs.into_iter().enumerate() {
        if best.is_none_or(|(_, b)| x.total_cmp(&b).is_gt()) {
            best = Some((i, x));
        }
    }
    best.map(|(i, _)| i)
}

/// `A · B`.
#[track_caller]
pub fn matmul(a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> Mat<f64> {
    assert_eq!(
        a.ncols(),
        b.nrows(),
        "matmul: lhs is {}×{}, rhs is {}×{}",
        a.nrows(),
        a.ncols(),
        b.nrows(),
        b.ncols()
    );
    let mut c = Mat::zeros(a.nrows(), b.ncols());
    faer_matmul(c.as_mut(), Accum::Replace, a, b, 1.0, Par::Seq);
    c
}

/// `A · Bᵀ` — the shape of every score matrix `Q·Kᵀ`. The transpose is a
/// free view; no copy is made.
#[track_caller]
pub fn matmul_t(a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> Mat<f64> {
    assert_eq!(
        a.ncols(),
        b.ncols(),
        "matmul_t: lhs is {}×{}, rhs (before transposing) is {}×{}",
        a.nrows(),
        a.ncols(),
        b.nrows(),
        b.ncols()
    );
    matmul(a, b.transpose())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argmax_takes_the_first_of_a_tie_and_does_not_skip_nan() {
        assert_eq!(argmax([0.1, 0.7, 0.2, 0.7]), Some(1));
        assert_eq!(argmax([-0.0, 0.0]), Some(1), "total order: −0 < +0");
        assert_eq!(argmax([3.0, f64::NAN, 9.0]), Some(1));
        assert_eq!(argmax([f64::NEG_INFINITY; 3]), Some(0));
        assert_eq!(argmax(std::iter::empty()), None);
    }

    #[test]
    fn products_by_hand() {
        let a = mat(&[[1.0, 2.0], [3.0, 4.0]]);
        let b = mat(&[[5.0, 6.0], [7.0, 8.0]]);
        let ab = matmul(a.as_ref(), b.as_ref());
        assert_eq!(ab, mat(&[[19.0, 22.0], [43.0, 50.0]]));
        let abt = matmul_t(a.as_ref(), b.as_ref());
        assert_eq!(abt, mat(&[[17.0, 23.0], [39.0, 53.0]]));
    }

    #[test]
    #[should_panic(expected = "matmul: lhs is 2×2, rhs is 3×1")]
    fn shape_errors_name_both_shapes() {
        let a = Mat::<f64>::zeros(2, 2);
        let b = Mat::<f64>::zeros(3, 1);
        let _ = matmul(a.as_ref(), b.as_ref());
    }
}
