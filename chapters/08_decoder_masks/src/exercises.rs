//! The exercises' checks: Lecture 17 exercise 4 (the masks of one target
//! sentence) and Lecture 6 exercise 2 (how much a look-ahead mask hides).

use blocks::layers::causal_mask;
use blocks::scaled_dot_product_attention;
use faer::Mat;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

use crate::small::random;

// ANCHOR: exercise_masks
pub fn exercise_masks(seed: u64, nb: &mut Notebook) {
    nb.demo("exercise_masks", "L17 exercise 4 · The masks of the target [1, 7, 3, 0]");
    let (tokens, pad) = ([1, 7, 3, 0], 0); // 1 = BOS, 0 = padding
    let n = tokens.len();
    let labels = ["0", "1", "2", "3"];
    let look_ahead = causal_mask(n);
    let padding = Mat::from_fn(n, n, |_, s| if tokens[s] != pad { 1.0 } else { 0.0 });
    let both = Mat::from_fn(n, n, |t, s| look_ahead[(t, s)] * padding[(t, s)]);
    for (name, m) in
        [("(a) look-ahead", &look_ahead), ("(a) padding", &padding), ("(b) both", &both)]
    {
        say!(nb, "{name}:");
        for line in show::table(m.as_ref(), &labels, &labels, 0) {
            say!(nb, "  {line}");
        }
    }
    // (c) row 3 — the padding position — under the combined mask
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let (q, k, v) = (random(n, 8, &mut rng), random(n, 8, &mut rng), random(n, 8, &mut rng));
    let a = scaled_dot_product_attention(q.as_ref(), k.as_ref(), v.as_ref(), Some(both.as_ref()));
    let row3 = nb.value("ex_row3", show::row(a.weights.as_ref(), 3, 3));
    say!(nb, "(c) weights of row 3 with random q, k: {row3}");
    let row3_sum = (0..n).map(|s| a.weights[(3, s)]).sum::<f64>();
    nb.value("ex_row3_sum", show::num(row3_sum, 6));
    nb.value("ex_row2_equals_row3", (0..n).all(|s| both[(2, s)] == both[(3, s)]).to_string());
}
// ANCHOR_END: exercise_masks

// ANCHOR: exercise_masked_count
pub fn exercise_masked_count(nb: &mut Notebook) {
    nb.demo(
        "exercise_masked_count",
        "L6 exercise 2 · How much of the score matrix the look-ahead mask hides",
    );
    say!(nb, "{:>6}{:>16}{:>14}{:>14}{:>12}", "S", "sees (row i)", "masked", "S(S−1)/2", "share");
    for s in [4, 8, 512] {
        let keep = causal_mask(s);
        let seen_by = |i: usize| (0..s).filter(|&j| keep[(i, j)] == 1.0).count();
        assert!((0..s).all(|i| seen_by(i) == i + 1), "row i sees i + 1 positions");
        let masked = (0..s).map(|i| s - seen_by(i)).sum::<usize>();
        let formula = s * (s - 1) / 2;
        let share = masked as f64 / (s * s) as f64;
        let masked = nb.value(&format!("ex_masked_{s}"), show::grouped(masked));
        nb.value(&format!("ex_formula_{s}"), show::grouped(formula));
        let share = nb.value(&format!("ex_share_{s}"), show::num(100.0 * share, 1));
        say!(nb, "{s:>6}{:>16}{masked:>14}{:>14}{share:>11}%", "i + 1", show::grouped(formula));
    }
}
// ANCHOR_END: exercise_masked_count
