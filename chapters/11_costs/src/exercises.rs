//! Lecture 6 §12, exercises 5, 6 and 10, computed. (Lecture 17's exercise 7,
//! one layer of a long-context model, is in chapter 03.)

use autograd::Params;
use autograd::nn::{EncoderLayer, Norm};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

use crate::memory::binary;

// ANCHOR: exercise_5
/// Exercise 5: one decoder-only layer, d = 1024, d_ff = 4096, with biases —
/// built, and its parameters counted by module.
pub fn exercise_5_counts(seed: u64) -> (usize, usize, usize) {
    let mut params = Params::<f32>::new();
    EncoderLayer::new(
        &mut params,
        "layer",
        1024,
        16,
        4096,
        Norm::Pre,
        &mut Pcg64Mcg::seed_from_u64(seed),
    );
    let ffn = params
        .iter()
        .filter(|(_, p)| p.name.contains(".ff."))
        .map(|(_, p)| p.value.nrows() * p.value.ncols())
        .sum();
    let attention = params
        .iter()
        .filter(|(_, p)| p.name.contains(".attn."))
        .map(|(_, p)| p.value.nrows() * p.value.ncols())
        .sum();
    (params.count(), attention, ffn)
}
// ANCHOR_END: exercise_5

pub fn exercises(seed: u64, nb: &mut Notebook) {
    nb.demo("exercises", "L6 exercises 5, 6 and 10");
    let (all, attention, ffn) = exercise_5_counts(seed);
    let a = nb.value("ex5_params", show::grouped(all));
    let at = nb.value("ex5_attention", show::grouped(attention));
    let f = nb.value("ex5_ffn", show::grouped(ffn));
    let share = nb.value("ex5_ffn_share", show::num(100.0 * ffn as f64 / all as f64, 1));
    say!(
        nb,
        "5. d = 1024, d_ff = 4096: {a} parameters: attention {at}, the feed-forward {f} ({share}%)"
    );
    let (n, d) = (4608.0, 768.0);
    let attn = nb.value("ex6_attention", show::num(4.0 * n * d / 1e6, 1));
    let rest = nb.value("ex6_linear", show::num(24.0 * d * d / 1e6, 1));
    say!(
        nb,
        "6. GPT-2 small at n = 4608, per layer and token: attention 4nd = {attn} MFLOPs, projections and feed-forward 24d² = {rest} MFLOPs"
    );
    let (s, d, h) = (4096.0, 4096.0, 32.0);
    let sd = nb.value("ex10_sd", binary(16.0 * s * d * 2.0));
    let hss = nb.value("ex10_hss", binary(h * s * s * 2.0));
    nb.value("ex10_sd_mib", show::num(16.0 * s * d * 2.0 / 1024f64.powi(2), 0));
    nb.value("ex10_hss_gib", show::num(h * s * s * 2.0 / 1024f64.powi(3), 1));
    let cross = nb.value("ex10_cross", show::grouped((16.0 * d / h) as usize));
    say!(
        nb,
        "10. d = 4096, h = 32, S = 4096, fp16: 16 copies of S×d = {sd}, one h×S×S = {hss}; the S² part is larger from S = 16d/h = {cross}"
    );
}
