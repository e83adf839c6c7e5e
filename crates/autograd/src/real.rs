//! The two number types the tape runs on: `f64` for exactness checks,
//! `f32` for training.
//!
//! Nothing comes from the platform's maths library, whose results differ
//! between systems. For `f64`, `exp`, `ln` and `tanh` come from the `libm`
//! crate. For `f32`, `exp` and `tanh` are this file's own short, branch-free
//! polynomials ([`fast_expf`], [`fast_tanhf`], within 2 ulp of `libm`),
//! written with plain `+` and `*` (no fused multiply-add, so the compiler
//! cannot change their rounding): they vectorise, which matters in the
//! softmax and the GRU, and they are bit-identical across builds and CPUs.

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
}

impl Real for f64 {
    #[inline]
    fn of(x: f64) -> Self {
        x
    }
    #[inline]
    fn f64(self) -> f64 {
        self
    }
    #[inline]
    fn exp(self) -> Self {
        libm::exp(self)
    }
    #[inline]
    fn ln(self) -> Self {
        libm::log(self)
    }
    #[inline]
    fn tanh(self) -> Self {
        libm::tanh(self)
    }
    #[inline]
    fn sqrt(self) -> Self {
        f64::sqrt(self) // IEEE correctly rounded: the same everywhere
    }
    #[inline]
    fn exp_slice(xs: &mut [Self]) {
        for x in xs {
            *x = libm::exp(*x);
        }
    }
}

impl Real for f32 {
    #[inline]
    fn of(x: f64) -> Self {
        x as f32
    }
    #[inline]
    fn f64(self) -> f64 {
        self as f64
    }
    #[inline]
    fn exp(self) -> Self {
        fast_expf(self)
    }
    #[inline]
    fn ln(self) -> Self {
        libm::logf(self)
    }
    #[inline]
    fn tanh(self) -> Self {
        fast_tanhf(self)
    }
    #[inline]
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
    #[inline]
    fn exp_slice(xs: &mut [Self]) {
        for x in xs {
            *x = fast_expf(*x);
        }
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
    let shifted = x * LOG2E + MAGIC; // n sits in the low bits of its mantissa
    let n = shifted - MAGIC;
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
    // 2^n by building the float's exponent bits directly. n is read off the
    // bits of `shifted` (|n| < 2²², so the difference is n exactly): integer
    // ops that vectorise, where `n as i32` is a scalar, saturating convert.
    let n_int = shifted.to_bits().wrapping_sub(MAGIC.to_bits()) as i32;
    let scale = f32::from_bits(((n_int + 127) as u32) << 23);
    p * scale
}

/// `tanh(x)` for `f32`, branch-free: an odd Taylor polynomial for
/// `|x| < 0.2` (where `1 − e^{−2|x|}` would cancel), else
/// `sign(x)·(1 − e)/(1 + e)` with `e = exp(−2|x|)`.
#[inline]
pub fn fast_tanhf(x: f32) -> f32 {
    let a = x.abs();
    let e = fast_expf(-2.0 * a);
    let big = (1.0 - e) / (1.0 + e);
    let x2 = x * x;
    let small = x
        * (1.0
            + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0 + x2 * (62.0 / 2835.0)))));
    if a < 0.2 { small } else { big.copysign(x) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_expf_and_tanhf_are_close_to_libm() {
        let mut worst = 0u32;
        let mut x = -87.0f32;
        while x < 88.0 {
            let (a, b) = (fast_expf(x), libm::expf(x));
            worst = worst.max(a.to_bits().abs_diff(b.to_bits()));
            x += 0.001_37;
        }
        assert!(worst <= 2, "worst error {worst} ulp");
        assert_eq!(fast_expf(0.0), 1.0);
        let mut worst = 0u32;
        let mut x = -12.0f32;
        while x < 12.0 {
            let (a, b) = (fast_tanhf(x), libm::tanhf(x));
            worst = worst.max(a.to_bits().abs_diff(b.to_bits()));
            x += 0.000_731;
        }
        assert!(worst <= 3, "tanh: worst error {worst} ulp");
        assert_eq!(fast_expf(-1000.0), libm::expf(-87.3));
    }
}
