//! Lecture 6 scripts 04.1 and 04.3 — what depth does to a stack: the
//! gradient from output back to input without residuals, with residuals,
//! with residuals and LayerNorm; and each layer's gradient at
//! initialisation in Post-LN and Pre-LN encoders of growing depth.

use autograd::nn::{LayerNorm, Linear, Norm};
use autograd::{Params, Tape};
use faer::Mat;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::svg::{LinePlot, LogPlot, Series};
use record::{Notebook, say, show};
use std::f64::consts::PI;

use crate::model::{self, Encoder};

/// Width of the Linear + ReLU stack, and rows pushed through it.
pub const WIDTH: usize = 256;
pub const ROWS: usize = 32;

/// 1, 2, 4, … up to `max` (rounded down to a power of 2).
pub fn depths(max: usize) -> Vec<usize> {
    (0..).map(|k| 1usize << k).take_while(|&l| l <= max).collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stack {
    Plain,
    Residual,
    ResidualLn,
}

pub const STACKS: [Stack; 3] = [Stack::Plain, Stack::Residual, Stack::ResidualLn];

impl Stack {
    pub fn name(self) -> &'static str {
        match self {
            Stack::Plain => "plain",
            Stack::Residual => "residual",
            Stack::ResidualLn => "residual_ln",
        }
    }
}

/// What one stack did: ‖∂(g·out)/∂x‖ / ‖g‖ for a random g, and std(out).
#[derive(Clone, Copy, Debug)]
pub struct Measured {
    pub grad: f64,
    pub out_std: f64,
}

fn frobenius(m: &Mat<f64>) -> f64 {
    let mut s = 0.0;
    for j in 0..m.ncols() {
        for i in 0..m.nrows() {
            s += m[(i, j)] * m[(i, j)];
        }
    }
    s.sqrt()
}

/// Σ x² of a gradient, in f64, column by column.
fn squares(m: &Mat<f32>) -> f64 {
    let cols = (0..m.ncols()).map(|j| m.col_as_slice(j).iter().map(|&x| f64::from(x).powi(2)));
    cols.map(|c| c.sum::<f64>()).sum()
}

// ANCHOR: stack
/// `depth` layers of Linear(256, 256) + ReLU (PyTorch's default init), on
/// an input x ~ N(0, 1) of shape (32, 256).
pub fn measure(stack: Stack, depth: usize, seed: u64) -> Measured {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut params = Params::<f64>::new();
    let x_id = params.add("x", autograd::nn::init::normal(ROWS, WIDTH, 1.0, &mut rng));
    let g = autograd::nn::init::normal(ROWS, WIDTH, 1.0, &mut rng); // (32, 256)
    let layers: Vec<(Linear, LayerNorm)> = (0..depth)
        .map(|i| {
            let lin = Linear::new(&mut params, &format!("l{i}"), WIDTH, WIDTH, true, &mut rng);
            (lin, LayerNorm::new(&mut params, &format!("n{i}"), WIDTH))
        })
        .collect();
    let tape = Tape::with_kernels(&params, autograd::Kernels::Plain);
    let mut h = tape.param(x_id); // (32, 256)
    for (lin, ln) in &layers {
        let f = lin.forward(h).relu();
        h = match stack {
            Stack::Plain => f,
            Stack::Residual => h.add(f),
            Stack::ResidualLn => ln.forward(h.add(f)), // the Post-LN way: normalise the sum
        };
    }
    let out = h.value().to_owned();
    let grads = tape.backward(h.mul(tape.input(g.clone())).sum());
    let grad = frobenius(grads.get(x_id).unwrap()) / frobenius(&g);
    let n = (ROWS * WIDTH) as f64;
    let mean = (0..WIDTH).map(|j| (0..ROWS).map(|i| out[(i, j)]).sum::<f64>()).sum::<f64>() / n;
    let var = (0..WIDTH).map(|j| (0..ROWS).map(|i| (out[(i, j)] - mean).powi(2)).sum::<f64>());
    Measured { grad, out_std: (var.sum::<f64>() / n).sqrt() }
}
// ANCHOR_END: stack

// ANCHOR: plain_fixed_point
/// The plain stack by hand: (rms and std the forward signal settles at, the
/// backward factor per layer). Forward, m = E[h²] follows
/// m ← (256·var_w·m + var_b)/2: W ~ U(±1/16) gives 256·var_w = 1/3, the
/// bias adds var_b = 1/768 and the ReLU halves. Backward sees no bias.
pub fn plain_fixed_point() -> (f64, f64, f64) {
    let var_w = 1.0 / (3.0 * WIDTH as f64); // U(±1/√256): bound²/3, also b's variance
    let m = (0..200).fold(1.0, |m, _| (WIDTH as f64 * var_w * m + var_w) / 2.0);
    // a ReLU of a zero-mean Gaussian has mean² = E[h²]/π of its square
    let std = (m * (1.0 - 1.0 / PI)).sqrt();
    (m.sqrt(), std, (WIDTH as f64 * var_w / 2.0).sqrt())
}
// ANCHOR_END: plain_fixed_point

pub fn deep_stack(depths: &[usize], seed: u64, nb: &mut Notebook) -> Vec<[Measured; 3]> {
    nb.demo("deep_stack", "L6 04.1 · Deep stacks: plain, residual, residual + LayerNorm");
    say!(
        nb,
        "Linear({WIDTH}, {WIDTH}) + ReLU per layer, PyTorch's default init; x ~ N(0, 1) ({ROWS}, {WIDTH}); seed {seed}"
    );
    say!(nb, "gradient factor ‖∂(g·out)/∂x‖ / ‖g‖ for g ~ N(0, 1); std of the output");
    say!(
        nb,
        "{:>6}  {:>10} {:>10}  {:>10} {:>10}  {:>10} {:>10}",
        "depth",
        "plain ∇",
        "std",
        "resid ∇",
        "std",
        "res+LN ∇",
        "std"
    );
    let mut all = Vec::new();
    for &l in depths {
        let m = STACKS.map(|s| measure(s, l, seed));
        let mut line = format!("{l:>6}");
        for (s, r) in STACKS.iter().zip(&m) {
            let g = nb.value(&format!("{}_grad_l{l}", s.name()), show::sci(r.grad, 1));
            let sd = nb.value(&format!("{}_std_l{l}", s.name()), show::sci(r.out_std, 1));
            line.push_str(&format!("  {g:>10} {sd:>10}"));
        }
        say!(nb, "{line}");
        all.push(m);
    }
    // residual + LN: the gradient factor still grows, by this much per layer
    let (deepest, ln_grad) = (*depths.last().unwrap(), all.last().unwrap()[2].grad);
    let rate = nb.value(
        "residual_ln_rate_per_layer",
        show::num(libm::pow(ln_grad, 1.0 / deepest as f64), 3),
    );
    say!(nb, "residual + LN: the gradient factor grows by about ×{rate} per layer");
    let (rms, sd, back) = plain_fixed_point();
    let rms = nb.value("plain_floor_rms", show::num(rms, 3));
    let sd = nb.value("plain_floor_std", show::num(sd, 3));
    say!(nb, "plain, forward: E[h²] ← (E[h²]/3 + 1/768)/2 settles at rms {rms}, std {sd}");
    let back = nb.value("plain_backward_factor", show::num(back, 3));
    say!(nb, "plain, backward (no bias): Wᵀ gives 1/3, the ReLU mask 1/2: √(1/6) = {back}");
    let labels = ["no residual: gradient", "residual only: output std", "residual + LN: gradient"];
    let colours = ["#d62728", "#ff7f0e", "#2ca02c"];
    let pick = |k: usize, r: &[Measured; 3]| if k == 1 { r[1].out_std } else { r[k].grad };
    let series: Vec<Series> = (0..3)
        .map(|k| Series {
            label: labels[k],
            colour: colours[k],
            points: depths.iter().zip(&all).map(|(&l, r)| (l as f64, pick(k, r))).collect(),
        })
        .collect();
    let plot =
        LogPlot { series: &series, x_label: "layers", y_label: "gradient factor / output std" };
    nb.figure("deep_stack", plot.to_svg());
    all
}

// ANCHOR: layer_grads
/// The gradient norm of every encoder layer's parameters at
/// initialisation, for one batch of reversal examples.
pub fn layer_grads(layers: usize, norm: Norm, batch: usize, seed: u64) -> Vec<f64> {
    let mut params = Params::<f32>::new();
    let m =
        Encoder::new(&mut params, model::small(layers, norm), &mut Pcg64Mcg::seed_from_u64(seed));
    let b = model::batch(batch, &mut Pcg64Mcg::seed_from_u64(seed + 100));
    let tape = Tape::new(&params);
    let grads = tape.backward(m.loss(&tape, &b));
    (0..layers)
        .map(|i| {
            // ‖∇‖ over every parameter of layer i: attention, FFN, both norms
            let prefix = format!("layer{i}.");
            let mine = params.iter().filter(|(_, p)| p.name.starts_with(&prefix));
            let sq = mine.map(|(id, _)| grads.get(id).map_or(0.0, squares));
            sq.sum::<f64>().sqrt()
        })
        .collect()
}

// ANCHOR_END: layer_grads

pub const NS: [usize; 4] = [2, 4, 8, 16];
pub const GRAD_SEEDS: u64 = 3;

pub fn grad_by_depth(batch: usize, seed: u64, nb: &mut Notebook) {
    nb.demo(
        "grad_by_depth",
        "L6 04.3 · Each layer's gradient at initialisation, Post-LN vs Pre-LN",
    );
    say!(
        nb,
        "encoders of N layers (d_model 64, 4 heads, d_ff 256), reversal loss on {batch} sequences of {}",
        model::LEN
    );
    say!(
        nb,
        "‖∇‖ of each layer's parameters, layer 1 (input side) to N, mean of seeds {seed}..{}",
        seed + GRAD_SEEDS - 1
    );
    let seeds: Vec<u64> = (0..GRAD_SEEDS).map(|k| seed + k).collect();
    say!(nb, "last/first: the mean profile's, [lowest, highest] over the seeds");
    let mut series = Vec::new();
    // each seed's last-layer gradient, per N, for the paired Post/Pre count
    let mut post_last_by_seed: Vec<Vec<f64>> = Vec::new();
    for norm in [Norm::Post, Norm::Pre] {
        let tag = if norm == Norm::Post { "post" } else { "pre" };
        let mut last = Vec::new();
        for (i, n) in NS.into_iter().enumerate() {
            let runs: Vec<Vec<f64>> =
                seeds.iter().map(|&s| layer_grads(n, norm, batch, s)).collect();
            let profile: Vec<f64> = (0..n)
                .map(|i| runs.iter().map(|r| r[i]).sum::<f64>() / seeds.len() as f64)
                .collect();
            // last/first within each seed: does the verdict hold seed by seed?
            let per_seed: Vec<f64> = runs.iter().map(|r| r[n - 1] / r[0]).collect();
            let lo_s = nb.value(
                &format!("{tag}_last_over_first_n{n}_min"),
                show::num(per_seed.iter().copied().fold(f64::INFINITY, f64::min), 2),
            );
            let hi_s = nb.value(
                &format!("{tag}_last_over_first_n{n}_max"),
                show::num(per_seed.iter().copied().fold(0.0, f64::max), 2),
            );
            // the last layer's gradient seed by seed: its spread, and (the
            // seeds are shared) on how many seeds Post-LN's is the larger
            let last_seeds: Vec<f64> = runs.iter().map(|r| r[n - 1]).collect();
            nb.value(
                &format!("{tag}_last_n{n}_lo"),
                show::num(last_seeds.iter().copied().fold(f64::INFINITY, f64::min), 3),
            );
            nb.value(
                &format!("{tag}_last_n{n}_hi"),
                show::num(last_seeds.iter().copied().fold(0.0, f64::max), 3),
            );
            if norm == Norm::Post {
                post_last_by_seed.push(last_seeds);
            } else if let Some(post) = post_last_by_seed.get(i) {
                let larger = post.iter().zip(&last_seeds).filter(|(p, q)| p > q).count();
                let larger = nb.value(&format!("post_last_larger_n{n}"), larger.to_string());
                say!(
                    nb,
                    "  N = {n}: Post-LN's last layer above Pre-LN's on {larger} of {} seeds",
                    seeds.len()
                );
            }
            let (f, l) = (profile[0], profile[n - 1]);
            nb.value(&format!("{tag}_first_n{n}"), show::num(f, 3));
            nb.value(&format!("{tag}_last_n{n}"), show::num(l, 3));
            let lo = profile.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = profile.iter().copied().fold(0.0, f64::max);
            nb.value(&format!("{tag}_min_n{n}"), show::num(lo, 3));
            nb.value(&format!("{tag}_max_n{n}"), show::num(hi, 3));
            let ratio = nb.value(&format!("{tag}_last_over_first_n{n}"), show::num(l / f, 2));
            let cells: String = profile.iter().map(|g| format!(" {}", show::num(*g, 3))).collect();
            say!(nb, "{norm:?}-LN N = {n:>2}:{cells}   last/first {ratio} [{lo_s}, {hi_s}]");
            last.push((n as f64, l));
            if n == 4 || n == 16 {
                let points: Vec<(f64, f64)> =
                    profile.iter().enumerate().map(|(i, &g)| ((i + 1) as f64, g)).collect();
                series.push((format!("{norm:?}-LN, N = {n}"), points));
            }
        }
        if norm == Norm::Pre {
            // Xiong et al.: Pre-LN's gradient shrinks as 1/√N (for large N and d)
            let ((n0, lo), (n1, hi)) = (last[0], last[last.len() - 1]);
            let ratio = nb.value("pre_last_ratio", show::num(hi / lo, 2));
            let bound = nb.value("pre_last_xiong", show::num((n0 / n1).sqrt(), 2));
            say!(nb, "Pre-LN last layer, N = {n0} → {n1}: ×{ratio} (1/√N predicts ×{bound})");
        }
    }
    let colours = ["#ff9896", "#d62728", "#aec7e8", "#1f77b4"];
    let series: Vec<Series> = series
        .iter()
        .zip(colours)
        .map(|((l, p), c)| Series { label: l, colour: c, points: p.clone() })
        .collect();
    let plot = LinePlot {
        series: &series,
        x_label: "layer (1 = input side)",
        y_label: "‖∇‖ of the layer's parameters",
    };
    nb.figure("grad_by_depth", plot.to_svg());
}
