//! Linear layers, layer norm, the feed-forward network, multi-head
//! attention, and the Post-LN / Pre-LN encoder and decoder layers — one
//! sequence at a time, `(S, d)`, row convention.

use faer::Mat;

use crate::{Attention, matmul, scaled_dot_product_attention};

/// `y = x·W + b`: W is (d_in, d_out), b is (1, d_out).
#[derive(Clone, Debug)]
pub struct Linear {
    pub w: Mat<f64>,
    pub b: Mat<f64>,
}

impl Linear {
    pub fn forward(&self, x: &Mat<f64>) -> Mat<f64> {
        let y = matmul(x.as_ref(), self.w.as_ref()); // (S, d_out)
        Mat::from_fn(y.nrows(), y.ncols(), |i, j| y[(i, j)] + self.b[(0, j)])
    }
}

// ANCHOR: layer_norm
/// `γ ⊙ (x − μ)/√(σ² + ε) + β` over each row.
#[derive(Clone, Debug)]
pub struct LayerNorm {
    pub gamma: Mat<f64>,
    pub beta: Mat<f64>,
    pub eps: f64,
}

impl LayerNorm {
    pub fn forward(&self, x: &Mat<f64>) -> Mat<f64> {
        let d = x.ncols() as f64;
        let mut y = Mat::zeros(x.nrows(), x.ncols());
        for i in 0..x.nrows() {
            let mean = (0..x.ncols()).map(|j| x[(i, j)]).sum::<f64>() / d;
            let var = (0..x.ncols()).map(|j| (x[(i, j)] - mean).powi(2)).sum::<f64>() / d;
            for j in 0..x.ncols() {
                y[(i, j)] = (x[(i, j)] - mean) / (var + self.eps).sqrt() * self.gamma[(0, j)]
                    + self.beta[(0, j)];
            }
        }
        y
    }
}
// ANCHOR_END: layer_norm

// ANCHOR: feed_forward
/// `act(x·W₁ + b₁)·W₂ + b₂`, with `act` ReLU (the paper) or GELU (BERT,
/// GPT-2).
#[derive(Clone, Debug)]
pub struct FeedForward {
    pub up: Linear,
    pub down: Linear,
    pub act: Activation,
}

impl FeedForward {
    pub fn forward(&self, x: &Mat<f64>) -> Mat<f64> {
        let h = self.up.forward(x);
        let h = Mat::from_fn(h.nrows(), h.ncols(), |i, j| self.act.apply(h[(i, j)]));
        self.down.forward(&h)
    }
}
// ANCHOR_END: feed_forward

/// The feed-forward network's nonlinearity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    /// `max(0, x)`.
    Relu,
    /// `x·Φ(x) = ½x(1 + erf(x/√2))`, the exact GELU (BERT's).
    GeluErf,
    /// `½x(1 + tanh(√(2/π)(x + 0.044715x³)))`, GELU's tanh form (GPT-2's).
    GeluTanh,
}

impl Activation {
    pub fn apply(self, x: f64) -> f64 {
        match self {
            Activation::Relu => x.max(0.0),
            Activation::GeluErf => 0.5 * x * (1.0 + libm::erf(x / std::f64::consts::SQRT_2)),
            Activation::GeluTanh => {
                let u = (2.0 / std::f64::consts::PI).sqrt() * (x + 0.044_715 * x * x * x);
                0.5 * x * (1.0 + libm::tanh(u))
            }
        }
    }
}

/// Multi-head attention with its four projections.
#[derive(Clone, Debug)]
pub struct MultiHeadAttention {
    pub w_q: Linear,
    pub w_k: Linear,
    pub w_v: Linear,
    pub w_o: Linear,
    pub heads: usize,
}

impl MultiHeadAttention {
    /// `x_q` (S_q, d) attends to `x_kv` (S_k, d) under `keep` (S_q, S_k).
    /// Heads are taken as column blocks of the projections, attended one by
    /// one, and put side by side again. Returns the output and each head's
    /// attention.
    pub fn forward(
        &self,
        x_q: &Mat<f64>,
        x_kv: &Mat<f64>,
        keep: Option<&Mat<f64>>,
    ) -> (Mat<f64>, Vec<Attention>) {
        let (q, k, v) = (self.w_q.forward(x_q), self.w_k.forward(x_kv), self.w_v.forward(x_kv));
        let d_h = q.ncols() / self.heads;
        let mut concat = Mat::zeros(q.nrows(), q.ncols()); // (S_q, d)
        let mut heads = Vec::with_capacity(self.heads);
        for h in 0..self.heads {
            let (qh, kh, vh) = (
                q.as_ref().submatrix(0, h * d_h, q.nrows(), d_h),
                k.as_ref().submatrix(0, h * d_h, k.nrows(), d_h),
                v.as_ref().submatrix(0, h * d_h, v.nrows(), d_h),
            );
            let a = scaled_dot_product_attention(qh, kh, vh, keep.map(|m| m.as_ref()));
            concat.as_mut().submatrix_mut(0, h * d_h, q.nrows(), d_h).copy_from(&a.output);
            heads.push(a);
        }
        (self.w_o.forward(&concat), heads)
    }
}

fn add(a: &Mat<f64>, b: &Mat<f64>) -> Mat<f64> {
    a + b
}

// ANCHOR: encoder_layer
/// An encoder layer: self-attention and a feed-forward network, each with
/// a residual connection and a layer norm, after (`post`) or before.
#[derive(Clone, Debug)]
pub struct EncoderLayer {
    pub attn: MultiHeadAttention,
    pub ff: FeedForward,
    pub ln1: LayerNorm,
    pub ln2: LayerNorm,
    pub post: bool,
}

impl EncoderLayer {
    pub fn forward(&self, x: &Mat<f64>, keep: Option<&Mat<f64>>) -> Mat<f64> {
        self.forward_with_weights(x, keep).0
    }

    /// The output and every head's attention.
    pub fn forward_with_weights(
        &self,
        x: &Mat<f64>,
        keep: Option<&Mat<f64>>,
    ) -> (Mat<f64>, Vec<Attention>) {
        if self.post {
            let (a, heads) = self.attn.forward(x, x, keep);
            let x = self.ln1.forward(&add(x, &a));
            (self.ln2.forward(&add(&x, &self.ff.forward(&x))), heads)
        } else {
            let h = self.ln1.forward(x);
            let (a, heads) = self.attn.forward(&h, &h, keep);
            let x = add(x, &a);
            (add(&x, &self.ff.forward(&self.ln2.forward(&x))), heads)
        }
    }
}
// ANCHOR_END: encoder_layer

// ANCHOR: decoder_layer
/// A decoder layer: masked self-attention, cross-attention to the
/// encoder's output, a feed-forward network.
#[derive(Clone, Debug)]
pub struct DecoderLayer {
    pub self_attn: MultiHeadAttention,
    pub cross_attn: MultiHeadAttention,
    pub ff: FeedForward,
    pub ln1: LayerNorm,
    pub ln2: LayerNorm,
    pub ln3: LayerNorm,
    pub post: bool,
}

impl DecoderLayer {
    pub fn forward(
        &self,
        y: &Mat<f64>,
        memory: &Mat<f64>,
        self_keep: Option<&Mat<f64>>,
        cross_keep: Option<&Mat<f64>>,
    ) -> Mat<f64> {
        if self.post {
            let y = self.ln1.forward(&add(y, &self.self_attn.forward(y, y, self_keep).0));
            let y = self.ln2.forward(&add(&y, &self.cross_attn.forward(&y, memory, cross_keep).0));
            self.ln3.forward(&add(&y, &self.ff.forward(&y)))
        } else {
            let h = self.ln1.forward(y);
            let y = add(y, &self.self_attn.forward(&h, &h, self_keep).0);
            let y = add(&y, &self.cross_attn.forward(&self.ln2.forward(&y), memory, cross_keep).0);
            add(&y, &self.ff.forward(&self.ln3.forward(&y)))
        }
    }
}
// ANCHOR_END: decoder_layer

// ANCHOR: causal_mask
/// The look-ahead mask (1 = keep): position `i` sees `0..=i`.
pub fn causal_mask(len: usize) -> Mat<f64> {
    Mat::from_fn(len, len, |i, j| if j <= i { 1.0 } else { 0.0 })
}
// ANCHOR_END: causal_mask

/// The sinusoidal encoding of positions `0..len` in `d` dimensions.
pub fn sinusoidal(len: usize, d: usize) -> Mat<f64> {
    let rows: Vec<Vec<f64>> = (0..len).map(|p| encoding(p as f64, d)).collect();
    Mat::from_fn(len, d, |p, j| rows[p][j])
}

/// PE(p) for any real position p (also negative): entries 2i and 2i+1 are
/// sin(p / 10000^{2i/d}) and cos(p / 10000^{2i/d}).
pub fn encoding(p: f64, d: usize) -> Vec<f64> {
    (0..d)
        .map(|j| {
            let angle = p / libm::pow(10_000.0, (2 * (j / 2)) as f64 / d as f64);
            if j % 2 == 0 { libm::sin(angle) } else { libm::cos(angle) }
        })
        .collect()
}
