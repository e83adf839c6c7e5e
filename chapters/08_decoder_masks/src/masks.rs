//! Lecture 17 demo 04.4 and Lecture 6 script 01.3 — the look-ahead mask:
//! the weights it leaves, and what changing the future does to the past,
//! with and without it.

use blocks::layers::causal_mask;
use blocks::{max_diff, worse};
use faer::Mat;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

use crate::small::{D_MODEL, N, POS, Small, random, rows};

// ANCHOR: look_ahead
/// The look-ahead mask of the small layer's N positions, and head 0 of its
/// self-attention weights under that mask, (N, N) each.
pub fn look_ahead_weights(small: &Small) -> (Mat<f64>, Mat<f64>) {
    let keep = causal_mask(N); // (N, N): row t may look at columns 0..=t
    let (_, heads) = small.forward(&small.y, Some(&keep));
    (keep, heads[0].clone()) // head 0 of the self-attention, (N, N)
}
// ANCHOR_END: look_ahead

pub fn look_ahead(seed: u64, nb: &mut Notebook) {
    nb.demo("look_ahead", "L17 04.4 · L6 01.3 · The look-ahead mask and the weights it leaves");
    let (keep, weights) = look_ahead_weights(&Small::new(seed));
    say!(nb, "look-ahead mask, {N} positions (1 = may look; row = query, column = key):");
    for line in show::table(keep.as_ref(), &POS, &POS, 0) {
        say!(nb, "  {line}");
    }
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

// ANCHOR: future_inputs
/// Positions 3 and 4 of the input replaced by `fresh` (2, d_model): the
/// largest change of the outputs at positions 0..2, self-attention under
/// `keep`.
pub fn change_the_future(small: &Small, fresh: &Mat<f64>, keep: Option<&Mat<f64>>) -> f64 {
    let mut y_other = small.y.clone(); // (N, d_model)
    y_other.as_mut().submatrix_mut(3, 0, N - 3, D_MODEL).copy_from(fresh);
    let (before, after) = (small.forward(&small.y, keep).0, small.forward(&y_other, keep).0);
    max_diff(&rows(&before, 0, 3), &rows(&after, 0, 3))
}

/// Position `j` alone replaced by `fresh` (1, d_model), under the mask:
/// the largest change of each output row, t = 0..N.
pub fn change_one(small: &Small, j: usize, fresh: &Mat<f64>) -> Vec<f64> {
    let keep = causal_mask(N);
    let mut y_j = small.y.clone(); // (N, d_model)
    y_j.as_mut().submatrix_mut(j, 0, 1, D_MODEL).copy_from(fresh);
    let before = small.forward(&small.y, Some(&keep)).0;
    let after = small.forward(&y_j, Some(&keep)).0;
    (0..N).map(|t| max_diff(&rows(&before, t, 1), &rows(&after, t, 1))).collect()
}
// ANCHOR_END: future_inputs

pub fn future_inputs(seed: u64, nb: &mut Notebook) {
    nb.demo("future_inputs", "L17 04.4 · L6 01.3 · Changing the future does not reach the past");
    let small = Small::new(seed);
    let keep = causal_mask(N);
    let mut rng = Pcg64Mcg::seed_from_u64(seed + 1);
    let fresh = random(N - 3, D_MODEL, &mut rng); // new vectors for positions 3 and 4
    say!(nb, "inputs at positions 3 and 4 replaced by new random vectors:");
    for (name, label, mask) in
        [("masked", "with the mask   ", Some(&keep)), ("unmasked", "without the mask", None)]
    {
        let past = change_the_future(&small, &fresh, mask);
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
    let (mut worst_before, mut least_after) = (0.0_f64, f64::INFINITY);
    for j in 0..N {
        let change = change_one(&small, j, &random(1, D_MODEL, &mut rng));
        let earlier = change[..j].iter().copied().fold(0.0, worse);
        let later = change[j..].iter().copied().fold(f64::INFINITY, f64::min);
        worst_before = worse(worst_before, earlier);
        least_after = least_after.min(later);
        say!(nb, "  {j:>3}  {:>24}  {:>29}", show::sci(earlier, 1), show::num(later, 3));
    }
    nb.value("one_change_before", show::sci(worst_before, 1));
    nb.value("one_change_after_min", show::num(least_after, 3));
}

// ANCHOR: unmasked_size
/// No mask, positions 3 and 4 replaced: the change at positions 0..2 for
/// `layers` random layers (seeds `seed`, `seed + 1`, …) whose
/// self-attention W^O is multiplied by `factor` — with replacements
/// uniform in ±1 and with standard normal ones.
pub fn unmasked_changes(seed: u64, layers: u64, factor: f64) -> (Vec<f64>, Vec<f64>) {
    let (mut uniform, mut normal) = (Vec::new(), Vec::new());
    for i in 0..layers {
        let small = Small::with_attention_scaled(seed.wrapping_add(i), factor);
        let mut rng = Pcg64Mcg::seed_from_u64(seed.wrapping_add(i + 1));
        let fresh = random(N - 3, D_MODEL, &mut rng); // the draw of future_inputs
        uniform.push(change_the_future(&small, &fresh, None));
        let fresh = blocks::init::normal(N - 3, D_MODEL, 1.0, &mut rng); // N(0, 1)
        normal.push(change_the_future(&small, &fresh, None));
    }
    (uniform, normal)
}
// ANCHOR_END: unmasked_size

pub fn unmasked_size(seed: u64, nb: &mut Notebook) {
    nb.demo("unmasked_size", "L17 04.4 · What sets the size of the change without the mask");
    let (layers, factors) = (10, [1.0, 2.0, 4.0, 8.0]);
    nb.value("size_layers", layers.to_string());
    nb.value("size_top_factor", show::short(factors[factors.len() - 1]));
    say!(nb, "no mask, positions 3 and 4 replaced: max |Δ output| at positions 0..2");
    say!(nb, "over {layers} random layers, the self-attention's W^O multiplied by a factor:");
    say!(nb, "  {:>6}  {:>20}  {:>20}", "factor", "U(±1): mean, max", "N(0, 1): mean, max");
    for factor in factors {
        let (uniform, normal) = unmasked_changes(seed, layers, factor);
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
