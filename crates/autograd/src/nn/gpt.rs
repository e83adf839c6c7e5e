//! A decoder-only language model in the style of GPT-2 — Lecture 6 §6.3
//! and §9 (the model of the course's HW3): token and learned position
//! embeddings, Pre-LN blocks of causal self-attention and a GELU
//! feed-forward network, a final layer norm, and an output layer tied to
//! the token table.
//!
//! ```text
//! x = drop(wte[ids] + wpe[0..S])
//! x = x + drop(Attn(LN₁(x)))          for each block
//! x = x + drop(W₂·gelu(W₁·LN₂(x)))
//! logits = LN_f(x) · wteᵀ
//! ```
//! Dropout sits where the paper puts it (§5.4): on the sum of embeddings
//! and positions, and on each sub-layer's output before it joins the
//! residual stream. (GPT-2 also drops attention weights; this model does
//! not.) The masks come from a [`Masks`] source, one per dropout site in a
//! fixed order, so a run can be repeated exactly — or twinned with another
//! framework that is handed the same masks.

use std::collections::VecDeque;

use faer::Mat;

use crate::nn::attention::MultiHeadAttention;
use crate::nn::layers::{Embedding, LayerNorm, Linear};
use crate::nn::positions::{LearnedPositions, TooLong};
use crate::nn::transformer::causal_mask;
use crate::{Params, Real, Tape, Var, dropout_mask};

/// Where dropout masks come from: asked once per dropout site, in the order
/// the forward pass reaches them; `None` leaves that site's value as it is.
pub trait Masks<T: Real> {
    fn next(&mut self, rows: usize, cols: usize) -> Option<Mat<T>>;
}

/// No dropout (evaluation).
pub struct NoDropout;

impl<T: Real> Masks<T> for NoDropout {
    fn next(&mut self, _: usize, _: usize) -> Option<Mat<T>> {
        None
    }
}

/// Fresh masks from a random source: each entry 0 with probability `p`.
pub struct RandomMasks<'a, R: rand::Rng + ?Sized> {
    pub p: f64,
    pub rng: &'a mut R,
}

impl<T: Real, R: rand::Rng + ?Sized> Masks<T> for RandomMasks<'_, R> {
    fn next(&mut self, rows: usize, cols: usize) -> Option<Mat<T>> {
        (self.p > 0.0).then(|| dropout_mask(rows, cols, self.p, self.rng))
    }
}

/// Masks made elsewhere (by another framework, say), used in order.
pub struct GivenMasks<T: Real>(pub VecDeque<Mat<T>>);

impl<T: Real> Masks<T> for GivenMasks<T> {
    #[track_caller]
    fn next(&mut self, rows: usize, cols: usize) -> Option<Mat<T>> {
        let mask = self.0.pop_front().expect("GivenMasks: no mask left for a dropout site");
        assert_eq!(
            (mask.nrows(), mask.ncols()),
            (rows, cols),
            "GivenMasks: a {}×{} mask for a {rows}×{cols} value",
            mask.nrows(),
            mask.ncols()
        );
        Some(mask)
    }
}

/// `x`, or `x ⊙ mask` if the source gives a mask for this site.
fn drop<'t, T: Real>(x: Var<'t, T>, masks: &mut impl Masks<T>) -> Var<'t, T> {
    let (rows, cols) = x.shape();
    match masks.next(rows, cols) {
        Some(mask) => x.dropout(mask),
        None => x,
    }
}

/// The feed-forward network of a block: `gelu(x·W₁ + b₁)·W₂ + b₂`, with
/// GELU in its tanh form.
#[derive(Clone, Debug)]
pub struct Mlp {
    pub c_fc: Linear,
    pub c_proj: Linear,
}

impl Mlp {
    pub fn new<T: Real>(
        params: &mut Params<T>,
        name: &str,
        d: usize,
        d_ff: usize,
        rng: &mut impl rand::Rng,
    ) -> Self {
        Mlp {
            c_fc: Linear::new(params, &format!("{name}.c_fc"), d, d_ff, true, rng),
            c_proj: Linear::new(params, &format!("{name}.c_proj"), d_ff, d, true, rng),
        }
    }

    pub fn forward<'t, T: Real>(&self, x: Var<'t, T>) -> Var<'t, T> {
        self.c_proj.forward(self.c_fc.forward(x).gelu())
    }
}

/// One Pre-LN block: causal self-attention and the GELU network, each
/// behind a layer norm, each added back to the residual stream.
#[derive(Clone, Debug)]
pub struct Block {
    pub ln_1: LayerNorm,
    pub attn: MultiHeadAttention,
    pub ln_2: LayerNorm,
    pub mlp: Mlp,
}

impl Block {
    // ANCHOR: gpt_block
    /// `x` is (B·S, d); `causal` (B·S, S) the look-ahead keep-mask.
    pub fn forward<'t, T: Real>(
        &self,
        x: Var<'t, T>,
        batch: usize,
        causal: &Mat<T>,
        masks: &mut impl Masks<T>,
    ) -> Var<'t, T> {
        let h = self.ln_1.forward(x);
        let a = self.attn.forward(h, h, batch, Some(causal)).context;
        let x = x.add(drop(a, masks));
        let m = self.mlp.forward(self.ln_2.forward(x));
        x.add(drop(m, masks))
    }
    // ANCHOR_END: gpt_block
}

/// The sizes of a [`Gpt`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GptConfig {
    pub vocab: usize,
    pub max_len: usize,
    pub d_model: usize,
    pub heads: usize,
    pub d_ff: usize,
    pub layers: usize,
}

/// The whole model.
#[derive(Clone, Debug)]
pub struct Gpt {
    pub cfg: GptConfig,
    pub wte: Embedding,
    pub wpe: LearnedPositions,
    pub blocks: Vec<Block>,
    pub ln_f: LayerNorm,
}

impl Gpt {
    /// Parameters named as GPT-2 names them (`wte`, `h.0.attn`, `ln_f`, …).
    pub fn new<T: Real>(params: &mut Params<T>, cfg: GptConfig, rng: &mut impl rand::Rng) -> Self {
        let (d, h, f) = (cfg.d_model, cfg.heads, cfg.d_ff);
        let wte = Embedding::new(params, "wte", cfg.vocab, d, rng);
        let wpe = LearnedPositions::new(params, "wpe", cfg.max_len, d, rng);
        let blocks = (0..cfg.layers)
            .map(|i| Block {
                ln_1: LayerNorm::new(params, &format!("h.{i}.ln_1"), d),
                attn: MultiHeadAttention::new(params, &format!("h.{i}.attn"), d, h, rng),
                ln_2: LayerNorm::new(params, &format!("h.{i}.ln_2"), d),
                mlp: Mlp::new(params, &format!("h.{i}.mlp"), d, f, rng),
            })
            .collect();
        let ln_f = LayerNorm::new(params, "ln_f", d);
        Gpt { cfg, wte, wpe, blocks, ln_f }
    }

    // ANCHOR: gpt_forward
    /// Next-token logits at every position of `ids` (B·S): (B·S, vocab).
    pub fn forward<'t, T: Real>(
        &self,
        tape: &'t Tape<T>,
        ids: &[usize],
        batch: usize,
        masks: &mut impl Masks<T>,
    ) -> Result<Var<'t, T>, TooLong> {
        let len = ids.len() / batch;
        let causal = causal_mask::<T>(batch, len); // (B·S, S)
        let x = self.wte.forward(tape, ids).add(self.wpe.forward(tape, batch, len)?);
        let mut x = drop(x, masks); // (B·S, d)
        for block in &self.blocks {
            x = block.forward(x, batch, &causal, masks);
        }
        // the output layer is the token table itself: logits = x·wteᵀ
        Ok(self.ln_f.forward(x).matmul_t(tape.param(self.wte.table)))
    }
    // ANCHOR_END: gpt_forward
}
