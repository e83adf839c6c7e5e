//! Scaled dot-product attention — Lecture 17 §2–§3, Lecture 6 §2.
//!
//! ```text
//! Attention(Q, K, V) = softmax(Q·Kᵀ / √d_k) · V
//! ```
//!
//! Row *i* of `Q` is the question word *i* asks, row *j* of `K` the label
//! word *j* answers to, row *j* of `V` the content it hands over. Scores are
//! dot products of questions with labels; the division by `√d_k` keeps their
//! spread independent of `d_k` (chapter 04); the softmax turns each row into
//! weights; the output row is the weighted average of the contents.

use faer::{Mat, MatRef};

use crate::{matmul, matmul_t, softmax_rows_masked};

/// What one attention call produces: the weights are kept for inspection.
#[derive(Clone, Debug)]
pub struct Attention {
    /// `Q·Kᵀ/√d_k`, before the mask — shape (n_q, n_k).
    pub scores: Mat<f64>,
    /// Softmax of each row over the kept positions — shape (n_q, n_k).
    pub weights: Mat<f64>,
    /// `weights · V` — shape (n_q, d_v).
    pub output: Mat<f64>,
}

// ANCHOR: scaled_dot_product_attention
/// `softmax(Q·Kᵀ/√d_k + mask)·V` with an optional keep-mask (1 = keep).
///
/// A query row whose every key is masked gets zero weights and a zero
/// output (see [`crate::softmax`]).
#[track_caller]
pub fn scaled_dot_product_attention(
    q: MatRef<'_, f64>,
    k: MatRef<'_, f64>,
    v: MatRef<'_, f64>,
    keep: Option<MatRef<'_, f64>>,
) -> Attention {
    assert_eq!(
        q.ncols(),
        k.ncols(),
        "attention: queries have d_k = {} but keys have d_k = {}",
        q.ncols(),
        k.ncols()
    );
    assert_eq!(k.nrows(), v.nrows(), "attention: {} keys but {} values", k.nrows(), v.nrows());
    let d_k = q.ncols() as f64;
    let mut scores = matmul_t(q, k); // (n_q, n_k)
    scores *= faer::Scale(1.0 / d_k.sqrt());
    let weights = softmax_rows_masked(scores.as_ref(), keep); // (n_q, n_k)
    let output = matmul(weights.as_ref(), v); // (n_q, d_v)
    Attention { scores, weights, output }
}
// ANCHOR_END: scaled_dot_product_attention

/// The same computation one query at a time, with loops only: the reference
/// the matrix form is checked against.
pub fn attention_by_loops(q: MatRef<'_, f64>, k: MatRef<'_, f64>, v: MatRef<'_, f64>) -> Mat<f64> {
    let (n_q, n_k, d_k, d_v) = (q.nrows(), k.nrows(), q.ncols(), v.ncols());
    let mut out = Mat::zeros(n_q, d_v);
    for i in 0..n_q {
        let scores: Vec<f64> = (0..n_k)
            .map(|j| (0..d_k).map(|c| q[(i, c)] * k[(j, c)]).sum::<f64>() / (d_k as f64).sqrt())
            .collect();
        let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let exps: Vec<f64> = scores.iter().map(|s| libm::exp(s - max)).collect();
        let total: f64 = exps.iter().sum();
        for j in 0..n_k {
            for c in 0..d_v {
                out[(i, c)] += exps[j] / total * v[(j, c)];
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mat;

    #[test]
    fn a_query_orthogonal_to_every_key_averages_the_values() {
        let q = mat(&[[0.0, 0.0, 2.0]]);
        let k = mat(&[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
        let v = mat(&[[1.0, 0.0], [0.0, 1.0]]);
        let a = scaled_dot_product_attention(q.as_ref(), k.as_ref(), v.as_ref(), None);
        assert_eq!((a.output[(0, 0)], a.output[(0, 1)]), (0.5, 0.5));
    }

    #[test]
    fn matrix_form_equals_loops() {
        let q = Mat::from_fn(5, 4, |i, j| ((i * 7 + j * 3) % 5) as f64 - 2.0);
        let k = Mat::from_fn(6, 4, |i, j| ((i * 2 + j * 5) % 7) as f64 * 0.3);
        let v = Mat::from_fn(6, 3, |i, j| (i as f64) - (j as f64) * 0.5);
        let a = scaled_dot_product_attention(q.as_ref(), k.as_ref(), v.as_ref(), None);
        let b = attention_by_loops(q.as_ref(), k.as_ref(), v.as_ref());
        let diff = (0..5)
            .flat_map(|i| (0..3).map(move |j| (i, j)))
            .map(|(i, j)| (a.output[(i, j)] - b[(i, j)]).abs())
            .fold(0.0, crate::worse);
        assert!(diff < 1e-14, "max difference {diff}");
    }

    #[test]
    #[should_panic(expected = "attention: queries have d_k = 3 but keys have d_k = 2")]
    fn mismatched_d_k_is_named() {
        let q = Mat::<f64>::zeros(1, 3);
        let k = Mat::<f64>::zeros(2, 2);
        let _ = scaled_dot_product_attention(q.as_ref(), k.as_ref(), k.as_ref(), None);
    }
}
