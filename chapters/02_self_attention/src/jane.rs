//! Lecture 17 demo 01.1 — "Jane visite l'Afrique en septembre", by hand —
//! and the case for three projections instead of one.

use blocks::examples::{MEANINGS, WORDS, sentence};
use blocks::layers::LayerNorm;
use blocks::{Attention, mat, matmul, scaled_dot_product_attention};
use faer::{Mat, Scale};
use record::svg::Heatmap;
use record::{Notebook, say, show};

// ANCHOR: jane_attention
/// Every word asks one question; `strength` scales how insistently.
/// Returns the queries and the attention of the whole sentence.
pub fn jane_attention(strength: f64) -> (Mat<f64>, Attention) {
    let x = sentence(); // (5, 4)
    // Row r of W^Q is the question a word of meaning r asks: a person, a
    // place and a time ask "which action?"; an action asks "who? where?".
    let w_q = mat(&[
        [0.0, 1.0, 0.0, 0.0], // person → action?
        [1.0, 0.0, 1.0, 0.0], // action → person? place?
        [0.0, 1.0, 0.0, 0.0], // place  → action?
        [0.0, 1.0, 0.0, 0.0], // time   → action?
    ]) * Scale(strength); // (4, 4)
    let w_k = Mat::<f64>::identity(4, 4); // a word's label is its meaning
    let w_v = Mat::<f64>::identity(4, 4); // and so is its content
    let q = matmul(x.as_ref(), w_q.as_ref()); // (5, 4)
    let k = matmul(x.as_ref(), w_k.as_ref()); // (5, 4)
    let v = matmul(x.as_ref(), w_v.as_ref()); // (5, 4)
    let attn = scaled_dot_product_attention(q.as_ref(), k.as_ref(), v.as_ref(), None);
    (q, attn)
}
// ANCHOR_END: jane_attention

// ANCHOR: jane_residual
/// What the attention sub-layer passes on (the encoder layer, a later
/// chapter): the residual sum x + A, then LayerNorm — here with γ = 1,
/// β = 0 — which recentres and rescales each row and keeps its ranking.
/// Returns (x + A, LayerNorm(x + A)), both (n, d) like `x`.
pub fn residual_and_norm(x: &Mat<f64>, a: &Mat<f64>) -> (Mat<f64>, Mat<f64>) {
    let sum = Mat::from_fn(x.nrows(), x.ncols(), |i, j| x[(i, j)] + a[(i, j)]);
    let norm =
        LayerNorm { gamma: Mat::ones(1, x.ncols()), beta: Mat::zeros(1, x.ncols()), eps: 1e-6 };
    let normed = norm.forward(&sum);
    (sum, normed)
}
// ANCHOR_END: jane_residual

/// The Jane example printed: l'Afrique's and visite's questions, the whole
/// weight matrix, and what the residual and Post-LN keep of l'Afrique.
pub fn jane(strength: f64, nb: &mut Notebook) {
    nb.demo("jane", "L17 01.1 · Jane visite l'Afrique en septembre, by hand");
    let x = sentence(); // (5, 4)
    let (q, attn) = jane_attention(strength);
    say!(nb, "W^Q strength {}, W^K = W^V = I, d_k = 4, √d_k = 2", show::short(strength));
    say!(nb, "queries q = x·W^Q (columns: person, action, place, time):");
    for (i, word) in WORDS.iter().enumerate() {
        say!(nb, "  {word:<10} {}", show::row(q.as_ref(), i, 2));
    }
    let (afrique, visite) = (2, 1);
    let asks = nb.value("afrique_query", show::row(q.as_ref(), afrique, 2));
    let scores = nb.value("afrique_scores", show::row(attn.scores.as_ref(), afrique, 1));
    say!(nb, "l'Afrique asks {asks}: scores q·k/√d_k = {scores}");
    say!(nb, "  weights     = {}", show::row(attn.weights.as_ref(), afrique, 3));
    // ANCHOR: record_and_print
    let to_visite = nb.value("afrique_to_visite", show::num(attn.weights[(afrique, visite)], 3));
    say!(nb, "  weight on visite: {to_visite}");
    // ANCHOR_END: record_and_print
    let a3 = nb.value("afrique_output", show::row(attn.output.as_ref(), afrique, 3));
    let note = largest(show::row_values(attn.output.as_ref(), afrique), 3);
    say!(nb, "  A<3> = Σ_j w_j v_j = {a3}   ({note})");
    say!(nb, "visite asks: weights = {}", show::row(attn.weights.as_ref(), visite, 3));
    let to_jane = nb.value("visite_to_jane", show::num(attn.weights[(visite, 0)], 3));
    let to_afr = nb.value("visite_to_afrique", show::num(attn.weights[(visite, afrique)], 3));
    say!(nb, "  on Jane {to_jane}, on l'Afrique {to_afr}");
    say!(nb, "every word's weights (rows: who asks, columns: whose label):");
    for line in show::table(attn.weights.as_ref(), &WORDS, &WORDS, 3) {
        say!(nb, "  {line}");
    }
    let rows: Vec<Vec<f64>> =
        (0..5).map(|i| show::row_values(attn.weights.as_ref(), i).collect()).collect();
    // Scientific form: at large strengths the smallest weight is far below
    // what three decimals can show, yet still not zero.
    let smallest = rows.iter().flatten().copied().fold(1.0, f64::min);
    let min = nb.value("min_weight", show::sci(smallest, 1));
    let seen = if smallest > 0.0 { "every word sees every word" } else { "some pair unseen" };
    say!(nb, "the smallest weight anywhere: {min} ({seen})");
    let place = nb.value("afrique_place", show::num(attn.output[(afrique, 2)], 3));
    let (sum, normed) = residual_and_norm(&x, &attn.output); // (5, 4) each
    let kept = sum[(afrique, 2)];
    let residual = nb.value("afrique_residual_place", show::num(kept, 3));
    say!(nb, "l'Afrique's \"place\": {place} in A<3>, {residual} in x + A<3> (the residual)");
    let after = nb.value("afrique_after_norm", show::row(normed.as_ref(), afrique, 3));
    let note = largest(show::row_values(normed.as_ref(), afrique), 3);
    say!(nb, "  LayerNorm(x + A) for l'Afrique = {after}   ({note})");

    let figure = Heatmap {
        row_labels: &WORDS,
        col_labels: &WORDS,
        values: &rows,
        row_axis: "query ↓",
        col_axis: "key →",
        decimals: 3,
        max: 1.0,
        legend: "weight",
    };
    nb.figure("jane_weights", figure.to_svg());
}

/// Which meaning is largest in a vector, judged on the digits printed, so
/// that two components printed alike are called a tie.
fn largest(values: impl Iterator<Item = f64>, decimals: usize) -> String {
    let values: Vec<f64> = values.collect();
    let top = show::num(values.iter().copied().fold(f64::MIN, f64::max), decimals);
    let tied: Vec<String> = (MEANINGS.iter().zip(&values))
        .filter(|&(_, &v)| show::num(v, decimals) == top)
        .map(|(m, _)| format!("\"{m}\""))
        .collect();
    match tied.len() {
        1 => format!("largest: {}", tied[0]),
        n if n == values.len() => "all four equal".to_string(),
        _ => format!("a tie for largest: {}", tied.join(", ")),
    }
}

// ANCHOR: one_vector
/// Why three projections: score with the words themselves (`q = k = v = x`)
/// and every word's strongest match is a word like itself.
pub fn one_vector(nb: &mut Notebook) {
    nb.demo("one_vector", "Why three projections: scoring x_i · x_j directly");
    let x = sentence(); // (5, 4)
    let attn = scaled_dot_product_attention(x.as_ref(), x.as_ref(), x.as_ref(), None);
    for (i, word) in WORDS.iter().enumerate() {
        let top = show::row_values(attn.weights.as_ref(), i).fold(0.0, f64::max);
        let best: Vec<&str> =
            (0..5).filter(|&j| attn.weights[(i, j)] == top).map(|j| WORDS[j]).collect();
        let strongest = if best.len() == 1 { best[0] } else { "none (a tie)" };
        say!(
            nb,
            "  {word:<10} weights {}  → strongest: {strongest}",
            show::row(attn.weights.as_ref(), i, 3)
        );
    }
    let (visite, jane, septembre) = (1, 0, 4);
    let self_weight =
        nb.value("visite_self_weight_one_vector", show::num(attn.weights[(visite, visite)], 3));
    let on_jane = nb.value("visite_to_jane_one_vector", show::num(attn.weights[(visite, jane)], 3));
    let on_sept =
        nb.value("visite_to_septembre_one_vector", show::num(attn.weights[(visite, septembre)], 3));
    say!(
        nb,
        "visite finds itself ({self_weight}); Jane gets {on_jane}, as septembre does ({on_sept})"
    );
}
// ANCHOR_END: one_vector
