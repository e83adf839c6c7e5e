//! Lecture 17 demo 02.3 — a literal query/key/value task, trained with and
//! without the 1/√d_k, over learning rates of Adam and SGD.
//!
//! Each example holds 16 (key, value) pairs and one query key, a copy of
//! one of the 16 keys; the answer is that pair's value, one of 16 labels
//! (each used once per example, so guessing is right 1 time in 16). The
//! keys feed the key path and the values' embeddings the value path, as in
//! a dictionary; the model is one single-head attention layer and a linear
//! read-out of the 16 labels.

use autograd::nn::init::normal;
use autograd::optim::{Adam, Optimizer, Sgd};
use autograd::{ParamId, Params, Smoothing, Tape, Var, train};
use faer::Mat;
use indicatif::{ProgressBar, ProgressStyle};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use rayon::prelude::*;
use record::{Notebook, say};

use crate::readings::Verdicts;

/// Width of the keys, value embeddings and queries before projection.
pub const D_MODEL: usize = 64;
/// (key, value) pairs per example, and labels a value can take.
pub const PAIRS: usize = 16;
/// Examples per training step.
pub const BATCH: usize = 64;
/// Held-out examples for the accuracy.
pub const EVAL: usize = 1024;
/// Accuracy is measured every this many steps.
pub const EVERY: u32 = 25;
/// The accuracy a run has to reach.
pub const TARGET: f64 = 0.9;
/// The learning rates swept.
pub const ADAM_LRS: [f64; 4] = [1e-3, 3e-3, 1e-2, 3e-2];
pub const SGD_LRS: [f64; 5] = [0.03, 0.1, 0.3, 1.0, 3.0];

/// `D_MODEL` independent ±1 components (mean 0, variance 1, as §4.2
/// assumes), from one 64-bit draw.
fn signs(rng: &mut Pcg64Mcg) -> [f32; D_MODEL] {
    let bits = rng.next_u64();
    std::array::from_fn(|c| if bits >> c & 1 == 1 { 1.0 } else { -1.0 })
}

/// The task: a fixed ±1 embedding for each of the 16 value labels; keys
/// are fresh random ±1 vectors in every example. `mixed` is the variant
/// (`--mixed`) that feeds each pair as one vector (key + label)/√2 to both
/// W^K and W^V, so the model must also learn to pull the two apart.
pub struct Task {
    pub labels: Vec<[f32; D_MODEL]>,
    pub mixed: bool,
}

/// A batch of `n` examples: the keys of the pairs stacked (n·16, d_model),
/// their values' embeddings (n·16, d_model), the query of every example
/// (n, d_model), and the label to answer.
pub struct Batch {
    pub keys: Mat<f32>,
    pub values: Mat<f32>,
    pub queries: Mat<f32>,
    pub answers: Vec<usize>,
}

impl Task {
    pub fn new(mixed: bool, rng: &mut Pcg64Mcg) -> Self {
        Task { labels: (0..PAIRS).map(|_| signs(rng)).collect(), mixed }
    }

    pub fn batch(&self, n: usize, rng: &mut Pcg64Mcg) -> Batch {
        let mut keys = Mat::<f32>::zeros(n * PAIRS, D_MODEL);
        let mut values = Mat::<f32>::zeros(n * PAIRS, D_MODEL);
        let mut queries = Mat::<f32>::zeros(n, D_MODEL);
        let mut answers = Vec::with_capacity(n);
        for i in 0..n {
            // the 16 labels in a random order (Fisher–Yates), one per pair
            let mut order: Vec<usize> = (0..PAIRS).collect();
            for j in (1..PAIRS).rev() {
                order.swap(j, rng.next_u32() as usize % (j + 1));
            }
            let asked = rng.next_u32() as usize % PAIRS;
            for (j, &label) in order.iter().enumerate() {
                let (key, value) = (signs(rng), &self.labels[label]);
                let row = i * PAIRS + j;
                for c in 0..D_MODEL {
                    if self.mixed {
                        let both = (key[c] + value[c]) * std::f32::consts::FRAC_1_SQRT_2; // variance 1
                        (keys[(row, c)], values[(row, c)]) = (both, both);
                    } else {
                        (keys[(row, c)], values[(row, c)]) = (key[c], value[c]);
                    }
                    if j == asked {
                        queries[(i, c)] = key[c];
                    }
                }
            }
            answers.push(order[asked]);
        }
        Batch { keys, values, queries, answers }
    }
}

/// Where the layer's weights sit in its parameters, and how it scores.
#[derive(Clone, Copy, Debug)]
pub struct Ids {
    pub w_q: ParamId,
    pub w_k: ParamId,
    pub w_v: ParamId,
    pub w_o: ParamId,
    pub d_k: usize,
    pub scaled: bool,
}

/// The model: W^Q, W^K, W^V (d_model, d_k) and a read-out W^O (d_k, 16);
/// the value width d_v is d_k, as in the paper.
#[derive(Clone)]
pub struct Layer {
    pub params: Params<f32>,
    pub ids: Ids,
}

impl Layer {
    /// Every weight drawn from N(0, 1/fan_in): W^Q and W^K with variance
    /// 1/d_model, so q and k have components of variance ≈ 1 (§4.2).
    pub fn new(d_k: usize, scaled: bool, rng: &mut Pcg64Mcg) -> Self {
        let std = 1.0 / (D_MODEL as f64).sqrt();
        let mut params = Params::new();
        let w_q = params.add("w_q", normal(D_MODEL, d_k, std, rng));
        let w_k = params.add("w_k", normal(D_MODEL, d_k, std, rng));
        let w_v = params.add("w_v", normal(D_MODEL, d_k, std, rng));
        let w_o = params.add("w_o", normal(d_k, PAIRS, 1.0 / (d_k as f64).sqrt(), rng));
        Layer { params, ids: Ids { w_q, w_k, w_v, w_o, d_k, scaled } }
    }
}

// ANCHOR: layer
/// Logits over the 16 labels, (n, 16): each query attends over its own
/// example's 16 pairs and the weighted value is read out by W^O.
pub fn logits<'t>(layer: &Ids, tape: &'t Tape<f32>, b: &Batch) -> Var<'t, f32> {
    let n = b.answers.len();
    let q = tape.input(b.queries.clone()).matmul(tape.param(layer.w_q)); // (n, d_k)
    let k = tape.input(b.keys.clone()).matmul(tape.param(layer.w_k)); // (n·16, d_k)
    let v = tape.input(b.values.clone()).matmul(tape.param(layer.w_v)); // (n·16, d_v = d_k)
    let scores = q.bmm(k, n, true); // (n, 16): row i = q_i·K_iᵀ over example i's own 16 pairs
    let scores = if layer.scaled { scores.scale(1.0 / (layer.d_k as f64).sqrt()) } else { scores };
    let weights = scores.softmax_rows(None);
    weights.bmm(v, n, false).matmul(tape.param(layer.w_o)) // Σ_j w_ij v_j, then W^O
}

/// Share of examples whose largest logit is the right label.
fn accuracy(layer: &Layer, b: &Batch) -> f64 {
    let tape = Tape::new(&layer.params);
    let out = logits(&layer.ids, &tape, b);
    let s = out.value();
    let best = |i: usize| blocks::argmax((0..PAIRS).map(|x| f64::from(s[(i, x)])));
    let right = (0..s.nrows()).filter(|&i| best(i) == Some(b.answers[i])).count();
    right as f64 / s.nrows() as f64
}
// ANCHOR_END: layer

/// Plain SGD or Adam (β = 0.9, 0.999, ε = 1e−8) at one learning rate.
#[derive(Clone, Copy, Debug)]
pub enum Method {
    Sgd(f64),
    Adam(f64),
}

impl Method {
    /// The optimizer itself, with fresh state for `params`.
    pub fn build(self, params: &Params<f32>) -> Box<dyn Optimizer<f32> + Send> {
        match self {
            Method::Sgd(lr) => Box::new(Sgd { lr }),
            Method::Adam(lr) => Box::new(Adam::new(params, lr, 0.9, 0.999, 1e-8)),
        }
    }
}

// ANCHOR: train
/// Train one layer for `steps` steps; the first step (a multiple of
/// [`EVERY`]) at which held-out accuracy reaches 90%, if any.
pub fn first_step_to_target(
    mut layer: Layer,
    method: Method,
    steps: u32,
    task: &Task,
    data_seed: u64,
    eval: &Batch,
    progress: Option<&ProgressBar>,
) -> Option<u32> {
    let mut data = Pcg64Mcg::seed_from_u64(data_seed); // every run sees the same batches
    let mut optimizer = method.build(&layer.params);
    for step in 1..=steps {
        let b = task.batch(BATCH, &mut data);
        train::step(&mut layer.params, &mut optimizer, |tape| {
            logits(&layer.ids, tape, &b).cross_entropy(&b.answers, None, Smoothing::None)
        });
        let reached = step % EVERY == 0 && accuracy(&layer, eval) >= TARGET;
        let done = if reached { steps - step + 1 } else { 1 }; // a finished run skips ahead
        progress.inspect(|p| p.inc(u64::from(done)));
        if reached {
            return Some(step);
        }
    }
    None
}
// ANCHOR_END: train

// ANCHOR: sweep
/// Every d_k × {scaled, unscaled} × every learning rate of both optimizers.
pub fn lookup_sweep(
    dks: &[usize],
    steps: u32,
    mixed: bool,
    seed: u64,
    nb: &mut Notebook,
) -> Verdicts {
    nb.demo("lookup_sweep", "L17 02.3 · The key–value lookup, with and without ÷√d_k");
    sweep(dks, steps, mixed, seed, "", nb)
}

/// The sweep with its tables and verdicts; `tag` starts the names of its
/// values and figure.
pub fn sweep(
    dks: &[usize],
    steps: u32,
    mixed: bool,
    seed: u64,
    tag: &str,
    nb: &mut Notebook,
) -> Verdicts {
    let (init_seed, data_seed, eval_seed, label_seed) = (seed, seed + 1, seed + 2, seed + 3);
    say!(
        nb,
        "one single-head attention layer + read-out, d_model {D_MODEL}, {PAIRS} pairs per example"
    );
    if mixed {
        say!(nb, "each pair enters W^K and W^V as one vector (key + label)/√2; d_v = d_k");
    } else {
        say!(nb, "keys enter W^K, the values' label embeddings W^V; d_v = d_k");
    }
    say!(
        nb,
        "W^Q, W^K ~ N(0, 1/{D_MODEL}); batch {BATCH}, {steps} steps; accuracy on {EVAL} held-out examples every {EVERY} steps"
    );
    say!(
        nb,
        "seeds: weights {init_seed}, batches {data_seed}, held-out set {eval_seed}, label embeddings {label_seed}"
    );
    let firsts = train_all(dks, steps, mixed, seed, nb.is_printing());
    crate::sweep_table::report(dks, &methods(), &firsts, steps, tag, nb);
    let verdicts = crate::readings::verdicts(dks, &firsts);
    crate::readings::record(&verdicts, tag, nb);
    verdicts
}

/// Adam's rates, then SGD's: the columns of every row.
pub fn methods() -> Vec<Method> {
    let adam = ADAM_LRS.iter().map(|&lr| Method::Adam(lr));
    adam.chain(SGD_LRS.iter().map(|&lr| Method::Sgd(lr))).collect()
}

/// Every run of one sweep: its first step to 90% per cell, rows as the
/// table prints them. Runs with the same d_k start from the same weights
/// and see the same batches; the runs are independent, so they may run in
/// parallel.
pub fn train_all(dks: &[usize], steps: u32, mixed: bool, seed: u64, bar: bool) -> Vec<Option<u32>> {
    let (init_seed, data_seed, eval_seed, label_seed) = (seed, seed + 1, seed + 2, seed + 3);
    let task = Task::new(mixed, &mut Pcg64Mcg::seed_from_u64(label_seed));
    let eval = task.batch(EVAL, &mut Pcg64Mcg::seed_from_u64(eval_seed));
    let mut runs = Vec::new(); // (d_k, scaled, optimizer)
    for &d in dks {
        for scaled in [true, false] {
            runs.extend(methods().into_iter().map(|o| (d, scaled, o)));
        }
    }
    let bar = bar.then(|| {
        let bar = ProgressBar::new(runs.len() as u64 * u64::from(steps));
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {percent:>3}% of the sweep, {eta} left")
                .unwrap(),
        );
        bar
    });
    let firsts = runs
        .par_iter()
        .map(|&(d, scaled, opt)| {
            let layer = Layer::new(d, scaled, &mut Pcg64Mcg::seed_from_u64(init_seed));
            first_step_to_target(layer, opt, steps, &task, data_seed, &eval, bar.as_ref())
        })
        .collect();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    firsts
}
// ANCHOR_END: sweep
