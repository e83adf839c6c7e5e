//! Lecture 17 demo 04.3 — a 6-layer encoder learns in-place reversal,
//! Post-LN against Pre-LN, at two learning rates of Adam and with a warmup.

use std::time::Instant;

use autograd::Params;
use autograd::nn::Norm;
use autograd::optim::{Adam, linear_warmup};
use autograd::train;
use indicatif::{ProgressBar, ProgressStyle};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use rayon::prelude::*;
use record::svg::{LinePlot, Series};
use record::{Notebook, say, show};

use crate::model::{self, Encoder, LEN, SYMBOLS};

/// Accuracy is read every this many steps (and at step 0); the table
/// prints every [`TABLE_EVERY`]-th.
pub const EVERY: u32 = 20;
pub const TABLE_EVERY: u32 = 100;

/// One configuration of the table.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    pub norm: Norm,
    pub lr: f64,
    pub warmup: u32,
}

impl Config {
    pub fn name(self) -> String {
        let norm = if self.norm == Norm::Post { "post" } else { "pre" };
        let warm = if self.warmup > 0 { format!("_warmup{}", self.warmup) } else { String::new() };
        format!("{norm}_lr{}{warm}", show::short(self.lr).replace('.', "_"))
    }
    pub fn label(self) -> String {
        let norm = if self.norm == Norm::Post { "Post-LN" } else { "Pre-LN " };
        let warm =
            if self.warmup > 0 { format!(", warmup {}", self.warmup) } else { String::new() };
        format!("{norm} lr {}{warm}", show::short(self.lr))
    }
}

/// The lecture's five rows: both norms at 1e−3 and 1e−2 without warmup,
/// then Post-LN at 1e−2 after 100 warmup steps.
pub const CONFIGS: [Config; 5] = [
    Config { norm: Norm::Post, lr: 1e-3, warmup: 0 },
    Config { norm: Norm::Pre, lr: 1e-3, warmup: 0 },
    Config { norm: Norm::Post, lr: 1e-2, warmup: 0 },
    Config { norm: Norm::Pre, lr: 1e-2, warmup: 0 },
    Config { norm: Norm::Post, lr: 1e-2, warmup: 100 },
];

/// The run's settings.
#[derive(Clone, Copy, Debug)]
pub struct Setup {
    pub layers: usize,
    pub batch: usize,
    pub steps: u32,
    pub eval: usize,
}

// ANCHOR: run
/// Train one model; the held-out accuracy at step 0 and every [`EVERY`]
/// steps, and the time the steps took.
pub fn train_one(c: Config, s: Setup, seed: u64, bar: Option<&ProgressBar>) -> (Vec<f64>, f64) {
    let mut params = Params::<f32>::new();
    let shape = model::small(s.layers, c.norm);
    let m = Encoder::new(&mut params, shape, &mut Pcg64Mcg::seed_from_u64(seed));
    let mut adam = Adam::new(&params, c.lr, 0.9, 0.999, 1e-8);
    let mut data = Pcg64Mcg::seed_from_u64(seed + 100); // batches: same for every config
    let held_out = model::batch(s.eval, &mut Pcg64Mcg::seed_from_u64(seed + 200));
    let (mut accs, mut busy) = (vec![model::accuracy(&m, &params, &held_out)], 0.0);
    for step in 1..=s.steps {
        let b = model::batch(s.batch, &mut data);
        adam.lr = linear_warmup(step, c.warmup, c.lr); // warmup 0: the full rate from step 1
        let start = Instant::now();
        train::step(&mut params, &mut adam, |tape| m.loss(tape, &b));
        busy += start.elapsed().as_secs_f64();
        if step % EVERY == 0 {
            accs.push(model::accuracy(&m, &params, &held_out));
        }
        bar.inspect(|p| p.inc(1));
    }
    (accs, busy * 1e3 / f64::from(s.steps))
}
// ANCHOR_END: run

/// Every configuration under every seed, in parallel; results in the order
/// (config, seed), each run sequential inside.
pub fn train_all(s: Setup, seeds: &[u64], printing: bool) -> Vec<(Vec<f64>, f64)> {
    let runs: Vec<(Config, u64)> =
        CONFIGS.iter().flat_map(|&c| seeds.iter().map(move |&sd| (c, sd))).collect();
    let bar = printing.then(|| {
        let bar = ProgressBar::new(runs.len() as u64 * u64::from(s.steps));
        let style = ProgressStyle::with_template("{bar:40} {percent:>3}% of the runs, {eta} left");
        bar.set_style(style.unwrap());
        bar
    });
    let out = runs.par_iter().map(|&(c, sd)| train_one(c, s, sd, bar.as_ref())).collect();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    out
}

pub fn post_vs_pre(s: Setup, seeds: &[u64], nb: &mut Notebook) {
    nb.demo("post_vs_pre", "L17 04.3 · Post-LN vs Pre-LN, with and without warmup");
    say!(
        nb,
        "{} encoder layers, d_model 64, 4 heads, d_ff 256; in-place reversal, L = {LEN}, {SYMBOLS} symbols",
        s.layers
    );
    let chance = nb.value("chance", show::num(1.0 / SYMBOLS as f64, 1));
    say!(
        nb,
        "Adam (0.9, 0.999), batch {}, {} steps; accuracy per position on {} held-out sequences (chance {chance})",
        s.batch,
        s.steps,
        s.eval,
    );
    say!(nb, "seeds {seeds:?}: weights = seed, batches = seed + 100, held-out = seed + 200");
    let runs = train_all(s, seeds, nb.is_printing());
    // accs[k] is the accuracy after k·EVERY steps; the table shows every TABLE_EVERY
    let per = (TABLE_EVERY / EVERY) as usize;
    let checks: Vec<u32> = (1..=s.steps / TABLE_EVERY).map(|k| k * TABLE_EVERY).collect();
    let head: String = checks.iter().map(|c| format!("{c:>7}")).collect();
    for (j, seed) in seeds.iter().enumerate() {
        say!(nb);
        say!(nb, "seed {seed}:{:<23}{head}", "");
        for (i, c) in CONFIGS.iter().enumerate() {
            let accs = &runs[i * seeds.len() + j].0;
            let shown: Vec<f64> = (1..=checks.len()).map(|k| accs[k * per]).collect();
            let cells: String = shown.iter().map(|a| format!("{:>7}", show::num(*a, 3))).collect();
            say!(nb, "  {:<28}{cells}", c.label());
            for (k, a) in shown.iter().enumerate() {
                // the first seed is the lecture's single run; its values carry no seed tag
                let tag = if j == 0 { String::new() } else { format!("_seed{seed}") };
                nb.value(&format!("{}{tag}_step{}", c.name(), checks[k]), show::num(*a, 3));
            }
        }
    }
    say!(nb);
    say!(nb, "all {} seeds, mean [min, max]:", seeds.len());
    for (i, c) in CONFIGS.iter().enumerate() {
        let own = &runs[i * seeds.len()..(i + 1) * seeds.len()];
        let mut line = format!("  {:<28}", c.label());
        for (k, step) in checks.iter().enumerate() {
            let at: Vec<f64> = own.iter().map(|r| r.0[(k + 1) * per]).collect();
            let mean = at.iter().sum::<f64>() / at.len() as f64;
            let lo = at.iter().copied().fold(1.0, f64::min);
            let hi = at.iter().copied().fold(0.0, f64::max);
            let name = format!("{}_step{step}", c.name());
            nb.value(&format!("{name}_mean"), show::num(mean, 3));
            nb.value(&format!("{name}_min"), show::num(lo, 3));
            nb.value(&format!("{name}_max"), show::num(hi, 3));
            if k == 0 || k + 1 == checks.len() {
                line.push_str(&format!(
                    "  step {step}: {} [{}, {}]",
                    show::num(mean, 3),
                    show::num(lo, 3),
                    show::num(hi, 3)
                ));
            }
        }
        say!(nb, "{line}");
    }
    // the seeds are paired (same weights seed, same batches): Pre − Post at
    // 1e−3, step 100, seed by seed
    let at = |i: usize, j: usize| runs[i * seeds.len() + j].0[per];
    let gaps: Vec<f64> = (0..seeds.len()).map(|j| at(1, j) - at(0, j)).collect();
    let lo = nb.value(
        "pre_minus_post_lr0_001_step100_min",
        show::num(gaps.iter().copied().fold(1.0, f64::min), 3),
    );
    let hi = nb.value(
        "pre_minus_post_lr0_001_step100_max",
        show::num(gaps.iter().copied().fold(-1.0, f64::max), 3),
    );
    say!(nb, "lr 0.001, step 100, Pre-LN − Post-LN seed by seed: from {lo} to {hi}");
    let ms = runs.iter().map(|r| r.1).sum::<f64>() / runs.len() as f64;
    let per_step = nb.timing(std::time::Duration::from_secs_f64(ms / 1e3));
    say!(nb, "mean time per training step (each run on one thread): {per_step}");
    let curve = |accs: &[f64]| -> Vec<(f64, f64)> {
        accs.iter().enumerate().map(|(k, &a)| (f64::from(k as u32 * EVERY), a)).collect()
    };
    let chance = vec![(0.0, 1.0 / SYMBOLS as f64), (f64::from(s.steps), 1.0 / SYMBOLS as f64)];
    // seed 0 of every configuration
    let colours = ["#1f77b4", "#ff7f0e", "#d62728", "#2ca02c", "#9467bd"];
    let labels: Vec<String> = CONFIGS.iter().map(|c| c.label()).collect();
    let mut series: Vec<Series> = CONFIGS
        .iter()
        .enumerate()
        .map(|(i, _)| Series {
            label: &labels[i],
            colour: colours[i],
            points: curve(&runs[i * seeds.len()].0),
        })
        .collect();
    series.push(Series { label: "chance", colour: "#999999", points: chance.clone() });
    let plot =
        LinePlot { series: &series, x_label: "training step", y_label: "accuracy per position" };
    nb.figure("post_vs_pre_accuracy", plot.to_svg());
    // every seed of Post-LN at 1e-2 with warmup: the configuration whose seeds disagree
    let warm = CONFIGS.len() - 1;
    let seed_labels: Vec<String> =
        seeds.iter().map(|sd| format!("{}, seed {sd}", CONFIGS[warm].label())).collect();
    let mut series: Vec<Series> = seeds
        .iter()
        .enumerate()
        .map(|(j, _)| Series {
            label: &seed_labels[j],
            colour: ["#9467bd", "#e377c2", "#8c564b", "#17becf", "#bcbd22"][j % 5],
            points: curve(&runs[warm * seeds.len() + j].0),
        })
        .collect();
    series.push(Series { label: "chance", colour: "#999999", points: chance });
    let plot =
        LinePlot { series: &series, x_label: "training step", y_label: "accuracy per position" };
    nb.figure("post_warmup_seeds", plot.to_svg());
}
