//! Lecture 17 exercise 1 — three words, d_k = 4, computed by hand and here —
//! and its remark that attention starts out nearly uniform, measured; the
//! book's exercise 2, the Jane example at two other strengths.

use blocks::examples::{MEANINGS, WORDS};
use blocks::init::{normal, uniform};
use blocks::{Attention, mat, matmul, scaled_dot_product_attention};
use faer::Mat;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

use crate::jane::jane_attention;

// ANCHOR: exercise_1
/// The exercise's three words: the third query is orthogonal to every key.
/// Returns the scores Q·Kᵀ/√d_k, the weights and the outputs.
pub fn exercise_1_attention() -> Attention {
    let q = mat(&[[2.0, 2.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0], [0.0, 0.0, 2.0, 0.0]]); // (3, 4)
    let k = mat(&[[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]]); // (3, 4)
    let v = mat(&[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]); // (3, 2)
    scaled_dot_product_attention(q.as_ref(), k.as_ref(), v.as_ref(), None)
}
// ANCHOR_END: exercise_1

/// Exercise 1's scores, weights and outputs, printed.
pub fn exercise_1(nb: &mut Notebook) {
    nb.demo("exercise_1", "L17 exercise 1 · three words by hand, checked");
    let attn = exercise_1_attention();
    let words = ["word 1", "word 2", "word 3"];
    say!(nb, "(1) scores Q·Kᵀ/√d_k:");
    for line in show::table(attn.scores.as_ref(), &words, &["key 1", "key 2", "key 3"], 0) {
        say!(nb, "  {line}");
    }
    for i in 0..3 {
        nb.value(&format!("ex1_scores_{}", i + 1), show::row(attn.scores.as_ref(), i, 0));
    }
    say!(nb, "(2) weights:");
    for line in show::table(attn.weights.as_ref(), &words, &["key 1", "key 2", "key 3"], 4) {
        say!(nb, "  {line}");
    }
    for (i, _) in words.iter().enumerate() {
        nb.value(&format!("ex1_weights_{}", i + 1), show::row(attn.weights.as_ref(), i, 4));
    }
    say!(nb, "(3) outputs:");
    for (i, word) in words.iter().enumerate() {
        let out = nb.value(&format!("ex1_output_{}", i + 1), show::row(attn.output.as_ref(), i, 4));
        say!(nb, "  {word}  {out}");
    }
    say!(nb, "(4) word 3's query meets no key: its weights are uniform, its output the mean value");
}

// ANCHOR: random_init
/// The remark closing the lecture's answer to exercise 1, measured: at
/// random initialisation, how close to uniform is self-attention? It
/// depends on the scale of W^Q, W^K.
pub fn random_init(seed: u64, nb: &mut Notebook) {
    nb.demo("random_init", "Exercise 1, last step · Self-attention at random initialisation");
    let (n, d) = (64, 64); // 64 words of width d_model = d_k = 64, one head
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let x = normal(n, d, 1.0, &mut rng); // (n, d): inputs N(0, 1)
    // nn.MultiheadAttention's default is Xavier-uniform over its stacked
    // (3d, d) in-projection: bound √(6/4d), Var(w) = 1/(2d). Chapter 4's
    // variance-preserving draw, Var(w) = 1/d, gives q and k unit variance.
    let bound = (1.5 / d as f64).sqrt();
    let torch = [uniform(d, d, bound, &mut rng), uniform(d, d, bound, &mut rng)];
    let std = (1.0 / d as f64).sqrt();
    let unit = [normal(d, d, std, &mut rng), normal(d, d, std, &mut rng)];

    let even = nb.value("random_uniform_weight", show::num(1.0 / n as f64, 3));
    say!(nb, "n = {n} words, d_model = d_k = {d}, inputs N(0, 1), seed {seed}");
    say!(nb, "uniform attention would give every weight {even} and entropy ln n");
    let head = ["W^Q, W^K drawn as", "score std", "mean max weight", "entropy / ln n"];
    say!(nb, "{:>22}  {:>9}  {:>15}  {:>14}", head[0], head[1], head[2], head[3]);
    for (tag, label, [w_q, w_k]) in
        [("torch", "nn.MultiheadAttention", torch), ("unit", "N(0, 1/d)", unit)]
    {
        let q = matmul(x.as_ref(), w_q.as_ref()); // (n, d)
        let k = matmul(x.as_ref(), w_k.as_ref()); // (n, d)
        let attn = scaled_dot_product_attention(q.as_ref(), k.as_ref(), x.as_ref(), None);
        let rows = |m: &Mat<f64>| -> Vec<Vec<f64>> {
            (0..n).map(|i| show::row_values(m.as_ref(), i).collect()).collect()
        };
        let (scores, weights) = (rows(&attn.scores), rows(&attn.weights));
        let all = scores.iter().flatten();
        let mean = all.clone().sum::<f64>() / (n * n) as f64;
        let var = all.map(|s| (s - mean) * (s - mean)).sum::<f64>() / (n * n) as f64;
        let top = weights.iter().map(|r| r.iter().copied().fold(0.0, f64::max)).sum::<f64>();
        let entropy: f64 = weights.iter().flatten().map(|&w| -w * libm::log(w)).sum();
        let std = nb.value(&format!("random_{tag}_score_std"), show::num(var.sqrt(), 2));
        let top = nb.value(&format!("random_{tag}_max_weight"), show::num(top / n as f64, 3));
        let ratio = 100.0 * entropy / n as f64 / libm::log(n as f64);
        let ratio = nb.value(&format!("random_{tag}_entropy"), format!("{}%", show::num(ratio, 1)));
        say!(nb, "{label:>22}  {std:>9}  {top:>15}  {ratio:>14}");
    }
}
// ANCHOR_END: random_init

/// Exercise 2's answer: the Jane example with no question asked (strength
/// 0) and with every question asked three times as loudly (strength 12).
pub fn exercise_2(nb: &mut Notebook) {
    nb.demo("exercise_2", "Exercise 2 · the Jane example at strength 0 and 12");
    let (jane, visite, afrique) = (0, 1, 2);
    for strength in [0.0, 12.0] {
        let (_, attn) = jane_attention(strength);
        let tag = format!("ex2_s{}", show::short(strength));
        let all: Vec<f64> =
            (0..5).flat_map(|i| show::row_values(attn.weights.as_ref(), i)).collect();
        let lo = all.iter().copied().fold(1.0, f64::min);
        let hi = all.iter().copied().fold(0.0, f64::max);
        say!(nb, "strength {}:", show::short(strength));
        let lo = nb.value(&format!("{tag}_min_weight"), show::num(lo, 3));
        let hi = nb.value(&format!("{tag}_max_weight"), show::num(hi, 3));
        say!(nb, "  weights range from {lo} to {hi}");
        let w = |i: usize, j: usize| show::num(attn.weights[(i, j)], 3);
        let to_visite = nb.value(&format!("{tag}_afrique_to_visite"), w(afrique, visite));
        say!(nb, "  l'Afrique's weight on visite: {to_visite}");
        let on_jane = nb.value(&format!("{tag}_visite_to_jane"), w(visite, jane));
        let on_afr = nb.value(&format!("{tag}_visite_to_afrique"), w(visite, afrique));
        say!(nb, "  visite's weights on Jane and l'Afrique: {on_jane}, {on_afr}");
        nb.value(&format!("{tag}_afrique_output"), show::row(attn.output.as_ref(), afrique, 3));
        say!(nb, "  every word's output A<t>:");
        for line in show::table(attn.output.as_ref(), &WORDS, &MEANINGS, 3) {
            say!(nb, "    {line}");
        }
    }
}
