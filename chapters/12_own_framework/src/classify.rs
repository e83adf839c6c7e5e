//! Lecture 6 §9.3 — three models learn the reviews with the book's own
//! framework: a bag of words (a linear model on word counts), and the
//! Transformer classifier (`autograd::nn::Classifier`) without and with
//! learned positions. Same batches, same optimiser, same number of steps.

use autograd::nn::{Classifier, ClassifierConfig, Linear, Norm};
use autograd::optim::Adam;
use autograd::train::step;
use autograd::{Params, Smoothing, Tape, Var};
use faer::Mat;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use crate::reviews::{self, Kind, PAD, POSITIONS, Review, Training, padded};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    BagOfWords,
    NoPositions,
    LearnedPositions,
}

impl Model {
    pub const ALL: [Model; 3] = [Model::BagOfWords, Model::NoPositions, Model::LearnedPositions];

    pub fn name(self) -> &'static str {
        match self {
            Model::BagOfWords => "bag of words",
            Model::NoPositions => "Transformer, no positions",
            Model::LearnedPositions => "Transformer, learned positions",
        }
    }

    pub fn tag(self) -> &'static str {
        match self {
            Model::BagOfWords => "bow",
            Model::NoPositions => "nopos",
            Model::LearnedPositions => "pos",
        }
    }
}

/// How the models are trained.
#[derive(Clone, Copy, Debug)]
pub struct Setup {
    pub steps: u32,
    pub batch: usize,
    pub lr: f64,
}

/// The Transformer classifier's sizes: one Post-LN encoder layer.
pub fn config(positions: bool) -> ClassifierConfig {
    ClassifierConfig {
        vocab: reviews::vocabulary().len(),
        pad: PAD,
        d_model: 32,
        heads: 4,
        d_ff: 64,
        layers: 1,
        norm: Norm::Post,
        positions: positions.then_some(POSITIONS),
        classes: 2,
    }
}

// ANCHOR: bag_of_words
/// Word counts, one row per review: (B, V). The padding id is not counted.
pub fn counts(ids: &[usize], batch: usize, vocab: usize) -> Mat<f32> {
    let len = ids.len() / batch;
    let mut c = Mat::zeros(batch, vocab);
    for (r, &t) in ids.iter().enumerate().filter(|(_, t)| **t != PAD) {
        c[(r / len, t)] += 1.0;
    }
    c
}

/// The bag of words: class scores linear in the word counts, `counts·W + b`.
pub struct BagOfWords {
    pub linear: Linear,
    pub vocab: usize,
}

impl BagOfWords {
    pub fn forward<'t>(&self, tape: &'t Tape<f32>, ids: &[usize], batch: usize) -> Var<'t, f32> {
        self.linear.forward(tape.input(counts(ids, batch, self.vocab))) // (B, 2)
    }
}
// ANCHOR_END: bag_of_words

/// A model and its parameters.
pub enum Net {
    Bow(BagOfWords),
    Transformer(Classifier),
}

impl Net {
    pub fn new(model: Model, params: &mut Params<f32>, rng: &mut Pcg64Mcg) -> Net {
        let vocab = reviews::vocabulary().len();
        match model {
            Model::BagOfWords => Net::Bow(BagOfWords {
                linear: Linear::new(params, "bow", vocab, 2, true, rng),
                vocab,
            }),
            Model::NoPositions => Net::Transformer(Classifier::new(params, config(false), rng)),
            Model::LearnedPositions => Net::Transformer(Classifier::new(params, config(true), rng)),
        }
    }

    /// Class scores for a batch, (B, 2).
    pub fn logits<'t>(&self, tape: &'t Tape<f32>, ids: &[usize], batch: usize) -> Var<'t, f32> {
        match self {
            Net::Bow(m) => m.forward(tape, ids, batch),
            Net::Transformer(m) => {
                m.forward(tape, ids, batch)
                    .expect("no review is longer than the position table")
                    .logits
            }
        }
    }
}

/// A trained model.
pub struct Trained {
    pub model: Model,
    pub net: Net,
    pub params: Params<f32>,
    pub losses: Vec<f64>,
}

// ANCHOR: train_classifier
/// Train one model: Adam on the mean cross-entropy of random batches.
pub fn train(model: Model, setup: Setup, data: &Training, seed: u64) -> Trained {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut params = Params::new();
    let net = Net::new(model, &mut params, &mut rng);
    let mut adam = Adam::new(&params, setup.lr, 0.9, 0.999, 1e-8);
    let mut batches = Pcg64Mcg::seed_from_u64(seed + 1000); // the same batches for every model
    let mut losses = Vec::with_capacity(setup.steps as usize);
    for _ in 0..setup.steps {
        let (ids, _, labels) = padded(&data.batch(setup.batch, &mut batches));
        let loss = step(&mut params, &mut adam, |tape| {
            net.logits(tape, &ids, labels.len()).cross_entropy(&labels, None, Smoothing::None)
        });
        losses.push(f64::from(loss));
    }
    Trained { model, net, params, losses }
}
// ANCHOR_END: train_classifier

impl Trained {
    /// The predicted class of each review (all of one length).
    pub fn predict(&self, reviews: &[Review]) -> Vec<usize> {
        let (ids, _, _) = padded(reviews);
        let tape = Tape::new(&self.params);
        let logits = self.net.logits(&tape, &ids, reviews.len());
        let z = logits.value();
        (0..z.nrows()).map(|i| usize::from(z[(i, 1)] > z[(i, 0)])).collect()
    }

    /// The share of `reviews` classified right.
    pub fn accuracy(&self, reviews: &[Review]) -> f64 {
        let right = self.predict(reviews).into_iter().zip(reviews).filter(|(p, r)| *p == r.label);
        right.count() as f64 / reviews.len() as f64
    }

    /// Attention weights of the (single) layer for one review, averaged over
    /// the heads: (S, S), row = query.
    pub fn attention(&self, review: &Review) -> Mat<f64> {
        let Net::Transformer(m) = &self.net else { panic!("a bag of words has no attention") };
        let tape = Tape::new(&self.params);
        let out = m.forward(&tape, &review.ids, 1).expect("short enough");
        let h = m.cfg.heads;
        let s = review.ids.len();
        let mut mean = Mat::zeros(s, s);
        for i in 0..h {
            let w = out.weights[0].head(&tape, 0, i);
            mean += Mat::from_fn(s, s, |q, k| f64::from(w[(q, k)]) / h as f64);
        }
        mean
    }
}

/// The test sentences, by kind (each kind one length: no padding).
pub fn test_sets() -> [Vec<Review>; 3] {
    Kind::ALL.map(|k| reviews::all(true, k))
}
