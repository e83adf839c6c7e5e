//! The encoder and decoder layers — Lecture 17 §7–§8, Lecture 6 §5–§6 —
//! in both placements of the layer norm:
//!
//! ```text
//! Post-LN (the paper):  x = LN(x + Sublayer(x))
//! Pre-LN (GPT-2 on):    x = x + Sublayer(LN(x)),  and one LN at the very end
//! ```
//! An encoder layer has two sub-layers (self-attention, feed-forward); a
//! decoder layer three (causal self-attention, cross-attention to the
//! encoder's output, feed-forward).

use faer::Mat;

use crate::nn::attention::MultiHeadAttention;
use crate::nn::layers::{FeedForward, LayerNorm};
use crate::{Params, Real, Var, Weights};

/// Where the layer norm goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Norm {
    /// After the residual sum, as in the paper.
    Post,
    /// Before each sublayer, inside the residual branch.
    Pre,
}

/// Self-attention and a feed-forward network, each wrapped in a residual
/// connection and a layer norm.
#[derive(Clone, Debug)]
pub struct EncoderLayer {
    pub attn: MultiHeadAttention,
    pub ff: FeedForward,
    pub ln1: LayerNorm,
    pub ln2: LayerNorm,
    pub norm: Norm,
}

impl EncoderLayer {
    #[allow(clippy::too_many_arguments)]
    pub fn new<T: Real>(
        params: &mut Params<T>,
        name: &str,
        d: usize,
        heads: usize,
        d_ff: usize,
        norm: Norm,
        rng: &mut impl rand::Rng,
    ) -> Self {
        EncoderLayer {
            attn: MultiHeadAttention::new(params, &format!("{name}.attn"), d, heads, rng),
            ff: FeedForward::new(params, &format!("{name}.ff"), d, d_ff, rng),
            ln1: LayerNorm::new(params, &format!("{name}.ln1"), d),
            ln2: LayerNorm::new(params, &format!("{name}.ln2"), d),
            norm,
        }
    }

    // ANCHOR: encoder_layer_forward
    /// `x` is (B·S, d); `keep` (B·S, S) says which positions each may see.
    /// Returns the output and the attention weights.
    pub fn forward<'t, T: Real>(
        &self,
        x: Var<'t, T>,
        batch: usize,
        keep: Option<&Mat<T>>,
    ) -> (Var<'t, T>, Weights) {
        match self.norm {
            Norm::Post => {
                let a = self.attn.forward(x, x, batch, keep);
                let x = self.ln1.forward_add(x, a.context);
                (self.ln2.forward_add(x, self.ff.forward(x)), a.weights)
            }
            Norm::Pre => {
                let h = self.ln1.forward(x);
                let a = self.attn.forward(h, h, batch, keep);
                let x = x.add(a.context);
                (x.add(self.ff.forward(self.ln2.forward(x))), a.weights)
            }
        }
    }
    // ANCHOR_END: encoder_layer_forward
}

/// Masked self-attention, cross-attention to the encoder's output, and a
/// feed-forward network, each with a residual connection and a layer norm.
#[derive(Clone, Debug)]
pub struct DecoderLayer {
    pub self_attn: MultiHeadAttention,
    pub cross_attn: MultiHeadAttention,
    pub ff: FeedForward,
    pub ln1: LayerNorm,
    pub ln2: LayerNorm,
    pub ln3: LayerNorm,
    pub norm: Norm,
}

/// The attention weights a decoder layer produced.
#[derive(Clone, Copy, Debug)]
pub struct DecoderWeights {
    pub self_attn: Weights,
    pub cross_attn: Weights,
}

impl DecoderLayer {
    #[allow(clippy::too_many_arguments)]
    pub fn new<T: Real>(
        params: &mut Params<T>,
        name: &str,
        d: usize,
        heads: usize,
        d_ff: usize,
        norm: Norm,
        rng: &mut impl rand::Rng,
    ) -> Self {
        DecoderLayer {
            self_attn: MultiHeadAttention::new(params, &format!("{name}.self_attn"), d, heads, rng),
            cross_attn: MultiHeadAttention::new(
                params,
                &format!("{name}.cross_attn"),
                d,
                heads,
                rng,
            ),
            ff: FeedForward::new(params, &format!("{name}.ff"), d, d_ff, rng),
            ln1: LayerNorm::new(params, &format!("{name}.ln1"), d),
            ln2: LayerNorm::new(params, &format!("{name}.ln2"), d),
            ln3: LayerNorm::new(params, &format!("{name}.ln3"), d),
            norm,
        }
    }

    /// `y` (B·S_t, d) attends to itself under `self_keep` (B·S_t, S_t) and to
    /// `memory` (B·S_s, d) under `cross_keep` (B·S_t, S_s).
    pub fn forward<'t, T: Real>(
        &self,
        y: Var<'t, T>,
        memory: Var<'t, T>,
        batch: usize,
        self_keep: Option<&Mat<T>>,
        cross_keep: Option<&Mat<T>>,
    ) -> (Var<'t, T>, DecoderWeights) {
        match self.norm {
            Norm::Post => {
                let s = self.self_attn.forward(y, y, batch, self_keep);
                let y = self.ln1.forward_add(y, s.context);
                let c = self.cross_attn.forward(y, memory, batch, cross_keep);
                let y = self.ln2.forward_add(y, c.context);
                let y = self.ln3.forward_add(y, self.ff.forward(y));
                (y, DecoderWeights { self_attn: s.weights, cross_attn: c.weights })
            }
            Norm::Pre => {
                let h = self.ln1.forward(y);
                let s = self.self_attn.forward(h, h, batch, self_keep);
                let y = y.add(s.context);
                let c = self.cross_attn.forward(self.ln2.forward(y), memory, batch, cross_keep);
                let y = y.add(c.context);
                let y = y.add(self.ff.forward(self.ln3.forward(y)));
                (y, DecoderWeights { self_attn: s.weights, cross_attn: c.weights })
            }
        }
    }
}
