//! Lecture 17 demo 04.4 and Lecture 6 script 01.3 — the look-ahead mask:
//! the weights it leaves, and what changing the future does to the past,
//! with and without it.

use autograd::nn::ToBlocks;
use blocks::layers::causal_mask;
use blocks::{max_diff, worse};
use faer::Mat;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

use crate::small::{D_FF, D_MODEL, HEADS, N, N_SRC, POS, Small, random, rows};

/// The first replaced position of `future_inputs`: positions REPLACED..N get new vectors.
pub const REPLACED: usize = 3;

// ANCHOR: look_ahead
/// The look-ahead mask of the small layer's N positions, and head 0 of its
/// self-attention weights under that mask, (N, N) each — computed by the
/// `blocks` copy of the layer's self-attention, whose heads go through
/// `scaled_dot_product_attention`.
pub fn look_ahead_weights(small: &Small) -> (Mat<f64>, Mat<f64>) {
    let keep = causal_mask(N); // (N, N): row t may look at columns 0..=t
    let self_attn = small.layer.to_blocks(&small.params).self_attn;
    let (_, heads) = self_attn.forward(&small.y, &small.y, Some(&keep)); // y: queries and keys
    (keep, heads[0].weights.clone()) // head 0, (N, N)
}
// ANCHOR_END: look_ahead

pub fn look_ahead(seed: u64, nb: &mut Notebook) {
    nb.demo("look_ahead", "L17 04.4 · L6 01.3 · The look-ahead mask and the weights it leaves");
    let d = nb.value("small_d_model", D_MODEL.to_string());
    let h = nb.value("small_heads", HEADS.to_string());
    let n = nb.value("small_target", N.to_string());
    let n_src = nb.value("small_source", N_SRC.to_string());
    say!(
        nb,
        "a random Post-LN decoder layer (seed {seed}): d_model {d}, {h} heads, d_ff {D_FF}; a target of {n} positions, a source of {n_src}"
    );
    let (keep, weights) = look_ahead_weights(&Small::new(seed));
    say!(nb, "look-ahead mask, {N} positions (1 = may look; row = query, column = key):");
    for line in show::table(keep.as_ref(), &POS, &POS, 0) {
        say!(nb, "  {line}");
    }
    say!(nb, "its self-attention weights under the mask, head 0:");
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
/// Positions REPLACED..N of the input replaced by `fresh` (N − REPLACED,
/// d_model): the largest change of the outputs at positions 0..REPLACED,
/// self-attention under `keep`.
pub fn change_the_future(small: &Small, fresh: &Mat<f64>, keep: Option<&Mat<f64>>) -> f64 {
    let mut y_other = small.y.clone(); // (N, d_model)
    y_other.as_mut().submatrix_mut(REPLACED, 0, N - REPLACED, D_MODEL).copy_from(fresh);
    let (before, after) = (small.forward(&small.y, keep).0, small.forward(&y_other, keep).0);
    max_diff(&rows(&before, 0, REPLACED), &rows(&after, 0, REPLACED))
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
    let fresh = random(N - REPLACED, D_MODEL, &mut rng); // new vectors for positions 3 and 4
    let replaced = nb.value("future_replaced", (N - REPLACED).to_string());
    let from = nb.value("future_from", REPLACED.to_string());
    let last = nb.value("future_last", (N - 1).to_string());
    let kept = nb.value("future_kept_last", (REPLACED - 1).to_string());
    say!(
        nb,
        "the inputs at {replaced} of the {N} positions, {from}..{last}, replaced by new random vectors:"
    );
    for (name, label, mask) in
        [("masked", "with the mask   ", Some(&keep)), ("unmasked", "without the mask", None)]
    {
        let past = change_the_future(&small, &fresh, mask);
        let past = nb.value(&format!("past_change_{name}"), show::sci(past, 1));
        say!(nb, "  {label}: max |Δ output| at positions 0..{kept} = {past}");
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
/// The Frobenius norm of a matrix.
fn norm(m: &Mat<f64>) -> f64 {
    let squares = (0..m.nrows()).flat_map(|i| (0..m.ncols()).map(move |j| (i, j)));
    squares.map(|p| m[p] * m[p]).sum::<f64>().sqrt()
}

/// How large the self-attention branch is against the residual input it is
/// added to, ‖attention(y)‖ / ‖y‖, no mask.
pub fn branch_to_residual(small: &Small) -> f64 {
    let self_attn = small.layer.to_blocks(&small.params).self_attn;
    let branch = self_attn.forward(&small.y, &small.y, None).0; // (N, d_model)
    norm(&branch) / norm(&small.y)
}

/// No mask, positions REPLACED..N replaced: the change at the positions
/// before them for `layers` random layers (seeds `seed`, `seed + 1`, …)
/// whose self-attention W^O is multiplied by `factor` — with replacements
/// uniform in ±1 and with standard normal ones — and each layer's
/// attention branch against its residual input.
pub fn unmasked_changes(seed: u64, layers: u64, factor: f64) -> [Vec<f64>; 3] {
    let (mut uniform, mut normal, mut branch) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..layers {
        let small = Small::with_attention_scaled(seed.wrapping_add(i), factor);
        let mut rng = Pcg64Mcg::seed_from_u64(seed.wrapping_add(i + 1));
        let fresh = random(N - REPLACED, D_MODEL, &mut rng); // the draw of future_inputs
        uniform.push(change_the_future(&small, &fresh, None));
        let fresh = blocks::init::normal(N - REPLACED, D_MODEL, 1.0, &mut rng); // N(0, 1)
        normal.push(change_the_future(&small, &fresh, None));
        branch.push(branch_to_residual(&small));
    }
    [uniform, normal, branch]
}
// ANCHOR_END: unmasked_size

pub fn unmasked_size(seed: u64, nb: &mut Notebook) {
    nb.demo("unmasked_size", "L17 04.4 · What sets the size of the change without the mask");
    let (layers, factors) = (10, [1.0, 2.0, 4.0, 8.0]);
    nb.value("size_layers", layers.to_string());
    nb.value("size_top_factor", show::short(factors[factors.len() - 1]));
    let (kept, last) = (REPLACED - 1, N - 1);
    say!(
        nb,
        "no mask, positions {REPLACED}..{last} replaced: max |Δ output| at positions 0..{kept}"
    );
    say!(nb, "over {layers} random layers, the self-attention's W^O multiplied by a factor;");
    say!(nb, "last column: ‖attention(y)‖ / ‖y‖, the branch against the residual input, mean");
    say!(
        nb,
        "  {:>6}  {:>20}  {:>20}  {:>11}",
        "factor",
        "U(±1): mean, max",
        "N(0, 1): mean, max",
        "branch / y"
    );
    for factor in factors {
        let [uniform, normal, branch] = unmasked_changes(seed, layers, factor);
        let mut line = format!("  {factor:>6}");
        for (kind, changes) in [("u", &uniform), ("n", &normal)] {
            let mean = changes.iter().sum::<f64>() / layers as f64;
            let max = changes.iter().copied().fold(0.0, worse);
            let mean = nb.value(&format!("size_{kind}_mean_{factor}"), show::num(mean, 2));
            let max = nb.value(&format!("size_{kind}_max_{factor}"), show::num(max, 2));
            line += &format!("  {mean:>9} {max:>10}");
        }
        let ratio = branch.iter().sum::<f64>() / layers as f64;
        let ratio = nb.value(&format!("size_branch_{factor}"), show::num(ratio, 2));
        say!(nb, "{line}  {ratio:>11}");
    }
}
