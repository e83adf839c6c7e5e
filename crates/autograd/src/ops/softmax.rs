//! Softmax and log-softmax over each row, with an optional keep-mask.
//!
//! Masks use the lectures' convention: **1 = keep**, 0 = drop. A dropped
//! position gets probability exactly 0. A row whose every position is
//! dropped gets **all zeros** (never NaN, never a uniform row), so whatever
//! it weights is the zero vector and no gradient flows through it.
//!
//! Matrices are column-major, so "over each row" is computed as sweeps down
//! the columns with one accumulator per row: contiguous memory, vectorised
//! loops, and a fixed summation order (column 0, 1, 2, …) for every row.

use faer::Mat;

use crate::{Real, Var};

/// A keep-mask for a softmax: row `i` of the scores uses row `row_of(i)` of
/// `mask` (attention shares one mask row among all heads).
pub(crate) struct KeepMask<'a, T: Real> {
    pub mask: &'a Mat<T>,
    pub row_of: &'a dyn Fn(usize) -> usize,
}

/// Row-wise softmax of `x` in place (`None`: keep everything).
pub(crate) fn softmax_in_place<T: Real>(x: &mut Mat<T>, keep: Option<KeepMask<'_, T>>) {
    let (rows, cols) = (x.nrows(), x.ncols());
    let kept =
        |i: usize, j: usize| keep.as_ref().is_none_or(|k| k.mask[((k.row_of)(i), j)] != T::zero());
    let mut max = vec![T::of(f64::NEG_INFINITY); rows];
    for j in 0..cols {
        let col = x.col_as_slice(j);
        for i in 0..rows {
            if kept(i, j) && col[i] > max[i] {
                max[i] = col[i];
            }
        }
    }
    for m in max.iter_mut() {
        if *m == T::of(f64::NEG_INFINITY) {
            *m = T::zero(); // a fully dropped row: any finite shift will do
        }
    }
    let mut sum = vec![T::zero(); rows];
    for j in 0..cols {
        let col = x.col_as_slice_mut(j);
        for (v, &m) in col.iter_mut().zip(&max) {
            *v -= m;
        }
        T::exp_slice(col);
        for i in 0..rows {
            if !kept(i, j) {
                col[i] = T::zero();
            }
            sum[i] += col[i];
        }
    }
    let inv: Vec<T> =
        sum.iter().map(|&s| if s > T::zero() { T::one() / s } else { T::zero() }).collect();
    for j in 0..cols {
        for (v, &r) in x.col_as_slice_mut(j).iter_mut().zip(&inv) {
            *v *= r;
        }
    }
}

/// `dx += y ⊙ (dy − Σ_j dy ⊙ y)` — the softmax's backward, from its output `y`.
pub(crate) fn softmax_backward<T: Real>(dx: &mut Mat<T>, y: &Mat<T>, dy: &Mat<T>) {
    let (rows, cols) = (y.nrows(), y.ncols());
    let mut dot = vec![T::zero(); rows];
    for j in 0..cols {
        for ((acc, &a), &b) in dot.iter_mut().zip(y.col_as_slice(j)).zip(dy.col_as_slice(j)) {
            *acc += a * b;
        }
    }
    for j in 0..cols {
        let (yc, dyc) = (y.col_as_slice(j), dy.col_as_slice(j));
        for (i, d) in dx.col_as_slice_mut(j).iter_mut().enumerate() {
            *d += yc[i] * (dyc[i] - dot[i]);
        }
    }
}

impl<'t, T: Real> Var<'t, T> {
    /// Softmax of each row over the positions where `keep` (same shape) is 1.
    #[track_caller]
    pub fn softmax_rows(self, keep: Option<&Mat<T>>) -> Var<'t, T> {
        let a_id = self.id;
        let mut out = self.value().clone();
        if let Some(m) = keep {
            assert!(
                m.nrows() == out.nrows() && m.ncols() == out.ncols(),
                "softmax_rows: {}×{} scores, {}×{} mask",
                out.nrows(),
                out.ncols(),
                m.nrows(),
                m.ncols()
            );
        }
        let identity = |i: usize| i;
        softmax_in_place(&mut out, keep.map(|mask| KeepMask { mask, row_of: &identity }));
        self.tape.push(out, &[a_id], move |b, dout| {
            let y = b.output();
            softmax_backward(b.grad(a_id), y, dout);
        })
    }

    /// `log softmax` of each row: `x − max − ln Σ exp(x − max)`.
    pub fn log_softmax_rows(self) -> Var<'t, T> {
        let a_id = self.id;
        let out = {
            let x = self.value();
            let lse = log_sum_exp_rows(&x);
            Mat::from_fn(x.nrows(), x.ncols(), |i, j| x[(i, j)] - lse[i])
        };
        self.tape.push(out, &[a_id], move |b, dout| {
            // y = x − lse(x)  ⇒  dx = dy − softmax(x) · Σ_j dy
            let y = b.output();
            let (rows, cols) = (y.nrows(), y.ncols());
            let mut total = vec![T::zero(); rows];
            for j in 0..cols {
                for (t, &d) in total.iter_mut().zip(dout.col_as_slice(j)) {
                    *t += d;
                }
            }
            let g = b.grad(a_id);
            for j in 0..cols {
                let (yc, dc) = (y.col_as_slice(j), dout.col_as_slice(j));
                for (i, d) in g.col_as_slice_mut(j).iter_mut().enumerate() {
                    *d += dc[i] - yc[i].exp() * total[i];
                }
            }
        })
    }
}

/// `ln Σ_j exp(x_ij)` of every row, computed stably (`max + ln Σ exp(x − max)`).
pub fn log_sum_exp_rows<T: Real>(x: &Mat<T>) -> Vec<T> {
    let (rows, cols) = (x.nrows(), x.ncols());
    let mut max = vec![T::of(f64::NEG_INFINITY); rows];
    for j in 0..cols {
        for (m, &v) in max.iter_mut().zip(x.col_as_slice(j)) {
            if v > *m {
                *m = v;
            }
        }
    }
    let mut sum = vec![T::zero(); rows];
    let mut buf = vec![T::zero(); rows];
    for j in 0..cols {
        for ((b, &v), &m) in buf.iter_mut().zip(x.col_as_slice(j)).zip(&max) {
            *b = v - m;
        }
        T::exp_slice(&mut buf);
        for (s, &e) in sum.iter_mut().zip(&buf) {
            *s += e;
        }
    }
    max.iter().zip(&sum).map(|(&m, &s)| m + s.ln()).collect()
}
