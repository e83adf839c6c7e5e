//! Dropout with an explicit mask, so that a run can be reproduced exactly
//! and the same mask shown on the page.
//!
//! ```text
//! m_ij = 0 with probability p, else 1/(1 − p)
//! y = x ⊙ m              dx += dy ⊙ m
//! ```

use faer::Mat;
use rand::RngExt;

use super::{accumulate, zip_map};
use crate::{Real, Var};

// ANCHOR: dropout_mask
/// A dropout mask: each entry `0` with probability `p`, else `1/(1 − p)`
/// (so the expected value of `x ⊙ mask` is `x`).
pub fn dropout_mask<T: Real>(
    rows: usize,
    cols: usize,
    p: f64,
    rng: &mut (impl rand::Rng + ?Sized),
) -> Mat<T> {
    assert!((0.0..1.0).contains(&p), "dropout: p = {p} is not in [0, 1)");
    let keep = T::of(1.0 / (1.0 - p));
    // Draw in row-major order, so the mask does not depend on the layout.
    let draws: Vec<bool> = (0..rows * cols).map(|_| rng.random::<f64>() >= p).collect();
    Mat::from_fn(rows, cols, |i, j| if draws[i * cols + j] { keep } else { T::zero() })
}
// ANCHOR_END: dropout_mask

// ANCHOR: dropout_op
impl<'t, T: Real> Var<'t, T> {
    /// `self ⊙ mask`, with a mask from [`dropout_mask`].
    #[track_caller]
    pub fn dropout(self, mask: Mat<T>) -> Var<'t, T> {
        let a_id = self.id;
        let out = {
            let x = self.value();
            super::same_shape("dropout", &x, &mask);
            zip_map(&x, &mask, |a, m| a * m)
        };
        self.tape.push(out, &[a_id], move |b, dout| {
            accumulate(b.grad(a_id), dout, &mask, |d, m| d * m);
        })
    }
}
// ANCHOR_END: dropout_op
