//! Softmax and log-softmax over each row, with an optional keep-mask.
//!
//! ```text
//! y_j = e^{x_j − max} / Σ_k e^{x_k − max}      dx += y ⊙ (dy − Σ_j dy_j y_j)
//! y = x − ln Σ_k e^{x_k}  (log-softmax)        dx += dy − softmax(x) · Σ_j dy_j
//! ```
//!
//! Masks use the lectures' convention: **1 = keep**, 0 = drop. A dropped
//! position gets probability exactly 0. A row whose every position is
//! dropped gets **all zeros** (never NaN, never a uniform row), so whatever
//! it weights is the zero vector and no gradient flows through it.
//!
//! Matrices are column-major, so "over each row" is computed as sweeps down
//! the columns with one accumulator per row: contiguous memory, vectorised
//! loops, and a fixed summation order (column 0, 1, 2, …) for every row.

use std::ops::Range;

use faer::{Accum, Mat};

use crate::{Real, Var};

/// Row-wise softmax, in place, of the columns `cols` of `x` (attention keeps
/// each head's scores in its own band of columns). `keep`, if given, is a
/// mask with `cols.len()` columns whose rows `row0..row0 + x.nrows()` apply.
pub(crate) fn softmax_in_place<T: Real>(
    x: &mut Mat<T>,
    cols: Range<usize>,
    keep: Option<(&Mat<T>, usize)>,
) {
    let rows = x.nrows();
    let c0 = cols.start;
    let mask_col = move |j: usize| keep.map(|(m, row0)| &m.col_as_slice(j - c0)[row0..row0 + rows]);
    // attention calls this once per sequence and head, on blocks of a few
    // rows: per-row scratch on the stack, not three allocations per call
    with_scratch(3 * rows, |scratch| {
        let (max, rest) = scratch.split_at_mut(rows);
        let (sum, inv) = rest.split_at_mut(rows);
        softmax_block(x, cols, mask_col, max, sum, inv)
    });
}

/// Per-row scratch of `n` numbers, on the stack when it is small.
fn with_scratch<T: Real, R>(n: usize, f: impl FnOnce(&mut [T]) -> R) -> R {
    const STACK: usize = 256;
    if n <= STACK { f(&mut [T::zero(); STACK][..n]) } else { f(&mut vec![T::zero(); n]) }
}

/// [`softmax_in_place`] with its scratch: `max`, `sum` and `inv` hold one
/// number per row.
fn softmax_block<'m, T: Real>(
    x: &mut Mat<T>,
    cols: Range<usize>,
    mask_col: impl Fn(usize) -> Option<&'m [T]>,
    max: &mut [T],
    sum: &mut [T],
    inv: &mut [T],
) {
    max.fill(T::of(f64::NEG_INFINITY));
    for j in cols.clone() {
        // branch-free (a dropped entry counts as −∞), so the loop vectorises
        let col = x.col_as_slice(j);
        match mask_col(j) {
            None => {
                for (m, &v) in max.iter_mut().zip(col) {
                    *m = if v > *m { v } else { *m };
                }
            }
            Some(mask) => {
                for ((m, &v), &k) in max.iter_mut().zip(col).zip(mask) {
                    let v = if k != T::zero() { v } else { T::of(f64::NEG_INFINITY) };
                    *m = if v > *m { v } else { *m };
                }
            }
        }
    }
    for m in max.iter_mut() {
        if *m == T::of(f64::NEG_INFINITY) {
            *m = T::zero(); // a fully dropped row: any finite shift will do
        }
    }
    sum.fill(T::zero());
    for j in cols.clone() {
        let mask = mask_col(j);
        let col = x.col_as_slice_mut(j);
        for (v, &m) in col.iter_mut().zip(&*max) {
            *v -= m;
        }
        T::exp_slice(col);
        if let Some(mask) = mask {
            for (v, &k) in col.iter_mut().zip(mask) {
                if k == T::zero() {
                    *v = T::zero();
                }
            }
        }
        for (s, &v) in sum.iter_mut().zip(col.iter()) {
            *s += v;
        }
    }
    for (r, &s) in inv.iter_mut().zip(&*sum) {
        *r = if s > T::zero() { T::one() / s } else { T::zero() };
    }
    for j in cols {
        for (v, &r) in x.col_as_slice_mut(j).iter_mut().zip(&*inv) {
            *v *= r;
        }
    }
}

/// `dx (+)= y ⊙ (dy − Σ_j dy ⊙ y)` over the columns `cols` of `dx` and
/// `dy` — the softmax's backward, from its output `y`, whose matching
/// columns start at `y0` (attention keeps its weights in one wide matrix and
/// works on one head's block of them at a time).
pub(crate) fn softmax_backward<T: Real>(
    (dx, how): (&mut Mat<T>, Accum),
    (y, y0): (&Mat<T>, usize),
    dy: &Mat<T>,
    cols: Range<usize>,
) {
    let rows = y.nrows();
    let y_col = |j: usize| y.col_as_slice(y0 + j - cols.start);
    with_scratch(rows, |dot: &mut [T]| {
        for j in cols.clone() {
            for ((acc, &a), &b) in dot.iter_mut().zip(y_col(j)).zip(dy.col_as_slice(j)) {
                *acc += a * b;
            }
        }
        for j in cols.clone() {
            let (yc, dyc) = (y_col(j), dy.col_as_slice(j));
            let terms = dx.col_as_slice_mut(j).iter_mut().zip(yc).zip(dyc).zip(&*dot);
            // one loop per way of writing, each without a branch: they vectorise
            match how {
                Accum::Add => terms.for_each(|(((d, &y), &g), &t)| *d += y * (g - t)),
                Accum::Replace => terms.for_each(|(((d, &y), &g), &t)| *d = y * (g - t)),
            }
        }
    });
}

impl<'t, T: Real> Var<'t, T> {
    /// Softmax of each row over the positions where `keep` (same shape) is 1.
    #[track_caller]
    pub fn softmax_rows(self, keep: Option<&Mat<T>>) -> Var<'t, T> {
        let a_id = self.id;
        let mut out = crate::pool::take(self.shape().0, self.shape().1);
        out.copy_from(&*self.value());
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
        let cols = 0..out.ncols();
        softmax_in_place(&mut out, cols.clone(), keep.map(|m| (m, 0)));
        self.tape.push(out, &[a_id], move |b, dout| {
            let y = b.output();
            softmax_backward((b.grad(a_id), Accum::Add), (y, 0), dout, cols.clone());
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
