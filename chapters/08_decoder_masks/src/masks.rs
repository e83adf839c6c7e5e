//! Lecture 17 demo 04.4 and Lecture 6 script 01.3 — the look-ahead mask:
//! the weights it leaves, what changing the future does to the past, and
//! what a row with every key masked turns into.

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
    say!(nb, "self-attention weights, head 0, of a random decoder layer (seed {seed}):");
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

/// Softmax of one row the plain way: subtract the maximum, exponentiate,
/// divide by the sum. With every score −∞ the maximum is −∞ too, and
/// −∞ − (−∞) is NaN.
fn plain_softmax(scores: &[f64]) -> Vec<f64> {
    let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = scores.iter().map(|s| libm::exp(s - max)).collect();
    let sum: f64 = e.iter().sum();
    e.iter().map(|x| x / sum).collect()
}

// ANCHOR: fully_masked_row
pub fn fully_masked_row(nb: &mut Notebook) {
    nb.demo(
        "fully_masked_row",
        "A query whose every key is masked: −1e9, −∞, and the book's softmax",
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
}
// ANCHOR_END: fully_masked_row
