//! Lecture 17 demo 05.4 — what one training step costs as L grows: the
//! FLOPs of its matrix products (counted as they happen, the same on every
//! machine) and its time on this machine (one thread; masked in the
//! pinned output, printed on every run).

use std::time::{Duration, Instant};

use autograd::Smoothing;
use autograd::data::reversal;
use autograd::flops::counting;
use autograd::optim::Adam;
use autograd::train::{Recipe, Translator, step};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::svg::{LogPlot, Series};
use record::{Notebook, say, show};

use crate::models::Kind;

/// Timed steps per point (after one step to warm up); the median is kept.
const TIMED: usize = 5;

// ANCHOR: speed
/// One training step of `kind` at length `len` (forward, backward, Adam;
/// batch 64): the FLOPs of its matrix products, counted as they happen,
/// and, if `timed`, the median time of `TIMED` more steps.
pub fn measure_step(kind: Kind, len: usize, timed: bool) -> (u64, Duration) {
    let recipe = Recipe::reversal(len, 1);
    let (model, mut params) = kind.build(recipe.vocab(), 0);
    let mut adam = Adam::new(&params, 1e-3, 0.9, 0.999, 1e-8);
    let mut data = Pcg64Mcg::seed_from_u64(1);
    let mut one_step = || {
        let b = reversal(&mut data, recipe.batch, len, recipe.symbols);
        step(&mut params, &mut adam, |tape| {
            let logits = model.logits(tape, &b.src, &b.tgt_in, recipe.batch);
            logits.cross_entropy(&b.tgt_out, None, Smoothing::None)
        });
    };
    let (_, count) = counting(&mut one_step); // also warms up
    let mut times: Vec<Duration> = (0..if timed { TIMED } else { 0 })
        .map(|_| {
            let start = Instant::now();
            one_step();
            start.elapsed()
        })
        .collect();
    times.sort();
    (count.flops, times.get(TIMED / 2).copied().unwrap_or_default())
}
// ANCHOR_END: speed

pub fn speed(lengths: &[usize], models: &[Kind], nb: &mut Notebook) {
    nb.demo("speed", "L17 05.4 · One training step: FLOPs and time against L");
    say!(
        nb,
        "forward + backward + Adam, batch 64, f32, one thread; ms/step is the median of {TIMED} steps"
    );
    let head: String = models.iter().map(|k| format!("{:>26}", k.label())).collect();
    say!(nb, "{:>5}{head}", "L");
    say!(nb, "{:>5}{}", "", format!("{:>26}", "GFLOP     ms/step").repeat(models.len()));
    let mut curves: Vec<Vec<(f64, f64)>> = vec![Vec::new(); models.len()];
    for &len in lengths {
        let mut line = format!("{len:>5}");
        for (i, &kind) in models.iter().enumerate() {
            // timing is the only product of the timed steps: skipped when it is masked
            let (flops, ms) = measure_step(kind, len, !nb.hides_timings());
            let gflop = flops as f64 * 1e-9;
            let shown = nb.value(&format!("gflop_{}_l{len}", kind.tag()), show::num(gflop, 3));
            line.push_str(&format!("{shown:>14}{:>12}", nb.timing(ms)));
            curves[i].push((len as f64, gflop));
        }
        say!(nb, "{line}");
    }
    growth(lengths, models, &curves, nb);
    let series: Vec<Series> = models
        .iter()
        .zip(curves)
        .map(|(k, points)| Series { label: k.label(), colour: k.colour(), points })
        .collect();
    let plot = LogPlot {
        series: &series,
        x_label: "sequence length L",
        y_label: "GFLOP per training step",
    };
    nb.figure("flops_per_step", plot.to_svg());
}

/// How much each model's FLOPs grow from one length to the next: a cost
/// linear in L grows by the ratio of the lengths, an L × L term by more.
fn growth(lengths: &[usize], models: &[Kind], curves: &[Vec<(f64, f64)>], nb: &mut Notebook) {
    if lengths.len() < 2 {
        return;
    }
    let steps: Vec<String> = lengths.windows(2).map(|w| format!("{}→{}", w[0], w[1])).collect();
    say!(nb, "GFLOP at one length ÷ at the one before ({}):", steps.join(", "));
    for (kind, points) in models.iter().zip(curves) {
        let ratios: Vec<String> = points
            .windows(2)
            .map(|w| {
                let name = format!("gflop_growth_{}_l{}", kind.tag(), w[1].0);
                nb.value(&name, show::num(w[1].1 / w[0].1, 2))
            })
            .collect();
        say!(nb, "  {:<16} {}", kind.label(), ratios.join(" "));
    }
}
