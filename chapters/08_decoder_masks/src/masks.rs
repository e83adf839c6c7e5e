//! Lecture 17 demo 04.4 and Lecture 6 script 01.3 — the look-ahead mask:
//! the weights it leaves, what changing the future does to the past, and
//! what a row with every key masked turns into.

use autograd::{Params, Tape};
use blocks::layers::causal_mask;
use blocks::{max_diff, softmax_rows_masked, worse};
use faer::Mat;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

use crate::small::{D_MODEL, N, POS, Small, random, rows};

// ANCHOR: look_ahead
pub fn look_ahead(seed: u64, nb: &mut Notebook) {
    nb.demo("look_ahead", "L17 04.4 · L6 01.3 · The look-ahead mask and the weights it leaves");
    let small = Small::new(seed);
    let keep = causal_mask(N); // (N, N): row t may look at columns 0..=t
    say!(nb, "look-ahead mask, {N} positions (1 = may look; row = query, column = key):");
    for line in show::table(keep.as_ref(), &POS, &POS, 0) {
        say!(nb, "  {line}");
    }
    let (_, heads) = small.forward(&small.y, Some(&keep));
    let weights = &heads[0]; // head 0 of the self-attention, (N, N)
    say!(nb, "self-attention weights, head 0, of a random Post-LN decoder layer (seed {seed}):");
    for line in show::table(weights.as_ref(), &POS, &POS, 3) {
        say!(nb, "  {line}");
    }
    let above = (0..N)
        .flat_map(|t| (t + 1..N).map(move |s| (t, s)))
        .map(|(t, s)| weights[(t, s)])
        .fold(0.0, worse);
    let above = nb.value("weight_above_diagonal", show::sci(above, 1));
    say!(nb, "largest weight above the diagonal: {above}");
    let first = nb.value("first_row_weight", show::num(weights[(0, 0)], 3));
    say!(nb, "position 0 can only look at itself: weight {first}");
}
// ANCHOR_END: look_ahead

// ANCHOR: future_inputs
pub fn future_inputs(seed: u64, nb: &mut Notebook) {
    nb.demo("future_inputs", "L17 04.4 · L6 01.3 · Changing the future does not reach the past");
    let small = Small::new(seed);
    let keep = causal_mask(N);
    let mut rng = Pcg64Mcg::seed_from_u64(seed + 1);
    // positions 3 and 4 get entirely different vectors
    let mut y_other = small.y.clone();
    let fresh = random(N - 3, D_MODEL, &mut rng);
    y_other.as_mut().submatrix_mut(3, 0, N - 3, D_MODEL).copy_from(&fresh);
    say!(nb, "inputs at positions 3 and 4 replaced by new random vectors:");
    for (name, label, mask) in
        [("masked", "with the mask   ", Some(&keep)), ("unmasked", "without the mask", None)]
    {
        let (before, _) = small.forward(&small.y, mask);
        let (after, _) = small.forward(&y_other, mask);
        let past = max_diff(&rows(&before, 0, 3), &rows(&after, 0, 3));
        let past = nb.value(&format!("past_change_{name}"), show::sci(past, 1));
        say!(nb, "  {label}: max |Δ output| at positions 0..2 = {past}");
    }
    say!(nb, "one position j changed at a time (with the mask):");
    say!(
        nb,
        "  {:>3}  {:>22}  {:>24}",
        "j",
        "max |Δ| at positions < j",
        "smallest |Δ| at positions ≥ j"
    );
    let mut worst_before: f64 = 0.0;
    let mut least_after = f64::INFINITY;
    let (before, _) = small.forward(&small.y, Some(&keep));
    for j in 0..N {
        let mut y_j = small.y.clone();
        let fresh = random(1, D_MODEL, &mut rng);
        y_j.as_mut().submatrix_mut(j, 0, 1, D_MODEL).copy_from(&fresh);
        let (after, _) = small.forward(&y_j, Some(&keep));
        // the largest change of each output row
        let change: Vec<f64> =
            (0..N).map(|t| max_diff(&rows(&before, t, 1), &rows(&after, t, 1))).collect();
        let earlier = change[..j].iter().copied().fold(0.0, worse);
        let later = change[j..].iter().copied().fold(f64::INFINITY, f64::min);
        worst_before = worse(worst_before, earlier);
        least_after = least_after.min(later);
        say!(nb, "  {j:>3}  {:>24}  {:>29}", show::sci(earlier, 1), show::num(later, 3));
    }
    nb.value("one_change_before", show::sci(worst_before, 1));
    nb.value("one_change_after_min", show::num(least_after, 3));
}
// ANCHOR_END: future_inputs

// ANCHOR: unmasked_size
pub fn unmasked_size(seed: u64, nb: &mut Notebook) {
    nb.demo("unmasked_size", "L17 04.4 · What sets the size of the change without the mask");
    let (layers, factors) = (10, [1.0, 2.0, 4.0, 8.0]); // layers: seeds seed, seed + 1, …
    nb.value("size_layers", layers.to_string());
    nb.value("size_top_factor", show::short(factors[factors.len() - 1]));
    // max |Δ output| at positions 0..2, no mask, when 3 and 4 get `fresh`
    let past_change = |small: &Small, fresh: &Mat<f64>| {
        let mut y_other = small.y.clone();
        y_other.as_mut().submatrix_mut(3, 0, N - 3, D_MODEL).copy_from(fresh);
        let (before, after) = (small.forward(&small.y, None).0, small.forward(&y_other, None).0);
        max_diff(&rows(&before, 0, 3), &rows(&after, 0, 3))
    };
    say!(nb, "no mask, positions 3 and 4 replaced: max |Δ output| at positions 0..2");
    say!(nb, "over {layers} random layers, the self-attention's W^O multiplied by a factor:");
    say!(nb, "  {:>6}  {:>20}  {:>20}", "factor", "U(±1): mean, max", "N(0, 1): mean, max");
    for factor in factors {
        let (mut uniform, mut normal) = (Vec::new(), Vec::new());
        for i in 0..layers {
            let small = Small::with_attention_scaled(seed.wrapping_add(i), factor);
            let mut rng = Pcg64Mcg::seed_from_u64(seed.wrapping_add(i + 1));
            let fresh = random(N - 3, D_MODEL, &mut rng); // the draw of future_inputs
            uniform.push(past_change(&small, &fresh));
            let fresh = blocks::init::normal(N - 3, D_MODEL, 1.0, &mut rng); // N(0, 1)
            normal.push(past_change(&small, &fresh));
        }
        let mut line = format!("  {factor:>6}");
        for (kind, changes) in [("u", &uniform), ("n", &normal)] {
            let mean = changes.iter().sum::<f64>() / layers as f64;
            let max = changes.iter().copied().fold(0.0, worse);
            let mean = nb.value(&format!("size_{kind}_mean_{factor}"), show::num(mean, 2));
            let max = nb.value(&format!("size_{kind}_max_{factor}"), show::num(max, 2));
            line += &format!("  {mean:>9} {max:>10}");
        }
        say!(nb, "{line}");
    }
}
// ANCHOR_END: unmasked_size

/// Softmax of one row the plain way: subtract the maximum, exponentiate,
/// divide by the sum. With every score −∞ the maximum is −∞ too, and
/// −∞ − (−∞) is NaN.
fn plain_softmax(scores: &[f64]) -> Vec<f64> {
    let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = scores.iter().map(|s| libm::exp(s - max)).collect();
    let sum: f64 = e.iter().sum();
    e.iter().map(|x| x / sum).collect()
}

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

/// The plain softmax's weights (2, 4) — the second row NaN, as −∞ leaves it
/// — times values `keys·W^V` with W^V shared by both queries: how many of
/// the entries of ∂loss/∂W^V are NaN, and of how many.
fn nan_row_gradient(weights: &Mat<f64>) -> (usize, usize) {
    let mut params = Params::<f64>::new();
    let w_v = params.add("w_v", Mat::from_fn(3, 2, |i, j| 0.1 * (i + 3 * j) as f64 - 0.2));
    let tape = Tape::new(&params);
    let keys = Mat::from_fn(4, 3, |i, j| 0.25 * (i as f64) - 0.1 * (j as f64)); // (4, 3)
    let values = tape.input(keys).matmul(tape.param(w_v)); // (4, 2)
    let context = tape.input(weights.clone()).matmul(values); // (2, 2)
    let grads = tape.backward(context.sum());
    let dw = grads.get(w_v).expect("W^V is a parameter"); // (3, 2)
    let all: Vec<f64> = (0..3).flat_map(|i| (0..2).map(move |j| (i, j))).map(|p| dw[p]).collect();
    (all.iter().filter(|g| g.is_nan()).count(), all.len())
}
// ANCHOR_END: masked_row_gradients

// ANCHOR: fully_masked_row
pub fn fully_masked_row(nb: &mut Notebook) {
    nb.demo(
        "fully_masked_row",
        "L17 04.4 · L6 01.3 · A query whose every key is masked: −1e9, −∞, the book's softmax",
    );
    let scores = [1.3, -0.4, 2.1, 0.2]; // one query's scores; its mask is all 0
    let added: Vec<f64> = scores.iter().map(|s| s - 1e9).collect(); // s + (1 − 0)·(−1e9)
    // in f32 the spacing of numbers near 1e9 is 64, so s − 1e9 rounds to −1e9
    let added_f32: Vec<f64> = scores.iter().map(|&s| f64::from(s as f32 - 1e9_f32)).collect();
    let rows: [(&str, Vec<f64>); 5] = [
        ("no mask", plain_softmax(&scores)),
        ("add −1e9, f64", plain_softmax(&added)),
        ("add −1e9, f32", plain_softmax(&added_f32)),
        ("set to −1e9", plain_softmax(&[-1e9; 4])),
        ("set or add −∞", plain_softmax(&[f64::NEG_INFINITY; 4])),
    ];
    say!(nb, "scores of one query {}, every key masked:", show::tuple(scores, 1));
    for (label, w) in &rows {
        say!(nb, "  {label:<15} → weights {}", show::tuple(w.iter().copied(), 4));
    }
    let book = softmax_rows_masked(
        Mat::from_fn(1, 4, |_, j| scores[j]).as_ref(),
        Some(Mat::<f64>::zeros(1, 4).as_ref()),
    );
    say!(nb, "  {:<15} → weights {}", "the book's", show::row(book.as_ref(), 0, 4));
    let drift = rows[1].1.iter().zip(&rows[0].1).map(|(a, b)| (a - b).abs()).fold(0.0, worse);
    let drift = nb.value("added_f64_vs_unmasked", show::sci(drift, 1));
    let uniform = rows[2].1.iter().chain(&rows[3].1).all(|&w| w == 0.25);
    nb.value("uniform_rows_exact", uniform.to_string());
    nb.value("neg_inf_is_nan", rows[4].1.iter().all(|w| w.is_nan()).to_string());
    nb.value("book_row_sum", show::num((0..4).map(|j| book[(0, j)]).sum(), 1));
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
    // the plain softmax's NaN row, then weights × values with a shared W^V
    let weights = Mat::from_fn(2, 4, |i, j| if i == 0 { rows[0].1[j] } else { rows[4].1[j] });
    let (nan, all) = nan_row_gradient(&weights);
    let nan = nb.value("nan_grad_entries", nan.to_string());
    let all = nb.value("grad_entries", all.to_string());
    say!(
        nb,
        "plain softmax with −∞: NaN entries in the gradient of the shared W^V: {nan} of {all}"
    );
}
// ANCHOR_END: fully_masked_row
