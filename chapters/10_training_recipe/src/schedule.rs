//! Lecture 6 demos 05.3 and 05.4 — the paper's learning-rate schedule, and
//! why Adam's first step argues for a warmup.

use autograd::nn::Norm;
use autograd::optim::{Adam, Optimizer, noam};
use autograd::{Params, Smoothing, Tape};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::svg::{LinePlot, Series};
use record::{Notebook, say, show};

use crate::language::PAD;
use crate::lm::{self, Batch};

pub fn schedule(nb: &mut Notebook) {
    nb.demo(
        "schedule",
        "L6 05.3 · The paper's schedule: d^−0.5 · min(step^−0.5, step · warmup^−1.5)",
    );
    let warmup = 4000;
    let peak = nb.value("peak_512", show::sci(noam(warmup, 512, warmup), 2));
    let late = nb.value("lr_512_100k", show::sci(noam(100_000, 512, warmup), 2));
    let peak_1024 = noam(warmup, 1024, warmup);
    let ratio = nb.value("peak_ratio", show::num(noam(warmup, 512, warmup) / peak_1024, 4));
    say!(
        nb,
        "warmup {warmup}: d = 512 peaks at step {warmup} with {peak}; at step 100,000 it is {late}"
    );
    say!(
        nb,
        "d = 1024 peaks at {}, {ratio} times lower (√2 = {})",
        show::sci(peak_1024, 2),
        show::num(2f64.sqrt(), 4)
    );
    // Lecture 6 exercise 7: two steps with the same rate
    let (a, b) = (noam(2000, 512, warmup), noam(16_000, 512, warmup));
    let a_s = nb.value("lr_2000", show::sci(a, 2));
    let b_s = nb.value("lr_16000", show::sci(b, 2));
    let half = nb.value("lr_2000_over_peak", show::num(a / noam(warmup, 512, warmup), 4));
    say!(nb, "step 2,000: {a_s}; step 16,000: {b_s}; each {half} of the peak");
    let labels = ["d = 512", "d = 1024"];
    let series: Vec<Series> = [512usize, 1024]
        .iter()
        .zip(labels)
        .zip(["#1f77b4", "#d62728"])
        .map(|((&d, label), colour)| Series {
            label,
            colour,
            points: (1..=40)
                .map(|k| k * 500)
                .map(|s| (s as f64, 1e4 * noam(s, d, warmup)))
                .collect(),
        })
        .collect();
    let plot = LinePlot { series: &series, x_label: "step", y_label: "learning rate × 10⁴" };
    nb.figure("schedule", plot.to_svg());
}

// ANCHOR: first_step
/// Adam's first update, |Δθ| / lr, for every parameter of a fresh city-language
/// model whose gradient is scaled by `scale`: after bias correction
/// m̂ = g and v̂ = g², so the step is lr · g / (|g| + ε).
pub fn first_step(scale: f64, seed: u64) -> Vec<(f64, f64)> {
    let mut params = Params::<f64>::new();
    let model = autograd::nn::DecoderOnly::new(
        &mut params,
        lm::config(Norm::Pre),
        &mut Pcg64Mcg::seed_from_u64(seed),
    );
    let batch = Batch::of(&lm::sentences(32, seed + 100));
    let grads = {
        let tape = Tape::new(&params);
        let logits = model.forward(&tape, &batch.inputs, batch.size).expect("within the positions");
        let loss = logits.cross_entropy(&batch.targets, Some(PAD), Smoothing::None).scale(scale);
        tape.backward(loss)
    };
    let before = params.clone();
    let lr = 1e-3;
    let mut adam = Adam::new(&params, lr, 0.9, 0.98, 1e-9);
    adam.step(&mut params, &grads);
    let mut out = Vec::new();
    for (id, p) in params.iter() {
        let (Some(g), old) = (grads.get(id), &before.get(id).value) else { continue };
        for j in 0..g.ncols() {
            for i in 0..g.nrows() {
                out.push((g[(i, j)], (p.value[(i, j)] - old[(i, j)]).abs() / lr));
            }
        }
    }
    out
}
// ANCHOR_END: first_step

pub fn adam_first_step(seed: u64, nb: &mut Notebook) {
    nb.demo(
        "first_step",
        "L6 05.4 · Adam's first step is ≈ lr · sign(g), whatever the gradient's size",
    );
    say!(
        nb,
        "a fresh 6-layer Pre-LN model, one batch of 32 sentences, Adam (0.9, 0.98, 1e-9), lr 1e-3;"
    );
    say!(nb, "the loss multiplied by a scale, so every gradient is multiplied by it:");
    say!(
        nb,
        "{:>8} {:>14} {:>16} {:>18}",
        "scale",
        "median |g|",
        "median |Δθ|/lr",
        "share within 1%"
    );
    for (i, scale) in [1e-6, 1e-3, 1.0, 1e3, 1e6].into_iter().enumerate() {
        let steps = first_step(scale, seed);
        let moved: Vec<&(f64, f64)> = steps.iter().filter(|(g, _)| *g != 0.0).collect();
        let mut g: Vec<f64> = moved.iter().map(|(g, _)| g.abs()).collect();
        let mut s: Vec<f64> = moved.iter().map(|(_, s)| *s).collect();
        g.sort_by(f64::total_cmp);
        s.sort_by(f64::total_cmp);
        let within = moved.iter().filter(|(_, s)| (s - 1.0).abs() < 0.01).count() as f64
            / moved.len() as f64;
        let med_g = nb.value(&format!("first_step_gradient_{i}"), show::sci(g[g.len() / 2], 1));
        let med_s = nb.value(&format!("first_step_median_{i}"), show::num(s[s.len() / 2], 4));
        let within = nb.value(&format!("first_step_within_{i}"), show::num(100.0 * within, 1));
        say!(nb, "{:>8} {med_g:>14} {med_s:>16} {within:>17}%", show::sci(scale, 0));
    }
}
