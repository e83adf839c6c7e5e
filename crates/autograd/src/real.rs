//! The two number types the tape runs on: `f64` for exactness checks,
//! `f32` for training.
//!
//! `exp`, `ln` and `tanh` come from the `libm` crate, never the platform's
//! maths library, so every result is the same on every machine. The hot
//! loop of the softmax uses [`Real::exp_slice`], which for `f32` is a
//! short polynomial written with plain `+` and `*` (no fused multiply-add,
//! so the compiler cannot change its rounding): the compiler vectorises it,
//! and it stays bit-identical across builds and CPUs.

use std::fmt::Debug;
use std::iter::Sum;
use std::ops::Neg;

use faer::traits::RealField;

/// `f32` or `f64`.
pub trait Real:
    RealField + Copy + Debug + Default + Send + Sync + 'static + Neg<Output = Self> + Sum
{
    /// The value of an `f64`, rounded.
    fn of(x: f64) -> Self;
    /// As `f64`, exactly.
    fn f64(self) -> f64;
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    fn tanh(self) -> Self;
    fn sqrt(self) -> Self;
    /// `exp` of every element, in place.
    fn exp_slice(xs: &mut [Self]);
    /// Run `f` on this thread's [`Pool`](crate::pool::Pool) of spare matrices.
    fn with_pool<R>(f: impl FnOnce(&mut crate::pool::Pool<Self>) -> R) -> R;
}

impl Real for f64 {
    fn of(x: f64) -> Self {
        x
    }
    fn f64(self) -> f64 {
        self
    }
    fn exp(self) -> Self {
        libm::exp(self)
    }
    fn ln(self) -> Self {
        libm::log(self)
    }
    fn tanh(self) -> Self {
        libm::tanh(self)
    }
    fn sqrt(self) -> Self {
        f64::sqrt(self) // IEEE correctly rounded: the same everywhere
    }
    fn exp_slice(xs: &mut [Self]) {
        for x in xs {
            *x = libm::exp(*x);
        }
    }
    fn with_pool<R>(f: impl FnOnce(&mut crate::pool::Pool<Self>) -> R) -> R {
        crate::pool::POOL_F64.with(|p| f(&mut p.borrow_mut()))
    }
}

impl Real for f32 {
    fn of(x: f64) -> Self {
        x as f32
    }
    fn f64(self) -> f64 {
        self as f64
    }
    fn exp(self) -> Self {
        libm::expf(self)
    }
    fn ln(self) -> Self {
        libm::logf(self)
    }
    fn tanh(self) -> Self {
        libm::tanhf(self)
    }
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
    fn exp_slice(xs: &mut [Self]) {
        for x in xs {
            *x = fast_expf(*x);
        }
    }
    fn with_pool<R>(f: impl FnOnce(&mut crate::pool::Pool<Self>) -> R) -> R {
        crate::pool::POOL_F32.with(|p| f(&mut p.borrow_mut()))
    }
}

/// `exp(x)` for `f32` within 2 ulp, branch-free so it vectorises:
/// `exp(x) = 2^n · exp(r)`, `n = round(x / ln 2)`, `|r| ≤ ln 2 / 2`, with
/// `exp(r)` from its degree-7 Taylor polynomial in Horner form.
#[inline]
pub fn fast_expf(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    // ln 2 split in two so that n·ln2 is exact enough for |n| ≤ 127.
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    let x = x.clamp(-87.3, 88.7); // exp underflows below, overflows above
    // round to nearest (ties to even) with the 1.5·2²³ trick: plain adds
    // that vectorise, where `f32::round` would be a library call
    const MAGIC: f32 = 12_582_912.0;
    let n = (x * LOG2E + MAGIC) - MAGIC;
    let r = (x - n * LN2_HI) - n * LN2_LO;
    // Horner form of 1 + r + r²/2! + … + r⁷/7!
    let p = 1.0 / 5040.0;
    let p = p * r + 1.0 / 720.0;
    let p = p * r + 1.0 / 120.0;
    let p = p * r + 1.0 / 24.0;
    let p = p * r + 1.0 / 6.0;
    let p = p * r + 0.5;
    let p = p * r + 1.0;
    let p = p * r + 1.0;
    // 2^n by building the float's exponent bits directly.
    let scale = f32::from_bits(((n as i32 + 127) as u32) << 23);
    p * scale
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_expf_is_within_2_ulp_of_libm() {
        let mut worst = 0u32;
        let mut x = -87.0f32;
        while x < 88.0 {
            let (a, b) = (fast_expf(x), libm::expf(x));
            worst = worst.max(a.to_bits().abs_diff(b.to_bits()));
            x += 0.001_37;
        }
        assert!(worst <= 2, "worst error {worst} ulp");
        assert_eq!(fast_expf(0.0), 1.0);
        assert_eq!(fast_expf(-1000.0), libm::expf(-87.3));
    }
}
