//! Matrix products: `x·W`, `x·Wᵀ`, and the same over a stack of blocks.
//!
//! ```text
//! y = x·W            dx += dy·Wᵀ          dW += xᵀ·dy
//! y = x·W + 1·b      the same, and        db += Σ_rows dy
//! y = x·Wᵀ           dx += dy·W           dW += dyᵀ·x
//! ```
//!
//! All run faer's kernel with `Par::Seq`: fastest at the book's sizes, and
//! the same bits as any parallel split.

use faer::linalg::matmul::matmul as gemm;
use faer::{Accum, Mat, MatMut, MatRef, Par};

use crate::{NodeId, Real, Var};

/// `dst (+)= a·b`.
pub fn mm<T: Real>(dst: MatMut<'_, T>, acc: Accum, a: MatRef<'_, T>, b: MatRef<'_, T>) {
    mm_scaled(dst, acc, a, b, T::one());
}

/// `dst (+)= alpha·a·b`. Every product of the crate goes through here.
pub fn mm_scaled<T: Real>(
    dst: MatMut<'_, T>,
    acc: Accum,
    a: MatRef<'_, T>,
    b: MatRef<'_, T>,
    alpha: T,
) {
    crate::flops::record(a, b, || gemm(dst, acc, a, b, alpha, Par::Seq));
}

/// The backward of `out = x·w`: `dx += dout·wᵀ`, `dw += xᵀ·dout`.
fn matmul_backward<T: Real>(b: &mut crate::Back<'_, T>, dout: &Mat<T>, x_id: NodeId, w_id: NodeId) {
    let (x, w) = (b.value(x_id), b.value(w_id));
    // a gradient nothing has written yet is overwritten, not zeroed and
    // added to: the same bits (0 + v = v), one pass over memory fewer
    if b.wants(x_id) {
        let (g, how) = b.grad_slot(x_id);
        mm(g.as_mut(), how, dout.as_ref(), w.transpose());
    }
    if b.wants(w_id) {
        let (g, how) = b.grad_slot(w_id);
        mm(g.as_mut(), how, x.transpose(), dout.as_ref());
    }
}

/// `x·w + bias`, bias a (1, m) row: the product, then the bias added to
/// each column — with `relu`, and the ReLU applied in the same pass.
#[track_caller]
fn linear_forward<T: Real>(x: &Mat<T>, w: &Mat<T>, bias: &Mat<T>, relu: bool) -> Mat<T> {
    assert!(
        x.ncols() == w.nrows() && bias.nrows() == 1 && bias.ncols() == w.ncols(),
        "linear: {}×{} · {}×{} + {}×{}",
        x.nrows(),
        x.ncols(),
        w.nrows(),
        w.ncols(),
        bias.nrows(),
        bias.ncols()
    );
    let mut out = crate::pool::take(x.nrows(), w.ncols());
    mm(out.as_mut(), Accum::Replace, x.as_ref(), w.as_ref());
    for j in 0..w.ncols() {
        let bj = bias[(0, j)];
        let col = out.col_as_slice_mut(j);
        if relu {
            for v in col {
                let y = *v + bj;
                *v = if y > T::zero() { y } else { T::zero() };
            }
        } else {
            col.iter_mut().for_each(|v| *v += bj);
        }
    }
    out
}

/// The backward of `out = x·w + 1·bias`: `dbias += Σ_rows dout` (first,
/// while `dout` is still in cache), then the product's gradients.
fn linear_backward<T: Real>(
    b: &mut crate::Back<'_, T>,
    dout: &Mat<T>,
    x_id: NodeId,
    w_id: NodeId,
    b_id: NodeId,
) {
    if b.wants(b_id) {
        let g = b.grad(b_id);
        for j in 0..dout.ncols() {
            g[(0, j)] += super::sum(dout.col_as_slice(j));
        }
    }
    matmul_backward(b, dout, x_id, w_id);
}

impl<'t, T: Real> Var<'t, T> {
    /// `self · w`: (n, k)·(k, m) → (n, m).
    #[track_caller]
    pub fn matmul(self, w: Var<'t, T>) -> Var<'t, T> {
        let (x_id, w_id) = (self.id, w.id);
        let out = {
            let (x, w) = (self.value(), w.value());
            assert_eq!(
                x.ncols(),
                w.nrows(),
                "matmul: {}×{} · {}×{}",
                x.nrows(),
                x.ncols(),
                w.nrows(),
                w.ncols()
            );
            let mut out = crate::pool::take(x.nrows(), w.ncols());
            mm(out.as_mut(), Accum::Replace, x.as_ref(), w.as_ref());
            out
        };
        self.tape.push(out, &[x_id, w_id], move |b, dout| matmul_backward(b, dout, x_id, w_id))
    }

    /// `self · w + bias`, bias a (1, m) row added to every row: a Linear
    /// layer in one op (one node and one output matrix instead of two).
    #[track_caller]
    pub fn linear(self, w: Var<'t, T>, bias: Var<'t, T>) -> Var<'t, T> {
        let (x_id, w_id, b_id) = (self.id, w.id, bias.id);
        let out = linear_forward(&self.value(), &w.value(), &bias.value(), false);
        self.tape.push(out, &[x_id, w_id, b_id], move |b, dout| {
            // out = x·w + 1·bias: the product's gradients, and dbias += Σ_rows dout
            linear_backward(b, dout, x_id, w_id, b_id);
        })
    }

    /// `max(0, self · w + bias)`: a Linear layer and its ReLU in one op. The
    /// ReLU runs in place on the product (no second matrix, no second node),
    /// and backward reads its mask off the output: `out > 0` exactly where
    /// `x·w + bias > 0`.
    #[track_caller]
    pub fn linear_relu(self, w: Var<'t, T>, bias: Var<'t, T>) -> Var<'t, T> {
        let (x_id, w_id, b_id) = (self.id, w.id, bias.id);
        let out = linear_forward(&self.value(), &w.value(), &bias.value(), true);
        self.tape.push(out, &[x_id, w_id, b_id], move |b, dout| {
            // through the ReLU: the gradient where the output is positive;
            // dbias from each column as soon as it is written
            let y = b.output();
            let mut d_lin = crate::pool::take(dout.nrows(), dout.ncols());
            let mut d_bias = vec![T::zero(); dout.ncols()];
            for j in 0..dout.ncols() {
                let (yc, dc, d) =
                    (y.col_as_slice(j), dout.col_as_slice(j), d_lin.col_as_slice_mut(j));
                for ((d, &yv), &dv) in d.iter_mut().zip(yc).zip(dc) {
                    *d = if yv > T::zero() { dv } else { T::zero() };
                }
                d_bias[j] = super::sum(d);
            }
            if b.wants(b_id) {
                let g = b.grad(b_id);
                for (j, &s) in d_bias.iter().enumerate() {
                    g[(0, j)] += s;
                }
            }
            matmul_backward(b, &d_lin, x_id, w_id);
            crate::pool::give(d_lin);
        })
    }

    /// `self · wᵀ`: (n, k)·(m, k)ᵀ → (n, m) — scores `q·kᵀ`, or logits from a
    /// tied embedding table.
    #[track_caller]
    pub fn matmul_t(self, w: Var<'t, T>) -> Var<'t, T> {
        let (x_id, w_id) = (self.id, w.id);
        let out = {
            let (x, w) = (self.value(), w.value());
            assert_eq!(
                x.ncols(),
                w.ncols(),
                "matmul_t: {}×{} · ({}×{})ᵀ",
                x.nrows(),
                x.ncols(),
                w.nrows(),
                w.ncols()
            );
            let mut out = crate::pool::take(x.nrows(), w.nrows());
            mm(out.as_mut(), Accum::Replace, x.as_ref(), w.transpose());
            out
        };
        self.tape.push(out, &[x_id, w_id], move |b, dout| {
            // out = x·wᵀ  ⇒  dx += dout·w,  dw += doutᵀ·x
            let (x, w) = (b.value(x_id), b.value(w_id));
            if b.wants(x_id) {
                mm(b.grad(x_id).as_mut(), Accum::Add, dout.as_ref(), w.as_ref());
            }
            if b.wants(w_id) {
                mm(b.grad(w_id).as_mut(), Accum::Add, dout.transpose(), x.as_ref());
            }
        })
    }

    /// The same product for each of `blocks` row blocks: `self` is a stack of
    /// (m, k) blocks, `w` a stack of (k, n) blocks — or of (n, k) blocks when
    /// `transpose_w` — and block `i` of the result is `self_i · w_i` (or
    /// `self_i · w_iᵀ`). This is attention's batched product over heads.
    #[track_caller]
    pub fn bmm(self, w: Var<'t, T>, blocks: usize, transpose_w: bool) -> Var<'t, T> {
        let (x_id, w_id) = (self.id, w.id);
        let (m, k, n);
        let out = {
            let (x, w) = (self.value(), w.value());
            assert!(
                blocks > 0 && x.nrows() % blocks == 0 && w.nrows() % blocks == 0,
                "bmm: {} and {} rows do not split into {blocks} blocks",
                x.nrows(),
                w.nrows()
            );
            (m, k) = (x.nrows() / blocks, x.ncols());
            let wb = w.nrows() / blocks;
            n = if transpose_w { wb } else { w.ncols() };
            let kw = if transpose_w { w.ncols() } else { wb };
            assert_eq!(k, kw, "bmm: blocks {m}×{k} and {wb}×{} do not multiply", w.ncols());
            let mut out = crate::pool::take(blocks * m, n);
            for i in 0..blocks {
                let xi = x.as_ref().submatrix(i * m, 0, m, k);
                let wi = w.as_ref().submatrix(i * wb, 0, wb, w.ncols());
                let wi = if transpose_w { wi.transpose() } else { wi };
                mm(out.as_mut().submatrix_mut(i * m, 0, m, n), Accum::Replace, xi, wi);
            }
            out
        };
        self.tape.push(out, &[x_id, w_id], move |b, dout| {
            let (x, w) = (b.value(x_id), b.value(w_id));
            let wb = w.nrows() / blocks;
            for i in 0..blocks {
                let xi = x.as_ref().submatrix(i * m, 0, m, k);
                let wi = w.as_ref().submatrix(i * wb, 0, wb, w.ncols());
                let di = dout.as_ref().submatrix(i * m, 0, m, n);
                if b.wants(x_id) {
                    // out_i = x_i·w_i  ⇒  dx_i += dout_i·w_iᵀ   (transposed: dout_i·w_i)
                    let wt = if transpose_w { wi } else { wi.transpose() };
                    let gx = b.grad(x_id);
                    mm(gx.as_mut().submatrix_mut(i * m, 0, m, k), Accum::Add, di, wt);
                }
                if b.wants(w_id) {
                    let gw = b.grad(w_id);
                    let gwi = gw.as_mut().submatrix_mut(i * wb, 0, wb, w.ncols());
                    if transpose_w {
                        // out_i = x_i·w_iᵀ  ⇒  dw_i += dout_iᵀ·x_i
                        mm(gwi, Accum::Add, di.transpose(), xi);
                    } else {
                        // dw_i += x_iᵀ·dout_i
                        mm(gwi, Accum::Add, xi.transpose(), di);
                    }
                }
            }
        })
    }
}
