//! The small decoder layer the mask demos look into: d_model 16, 2 heads,
//! d_ff 64, Post-LN (LayerNorm after each residual sum), a target of 5
//! positions and an encoder output ("memory") of 6, all random. Small
//! enough to print every weight.

use autograd::nn::{DecoderLayer, DecoderWeights, Norm};
use autograd::{Params, Tape};
use faer::Mat;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Target positions.
pub const N: usize = 5;
/// Source positions (rows of the memory).
pub const N_SRC: usize = 6;
pub const D_MODEL: usize = 16;
pub const HEADS: usize = 2;
pub const D_FF: usize = 64;

/// Labels of the target positions and of the source positions.
pub const POS: [&str; N] = ["0", "1", "2", "3", "4"];
pub const SRC: [&str; N_SRC] = ["0", "1", "2", "3", "4", "5"];

/// Entries uniform in ±1.
pub fn random(rows: usize, cols: usize, rng: &mut Pcg64Mcg) -> Mat<f64> {
    Mat::from_fn(rows, cols, |_, _| rng.random_range(-1.0..1.0))
}

pub struct Small {
    pub params: Params<f64>,
    pub layer: DecoderLayer,
    /// The decoder's input (N, d_model): target embeddings plus positions.
    pub y: Mat<f64>,
    /// The encoder's output (N_SRC, d_model).
    pub memory: Mat<f64>,
}

impl Small {
    pub fn new(seed: u64) -> Self {
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let mut params = Params::new();
        let layer =
            DecoderLayer::new(&mut params, "dec", D_MODEL, HEADS, D_FF, Norm::Post, &mut rng);
        let y = random(N, D_MODEL, &mut rng);
        let memory = random(N_SRC, D_MODEL, &mut rng);
        Small { params, layer, y, memory }
    }

    /// The same layer with its self-attention's output projection W^O
    /// multiplied by `factor`: a larger share of the residual sum.
    pub fn with_attention_scaled(seed: u64, factor: f64) -> Self {
        let mut small = Small::new(seed);
        let w_o = &mut small.params.get_mut(small.layer.self_attn.w_o.w).value;
        *w_o = Mat::from_fn(w_o.nrows(), w_o.ncols(), |i, j| factor * w_o[(i, j)]);
        small
    }

    /// The layer's output (N, d_model) for input `y`, self-attention under
    /// `keep` (N, N), and head 0 of each of its two attentions.
    pub fn forward(&self, y: &Mat<f64>, keep: Option<&Mat<f64>>) -> (Mat<f64>, HeadZero) {
        let tape = Tape::new(&self.params);
        let (out, w) = self.forward_on(&tape, tape.input(y.clone()), keep);
        let head_zero = HeadZero {
            self_attn: w.self_attn.head(&tape, 0, 0),
            cross_attn: w.cross_attn.head(&tape, 0, 0),
        };
        (out.value().clone(), head_zero)
    }

    /// The same on a given tape, from a given input node.
    pub fn forward_on<'t>(
        &self,
        tape: &'t Tape<f64>,
        y: autograd::Var<'t, f64>,
        keep: Option<&Mat<f64>>,
    ) -> (autograd::Var<'t, f64>, DecoderWeights) {
        let memory = tape.input(self.memory.clone());
        self.layer.forward(y, memory, 1, keep, None)
    }
}

/// The weights of head 0 of the layer's two attentions.
pub struct HeadZero {
    /// Self-attention, (N, N): target queries, target keys.
    pub self_attn: Mat<f64>,
    /// Cross-attention, (N, N_SRC): target queries, source keys.
    pub cross_attn: Mat<f64>,
}

/// Rows `start..start + len` of `m`.
pub fn rows(m: &Mat<f64>, start: usize, len: usize) -> Mat<f64> {
    m.as_ref().submatrix(start, 0, len, m.ncols()).to_owned()
}
