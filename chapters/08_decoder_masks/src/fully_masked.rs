//! Lecture 17 §8.1 and Lecture 6 §2.3 — a query whose every key is masked.
//! The left-padded prompt of `left.rs` has two: its padding positions 0 and
//! 1 may look only at keys 0..=t, which are padding too. What such a row
//! becomes depends on how the mask is applied: −1e9, −∞, or the book's
//! softmax, which leaves it all zeros.

use autograd::nn::ToBlocks;
use autograd::{Params, Tape};
use blocks::{softmax_rows_masked, worse};
use faer::Mat;
use record::{Notebook, say, show};

use crate::left::{LEFT, block, decoder_keep, embed};

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
/// Two queries through autograd, `scores = x·W` (2, 4) with W shared, the
/// second query's keys all masked — the book's way (a keep row of zeros) or
/// by adding −∞. Returns that row's weights and the largest |gradient| of
/// one loss over both queries that reaches the second query.
fn masked_row_gradient(minus_inf: bool) -> (Vec<f64>, f64) {
    let mut params = Params::<f64>::new();
    let x = params.add("x", Mat::from_fn(2, 3, |i, j| 0.5 - 0.3 * (i + 2 * j) as f64)); // (2, 3)
    let w = params.add("w", Mat::from_fn(3, 4, |i, j| 0.2 * (i + j) as f64 - 0.3)); // (3, 4)
    let tape = Tape::new(&params);
    let scores = tape.param(x).matmul(tape.param(w)); // (2, 4)
    let weights = if minus_inf {
        let add = Mat::from_fn(2, 4, |i, _| if i == 1 { f64::NEG_INFINITY } else { 0.0 });
        scores.add(tape.input(add)).softmax_rows(None)
    } else {
        let keep = Mat::from_fn(2, 4, |i, _| if i == 1 { 0.0 } else { 1.0 });
        scores.softmax_rows(Some(&keep))
    };
    let values = Mat::from_fn(2, 4, |i, j| (1 + i + j) as f64); // what the weights pick from
    let grads = tape.backward(weights.mul(tape.input(values)).sum());
    let dx = grads.get(x).expect("x is a parameter"); // (2, 3)
    let row = (0..4).map(|j| weights.value()[(1, j)]).collect();
    (row, (0..3).map(|j| dx[(1, j)].abs()).fold(0.0, worse))
}

/// Weights (2, n) — a real query's row, then the plain softmax's NaN row —
/// times values `keys·W^V` with W^V shared by both queries: how many of
/// the entries of ∂loss/∂W^V are NaN, and of how many.
fn nan_row_gradient(weights: &Mat<f64>) -> (usize, usize) {
    let n = weights.ncols();
    let mut params = Params::<f64>::new();
    let w_v = params.add("w_v", Mat::from_fn(3, 2, |i, j| 0.1 * (i + 3 * j) as f64 - 0.2));
    let tape = Tape::new(&params);
    let keys = Mat::from_fn(n, 3, |i, j| 0.25 * (i as f64) - 0.1 * (j as f64)); // (n, 3)
    let values = tape.input(keys).matmul(tape.param(w_v)); // (n, 2)
    let context = tape.input(weights.clone()).matmul(values); // (2, 2)
    let grads = tape.backward(context.sum());
    let dw = grads.get(w_v).expect("W^V is a parameter"); // (3, 2)
    let all: Vec<f64> = (0..3).flat_map(|i| (0..2).map(move |j| (i, j))).map(|p| dw[p]).collect();
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
    for (label, name, minus_inf) in [("keep row of 0", "keep", false), ("add −∞", "inf", true)]
    {
        let (row, to_query) = masked_row_gradient(minus_inf);
        let sum = nb.value(&format!("autograd_sum_{name}"), show::num(row.iter().sum(), 1));
        let grad = nb.value(&format!("autograd_grad_{name}"), show::sci(to_query, 1));
        let row = show::tuple(row, 4);
        say!(nb, "  {label:<13} → weights {row} (sum {sum}); gradient into it {grad}");
    }
    // a real query's row (the prompt's last), then the plain softmax's NaN row
    let real = &heads[0].weights;
    let weights = Mat::from_fn(2, n, |i, j| if i == 0 { real[(n - 1, j)] } else { rows[4][j] });
    let (nan, all) = nan_row_gradient(&weights);
    let nan = nb.value("nan_grad_entries", nan.to_string());
    let all = nb.value("grad_entries", all.to_string());
    say!(
        nb,
        "plain softmax with −∞: NaN entries in the gradient of the shared W^V: {nan} of {all}"
    );
}
