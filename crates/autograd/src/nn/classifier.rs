//! A sequence classifier — Lecture 6 §9.3: token embeddings (and, if
//! asked, learned positions), bidirectional encoder layers, the mean over
//! each sequence's real tokens, and a linear layer to class scores.
//!
//! ```text
//! x = emb[ids] (+ pos[0..S])             (B·S, d)
//! x = EncoderLayer(x)  (padding masked)  (B·S, d)
//! pooled_b = mean of x over the real tokens of sequence b   (B, d)
//! logits = pooled · W + b                (B, classes)
//! ```
//! Without positions the whole model is a function of the *set* of tokens
//! (with their counts): attention is permutation-equivariant and the mean
//! forgets order, so two sentences with the same words get the same scores.

use faer::Mat;

use crate::nn::layers::{Embedding, Linear};
use crate::nn::positions::{LearnedPositions, TooLong};
use crate::nn::transformer::padding_mask;
use crate::nn::transformer_layers::{EncoderLayer, Norm};
use crate::{Params, Real, Tape, Var, Weights};

/// The sizes of a [`Classifier`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClassifierConfig {
    pub vocab: usize,
    /// The id that pads short sequences (never attended to, never pooled).
    pub pad: usize,
    pub d_model: usize,
    pub heads: usize,
    pub d_ff: usize,
    pub layers: usize,
    pub norm: Norm,
    /// `Some(max_len)`: a learned table of positions; `None`: no positions.
    pub positions: Option<usize>,
    pub classes: usize,
}

#[derive(Clone, Debug)]
pub struct Classifier {
    pub cfg: ClassifierConfig,
    pub tokens: Embedding,
    pub positions: Option<LearnedPositions>,
    pub layers: Vec<EncoderLayer>,
    pub head: Linear,
}

/// What [`Classifier::forward`] produced.
pub struct Classified<'t, T: Real> {
    /// (B, classes).
    pub logits: Var<'t, T>,
    /// Each layer's attention weights.
    pub weights: Vec<Weights>,
}

// ANCHOR: mean_pool
/// The mean over each sequence's real tokens as a matrix: (B, B·S), row `b`
/// holds `1/n_b` at the `n_b` real positions of sequence `b`, so that
/// `pool · x` averages them (and its gradient spreads back by the same
/// weights).
pub fn mean_pool<T: Real>(ids: &[usize], batch: usize, pad: usize) -> Mat<T> {
    let len = ids.len() / batch;
    let real = |b: usize| ids[b * len..(b + 1) * len].iter().filter(|&&t| t != pad).count();
    Mat::from_fn(batch, batch * len, |b, r| {
        let inside = r / len == b && ids[r] != pad;
        if inside { T::of(1.0 / real(b) as f64) } else { T::zero() }
    })
}
// ANCHOR_END: mean_pool

impl Classifier {
    pub fn new<T: Real>(
        params: &mut Params<T>,
        cfg: ClassifierConfig,
        rng: &mut impl rand::Rng,
    ) -> Self {
        let (d, h, f) = (cfg.d_model, cfg.heads, cfg.d_ff);
        let tokens = Embedding::new(params, "tokens", cfg.vocab, d, rng);
        let positions =
            cfg.positions.map(|n| LearnedPositions::new(params, "positions", n, d, rng));
        let layers = (0..cfg.layers)
            .map(|i| EncoderLayer::new(params, &format!("layer.{i}"), d, h, f, cfg.norm, rng))
            .collect();
        let head = Linear::new(params, "head", d, cfg.classes, true, rng);
        Classifier { cfg, tokens, positions, layers, head }
    }

    // ANCHOR: classifier_forward
    /// Class scores for `batch` sequences of equal (padded) length, `ids`
    /// one after another.
    pub fn forward<'t, T: Real>(
        &self,
        tape: &'t Tape<T>,
        ids: &[usize],
        batch: usize,
    ) -> Result<Classified<'t, T>, TooLong> {
        let len = ids.len() / batch;
        let keep = padding_mask::<T>(ids, batch, len, self.cfg.pad); // (B·S, S)
        let mut x = self.tokens.forward(tape, ids); // (B·S, d)
        if let Some(positions) = &self.positions {
            x = x.add(positions.forward(tape, batch, len)?);
        }
        let mut weights = Vec::new();
        for layer in &self.layers {
            let (y, w) = layer.forward(x, batch, Some(&keep));
            x = y;
            weights.push(w);
        }
        let pooled = tape.input(mean_pool(ids, batch, self.cfg.pad)).matmul(x); // (B, d)
        Ok(Classified { logits: self.head.forward(pooled), weights })
    }
    // ANCHOR_END: classifier_forward
}
