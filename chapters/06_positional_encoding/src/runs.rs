//! Lecture 17 §6.6 — the reversal runs behind demo 03.5 and exercise 4: the
//! four ways of giving positions, the training itself, and what a model that
//! sees the input only as a bag of symbols could score.

use autograd::data::BOS;
use autograd::nn::{Positions, Seq2SeqConfig};
use autograd::train::{Recipe, reversal_run, test_set};
use rayon::prelude::*;
use record::{Notebook, say, show};

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

    // ANCHOR: reversal
    /// The Transformer of Lecture 17 §9 with these positions, for sequences
    /// of `len`: the four configurations differ in nothing else.
    pub fn config(self, vocab: usize, len: usize) -> Seq2SeqConfig {
        let base = Seq2SeqConfig::lecture17(vocab);
        match self {
            Kind::None => Seq2SeqConfig { positions: Positions::None, ..base },
            Kind::Sinusoidal => base,
            Kind::Learned => Seq2SeqConfig { positions: Positions::Learned(len), ..base },
            Kind::ScaledEmbeddings => Seq2SeqConfig { scale_embeddings: true, ..base },
        }
    }
    // ANCHOR_END: reversal
}

/// One trained model, judged on its 500 test sequences.
pub struct Run {
    pub kind: Kind,
    pub seed: u64,
    pub final_loss: f64,
    pub token_accuracy: f64,
    pub sequence_accuracy: f64,
    /// Share of the emitted tokens that are the input's most frequent symbol.
    pub mode_share: f64,
    /// Share of the outputs that hold exactly the input's symbols, reordered.
    pub permuted: f64,
}

// ANCHOR: reversal_measure
/// How often each token occurs in one sequence.
fn counts(seq: &[usize], vocab: usize) -> Vec<usize> {
    let mut c = vec![0; vocab];
    seq.iter().for_each(|&t| c[t] += 1);
    c
}

/// The most frequent symbol of one sequence (ties: the smallest).
fn mode(src: &[usize], vocab: usize) -> usize {
    let c = counts(src, vocab);
    blocks::argmax(c.iter().map(|&n| n as f64)).expect("a vocabulary of at least one symbol")
}

/// Train every kind with every seed (in parallel, each run sequential
/// inside), then decode the test sequences again to see what was emitted.
pub fn train(kinds: &[Kind], len: usize, steps: u32, seeds: &[u64]) -> Vec<Run> {
    let recipe = Recipe::reversal(len, steps);
    let runs: Vec<(Kind, u64)> =
        kinds.iter().flat_map(|&k| seeds.iter().map(move |&s| (k, s))).collect();
    runs.par_iter()
        .map(|&(kind, seed)| {
            let (model, params, trained) =
                reversal_run(kind.config(recipe.vocab(), len), &recipe, seed);
            // the same test sequences reversal_run decoded
            let test = test_set(&recipe, seed);
            let got = model.generate(&params, &test.src, recipe.test, len, BOS, true).tokens;
            let (mut modal, mut permuted) = (0, 0);
            for (src, out) in test.src.chunks(len).zip(got.chunks(len)) {
                let m = mode(src, recipe.vocab());
                modal += out.iter().filter(|&&t| t == m).count();
                permuted += usize::from(counts(src, recipe.vocab()) == counts(out, recipe.vocab()));
            }
            Run {
                kind,
                seed,
                final_loss: trained.final_loss(10),
                token_accuracy: trained.token_accuracy,
                sequence_accuracy: trained.sequence_accuracy,
                mode_share: modal as f64 / got.len() as f64,
                permuted: permuted as f64 / recipe.test as f64,
            }
        })
        .collect()
}
// ANCHOR_END: reversal_measure

/// Print one row per run and record its numbers as `{prefix}_{kind}_seed{i}_…`
/// (i counts from the first seed), with each kind's mean token accuracy.
pub fn table(prefix: &str, runs: &[Run], seeds: &[u64], nb: &mut Notebook) {
    let head = ["positions", "seed", "loss", "token acc.", "seq. acc.", "emits mode", "permutes"];
    say!(
        nb,
        "{:>28} {:>4} {:>6} {:>10} {:>9} {:>10} {:>8}",
        head[0],
        head[1],
        head[2],
        head[3],
        head[4],
        head[5],
        head[6]
    );
    let mut kinds: Vec<Kind> = runs.iter().map(|r| r.kind).collect();
    kinds.dedup();
    for kind in kinds {
        let (tag, label) = kind.tag();
        let mine: Vec<&Run> = runs.iter().filter(|r| r.kind == kind).collect();
        for r in &mine {
            let name = format!("{prefix}_{tag}_seed{}", r.seed - seeds[0]);
            let loss = nb.value(&format!("{name}_loss"), show::num(r.final_loss, 3));
            let tok = nb.value(&format!("{name}_tokens"), show::num(r.token_accuracy, 3));
            let seq = nb.value(&format!("{name}_sequences"), show::num(r.sequence_accuracy, 3));
            let modal = nb.value(&format!("{name}_mode"), show::num(r.mode_share, 3));
            let perm = nb.value(&format!("{name}_permuted"), show::num(r.permuted, 3));
            let s = r.seed;
            say!(nb, "{label:>28} {s:>4} {loss:>6} {tok:>10} {seq:>9} {modal:>10} {perm:>8}");
        }
        let mean = mine.iter().map(|r| r.token_accuracy).sum::<f64>() / mine.len() as f64;
        nb.value(&format!("{prefix}_{tag}_tokens_mean"), show::num(mean, 3));
    }
}

// ANCHOR: baselines
/// What the bag of symbols allows on the test sequences of the run with
/// `seed`, as token accuracies and as training losses (teacher forcing):
/// `most_frequent` always answers the input's most frequent symbol;
/// `blind_order` emits the input's symbols in an order blind to position,
/// expected Σ_s c_s² / L² per sequence (every target position holds s with
/// probability c_s / L); `loss_bag` is the cross-entropy of predicting c_s / L
/// at every step, `loss_left` that of predicting what the bag still holds
/// after the target prefix, the least a model blind to positions can reach.
pub struct Baselines {
    pub most_frequent: f64,
    pub blind_order: f64,
    pub loss_bag: f64,
    pub loss_left: f64,
}

pub fn baselines(len: usize, seed: u64) -> Baselines {
    let recipe = Recipe::reversal(len, 1);
    let test = test_set(&recipe, seed);
    let (mut right, mut order, mut bag, mut left) = (0, 0.0, 0.0, 0.0);
    for (src, tgt) in test.src.chunks(len).zip(test.tgt_out.chunks(len)) {
        let m = mode(src, recipe.vocab());
        right += tgt.iter().filter(|&&t| t == m).count();
        let c = counts(src, recipe.vocab());
        order += c.iter().map(|&n| (n * n) as f64).sum::<f64>() / (len * len) as f64;
        let mut rest = c.clone();
        for (t, &y) in tgt.iter().enumerate() {
            bag -= libm::log(c[y] as f64 / len as f64);
            left -= libm::log(rest[y] as f64 / (len - t) as f64);
            rest[y] -= 1;
        }
    }
    let tokens = test.tgt_out.len() as f64;
    Baselines {
        most_frequent: right as f64 / tokens,
        blind_order: order / recipe.test as f64,
        loss_bag: bag / tokens,
        loss_left: left / tokens,
    }
}
// ANCHOR_END: baselines
