//! Element-by-element ops: add (with a row broadcast), sub, mul, scale,
//! exp and ln, and the activations ReLU, GELU (tanh form), tanh and sigmoid.
//!
//! ```text
//! y = a + b          da += dy            db += dy   (a (1, n) row b: db += Σ_rows dy)
//! y = a − b          da += dy            db −= dy
//! y = a ⊙ b          da += dy ⊙ b        db += dy ⊙ a
//! y = s·a            da += s·dy
//! y = e^a            da += dy ⊙ y
//! y = ln a           da += dy ⊘ a
//! y = max(a, 0)      da += dy ⊙ [a > 0]
//! y = tanh(a)        da += dy ⊙ (1 − y²)
//! y = σ(a)           da += dy ⊙ y(1 − y)
//! y = gelu(a)        da += dy ⊙ gelu'(a)
//! ```

use super::{accumulate, add_into, map, same_shape, zip_map};
use crate::{Real, Var};

// `x.matmul(w).add(b)` chains like the lectures' code; the operators would
// read no better and hide where each node is made.
#[allow(clippy::should_implement_trait)]
impl<'t, T: Real> Var<'t, T> {
    /// `self + other`, where `other` has the same shape or is one row
    /// (1, n) added to every row (a bias).
    #[track_caller]
    pub fn add(self, other: Var<'t, T>) -> Var<'t, T> {
        let (a_id, b_id) = (self.id, other.id);
        let (out, broadcast) = {
            let (a, b) = (self.value(), other.value());
            if b.nrows() == 1 && a.nrows() != 1 {
                assert_eq!(
                    a.ncols(),
                    b.ncols(),
                    "add: {}×{} + 1×{}",
                    a.nrows(),
                    a.ncols(),
                    b.ncols()
                );
                let mut out = crate::pool::take(a.nrows(), a.ncols());
                for j in 0..a.ncols() {
                    let bj = b[(0, j)];
                    for (o, &x) in out.col_as_slice_mut(j).iter_mut().zip(a.col_as_slice(j)) {
                        *o = x + bj;
                    }
                }
                (out, true)
            } else {
                same_shape("add", &a, &b);
                (zip_map(&a, &b, |x, y| x + y), false)
            }
        };
        self.tape.push(out, &[a_id, b_id], move |b, dout| {
            if b.wants(a_id) {
                add_into(b.grad(a_id), dout);
            }
            if b.wants(b_id) {
                if broadcast {
                    // a row added to every row: its gradient is the column sum
                    let g = b.grad(b_id);
                    for j in 0..dout.ncols() {
                        g[(0, j)] += super::sum(dout.col_as_slice(j));
                    }
                } else {
                    add_into(b.grad(b_id), dout);
                }
            }
        })
    }

    /// `self − other`, same shapes.
    #[track_caller]
    pub fn sub(self, other: Var<'t, T>) -> Var<'t, T> {
        let (a_id, b_id) = (self.id, other.id);
        let out = {
            let (a, b) = (self.value(), other.value());
            same_shape("sub", &a, &b);
            zip_map(&a, &b, |x, y| x - y)
        };
        self.tape.push(out, &[a_id, b_id], move |b, dout| {
            if b.wants(a_id) {
                add_into(b.grad(a_id), dout);
            }
            if b.wants(b_id) {
                accumulate(b.grad(b_id), dout, dout, |d, _| -d);
            }
        })
    }

    /// `self ⊙ other`, same shapes.
    #[track_caller]
    pub fn mul(self, other: Var<'t, T>) -> Var<'t, T> {
        let (a_id, b_id) = (self.id, other.id);
        let out = {
            let (a, b) = (self.value(), other.value());
            same_shape("mul", &a, &b);
            zip_map(&a, &b, |x, y| x * y)
        };
        self.tape.push(out, &[a_id, b_id], move |b, dout| {
            let (x, y) = (b.value(a_id), b.value(b_id));
            if b.wants(a_id) {
                accumulate(b.grad(a_id), dout, y, |d, y| d * y);
            }
            if b.wants(b_id) {
                accumulate(b.grad(b_id), dout, x, |d, x| d * x);
            }
        })
    }

    /// `s · self`.
    pub fn scale(self, s: f64) -> Var<'t, T> {
        let (a_id, s) = (self.id, T::of(s));
        let out = map(&self.value(), |x| x * s);
        self.tape.push(out, &[a_id], move |b, dout| {
            accumulate(b.grad(a_id), dout, dout, |d, _| d * s);
        })
    }

    // ANCHOR: exp_op
    /// `e^x`; backward uses the output: `d e^x/dx = e^x`.
    pub fn exp(self) -> Var<'t, T> {
        let a_id = self.id;
        let out = map(&self.value(), T::exp);
        self.tape.push(out, &[a_id], move |b, dout| {
            let y = b.output();
            accumulate(b.grad(a_id), dout, y, |d, y| d * y);
        })
    }
    // ANCHOR_END: exp_op

    /// `ln x` (x > 0); backward: `d ln x/dx = 1/x`.
    pub fn ln(self) -> Var<'t, T> {
        let a_id = self.id;
        let out = map(&self.value(), T::ln);
        self.tape.push(out, &[a_id], move |b, dout| {
            let x = b.value(a_id);
            accumulate(b.grad(a_id), dout, x, |d, x| d / x);
        })
    }

    /// `max(0, x)`.
    pub fn relu(self) -> Var<'t, T> {
        let a_id = self.id;
        let out = map(&self.value(), |x| if x > T::zero() { x } else { T::zero() });
        self.tape.push(out, &[a_id], move |b, dout| {
            let x = b.value(a_id);
            accumulate(b.grad(a_id), dout, x, |d, x| if x > T::zero() { d } else { T::zero() });
        })
    }

    /// GELU, tanh form: `½x(1 + tanh(√(2/π)(x + 0.044715x³)))`.
    pub fn gelu(self) -> Var<'t, T> {
        let a_id = self.id;
        let out = map(&self.value(), gelu);
        self.tape.push(out, &[a_id], move |b, dout| {
            let x = b.value(a_id);
            accumulate(b.grad(a_id), dout, x, |d, x| d * gelu_grad(x));
        })
    }

    /// `tanh(x)`; backward uses the output: `1 − tanh²`.
    pub fn tanh(self) -> Var<'t, T> {
        let a_id = self.id;
        let out = map(&self.value(), T::tanh);
        self.tape.push(out, &[a_id], move |b, dout| {
            let y = b.output();
            accumulate(b.grad(a_id), dout, y, |d, y| d * (T::one() - y * y));
        })
    }

    /// `σ(x) = 1 / (1 + e^−x)`; backward uses the output: `σ(1 − σ)`.
    pub fn sigmoid(self) -> Var<'t, T> {
        let a_id = self.id;
        let out = map(&self.value(), sigmoid);
        self.tape.push(out, &[a_id], move |b, dout| {
            let y = b.output();
            accumulate(b.grad(a_id), dout, y, |d, y| d * y * (T::one() - y));
        })
    }
}

/// `σ(x) = 1/(1 + e^{−x})`, branch-free so it vectorises. For very negative
/// `x`, `e^{−x}` is huge (or, in f64, infinite) and σ is 0, never NaN.
#[inline]
pub fn sigmoid<T: Real>(x: T) -> T {
    T::one() / (T::one() + (-x).exp())
}

const SQRT_2_OVER_PI: f64 = 0.797_884_560_802_865_4;
const GELU_C: f64 = 0.044_715;

/// GELU, tanh form.
pub fn gelu<T: Real>(x: T) -> T {
    let half = T::of(0.5);
    let u = T::of(SQRT_2_OVER_PI) * (x + T::of(GELU_C) * x * x * x);
    half * x * (T::one() + u.tanh())
}

/// d GELU / dx, tanh form.
pub fn gelu_grad<T: Real>(x: T) -> T {
    let half = T::of(0.5);
    let u = T::of(SQRT_2_OVER_PI) * (x + T::of(GELU_C) * x * x * x);
    let t = u.tanh();
    let du = T::of(SQRT_2_OVER_PI) * (T::one() + T::of(3.0 * GELU_C) * x * x);
    half * (T::one() + t) + half * x * (T::one() - t * t) * du
}
