//! Lecture 6 demo 04.4 — a 6-layer decoder-only model on the city language,
//! Post-LN and Pre-LN × a small and a large learning rate × with and
//! without warmup: test cross-entropy above the exact floor.

use autograd::Smoothing;
use autograd::nn::Norm;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use record::svg::{LogPlot, Series};
use record::{Notebook, say, show};

use crate::language;
use crate::lm::{self, Recipe, TestSet};

/// The grid, in the order the table prints it.
pub fn grid(steps: u32, batch: usize, warmup: u32) -> Vec<Recipe> {
    let mut out = Vec::new();
    for lr in [1e-3, 1e-2] {
        for norm in [Norm::Post, Norm::Pre] {
            for w in [0, warmup] {
                out.push(Recipe { norm, lr, warmup: w, steps, batch, smoothing: Smoothing::None });
            }
        }
    }
    out
}

pub fn name(r: &Recipe) -> String {
    let norm = if r.norm == Norm::Post { "post" } else { "pre" };
    let warm = if r.warmup > 0 { "_warmup" } else { "" };
    format!("{norm}_lr{}{warm}", show::short(r.lr).replace('.', "_").replace('-', "m"))
}

pub fn label(r: &Recipe) -> String {
    let norm = if r.norm == Norm::Post { "Post-LN" } else { "Pre-LN" };
    let warm = if r.warmup > 0 { format!(", warmup {}", r.warmup) } else { String::new() };
    format!("{norm}, lr {}{warm}", show::short(r.lr))
}

// ANCHOR: plateau
/// The excess of a model that is exact everywhere except at the two tokens
/// that need a look far back, where it does not look: the home city, named
/// again at the end, drawn afresh from the 40 − legs cities not visited,
/// and the pronoun a coin flip. In mnats per token: (home, pronoun).
pub fn plateau() -> (f64, f64) {
    let (_, tokens) = language::entropy_rate();
    let (go, mut home, mut reach) = (language::GO_ON, 0.0, 1.0);
    for legs in 1..=language::MAX_LEGS {
        let stop = if legs == language::MAX_LEGS { 1.0 } else { 1.0 - go };
        home += reach * stop * libm::log((language::CITY_COUNT - legs) as f64);
        reach *= go;
    }
    (1e3 * home / tokens, 1e3 * libm::log(2.0) / tokens)
}
// ANCHOR_END: plateau

/// What the demo keeps of one run.
pub struct Outcome {
    pub excess: Vec<f64>,
    /// The final excess split: home city again, pronoun, every other token.
    pub reach: [f64; 3],
    /// The share of test positions whose most likely token is right.
    pub top1: f64,
}

// ANCHOR: run_grid
/// Every recipe under every seed, two runs at a time; each seed has its
/// own test set (`seed + 200`), shared by all its recipes.
pub fn run_grid(
    recipes: &[Recipe],
    seeds: &[u64],
    test_n: usize,
    every: u32,
    printing: bool,
) -> Vec<Outcome> {
    let tests: Vec<TestSet> = seeds.iter().map(|&s| TestSet::new(test_n, s + 200)).collect();
    let runs: Vec<(usize, usize)> =
        (0..recipes.len()).flat_map(|r| (0..seeds.len()).map(move |s| (r, s))).collect();
    let bar = printing.then(|| {
        let bar = ProgressBar::new(runs.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} runs, {eta} left").unwrap(),
        );
        bar
    });
    let out = runs
        .par_iter()
        .map(|&(r, s)| {
            let run = lm::train_run(recipes[r], seeds[s], &tests[s], every, false);
            bar.as_ref().inspect(|b| b.inc(1));
            let reach = tests[s].excess_by_reach(&run.model, &run.params);
            let top1 = tests[s].top1(&run.model, &run.params);
            Outcome { excess: run.excess, reach, top1 }
        })
        .collect();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    out
}
// ANCHOR_END: run_grid

/// The demo; returns the recipes and every run's outcome, in the order
/// (recipe, seed).
pub fn warmup_grid(
    steps: u32,
    warmup: u32,
    batch: usize,
    seeds: &[u64],
    test_n: usize,
    nb: &mut Notebook,
) -> (Vec<Recipe>, Vec<Outcome>) {
    nb.demo("grid", "L6 04.4 · Post-LN and Pre-LN, two learning rates, with and without warmup");
    let recipes = grid(steps, batch, warmup);
    let every = 25;
    let out = run_grid(&recipes, seeds, test_n, every, nb.is_printing());
    say!(
        nb,
        "6 layers, d_model 32, 4 heads, d_ff 128; Adam (0.9, 0.98, 1e-9), batch {batch}, {steps} steps"
    );
    say!(
        nb,
        "warmup: linear over the first {warmup} steps; seeds {seeds:?}; {test_n} test sentences per seed"
    );
    say!(nb, "test cross-entropy above the exact floor, mnats/token, after {steps} steps:");
    say!(
        nb,
        "{:<28} {}   {:>8} {:>8}",
        "",
        seeds.iter().map(|s| format!("seed {s:<3}")).collect::<Vec<_>>().join(" "),
        "min",
        "max"
    );
    let k = seeds.len();
    nb.value("seeds_n", k.to_string());
    nb.value("width", lm::WIDTH.to_string());
    let (home, pronoun) = plateau();
    let plateau_all = home + pronoun;
    for (i, r) in recipes.iter().enumerate() {
        let finals: Vec<f64> = (0..k).map(|s| *out[i * k + s].excess.last().unwrap()).collect();
        // seeds that got below half the plateau: they learned the copy
        let crossed = finals.iter().filter(|&&x| x < plateau_all / 2.0).count();
        nb.value(&format!("{}_crossed", name(r)), crossed.to_string());
        // the largest rise of the test excess from one read to the next: over
        // all seeds, and how many seeds rise by more than 100 mnats at least once
        let rise =
            |s: usize| out[i * k + s].excess.windows(2).map(|w| w[1] - w[0]).fold(0.0, f64::max);
        let jump = (0..k).map(rise).fold(0.0, f64::max);
        nb.value(&format!("{}_jump", name(r)), show::num(jump, 0));
        let jumpy = (0..k).filter(|&s| rise(s) > 100.0).count();
        nb.value(&format!("{}_jumpy", name(r)), jumpy.to_string());
        let cells: Vec<String> = finals
            .iter()
            .enumerate()
            .map(|(s, &x)| nb.value(&format!("{}_seed{s}", name(r)), show::num(x, 0)))
            .collect();
        let lo = finals.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = finals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let lo = nb.value(&format!("{}_min", name(r)), show::num(lo, 0));
        let hi = nb.value(&format!("{}_max", name(r)), show::num(hi, 0));
        say!(
            nb,
            "{:<28} {}   {lo:>8} {hi:>8}",
            label(r),
            cells.iter().map(|c| format!("{c:>8}")).collect::<Vec<_>>().join(" ")
        );
    }
    let home_s = nb.value("plateau_home", show::num(home, 0));
    let pronoun_s = nb.value("plateau_pronoun", show::num(pronoun, 0));
    let all = nb.value("plateau", show::num(home + pronoun, 0));
    say!(
        nb,
        "exact but for the home city (drawn afresh) and the pronoun (guessed): {all} = {home_s} + {pronoun_s}"
    );
    say!(
        nb,
        "the final excess split, mean over seeds: home city again / pronoun / every other token"
    );
    for (i, r) in recipes.iter().enumerate() {
        let mean = |j: usize| (0..k).map(|s| out[i * k + s].reach[j]).sum::<f64>() / k as f64;
        let cells: Vec<String> = ["home", "pronoun", "rest"]
            .iter()
            .enumerate()
            .map(|(j, part)| {
                format!("{:>8}", nb.value(&format!("{}_{part}", name(r)), show::num(mean(j), 0)))
            })
            .collect();
        say!(nb, "{:<28} {}", label(r), cells.join(""));
    }
    // the first hundred steps: test excess every 25 steps, seed 0
    let reads: Vec<String> = (0..5).map(|j| (j * every).to_string()).collect();
    say!(nb, "seed 0, test excess at steps {}:", reads.join(", "));
    for (i, r) in recipes.iter().enumerate() {
        let e = &out[i * k].excess;
        let cells: Vec<String> =
            e.iter().take(5).map(|&x| format!("{:>7}", show::num(x, 0))).collect();
        say!(nb, "{:<28} {}", label(r), cells.join(""));
        if let Some(&x) = e.get(1) {
            nb.value(&format!("{}_step25", name(r)), show::num(x, 0));
        }
    }
    nb.value("start_excess", show::num(out[0].excess[0], 0));
    // the small rate, all its runs together
    let small: Vec<usize> = (0..recipes.len()).filter(|&i| recipes[i].lr < 5e-3).collect();
    let runs = || small.iter().flat_map(|&i| &out[i * k..(i + 1) * k]);
    let range = |f: &dyn Fn(&Outcome) -> f64| {
        let v: Vec<f64> = runs().map(f).collect();
        (
            v.iter().copied().fold(f64::INFINITY, f64::min),
            v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        )
    };
    let (lo, hi) = range(&|o| *o.excess.last().unwrap());
    nb.value("small_min", show::num(lo, 0));
    nb.value("small_max", show::num(hi, 0));
    let (lo, hi) = range(&|o| o.reach[0]);
    nb.value("small_home_min", show::num(lo, 0));
    nb.value("small_home_max", show::num(hi, 0));
    let (_, hi) = range(&|o| o.reach[1]);
    nb.value("small_pronoun_max", show::num(hi, 0));
    let rest: Vec<f64> = (0..recipes.len())
        .map(|i| (0..k).map(|s| out[i * k + s].reach[2]).sum::<f64>() / k as f64)
        .collect();
    nb.value("rest_min", show::num(rest.iter().copied().fold(f64::INFINITY, f64::min), 0));
    nb.value("rest_max", show::num(rest.iter().copied().fold(f64::NEG_INFINITY, f64::max), 0));
    let colours = ["#1f77b4", "#aec7e8", "#d62728", "#ff9896"];
    let large: Vec<usize> = (0..recipes.len()).filter(|&i| recipes[i].lr > 5e-3).collect();
    let labels: Vec<String> = large.iter().map(|&i| label(&recipes[i])).collect();
    let series: Vec<Series> = large
        .iter()
        .zip(&labels)
        .zip(colours)
        .map(|((&i, l), colour)| {
            let e = &out[i * k].excess;
            let points =
                e.iter().enumerate().map(|(j, &x)| ((j as u32 * every) as f64, x)).collect();
            Series { label: l, colour, points }
        })
        .chain(std::iter::once(Series {
            label: "plateau: home city and pronoun guessed",
            colour: "#999999",
            points: vec![(0.0, plateau_all), (f64::from(steps), plateau_all)],
        }))
        .collect();
    let plot = LogPlot {
        series: &series,
        x_label: "step",
        y_label: "test excess over the floor, mnats/token",
    };
    nb.figure("grid_curves", plot.to_svg());
    (recipes, out)
}
