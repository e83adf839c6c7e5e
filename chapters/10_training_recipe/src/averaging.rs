//! Lecture 6 demo 05.5 — checkpoint averaging under a constant learning
//! rate: the last checkpoint against the mean of the last k.

use autograd::Smoothing;
use autograd::nn::Norm;
use autograd::optim::average;
use rayon::prelude::*;
use record::svg::{LinePlot, Series};
use record::{Notebook, say, show};

use crate::lm::{self, Recipe, TestSet};

/// How many of the last checkpoints are averaged.
pub const KS: [usize; 4] = [1, 2, 5, 10];

// ANCHOR: averaged
/// Train at a constant rate, keeping a checkpoint every `every` steps; the
/// test excess of the mean of the last k checkpoints, for each k in [`KS`]
/// (k = 1 is the last checkpoint itself; a short run averages what it has),
/// and the excess at every checkpoint.
pub fn averaged(
    lr: f64,
    steps: u32,
    every: u32,
    batch: usize,
    seed: u64,
    test: &TestSet,
) -> (Vec<f64>, Vec<f64>) {
    let recipe =
        Recipe { norm: Norm::Pre, lr, warmup: 0, steps, batch, smoothing: Smoothing::None };
    let run = lm::train_run(recipe, seed, test, every, true);
    let n = run.checkpoints.len();
    let by_k = KS
        .iter()
        .map(|&k| test.excess(&run.model, &average(&run.checkpoints[n - k.min(n)..])))
        .collect();
    (by_k, run.excess)
}
// ANCHOR_END: averaged

pub fn checkpoint_averaging(
    steps: u32,
    batch: usize,
    seeds: &[u64],
    test_n: usize,
    nb: &mut Notebook,
) {
    nb.demo("averaging", "L6 05.5 · Checkpoint averaging at a constant learning rate");
    let (lr, every) = (3e-3, 50);
    say!(
        nb,
        "Pre-LN, constant lr {}, batch {batch}, {steps} steps, a checkpoint every {every} steps;",
        show::short(lr)
    );
    say!(nb, "test excess over the floor (mnats/token) of the mean of the last k checkpoints:");
    let runs: Vec<(Vec<f64>, Vec<f64>)> = seeds
        .par_iter()
        .map(|&s| averaged(lr, steps, every, batch, s, &TestSet::new(test_n, s + 200)))
        .collect();
    // a short run has fewer checkpoints than the largest k: each k as used
    let n = (steps / every) as usize;
    let head: Vec<String> =
        KS.iter().map(|k| format!("{:>8}", format!("k = {}", k.min(&n)))).collect();
    say!(nb, "{:<8} {}", "seed", head.join(""));
    for (s, (by_k, _)) in seeds.iter().zip(&runs) {
        let cells: Vec<String> = KS
            .iter()
            .zip(by_k)
            .map(|(k, &x)| {
                format!("{:>8}", nb.value(&format!("avg_k{k}_seed{s}"), show::num(x, 0)))
            })
            .collect();
        say!(nb, "{s:<8} {}", cells.join(""));
    }
    for (j, k) in KS.iter().enumerate() {
        let gains: Vec<f64> = runs.iter().map(|(by_k, _)| by_k[0] - by_k[j]).collect();
        let lo = gains.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = gains.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        nb.value(&format!("avg_gain_k{k}_min"), show::num(lo, 0));
        nb.value(&format!("avg_gain_k{k}_max"), show::num(hi, 0));
    }
    // the best single checkpoint among the last 10 of each seed
    for (s, (_, curve)) in seeds.iter().zip(&runs) {
        let best = curve[curve.len() - KS[3].min(curve.len() - 1)..]
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min);
        nb.value(&format!("last10_best_seed{s}"), show::num(best, 0));
    }
    // the second half of seed 0's run: each checkpoint, and the mean of the
    // last 10 drawn across the steps it averages
    let (by_k, curve) = &runs[0];
    let last = (curve.len() - 1) as u32 * every;
    let from = last.saturating_sub(every * (KS[3] as u32 - 1));
    let half = |i: usize| (i as u32 * every) >= last / 2;
    let points = curve.iter().enumerate().skip(1).filter(|&(i, _)| half(i));
    let series = [
        Series {
            label: "each checkpoint (seed 0)",
            colour: "#1f77b4",
            points: points.map(|(i, &x)| ((i as u32 * every) as f64, x)).collect(),
        },
        Series {
            label: "mean of the last 10",
            colour: "#d62728",
            points: vec![(f64::from(from), by_k[3]), (f64::from(last), by_k[3])],
        },
    ];
    let plot = LinePlot { series: &series, x_label: "step", y_label: "test excess, mnats/token" };
    nb.figure("averaging", plot.to_svg());
}
