//! The exercises' checks: Lecture 17 exercise 4 (the masks of one target
//! sentence), Lecture 6 exercise 2 (how much a look-ahead mask hides) and
//! the chapter's exercise 4 (decoding a model trained for a few steps).

use autograd::train::Recipe;
use blocks::layers::causal_mask;
use blocks::{Attention, scaled_dot_product_attention};
use faer::Mat;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

use crate::generation::train_and_decode;
use crate::small::random;

// ANCHOR: exercise_masks
/// The look-ahead mask of `tokens`, its padding mask (the same row for
/// every query) and their product, entry by entry.
pub fn target_masks(tokens: &[usize], pad: usize) -> [Mat<f64>; 3] {
    let n = tokens.len();
    let look_ahead = causal_mask(n); // (n, n)
    let padding = Mat::from_fn(n, n, |_, s| if tokens[s] != pad { 1.0 } else { 0.0 });
    let both = Mat::from_fn(n, n, |t, s| look_ahead[(t, s)] * padding[(t, s)]);
    [look_ahead, padding, both]
}

/// Attention under `keep` with random q, k, v (8 columns each).
pub fn attend_under(keep: &Mat<f64>, seed: u64) -> Attention {
    let n = keep.nrows();
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let (q, k, v) = (random(n, 8, &mut rng), random(n, 8, &mut rng), random(n, 8, &mut rng));
    scaled_dot_product_attention(q.as_ref(), k.as_ref(), v.as_ref(), Some(keep.as_ref()))
}
// ANCHOR_END: exercise_masks

pub fn exercise_masks(seed: u64, nb: &mut Notebook) {
    nb.demo("exercise_masks", "L17 exercise 4 · The masks of the target [1, 7, 3, 0]");
    let (tokens, pad) = ([1, 7, 3, 0], 0); // 1 = BOS, 0 = padding
    let n = tokens.len();
    let labels = ["0", "1", "2", "3"];
    let masks = target_masks(&tokens, pad);
    for (name, m) in ["(a) look-ahead", "(a) padding", "(b) both"].iter().zip(&masks) {
        say!(nb, "{name}:");
        for line in show::table(m.as_ref(), &labels, &labels, 0) {
            say!(nb, "  {line}");
        }
    }
    // (c) row 3 — the padding position — under the combined mask
    let both = &masks[2];
    let a = attend_under(both, seed);
    let row3 = nb.value("ex_row3", show::row(a.weights.as_ref(), 3, 3));
    say!(nb, "(c) weights of row 3 with random q, k: {row3}");
    let row3_sum = (0..n).map(|s| a.weights[(3, s)]).sum::<f64>();
    nb.value("ex_row3_sum", show::num(row3_sum, 6));
    nb.value("ex_row2_equals_row3", (0..n).all(|s| both[(2, s)] == both[(3, s)]).to_string());
    // the real rows 0..2 under the look-ahead mask alone: the padding key is already hidden
    let alone = attend_under(&masks[0], seed);
    let same = (0..3).all(|t| (0..n).all(|s| alone.weights[(t, s)] == a.weights[(t, s)]));
    nb.value("ex_real_rows_same", same.to_string());
    say!(nb, "rows 0..2 under the look-ahead mask alone, same weights as under both: {same}");
}

// ANCHOR: exercise_masked_count
/// Under the look-ahead mask of length `s`: how many keys each query may
/// read, and how many entries of the s × s score matrix are masked.
pub fn masked_count(s: usize) -> (Vec<usize>, usize) {
    let keep = causal_mask(s); // (s, s)
    let seen_by: Vec<usize> =
        (0..s).map(|i| (0..s).filter(|&j| keep[(i, j)] == 1.0).count()).collect();
    let masked = seen_by.iter().map(|seen| s - seen).sum();
    (seen_by, masked)
}
// ANCHOR_END: exercise_masked_count

pub fn exercise_masked_count(nb: &mut Notebook) {
    nb.demo(
        "exercise_masked_count",
        "L6 exercise 2 · How much of the score matrix the look-ahead mask hides",
    );
    say!(nb, "{:>6}{:>16}{:>14}{:>14}{:>12}", "S", "sees (row i)", "masked", "S(S−1)/2", "share");
    for s in [4, 8, 512] {
        let (seen_by, masked) = masked_count(s);
        assert!(seen_by.iter().enumerate().all(|(i, &n)| n == i + 1), "row i sees i + 1 positions");
        let formula = s * (s - 1) / 2;
        let share = masked as f64 / (s * s) as f64;
        let masked = nb.value(&format!("ex_masked_{s}"), show::grouped(masked));
        nb.value(&format!("ex_formula_{s}"), show::grouped(formula));
        let share = nb.value(&format!("ex_share_{s}"), show::num(100.0 * share, 1));
        say!(nb, "{s:>6}{:>16}{masked:>14}{:>14}{share:>11}%", "i + 1", show::grouped(formula));
    }
}

/// Training steps of exercise 4's short run.
pub const SHORT_STEPS: u32 = 30;

// ANCHOR: exercise_short_training
/// Exercise 4: the generation demo's recipe, trained for `SHORT_STEPS`
/// steps only. Whether cached and uncached decoding write the same tokens,
/// whether the position bug's first step equals the right one's, and the
/// cached tokens' accuracy.
pub fn short_training(recipe: &Recipe, seed: u64) -> (bool, bool, f64) {
    let short = Recipe { steps: SHORT_STEPS, ..*recipe };
    let d = train_and_decode(&short, seed);
    let [uncached, cached, _, bug, _, _] = &d.tokens;
    let first = |t: &[usize]| t.iter().step_by(short.len).copied().collect::<Vec<usize>>();
    let right = cached.iter().zip(&d.answers).filter(|(a, b)| a == b).count();
    (uncached == cached, first(bug) == first(cached), right as f64 / d.answers.len() as f64)
}
// ANCHOR_END: exercise_short_training

pub fn exercise_short_training(recipe: &Recipe, seed: u64, nb: &mut Notebook) {
    nb.demo(
        "exercise_short_training",
        "Exercise 4 · A model trained for a few steps, decoded with and without the cache",
    );
    let steps = nb.value("ex_short_steps", SHORT_STEPS.to_string());
    let (same, step0, acc) = short_training(recipe, seed);
    say!(
        nb,
        "reversal of length {}, {steps} training steps, {} test sequences",
        recipe.len,
        recipe.test
    );
    let same = nb.value("ex_short_same", same.to_string());
    let step0 = nb.value("ex_short_step0_same", step0.to_string());
    let acc = nb.value("ex_short_acc", show::num(acc, 3));
    say!(
        nb,
        "cached and uncached tokens the same: {same}; bug's step 0 the same as the right one's: {step0}"
    );
    say!(nb, "token accuracy with the cache: {acc}");
}
