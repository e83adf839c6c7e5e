//! Row-wise softmax, plain and with a keep-mask.
//!
//! `softmax(s)_j = exp(s_j − max s) / Σ_l exp(s_l − max s)`: subtracting the
//! row maximum changes nothing mathematically (it cancels between numerator
//! and denominator) and keeps `exp` from overflowing when scores are large.
//!
//! Masks follow the lectures' convention: **1 = keep** (this position may be
//! looked at), 0 = drop. A dropped position gets weight exactly 0. A row in
//! which *every* position is dropped gets weight 0 everywhere — never NaN —
//! so its attention output is the zero vector.

use faer::{Mat, MatRef};

/// Softmax of every row of `scores`.
pub fn softmax_rows(scores: MatRef<'_, f64>) -> Mat<f64> {
    softmax_rows_masked(scores, None)
}

// ANCHOR: softmax_rows_masked
/// Softmax of every row of `scores`, over the positions where `keep` is 1.
#[track_caller]
pub fn softmax_rows_masked(scores: MatRef<'_, f64>, keep: Option<MatRef<'_, f64>>) -> Mat<f64> {
    let (rows, cols) = (scores.nrows(), scores.ncols());
    if let Some(keep) = keep {
        assert!(
            keep.nrows() == rows && keep.ncols() == cols,
            "softmax: scores are {rows}×{cols} but the mask is {}×{}",
            keep.nrows(),
            keep.ncols()
        );
    }
    let kept = |i: usize, j: usize| keep.is_none_or(|m| m[(i, j)] != 0.0);
    let mut probs = Mat::zeros(rows, cols);
    for i in 0..rows {
        let max = (0..cols)
            .filter(|&j| kept(i, j))
            .map(|j| scores[(i, j)])
            .fold(f64::NEG_INFINITY, f64::max);
        if max == f64::NEG_INFINITY {
            continue; // every position dropped: the row stays all zeros
        }
        let mut sum = 0.0;
        for j in (0..cols).filter(|&j| kept(i, j)) {
            let e = libm::exp(scores[(i, j)] - max);
            probs[(i, j)] = e;
            sum += e;
        }
        for j in 0..cols {
            probs[(i, j)] /= sum;
        }
    }
    probs
}
// ANCHOR_END: softmax_rows_masked

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mat;

    #[test]
    fn a_row_by_hand() {
        // softmax(0, ln 3) = (1/4, 3/4)
        let p = softmax_rows(mat(&[[0.0, 3f64.ln()]]).as_ref());
        assert!((p[(0, 0)] - 0.25).abs() < 1e-15 && (p[(0, 1)] - 0.75).abs() < 1e-15);
    }

    #[test]
    fn large_scores_do_not_overflow() {
        let p = softmax_rows(mat(&[[1000.0, 1000.0]]).as_ref());
        assert_eq!((p[(0, 0)], p[(0, 1)]), (0.5, 0.5));
    }

    #[test]
    fn dropped_positions_get_exactly_zero_and_a_dropped_row_is_not_nan() {
        let s = mat(&[[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]);
        let keep = mat(&[[1.0, 1.0, 0.0], [0.0, 0.0, 0.0]]);
        let p = softmax_rows_masked(s.as_ref(), Some(keep.as_ref()));
        let unmasked = softmax_rows(mat(&[[1.0, 2.0]]).as_ref());
        assert_eq!(p[(0, 0)], unmasked[(0, 0)]);
        assert_eq!(p[(0, 2)], 0.0);
        assert!((0..3).all(|j| p[(1, j)] == 0.0));
    }
}
