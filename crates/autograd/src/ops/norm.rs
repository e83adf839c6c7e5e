//! Layer norm (each row over its features) and batch norm (each feature
//! over the rows) — Lecture 17 §7.3's comparison.
//!
//! Layer norm, for a row `x` of `D` features:
//! `μ = mean(x)`, `σ² = mean((x − μ)²)`, `x̂ = (x − μ)/√(σ² + ε)`,
//! `y = γ ⊙ x̂ + β`. Backward, with `g = dy ⊙ γ`:
//! `dx = (g − mean(g) − x̂ ⊙ mean(g ⊙ x̂)) / √(σ² + ε)`,
//! `dγ += Σ_rows dy ⊙ x̂`, `dβ += Σ_rows dy`.
//! Batch norm is the same with rows and columns exchanged.

use faer::{Accum, Mat};

use crate::{Real, Var};

impl<'t, T: Real> Var<'t, T> {
    /// Layer norm over each row; `gamma`, `beta` are (1, D).
    #[track_caller]
    pub fn layer_norm(self, gamma: Var<'t, T>, beta: Var<'t, T>, eps: f64) -> Var<'t, T> {
        let (x_id, g_id, b_id) = (self.id, gamma.id, beta.id);
        let (n, d) = self.shape();
        assert_eq!(gamma.shape(), (1, d), "layer_norm: gamma must be 1×{d}");
        assert_eq!(beta.shape(), (1, d), "layer_norm: beta must be 1×{d}");
        let eps = T::of(eps);
        let inv_d = T::one() / T::of(d as f64);
        // What backward needs: each row's mean and 1/σ.
        let (mean, rstd) = {
            let x = self.value();
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
            (mean, rstd)
        };
        let out = {
            let (x, g, b) = (self.value(), gamma.value(), beta.value());
            let mut out = crate::pool::take(n, d);
            for j in 0..d {
                let (gj, bj) = (g[(0, j)], b[(0, j)]);
                let (src, dst) = (x.col_as_slice(j), out.col_as_slice_mut(j));
                for i in 0..n {
                    dst[i] = (src[i] - mean[i]) * rstd[i] * gj + bj;
                }
            }
            out
        };
        self.tape.push(out, &[x_id, g_id, b_id], move |b, dout| {
            let (x, g) = (b.value(x_id), b.value(g_id));
            // x̂, recomputed column by column from x and the saved μ, 1/σ
            let mut xhat = vec![T::zero(); n];
            let mut dg = vec![T::zero(); d];
            let mut db = vec![T::zero(); d];
            let mut mean_g = vec![T::zero(); n]; // per row: mean of dy ⊙ γ (× d)
            let mut mean_gx = vec![T::zero(); n]; // and of dy ⊙ γ ⊙ x̂ (× d)
            for j in 0..d {
                let (xc, dc, gj) = (x.col_as_slice(j), dout.col_as_slice(j), g[(0, j)]);
                for i in 0..n {
                    xhat[i] = (xc[i] - mean[i]) * rstd[i];
                }
                for i in 0..n {
                    dg[j] += dc[i] * xhat[i];
                    db[j] += dc[i];
                    mean_g[i] += dc[i] * gj;
                    mean_gx[i] += dc[i] * gj * xhat[i];
                }
            }
            if b.wants(g_id) {
                let gg = b.grad(g_id);
                for j in 0..d {
                    gg[(0, j)] += dg[j];
                }
            }
            if b.wants(b_id) {
                let gb = b.grad(b_id);
                for j in 0..d {
                    gb[(0, j)] += db[j];
                }
            }
            if b.wants(x_id) {
                let (dx, acc) = b.grad_slot(x_id);
                for j in 0..d {
                    let (xc, dc, gj) = (x.col_as_slice(j), dout.col_as_slice(j), g[(0, j)]);
                    let dst = dx.col_as_slice_mut(j);
                    for i in 0..n {
                        let xh = (xc[i] - mean[i]) * rstd[i];
                        let v =
                            (dc[i] * gj - mean_g[i] * inv_d - xh * mean_gx[i] * inv_d) * rstd[i];
                        dst[i] = if acc == Accum::Add { dst[i] + v } else { v };
                    }
                }
            }
        })
    }

    /// Batch norm in training mode: each column normalised over the rows
    /// (all of them, padding included — which is the point of the demo that
    /// uses it); `gamma`, `beta` are (1, D).
    #[track_caller]
    pub fn batch_norm(self, gamma: Var<'t, T>, beta: Var<'t, T>, eps: f64) -> Var<'t, T> {
        let (x_id, g_id, b_id) = (self.id, gamma.id, beta.id);
        let (n, d) = self.shape();
        assert_eq!(gamma.shape(), (1, d), "batch_norm: gamma must be 1×{d}");
        assert_eq!(beta.shape(), (1, d), "batch_norm: beta must be 1×{d}");
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
