//! Lecture 17 demo 02.5 — one head has to average; three heads can each
//! ask their own question; exercise 2 sweeps how strongly they ask.

use blocks::examples::{WORDS, sentence};
use blocks::layers::{Linear, MultiHeadAttention};
use blocks::{matmul, scaled_dot_product_attention};
use faer::Mat;
use record::svg::Heatmap;
use record::{Notebook, say, show};

/// visite's row in the sentence.
const VISITE: usize = 1;

/// A (4, 4) W^Q in which only an action asks, for the meanings `targets`.
fn visite_asks(targets: &[usize], strength: f64) -> Mat<f64> {
    Mat::from_fn(4, 4, |r, c| if r == VISITE && targets.contains(&c) { strength } else { 0.0 })
}

// ANCHOR: one_vs_three
/// visite wants to know who, where and when. One head asks all three at
/// once; three heads (d_k = 4 each, W^K = W^V = I) ask one each.
pub fn one_vs_three(strength: f64, nb: &mut Notebook) {
    nb.demo("one_vs_three", "L17 02.5 · One head averages, three heads specialise");
    let x = sentence(); // (5, 4): person, action, place, time
    let (person, place, time) = (0, 2, 3);
    // One head: visite's query points at person + place + time together.
    let w_q = visite_asks(&[person, place, time], strength); // (4, 4)
    let q = matmul(x.as_ref(), w_q.as_ref()); // (5, 4)
    let one = scaled_dot_product_attention(q.as_ref(), x.as_ref(), x.as_ref(), None);
    say!(nb, "strength {}, d_k = 4 per head, W^K = W^V = I", show::short(strength));
    say!(nb, "one head, visite's weights:    {}", show::row(one.weights.as_ref(), VISITE, 3));
    let w1 = nb.value("one_head_weight", show::num(one.weights[(VISITE, 0)], 3));
    say!(
        nb,
        "  on Jane, l'Afrique and septembre: {w1} each; output {}",
        show::row(one.output.as_ref(), VISITE, 3)
    );

    // Three heads, one question each: [W^Q_1 | W^Q_2 | W^Q_3] is (4, 12).
    let stack = |blocks: [Mat<f64>; 3]| Mat::from_fn(4, 12, |r, c| blocks[c / 4][(r, c % 4)]);
    let eye = || Mat::<f64>::identity(4, 4);
    let linear = |w: Mat<f64>| Linear { b: Mat::zeros(1, w.ncols()), w };
    let mha = MultiHeadAttention {
        w_q: linear(stack([person, place, time].map(|t| visite_asks(&[t], strength)))),
        w_k: linear(stack([eye(), eye(), eye()])),
        w_v: linear(stack([eye(), eye(), eye()])),
        w_o: linear(Mat::identity(12, 12)), // keep the three answers side by side
        heads: 3,
    };
    let (out, heads) = mha.forward(&x, &x, None); // (5, 12)
    // Each head keeps the full width d_k = 4: three times one head's W^Q.
    let wq1 = nb.value("one_head_w_q", format!("{:?}", w_q.shape()));
    let wq3 = nb.value("three_heads_w_q", format!("{:?}", mha.w_q.w.shape()));
    let width = nb.value("three_heads_width", out.ncols().to_string());
    say!(nb, "W^Q: one head {wq1}, three heads {wq3}; output width {width}");
    let mut rows = vec![show::row_values(one.weights.as_ref(), VISITE).collect::<Vec<f64>>()];
    for (h, (head, question)) in heads.iter().zip(["who?", "where?", "when?"]).enumerate() {
        say!(
            nb,
            "head {} asks {question:<7} weights {}",
            h + 1,
            show::row(head.weights.as_ref(), VISITE, 3)
        );
        rows.push(show::row_values(head.weights.as_ref(), VISITE).collect());
    }
    let best = heads.iter().zip([0, 2, 4]).map(|(h, w)| h.weights[(VISITE, w)]).fold(1.0, f64::min);
    let w3 = nb.value("three_heads_weight", show::num(best, 3));
    say!(nb, "  each head puts {w3} on its own word");
    let blocks: Vec<String> =
        (0..3).map(|h| show::tuple((0..4).map(|c| out[(VISITE, 4 * h + c)]), 3)).collect();
    say!(nb, "visite's 12-dim output, head by head: {}", blocks.join(" "));

    let figure = Heatmap {
        row_labels: &["1 head", "head 1", "head 2", "head 3"],
        col_labels: &WORDS,
        values: &rows,
        row_axis: "visite asks",
        col_axis: "key →",
        decimals: 3,
        max: 1.0,
        legend: "weight",
    };
    nb.figure("visite_heads", figure.to_svg());
}
// ANCHOR_END: one_vs_three

// ANCHOR: exercise_2
/// Exercise 2: the same questions asked with other strengths. With
/// W^K = W^V = I, head i is one-head attention with its own W^Q_i, so each
/// head's weights come from `scaled_dot_product_attention` directly.
pub fn exercise_2(nb: &mut Notebook) {
    nb.demo("exercise_2", "Exercise 2 · Weaker queries flatten every head");
    let x = sentence(); // (5, 4)
    let (person, place, time) = (0, 2, 3);
    let visite_row = |w_q: Mat<f64>| {
        let q = matmul(x.as_ref(), w_q.as_ref()); // (5, 4)
        let a = scaled_dot_product_attention(q.as_ref(), x.as_ref(), x.as_ref(), None);
        show::row_values(a.weights.as_ref(), VISITE).collect::<Vec<f64>>()
    };
    say!(
        nb,
        "strength   one head: Jane, l'Afrique, septembre   visite + en   each head's own word"
    );
    for strength in [0.0, 1.0, 2.0, 4.0, 6.0, 8.0] {
        let one = visite_row(visite_asks(&[person, place, time], strength)); // (5,)
        // each head's weight on its target: head 1 on Jane, 2 on l'Afrique, 3 on septembre
        let own = [(person, 0), (place, 2), (time, 4)]
            .map(|(t, word)| visite_row(visite_asks(&[t], strength))[word]);
        let s = show::short(strength);
        let targets =
            nb.value(&format!("ex2_one_targets_s{s}"), show::tuple([0, 2, 4].map(|j| one[j]), 3));
        let rest = nb.value(&format!("ex2_one_rest_s{s}"), show::num(one[1] + one[3], 3));
        let heads = nb.value(&format!("ex2_three_s{s}"), show::tuple(own, 3));
        say!(nb, "{s:>8}   {targets:<32}   {rest:<11}   {heads}");
    }
}
// ANCHOR_END: exercise_2
