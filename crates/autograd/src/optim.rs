//! Optimizers and learning-rate schedules.
//!
//! ```text
//! SGD:   θ ← θ − lr·g
//! Adam:  m ← β₁m + (1−β₁)g     v ← β₂v + (1−β₂)g²
//!        m̂ = m/(1−β₁ᵗ)        v̂ = v/(1−β₂ᵗ)        θ ← θ − lr·m̂/(√v̂ + ε)
//! ```
//! Schedules: linear warmup to a peak, and the paper's
//! `lr(t) = d^−0.5 · min(t^−0.5, t·warmup^−1.5)`.

use faer::Mat;

use crate::{Grads, Params, Real};

/// What every optimizer does: move the parameters along their gradients,
/// at a learning rate that a schedule may change between steps.
pub trait Optimizer<T: Real> {
    /// One update of every parameter that has a gradient.
    fn step(&mut self, params: &mut Params<T>, grads: &Grads<T>);
    /// The learning rate of the next step.
    fn set_lr(&mut self, lr: f64);
}

/// Plain stochastic gradient descent.
#[derive(Clone, Debug)]
pub struct Sgd {
    pub lr: f64,
}

/// Adam, with bias correction; `lr` may be changed between steps.
#[derive(Clone, Debug)]
pub struct Adam<T: Real> {
    pub lr: f64,
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
    /// Steps taken so far.
    pub t: u32,
    m: Vec<Mat<T>>,
    v: Vec<Mat<T>>,
}

impl<T: Real> Adam<T> {
    /// PyTorch's defaults are β = (0.9, 0.999), ε = 1e−8; the paper used
    /// (0.9, 0.98) and 1e−9.
    pub fn new(params: &Params<T>, lr: f64, beta1: f64, beta2: f64, eps: f64) -> Self {
        let zeros =
            || params.iter().map(|(_, p)| Mat::zeros(p.value.nrows(), p.value.ncols())).collect();
        Adam { lr, beta1, beta2, eps, t: 0, m: zeros(), v: zeros() }
    }
}

impl<T: Real> Optimizer<T> for Sgd {
    fn step(&mut self, params: &mut Params<T>, grads: &Grads<T>) {
        let lr = T::of(self.lr);
        let ids: Vec<_> = params.iter().map(|(id, _)| id).collect();
        for id in ids {
            if let Some(g) = grads.get(id) {
                let p = &mut params.get_mut(id).value;
                for j in 0..p.ncols() {
                    for (w, &d) in p.col_as_slice_mut(j).iter_mut().zip(g.col_as_slice(j)) {
                        *w -= lr * d;
                    }
                }
            }
        }
    }
    fn set_lr(&mut self, lr: f64) {
        self.lr = lr;
    }
}

impl<T: Real> Optimizer<T> for Adam<T> {
    fn step(&mut self, params: &mut Params<T>, grads: &Grads<T>) {
        self.t += 1;
        let (b1, b2) = (T::of(self.beta1), T::of(self.beta2));
        let c1 = T::of(1.0 - libm::pow(self.beta1, self.t as f64));
        let c2 = T::of(1.0 - libm::pow(self.beta2, self.t as f64));
        let (lr, eps, one) = (T::of(self.lr), T::of(self.eps), T::one());
        let ids: Vec<_> = params.iter().map(|(id, _)| id).collect();
        for id in ids {
            let Some(g) = grads.get(id) else { continue };
            let (m, v) = (&mut self.m[id.0], &mut self.v[id.0]);
            let p = &mut params.get_mut(id).value;
            for j in 0..p.ncols() {
                let (gc, mc, vc) =
                    (g.col_as_slice(j), m.col_as_slice_mut(j), v.col_as_slice_mut(j));
                // zipped, not indexed: no bounds checks, so the loop vectorises
                let each = p.col_as_slice_mut(j).iter_mut().zip(gc).zip(mc).zip(vc);
                for (((w, &g), m), v) in each {
                    *m = b1 * *m + (one - b1) * g;
                    *v = b2 * *v + (one - b2) * g * g;
                    let (m_hat, v_hat) = (*m / c1, *v / c2);
                    *w -= lr * m_hat / (v_hat.sqrt() + eps);
                }
            }
        }
    }
    fn set_lr(&mut self, lr: f64) {
        self.lr = lr;
    }
}

/// A boxed optimizer (chosen at run time) is an optimizer too.
impl<T: Real, O: Optimizer<T> + ?Sized> Optimizer<T> for Box<O> {
    fn step(&mut self, params: &mut Params<T>, grads: &Grads<T>) {
        (**self).step(params, grads)
    }
    fn set_lr(&mut self, lr: f64) {
        (**self).set_lr(lr)
    }
}

// ANCHOR: linear_warmup
/// The learning rate at `step` (1-based) of a linear warmup from 0 to
/// `peak` over `warmup` steps, then constant.
pub fn linear_warmup(step: u32, warmup: u32, peak: f64) -> f64 {
    if warmup == 0 || step >= warmup { peak } else { peak * step as f64 / warmup as f64 }
}
// ANCHOR_END: linear_warmup

// ANCHOR: noam
/// The paper's schedule: `d_model^−0.5 · min(step^−0.5, step · warmup^−1.5)`
/// (step ≥ 1).
pub fn noam(step: u32, d_model: usize, warmup: u32) -> f64 {
    let s = step.max(1) as f64;
    libm::pow(d_model as f64, -0.5) * libm::pow(s, -0.5).min(s * libm::pow(warmup as f64, -1.5))
}
// ANCHOR_END: noam

/// The element-wise mean of several checkpoints of the same model.
#[track_caller]
pub fn average<T: Real>(checkpoints: &[Params<T>]) -> Params<T> {
    assert!(!checkpoints.is_empty(), "average: no checkpoints");
    let mut out = checkpoints[0].clone();
    let n = T::of(checkpoints.len() as f64);
    let ids: Vec<_> = out.iter().map(|(id, _)| id).collect();
    for id in ids {
        let p = &mut out.get_mut(id).value;
        for c in &checkpoints[1..] {
            *p += &c.get(id).value;
        }
        for j in 0..p.ncols() {
            for w in p.col_as_slice_mut(j) {
                *w /= n;
            }
        }
    }
    out
}
