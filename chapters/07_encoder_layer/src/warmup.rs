//! Lecture 6 §6.1's question, measured: what does warmup protect? The same
//! 6-layer encoder as the experiment, its first steps of Adam at 1e−2 with
//! and without warmup: how far each step moves the model's output, and the
//! training loss step by step.

use autograd::nn::Norm;
use autograd::optim::{Adam, linear_warmup};
use autograd::{Params, Tape, train};
use faer::Mat;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use rayon::prelude::*;
use record::svg::{LinePlot, Series};
use record::{Notebook, say, show};

use crate::model::{self, Encoder, SYMBOLS};
use crate::training::Setup;

/// Step by step: the training loss, and how far the step moved the logits
/// of a fixed probe batch, ‖z_k − z_{k−1}‖ / ‖z_{k−1}‖.
#[derive(Clone, Debug)]
pub struct FirstSteps {
    pub loss: Vec<f64>,
    pub moved: Vec<f64>,
}

fn norm2(m: &Mat<f32>) -> f64 {
    let cols = (0..m.ncols()).map(|j| m.col_as_slice(j).iter().map(|&x| f64::from(x).powi(2)));
    cols.map(|c| c.sum::<f64>()).sum::<f64>().sqrt()
}

// ANCHOR: first_steps
/// `steps` steps of Adam at `lr`, warmed up linearly over `warmup` steps
/// (0: the full rate from step 1); weights, batches and probe from `seed`,
/// as in the experiment.
pub fn first_steps(
    norm: Norm,
    s: Setup,
    lr: f64,
    warmup: u32,
    steps: u32,
    seed: u64,
) -> FirstSteps {
    let mut params = Params::<f32>::new();
    let m =
        Encoder::new(&mut params, model::small(s.layers, norm), &mut Pcg64Mcg::seed_from_u64(seed));
    let mut adam = Adam::new(&params, lr, 0.9, 0.999, 1e-8);
    let mut data = Pcg64Mcg::seed_from_u64(seed + 100);
    let probe = model::batch(s.eval, &mut Pcg64Mcg::seed_from_u64(seed + 200));
    let logits = |p: &Params<f32>| m.forward(&Tape::new(p), &probe.src, probe.size).value().clone();
    let mut before = logits(&params); // (eval·L, 10)
    let (mut loss, mut moved) = (Vec::new(), Vec::new());
    for step in 1..=steps {
        let b = model::batch(s.batch, &mut data);
        adam.lr = linear_warmup(step, warmup, lr);
        loss.push(f64::from(train::step(&mut params, &mut adam, |tape| m.loss(tape, &b))));
        let after = logits(&params);
        moved.push(norm2(&(&after - &before)) / norm2(&before));
        before = after;
    }
    FirstSteps { loss, moved }
}
// ANCHOR_END: first_steps

/// The four runs of the demo: both norms, without warmup and with 100 steps.
pub const RUNS: [(Norm, u32); 4] =
    [(Norm::Post, 0), (Norm::Post, 100), (Norm::Pre, 0), (Norm::Pre, 100)];
pub const LR: f64 = 1e-2;
pub const STEPS: u32 = 100;
const SHOWN: [u32; 8] = [1, 2, 3, 5, 10, 20, 50, 100];

pub fn warmup_measured(s: Setup, seed: u64, nb: &mut Notebook) {
    nb.demo(
        "warmup_measured",
        "L6 04.3 · The first steps of Adam at 1e-2, with and without warmup",
    );
    say!(
        nb,
        "the experiment's model ({} layers) and data, seed {seed}; Adam lr {}, warmup 0 or 100 steps; probe: the {} held-out sequences",
        s.layers,
        show::short(LR),
        s.eval
    );
    let uniform = libm::log(SYMBOLS as f64); // the loss of a model that predicts 1/10 everywhere
    let ln10 = nb.value("ln_symbols", show::num(uniform, 3));
    say!(
        nb,
        "moved = ‖z_k − z_(k−1)‖ / ‖z_(k−1)‖ of the probe's logits; loss of uniform output ln 10 = {ln10}"
    );
    let steps = STEPS.min(s.steps);
    let runs: Vec<FirstSteps> =
        RUNS.par_iter().map(|&(norm, w)| first_steps(norm, s, LR, w, steps, seed)).collect();
    let shown: Vec<u32> = SHOWN.iter().copied().filter(|&k| k <= steps).collect();
    let head: String = shown.iter().map(|k| format!("{:>9}", format!("step {k}"))).collect();
    let mut series = Vec::new();
    for (&(norm, warmup), r) in RUNS.iter().zip(&runs) {
        let tag = format!("{}_warmup{warmup}", if norm == Norm::Post { "post" } else { "pre" });
        let label = format!("{norm:?}-LN, warmup {warmup}");
        say!(nb);
        say!(nb, "{label:<22}{head}");
        for (what, v) in [("moved", &r.moved), ("loss", &r.loss)] {
            let mut line = format!("  {what:<20}");
            for &k in &shown {
                let x = nb
                    .value(&format!("first_{tag}_{what}_step{k}"), show::num(v[k as usize - 1], 3));
                line.push_str(&format!("{x:>9}"));
            }
            say!(nb, "{line}");
        }
        // after the first shock: the largest jump of the loss from one step to the next
        let rise = r.loss.windows(2).skip(10).map(|w| w[1] - w[0]).fold(0.0, f64::max);
        let rise = nb.value(&format!("first_{tag}_max_rise"), show::num(rise, 3));
        say!(nb, "  largest rise of the loss between two steps after step 10: {rise}");
        let points =
            r.loss.iter().enumerate().map(|(k, &l)| ((k + 1) as f64, l)).collect::<Vec<_>>();
        series.push((label, points));
    }
    let colours = ["#d62728", "#9467bd", "#1f77b4", "#17becf"];
    let mut series: Vec<Series> = series
        .iter()
        .zip(colours)
        .map(|((l, p), c)| Series { label: l, colour: c, points: p.clone() })
        .collect();
    let flat = vec![(1.0, uniform), (f64::from(steps), uniform)];
    series.push(Series { label: "uniform output (ln 10)", colour: "#999999", points: flat });
    let plot = LinePlot { series: &series, x_label: "training step", y_label: "training loss" };
    nb.figure("warmup_first_steps", plot.to_svg());
}
