//! `layer_norm(x + y)` as one op — the Post-LN residual connection
//! `LayerNorm(x + Sublayer(x))` that every Post-LN layer runs twice.
//!
//! Fused because the sum `x + y` is not kept: the forward normalises it and
//! hands its buffer back at once, and the backward adds the two inputs
//! again column by column instead of reading a saved sum (one node and one
//! matrix less per residual); the one gradient is written to both inputs
//! in the same pass (overwriting a fresh gradient instead of zeroing it
//! first). The formulas are layer
//! norm's (`ops/norm.rs`); the tests hold this op to `x.add(y).layer_norm()`.

use faer::{Accum, Mat};

use crate::ops::norm::{LayerNormSaved, layer_norm_forward};
use crate::{NodeId, Real, Var};

impl<'t, T: Real> Var<'t, T> {
    /// `layer_norm(self + other)` in one op; `gamma`, `beta` are (1, D).
    #[track_caller]
    pub fn add_layer_norm(
        self,
        other: Var<'t, T>,
        gamma: Var<'t, T>,
        beta: Var<'t, T>,
        eps: f64,
    ) -> Var<'t, T> {
        let (x_id, r_id, g_id, b_id) = (self.id, other.id, gamma.id, beta.id);
        let (n, d) = self.shape();
        assert_eq!(gamma.shape(), (1, d), "add_layer_norm: gamma must be 1×{d}");
        assert_eq!(beta.shape(), (1, d), "add_layer_norm: beta must be 1×{d}");
        assert_eq!(other.shape(), (n, d), "add_layer_norm: {n}×{d} + {:?}", other.shape());
        let inv_d = T::one() / T::of(d as f64);
        // the sum, normalised as the plain op would; only μ and 1/σ are kept
        let mut sum = crate::pool::take(n, d);
        {
            let (x, r) = (self.value(), other.value());
            for j in 0..d {
                let (a, b, s) = (x.col_as_slice(j), r.col_as_slice(j), sum.col_as_slice_mut(j));
                for i in 0..n {
                    s[i] = a[i] + b[i];
                }
            }
        }
        let (out, saved) = layer_norm_forward(&sum, &gamma.value(), &beta.value(), T::of(eps));
        crate::pool::give(sum);
        let LayerNormSaved { mean, rstd } = saved;
        self.tape.push(out, &[x_id, g_id, b_id, r_id], move |b, dout| {
            let (x, r, g) = (b.value(x_id), b.value(r_id), b.value(g_id));
            let mut buf = vec![T::zero(); n];
            // x̂, recomputed column by column from the two inputs and the saved μ, 1/σ
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
                db[j] = crate::ops::sum(dc);
                for i in 0..n {
                    xhat[i] *= dc[i];
                }
                dg[j] = crate::ops::sum(&xhat);
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
            // dx, to x and to r: the sum hands it to both unchanged
            let stats = (&mean[..], &rstd[..], &mean_g[..], &mean_gx[..], inv_d);
            if r_id != x_id && b.wants(x_id) && b.wants(r_id) {
                let [(gx, hx), (gr, hr)] = b.grad_slot_pair(x_id, r_id);
                for j in 0..d {
                    let (xc, dc, gj) = (column(x, r, j, &mut buf), dout.col_as_slice(j), g[(0, j)]);
                    layer_norm_dx((gx.col_as_slice_mut(j), hx), xc, dc, gj, stats);
                    layer_norm_dx((gr.col_as_slice_mut(j), hr), xc, dc, gj, stats);
                }
            } else {
                // one input wants it (or r is x itself: each use adds it once)
                let ids: Vec<NodeId> = [x_id, r_id].into_iter().filter(|&id| b.wants(id)).collect();
                for id in ids {
                    let (dx, how) = b.grad_slot(id);
                    for j in 0..d {
                        let (xc, dc, gj) =
                            (column(x, r, j, &mut buf), dout.col_as_slice(j), g[(0, j)]);
                        layer_norm_dx((dx.col_as_slice_mut(j), how), xc, dc, gj, stats);
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

/// Column `j` of `x + r`, added into `buf`.
#[inline]
fn column<'a, T: Real>(x: &Mat<T>, r: &Mat<T>, j: usize, buf: &'a mut [T]) -> &'a [T] {
    for ((s, &a), &c) in buf.iter_mut().zip(x.col_as_slice(j)).zip(r.col_as_slice(j)) {
        *s = a + c;
    }
    buf
}
