//! Lecture 6 exercise 1, Lecture 17 exercises 2 and 9, and the sweep with
//! another seed, checked by running them.

use autograd::nn::Seq2SeqConfig;
use autograd::train::{Recipe, Trained, reversal_run};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use rayon::prelude::*;
use record::{Notebook, say, show};

use crate::readings::Verdicts;
use crate::variance::{dot, gaussian, mean_var};

/// `n` independent numbers with mean 0 and variance 1 from one of three
/// distributions: N(0, 1), ±1, or uniform on [−√3, √3].
pub fn unit_variance(kind: &str, n: usize, rng: &mut Pcg64Mcg) -> Vec<f64> {
    let unit = |rng: &mut Pcg64Mcg| (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64; // [0, 1)
    match kind {
        "normal" => gaussian(n, 1.0, rng),
        "±1" => (0..n).map(|_| if rng.next_u64() & 1 == 1 { 1.0 } else { -1.0 }).collect(),
        _ => (0..n).map(|_| (2.0 * unit(rng) - 1.0) * 3f64.sqrt()).collect(),
    }
}

// ANCHOR: l6_exercise_1
/// Lecture 6 exercise 1: at d = 256 the variance of q·k is 256, its spread
/// √256 = 16, and 1 after ÷√d — for any components with mean 0 and
/// variance 1. The variance of `pairs` dot products of two independent
/// vectors whose components are drawn from `kind`.
pub fn dot_variance(kind: &str, d: usize, pairs: usize, rng: &mut Pcg64Mcg) -> f64 {
    let dots: Vec<f64> = (0..pairs)
        .map(|_| dot(&unit_variance(kind, d, rng), &unit_variance(kind, d, rng)))
        .collect();
    mean_var(&dots).1
}
// ANCHOR_END: l6_exercise_1

/// The exercise with three distributions of variance 1, printed and recorded.
pub fn l6_exercise_1(pairs: usize, seed: u64, nb: &mut Notebook) {
    nb.demo("l6_exercise_1", "L6 exercise 1 · var and std of q·k at d = 256, three distributions");
    let d = 256;
    let root = (d as f64).sqrt(); // the answer: 16
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    say!(nb, "d = {d}, {pairs} pairs per distribution, seed {seed}; theory: std √d = {root}");
    say!(nb, "{:>16} {:>10} {:>10} {:>12}", "components", "var(q·k)", "std(q·k)", "std(q·k/√d)");
    for (kind, tag) in [("normal", "normal"), ("±1", "signs"), ("uniform", "uniform")] {
        let var = dot_variance(kind, d, pairs, &mut rng);
        let std = var.sqrt();
        let v = nb.value(&format!("l6ex1_{tag}_var"), show::num(var, 0));
        let raw = nb.value(&format!("l6ex1_{tag}_std"), show::num(std, 2));
        let scaled = nb.value(&format!("l6ex1_{tag}_scaled_std"), show::num(std / root, 3));
        let name = if kind == "uniform" { "uniform ±√3" } else { kind };
        say!(nb, "{name:>16} {v:>10} {raw:>10} {scaled:>12}");
    }
    say!(nb, "only the mean and the variance of the components enter Var(q·k) = d");
}

// ANCHOR: exercise_2
/// Exercise 2: with components of variance σ², Var(q·k) = d_k σ⁴, and the
/// divisor that brings it back to 1 is σ²√d_k.
pub fn exercise_2(pairs: usize, seed: u64, nb: &mut Notebook) {
    nb.demo("exercise_2", "L17 exercise 2 · Var(q·k) = d_k σ⁴");
    let d = 64;
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    say!(nb, "d_k = {d}, {pairs} pairs per σ, seed {seed}");
    say!(
        nb,
        "{:>5} {:>10} {:>10} {:>12} {:>16}",
        "σ",
        "Var(q·k)",
        "d_k σ⁴",
        "std ÷ √d_k",
        "std ÷ (σ²√d_k)"
    );
    for sigma in [0.5, 2.0] {
        let dots: Vec<f64> = (0..pairs)
            .map(|_| dot(&gaussian(d, sigma, &mut rng), &gaussian(d, sigma, &mut rng)))
            .collect();
        let (_, var) = mean_var(&dots);
        let std = var.sqrt();
        let root = (d as f64).sqrt();
        let tag = format!("ex2_sigma{}", if sigma < 1.0 { "05" } else { "2" });
        let var = nb.value(&format!("{tag}_var"), show::num(var, 2));
        let by_root = nb.value(&format!("{tag}_std_root"), show::num(std / root, 3));
        let by_full =
            nb.value(&format!("{tag}_std_full"), show::num(std / (sigma * sigma * root), 3));
        let theory = show::num(d as f64 * sigma.powi(4), 2);
        say!(nb, "{:>5} {var:>10} {theory:>10} {by_root:>12} {by_full:>16}", show::short(sigma));
    }
    say!(nb, "÷√d_k alone leaves a spread of σ²; only ÷σ²√d_k restores 1");
}
// ANCHOR_END: exercise_2

/// The small Transformer of exercise 9.
#[derive(Clone, Copy, Debug)]
pub struct Ex9 {
    pub d_k: usize,
    pub heads: usize,
    pub steps: u32,
}

/// Reversal at this length (Lecture 17 §9), this many steps.
pub const LEN: usize = 16;

// ANCHOR: exercise_9
/// Exercise 9: the tiny Transformer of §9 learning reversal at L = 16 with
/// the attention scale on and off (`Seq2SeqConfig::scaled_attention`).
pub fn train_reversal(ex: &Ex9, scaled: bool, seed: u64) -> Trained {
    let d_model = ex.d_k * ex.heads;
    let recipe = Recipe::reversal(LEN, ex.steps);
    let cfg = Seq2SeqConfig {
        d_model,
        heads: ex.heads,
        d_ff: 4 * d_model,
        scaled_attention: scaled,
        ..Seq2SeqConfig::lecture17(recipe.vocab())
    };
    reversal_run(cfg, &recipe, seed).2
}

pub fn exercise_9(ex: &Ex9, seed: u64, nb: &mut Notebook) {
    nb.demo("exercise_9", "L17 exercise 9 · The tiny Transformer with the scale turned off");
    let d_model = ex.d_k * ex.heads;
    let r = Recipe::reversal(LEN, ex.steps);
    let (lr, steps) = (show::short(r.lr), ex.steps);
    say!(
        nb,
        "reversal, L = {LEN}, {} symbols; d_model {d_model}, {} heads (d_k = {})",
        r.symbols,
        ex.heads,
        ex.d_k
    );
    say!(
        nb,
        "d_ff {}; Adam {lr} after {} warmup steps, batch {}, {steps} steps",
        4 * d_model,
        r.warmup,
        r.batch
    );
    say!(nb, "then greedy decoding of {} new sequences", r.test);
    let runs: Vec<(bool, u64)> =
        [true, false].iter().flat_map(|&s| (0..2).map(move |k| (s, seed + k))).collect();
    let results: Vec<Trained> =
        runs.par_iter().map(|&(scaled, s)| train_reversal(ex, scaled, s)).collect();
    say!(
        nb,
        "{:>10} {:>5} {:>13} {:>11} {:>11} {:>14}",
        "attention",
        "seed",
        "loss < 0.1 at",
        "final loss",
        "token acc.",
        "sequence acc."
    );
    for (&(scaled, s), r) in runs.iter().zip(&results) {
        let tag = format!("ex9_{}_seed{}", if scaled { "scaled" } else { "raw" }, s - seed);
        let below = r.first_below(0.1, 10).map_or("—".to_string(), |t| t.to_string());
        let at = nb.value(&format!("{tag}_below_01"), below);
        let loss = nb.value(&format!("{tag}_loss"), show::num(r.final_loss(10), 4));
        let tokens = nb.value(&format!("{tag}_tokens"), show::num(r.token_accuracy, 3));
        let seqs = nb.value(&format!("{tag}_sequences"), show::num(r.sequence_accuracy, 3));
        let kind = if scaled { "÷√d_k" } else { "no scale" };
        say!(nb, "{kind:>10} {s:>5} {at:>13} {loss:>11} {tokens:>11} {seqs:>14}");
    }
    let lowest = results.iter().flat_map(|r| [r.token_accuracy, r.sequence_accuracy]);
    let lowest = nb.value("ex9_lowest_accuracy", show::num(lowest.fold(1.0, f64::min), 3));
    say!(nb, "lowest token or sequence accuracy of the {} runs: {lowest}", runs.len());
}
// ANCHOR_END: exercise_9

// ANCHOR: exercise_seed
/// Exercise 4: the whole lookup sweep again with the next seed, so new
/// weights, batches, held-out set and label embeddings.
pub fn exercise_seed(
    dks: &[usize],
    steps: u32,
    mixed: bool,
    seed: u64,
    first: &Verdicts,
    nb: &mut Notebook,
) -> Verdicts {
    nb.demo("exercise_seed", "Exercise 4 · The lookup sweep again, with the next seed");
    let next = crate::lookup::sweep(dks, steps, mixed, seed + 1, "next_", nb);
    let surviving = (0..4).filter(|&n| first[n] && next[n]).count();
    let surviving = nb.value("readings_surviving", surviving.to_string());
    say!(nb, "readings that hold under both seeds: {surviving} of 4");
    next
}
// ANCHOR_END: exercise_seed
