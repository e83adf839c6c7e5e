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
        self.layer_norm_of(None, gamma, beta, eps)
    }

    /// `layer_norm(self + other)` in one op — a Post-LN residual connection:
    /// the sum is never stored (the backward adds the two again), and the
    /// backward writes the one gradient to both inputs in the same pass.
    #[track_caller]
    pub fn add_layer_norm(
        self,
        other: Var<'t, T>,
        gamma: Var<'t, T>,
        beta: Var<'t, T>,
        eps: f64,
    ) -> Var<'t, T> {
        self.layer_norm_of(Some(other), gamma, beta, eps)
    }

    /// Layer norm of `self`, or of `self + other`.
    #[track_caller]
    fn layer_norm_of(
        self,
        other: Option<Var<'t, T>>,
        gamma: Var<'t, T>,
        beta: Var<'t, T>,
        eps: f64,
    ) -> Var<'t, T> {
        let (x_id, g_id, b_id) = (self.id, gamma.id, beta.id);
        let r_id = other.map(|r| r.id);
        let (n, d) = self.shape();
        assert_eq!(gamma.shape(), (1, d), "layer_norm: gamma must be 1×{d}");
        assert_eq!(beta.shape(), (1, d), "layer_norm: beta must be 1×{d}");
        if let Some(r) = other {
            assert_eq!(r.shape(), (n, d), "add_layer_norm: {n}×{d} + {:?}", r.shape());
        }
        let eps = T::of(eps);
        let inv_d = T::one() / T::of(d as f64);
        let mut out = crate::pool::take(n, d);
        if let Some(r) = other {
            // the sum goes into `out`, and is normalised there in place
            let (x, r) = (self.value(), r.value());
            for j in 0..d {
                let (a, b, s) = (x.col_as_slice(j), r.col_as_slice(j), out.col_as_slice_mut(j));
                for i in 0..n {
                    s[i] = a[i] + b[i];
                }
            }
        }
        // What backward needs: each row's mean and 1/σ.
        let (mean, rstd) = {
            let x = self.value();
            let src: &Mat<T> = if other.is_some() { &out } else { &x };
            let mut mean = vec![T::zero(); n];
            for j in 0..d {
                for (m, &v) in mean.iter_mut().zip(src.col_as_slice(j)) {
                    *m += v;
                }
            }
            mean.iter_mut().for_each(|m| *m *= inv_d);
            let mut var = vec![T::zero(); n];
            for j in 0..d {
                for ((s, &v), &m) in var.iter_mut().zip(src.col_as_slice(j)).zip(&mean) {
                    *s += (v - m) * (v - m);
                }
            }
            let rstd: Vec<T> = var.iter().map(|&s| T::one() / (s * inv_d + eps).sqrt()).collect();
            (mean, rstd)
        };
        {
            let (x, g, b) = (self.value(), gamma.value(), beta.value());
            for j in 0..d {
                let (gj, bj) = (g[(0, j)], b[(0, j)]);
                if other.is_some() {
                    for (i, v) in out.col_as_slice_mut(j).iter_mut().enumerate() {
                        *v = (*v - mean[i]) * rstd[i] * gj + bj;
                    }
                } else {
                    let (src, dst) = (x.col_as_slice(j), out.col_as_slice_mut(j));
                    for i in 0..n {
                        dst[i] = (src[i] - mean[i]) * rstd[i] * gj + bj;
                    }
                }
            }
        }
        let inputs: Vec<usize> = [x_id, g_id, b_id].into_iter().chain(r_id).collect();
        self.tape.push(out, &inputs, move |b, dout| {
            let (x, g) = (b.value(x_id), b.value(g_id));
            let r = r_id.map(|r| b.value(r));
            let mut buf = vec![T::zero(); if r.is_some() { n } else { 0 }];
            // x̂, recomputed column by column from the input and the saved μ, 1/σ
            let mut xhat = vec![T::zero(); n];
            let mut dg = vec![T::zero(); d];
            let mut db = vec![T::zero(); d];
            let mut mean_g = vec![T::zero(); n]; // per row: mean of dy ⊙ γ (× d)
            let mut mean_gx = vec![T::zero(); n]; // and of dy ⊙ γ ⊙ x̂ (× d)
            for j in 0..d {
                let (xc, dc, gj) = (column(x, r, j, &mut buf), dout.col_as_slice(j), g[(0, j)]);
                for i in 0..n {
                    xhat[i] = (xc[i] - mean[i]) * rstd[i];
                }
                for i in 0..n {
                    mean_g[i] += dc[i] * gj;
                    mean_gx[i] += dc[i] * gj * xhat[i];
                }
                // dγ, dβ: column sums, in the vectorisable fixed order of `sum`
                db[j] = super::sum(dc);
                for i in 0..n {
                    xhat[i] *= dc[i];
                }
                dg[j] = super::sum(&xhat);
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
            // dx, to x (and to r: the sum hands it to both unchanged)
            let stats = (&mean[..], &rstd[..], &mean_g[..], &mean_gx[..], inv_d);
            match r_id {
                Some(r_id) if r_id != x_id && b.wants(x_id) && b.wants(r_id) => {
                    let [(gx, hx), (gr, hr)] = b.grad_slot_pair(x_id, r_id);
                    for j in 0..d {
                        let (xc, dc, gj) =
                            (column(x, r, j, &mut buf), dout.col_as_slice(j), g[(0, j)]);
                        layer_norm_dx((gx.col_as_slice_mut(j), hx), xc, dc, gj, stats);
                        layer_norm_dx((gr.col_as_slice_mut(j), hr), xc, dc, gj, stats);
                    }
                }
                _ => {
                    // one input wants it (or r is x itself: each use adds it once)
                    let ids: Vec<usize> =
                        [x_id].into_iter().chain(r_id).filter(|&id| b.wants(id)).collect();
                    for id in ids {
                        let (dx, how) = b.grad_slot(id);
                        for j in 0..d {
                            let (xc, dc, gj) =
                                (column(x, r, j, &mut buf), dout.col_as_slice(j), g[(0, j)]);
                            layer_norm_dx((dx.col_as_slice_mut(j), how), xc, dc, gj, stats);
                        }
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

/// `dst (+)= dx` for one column: `(dy·γ − mean(g) − x̂·mean(g ⊙ x̂)) / σ`.
#[inline]
fn layer_norm_dx<T: Real>(
    (dst, how): (&mut [T], Accum),
    xc: &[T],
    dc: &[T],
    gj: T,
    (mean, rstd, mean_g, mean_gx, inv_d): (&[T], &[T], &[T], &[T], T),
) {
    for i in 0..dst.len() {
        let xh = (xc[i] - mean[i]) * rstd[i];
        let v = (dc[i] * gj - mean_g[i] * inv_d - xh * mean_gx[i] * inv_d) * rstd[i];
        dst[i] = if how == Accum::Add { dst[i] + v } else { v };
    }
}

/// Column `j` of `x`, or of `x + r` (added into `buf`).
#[inline]
fn column<'a, T: Real>(x: &'a Mat<T>, r: Option<&Mat<T>>, j: usize, buf: &'a mut [T]) -> &'a [T] {
    match r {
        None => x.col_as_slice(j),
        Some(r) => {
            for ((s, &a), &c) in buf.iter_mut().zip(x.col_as_slice(j)).zip(r.col_as_slice(j)) {
                *s = a + c;
            }
            buf
        }
    }
}
