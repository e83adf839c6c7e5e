//! Multi-head attention — Lecture 17 §5, Lecture 6 §3.
//!
//! `MHA(x_q, x_kv) = concat_i(softmax(Q_i K_iᵀ/√d_h) V_i) · W^O` with
//! `Q = x_q W^Q`, `K = x_kv W^K`, `V = x_kv W^V`, each split into `h`
//! heads of `d_h = d/h` columns. Self-attention passes the same value as
//! `x_q` and `x_kv`; cross-attention passes the decoder's and the encoder's.
//! Parameters: `4d² + 4d`, whatever `h` is.

use faer::Mat;

use crate::nn::init;
use crate::nn::layers::Linear;
use crate::{
    Attended, Heads, Params, Real, Var, attention, attention_bands, concat_cols, fused_attention,
};

#[derive(Clone, Debug)]
pub struct MultiHeadAttention {
    pub w_q: Linear,
    pub w_k: Linear,
    pub w_v: Linear,
    pub w_o: Linear,
    pub heads: usize,
    /// Divide the scores by √d_h (the paper). Off only to show why it is on.
    pub scaled: bool,
}

impl MultiHeadAttention {
    /// Initialised as PyTorch's `nn.MultiheadAttention`: W^Q, W^K, W^V
    /// Xavier-uniform over the stacked (d, 3d) projection, W^O uniform in
    /// ±1/√d, every bias 0.
    #[track_caller]
    pub fn new<T: Real>(
        params: &mut Params<T>,
        name: &str,
        d: usize,
        heads: usize,
        rng: &mut impl rand::Rng,
    ) -> Self {
        assert!(
            heads > 0 && d.is_multiple_of(heads),
            "MultiHeadAttention: d = {d} does not split into {heads} heads"
        );
        let xavier = (6.0 / (d + 3 * d) as f64).sqrt();
        let mut proj = |which: &str, bound: f64| Linear {
            w: params.add(format!("{name}.{which}.w"), init::uniform(d, d, bound, rng)),
            b: Some(params.add(format!("{name}.{which}.b"), init::constant(1, d, 0.0))),
        };
        let w_q = proj("w_q", xavier);
        let w_k = proj("w_k", xavier);
        let w_v = proj("w_v", xavier);
        let w_o = proj("w_o", 1.0 / (d as f64).sqrt());
        MultiHeadAttention { w_q, w_k, w_v, w_o, heads, scaled: true }
    }

    /// Attend from `x_q` (B·S_q, d) to `x_kv` (B·S_k, d); `keep` is
    /// (B·S_q, S_k) with 1 = may look. Returns the output and the node of
    /// the weights (B·h·S_q, S_k) for inspection.
    pub fn forward<'t, T: Real>(
        &self,
        x_q: Var<'t, T>,
        x_kv: Var<'t, T>,
        batch: usize,
        keep: Option<&Mat<T>>,
    ) -> Attended<'t, T> {
        let shape = Heads { batch, heads: self.heads };
        let d = x_q.shape().1;
        let biased = [&self.w_q, &self.w_k, &self.w_v].iter().all(|p| p.b.is_some());
        let attended = if !x_q.tape().fused() {
            // the plain ops: three projections, then attention
            let (q, k, v) = (self.w_q.forward(x_q), self.w_k.forward(x_kv), self.w_v.forward(x_kv));
            attention(q, k, v, shape, keep, self.scaled)
        } else if !biased {
            // (fields set by hand without biases: three separate products)
            let (q, k, v) = (self.w_q.forward(x_q), self.w_k.forward(x_kv), self.w_v.forward(x_kv));
            attention_bands((q, 0), (k, 0), (v, 0), d, shape, keep, self.scaled)
        } else if x_q.id() == x_kv.id() {
            // self-attention: Q, K, V in one product x·[W^Q W^K W^V], (B·S, 3d)
            let qkv = fused(&[&self.w_q, &self.w_k, &self.w_v], x_q);
            attention_bands((qkv, 0), (qkv, d), (qkv, 2 * d), d, shape, keep, self.scaled)
        } else {
            // cross-attention: Q from x_q; K and V in one product from x_kv
            let q = self.w_q.forward(x_q);
            let kv = fused(&[&self.w_k, &self.w_v], x_kv);
            attention_bands((q, 0), (kv, 0), (kv, d), d, shape, keep, self.scaled)
        };
        Attended { context: self.w_o.forward(attended.context), weights: attended.weights }
    }
}

/// `x·[W₁ W₂ …] + [b₁ b₂ …]`: several projections of the same input as one
/// product (one pass over `x`, and in backward one product for `dx`). The
/// weights stay separate parameters; they are put side by side on the tape
/// (a small copy) and their gradients split back.
fn fused<'t, T: Real>(projections: &[&Linear], x: Var<'t, T>) -> Var<'t, T> {
    let tape = x.tape();
    let w: Vec<_> = projections.iter().map(|p| tape.param(p.w)).collect();
    let b: Vec<_> = projections.iter().filter_map(|p| p.b.map(|b| tape.param(b))).collect();
    x.linear(concat_cols(&w), concat_cols(&b))
}

/// Attention on the tape's kernels: the fused op, or the plain one.
pub(crate) fn attend<'t, T: Real>(
    q: Var<'t, T>,
    k: Var<'t, T>,
    v: Var<'t, T>,
    shape: Heads,
    keep: Option<&Mat<T>>,
    scaled: bool,
) -> Attended<'t, T> {
    if q.tape().fused() {
        fused_attention(q, k, v, shape, keep, scaled)
    } else {
        attention(q, k, v, shape, keep, scaled)
    }
}
