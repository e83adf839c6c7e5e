//! Lecture 17 demo 04.2 and Lecture 6 script 04.2 — LayerNorm normalises
//! each position over its own features, BatchNorm each feature over the
//! batch: so only BatchNorm's output for a sentence depends on what else
//! (and how much padding) shares its batch.

use autograd::nn::{Embedding, LayerNorm, ToBlocks};
use autograd::{Params, Tape};
use faer::Mat;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

/// Embedding width, vocabulary (id 0 is the padding token) and the sentence.
pub const D: usize = 8;
pub const VOCAB: usize = 20;
pub const PAD: usize = 0;
pub const SENTENCE: [usize; 4] = [3, 7, 5, 9];

/// A batch holding the sentence: every sequence is `len` tokens, the
/// sentence padded up to it, and `others` random sentences of full length.
#[derive(Clone, Copy, Debug)]
pub struct Company {
    pub len: usize,
    pub others: usize,
    pub seed: u64,
}

/// The batch's token ids, sequence after sequence; the sentence comes first.
pub fn ids(c: Company) -> Vec<usize> {
    let mut rng = Pcg64Mcg::seed_from_u64(c.seed);
    let mut ids: Vec<usize> = SENTENCE.to_vec();
    ids.resize(c.len, PAD);
    ids.extend((0..c.others * c.len).map(|_| rng.random_range(1..VOCAB)));
    ids
}

// ANCHOR: normalised
/// The sentence's four output rows under LayerNorm and under BatchNorm
/// (training mode, γ = 1, β = 0, over every row of the batch, padding too).
pub fn normalised(params: &Params<f64>, table: &Embedding, c: Company) -> (Mat<f64>, Mat<f64>) {
    let ln = LayerNorm {
        gamma: params.find("ln.gamma").unwrap(),
        beta: params.find("ln.beta").unwrap(),
        eps: 1e-5,
    };
    let tape = Tape::new(params);
    let x = table.forward(&tape, &ids(c)); // (B·len, D)
    let by_ln = ln.forward(x).value().subrows(0, SENTENCE.len()).to_owned(); // (4, D)
    let (g, b) = (tape.param(ln.gamma), tape.param(ln.beta));
    let by_bn = x.batch_norm(g, b, 1e-5).value().subrows(0, SENTENCE.len()).to_owned();
    (by_ln, by_bn)
}
// ANCHOR_END: normalised

/// The embedding table and a LayerNorm's γ, β (shared with the BatchNorm).
pub fn setup(seed: u64) -> (Params<f64>, Embedding) {
    let mut params = Params::<f64>::new();
    let table = Embedding::new(&mut params, "emb", VOCAB, D, &mut Pcg64Mcg::seed_from_u64(seed));
    let _ = LayerNorm::new(&mut params, "ln", D);
    (params, table)
}

/// The largest change of the sentence's outputs between two batches, under
/// LayerNorm and under BatchNorm.
pub fn change(params: &Params<f64>, table: &Embedding, a: Company, b: Company) -> (f64, f64) {
    let ((ln_a, bn_a), (ln_b, bn_b)) = (normalised(params, table, a), normalised(params, table, b));
    (blocks::max_diff(&ln_a, &ln_b), blocks::max_diff(&bn_a, &bn_b))
}

/// The batches of the demo.
pub const SHORT: Company = Company { len: 6, others: 1, seed: 100 };
pub const LONG: Company = Company { len: 10, others: 3, seed: 101 };
pub const WIDE: Company = Company { len: 5, others: 7, seed: 102 };

pub fn layer_vs_batch_norm(seed: u64, nb: &mut Notebook) {
    nb.demo(
        "layer_vs_batch_norm",
        "L17 04.2 · L6 04.2 · LayerNorm vs BatchNorm: one sentence, three batches",
    );
    let (params, table) = setup(seed);
    say!(
        nb,
        "embeddings N(0, 1), d = {D}, seed {seed}; the sentence {SENTENCE:?}, padding id {PAD}"
    );
    for (name, c) in [("a", SHORT), ("b", LONG), ("c", WIDE)] {
        let pad = c.len - SENTENCE.len();
        say!(
            nb,
            "batch {name}: {} sequences of {}, the sentence + {pad} padding",
            c.others + 1,
            c.len
        );
    }
    say!(nb, "move = max |Δ| over the sentence's 4 × {D} outputs between two batches");
    for (pair, other) in [("ab", LONG), ("ac", WIDE)] {
        let (ln, bn) = change(&params, &table, SHORT, other);
        let ln = nb.value(&format!("ln_change_{pair}"), show::sci(ln, 1));
        let bn = nb.value(&format!("bn_change_{pair}"), show::num(bn, 2));
        say!(nb, "batch a → {}: move {ln} under LN, {bn} under BN", &pair[1..]);
    }
    // LN divides by the row's own spread, so scaling the row cancels, up to ε
    let tape = Tape::new(&params);
    let x = table.forward(&tape, &SENTENCE).value().to_owned(); // (4, D)
    let ln = LayerNorm {
        gamma: params.find("ln.gamma").unwrap(),
        beta: params.find("ln.beta").unwrap(),
        eps: 1e-5,
    }
    .to_blocks(&params);
    let scaled = Mat::from_fn(x.nrows(), D, |i, j| 7.5 * x[(i, j)]);
    let by_scale = blocks::max_diff(&ln.forward(&x), &ln.forward(&scaled));
    let by_scale = nb.value("ln_scale_change", show::sci(by_scale, 1));
    say!(nb, "LN(7.5·x) − LN(x): max {by_scale} (only ε = 1e-5 sees the scale)");
    let no_eps = blocks::layers::LayerNorm { eps: 0.0, ..ln.clone() };
    let exact = blocks::max_diff(&no_eps.forward(&x), &no_eps.forward(&scaled));
    let exact = nb.value("ln_scale_change_no_eps", show::sci(exact, 1));
    say!(nb, "the same with ε = 0: {exact} (rounding only)");
    let (by_ln, _) = normalised(&params, &table, Company { len: 4, others: 0, seed: 0 });
    let vs =
        nb.value("ln_blocks_vs_autograd", show::sci(blocks::max_diff(&by_ln, &ln.forward(&x)), 1));
    say!(nb, "blocks' LayerNorm vs autograd's on the sentence: max |Δ| = {vs}");
}
