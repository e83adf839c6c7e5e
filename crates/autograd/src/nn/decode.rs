//! Greedy generation, one position at a time: the Transformer with or
//! without a KV cache, and the GRU encoder–decoders.
//!
//! Training runs the decoder on the whole target at once (teacher forcing
//! with a causal mask). Generation cannot: position `t + 1` needs the token
//! chosen at `t`. Without a cache each step re-runs the decoder on the whole
//! prefix. With a cache each step computes keys and values only for the new
//! position and appends them: the earlier ones cannot change, because the
//! causal mask never let them see the future. Both give the logits of one
//! causal pass over the generated sequence, which the tests check.

use faer::Mat;

use crate::nn::attention::MultiHeadAttention;
use crate::nn::attention::attend;
use crate::nn::gru::{GruSeq2Seq, batch_major, time_major};
use crate::nn::positions::sinusoidal;
use crate::nn::transformer::{Positions, Seq2Seq};
use crate::nn::transformer_layers::{DecoderLayer, Norm};
use crate::{Heads, Params, Real, Tape, Var, concat_cols};

/// Keys and values of the positions generated so far, one (B, d) matrix per
/// position, for one self-attention.
#[derive(Clone, Debug, Default)]
pub struct KvCache<T: Real> {
    pub k: Vec<Mat<T>>,
    pub v: Vec<Mat<T>>,
}

/// Stack per-position (B, d) matrices into a batch-major (B·t, d) matrix.
fn stack<T: Real>(steps: &[Mat<T>]) -> Mat<T> {
    let (b, d, t) = (steps[0].nrows(), steps[0].ncols(), steps.len());
    Mat::from_fn(b * t, d, |r, j| steps[r % t][(r / t, j)])
}

impl MultiHeadAttention {
    // ANCHOR: forward_cached
    /// Self-attention of the newest position `x_t` (B, d) over every cached
    /// position and itself; appends its key and value to `cache`.
    pub fn forward_cached<'t, T: Real>(
        &self,
        x_t: Var<'t, T>,
        cache: &mut KvCache<T>,
        batch: usize,
    ) -> Var<'t, T> {
        let tape = x_t.tape();
        let q = self.w_q.forward(x_t);
        cache.k.push(self.w_k.forward(x_t).value().clone());
        cache.v.push(self.w_v.forward(x_t).value().clone());
        let (k, v) = (tape.input(stack(&cache.k)), tape.input(stack(&cache.v)));
        let shape = Heads { batch, heads: self.heads };
        self.w_o.forward(attend(q, k, v, shape, None, self.scaled).context)
    }
    // ANCHOR_END: forward_cached

    /// Cross-attention of `x_t` (B, d) to keys and values computed once.
    pub fn forward_fixed_kv<'t, T: Real>(
        &self,
        x_t: Var<'t, T>,
        kv: &(Mat<T>, Mat<T>),
        batch: usize,
    ) -> Var<'t, T> {
        let tape = x_t.tape();
        let q = self.w_q.forward(x_t);
        let (k, v) = (tape.input(kv.0.clone()), tape.input(kv.1.clone()));
        let shape = Heads { batch, heads: self.heads };
        self.w_o.forward(attend(q, k, v, shape, None, self.scaled).context)
    }
}

impl DecoderLayer {
    /// One position through the layer, with the self-attention cache and the
    /// cross-attention keys and values of the encoder's output.
    pub fn step<'t, T: Real>(
        &self,
        y: Var<'t, T>,
        cross_kv: &(Mat<T>, Mat<T>),
        cache: &mut KvCache<T>,
        batch: usize,
    ) -> Var<'t, T> {
        match self.norm {
            Norm::Post => {
                let y = self.ln1.forward(y.add(self.self_attn.forward_cached(y, cache, batch)));
                let y =
                    self.ln2.forward(y.add(self.cross_attn.forward_fixed_kv(y, cross_kv, batch)));
                self.ln3.forward(y.add(self.ff.forward(y)))
            }
            Norm::Pre => {
                let y = y.add(self.self_attn.forward_cached(self.ln1.forward(y), cache, batch));
                let y =
                    y.add(self.cross_attn.forward_fixed_kv(self.ln2.forward(y), cross_kv, batch));
                y.add(self.ff.forward(self.ln3.forward(y)))
            }
        }
    }
}

/// What [`Seq2Seq::generate`] produced.
pub struct Generated<T: Real> {
    /// The chosen tokens, batch-major (B·steps).
    pub tokens: Vec<usize>,
    /// The logits of every step, (B, vocab) each.
    pub logits: Vec<Mat<T>>,
}

impl Seq2Seq {
    // ANCHOR: generate
    /// Greedy generation of `steps` tokens for each of `batch` sources,
    /// starting from `bos`, re-running the decoder on the prefix each step
    /// (`cached = false`) or with a KV cache (`cached = true`).
    #[allow(clippy::too_many_arguments)]
    pub fn generate<T: Real>(
        &self,
        params: &Params<T>,
        src: &[usize],
        batch: usize,
        steps: usize,
        bos: usize,
        cached: bool,
    ) -> Generated<T> {
        let memory = {
            let tape = Tape::new(params);
            self.encode(&tape, src, batch, None)
                .expect("source too long for the positions")
                .0
                .value()
                .clone()
        };
        let mut prefix: Vec<Vec<usize>> = vec![vec![bos]; batch];
        let mut logits = Vec::with_capacity(steps);
        let mut caches: Vec<KvCache<T>> = vec![KvCache::default(); self.decoder.len()];
        let cross: Vec<(Mat<T>, Mat<T>)> = {
            let tape = Tape::new(params);
            let m = tape.input(memory.clone());
            self.decoder
                .iter()
                .map(|l| {
                    // one statement each: a value's borrow must end before the next op
                    let k = l.cross_attn.w_k.forward(m).value().clone();
                    let v = l.cross_attn.w_v.forward(m).value().clone();
                    (k, v)
                })
                .collect()
        };
        for t in 0..steps {
            let tape = Tape::new(params);
            let step_logits = if cached {
                let last: Vec<usize> = prefix.iter().map(|p| p[t]).collect();
                let mut y = self.tgt_embed_at(&tape, &last, t);
                for (layer, (cache, kv)) in self.decoder.iter().zip(caches.iter_mut().zip(&cross)) {
                    y = layer.step(y, kv, cache, batch);
                }
                if let Some((_, ln)) = &self.final_ln {
                    y = ln.forward(y);
                }
                self.out.forward(y).value().clone()
            } else {
                let ids: Vec<usize> = prefix.iter().flatten().copied().collect();
                let m = tape.input(memory.clone());
                let all =
                    self.decode(&tape, m, &ids, batch, None).expect("too long").0.value().clone();
                Mat::from_fn(batch, all.ncols(), |b, j| all[(b * (t + 1) + t, j)])
            };
            for (b, p) in prefix.iter_mut().enumerate() {
                let row = (0..step_logits.ncols()).map(|j| step_logits[(b, j)].f64());
                p.push(blocks::argmax(row).expect("a vocabulary of at least one token"));
            }
            logits.push(step_logits);
        }
        Generated { tokens: prefix.iter().flat_map(|p| p[1..].to_vec()).collect(), logits }
    }
    // ANCHOR_END: generate

    /// The decoder's input for one token per sequence at position `t`: what
    /// a cached step of [`Seq2Seq::generate`] feeds the first layer. Public
    /// so that a chapter can write a decoding loop of its own.
    pub fn target_input_at<'t, T: Real>(
        &self,
        tape: &'t Tape<T>,
        ids: &[usize],
        t: usize,
    ) -> Var<'t, T> {
        self.tgt_embed_at(tape, ids, t)
    }

    /// The target embedding (plus position `t`) of one token per sequence.
    fn tgt_embed_at<'t, T: Real>(&self, tape: &'t Tape<T>, ids: &[usize], t: usize) -> Var<'t, T> {
        let cfg = &self.cfg;
        let mut x = self.tgt_tokens().forward(tape, ids);
        if cfg.scale_embeddings {
            x = x.scale((cfg.d_model as f64).sqrt());
        }
        match cfg.positions {
            Positions::None => x,
            Positions::Sinusoidal => {
                let pe = sinusoidal::<T>(t + 1, cfg.d_model);
                x.add(tape.input(Mat::from_fn(1, cfg.d_model, |_, j| pe[(t, j)])))
            }
            Positions::Learned(_) => {
                let table =
                    tape.param(self.tgt_positions().expect("learned positions").table.table);
                x.add(table.gather_rows(&vec![t; ids.len()]))
            }
        }
    }
}

impl GruSeq2Seq {
    /// Greedy generation of `steps` tokens for each of `batch` sources,
    /// starting from `bos`: the encoder runs once, then the decoder takes
    /// one GRU step per token from the state it left, attending (if it
    /// attends) to every encoder state.
    pub fn generate<T: Real>(
        &self,
        params: &Params<T>,
        src: &[usize],
        batch: usize,
        steps: usize,
        bos: usize,
    ) -> Generated<T> {
        let (enc, mut h) = {
            let tape = Tape::new(params);
            let ls = src.len() / batch;
            let src_tm: Vec<usize> = time_major(batch, ls).iter().map(|&r| src[r]).collect();
            let (enc, last) =
                self.encoder.forward(self.src_emb.forward(&tape, &src_tm), batch, None);
            let enc = enc.gather_rows(&batch_major(batch, ls)); // (B·S_s, H)
            (enc.value().clone(), last.value().clone())
        };
        let mut last = vec![bos; batch];
        let mut tokens = vec![0; batch * steps];
        let mut logits = Vec::with_capacity(steps);
        for t in 0..steps {
            let tape = Tape::new(params);
            let x = self.tgt_emb.forward(&tape, &last); // (B, E)
            let state = self.decoder.cell.step(tape.input(h), self.decoder.cell.project(x)); // (B, H)
            let feat = match &self.combine {
                None => state,
                Some(combine) => {
                    let e = tape.input(enc.clone());
                    let a = attend(state, e, e, Heads { batch, heads: 1 }, None, false);
                    combine.forward(concat_cols(&[a.context, state])).tanh()
                }
            };
            let step_logits = self.out.forward(feat).value().clone(); // (B, vocab)
            for b in 0..batch {
                let row = (0..step_logits.ncols()).map(|j| step_logits[(b, j)].f64());
                last[b] = blocks::argmax(row).expect("a vocabulary of at least one token");
                tokens[b * steps + t] = last[b];
            }
            h = state.value().clone();
            logits.push(step_logits);
        }
        Generated { tokens, logits }
    }
}
