//! GRUs — Lecture 17 §9's baselines: a GRU, a GRU encoder–decoder, and the
//! same with Luong attention.
//!
//! Sequences run time-major inside a GRU: step `t` of a batch is rows
//! `t·B .. (t+1)·B`, so each step is a contiguous block and the input
//! projections of all steps are one matrix product.

use faer::Mat;

use crate::nn::attention::attend;
use crate::nn::init;
use crate::nn::layers::{Embedding, Linear};
use crate::{Heads, ParamId, Params, Real, Tape, Var, Weights, concat_cols, concat_rows};

/// The weights of one GRU layer (PyTorch's layout, transposed to the row
/// convention): `W_i` (E, 3H), `W_h` (H, 3H), biases (1, 3H), gates r, z, n.
#[derive(Clone, Debug)]
pub struct GruCell {
    pub w_i: ParamId,
    pub b_i: ParamId,
    pub w_h: ParamId,
    pub b_h: ParamId,
    pub hidden: usize,
}

impl GruCell {
    /// PyTorch's default: every weight and bias uniform in ±1/√H.
    pub fn new<T: Real>(
        params: &mut Params<T>,
        name: &str,
        input: usize,
        hidden: usize,
        rng: &mut impl rand::Rng,
    ) -> Self {
        let k = 1.0 / (hidden as f64).sqrt();
        GruCell {
            w_i: params.add(format!("{name}.w_i"), init::uniform(input, 3 * hidden, k, rng)),
            b_i: params.add(format!("{name}.b_i"), init::uniform(1, 3 * hidden, k, rng)),
            w_h: params.add(format!("{name}.w_h"), init::uniform(hidden, 3 * hidden, k, rng)),
            b_h: params.add(format!("{name}.b_h"), init::uniform(1, 3 * hidden, k, rng)),
            hidden,
        }
    }

    /// The input projections `x·W_i + b_i` of every step at once.
    pub fn project<'t, T: Real>(&self, x: Var<'t, T>) -> Var<'t, T> {
        let tape = x.tape();
        x.linear(tape.param(self.w_i), tape.param(self.b_i))
    }

    /// One step from state `h` (B, H) with this step's projection `gi` (B, 3H).
    pub fn step<'t, T: Real>(&self, h: Var<'t, T>, gi: Var<'t, T>) -> Var<'t, T> {
        let tape = h.tape();
        let (w_h, b_h) = (tape.param(self.w_h), tape.param(self.b_h));
        if tape.fused() { h.gru_step_fused(gi, w_h, b_h) } else { h.gru_step(gi, w_h, b_h) }
    }
}

/// A single-layer GRU over whole sequences.
#[derive(Clone, Debug)]
pub struct Gru {
    pub cell: GruCell,
}

impl Gru {
    pub fn new<T: Real>(
        params: &mut Params<T>,
        name: &str,
        input: usize,
        hidden: usize,
        rng: &mut impl rand::Rng,
    ) -> Self {
        Gru { cell: GruCell::new(params, name, input, hidden, rng) }
    }

    /// Run over `x` (S·B, E), time-major, from `h0` (B, H) (zeros if `None`).
    /// Returns every state (S·B, H), time-major, and the last (B, H).
    pub fn forward<'t, T: Real>(
        &self,
        x: Var<'t, T>,
        batch: usize,
        h0: Option<Var<'t, T>>,
    ) -> (Var<'t, T>, Var<'t, T>) {
        let tape = x.tape();
        let steps = x.shape().0 / batch;
        let gi = self.cell.project(x); // (S·B, 3H)
        let mut h = h0.unwrap_or_else(|| tape.input(Mat::zeros(batch, self.cell.hidden)));
        let mut states = Vec::with_capacity(steps);
        let (w_h, b_h) = (tape.param(self.cell.w_h), tape.param(self.cell.b_h));
        for t in 0..steps {
            // step t's projection is rows t·B .. (t+1)·B of gi (the fused
            // kernel reads them in place)
            h = if tape.fused() {
                h.gru_step_at(gi, t * batch, w_h, b_h)
            } else {
                h.gru_step(gi.slice_rows(t * batch, batch), w_h, b_h)
            };
            states.push(h);
        }
        (concat_rows(&states), h)
    }
}

/// Row order to turn a batch-major (B·S) sequence into time-major (S·B).
pub fn time_major(batch: usize, len: usize) -> Vec<usize> {
    (0..len).flat_map(|t| (0..batch).map(move |b| b * len + t)).collect()
}

/// Row order to turn a time-major (S·B) sequence into batch-major (B·S).
pub fn batch_major(batch: usize, len: usize) -> Vec<usize> {
    (0..batch).flat_map(|b| (0..len).map(move |t| t * batch + b)).collect()
}

/// The GRU encoder–decoder of Lecture 17 §9, with or without attention.
///
/// Without attention the decoder sees the source only through the
/// encoder's last state (its initial state). With attention it is Luong's
/// global attention with the dot score: at decoder step `t`, weights
/// `softmax(h_t · e_s)` over the encoder states `e_s`, context
/// `c_t = Σ_s w_s e_s`, output `tanh([c_t; h_t]·W_c + b_c)` (no input
/// feeding, so all steps' attention is computed at once after the decoder
/// has run).
#[derive(Clone, Debug)]
pub struct GruSeq2Seq {
    pub src_emb: Embedding,
    pub tgt_emb: Embedding,
    pub encoder: Gru,
    pub decoder: Gru,
    pub combine: Option<Linear>,
    pub out: Linear,
    pub hidden: usize,
}

impl GruSeq2Seq {
    #[allow(clippy::too_many_arguments)]
    pub fn new<T: Real>(
        params: &mut Params<T>,
        vocab: usize,
        embed: usize,
        hidden: usize,
        attention: bool,
        rng: &mut impl rand::Rng,
    ) -> Self {
        GruSeq2Seq {
            src_emb: Embedding::new(params, "src", vocab, embed, rng),
            tgt_emb: Embedding::new(params, "tgt", vocab, embed, rng),
            encoder: Gru::new(params, "encoder", embed, hidden, rng),
            decoder: Gru::new(params, "decoder", embed, hidden, rng),
            combine: attention
                .then(|| Linear::new(params, "combine", 2 * hidden, hidden, true, rng)),
            out: Linear::new(params, "out", hidden, vocab, true, rng),
            hidden,
        }
    }

    // ANCHOR: gru_seq2seq_forward
    /// Logits (B·S_t, vocab), batch-major, for teacher-forced targets, and
    /// the attention weights (if any). `src`, `tgt_in` are batch-major ids.
    pub fn forward<'t, T: Real>(
        &self,
        tape: &'t Tape<T>,
        src: &[usize],
        tgt_in: &[usize],
        batch: usize,
    ) -> (Var<'t, T>, Option<Weights>) {
        let (ls, lt) = (src.len() / batch, tgt_in.len() / batch);
        let src_tm: Vec<usize> = time_major(batch, ls).iter().map(|&r| src[r]).collect();
        let tgt_tm: Vec<usize> = time_major(batch, lt).iter().map(|&r| tgt_in[r]).collect();
        let (enc, last) = self.encoder.forward(self.src_emb.forward(tape, &src_tm), batch, None);
        let (dec, _) = self.decoder.forward(self.tgt_emb.forward(tape, &tgt_tm), batch, Some(last));
        let dec = dec.gather_rows(&batch_major(batch, lt)); // (B·S_t, H)
        match &self.combine {
            None => (self.out.forward(dec), None),
            Some(combine) => {
                let enc = enc.gather_rows(&batch_major(batch, ls)); // (B·S_s, H)
                let a = attend(dec, enc, enc, Heads { batch, heads: 1 }, None, false);
                let h = combine.forward(concat_cols(&[a.context, dec])).tanh();
                (self.out.forward(h), Some(a.weights))
            }
        }
    }
    // ANCHOR_END: gru_seq2seq_forward
}
