//! Lecture 6 §9.3 — twenty training steps twinned with PyTorch: the review
//! classifier from PyTorch's initial weights, on PyTorch's batches, with
//! Adam on both sides. One forward and backward pass agreeing is not yet
//! a training loop agreeing.

use autograd::nn::Classifier;
use autograd::{Params, Smoothing, Tape};
use record::{Notebook, say, show};

use crate::reviews;

// ANCHOR: key_bias_gradient
/// The largest |gradient| of the query, key and value biases of the
/// (single) layer, in f64, for one batch. The key bias adds `q·b_k` to
/// every score of a query's row; softmax ignores a constant added to a
/// row, so that gradient is 0 up to rounding.
pub fn bias_gradients(
    model: &Classifier,
    params: &Params<f64>,
    ids: &[usize],
    labels: &[usize],
) -> [f64; 3] {
    let tape = Tape::new(params);
    let logits = model.forward(&tape, ids, labels.len()).expect("short enough").logits;
    let grads = tape.backward(logits.cross_entropy(labels, None, Smoothing::None));
    let attn = &model.layers[0].attn;
    [&attn.w_q, &attn.w_k, &attn.w_v].map(|p| {
        let g = grads.get(p.b.expect("biased")).expect("used");
        (0..g.ncols()).fold(0.0, |m, j| blocks::worse(m, g[(0, j)].abs()))
    })
}
// ANCHOR_END: key_bias_gradient

pub fn twinned_steps(nb: &mut Notebook) {
    nb.demo(
        "twinned_steps",
        "L6 §9.3 · Twenty training steps, PyTorch and the framework side by side",
    );
    let fix = twin::Fixture::named("classifier_steps");
    let same_words = fix.words.iter().map(String::as_str).eq(reviews::vocabulary());
    let words = nb.value("twin_same_words", same_words.to_string());
    let s = twin::steps::classifier_steps(&fix);
    let first = twin::cases::ids(fix.input("ids_00"));
    let len = fix.input("ids_00").shape[1];
    say!(nb, "PyTorch {}, float64; the fixture's vocabulary is the chapter's: {words}", s.torch);
    say!(
        nb,
        "batch 1 begins: \"{}\", \"{}\", …",
        reviews::text(&first[..len]),
        reviews::text(&first[len..2 * len])
    );
    say!(nb, "step   PyTorch     framework (plain)   framework (fused)   largest |Δ|");
    for (i, t) in s.torch_losses.iter().enumerate() {
        let (p, f) = (s.plain_losses[i], s.fused_losses[i]);
        let gap = blocks::worse((p - t).abs(), (f - t).abs());
        say!(nb, "{:>4}   {t:.15}   {p:.15}   {f:.15}   {}", i + 1, show::sci(gap, 1));
    }
    let loss_gap = nb.value("steps_loss_gap", show::sci(s.loss_gap, 1));
    let key_bias = |n: &str| n.ends_with("attn.w_k.b");
    let rest = nb.value("steps_param_gap", show::sci(s.param_gap(|n| !key_bias(n)), 1));
    let keys = nb.value("steps_key_bias_gap", show::sci(s.param_gap(key_bias), 1));
    let n = nb.value("steps_params", show::grouped(s.params));
    say!(nb, "largest loss difference over the 20 steps: {loss_gap}");
    say!(
        nb,
        "after the last step, {n} parameter numbers: largest difference {rest}, except the key bias: {keys}"
    );
    let (model, params) = twin::steps::initial_classifier(&fix);
    let labels = twin::cases::ids(fix.input("labels_00"));
    let [q, k, v] = bias_gradients(&model, &params, &first, &labels);
    let (q, k, v) = (show::sci(q, 1), show::sci(k, 1), show::sci(v, 1));
    let k = nb.value("key_bias_grad", k);
    say!(nb, "why: the largest |gradient| of the biases at step 1 — query {q}, key {k}, value {v}");
    say!(
        nb,
        "the key bias's is 0 but for rounding, which differs between the frameworks; Adam divides"
    );
    say!(
        nb,
        "a gradient by √v̂ + ε (ε = 1e-8), so rounding noise of ~1e-17 moves it by up to lr·1e-17/1e-8 a step"
    );
}
