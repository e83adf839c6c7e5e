//! Layer norm (each row over its features) and batch norm (each feature
//! over the rows) — Lecture 17 §7.3's comparison.
//!
//! Layer norm, for a row `x` of `D` features:
//! `μ = mean(x)`, `σ² = mean((x − μ)²)`, `x̂ = (x − μ)/√(σ² + ε)`,
//! `y = γ ⊙ x̂ + β`. Backward, with `g = dy ⊙ γ`:
//! `dx = (g − mean(g) − x̂ ⊙ mean(g ⊙ x̂)) / √(σ² + ε)`,
//! `dγ += Σ_rows dy ⊙ x̂`, `dβ += Σ_rows dy`.
//! Batch norm is the same with rows and columns exchanged.
//!
//! The Post-LN residual `layer_norm(x + y)` also exists as one fused op,
//! [`Var::add_layer_norm`] in `ops/fused/`; it is tested against this one.

use faer::Mat;

use crate::{Back, NodeId, Real, Saved, Var};

/// What layer norm keeps for its backward: each row's mean and `1/σ`
/// (`x̂` is recomputed from them and the input).
pub struct LayerNormSaved<T> {
    pub mean: Vec<T>,
    pub rstd: Vec<T>,
}

impl<T: Real> Saved<T> for LayerNormSaved<T> {
    fn give_back(self) {} // no matrices: two vectors of N numbers
    fn numbers(&self) -> usize {
        self.mean.len() + self.rstd.len()
    }
}

impl<'t, T: Real> Var<'t, T> {
    /// Layer norm over each row; `gamma`, `beta` are (1, D).
    #[track_caller]
    pub fn layer_norm(self, gamma: Var<'t, T>, beta: Var<'t, T>, eps: f64) -> Var<'t, T> {
        let ids = (self.id, gamma.id, beta.id);
        let d = self.shape().1;
        assert_eq!(gamma.shape(), (1, d), "layer_norm: gamma must be 1×{d}");
        assert_eq!(beta.shape(), (1, d), "layer_norm: beta must be 1×{d}");
        let (out, saved) =
            layer_norm_forward(&self.value(), &gamma.value(), &beta.value(), T::of(eps));
        self.tape.push_saving(out, &[ids.0, ids.1, ids.2], saved, move |b, dout, saved| {
            layer_norm_backward(b, dout, ids, saved)
        })
    }
}

/// `y = γ ⊙ (x − μ)/√(σ² + ε) + β`, row by row. Matrices are stored by
/// column, so each row's sums run down the columns, feature 0, 1, 2, …
pub(crate) fn layer_norm_forward<T: Real>(
    x: &Mat<T>,
    gamma: &Mat<T>,
    beta: &Mat<T>,
    eps: T,
) -> (Mat<T>, LayerNormSaved<T>) {
    let (n, d) = (x.nrows(), x.ncols());
    let inv_d = T::one() / T::of(d as f64);
    let mut mean = vec![T::zero(); n];
    for j in 0..d {
        for (m, &v) in mean.iter_mut().zip(x.col_as_slice(j)) {
            *m += v;
        }
    }
    mean.iter_mut().for_each(|m| *m *= inv_d);
    let mut var = vec![T::zero(); n];
    for j in 0..d {
        for ((s, &v), &m) in var.iter_mut().zip(x.col_as_slice(j)).zip(&mean) {
            *s += (v - m) * (v - m);
        }
    }
    let rstd: Vec<T> = var.iter().map(|&s| T::one() / (s * inv_d + eps).sqrt()).collect();
    let mut out = crate::pool::take(n, d); // (N, D)
    for j in 0..d {
        let (gj, bj) = (gamma[(0, j)], beta[(0, j)]);
        let (src, dst) = (x.col_as_slice(j), out.col_as_slice_mut(j));
        for i in 0..n {
            dst[i] = (src[i] - mean[i]) * rstd[i] * gj + bj;
        }
    }
    (out, LayerNormSaved { mean, rstd })
}

/// The backward of [`layer_norm_forward`]: `dx`, `dγ`, `dβ` added to the
/// gradients of `(x, γ, β)`.
fn layer_norm_backward<T: Real>(
    b: &mut Back<'_, T>,
    dout: &Mat<T>,
    (x_id, g_id, b_id): (NodeId, NodeId, NodeId),
    LayerNormSaved { mean, rstd }: &LayerNormSaved<T>,
) {
    let (x, gamma) = (b.value(x_id), b.value(g_id));
    let (n, d) = (x.nrows(), x.ncols());
    let inv_d = T::one() / T::of(d as f64);
    let x_hat = |xc: &[T], i: usize| (xc[i] - mean[i]) * rstd[i];
    // per row, D·mean(g) and D·mean(g ⊙ x̂); per feature, dγ and dβ
    let (mut sum_g, mut sum_gx) = (vec![T::zero(); n], vec![T::zero(); n]);
    let (mut dgamma, mut dbeta) = (vec![T::zero(); d], vec![T::zero(); d]);
    let mut dy_xhat = vec![T::zero(); n];
    for j in 0..d {
        let (xc, dc, gj) = (x.col_as_slice(j), dout.col_as_slice(j), gamma[(0, j)]);
        for i in 0..n {
            let xh = x_hat(xc, i);
            sum_g[i] += dc[i] * gj;
            sum_gx[i] += dc[i] * gj * xh;
            dy_xhat[i] = xh * dc[i];
        }
        dbeta[j] = super::sum(dc); // column sums in the crate's fixed order
        dgamma[j] = super::sum(&dy_xhat);
    }
    if b.wants(g_id) {
        let dg = b.grad(g_id);
        (0..d).for_each(|j| dg[(0, j)] += dgamma[j]);
    }
    if b.wants(b_id) {
        let db = b.grad(b_id);
        (0..d).for_each(|j| db[(0, j)] += dbeta[j]);
    }
    if b.wants(x_id) {
        let dx = b.grad(x_id);
        for j in 0..d {
            let (xc, dc, gj) = (x.col_as_slice(j), dout.col_as_slice(j), gamma[(0, j)]);
            let dst = dx.col_as_slice_mut(j);
            for i in 0..n {
                let g = dc[i] * gj;
                dst[i] += (g - sum_g[i] * inv_d - x_hat(xc, i) * sum_gx[i] * inv_d) * rstd[i];
            }
        }
    }
}

impl<'t, T: Real> Var<'t, T> {
    /// Batch norm in training mode: each column normalised over the rows
    /// (all of them, padding included — which is the point of the demo that
    /// uses it); `gamma`, `beta` are (1, D).
    #[track_caller]
    pub fn batch_norm(self, gamma: Var<'t, T>, beta: Var<'t, T>, eps: f64) -> Var<'t, T> {
        let (x_id, g_id, b_id) = (self.id, gamma.id, beta.id);
        let (n, d) = self.shape();
        assert_eq!(gamma.shape(), (1, d), "batch_norm: gamma must be 1×{d}");
        assert_eq!(beta.shape(), (1, d), "batch_norm: beta must be 1×{d}");
        // ANCHOR: batch_norm_forward
        let (eps, inv_n) = (T::of(eps), T::one() / T::of(n as f64));
        let (mean, rstd): (Vec<T>, Vec<T>) = {
            let x = self.value();
            (0..d)
                .map(|j| {
                    let c = x.col_as_slice(j);
                    let m = c.iter().copied().sum::<T>() * inv_n;
                    let v = c.iter().map(|&v| (v - m) * (v - m)).sum::<T>() * inv_n;
                    (m, T::one() / (v + eps).sqrt())
                })
                .unzip()
        };
        let out = {
            let (x, g, b) = (self.value(), gamma.value(), beta.value());
            Mat::from_fn(n, d, |i, j| (x[(i, j)] - mean[j]) * rstd[j] * g[(0, j)] + b[(0, j)])
        };
        // ANCHOR_END: batch_norm_forward
        self.tape.push(out, &[x_id, g_id, b_id], move |b, dout| {
            let (x, g) = (b.value(x_id), b.value(g_id));
            for j in 0..d {
                let (xc, dc) = (x.col_as_slice(j), dout.col_as_slice(j));
                let xhat: Vec<T> = xc.iter().map(|&v| (v - mean[j]) * rstd[j]).collect();
                let dg: T = dc.iter().zip(&xhat).map(|(&a, &h)| a * h).sum();
                let db: T = dc.iter().copied().sum();
                if b.wants(g_id) {
                    b.grad(g_id)[(0, j)] += dg;
                }
                if b.wants(b_id) {
                    b.grad(b_id)[(0, j)] += db;
                }
                if b.wants(x_id) {
                    let gj = g[(0, j)];
                    let (mean_g, mean_gx) = (db * gj * inv_n, dg * gj * inv_n);
                    let dst = b.grad(x_id).col_as_slice_mut(j);
                    for i in 0..n {
                        dst[i] += (dc[i] * gj - mean_g - xhat[i] * mean_gx) * rstd[j];
                    }
                }
            }
        })
    }
}
