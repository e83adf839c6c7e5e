//! Lecture 17 §9.2 read as a race: the loss and the accuracy of every
//! model against the training step, and the step at which each seed
//! first reaches a level.

use record::svg::{LinePlot, LogPlot, Series};
use record::{Notebook, say, show};

use crate::experiment::{Run, Setup, runs_of};
use crate::models::Kind;

/// The loss a run must fall below (nats per token, mean of the last
/// `WINDOW` steps) …
pub const LOSS_LEVEL: f64 = 0.05;
/// … and the teacher-forced accuracy on its batches it must reach.
pub const ACC_LEVEL: f64 = 0.99;
pub const WINDOW: usize = 20;
/// Steps per point of the figures.
const BLOCK: usize = 10;

// ANCHOR: curves
/// The mean over `runs` of a per-step series up to step `steps`, in
/// blocks of `block` steps: one point (last step of the block, its mean)
/// per block.
pub fn mean_curve(
    runs: &[&Run],
    pick: fn(&Run) -> &[f64],
    block: usize,
    steps: usize,
) -> Vec<(f64, f64)> {
    let steps = runs.iter().map(|r| pick(r).len()).fold(steps, usize::min);
    (block..=steps)
        .step_by(block)
        .map(|end| {
            let block_mean =
                |r: &&Run| pick(r)[end - block..end].iter().sum::<f64>() / block as f64;
            (end as f64, runs.iter().map(block_mean).sum::<f64>() / runs.len() as f64)
        })
        .collect()
}

/// The first step at which the mean of the last `window` values passes
/// (`passed`), if any.
pub fn first_step(xs: &[f64], window: usize, passed: impl Fn(f64) -> bool) -> Option<u32> {
    (window..=xs.len())
        .find(|&end| passed(xs[end - window..end].iter().sum::<f64>() / window as f64))
        .map(|end| end as u32)
}

/// The step by which half the seeds had got there (the ⌈n/2⌉-th
/// smallest; `None` if fewer than half ever did).
pub fn half_reached(steps: &[Option<u32>]) -> Option<u32> {
    let mut reached: Vec<u32> = steps.iter().flatten().copied().collect();
    reached.sort_unstable();
    reached.get(steps.len().div_ceil(2) - 1).copied()
}
// ANCHOR_END: curves

/// A loss with two significant digits: 2.1, 0.25, 0.0058.
fn two_digits(x: f64) -> String {
    let decimals = if x > 0.0 { (1.0 - libm::floor(libm::log10(x))).max(0.0) as usize } else { 2 };
    show::num(x, decimals)
}

/// The steps at which every seed's loss is read: the end of warmup and
/// the experiment's test.
fn checkpoints(setup: &Setup, len: usize) -> [(&'static str, usize); 2] {
    [("warmup", setup.recipe(len).warmup as usize), ("test", setup.steps as usize)]
}

/// Each run's mean loss over the `BLOCK` steps up to `step`, or `None` if
/// some run has not got that far.
fn block_losses(runs: &[&Run], step: usize) -> Option<Vec<f64>> {
    if step < BLOCK || runs.iter().any(|r| r.losses.len() < step) {
        return None;
    }
    Some(
        runs.iter()
            .map(|r| r.losses[step - BLOCK..step].iter().sum::<f64>() / BLOCK as f64)
            .collect(),
    )
}

fn losses(r: &Run) -> &[f64] {
    &r.losses
}

fn accuracies(r: &Run) -> &[f64] {
    &r.batch_accuracy
}

pub fn curves(setup: &Setup, runs: &[Run], nb: &mut Notebook) {
    nb.demo("curves", "L17 05.1 · Loss and accuracy against the training step");
    let level = nb.value("loss_level", show::num(LOSS_LEVEL, 2));
    let acc = nb.value("acc_level", show::num(ACC_LEVEL, 2));
    nb.value("window", WINDOW.to_string());
    nb.value("warmup", setup.recipe(setup.lengths[0]).warmup.to_string());
    say!(nb, "the first step at which the mean of the last {WINDOW} steps' training loss is below");
    say!(
        nb,
        "{level}, and at which their teacher-forced accuracy on the training batches reaches {acc}"
    );
    say!(nb, "(each batch is new, and is scored before the update on it); per seed, — for never;");
    say!(nb, "\"half\" is the step by which half the seeds had got there");
    for &len in &setup.lengths {
        // the experiment's steps (some runs train on for exercise 8)
        let steps = setup.steps as usize;
        say!(nb, "L = {len}, steps 1–{steps}:");
        let mut loss_series = Vec::new();
        let mut acc_series = Vec::new();
        for &kind in &setup.models {
            let own = runs_of(runs, kind, len);
            for (what, name, pick, passed) in [
                ("loss", "reach_loss", losses as fn(&Run) -> &[f64], true),
                ("accuracy", "reach_acc", accuracies, false),
            ] {
                let at: Vec<Option<u32>> = own
                    .iter()
                    .map(|r| {
                        if passed {
                            first_step(&pick(r)[..steps], WINDOW, |x| x < LOSS_LEVEL)
                        } else {
                            first_step(&pick(r)[..steps], WINDOW, |x| x >= ACC_LEVEL)
                        }
                    })
                    .collect();
                let name = format!("{name}_{}_l{len}", kind.tag());
                let shown: Vec<String> = own
                    .iter()
                    .zip(&at)
                    .map(|(r, s)| {
                        let s = s.map_or("—".to_string(), |s| s.to_string());
                        nb.value(&format!("{name}_seed{}", r.seed), s)
                    })
                    .collect();
                let half = half_reached(&at).map_or("—".to_string(), |s| s.to_string());
                let half = nb.value(&format!("{name}_half"), half);
                let reached: Vec<u32> = at.iter().flatten().copied().collect();
                if let (Some(lo), Some(hi)) = (reached.iter().min(), reached.iter().max()) {
                    nb.value(&format!("{name}_min"), lo.to_string());
                    nb.value(&format!("{name}_max"), hi.to_string());
                }
                let count = reached.len();
                let count = nb.value(&format!("{name}_n"), count.to_string());
                say!(
                    nb,
                    "  {:<16} {what:<8} half {half:>5}, {count}/{} seeds: {}",
                    kind.label(),
                    own.len(),
                    shown.join(" ")
                );
            }
            let loss_curve = mean_curve(&own, losses, BLOCK, steps);
            // every seed's loss (its mean over the BLOCK steps up to the
            // step) at the end of warmup and at the experiment's test
            let mut at_steps = Vec::new();
            for (when, step) in checkpoints(setup, len) {
                let Some(per_seed) = block_losses(&own, step) else { continue };
                let name = format!("loss_{when}_{}_l{len}", kind.tag());
                let lo = per_seed.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = per_seed.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let lo = nb.value(&format!("{name}_min"), two_digits(lo));
                let hi = nb.value(&format!("{name}_max"), two_digits(hi));
                at_steps.push(format!("{lo}–{hi} at step {step}"));
            }
            say!(nb, "  {:<16} seeds' loss {}", "", at_steps.join(", "));
            loss_series.push(Series {
                label: kind.label(),
                colour: kind.colour(),
                points: loss_curve,
            });
            acc_series.push(Series {
                label: kind.label(),
                colour: kind.colour(),
                points: mean_curve(&own, accuracies, BLOCK, steps),
            });
        }
        // the same seed sees the same batches in every model, so the two
        // attention models can be compared seed by seed
        let pair = [Kind::GruAttention, Kind::Transformer];
        let seeds = |k| runs_of(runs, k, len).iter().map(|r| r.seed).collect::<Vec<_>>();
        if pair.iter().all(|k| setup.models.contains(k)) && seeds(pair[0]) == seeds(pair[1]) {
            for (when, step) in checkpoints(setup, len) {
                let [Some(gru_att), Some(transformer)] =
                    pair.map(|k| block_losses(&runs_of(runs, k, len), step))
                else {
                    continue;
                };
                let lower = gru_att.iter().zip(&transformer).filter(|(g, t)| g < t).count();
                let lower = nb.value(&format!("gru_att_lower_{when}_l{len}"), lower.to_string());
                say!(
                    nb,
                    "  at step {step} the GRU with attention's loss is the lower on {lower} of {} seeds",
                    gru_att.len()
                );
            }
        }
        let plot = LogPlot {
            series: &loss_series,
            x_label: "training step",
            y_label: "training loss (nats per token)",
        };
        nb.figure(&format!("loss_l{len}"), plot.to_svg());
        let plot = LinePlot {
            series: &acc_series,
            x_label: "training step",
            y_label: "teacher-forced accuracy",
        };
        nb.figure(&format!("accuracy_l{len}"), plot.to_svg());
    }
}
