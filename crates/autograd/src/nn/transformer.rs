//! Whole Transformers built from the layers of `transformer_layers.rs`: the tiny
//! encoder–decoder of Lecture 17 §9 (embeddings, positions, masks, stacks
//! of layers, output layer) and a decoder-only language model.

use faer::Mat;

use crate::nn::layers::{Embedding, LayerNorm, Linear};
use crate::nn::positions::{LearnedPositions, TooLong, sinusoidal};
use crate::nn::transformer_layers::{DecoderLayer, DecoderWeights, EncoderLayer, Norm};
use crate::{Params, Real, Tape, Var, Weights};

/// How positions enter the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Positions {
    /// None at all: the model sees a bag of tokens.
    None,
    /// The paper's sinusoids, added to the embeddings.
    Sinusoidal,
    /// A learned table of this many positions.
    Learned(usize),
}

/// The shape of a [`Seq2Seq`] or [`DecoderOnly`] model.
#[derive(Clone, Debug)]
pub struct Seq2SeqConfig {
    pub vocab: usize,
    pub d_model: usize,
    pub heads: usize,
    pub d_ff: usize,
    pub layers: usize,
    pub norm: Norm,
    pub positions: Positions,
    /// Multiply embeddings by √d_model (the paper) before adding positions.
    pub scale_embeddings: bool,
    /// Divide every attention score by √d_k (the paper). `false` turns the
    /// scale off in every attention module of the model.
    pub scaled_attention: bool,
}

impl Seq2SeqConfig {
    /// The small Transformer of Lecture 17 §9: d_model 64, 4 heads, d_ff 256,
    /// one layer per stack, Post-LN, sinusoidal positions, embeddings not
    /// scaled by √d_model.
    pub fn lecture17(vocab: usize) -> Self {
        Seq2SeqConfig {
            vocab,
            d_model: 64,
            heads: 4,
            d_ff: 256,
            layers: 1,
            norm: Norm::Post,
            positions: Positions::Sinusoidal,
            scale_embeddings: false,
            scaled_attention: true,
        }
    }
}

// ANCHOR: batch_masks
/// A causal keep-mask for `batch` sequences of length `len`: (batch·len, len),
/// position `i` may see positions `0..=i` — `blocks`' look-ahead mask, once
/// per sequence.
pub fn causal_mask<T: Real>(batch: usize, len: usize) -> Mat<T> {
    let one = blocks::layers::causal_mask(len);
    Mat::from_fn(batch * len, len, |r, j| T::of(one[(r % len, j)]))
}

/// A padding keep-mask: query row `r` of sequence `b` may see key `j` iff
/// `ids[b·len_k + j] != pad`. Shape (batch·len_q, len_k).
pub fn padding_mask<T: Real>(ids: &[usize], batch: usize, len_q: usize, pad: usize) -> Mat<T> {
    let len_k = ids.len() / batch;
    Mat::from_fn(batch * len_q, len_k, |r, j| {
        if ids[(r / len_q) * len_k + j] != pad { T::one() } else { T::zero() }
    })
}
// ANCHOR_END: batch_masks

/// Embeddings (optionally × √d) plus positions, for `batch` sequences of `len`.
#[derive(Clone, Debug)]
struct Embed {
    tokens: Embedding,
    learned: Option<LearnedPositions>,
}

impl Embed {
    fn new<T: Real>(
        params: &mut Params<T>,
        name: &str,
        cfg: &Seq2SeqConfig,
        rng: &mut impl rand::Rng,
    ) -> Self {
        let tokens = Embedding::new(params, &format!("{name}.tokens"), cfg.vocab, cfg.d_model, rng);
        let learned = match cfg.positions {
            Positions::Learned(max_len) => Some(LearnedPositions::new(
                params,
                &format!("{name}.positions"),
                max_len,
                cfg.d_model,
                rng,
            )),
            _ => None,
        };
        Embed { tokens, learned }
    }

    fn forward<'t, T: Real>(
        &self,
        tape: &'t Tape<T>,
        cfg: &Seq2SeqConfig,
        ids: &[usize],
        batch: usize,
    ) -> Result<Var<'t, T>, TooLong> {
        let len = ids.len() / batch;
        let mut x = self.tokens.forward(tape, ids);
        if cfg.scale_embeddings {
            x = x.scale((cfg.d_model as f64).sqrt());
        }
        Ok(match cfg.positions {
            Positions::None => x,
            Positions::Sinusoidal => {
                let pe = sinusoidal::<T>(len, cfg.d_model); // (len, d)
                let mut all = crate::pool::take(batch * len, cfg.d_model); // (B·len, d)
                for j in 0..cfg.d_model {
                    let (src, dst) = (pe.col_as_slice(j), all.col_as_slice_mut(j));
                    for chunk in dst.chunks_mut(len) {
                        chunk.copy_from_slice(src);
                    }
                }
                x.add(tape.input(all))
            }
            Positions::Learned(_) => {
                x.add(self.learned.as_ref().unwrap().forward(tape, batch, len)?)
            }
        })
    }
}

/// The encoder–decoder Transformer: `layers` encoder and `layers` decoder
/// layers, separate source and target embeddings, a linear output layer.
#[derive(Clone, Debug)]
pub struct Seq2Seq {
    pub cfg: Seq2SeqConfig,
    src: Embed,
    tgt: Embed,
    pub encoder: Vec<EncoderLayer>,
    pub decoder: Vec<DecoderLayer>,
    /// Pre-LN only: the layer norm after the last layer of each stack.
    pub final_ln: Option<(LayerNorm, LayerNorm)>,
    pub out: Linear,
}

/// What [`Seq2Seq::forward`] produced.
pub struct Seq2SeqOut<'t, T: Real> {
    /// (B·S_t, vocab).
    pub logits: Var<'t, T>,
    /// Each encoder layer's self-attention weights.
    pub encoder_weights: Vec<Weights>,
    /// Each decoder layer's weights.
    pub decoder_weights: Vec<DecoderWeights>,
}

impl Seq2Seq {
    pub fn new<T: Real>(
        params: &mut Params<T>,
        cfg: Seq2SeqConfig,
        rng: &mut impl rand::Rng,
    ) -> Self {
        let (d, h, f, norm) = (cfg.d_model, cfg.heads, cfg.d_ff, cfg.norm);
        let src = Embed::new(params, "src", &cfg, rng);
        let tgt = Embed::new(params, "tgt", &cfg, rng);
        let encoder = (0..cfg.layers)
            .map(|i| EncoderLayer::new(params, &format!("encoder.{i}"), d, h, f, norm, rng))
            .collect();
        let decoder = (0..cfg.layers)
            .map(|i| DecoderLayer::new(params, &format!("decoder.{i}"), d, h, f, norm, rng))
            .collect();
        let final_ln = (norm == Norm::Pre).then(|| {
            (LayerNorm::new(params, "encoder.ln", d), LayerNorm::new(params, "decoder.ln", d))
        });
        let out = Linear::new(params, "out", d, cfg.vocab, true, rng);
        let mut model = Seq2Seq { cfg, src, tgt, encoder, decoder, final_ln, out };
        let scaled = model.cfg.scaled_attention;
        for layer in &mut model.encoder {
            layer.attn.scaled = scaled;
        }
        for layer in &mut model.decoder {
            layer.self_attn.scaled = scaled;
            layer.cross_attn.scaled = scaled;
        }
        model
    }

    /// The encoder's output for `src` ids (B·S_s), under `src_keep` (B·S_s, S_s).
    pub fn encode<'t, T: Real>(
        &self,
        tape: &'t Tape<T>,
        src: &[usize],
        batch: usize,
        src_keep: Option<&Mat<T>>,
    ) -> Result<(Var<'t, T>, Vec<Weights>), TooLong> {
        let mut x = self.src.forward(tape, &self.cfg, src, batch)?;
        let mut weights = Vec::new();
        for layer in &self.encoder {
            let (y, w) = layer.forward(x, batch, src_keep);
            x = y;
            weights.push(w);
        }
        if let Some((ln, _)) = &self.final_ln {
            x = ln.forward(x);
        }
        Ok((x, weights))
    }

    /// Logits for every target position given the encoder's `memory`:
    /// teacher forcing with a causal mask (all positions in one pass).
    pub fn decode<'t, T: Real>(
        &self,
        tape: &'t Tape<T>,
        memory: Var<'t, T>,
        tgt_in: &[usize],
        batch: usize,
        cross_keep: Option<&Mat<T>>,
    ) -> Result<(Var<'t, T>, Vec<DecoderWeights>), TooLong> {
        let len = tgt_in.len() / batch;
        let causal = causal_mask::<T>(batch, len);
        let mut y = self.tgt.forward(tape, &self.cfg, tgt_in, batch)?;
        let mut weights = Vec::new();
        for layer in &self.decoder {
            let (z, w) = layer.forward(y, memory, batch, Some(&causal), cross_keep);
            y = z;
            weights.push(w);
        }
        if let Some((_, ln)) = &self.final_ln {
            y = ln.forward(y);
        }
        Ok((self.out.forward(y), weights))
    }

    pub(crate) fn tgt_tokens(&self) -> &Embedding {
        &self.tgt.tokens
    }

    pub(crate) fn tgt_positions(&self) -> Option<&LearnedPositions> {
        self.tgt.learned.as_ref()
    }

    /// Encode `src`, decode `tgt_in` (both B·S ids, no padding).
    pub fn forward<'t, T: Real>(
        &self,
        tape: &'t Tape<T>,
        src: &[usize],
        tgt_in: &[usize],
        batch: usize,
    ) -> Result<Seq2SeqOut<'t, T>, TooLong> {
        let (memory, encoder_weights) = self.encode(tape, src, batch, None)?;
        let (logits, decoder_weights) = self.decode(tape, memory, tgt_in, batch, None)?;
        Ok(Seq2SeqOut { logits, encoder_weights, decoder_weights })
    }
}

/// A decoder-only language model: embeddings, `layers` causal
/// self-attention layers, (Pre-LN) a final layer norm, an output layer.
#[derive(Clone, Debug)]
pub struct DecoderOnly {
    pub cfg: Seq2SeqConfig,
    embed: Embed,
    pub layers: Vec<EncoderLayer>,
    pub final_ln: Option<LayerNorm>,
    pub out: Linear,
}

impl DecoderOnly {
    pub fn new<T: Real>(
        params: &mut Params<T>,
        cfg: Seq2SeqConfig,
        rng: &mut impl rand::Rng,
    ) -> Self {
        let (d, h, f, norm) = (cfg.d_model, cfg.heads, cfg.d_ff, cfg.norm);
        let embed = Embed::new(params, "embed", &cfg, rng);
        let layers = (0..cfg.layers)
            .map(|i| EncoderLayer::new(params, &format!("layer.{i}"), d, h, f, norm, rng))
            .collect();
        let final_ln = (norm == Norm::Pre).then(|| LayerNorm::new(params, "ln", d));
        let out = Linear::new(params, "out", d, cfg.vocab, true, rng);
        let mut model = DecoderOnly { cfg, embed, layers, final_ln, out };
        let scaled = model.cfg.scaled_attention;
        for layer in &mut model.layers {
            layer.attn.scaled = scaled;
        }
        model
    }

    /// Next-token logits at every position of `ids` (B·S): (B·S, vocab).
    pub fn forward<'t, T: Real>(
        &self,
        tape: &'t Tape<T>,
        ids: &[usize],
        batch: usize,
    ) -> Result<Var<'t, T>, TooLong> {
        let len = ids.len() / batch;
        let causal = causal_mask::<T>(batch, len);
        let mut x = self.embed.forward(tape, &self.cfg, ids, batch)?;
        for layer in &self.layers {
            x = layer.forward(x, batch, Some(&causal)).0;
        }
        if let Some(ln) = &self.final_ln {
            x = ln.forward(x);
        }
        Ok(self.out.forward(x))
    }
}
