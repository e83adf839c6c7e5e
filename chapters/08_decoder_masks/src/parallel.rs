//! Lecture 17 demo 04.5 (§8.4) and Lecture 6 script 05.1 — training runs
//! every position at once under the look-ahead mask; generation must go
//! one position at a time. The two give the same numbers, and a KV cache
//! makes the step-by-step way cost what the parallel one costs.

use autograd::flops::counting;
use autograd::nn::decode::KvCache;
use autograd::nn::{DecoderLayer, Norm, Seq2Seq, Seq2SeqConfig};
use autograd::{Params, Tape};
use blocks::layers::causal_mask;
use blocks::{max_diff, worse};
use faer::Mat;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

use crate::small::{random, rows};

/// A stack of decoder layers and the encoder output they read.
struct Stack {
    params: Params<f64>,
    layers: Vec<DecoderLayer>,
    memory: Mat<f64>,
}

impl Stack {
    /// Each layer's cross-attention keys and values, (s_src, d_model) each:
    /// they depend on the memory alone.
    fn cross_kv(&self, tape: &Tape<f64>) -> Vec<(Mat<f64>, Mat<f64>)> {
        let memory = tape.input(self.memory.clone());
        let project = |w: &autograd::nn::Linear| w.forward(memory).value().clone();
        self.layers
            .iter()
            .map(|l| (project(&l.cross_attn.w_k), project(&l.cross_attn.w_v)))
            .collect()
    }

    /// Every row of `y` (S, d) at once, under the look-ahead mask.
    fn parallel(&self, y: &Mat<f64>) -> Mat<f64> {
        let tape = Tape::new(&self.params);
        let keep = causal_mask(y.nrows());
        let (mut h, memory) = (tape.input(y.clone()), tape.input(self.memory.clone()));
        for layer in &self.layers {
            h = layer.forward(h, memory, 1, Some(&keep), None).0;
        }
        h.value().clone()
    }

    /// One row at a time: row t reuses the keys and values that rows
    /// 0..t left in each layer's cache, and adds its own.
    fn cached(&self, y: &Mat<f64>) -> Mat<f64> {
        let tape = Tape::new(&self.params);
        let cross = self.cross_kv(&tape); // once, for every step
        let mut caches = vec![KvCache::default(); self.layers.len()];
        let mut out = Mat::zeros(y.nrows(), y.ncols());
        for t in 0..y.nrows() {
            let mut h = tape.input(rows(y, t, 1)); // (1, d): the newest position only
            for (layer, (cache, kv)) in self.layers.iter().zip(caches.iter_mut().zip(&cross)) {
                h = layer.step(h, kv, cache, 1);
            }
            out.as_mut().submatrix_mut(t, 0, 1, y.ncols()).copy_from(&*h.value());
        }
        out
    }
}

// ANCHOR: parallel_vs_steps
pub fn parallel_vs_steps(len: usize, n_layers: usize, seed: u64, nb: &mut Notebook) {
    nb.demo(
        "parallel_vs_steps",
        "L17 04.5 · One causal pass, the prefixes one by one, and the KV cache",
    );
    let (d_model, heads, d_ff, s_src) = (64, 4, 256, 8);
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut params = Params::new();
    let layers: Vec<DecoderLayer> = (0..n_layers)
        .map(|i| {
            let name = format!("dec.{i}");
            DecoderLayer::new(&mut params, &name, d_model, heads, d_ff, Norm::Post, &mut rng)
        })
        .collect();
    let memory = random(s_src, d_model, &mut rng); // (s_src, d_model)
    let y = random(len, d_model, &mut rng); // (len, d_model): the target, embedded
    let stack = Stack { params, layers, memory };
    say!(
        nb,
        "{n_layers} decoder layers, d_model {d_model}, target of {len} positions, source of {s_src}"
    );
    let (all, parallel) = counting(|| stack.parallel(&y));
    // training sees the whole target; generation sees only the prefix so far
    let (prefix_diff, prefixes) = counting(|| {
        (1..=len)
            .map(|t| {
                max_diff(&rows(&stack.parallel(&rows(&y, 0, t)), t - 1, 1), &rows(&all, t - 1, 1))
            })
            .fold(0.0, worse)
    });
    let (cached, cache) = counting(|| stack.cached(&y));
    let prefix_diff = nb.value("prefix_vs_parallel", show::sci(prefix_diff, 1));
    let cache_diff = nb.value("cache_vs_parallel", show::sci(max_diff(&cached, &all), 1));
    say!(nb, "prefix passes vs one causal pass: max |Δ| = {prefix_diff}");
    say!(nb, "KV cache vs one causal pass:      max |Δ| = {cache_diff}");
    // the memory's keys and values: once per pass, so `len` times by prefixes
    let kv = counting(|| stack.cross_kv(&Tape::new(&stack.params))).1.flops;
    let rows_run = [len, len * (len + 1) / 2, len];
    let kv_runs = [kv, len as u64 * kv, kv];
    say!(
        nb,
        "{:<21}{:>7}{:>11}{:>14}{:>13}{:>12}",
        "",
        "passes",
        "positions",
        "FLOPs",
        "memory K,V",
        "the rest"
    );
    let mut rest = [0; 3];
    for (i, (label, name, passes, flops)) in [
        ("one causal pass", "parallel", 1, parallel.flops),
        ("prefix by prefix", "prefixes", len, prefixes.flops),
        ("one by one, KV cache", "cache", len, cache.flops),
    ]
    .into_iter()
    .enumerate()
    {
        rest[i] = flops - kv_runs[i];
        let positions = nb.value(&format!("positions_{name}"), rows_run[i].to_string());
        let flops = nb.value(&format!("flops_{name}"), show::grouped(flops as usize));
        let kv = nb.value(&format!("flops_kv_{name}"), show::grouped(kv_runs[i] as usize));
        let other = nb.value(&format!("flops_rest_{name}"), show::grouped(rest[i] as usize));
        say!(nb, "{label:<21}{passes:>7}{positions:>11}{flops:>14}{kv:>13}{other:>12}");
    }
    let ratio = |a: u64, b: u64| show::num(a as f64 / b as f64, 2);
    let prefix_ratio = nb.value("flops_prefix_ratio", ratio(prefixes.flops, parallel.flops));
    let rest_ratio = nb.value("flops_rest_ratio", ratio(rest[1], rest[0]));
    let positions_ratio = nb.value("positions_ratio", show::num((len + 1) as f64 / 2.0, 2));
    say!(nb, "prefixes / causal pass: all FLOPs {prefix_ratio}, positions {positions_ratio},");
    say!(nb, "  FLOPs without the memory's K,V {rest_ratio}");
    nb.value("flops_cache_ratio", ratio(cache.flops, parallel.flops));
    // the scores above the diagonal: a dot product of d_h and a weight × value row
    // each, per head and layer — computed by the causal pass, never by the cache
    let masked = len * (len - 1) / 2;
    let skipped = masked * 2 * (d_model / heads) * heads * 2 * n_layers;
    let masked = nb.value("masked_scores", masked.to_string());
    nb.value("masked_share", show::num(100.0 * (len - 1) as f64 / (2 * len) as f64, 1));
    let skipped = nb.value("flops_masked_scores", show::grouped(skipped));
    let saved =
        nb.value("flops_cache_saves", show::grouped((parallel.flops - cache.flops) as usize));
    say!(nb, "causal pass − cache = {saved}; the {masked} masked scores cost {skipped}");
}
// ANCHOR_END: parallel_vs_steps

// ANCHOR: teacher_forcing
pub fn teacher_forcing(seed: u64, nb: &mut Notebook) {
    nb.demo("teacher_forcing", "L6 05.1 · Teacher forcing: one forward pass or one per prefix");
    let len = 7;
    let vocab = 2 + 10; // PAD, BOS, ten symbols
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut params = Params::<f64>::new();
    let model = Seq2Seq::new(&mut params, Seq2SeqConfig::lecture17(vocab), &mut rng);
    let src: Vec<usize> = (0..len).map(|_| 2 + rng.random_range(0..10)).collect();
    let tgt_out: Vec<usize> = src.iter().rev().copied().collect(); // the reversal task
    let tgt_in: Vec<usize> = std::iter::once(1).chain(tgt_out[..len - 1].iter().copied()).collect();
    say!(nb, "source {src:?} → target {tgt_out:?}; decoder input {tgt_in:?} (BOS = 1)");
    // log P(y_t | y_<t, x) for t = 0..len from the logits of one forward pass
    let log_probs = |tgt: &[usize]| -> Mat<f64> {
        let tape = Tape::new(&params);
        let out = model.forward(&tape, &src, tgt, 1).expect("short enough for the positions");
        out.logits.log_softmax_rows().value().clone() // (tgt.len(), vocab)
    };
    let once = log_probs(&tgt_in);
    let mut worst: f64 = 0.0;
    let mut total = 0.0;
    for t in 0..len {
        let by_prefix = log_probs(&tgt_in[..=t]); // (t + 1, vocab)
        worst = worse(worst, (by_prefix[(t, tgt_out[t])] - once[(t, tgt_out[t])]).abs());
        total -= once[(t, tgt_out[t])];
    }
    let worst = nb.value("teacher_forcing_diff", show::sci(worst, 1));
    let loss = nb.value("teacher_forcing_loss", show::num(total / len as f64, 4));
    let passes = nb.value("teacher_forcing_passes", len.to_string());
    say!(nb, "max |Δ log P| between the two ways: {worst}; forward passes 1 vs {passes}");
    let uniform = nb.value("guess_loss", show::num(libm::log(vocab as f64), 4));
    say!(
        nb,
        "mean −log P of the target: {loss} (untrained; guessing among {vocab}: ln {vocab} = {uniform})"
    );
}
// ANCHOR_END: teacher_forcing
