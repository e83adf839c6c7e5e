//! Lecture 17 demo 05.1 — three models, one training recipe: each learns
//! to reverse random sequences, and is tested at fixed steps by generating
//! new ones on its own (free-running) and with the right symbols fed in
//! (teacher-forced).

use autograd::data::{Reversal, reversal};
use autograd::optim::{Adam, linear_warmup};
use autograd::train::{Recipe, Translator, step, test_set};
use autograd::{Params, Smoothing, Tape};
use faer::Mat;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use crate::models::{Kind, Model};
use crate::stats::binomial_se;

/// What every run shares.
#[derive(Clone, Debug)]
pub struct Setup {
    pub steps: u32,
    pub lengths: Vec<usize>,
    pub seeds: Vec<u64>,
    pub models: Vec<Kind>,
    /// Test sequences per run.
    pub test: usize,
    /// Exercise 8: train the runs at this length for this many steps.
    pub exercise_len: usize,
    pub exercise_steps: u32,
    /// … with the first this many seeds.
    pub exercise_seeds: usize,
}

/// Which test tokens a model got right: `len` per sequence, batch-major.
#[derive(Clone, Debug)]
pub struct Right {
    pub len: usize,
    pub hits: Vec<bool>,
}

impl Right {
    pub fn compare(got: &[usize], want: &[usize], len: usize) -> Right {
        Right { len, hits: got.iter().zip(want).map(|(a, b)| a == b).collect() }
    }

    pub fn sequences_n(&self) -> usize {
        self.hits.len() / self.len
    }

    /// Share of right tokens.
    pub fn tokens(&self) -> f64 {
        self.hits.iter().filter(|&&h| h).count() as f64 / self.hits.len() as f64
    }

    /// Share of sequences right in every position.
    pub fn sequences(&self) -> f64 {
        let all = self.hits.chunks(self.len).filter(|c| c.iter().all(|&h| h)).count();
        all as f64 / self.sequences_n() as f64
    }

    /// Share of sequences right at output position `t`.
    pub fn at(&self, t: usize) -> f64 {
        self.hits.chunks(self.len).filter(|c| c[t]).count() as f64 / self.sequences_n() as f64
    }

    /// The test set's sampling error of [`Right::sequences`]: binomial over
    /// the sequences.
    pub fn sequence_se(&self) -> f64 {
        binomial_se(self.sequences(), self.sequences_n())
    }

    /// The sampling error of [`Right::tokens`], with each sequence as one
    /// draw: the tokens of a sequence are not independent (one wrong step
    /// of a free-running decoder often drags the next ones with it), so a
    /// binomial over all tokens would claim too much.
    pub fn token_se(&self) -> f64 {
        let n = self.sequences_n() as f64;
        let per: Vec<f64> = self
            .hits
            .chunks(self.len)
            .map(|c| c.iter().filter(|&&h| h).count() as f64 / self.len as f64)
            .collect();
        let mean = per.iter().sum::<f64>() / n;
        let var = per.iter().map(|a| (a - mean) * (a - mean)).sum::<f64>() / (n - 1.0).max(1.0);
        (var / n).sqrt()
    }
}

/// One test of a model after `step` training steps.
#[derive(Clone, Debug)]
pub struct Eval {
    pub step: u32,
    /// Generated from BOS, each step fed the model's own previous output.
    pub free: Right,
    /// Each step fed the right previous symbol.
    pub forced: Right,
}

/// One trained model.
pub struct Run {
    pub kind: Kind,
    pub len: usize,
    pub seed: u64,
    pub model: Model,
    /// The parameters after `Setup::steps` (or after the last step, for a
    /// run of the exercise only).
    pub params: Params<f32>,
    /// The loss of every step, and the share of the batch's tokens the
    /// model got right under teacher forcing before that step's update.
    pub losses: Vec<f64>,
    pub batch_accuracy: Vec<f64>,
    pub evals: Vec<Eval>,
}

impl Run {
    /// The test after `step` steps.
    pub fn at(&self, step: u32) -> &Eval {
        self.tested_at(step).expect("a test at that step")
    }

    pub fn tested_at(&self, step: u32) -> Option<&Eval> {
        self.evals.iter().find(|e| e.step == step)
    }
}

/// Which test tokens the argmax of `logits` (B·L, vocab) gets right.
pub fn hits(logits: &Mat<f32>, want: &[usize], len: usize) -> Right {
    let got: Vec<usize> = (0..logits.nrows())
        .map(|r| {
            let row = (0..logits.ncols()).map(|j| f64::from(logits[(r, j)]));
            blocks::argmax(row).expect("a vocabulary")
        })
        .collect();
    Right::compare(&got, want, len)
}

// ANCHOR: test_model
/// Test a model on `test` (n sequences of length `len`) both ways.
pub fn test_model(model: &Model, params: &Params<f32>, test: &Reversal, len: usize) -> Eval {
    let n = test.src.len() / len;
    // free-running: greedy from BOS, as the model will be used
    let got = model.greedy(params, &test.src, n, len); // (n·L) tokens
    let free = Right::compare(&got, &test.tgt_out, len);
    // teacher-forced: the right previous symbol at every step, as in training
    let tape = Tape::new(params);
    let logits = model.logits(&tape, &test.src, &test.tgt_in, n); // (n·L, vocab)
    let forced = hits(&logits.value(), &test.tgt_out, len);
    Eval { step: 0, free, forced }
}
// ANCHOR_END: test_model

// ANCHOR: train_run
/// Train `kind` (weights drawn from `seed`) on reversal at `recipe.len`
/// and test it after each step in `tests`; keep the parameters of step
/// `keep`. The batches come from `seed + 100`, the test set from
/// `seed + 200`: under one seed, every model sees the same data.
pub fn train_run(kind: Kind, recipe: &Recipe, seed: u64, tests: &[u32], keep: u32) -> Run {
    let (model, mut params) = kind.build(recipe.vocab(), seed);
    let mut adam = Adam::new(&params, recipe.lr, 0.9, 0.999, 1e-8);
    let mut data = Pcg64Mcg::seed_from_u64(seed + 100);
    let test = test_set(recipe, seed);
    let (b, len) = (recipe.batch, recipe.len);
    let last = *tests.iter().max().expect("a test step");
    let (mut losses, mut batch_accuracy, mut evals) = (Vec::new(), Vec::new(), Vec::new());
    let mut kept = None;
    for t in 1..=last {
        let batch = reversal(&mut data, b, len, recipe.symbols); // a fresh batch
        adam.lr = linear_warmup(t, recipe.warmup, recipe.lr);
        let mut right = 0.0;
        let loss = step(&mut params, &mut adam, |tape| {
            let logits = model.logits(tape, &batch.src, &batch.tgt_in, b); // (B·L, vocab)
            right = hits(&logits.value(), &batch.tgt_out, len).tokens();
            logits.cross_entropy(&batch.tgt_out, None, Smoothing::None)
        });
        losses.push(f64::from(loss));
        batch_accuracy.push(right);
        if tests.contains(&t) {
            evals.push(Eval { step: t, ..test_model(&model, &params, &test, len) });
        }
        if t == keep {
            kept = Some(params.clone());
        }
    }
    let params = kept.unwrap_or(params);
    Run { kind, len, seed, model, params, losses, batch_accuracy, evals }
}
// ANCHOR_END: train_run

// ANCHOR: plan
impl Setup {
    /// The lecture's recipe at length `len`: 10 symbols, batch 64, Adam 1e−3
    /// after 50 warmup steps (then constant).
    pub fn recipe(&self, len: usize) -> Recipe {
        Recipe { test: self.test, ..Recipe::reversal(len, self.steps) }
    }

    /// The seeds exercise 8 trains on.
    pub fn exercise_seeds(&self) -> &[u64] {
        &self.seeds[..self.exercise_seeds.min(self.seeds.len())]
    }

    /// The steps after which the run at `len` with `seed` is tested.
    /// Exercise 8 trains longer at one length; the learning rate is
    /// constant after warmup and the batches come in the same order, so
    /// the first `steps` of that longer run are the experiment's run
    /// itself: one run serves both, tested at both steps.
    pub fn tests_at(&self, len: usize, seed: u64) -> Vec<u32> {
        let mut tests = Vec::new();
        if self.lengths.contains(&len) {
            tests.push(self.steps);
        }
        let exercise = len == self.exercise_len && self.exercise_seeds().contains(&seed);
        if exercise && !tests.contains(&self.exercise_steps) {
            tests.push(self.exercise_steps);
        }
        tests
    }

    /// Every run: (model, length, seed) with at least one test.
    pub fn plan(&self) -> Vec<(Kind, usize, u64)> {
        let mut lengths = self.lengths.clone();
        if !lengths.contains(&self.exercise_len) {
            lengths.push(self.exercise_len);
            lengths.sort_unstable();
        }
        let mut plan = Vec::new();
        for &kind in &self.models {
            for &len in &lengths {
                for &seed in &self.seeds {
                    if !self.tests_at(len, seed).is_empty() {
                        plan.push((kind, len, seed));
                    }
                }
            }
        }
        plan
    }
}
// ANCHOR_END: plan

/// The runs of one model at one length, in seed order.
pub fn runs_of(runs: &[Run], kind: Kind, len: usize) -> Vec<&Run> {
    runs.iter().filter(|r| r.kind == kind && r.len == len).collect()
}
