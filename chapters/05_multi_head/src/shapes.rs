//! Lecture 6 demo 03.3 and exercise 3 — the shapes of multi-head
//! attention, step by step, and the walk checked against the fused op.

use autograd::nn::MultiHeadAttention;
use autograd::nn::init::normal;
use autograd::{Params, Tape};
use blocks::max_diff;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

// ANCHOR: shape_walk
/// B = 2 sequences of S = 5 positions, D = 12, h = 3 heads of D_h = 4.
pub fn shape_walk(nb: &mut Notebook) {
    nb.demo("shape_walk", "L6 03.3 · B×S×D → B×h×S×D_h → B×S×D");
    walk(nb, "walk", (2, 5, 12, 3), 3);
}
// ANCHOR_END: shape_walk

// ANCHOR: exercise_3
/// Exercise 3 (L6 exercise 3): the same walk for B = 4, S = 10, D = 64, h = 8.
pub fn exercise_3(nb: &mut Notebook) {
    nb.demo("exercise_3", "Exercise 3 (L6 ex. 3) · The shapes for B = 4, S = 10, D = 64, h = 8");
    walk(nb, "ex", (4, 10, 64, 8), 4);
}
// ANCHOR_END: exercise_3

// ANCHOR: walk
/// Multi-head self-attention composed step by step. Each line shows a
/// matrix as the book stores it — (B, S, D) as (B·S, D), one row per
/// position — and as the tensor a 4-D framework would hold.
fn walk(nb: &mut Notebook, tag: &str, (b, s, d, h): (usize, usize, usize, usize), seed: u64) {
    let d_h = d / h;
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut params = Params::<f64>::new();
    let mha = MultiHeadAttention::new(&mut params, "mha", d, h, &mut rng);
    let tape = Tape::new(&params);
    let x = tape.input(normal(b * s, d, 1.0, &mut rng)); // (B·S, D)
    say!(nb, "B = {b}, S = {s}, D = {d}, h = {h}, D_h = {d_h}; seed {seed}");
    say!(nb, "{:<22} {:<9} {:<12}   {}", "", "stored", "layout", "as a 4-D tensor");
    let flat = |(r, c): (usize, usize)| vec![b, r / b, c]; // (B, S, ·)
    let split = |(r, c): (usize, usize)| vec![b, h, r / (b * h), c]; // (B, h, S, ·)
    let mut step = |key: &str, label: &str, stored, layout: &str, tensor: Vec<usize>, note| {
        let dims: Vec<String> = tensor.iter().map(|n| n.to_string()).collect();
        let t = nb.value(&format!("{tag}_{key}"), format!("({})", dims.join(", ")));
        let st = nb.value(&format!("{tag}_{key}_stored"), format!("{stored:?}"));
        say!(nb, "{}", format!("{label:<22} {st:<9} {layout:<12} = {t:<14} {note}").trim_end());
    };
    step("x", "x", x.shape(), "(B·S, D)", flat(x.shape()), "the input");
    let (q, k, v) = (mha.w_q.forward(x), mha.w_k.forward(x), mha.w_v.forward(x));
    step("q", "q = x·W^Q + b^Q", q.shape(), "(B·S, D)", flat(q.shape()), "k, v alike");
    let (q_h, k_h, v_h) = (q.split_heads(b, h), k.split_heads(b, h), v.split_heads(b, h));
    step(
        "q_h",
        "q_h = split_heads(q)",
        q_h.shape(),
        "(B·h·S, D_h)",
        split(q_h.shape()),
        "a copy; block b·h + i = head i of sequence b",
    );
    let kt = k_h.value().as_ref().submatrix(0, 0, s, d_h).transpose().shape(); // one block
    step(
        "k_t",
        "k_hᵀ, one block",
        kt,
        "(D_h, S)",
        vec![b, h, kt.0, kt.1],
        "a view: bmm reads k_h transposed",
    );
    let scores = q_h.bmm(k_h, b * h, true).scale(1.0 / (d_h as f64).sqrt());
    step("scores", "q_h·k_hᵀ/√D_h", scores.shape(), "(B·h·S, S)", split(scores.shape()), "");
    let weights = scores.softmax_rows(None);
    step("weights", "softmax", weights.shape(), "(B·h·S, S)", split(weights.shape()), "per row");
    let context = weights.bmm(v_h, b * h, false);
    step("context", "weights·v_h", context.shape(), "(B·h·S, D_h)", split(context.shape()), "");
    let joined = context.combine_heads(b, h);
    step(
        "joined",
        "combine_heads",
        joined.shape(),
        "(B·S, D)",
        flat(joined.shape()),
        "a copy: the heads side by side again",
    );
    let out = mha.w_o.forward(joined);
    step("out", "out = ·W^O + b^O", out.shape(), "(B·S, D)", flat(out.shape()), "");

    // The fused op takes each head's (S, D_h) block of q, k, v as a view.
    let fused = mha.forward(x, x, b, None);
    let diff = nb.value(
        &format!("{tag}_vs_fused"),
        show::sci(max_diff(&out.value(), &fused.context.value()), 1),
    );
    let p = nb
        .value(&format!("{tag}_fused_weights"), format!("{:?}", fused.weights.stored_shape(&tape)));
    say!(
        nb,
        "fused op: each head an (S, D_h) view of q, k, v, read in place, no split or combine;"
    );
    say!(nb, "  only its weights are laid out anew, {p} = (S, B·h·S); |out − fused| {diff}");
    say!(nb, "  a row per query; column block b·h + i = the S keys of head i of sequence b");

    // The slip of writing q_h where k_h belongs runs without complaint.
    let slip = q_h.bmm(q_h, b * h, true).scale(1.0 / (d_h as f64).sqrt()).softmax_rows(None);
    let slip = mha.w_o.forward(slip.bmm(v_h, b * h, false).combine_heads(b, h));
    let slip = nb.value(
        &format!("{tag}_slip_vs_fused"),
        show::sci(max_diff(&slip.value(), &fused.context.value()), 1),
    );
    say!(nb, "q_h·q_hᵀ in place of q_h·k_hᵀ: |out − fused| {slip}");
}
// ANCHOR_END: walk
