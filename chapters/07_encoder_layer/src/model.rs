//! The encoder-only model of Lecture 17 demo 04.3 (and of the gradient
//! measurement of Lecture 6 script 04.3): token embeddings plus the
//! paper's sinusoids, N encoder layers, a final layer norm when the layers
//! are Pre-LN, and a linear read-out of the symbols at every position.

use autograd::nn::{Embedding, EncoderLayer, LayerNorm, Linear, Norm, sinusoidal};
use autograd::{Params, Smoothing, Tape, Var};
use faer::Mat;
use rand::RngExt;

/// The model's shape. The lecture gives no width for demo 04.3, so the
/// book uses d_model 64, 4 heads, d_ff 256 (the lectures' small model).
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub d_model: usize,
    pub heads: usize,
    pub d_ff: usize,
    pub layers: usize,
    pub norm: Norm,
}

/// The book's small encoder: d_model 64, 4 heads, d_ff 256.
pub fn small(layers: usize, norm: Norm) -> Shape {
    Shape { d_model: 64, heads: 4, d_ff: 256, layers, norm }
}

/// Sequence length and alphabet of the in-place reversal task.
pub const LEN: usize = 16;
pub const SYMBOLS: usize = 10;

#[derive(Clone, Debug)]
pub struct Encoder {
    pub embed: Embedding,
    pub layers: Vec<EncoderLayer>,
    /// Pre-LN only: the norm after the last layer.
    pub final_ln: Option<LayerNorm>,
    pub out: Linear,
    pub d_model: usize,
}

impl Encoder {
    pub fn new(params: &mut Params<f32>, s: Shape, rng: &mut impl rand::Rng) -> Self {
        let embed = Embedding::new(params, "embed", SYMBOLS, s.d_model, rng);
        let layers = (0..s.layers)
            .map(|i| {
                let name = format!("layer{i}");
                EncoderLayer::new(params, &name, s.d_model, s.heads, s.d_ff, s.norm, rng)
            })
            .collect();
        let final_ln = (s.norm == Norm::Pre).then(|| LayerNorm::new(params, "final_ln", s.d_model));
        let out = Linear::new(params, "out", s.d_model, SYMBOLS, true, rng);
        Encoder { embed, layers, final_ln, out, d_model: s.d_model }
    }

    // ANCHOR: forward
    /// Logits (B·L, 10) for the symbols `src` (B·L ids), position by position.
    pub fn forward<'t>(&self, tape: &'t Tape<f32>, src: &[usize], batch: usize) -> Var<'t, f32> {
        let pe = sinusoidal::<f32>(LEN, self.d_model); // (L, d)
        let pe = Mat::from_fn(batch * LEN, self.d_model, |r, j| pe[(r % LEN, j)]); // (B·L, d)
        let mut x = self.embed.forward(tape, src).add(tape.input(pe)); // (B·L, d)
        for layer in &self.layers {
            x = layer.forward(x, batch, None).0; // no mask: every position sees all
        }
        if let Some(ln) = &self.final_ln {
            x = ln.forward(x); // Pre-LN: the residual stream is normalised once, at the end
        }
        self.out.forward(x) // (B·L, 10)
    }
    // ANCHOR_END: forward

    pub fn loss<'t>(&self, tape: &'t Tape<f32>, b: &Batch) -> Var<'t, f32> {
        self.forward(tape, &b.src, b.size).cross_entropy(&b.target, None, Smoothing::None)
    }
}

/// `size` sequences of `LEN` random symbols; position i's answer is the
/// input at position L − 1 − i of the same sequence.
pub struct Batch {
    pub size: usize,
    pub src: Vec<usize>,
    pub target: Vec<usize>,
}

pub fn batch(size: usize, rng: &mut impl rand::Rng) -> Batch {
    let src: Vec<usize> = (0..size * LEN).map(|_| rng.random_range(0..SYMBOLS)).collect();
    let target = (0..size * LEN).map(|r| src[r - r % LEN + (LEN - 1 - r % LEN)]).collect();
    Batch { size, src, target }
}

/// Share of positions whose largest logit is the right symbol.
pub fn accuracy(model: &Encoder, params: &Params<f32>, b: &Batch) -> f64 {
    let tape = Tape::new(params);
    let logits = model.forward(&tape, &b.src, b.size);
    let s = logits.value();
    let best = |r: usize| blocks::argmax((0..SYMBOLS).map(|c| f64::from(s[(r, c)])));
    let right = (0..s.nrows()).filter(|&r| best(r) == Some(b.target[r])).count();
    right as f64 / s.nrows() as f64
}
