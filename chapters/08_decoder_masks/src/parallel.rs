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

/// d_model, heads, d_ff and source length of the stack.
const STACK: (usize, usize, usize, usize) = (64, 4, 256, 8);

/// A stack of decoder layers and the encoder output they read.
pub struct Stack {
    params: Params<f64>,
    layers: Vec<DecoderLayer>,
    memory: Mat<f64>,
}

impl Stack {
    /// `n_layers` random Post-LN decoder layers and a random memory.
    pub fn new(n_layers: usize, rng: &mut Pcg64Mcg) -> Self {
        let (d_model, heads, d_ff, s_src) = STACK;
        let mut params = Params::new();
        let layers = (0..n_layers)
            .map(|i| {
                let name = format!("dec.{i}");
                DecoderLayer::new(&mut params, &name, d_model, heads, d_ff, Norm::Post, rng)
            })
            .collect();
        let memory = random(s_src, d_model, rng); // (s_src, d_model)
        Stack { params, layers, memory }
    }

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

    // ANCHOR: kv_cache_loop
    /// Way 1: every row of `y` (S, d) at once, under the look-ahead mask.
    pub fn parallel(&self, y: &Mat<f64>) -> Mat<f64> {
        let tape = Tape::new(&self.params);
        let keep = causal_mask(y.nrows()); // (S, S)
        let (mut h, memory) = (tape.input(y.clone()), tape.input(self.memory.clone()));
        for layer in &self.layers {
            h = layer.forward(h, memory, 1, Some(&keep), None).0; // (S, d)
        }
        h.value().clone()
    }

    /// Way 2, prefix by prefix: step t (counting from 0) runs way 1 on
    /// rows 0..=t from scratch and keeps only the last row.
    pub fn prefixes(&self, y: &Mat<f64>) -> Mat<f64> {
        let mut out = Mat::zeros(y.nrows(), y.ncols()); // (S, d)
        for t in 0..y.nrows() {
            let prefix = self.parallel(&rows(y, 0, t + 1)); // (t + 1, d)
            out.as_mut().submatrix_mut(t, 0, 1, y.ncols()).copy_from(&rows(&prefix, t, 1));
        }
        out
    }

    /// Way 3, one row at a time with a KV cache: row t reuses the keys and
    /// values that rows 0..t left in each layer's cache, and adds its own.
    pub fn cached(&self, y: &Mat<f64>) -> Mat<f64> {
        let tape = Tape::new(&self.params);
        let cross = self.cross_kv(&tape); // once, for every step
        let mut caches = vec![KvCache::default(); self.layers.len()];
        let mut out = Mat::zeros(y.nrows(), y.ncols()); // (S, d)
        for t in 0..y.nrows() {
            let mut h = tape.input(rows(y, t, 1)); // (1, d): the newest position only
            for (layer, (cache, kv)) in self.layers.iter().zip(caches.iter_mut().zip(&cross)) {
                h = layer.step(h, kv, cache, 1);
            }
            out.as_mut().submatrix_mut(t, 0, 1, y.ncols()).copy_from(&*h.value());
        }
        out
    }
    // ANCHOR_END: kv_cache_loop
}

/// What the three ways computed and cost.
pub struct ThreeWays {
    /// max |Δ| from one causal pass: prefix by prefix, and with the cache.
    pub prefix_diff: f64,
    pub cache_diff: f64,
    /// FLOPs of one causal pass, of every prefix, of the cached steps.
    pub flops: [u64; 3],
    /// FLOPs of projecting the memory into every layer's K and V, once.
    pub memory_kv: u64,
}

// ANCHOR: parallel_vs_steps
/// The stack on target `y` (S, d) the three ways: how far ways 2 and 3 are
/// from way 1, and the FLOPs of each (counted as the products happen).
pub fn three_ways(stack: &Stack, y: &Mat<f64>) -> ThreeWays {
    let (all, parallel) = counting(|| stack.parallel(y)); // (S, d)
    let (by_prefix, prefixes) = counting(|| stack.prefixes(y)); // (S, d)
    let (cached, cache) = counting(|| stack.cached(y)); // (S, d)
    let memory_kv = counting(|| stack.cross_kv(&Tape::new(&stack.params))).1.flops;
    ThreeWays {
        prefix_diff: max_diff(&by_prefix, &all),
        cache_diff: max_diff(&cached, &all),
        flops: [parallel.flops, prefixes.flops, cache.flops],
        memory_kv,
    }
}
// ANCHOR_END: parallel_vs_steps

pub fn parallel_vs_steps(len: usize, n_layers: usize, seed: u64, nb: &mut Notebook) {
    nb.demo(
        "parallel_vs_steps",
        "L17 04.5 · One causal pass, the prefixes one by one, and the KV cache",
    );
    let (d_model, heads, _, s_src) = STACK;
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let stack = Stack::new(n_layers, &mut rng);
    let y = random(len, d_model, &mut rng); // (len, d_model): the target, embedded
    let layers_shown = nb.value("stack_layers", n_layers.to_string());
    let d_shown = nb.value("stack_d_model", d_model.to_string());
    let heads_shown = nb.value("stack_heads", heads.to_string());
    let len_shown = nb.value("stack_len", len.to_string());
    say!(
        nb,
        "{layers_shown} decoder layers, d_model {d_shown}, {heads_shown} heads, target of {len_shown} positions, source of {s_src}"
    );
    let ways = three_ways(&stack, &y);
    let prefix_diff = nb.value("prefix_vs_parallel", show::sci(ways.prefix_diff, 1));
    let cache_diff = nb.value("cache_vs_parallel", show::sci(ways.cache_diff, 1));
    say!(nb, "prefix passes vs one causal pass: max |Δ| = {prefix_diff}");
    say!(nb, "KV cache vs one causal pass:      max |Δ| = {cache_diff}");
    // the memory's keys and values: once per pass, so `len` times by prefixes
    let kv = ways.memory_kv;
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
    let labels = [
        ("one causal pass", "parallel", 1),
        ("prefix by prefix", "prefixes", len),
        ("one by one, KV cache", "cache", len),
    ];
    for (i, (label, name, passes)) in labels.into_iter().enumerate() {
        let flops = ways.flops[i];
        rest[i] = flops - kv_runs[i];
        let positions = nb.value(&format!("positions_{name}"), rows_run[i].to_string());
        let flops = nb.value(&format!("flops_{name}"), show::grouped(flops as usize));
        let kv = nb.value(&format!("flops_kv_{name}"), show::grouped(kv_runs[i] as usize));
        let other = nb.value(&format!("flops_rest_{name}"), show::grouped(rest[i] as usize));
        say!(nb, "{label:<21}{passes:>7}{positions:>11}{flops:>14}{kv:>13}{other:>12}");
    }
    let [parallel, prefixes, cache] = ways.flops;
    let ratio = |a: u64, b: u64| show::num(a as f64 / b as f64, 2);
    let prefix_ratio = nb.value("flops_prefix_ratio", ratio(prefixes, parallel));
    let rest_ratio = nb.value("flops_rest_ratio", ratio(rest[1], rest[0]));
    let positions_ratio = nb.value("positions_ratio", show::num((len + 1) as f64 / 2.0, 2));
    say!(nb, "prefixes / causal pass: all FLOPs {prefix_ratio}, positions {positions_ratio},");
    say!(nb, "  FLOPs without the memory's K,V {rest_ratio}");
    nb.value("flops_cache_ratio", ratio(cache, parallel));
    let saved_vs_prefixes = nb.value("flops_cache_vs_prefixes", ratio(prefixes, cache));
    say!(nb, "prefixes / KV cache: {saved_vs_prefixes}");
    // the scores above the diagonal: a dot product of d_h and a weight × value row
    // each, per head and layer — computed by the causal pass, never by the cache
    let masked = len * (len - 1) / 2;
    let skipped = masked * 2 * (d_model / heads) * heads * 2 * n_layers;
    let masked = nb.value("masked_scores", masked.to_string());
    nb.value("masked_share", show::num(100.0 * (len - 1) as f64 / (2 * len) as f64, 1));
    let skipped = nb.value("flops_masked_scores", show::grouped(skipped));
    let saved = nb.value("flops_cache_saves", show::grouped((parallel - cache) as usize));
    say!(nb, "causal pass − cache = {saved}; the {masked} masked scores cost {skipped}");
}

// ANCHOR: teacher_forcing
/// log P(y_t | y_<t, x) of the right token at every target position t:
/// from one forward pass over the whole shifted target (teacher forcing),
/// and from one pass per prefix, each keeping only its last row.
pub fn log_probs_two_ways(
    model: &Seq2Seq,
    params: &Params<f64>,
    src: &[usize],
    tgt_in: &[usize],
    tgt_out: &[usize],
) -> (Vec<f64>, Vec<f64>) {
    let log_probs = |tgt: &[usize]| -> Mat<f64> {
        let tape = Tape::new(params);
        let out = model.forward(&tape, src, tgt, 1).expect("short enough for the positions");
        out.logits.log_softmax_rows().value().clone() // (tgt.len(), vocab)
    };
    let once = log_probs(tgt_in); // (S_t, vocab): every position in one pass
    let by_prefix = (0..tgt_in.len()).map(|t| log_probs(&tgt_in[..=t])[(t, tgt_out[t])]);
    (tgt_out.iter().enumerate().map(|(t, &y)| once[(t, y)]).collect(), by_prefix.collect())
}
// ANCHOR_END: teacher_forcing

pub fn teacher_forcing(seed: u64, nb: &mut Notebook) {
    nb.demo("teacher_forcing", "L6 05.1 · Teacher forcing: one forward pass or one per prefix");
    let len = 7;
    let vocab = 2 + 10; // PAD, BOS, ten symbols
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut params = Params::<f64>::new();
    let cfg = Seq2SeqConfig::lecture17(vocab);
    let d = nb.value("tf_d_model", cfg.d_model.to_string());
    let h = nb.value("tf_heads", cfg.heads.to_string());
    let f = nb.value("tf_d_ff", cfg.d_ff.to_string());
    let n = nb.value("tf_layers", cfg.layers.to_string());
    say!(
        nb,
        "an untrained Seq2SeqConfig::lecture17: d_model {d}, {h} heads, d_ff {f}, {n} layer per stack, seed {seed}"
    );
    let model = Seq2Seq::new(&mut params, cfg, &mut rng);
    let src: Vec<usize> = (0..len).map(|_| 2 + rng.random_range(0..10)).collect();
    let tgt_out: Vec<usize> = src.iter().rev().copied().collect(); // the reversal task
    let tgt_in: Vec<usize> = std::iter::once(1).chain(tgt_out[..len - 1].iter().copied()).collect();
    say!(nb, "source {src:?} → target {tgt_out:?}; decoder input {tgt_in:?} (BOS = 1)");
    let len_shown = nb.value("tf_len", len.to_string());
    let start =
        nb.value("tf_input_start", format!("[{}, {}, {}, …]", tgt_in[0], tgt_in[1], tgt_in[2]));
    say!(
        nb,
        "{len_shown} random symbols; the decoder's input starts {start}: BOS, then the answer"
    );
    let (once, by_prefix) = log_probs_two_ways(&model, &params, &src, &tgt_in, &tgt_out);
    let worst = once.iter().zip(&by_prefix).map(|(a, b)| (a - b).abs()).fold(0.0, worse);
    let total = -once.iter().sum::<f64>();
    let worst = nb.value("teacher_forcing_diff", show::sci(worst, 1));
    let loss = nb.value("teacher_forcing_loss", show::num(total / len as f64, 4));
    let passes = nb.value("teacher_forcing_passes", len.to_string());
    say!(nb, "max |Δ log P| between the two ways: {worst}; forward passes 1 vs {passes}");
    let uniform = nb.value("guess_loss", show::num(libm::log(vocab as f64), 4));
    let vocab = nb.value("tf_vocab", vocab.to_string());
    say!(
        nb,
        "mean −log P of the target: {loss} (untrained; guessing among {vocab}: ln {vocab} = {uniform})"
    );
}
