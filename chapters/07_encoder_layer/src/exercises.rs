//! The chapter's exercises whose answers are numbers: another padding for
//! BatchNorm, the depth at which the plain stack loses its gradient, the
//! big model's layers (Lecture 17 exercise 3, Lecture 6 exercise 5), and
//! Adam's first step (Lecture 6 exercise 9).

use autograd::Params;
use autograd::nn::{DecoderLayer, EncoderLayer, Norm};
use autograd::optim::Adam;
use faer::Mat;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

use crate::depth::{self, Measured, Stack};
use crate::norms::{self, Company};

pub fn exercise_padding(seed: u64, nb: &mut Notebook) {
    nb.demo("exercise_padding", "Exercise · The sentence alone, padded to 12");
    let (params, table) = norms::setup(seed);
    let alone = Company { len: 12, others: 0, seed: 0 }; // only the sentence and 8 pads
    let (ln, bn) = norms::change(&params, &table, norms::SHORT, alone);
    let ln = nb.value("ex_ln_change_alone", show::sci(ln, 1));
    let bn = nb.value("ex_bn_change_alone", show::num(bn, 2));
    say!(nb, "batch a → the sentence alone + 8 padding: LN moves {ln}, BN moves {bn}");
    let (_, bn_alone) = norms::normalised(&params, &table, alone);
    let (_, bn_bare) = norms::normalised(&params, &table, Company { len: 4, others: 0, seed: 0 });
    let pads = nb.value("ex_bn_pads_only", show::num(blocks::max_diff(&bn_alone, &bn_bare), 2));
    say!(
        nb,
        "the same sentence with 8 pads vs with none (nothing else in the batch): BN moves {pads}"
    );
}

// ANCHOR: exercise_depth
/// From the deepest plain stack's gradient factor `at` (after `deepest`
/// layers), the rate per layer and the first depth where that rate takes
/// the gradient below 1e−10.
pub fn vanishing_depth(deepest: usize, at: f64) -> (f64, usize) {
    let per_layer = libm::pow(at, 1.0 / deepest as f64);
    (per_layer, libm::ceil(-10.0 / libm::log10(per_layer)) as usize)
}
// ANCHOR_END: exercise_depth

pub fn exercise_depth(stack: &[[Measured; 3]], nb: &mut Notebook) {
    nb.demo("exercise_depth", "Exercise · Where the plain stack's gradient drops below 1e-10");
    let depths = depth::depths(1 << (stack.len() - 1));
    let (deepest, at) = (*depths.last().unwrap(), stack.last().unwrap()[0].grad);
    let (per_layer, predicted) = vanishing_depth(deepest, at);
    let rate = nb.value("ex_rate_per_layer", show::num(per_layer, 3));
    let p = nb.value("ex_predicted_depth", predicted.to_string());
    say!(nb, "at {deepest} layers the factor is {}, so about {rate} per layer", show::sci(at, 1));
    say!(nb, "{rate}^L < 1e-10 from L = {p} on");
    for l in [predicted - 1, predicted] {
        let g = depth::measure(Stack::Plain, l, 0).grad;
        let g = nb.value(
            &format!("ex_grad_at_{}", if l == predicted { "predicted" } else { "one_less" }),
            show::sci(g, 1),
        );
        say!(nb, "measured at {l} layers: {g}");
    }
}

// ANCHOR: exercise_big_model
/// The big model's layers (d_model 1024, d_ff 4096) with `heads` heads:
/// parameters of an encoder layer, a decoder layer and the feed-forward.
pub fn big_model_layers(heads: usize) -> (usize, usize, usize) {
    let (d, d_ff) = (1024, 4096);
    let mut rng = Pcg64Mcg::seed_from_u64(0);
    let (mut enc, mut dec, mut ff) =
        (Params::<f32>::new(), Params::<f32>::new(), Params::<f32>::new());
    let _ = EncoderLayer::new(&mut enc, "e", d, heads, d_ff, Norm::Post, &mut rng);
    let _ = DecoderLayer::new(&mut dec, "d", d, heads, d_ff, Norm::Post, &mut rng);
    let _ = autograd::nn::FeedForward::new(&mut ff, "f", d, d_ff, &mut rng);
    (enc.count(), dec.count(), ff.count())
}
// ANCHOR_END: exercise_big_model

pub fn exercise_big_model(nb: &mut Notebook) {
    nb.demo("exercise_big_model", "Exercise · The big model's layers (L17 ex. 3, L6 ex. 5)");
    let ((enc, dec, ff), (enc8, _, _)) = (big_model_layers(16), big_model_layers(8));
    let enc_s = nb.value("ex_big_encoder", show::grouped(enc));
    let dec_s = nb.value("ex_big_decoder", show::grouped(dec));
    let share = nb.value("ex_big_ffn_share", show::num(100.0 * ff as f64 / enc as f64, 1));
    say!(nb, "d_model 1024, d_ff 4096, 16 heads: encoder layer {enc_s}, decoder layer {dec_s}");
    say!(nb, "the feed-forward holds {share}% of the encoder layer");
    say!(nb, "a decoder-only (GPT-style) layer has no cross-attention: {enc_s}, as the encoder's");
    let same = nb.value("ex_big_heads_same", if enc == enc8 { "yes" } else { "no" });
    say!(nb, "with 8 heads: encoder layer {} — the same count: {same}", show::grouped(enc8));
}

// ANCHOR: exercise_adam_first_step
/// One Adam step on a loss whose gradient is `grads`: each parameter's
/// update in units of the learning rate.
pub fn adam_first_step(grads: &[f64], lr: f64, seed: u64) -> Vec<f64> {
    let mut params = Params::<f64>::new();
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let w = params.add("w", autograd::nn::init::normal(1, grads.len(), 1.0, &mut rng));
    let c = Mat::from_fn(1, grads.len(), |_, j| grads[j]); // loss = Σ c·w, so ∂loss/∂w = c
    let before = params.get(w).value.clone();
    let mut adam = Adam::new(&params, lr, 0.9, 0.999, 1e-8);
    let _ = autograd::train::step(&mut params, &mut adam, |tape| {
        tape.param(w).mul(tape.input(c)).sum()
    });
    (0..grads.len()).map(|j| (params.get(w).value[(0, j)] - before[(0, j)]) / lr).collect()
}
// ANCHOR_END: exercise_adam_first_step

/// One Adam step on gradients spread over six orders of magnitude.
pub fn exercise_adam_first_step(seed: u64, nb: &mut Notebook) {
    nb.demo("exercise_adam_first_step", "Exercise · Adam's first step (L6 ex. 9)");
    let lr = 1e-3;
    let grads = [-1e-4, -1e-2, -1.0, -1e2];
    say!(nb, "Adam lr {}, β = (0.9, 0.999), ε = 1e-8; one step", show::short(lr));
    for (j, moved) in adam_first_step(&grads, lr, seed).into_iter().enumerate() {
        let shown = nb.value(&format!("ex_adam_step_{j}"), show::num(moved, 4));
        say!(nb, "gradient {:>8}: update / lr = {shown}", show::sci(grads[j], 0));
    }
}
