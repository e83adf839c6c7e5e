//! Lecture 17 §8.1 and Lecture 6 §2.3 — a query whose every key is masked.
//! The left-padded prompt of `left.rs` has two: its padding positions 0 and
//! 1 may look only at keys 0..=t, which are padding too. What such a row
//! becomes depends on how the mask is applied: −1e9, −∞, or the book's
//! softmax, which leaves it all zeros.

use autograd::nn::ToBlocks;
use autograd::{Params, Tape};
use blocks::{softmax_rows_masked, worse};
use faer::Mat;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

use crate::left::{LEFT, block, decoder_keep, embed};
use crate::small::random;

/// Softmax of one row the plain way: subtract the maximum, exponentiate,
/// divide by the sum. With every score −∞ the maximum is −∞ too, and
/// −∞ − (−∞) is NaN.
fn plain_softmax(scores: &[f64]) -> Vec<f64> {
    let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = scores.iter().map(|s| libm::exp(s - max)).collect();
    let sum: f64 = e.iter().sum();
    e.iter().map(|x| x / sum).collect()
}

/// The recipes a row can go through when every one of its keys is masked.
pub const RECIPES: [&str; 6] =
    ["no mask", "add −1e9, f64", "add −1e9, f32", "set to −1e9", "set or add −∞", "the book's"];

// ANCHOR: fully_masked_row
/// One query's `scores`, every key masked (mask 0 everywhere), under each
/// of [`RECIPES`]: the weights it ends up with.
pub fn masked_row_recipes(scores: &[f64]) -> Vec<Vec<f64>> {
    let n = scores.len();
    let added: Vec<f64> = scores.iter().map(|s| s - 1e9).collect(); // s + (1 − 0)·(−1e9)
    // in f32 the spacing of numbers near 1e9 is 64, so s − 1e9 rounds to −1e9
    let added_f32: Vec<f64> = scores.iter().map(|&s| f64::from(s as f32 - 1e9_f32)).collect();
    let keep = Mat::<f64>::zeros(1, n); // the book's: a keep row of zeros
    let book =
        softmax_rows_masked(Mat::from_fn(1, n, |_, j| scores[j]).as_ref(), Some(keep.as_ref()));
    vec![
        plain_softmax(scores),
        plain_softmax(&added),
        plain_softmax(&added_f32),
        plain_softmax(&vec![-1e9; n]),
        plain_softmax(&vec![f64::NEG_INFINITY; n]),
        (0..n).map(|j| book[(0, j)]).collect(),
    ]
}
// ANCHOR_END: fully_masked_row

// ANCHOR: masked_row_gradients
/// Two queries `x` (2, 3) score four keys through one shared `W` (3, 4),
/// `scores = x·W`; the second query may look at no key — the book's way (a
/// keep row of zeros) or by adding −∞ to its scores. One loss reads both
/// rows of weights. Returns the second row's weights and the largest
/// |∂loss/∂x| that reaches the second query.
fn masked_row_gradient(minus_inf: bool, rng: &mut Pcg64Mcg) -> (Vec<f64>, f64) {
    let mut params = Params::<f64>::new();
    let x = params.add("x", random(2, 3, rng)); // (2, 3): two queries
    let w = params.add("w", random(3, 4, rng)); // (3, 4): shared by both
    let tape = Tape::new(&params);
    let scores = tape.param(x).matmul(tape.param(w)); // (2, 4)
    // a (2, 4) matrix whose second row is `second` and whose first is `first`
    let rows_of = |first: f64, second: f64| Mat::from_fn(2, 4, |i, _| [first, second][i]);
    let weights = if minus_inf {
        scores.add(tape.input(rows_of(0.0, f64::NEG_INFINITY))).softmax_rows(None)
    } else {
        scores.softmax_rows(Some(&rows_of(1.0, 0.0))) // keep-mask: row 1 keeps nothing
    };
    let probe = tape.input(random(2, 4, rng)); // (2, 4): loss = Σ weights ⊙ probe
    let grads = tape.backward(weights.mul(probe).sum());
    let dx = grads.get(x).expect("x is a parameter"); // (2, 3)
    let row = (0..4).map(|j| weights.value()[(1, j)]).collect();
    // `worse` is max, except that a NaN wins: a NaN gradient cannot hide
    (row, (0..3).map(|j| dx[(1, j)].abs()).fold(0.0, worse))
}

/// A real query's weights `real` and the plain softmax's `nan_row`, stacked
/// (2, n), times values `keys·W^V` (n, 2) with W^V shared by both queries:
/// how many entries of ∂loss/∂W^V come out NaN, and of how many.
fn nan_row_gradient(real: &[f64], nan_row: &[f64], rng: &mut Pcg64Mcg) -> (usize, usize) {
    let n = real.len();
    let weights = Mat::from_fn(2, n, |i, j| [real[j], nan_row[j]][i]); // (2, n)
    let mut params = Params::<f64>::new();
    let w_v = params.add("w_v", random(3, 2, rng)); // (3, 2)
    let tape = Tape::new(&params);
    let keys = tape.input(random(n, 3, rng)); // (n, 3)
    let values = keys.matmul(tape.param(w_v)); // (n, 2)
    let context = tape.input(weights).matmul(values); // (2, 2)
    let grads = tape.backward(context.sum());
    let dw = grads.get(w_v).expect("W^V is a parameter"); // (3, 2)
    let all: Vec<f64> = (0..3).flat_map(|i| (0..2).map(move |j| dw[(i, j)])).collect();
    (all.iter().filter(|g| g.is_nan()).count(), all.len())
}
// ANCHOR_END: masked_row_gradients

pub fn fully_masked_row(seed: u64, nb: &mut Notebook) {
    nb.demo(
        "fully_masked_row",
        "L17 04.4 · L6 01.3 · A query whose every key is masked: −1e9, −∞, the book's softmax",
    );
    // the left-padded prompt 0 alone, under look-ahead × padding, through the blocks copy
    let (layer, params, table) = block(seed);
    let ids = &LEFT[..5];
    let x = embed(&table, ids, 1, true); // (5, d_model)
    let keep = decoder_keep(ids, 1, true, true); // (5, 5): rows 0 and 1 all zero
    let (_, heads) = layer.to_blocks(&params).attn.forward(&x, &x, Some(&keep));
    let (row, n) = (1, ids.len()); // padding position 1: keys 0 and 1 are padding, 2..4 future
    let scores: Vec<f64> = (0..n).map(|j| heads[0].scores[(row, j)]).collect();
    say!(
        nb,
        "left-padded prompt {ids:?}, look-ahead × padding mask: query {row} may look at no key"
    );
    say!(
        nb,
        "its scores in head 0 of the decoder-only block: {}",
        show::tuple(scores.iter().copied(), 3)
    );
    let (w, o) = (&heads[0].weights, &heads[0].output); // (5, 5), (5, d_h)
    let in_layer =
        (0..n).map(|j| w[(row, j)].abs()).chain((0..o.ncols()).map(|j| o[(row, j)].abs()));
    let in_layer = nb.value("left_row_in_layer", show::num(in_layer.fold(0.0, f64::max), 1));
    say!(
        nb,
        "in the layer (the book's softmax): largest |weight| and |output| of that row {in_layer}"
    );
    let rows = masked_row_recipes(&scores);
    say!(nb, "the same row under each recipe:");
    for (label, w) in RECIPES.iter().zip(&rows) {
        say!(nb, "  {label:<15} → weights {}", show::tuple(w.iter().copied(), 4));
    }
    let drift = rows[1].iter().zip(&rows[0]).map(|(a, b)| (a - b).abs()).fold(0.0, worse);
    let drift = nb.value("added_f64_vs_unmasked", show::sci(drift, 1));
    let uniform = rows[2].iter().chain(&rows[3]).all(|&w| w == 1.0 / n as f64);
    nb.value("uniform_rows_exact", uniform.to_string());
    nb.value("neg_inf_is_nan", rows[4].iter().all(|w| w.is_nan()).to_string());
    nb.value("book_row_sum", show::num(rows[5].iter().sum(), 1));
    nb.value("masked_row_keys", n.to_string());
    say!(nb, "added in f64, the row keeps its own shape: max |Δ| from no mask = {drift}");
    say!(nb, "autograd, two queries, the second fully masked, one loss over both:");
    let mut rng = Pcg64Mcg::seed_from_u64(seed + 3);
    for (label, name, minus_inf) in [("keep row of 0", "keep", false), ("add −∞", "inf", true)]
    {
        let (row, to_query) = masked_row_gradient(minus_inf, &mut rng);
        let sum = nb.value(&format!("autograd_sum_{name}"), show::num(row.iter().sum(), 1));
        let grad = nb.value(&format!("autograd_grad_{name}"), show::sci(to_query, 1));
        let row = show::tuple(row, 4);
        say!(nb, "  {label:<13} → weights {row} (sum {sum}); gradient into it {grad}");
    }
    // a real query's row (the prompt's last), then the plain softmax's NaN row
    let real: Vec<f64> = (0..n).map(|j| heads[0].weights[(n - 1, j)]).collect();
    let (nan, all) = nan_row_gradient(&real, &rows[4], &mut rng);
    let nan = nb.value("nan_grad_entries", nan.to_string());
    let all = nb.value("grad_entries", all.to_string());
    say!(
        nb,
        "plain softmax with −∞: NaN entries in the gradient of the shared W^V: {nan} of {all}"
    );
}
