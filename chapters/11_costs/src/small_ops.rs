//! Lecture 6 §8.4 (script 03 part 5) — how many small ops: one Pre-LN
//! layer's forward pass op by op on the plain ops, then on the fused
//! kernels, both timed: the measured case for kernel fusion.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use autograd::flops::observe;
use autograd::nn::{EncoderLayer, Norm, causal_mask};
use autograd::{Kernels, Params, Tape};
use faer::Mat;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

use crate::trace::Trace;

const D: usize = 64;
const HEADS: usize = 4;
const S: usize = 64;

// ANCHOR: layer_ops
/// The ops one Pre-LN layer's forward pass records on a tape with `kernels`.
pub fn layer_ops(
    layer: &EncoderLayer,
    params: &Params<f32>,
    x: &Mat<f32>,
    kernels: Kernels,
) -> Trace {
    let tape = Tape::with_kernels(params, kernels);
    let keep = causal_mask::<f32>(1, x.nrows());
    observe(Trace::default(), || {
        layer.forward(tape.input(x.clone()), 1, Some(&keep));
    })
    .1
}

/// The time of one training step of the layer (forward, and backward of
/// `sum(output)`).
pub fn step_time(
    layer: &EncoderLayer,
    params: &Params<f32>,
    x: &Mat<f32>,
    kernels: Kernels,
) -> Duration {
    let tape = Tape::with_kernels(params, kernels);
    let keep = causal_mask::<f32>(1, x.nrows());
    let started = Instant::now();
    let out = layer.forward(tape.input(x.clone()), 1, Some(&keep)).0;
    tape.backward(out.sum());
    started.elapsed()
}
// ANCHOR_END: layer_ops

/// A Pre-LN layer (d_ff = 4d) in f32 from `seed`, and the generator after
/// it, for the inputs.
pub fn pre_ln_layer(d: usize, heads: usize, seed: u64) -> (Params<f32>, EncoderLayer, Pcg64Mcg) {
    let mut params = Params::<f32>::new();
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let layer = EncoderLayer::new(&mut params, "layer", d, heads, 4 * d, Norm::Pre, &mut rng);
    (params, layer, rng)
}

pub fn small_ops(repeats: usize, seed: u64, nb: &mut Notebook) {
    nb.demo(
        "small_ops",
        "L6 03.5 · The ops of one Pre-LN layer's forward pass (d 64, h 4, S 64, causal)",
    );
    let (params, layer, mut rng) = pre_ln_layer(D, HEADS, seed);
    let x = Mat::from_fn(S, D, |_, _| rng.random_range(-1.0f32..1.0)); // (S, d)
    let plain = layer_ops(&layer, &params, &x, Kernels::Plain);
    let fused = layer_ops(&layer, &params, &x, Kernels::Fused);
    say!(nb, "plain ops, in the order the tape records them:");
    for (i, op) in plain.ops.iter().enumerate() {
        let products = if op.products > 0 {
            format!(
                "{:>3} product{}, {} FLOPs",
                op.products,
                if op.products == 1 { "" } else { "s" },
                show::grouped(op.flops as usize)
            )
        } else {
            String::new()
        };
        say!(nb, "  {:>2} {:<14} {products}", i + 1, op.name);
    }
    let mut medians = BTreeMap::new();
    for (tag, kernels, trace) in
        [("plain", Kernels::Plain, &plain), ("fused", Kernels::Fused, &fused)]
    {
        let ops = nb.value(&format!("ops_{tag}"), trace.ops.len().to_string());
        let with = nb.value(
            &format!("ops_{tag}_products"),
            trace.ops.iter().filter(|o| o.products > 0).count().to_string(),
        );
        let products = nb.value(
            &format!("products_{tag}"),
            trace.ops.iter().map(|o| o.products).sum::<usize>().to_string(),
        );
        let mut times: Vec<Duration> =
            (0..=repeats).map(|_| step_time(&layer, &params, &x, kernels)).skip(1).collect();
        times.sort();
        let t = times[times.len() / 2];
        medians.insert(tag, t);
        say!(
            nb,
            "{tag}: {ops} ops, {with} of them run products ({products} products: a batched one runs one per head); a training step {}",
            nb.timing(t)
        );
    }
    let ratio = medians["plain"].as_secs_f64() / medians["fused"].as_secs_f64();
    say!(
        nb,
        "the fused step is {}× as fast (median of {repeats})",
        nb.measured(show::num(ratio, 2))
    );
}
