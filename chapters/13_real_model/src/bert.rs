//! all-MiniLM-L6-v2 in the book's own parts: a BERT encoder (Lecture 17
//! §10's encoder-only model) of 6 Post-LN layers, d = 384, 12 heads, a GELU
//! network of 1536, layer norms with ε = 1e-12, learned absolute positions
//! and token-type embeddings. Nothing here is new maths: the embeddings are
//! table lookups, every layer is `blocks::layers::EncoderLayer`, and the
//! sentence embedding is the mean over real tokens, scaled to length 1.

use blocks::Attention;
use blocks::layers::{
    Activation, EncoderLayer, FeedForward, LayerNorm, Linear, MultiHeadAttention,
};
use faer::Mat;

use crate::weights::Weights;

/// The sizes, as the model's `config.json` gives them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    pub vocab: usize,
    pub max_positions: usize,
    pub d_model: usize,
    pub heads: usize,
    pub d_ff: usize,
    pub layers: usize,
}

impl Config {
    pub const MINILM: Config = Config {
        vocab: 30_522,
        max_positions: 512,
        d_model: 384,
        heads: 12,
        d_ff: 1536,
        layers: 6,
    };
}

/// BERT's layer norm ε.
pub const EPS: f64 = 1e-12;

pub struct Bert {
    pub cfg: Config,
    pub word: Mat<f64>,       // (V, d)
    pub position: Mat<f64>,   // (512, d)
    pub token_type: Mat<f64>, // (2, d)
    pub embed_ln: LayerNorm,
    pub layers: Vec<EncoderLayer>,
}

// ANCHOR: load
impl Bert {
    /// Each tensor of the file in its place. PyTorch's `nn.Linear` stores
    /// W as (out, in) and computes `x·Wᵀ`; `blocks` computes `x·W` with W
    /// (in, out), so every linear weight is transposed on the way in.
    pub fn load(w: &Weights, cfg: Config) -> Result<Bert, String> {
        let (d, f) = (cfg.d_model, cfg.d_ff);
        let linear = |name: &str, d_in: usize, d_out: usize| -> Result<Linear, String> {
            Ok(Linear {
                w: w.matrix(&format!("{name}.weight"), (d_out, d_in))?.transpose().to_owned(),
                b: w.row(&format!("{name}.bias"), d_out)?,
            })
        };
        let norm = |name: &str| -> Result<LayerNorm, String> {
            Ok(LayerNorm {
                gamma: w.row(&format!("{name}.weight"), d)?,
                beta: w.row(&format!("{name}.bias"), d)?,
                eps: EPS,
            })
        };
        let layers = (0..cfg.layers)
            .map(|i| {
                let at = |part: &str| format!("encoder.layer.{i}.{part}");
                Ok(EncoderLayer {
                    attn: MultiHeadAttention {
                        w_q: linear(&at("attention.self.query"), d, d)?,
                        w_k: linear(&at("attention.self.key"), d, d)?,
                        w_v: linear(&at("attention.self.value"), d, d)?,
                        w_o: linear(&at("attention.output.dense"), d, d)?,
                        heads: cfg.heads,
                    },
                    ln1: norm(&at("attention.output.LayerNorm"))?,
                    ff: FeedForward {
                        up: linear(&at("intermediate.dense"), d, f)?,
                        down: linear(&at("output.dense"), f, d)?,
                        act: Activation::GeluErf,
                    },
                    ln2: norm(&at("output.LayerNorm"))?,
                    post: true,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Bert {
            cfg,
            word: w.matrix("embeddings.word_embeddings.weight", (cfg.vocab, d))?,
            position: w.matrix("embeddings.position_embeddings.weight", (cfg.max_positions, d))?,
            token_type: w.matrix("embeddings.token_type_embeddings.weight", (2, d))?,
            embed_ln: norm("embeddings.LayerNorm")?,
            layers,
        })
    }
}
// ANCHOR_END: load

// ANCHOR: forward
impl Bert {
    /// Token, position and token-type vectors added, then a layer norm:
    /// (S, d) for the ids of one sentence (all of token type 0).
    pub fn embed(&self, ids: &[usize]) -> Mat<f64> {
        let x = Mat::from_fn(ids.len(), self.cfg.d_model, |p, j| {
            self.word[(ids[p], j)] + self.position[(p, j)] + self.token_type[(0, j)]
        });
        self.embed_ln.forward(&x)
    }

    /// Every layer in turn; `keep` (S, S), 1 = may look, hides padding.
    /// Returns the last layer's output and each layer's heads.
    pub fn forward(
        &self,
        ids: &[usize],
        keep: Option<&Mat<f64>>,
    ) -> (Mat<f64>, Vec<Vec<Attention>>) {
        let mut x = self.embed(ids); // (S, d)
        let mut weights = Vec::with_capacity(self.layers.len());
        for layer in &self.layers {
            let (y, heads) = layer.forward_with_weights(&x, keep);
            x = y;
            weights.push(heads);
        }
        (x, weights)
    }

    /// The sentence embedding: the mean of the output rows of the real
    /// tokens (`real[p]`), divided by its length.
    pub fn sentence_embedding(&self, ids: &[usize], real: &[bool]) -> Vec<f64> {
        let keep = Mat::from_fn(ids.len(), ids.len(), |_, k| if real[k] { 1.0 } else { 0.0 });
        let (out, _) = self.forward(ids, Some(&keep));
        let n = real.iter().filter(|&&r| r).count() as f64;
        let mean: Vec<f64> = (0..out.ncols())
            .map(|j| (0..out.nrows()).filter(|&p| real[p]).map(|p| out[(p, j)]).sum::<f64>() / n)
            .collect();
        let norm = mean.iter().map(|v| v * v).sum::<f64>().sqrt();
        mean.iter().map(|v| v / norm).collect()
    }
}
// ANCHOR_END: forward

/// Cosine similarity of two unit vectors: their dot product.
pub fn cosine(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
