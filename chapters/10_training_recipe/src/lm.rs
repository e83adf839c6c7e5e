//! The model every demo of the chapter trains: a decoder-only Transformer
//! reading the city language, and the one number every recipe is judged
//! by — its test cross-entropy above the exact floor.

use autograd::nn::{DecoderOnly, Norm, Positions, Seq2SeqConfig};
use autograd::optim::{Adam, linear_warmup};
use autograd::{Params, Smoothing, Tape, train};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use crate::language::{self, MAX_LEN, PAD, Reach, VOCAB};

/// Inputs and targets of a batch: each sentence without its last token and
/// without its first, padded on the right to `MAX_LEN − 1`. Padding comes
/// after every real token, so the causal mask already keeps real positions
/// from seeing it, and the loss skips its targets.
pub struct Batch {
    pub inputs: Vec<usize>,
    pub targets: Vec<usize>,
    pub size: usize,
}

/// Positions per row of a batch.
pub const WIDTH: usize = MAX_LEN - 1;

impl Batch {
    pub fn of(sentences: &[Vec<usize>]) -> Self {
        let (mut inputs, mut targets) = (Vec::new(), Vec::new());
        for s in sentences {
            let n = s.len() - 1;
            inputs.extend(&s[..n]);
            inputs.extend(std::iter::repeat_n(PAD, WIDTH - n));
            targets.extend(&s[1..]);
            targets.extend(std::iter::repeat_n(PAD, WIDTH - n));
        }
        Batch { inputs, targets, size: sentences.len() }
    }
}

/// `n` sentences from their own generator.
pub fn sentences(n: usize, seed: u64) -> Vec<Vec<usize>> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    (0..n).map(|_| language::sample(&mut rng)).collect()
}

/// The model's shape: 6 layers, d_model 32, 4 heads, d_ff 128, learned
/// positions, the chosen norm.
pub fn config(norm: Norm) -> Seq2SeqConfig {
    Seq2SeqConfig {
        vocab: VOCAB,
        d_model: 32,
        heads: 4,
        d_ff: 128,
        layers: 6,
        norm,
        positions: Positions::Learned(WIDTH),
        scale_embeddings: false,
        scaled_attention: true,
    }
}

/// A test set, with the exact floor: the mean of −ln p(x_t | x_<t) under the
/// grammar over every token after BOS.
pub struct TestSet {
    pub batches: Vec<Batch>,
    pub tokens: usize,
    pub floor: f64,
    /// −ln p of every test token, and which [`Reach`] it is, in batch order.
    truth: Vec<(f64, Reach)>,
    /// The most likely next tokens under the grammar at every test position.
    best: Vec<Vec<usize>>,
}

impl TestSet {
    pub fn new(n: usize, seed: u64) -> Self {
        let all = sentences(n, seed);
        let tokens = all.iter().map(|s| s.len() - 1).sum();
        let batches = all.chunks(100).map(Batch::of).collect();
        let truth = all
            .iter()
            .flat_map(|s| {
                let p = language::probabilities(s);
                p.into_iter().map(|p| -libm::log(p)).zip(language::reach(s))
            })
            .collect();
        let best = all.iter().flat_map(|s| language::most_likely(s)).collect();
        TestSet { batches, tokens, floor: floor(&all), truth, best }
    }
}

// ANCHOR: excess
impl TestSet {
    /// −ln q(x_t) of every test token under the model, in batch order, and
    /// whether the model's most likely token is one of the grammar's.
    pub fn read(&self, model: &DecoderOnly, params: &Params<f32>) -> (Vec<f64>, Vec<bool>) {
        let (mut out, mut top) = (Vec::with_capacity(self.tokens), Vec::new());
        for b in &self.batches {
            let tape = Tape::new(params);
            let logits = model.forward(&tape, &b.inputs, b.size).expect("within the positions");
            let x = logits.value();
            for (r, &t) in b.targets.iter().enumerate() {
                if t == PAD {
                    continue;
                }
                let row: Vec<f64> = (0..VOCAB).map(|j| f64::from(x[(r, j)])).collect();
                let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let lse = max + libm::log(row.iter().map(|&z| libm::exp(z - max)).sum::<f64>());
                out.push(lse - row[t]);
                let arg = (0..VOCAB).fold(0, |a, j| if row[j] > row[a] { j } else { a });
                top.push(self.best[top.len()].contains(&arg));
            }
        }
        (out, top)
    }

    /// −ln q(x_t) of every test token under the model, in batch order.
    pub fn model_nats(&self, model: &DecoderOnly, params: &Params<f32>) -> Vec<f64> {
        self.read(model, params).0
    }

    /// The model's cross-entropy above the floor, in milli-nats per token.
    pub fn excess(&self, model: &DecoderOnly, params: &Params<f32>) -> f64 {
        let nats: f64 = self.model_nats(model, params).iter().sum();
        1e3 * (nats / self.tokens as f64 - self.floor)
    }

    /// The same excess split by [`Reach`]: the home city again, the
    /// pronoun, every other token. The three add up to the whole.
    pub fn excess_by_reach(&self, model: &DecoderOnly, params: &Params<f32>) -> [f64; 3] {
        let mut parts = [0.0; 3];
        for (q, &(p, r)) in self.model_nats(model, params).iter().zip(&self.truth) {
            parts[r as usize] += q - p;
        }
        parts.map(|x| 1e3 * x / self.tokens as f64)
    }
}
// ANCHOR_END: excess

impl TestSet {
    /// The share of test positions where the model's most likely token is
    /// one the grammar makes most likely.
    pub fn top1(&self, model: &DecoderOnly, params: &Params<f32>) -> f64 {
        let top = self.read(model, params).1;
        top.iter().filter(|&&t| t).count() as f64 / top.len() as f64
    }
}

/// The exact floor of some sentences: the mean of −ln p(x_t | x_<t) over
/// their tokens after BOS.
pub fn floor(sentences: &[Vec<usize>]) -> f64 {
    let nats: f64 =
        sentences.iter().flat_map(|s| language::probabilities(s)).map(|p| -libm::log(p)).sum();
    nats / sentences.iter().map(|s| s.len() - 1).sum::<usize>() as f64
}

/// How one model is trained.
#[derive(Clone, Copy, Debug)]
pub struct Recipe {
    pub norm: Norm,
    pub lr: f64,
    pub warmup: u32,
    pub steps: u32,
    pub batch: usize,
    pub smoothing: Smoothing,
}

/// What a run leaves: the test excess at step 0 and every `every` steps,
/// the final model, and (if asked for) a checkpoint at every read.
pub struct Run {
    pub excess: Vec<f64>,
    pub model: DecoderOnly,
    pub params: Params<f32>,
    pub checkpoints: Vec<Params<f32>>,
}

// ANCHOR: train
/// Train from `seed` (weights) with batches from `seed + 100`: Adam as the
/// paper sets it (β₁ 0.9, β₂ 0.98, ε 1e−9), a linear warmup to `lr`, then
/// constant. Every `every` steps the test excess is read, and the
/// parameters are kept as a checkpoint if `keep` is set.
pub fn train_run(r: Recipe, seed: u64, test: &TestSet, every: u32, keep: bool) -> Run {
    let mut params = Params::<f32>::new();
    let model = DecoderOnly::new(&mut params, config(r.norm), &mut Pcg64Mcg::seed_from_u64(seed));
    let mut adam = Adam::new(&params, r.lr, 0.9, 0.98, 1e-9);
    let mut data = Pcg64Mcg::seed_from_u64(seed + 100);
    let (mut excess, mut checkpoints) = (vec![test.excess(&model, &params)], Vec::new());
    for step in 1..=r.steps {
        let sentences: Vec<Vec<usize>> =
            (0..r.batch).map(|_| language::sample(&mut data)).collect();
        let b = Batch::of(&sentences);
        adam.lr = linear_warmup(step, r.warmup, r.lr);
        train::step(&mut params, &mut adam, |tape| {
            let logits = model.forward(tape, &b.inputs, b.size).expect("within the positions");
            logits.cross_entropy(&b.targets, Some(PAD), r.smoothing)
        });
        if step % every == 0 {
            excess.push(test.excess(&model, &params));
            if keep {
                checkpoints.push(params.clone());
            }
        }
    }
    Run { excess, model, params, checkpoints }
}
// ANCHOR_END: train
