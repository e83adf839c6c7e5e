//! The small modules: Linear, Embedding, LayerNorm, the position-wise
//! feed-forward network.

use crate::nn::init;
use crate::{ParamId, Params, Real, Var};

/// `y = x·W + b`, W of shape (d_in, d_out) — the row convention of the
/// lectures (PyTorch stores Wᵀ and computes `x·Wᵀ`; the numbers are the same).
#[derive(Clone, Debug)]
pub struct Linear {
    pub w: ParamId,
    pub b: Option<ParamId>,
}

impl Linear {
    /// PyTorch's default: W and b uniform in ±1/√d_in.
    pub fn new<T: Real>(
        params: &mut Params<T>,
        name: &str,
        d_in: usize,
        d_out: usize,
        bias: bool,
        rng: &mut impl rand::Rng,
    ) -> Self {
        let bound = 1.0 / (d_in as f64).sqrt();
        let w = params.add(format!("{name}.w"), init::uniform(d_in, d_out, bound, rng));
        let b = bias.then(|| params.add(format!("{name}.b"), init::uniform(1, d_out, bound, rng)));
        Linear { w, b }
    }

    pub fn forward<'t, T: Real>(&self, x: Var<'t, T>) -> Var<'t, T> {
        let tape = x.tape();
        match self.b {
            Some(b) => x.linear(tape.param(self.w), tape.param(b)),
            None => x.matmul(tape.param(self.w)),
        }
    }
}

/// A table of `V` vectors of size `D`; `forward` looks rows up by id.
#[derive(Clone, Debug)]
pub struct Embedding {
    pub table: ParamId,
}

impl Embedding {
    /// PyTorch's default: N(0, 1).
    pub fn new<T: Real>(
        params: &mut Params<T>,
        name: &str,
        v: usize,
        d: usize,
        rng: &mut impl rand::Rng,
    ) -> Self {
        Embedding { table: params.add(format!("{name}.table"), init::normal(v, d, 1.0, rng)) }
    }

    pub fn forward<'t, T: Real>(&self, tape: &'t crate::Tape<T>, ids: &[usize]) -> Var<'t, T> {
        tape.param(self.table).gather_rows(ids)
    }
}

/// Layer norm over the features of each position, with a learned γ and β.
#[derive(Clone, Debug)]
pub struct LayerNorm {
    pub gamma: ParamId,
    pub beta: ParamId,
    pub eps: f64,
}

impl LayerNorm {
    /// γ = 1, β = 0, ε = 1e−5 (PyTorch's default).
    pub fn new<T: Real>(params: &mut Params<T>, name: &str, d: usize) -> Self {
        LayerNorm {
            gamma: params.add(format!("{name}.gamma"), init::constant(1, d, 1.0)),
            beta: params.add(format!("{name}.beta"), init::constant(1, d, 0.0)),
            eps: 1e-5,
        }
    }

    // ANCHOR: layer_norm_forward
    pub fn forward<'t, T: Real>(&self, x: Var<'t, T>) -> Var<'t, T> {
        let tape = x.tape();
        x.layer_norm(tape.param(self.gamma), tape.param(self.beta), self.eps)
    }

    /// `forward(x + y)`: a Post-LN residual connection (one fused op on a
    /// fused tape).
    pub fn forward_add<'t, T: Real>(&self, x: Var<'t, T>, y: Var<'t, T>) -> Var<'t, T> {
        let tape = x.tape();
        let (gamma, beta) = (tape.param(self.gamma), tape.param(self.beta));
        if tape.fused() {
            x.add_layer_norm(y, gamma, beta, self.eps)
        } else {
            x.add(y).layer_norm(gamma, beta, self.eps)
        }
    }
    // ANCHOR_END: layer_norm_forward
}

/// The position-wise feed-forward network: `ReLU(x·W₁ + b₁)·W₂ + b₂`.
#[derive(Clone, Debug)]
pub struct FeedForward {
    pub up: Linear,
    pub down: Linear,
}

impl FeedForward {
    pub fn new<T: Real>(
        params: &mut Params<T>,
        name: &str,
        d: usize,
        d_ff: usize,
        rng: &mut impl rand::Rng,
    ) -> Self {
        FeedForward {
            up: Linear::new(params, &format!("{name}.up"), d, d_ff, true, rng),
            down: Linear::new(params, &format!("{name}.down"), d_ff, d, true, rng),
        }
    }

    // ANCHOR: feed_forward_forward
    pub fn forward<'t, T: Real>(&self, x: Var<'t, T>) -> Var<'t, T> {
        let tape = x.tape();
        // x·W₁ + b₁ and its ReLU in one op on a fused tape
        let hidden = match self.up.b {
            Some(b1) if tape.fused() => x.linear_relu(tape.param(self.up.w), tape.param(b1)),
            _ => self.up.forward(x).relu(),
        };
        self.down.forward(hidden)
    }
    // ANCHOR_END: feed_forward_forward
}

/// Dropout: in training, each element is zeroed with probability `p` and
/// the rest scaled by `1/(1 − p)`; in evaluation (`rng` = `None`) it is the
/// identity. The mask comes from the caller's generator, so a run can be
/// reproduced exactly.
#[derive(Clone, Debug)]
pub struct Dropout {
    pub p: f64,
}

impl Dropout {
    #[track_caller]
    pub fn new(p: f64) -> Self {
        assert!((0.0..1.0).contains(&p), "Dropout: p = {p} is not in [0, 1)");
        Dropout { p }
    }

    pub fn forward<'t, T: Real>(
        &self,
        x: Var<'t, T>,
        rng: Option<&mut (impl rand::Rng + ?Sized)>,
    ) -> Var<'t, T> {
        match rng {
            Some(rng) if self.p > 0.0 => {
                let (r, c) = x.shape();
                x.dropout(crate::dropout_mask(r, c, self.p, rng))
            }
            _ => x,
        }
    }
}
