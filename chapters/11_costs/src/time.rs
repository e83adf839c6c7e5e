//! Lecture 6 §8.3 (script 06 part 5) — time against FLOPs: the share of a
//! layer's forward time spent in the attention core, beside its share of
//! the FLOPs. Times vary from run to run and machine to machine; they are
//! printed, never pinned.

use std::time::Instant;

use autograd::flops::observe;
use autograd::nn::{EncoderLayer, causal_mask};
use autograd::{Kernels, Params, Tape};
use faer::Mat;
use rand::RngExt;
use record::{Notebook, say, show};

use crate::small_ops::{layer_ops, pre_ln_layer};
use crate::trace::Timed;

/// The ops of the plain attention core: the heads split apart, QKᵀ, the
/// scale, the masked softmax, the weights times V, the heads put back.
pub const CORE: [&str; 5] = ["split_heads", "bmm", "scale", "softmax_rows", "combine_heads"];

/// The layer timed: d 256, 4 heads, d_ff 1024, causal, f32.
const D: usize = 256;
const HEADS: usize = 4;

/// One timed forward pass: (seconds in the core's ops, seconds in all).
// ANCHOR: core_time
pub fn core_time(layer: &EncoderLayer, params: &Params<f32>, x: &Mat<f32>) -> (f64, f64, Timed) {
    let tape = Tape::with_kernels(params, Kernels::Plain);
    let keep = causal_mask::<f32>(1, x.nrows());
    let started = Instant::now();
    let ((), timed) = observe(Timed::default(), || {
        layer.forward(tape.input(x.clone()), 1, Some(&keep));
    });
    let all = started.elapsed().as_secs_f64();
    let core = CORE.iter().filter_map(|op| timed.seconds.get(*op)).sum::<f64>();
    (core, all, timed)
}
// ANCHOR_END: core_time

/// The median of some numbers.
pub fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

pub fn time_against_flops(max: usize, repeats: usize, seed: u64, nb: &mut Notebook) {
    nb.demo(
        "time_against_flops",
        "L6 06.5 · The attention core's share of time and of FLOPs (d 256, h 4, causal, plain ops)",
    );
    let (params, layer, mut rng) = pre_ln_layer(D, HEADS, seed);
    say!(
        nb,
        "{:>5} {:>7} {:>7}   the core's time by op: {:>5} {:>7} {:>7} {:>11}   median of {repeats} runs",
        "S",
        "FLOPs",
        "time",
        "bmm",
        "scale",
        "softmax",
        "split/join"
    );
    for s in [128, 512, 2048, 8192].into_iter().filter(|&s| s <= max) {
        let x = Mat::from_fn(s, D, |_, _| rng.random_range(-1.0f32..1.0)); // (S, d)
        // the FLOPs, counted once
        let trace = layer_ops(&layer, &params, &x, Kernels::Plain);
        let core_flops: u64 =
            trace.ops.iter().filter(|o| CORE.contains(&o.name.as_str())).map(|o| o.flops).sum();
        let flop_share = nb.value(
            &format!("flop_share_{s}"),
            show::num(100.0 * core_flops as f64 / trace.flops() as f64, 1),
        );
        let runs: Vec<(f64, f64, Timed)> =
            (0..=repeats).map(|_| core_time(&layer, &params, &x)).skip(1).collect();
        let share = median(runs.iter().map(|r| r.0 / r.1).collect());
        // each op's share of the core's time, median over the runs
        let of_core = |ops: &[&str]| {
            let part = |r: &(f64, f64, Timed)| {
                ops.iter().filter_map(|op| r.2.seconds.get(*op)).sum::<f64>() / r.0
            };
            nb.measured(format!(
                "{}%",
                show::num(100.0 * median(runs.iter().map(part).collect()), 0)
            ))
        };
        let (bmm, scale, softmax) =
            (of_core(&["bmm"]), of_core(&["scale"]), of_core(&["softmax_rows"]));
        let copies = of_core(&["split_heads", "combine_heads"]);
        let time_share = nb.measured(format!("{}%", show::num(100.0 * share, 0)));
        say!(
            nb,
            "{s:>5} {flop_share:>6}% {time_share:>7}   {:>22} {bmm:>5} {scale:>7} {softmax:>7} {copies:>11}",
            ""
        );
    }
}
