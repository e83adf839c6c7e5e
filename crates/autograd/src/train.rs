//! Training, written once: [`step`] is one training step of any model
//! (every training loop of the book goes through it), and [`reversal_run`]
//! is the lectures' standard experiment — train a [`Seq2Seq`] to reverse
//! random sequences, then decode new ones greedily. Chapters vary the model
//! (positions, scale, norm) and read the same numbers.

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use crate::data::{BOS, FIRST_SYMBOL, Reversal, reversal};
use crate::nn::{GruSeq2Seq, Seq2Seq, Seq2SeqConfig};
use crate::optim::{Adam, Optimizer, linear_warmup};
use crate::{Params, Real, Smoothing, Tape, Var};

/// One training step: a fresh tape holding the parameters, the forward pass
/// and its loss (`loss(&tape)`, a 1×1 value), the backward pass, and the
/// optimizer's update. Returns the loss before the update.
pub fn step<T: Real, F>(params: &mut Params<T>, optimizer: &mut impl Optimizer<T>, loss: F) -> T
where
    F: for<'t> FnOnce(&'t Tape<T>) -> Var<'t, T>,
{
    let (value, grads) = {
        let tape = Tape::new(params);
        let loss = loss(&tape);
        (loss.scalar(), tape.backward(loss))
    };
    optimizer.step(params, &grads);
    value
}

/// How to train: Adam (β = 0.9, 0.999, ε = 1e−8) warmed up linearly to `lr`.
#[derive(Clone, Copy, Debug)]
pub struct Recipe {
    /// Sequence length and alphabet size.
    pub len: usize,
    pub symbols: usize,
    pub batch: usize,
    pub steps: u32,
    pub lr: f64,
    pub warmup: u32,
    /// Sequences decoded after training.
    pub test: usize,
}

impl Recipe {
    /// The lectures' reversal setting: 10 symbols, batch 64, Adam 1e−3 after
    /// 50 warmup steps, 500 test sequences.
    pub fn reversal(len: usize, steps: u32) -> Self {
        Recipe { len, symbols: 10, batch: 64, steps, lr: 1e-3, warmup: 50, test: 500 }
    }

    /// The vocabulary a model for this recipe needs (specials + symbols).
    pub fn vocab(&self) -> usize {
        FIRST_SYMBOL + self.symbols
    }
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct Trained {
    /// The loss of every step.
    pub losses: Vec<f64>,
    /// Greedy decoding of the test sequences: share of right tokens, and of
    /// sequences right in every position.
    pub token_accuracy: f64,
    pub sequence_accuracy: f64,
    /// Share of test sequences right at each output position.
    pub position_accuracy: Vec<f64>,
}

impl Trained {
    /// Mean loss of the last `n` steps.
    pub fn final_loss(&self, n: usize) -> f64 {
        let tail = &self.losses[self.losses.len().saturating_sub(n)..];
        tail.iter().sum::<f64>() / tail.len() as f64
    }

    /// The first step at which the mean loss of the last `n` steps fell
    /// below `level`.
    pub fn first_below(&self, level: f64, n: usize) -> Option<u32> {
        (n..=self.losses.len())
            .find(|&end| self.losses[end - n..end].iter().sum::<f64>() / (n as f64) < level)
            .map(|end| end as u32)
    }
}

/// A model the reversal experiment can train and test: teacher-forced
/// logits for training, greedy generation for testing.
pub trait Translator {
    /// Logits (B·S_t, vocab) for teacher-forced targets; ids batch-major.
    fn logits<'t>(
        &self,
        tape: &'t Tape<f32>,
        src: &[usize],
        tgt_in: &[usize],
        batch: usize,
    ) -> Var<'t, f32>;
    /// `steps` greedily generated tokens per source, batch-major.
    fn greedy(&self, params: &Params<f32>, src: &[usize], batch: usize, steps: usize)
    -> Vec<usize>;
}

impl Translator for Seq2Seq {
    fn logits<'t>(
        &self,
        tape: &'t Tape<f32>,
        src: &[usize],
        tgt_in: &[usize],
        batch: usize,
    ) -> Var<'t, f32> {
        self.forward(tape, src, tgt_in, batch).expect("positions fit").logits
    }
    /// With the KV cache.
    fn greedy(
        &self,
        params: &Params<f32>,
        src: &[usize],
        batch: usize,
        steps: usize,
    ) -> Vec<usize> {
        self.generate(params, src, batch, steps, BOS, true).tokens
    }
}

impl Translator for GruSeq2Seq {
    fn logits<'t>(
        &self,
        tape: &'t Tape<f32>,
        src: &[usize],
        tgt_in: &[usize],
        batch: usize,
    ) -> Var<'t, f32> {
        self.forward(tape, src, tgt_in, batch).0
    }
    fn greedy(
        &self,
        params: &Params<f32>,
        src: &[usize],
        batch: usize,
        steps: usize,
    ) -> Vec<usize> {
        self.generate(params, src, batch, steps, BOS).tokens
    }
}

// ANCHOR: train_reversal
/// Train `model` (its parameters in `params`, already initialised) on
/// reversal, then decode new sequences greedily. `seed + 100` draws the
/// training batches and `seed + 200` the test sequences, so models trained
/// with one seed see the same data.
pub fn train_reversal(
    model: &impl Translator,
    params: &mut Params<f32>,
    recipe: &Recipe,
    seed: u64,
) -> Trained {
    let mut adam = Adam::new(params, recipe.lr, 0.9, 0.999, 1e-8);
    let mut data = Pcg64Mcg::seed_from_u64(seed + 100);
    let (b, len) = (recipe.batch, recipe.len);
    let mut losses = Vec::with_capacity(recipe.steps as usize);
    for t in 1..=recipe.steps {
        let batch = reversal(&mut data, b, len, recipe.symbols);
        adam.lr = linear_warmup(t, recipe.warmup, recipe.lr);
        let loss = step(params, &mut adam, |tape| {
            let logits = model.logits(tape, &batch.src, &batch.tgt_in, b);
            logits.cross_entropy(&batch.tgt_out, None, Smoothing::None)
        });
        losses.push(f64::from(loss));
    }
    let test = test_set(recipe, seed);
    let got = model.greedy(params, &test.src, recipe.test, len);
    // the run's matrices are done with; another run on this thread has its own shapes
    crate::pool::clear();
    let right: Vec<bool> = got.iter().zip(&test.tgt_out).map(|(a, b)| a == b).collect();
    let position_accuracy = (0..len)
        .map(|t| right.chunks(len).filter(|c| c[t]).count() as f64 / recipe.test as f64)
        .collect();
    Trained {
        losses,
        token_accuracy: right.iter().filter(|&&r| r).count() as f64 / right.len() as f64,
        sequence_accuracy: right.chunks(len).filter(|c| c.iter().all(|&r| r)).count() as f64
            / recipe.test as f64,
        position_accuracy,
    }
}
// ANCHOR_END: train_reversal

/// The test sequences of a run with this seed.
pub fn test_set(recipe: &Recipe, seed: u64) -> Reversal {
    reversal(&mut Pcg64Mcg::seed_from_u64(seed + 200), recipe.test, recipe.len, recipe.symbols)
}

/// Train a Transformer of shape `cfg` (its vocabulary is set from the
/// recipe) on reversal; `seed` draws its initial weights.
pub fn reversal_run(
    cfg: Seq2SeqConfig,
    recipe: &Recipe,
    seed: u64,
) -> (Seq2Seq, Params<f32>, Trained) {
    let cfg = Seq2SeqConfig { vocab: recipe.vocab(), ..cfg };
    let mut params = Params::<f32>::new();
    let model = Seq2Seq::new(&mut params, cfg, &mut Pcg64Mcg::seed_from_u64(seed));
    let trained = train_reversal(&model, &mut params, recipe, seed);
    (model, params, trained)
}
