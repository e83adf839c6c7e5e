//! Lecture 17 demo 05.1 — three models, one training recipe: each learns
//! to reverse random sequences, and is then tested by generating new ones
//! step by step.

use std::time::Instant;

use autograd::Params;
use autograd::train::{Recipe, Trained, train_reversal};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use record::{Notebook, say, show};

use crate::models::{Kind, Model};

/// What every run shares.
#[derive(Clone, Debug)]
pub struct Setup {
    pub steps: u32,
    pub lengths: Vec<usize>,
    pub seeds: Vec<u64>,
    pub models: Vec<Kind>,
    /// Test sequences per run.
    pub test: usize,
}

impl Setup {
    /// The lecture's recipe at length `len`: 10 symbols, batch 64, Adam 1e−3
    /// after 50 warmup steps.
    pub fn recipe(&self, len: usize, steps: u32) -> Recipe {
        Recipe { test: self.test, ..Recipe::reversal(len, steps) }
    }
}

/// One trained model.
pub struct Run {
    pub kind: Kind,
    pub len: usize,
    pub seed: u64,
    pub model: Model,
    pub params: Params<f32>,
    pub trained: Trained,
}

/// Mean, min and max.
pub fn spread(xs: &[f64]) -> (f64, f64, f64) {
    let mean = xs.iter().sum::<f64>() / xs.len() as f64;
    let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (mean, lo, hi)
}

// ANCHOR: train_all
/// Every (model, length, seed) of `setup` at `steps` steps, in parallel:
/// each run is sequential inside and draws from its own seeds, so its
/// numbers do not depend on the number of threads; results come back in
/// the order (model, length, seed).
pub fn train_all(setup: &Setup, lengths: &[usize], steps: u32, printing: bool) -> Vec<Run> {
    let plan: Vec<(Kind, usize, u64)> = setup
        .models
        .iter()
        .flat_map(|&k| {
            lengths.iter().flat_map(move |&l| setup.seeds.iter().map(move |&s| (k, l, s)))
        })
        .collect();
    let bar = printing.then(|| {
        let bar = ProgressBar::new(plan.len() as u64);
        let style = ProgressStyle::with_template("{bar:40} {pos}/{len} runs, {eta} left");
        bar.set_style(style.unwrap());
        bar
    });
    let runs = plan
        .par_iter()
        .map(|&(kind, len, seed)| {
            let recipe = setup.recipe(len, steps);
            let (model, mut params) = kind.build(recipe.vocab(), seed);
            let trained = train_reversal(&model, &mut params, &recipe, seed);
            bar.as_ref().inspect(|b| b.inc(1));
            Run { kind, len, seed, model, params, trained }
        })
        .collect();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    runs
}
// ANCHOR_END: train_all

/// The runs of one model at one length, in seed order.
pub fn runs_of(runs: &[Run], kind: Kind, len: usize) -> Vec<&Run> {
    runs.iter().filter(|r| r.kind == kind && r.len == len).collect()
}

// ANCHOR: experiment
pub fn experiment(setup: &Setup, nb: &mut Notebook) -> Vec<Run> {
    nb.demo("experiment", "L17 05.1 · Three models, one recipe: learning to reverse a sequence");
    say!(
        nb,
        "reverse L random symbols (10 kinds); Adam 1e-3, 50 warmup steps, batch 64, {} steps,",
        setup.steps
    );
    say!(
        nb,
        "teacher forcing, a fresh batch every step; tested by greedy generation on {} new sequences",
        setup.test
    );
    say!(nb, "seeds {:?}: weights = seed, batches = seed + 100, test = seed + 200", setup.seeds);
    // PAD, BOS and the 10 symbols: the vocabulary does not depend on L
    let vocab = setup.recipe(setup.lengths[0], setup.steps).vocab();
    for &kind in &setup.models {
        let count = kind.build(vocab, 0).1.count();
        let count = nb.value(&format!("params_{}", kind.tag()), show::grouped(count));
        say!(nb, "  {:<16} {count:>8} parameters", kind.label());
    }
    let start = Instant::now();
    let runs = train_all(setup, &setup.lengths, setup.steps, nb.is_printing());
    let elapsed = nb.timing(start.elapsed());
    let threads = match rayon::current_num_threads() {
        1 => nb.measured("1 thread"),
        n => nb.measured(format!("{n} threads")),
    };
    for (title, which) in [("whole-sequence accuracy", "seq"), ("per-token accuracy", "tok")] {
        say!(nb, "{title}, mean (min–max) over {} seeds:", setup.seeds.len());
        let head: String =
            setup.lengths.iter().map(|l| format!("{:>22}", format!("L = {l}"))).collect();
        say!(nb, "  {:<16}{head}", "");
        for &kind in &setup.models {
            let mut line = format!("  {:<16}", kind.label());
            for &len in &setup.lengths {
                let own = runs_of(&runs, kind, len);
                let xs: Vec<f64> = own
                    .iter()
                    .map(|r| {
                        if which == "seq" {
                            r.trained.sequence_accuracy
                        } else {
                            r.trained.token_accuracy
                        }
                    })
                    .collect();
                let (mean, lo, hi) = spread(&xs);
                let name = format!("{which}_{}_l{len}", kind.tag());
                let mean = nb.value(&format!("{name}_mean"), show::num(mean, 3));
                let lo = nb.value(&format!("{name}_min"), show::num(lo, 3));
                let hi = nb.value(&format!("{name}_max"), show::num(hi, 3));
                for (r, x) in own.iter().zip(&xs) {
                    nb.value(&format!("{name}_seed{}", r.seed), show::num(*x, 3));
                }
                line.push_str(&format!("{:>22}", format!("{mean} ({lo}–{hi})")));
            }
            say!(nb, "{line}");
        }
    }
    gaps(setup, &runs, nb);
    say!(nb, "{} runs in {elapsed} on {threads}", runs.len());
    runs
}
// ANCHOR_END: experiment

/// Per-token accuracy: how far apart the models' means are, and how far
/// apart one model's seeds are: is a difference between models larger
/// than the spread that changing the seed alone produces?
fn gaps(setup: &Setup, runs: &[Run], nb: &mut Notebook) {
    say!(
        nb,
        "per-token accuracy: difference of two models' means, spread (max − min) of one model's seeds:"
    );
    for &len in &setup.lengths {
        let tok = |kind| -> Vec<f64> {
            runs_of(runs, kind, len).iter().map(|r| r.trained.token_accuracy).collect()
        };
        let mut cells = Vec::new();
        for (i, &a) in setup.models.iter().enumerate() {
            for &b in &setup.models[i + 1..] {
                let gap = spread(&tok(b)).0 - spread(&tok(a)).0;
                let name = format!("tok_gap_{}_{}_l{len}", b.tag(), a.tag());
                cells.push(format!(
                    "{} − {} {}",
                    b.label(),
                    a.label(),
                    nb.value(&name, show::num(gap, 3))
                ));
            }
        }
        let mut spreads = Vec::new();
        for &kind in &setup.models {
            let (_, lo, hi) = spread(&tok(kind));
            let name = format!("tok_spread_{}_l{len}", kind.tag());
            spreads.push(format!("{} {}", kind.label(), nb.value(&name, show::num(hi - lo, 3))));
        }
        say!(nb, "  L = {len:<3} between models: {}", cells.join(", "));
        say!(nb, "  {:<7} between seeds:  {}", "", spreads.join(", "));
    }
}
