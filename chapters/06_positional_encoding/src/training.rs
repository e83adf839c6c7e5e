//! Lecture 17 demo 03.5 with Lecture 6 02.3 and 02.4 — how much the
//! positions matter when the task is all about order, and why their scale
//! against the word embeddings matters as much.

use autograd::nn::init::normal;
use autograd::nn::{DecoderOnly, Norm, Positions, Seq2Seq, Seq2SeqConfig};
use autograd::train::{Recipe, Trained, reversal_run};
use autograd::{Params, Tape};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use rayon::prelude::*;
use record::{Notebook, say, show};

use crate::sinusoids::{encoding, norm};

// ANCHOR: learned_limit
/// A learned position table has as many rows as the longest sequence it
/// was built for; one position more is an error, reported, not a panic.
pub fn learned_limit(seed: u64, nb: &mut Notebook) {
    nb.demo("learned_limit", "L6 02.3 · A learned table of 8 positions meets a sequence of 9");
    let cfg = Seq2SeqConfig {
        vocab: 12,
        d_model: 16,
        heads: 2,
        d_ff: 32,
        layers: 1,
        norm: Norm::Pre,
        positions: Positions::Learned(8),
        scale_embeddings: false,
        scaled_attention: true,
    };
    let mut params = Params::<f64>::new();
    let lm = DecoderOnly::new(&mut params, cfg, &mut Pcg64Mcg::seed_from_u64(seed));
    let tape = Tape::new(&params);
    for len in [8, 9] {
        let ids: Vec<usize> = (0..len).map(|t| 2 + t % 10).collect();
        match lm.forward(&tape, &ids, 1) {
            Ok(logits) => say!(nb, "length {len}: logits of shape {:?}", logits.shape()),
            Err(e) => {
                let e = nb.value("too_long_message", e.to_string());
                say!(nb, "length {len}: refused — {e}");
            }
        }
    }
    let far = encoding(9999.0, 16);
    say!(
        nb,
        "the sinusoids have a vector for any position, e.g. PE(9999)[0..4] = {}",
        show::tuple(far[..4].iter().copied(), 3)
    );
}
// ANCHOR_END: learned_limit

/// The four ways of giving the model positions that §6.6 compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    None,
    Sinusoidal,
    Learned,
    /// Sinusoids, with the embeddings multiplied by √d_model first.
    ScaledEmbeddings,
}

impl Kind {
    pub const ALL: [Kind; 4] =
        [Kind::None, Kind::Sinusoidal, Kind::Learned, Kind::ScaledEmbeddings];

    /// Name in recorded values, and label in the table.
    pub fn tag(self) -> (&'static str, &'static str) {
        match self {
            Kind::None => ("none", "no positions"),
            Kind::Sinusoidal => ("sinusoidal", "sinusoidal"),
            Kind::Learned => ("learned", "learned table"),
            Kind::ScaledEmbeddings => ("scaled", "sinusoidal, embeddings × √d"),
        }
    }

    /// The §9 Transformer with these positions, for sequences of `len`.
    pub fn config(self, vocab: usize, len: usize) -> Seq2SeqConfig {
        let base = Seq2SeqConfig::lecture17(vocab);
        match self {
            Kind::None => Seq2SeqConfig { positions: Positions::None, ..base },
            Kind::Sinusoidal => base,
            Kind::Learned => Seq2SeqConfig { positions: Positions::Learned(len), ..base },
            Kind::ScaledEmbeddings => Seq2SeqConfig { scale_embeddings: true, ..base },
        }
    }
}

/// Token accuracy of a model that sees the input only as a bag of symbols
/// and always answers its most frequent one (ties: the smallest).
pub fn most_frequent_baseline(len: usize, recipe: &Recipe, seed: u64) -> f64 {
    let test = autograd::data::reversal(
        &mut Pcg64Mcg::seed_from_u64(seed),
        recipe.test,
        len,
        recipe.symbols,
    );
    let mut right = 0;
    for (src, tgt) in test.src.chunks(len).zip(test.tgt_out.chunks(len)) {
        let mut counts = vec![0; recipe.vocab()];
        src.iter().for_each(|&t| counts[t] += 1);
        let mode = (0..counts.len()).rev().max_by_key(|&t| counts[t]).unwrap();
        right += tgt.iter().filter(|&&t| t == mode).count();
    }
    right as f64 / test.tgt_out.len() as f64
}

/// Expected token accuracy of a model that emits the input's own symbols
/// in an order that ignores positions: Σ_s c_s² / L² per sequence, where
/// c_s counts symbol s (position t is right with probability c_{target}/L).
pub fn bag_order_baseline(len: usize, recipe: &Recipe, seed: u64) -> f64 {
    let test = autograd::data::reversal(
        &mut Pcg64Mcg::seed_from_u64(seed),
        recipe.test,
        len,
        recipe.symbols,
    );
    let mut total = 0.0;
    for src in test.src.chunks(len) {
        let mut counts = vec![0usize; recipe.vocab()];
        src.iter().for_each(|&t| counts[t] += 1);
        total += counts.iter().map(|&c| (c * c) as f64).sum::<f64>() / (len * len) as f64;
    }
    total / recipe.test as f64
}

// ANCHOR: reversal
/// The tiny Transformer of §9 (one encoder and one decoder layer, d_model
/// 64, 4 heads) learning to reverse sequences, with four kinds of positions.
pub fn reversal(len: usize, steps: u32, seeds: &[u64], nb: &mut Notebook) {
    nb.demo("reversal", "L17 03.5 · L6 02.4 · Reversal with and without positions");
    let recipe = Recipe::reversal(len, steps);
    let (lr, warmup, batch) = (show::short(recipe.lr), recipe.warmup, recipe.batch);
    let chance = nb.value("chance", show::num(1.0 / recipe.symbols as f64, 3));
    say!(
        nb,
        "reversal, L = {len}, {} symbols: guessing gets {chance} of the tokens",
        recipe.symbols
    );
    say!(
        nb,
        "Adam {lr} after {warmup} warmup steps, batch {batch}, {steps} steps, seeds {seeds:?}"
    );
    say!(nb, "then greedy decoding of {} new sequences", recipe.test);
    let runs: Vec<(Kind, u64)> =
        Kind::ALL.iter().flat_map(|&k| seeds.iter().map(move |&s| (k, s))).collect();
    let results: Vec<Trained> = runs
        .par_iter()
        .map(|&(kind, s)| reversal_run(kind.config(recipe.vocab(), len), &recipe, s).2)
        .collect();
    say!(
        nb,
        "{:>28} {:>5} {:>11} {:>11} {:>14}",
        "positions",
        "seed",
        "final loss",
        "token acc.",
        "sequence acc."
    );
    for kind in Kind::ALL {
        let (tag, label) = kind.tag();
        let mut tokens = Vec::new();
        for (&(_, s), r) in runs.iter().zip(&results).filter(|((k, _), _)| *k == kind) {
            let i = s - seeds[0];
            let loss = nb.value(&format!("rev_{tag}_seed{i}_loss"), show::num(r.final_loss(10), 3));
            let tok =
                nb.value(&format!("rev_{tag}_seed{i}_tokens"), show::num(r.token_accuracy, 3));
            let seq = nb
                .value(&format!("rev_{tag}_seed{i}_sequences"), show::num(r.sequence_accuracy, 3));
            say!(nb, "{label:>28} {s:>5} {loss:>11} {tok:>11} {seq:>14}");
            tokens.push(r.token_accuracy);
        }
        let mean = tokens.iter().sum::<f64>() / tokens.len() as f64;
        nb.value(&format!("rev_{tag}_tokens_mean"), show::num(mean, 3));
    }
    // what the bag of symbols alone allows, on the first seed's test sequences
    let bag = most_frequent_baseline(len, &recipe, seeds[0] + 200);
    let bag = nb.value("most_frequent", show::num(bag, 3));
    say!(nb, "always answering the input's most frequent symbol: token accuracy {bag}");
    let order = bag_order_baseline(len, &recipe, seeds[0] + 200);
    let order = nb.value("bag_order", show::num(order, 3));
    say!(nb, "emitting the input's symbols in a position-blind order: expected {order}");
}
// ANCHOR_END: reversal

// ANCHOR: scale_of_signals
/// Why "× √d_model" failed above: compare the length of what is added.
pub fn scale_of_signals(seed: u64, nb: &mut Notebook) {
    nb.demo("scale_of_signals", "L17 §6.6 · L6 02.4 · Two signals added: look at their scales");
    // The model above: embeddings drawn N(0, 1), as PyTorch's nn.Embedding.
    let cfg = Seq2SeqConfig::lecture17(Recipe::reversal(16, 1).vocab());
    let d = cfg.d_model;
    let mut params = Params::<f64>::new();
    let _model = Seq2Seq::new(&mut params, cfg, &mut Pcg64Mcg::seed_from_u64(seed));
    let table = &params.get(params.find("src.tokens.table").expect("the source embedding")).value;
    let mean_norm = (0..table.nrows()).map(|t| norm(table.row(t).iter().copied())).sum::<f64>()
        / table.nrows() as f64;
    let root = (d as f64).sqrt();
    let e = nb.value("emb_norm", show::num(mean_norm, 2));
    let scaled = nb.value("emb_norm_scaled", show::num(mean_norm * root, 1));
    let pe = nb.value("pe_norm", show::num((d as f64 / 2.0).sqrt(), 2));
    say!(nb, "d_model {d}, embeddings N(0, 1): mean ‖e‖ over the {} tokens = {e}", table.nrows());
    say!(nb, "  × √{d} = {} → {scaled}, against ‖PE‖ = √(d/2) = {pe}", show::short(root));

    // Lecture 6's reading, d = 512, embeddings drawn N(0, 1/d): then the
    // encodings drown the words unless the embeddings are multiplied by √d.
    let d = 512;
    let n = 1000;
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let emb = normal::<f64>(n, d, 1.0 / (d as f64).sqrt(), &mut rng); // (1000, 512)
    let cosine = |factor: f64| -> f64 {
        let mut total = 0.0;
        for t in 0..n {
            let e: Vec<f64> = emb.row(t).iter().map(|v| factor * v).collect();
            let sum: Vec<f64> = e.iter().zip(encoding(t as f64, d)).map(|(a, b)| a + b).collect();
            let dot: f64 = sum.iter().zip(&e).map(|(a, b)| a * b).sum();
            total += dot / (norm(sum.iter().copied()) * norm(e.iter().copied()));
        }
        total / n as f64
    };
    let plain = nb.value("cos_plain", show::num(cosine(1.0), 3));
    let times = nb.value("cos_scaled", show::num(cosine((d as f64).sqrt()), 3));
    say!(nb, "d_model {d}, embeddings N(0, 1/d), token t at position t, t < {n}:");
    say!(nb, "  mean cos(e + PE, e) = {plain}; with √d·e: mean cos(√d·e + PE, √d·e) = {times}");
}
// ANCHOR_END: scale_of_signals
