//! Lecture 6 §8.2–§8.3 (script 06 parts 2–3) — FLOPs per token: the
//! lecture's formula against the products a forward pass really runs on
//! the autograd tape, and where attention's n² overtakes the rest.

use autograd::flops::observe;
use autograd::{Kernels, Params, Tape};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use record::svg::{LinePlot, Series};
use record::{Notebook, say, show};

use crate::params::{Gpt, Shape};
use crate::trace::Trace;

/// FLOPs of one forward pass over a sequence, by part.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flops {
    pub qkv: u64,
    pub attention: u64,
    pub w_o: u64,
    pub ffn: u64,
    pub output: u64,
}

impl Flops {
    pub fn total(&self) -> u64 {
        self.qkv + self.attention + self.w_o + self.ffn + self.output
    }

    // ANCHOR: flops_formula
    /// Only the products count, 2 FLOPs per multiply-add. Per layer, for n
    /// positions: Q, K, V are 3·2·n·d², W^O 2·n·d², the feed-forward
    /// 2·2·n·d·d_ff (= 16·n·d² at d_ff = 4d: 24·n·d² in all), QKᵀ and the
    /// weights times V 2·2·n²·d; then the output layer 2·n·d·V.
    pub fn formula(s: Shape, n: usize) -> Flops {
        let (n, d, f, v, l) =
            (n as u64, s.d as u64, s.d_ff as u64, s.vocab as u64, s.layers as u64);
        Flops {
            qkv: l * 6 * n * d * d,
            attention: l * 4 * n * n * d,
            w_o: l * 2 * n * d * d,
            ffn: l * 4 * n * d * f,
            output: 2 * n * d * v,
        }
    }
    // ANCHOR_END: flops_formula

    // ANCHOR: flops_counted
    /// The FLOPs a plain-kernel forward pass ran, by part, read off its
    /// trace: in each layer the first three `linear` ops are Q, K and V, the
    /// fourth is W^O, the fifth and sixth the feed-forward; `bmm` is
    /// attention's two batched products; `matmul_t` the tied output layer.
    pub fn counted(trace: &Trace) -> Flops {
        let mut parts = Flops::default();
        let mut linear = 0;
        for op in trace.ops.iter().filter(|op| op.products > 0) {
            let part = match op.name.as_str() {
                "linear" => {
                    linear += 1;
                    match (linear - 1) % 6 {
                        0..=2 => &mut parts.qkv,
                        3 => &mut parts.w_o,
                        _ => &mut parts.ffn,
                    }
                }
                "bmm" => &mut parts.attention,
                "matmul_t" => &mut parts.output,
                other => panic!("op {other} ran a product no part accounts for"),
            };
            *part += op.flops;
        }
        parts
    }
    // ANCHOR_END: flops_counted
}

// ANCHOR: forward_trace
/// One forward pass of `model` over `ids` on a tape with `kernels`,
/// watched by a [`Trace`].
pub fn forward_trace(params: &Params<f32>, model: &Gpt, ids: &[usize], kernels: Kernels) -> Trace {
    let tape = Tape::with_kernels(params, kernels);
    observe(Trace::default(), || {
        model.forward(&tape, ids);
    })
    .1
}
// ANCHOR_END: forward_trace

/// A small model of the same kind, for counting at many lengths.
pub const SMALL: Shape = Shape { vocab: 97, context: 256, d: 64, heads: 4, d_ff: 256, layers: 2 };

pub fn flops_counted(seed: u64, nb: &mut Notebook) {
    nb.demo(
        "flops_counted",
        "L6 06.2 · The formula against the products the tape runs (V 97, d 64, d_ff 256, 2 layers)",
    );
    let mut params = Params::<f32>::new();
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let model = Gpt::new(&mut params, SMALL, &mut rng);
    say!(
        nb,
        "{:>5} {:>12} {:>12} {:>12} {:>8}",
        "S",
        "formula",
        "plain tape",
        "fused tape",
        "equal"
    );
    let mut all = true;
    for n in [1, 7, 32, 100, 256] {
        let ids: Vec<usize> = (0..n).map(|_| rng.random_range(0..SMALL.vocab)).collect();
        let plain = forward_trace(&params, &model, &ids, Kernels::Plain);
        let fused = forward_trace(&params, &model, &ids, Kernels::Fused);
        let formula = Flops::formula(SMALL, n);
        let equal = Flops::counted(&plain) == formula && fused.flops() == formula.total();
        all &= equal;
        say!(
            nb,
            "{n:>5} {:>12} {:>12} {:>12} {:>8}",
            show::grouped(formula.total() as usize),
            show::grouped(plain.flops() as usize),
            show::grouped(fused.flops() as usize),
            if equal { "yes, by part" } else { "NO" }
        );
    }
    nb.value("small_flops_equal", all.to_string());
}

pub fn gpt2_flops(
    params: &Params<f32>,
    model: &Gpt,
    shape: Shape,
    tokens: usize,
    seed: u64,
    nb: &mut Notebook,
) {
    nb.demo("gpt2_flops", "L6 06.2 · FLOPs per token of GPT-2 small");
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let ids: Vec<usize> = (0..tokens).map(|_| rng.random_range(0..shape.vocab)).collect();
    let counted = Flops::counted(&forward_trace(params, model, &ids, Kernels::Plain));
    let equal = counted == Flops::formula(shape, tokens);
    say!(
        nb,
        "a forward pass over S = {tokens} on the {}-layer model: {} FLOPs counted, equal to the formula part by part: {equal}",
        shape.layers,
        show::grouped(counted.total() as usize)
    );
    nb.value("gpt2_counted_equal", equal.to_string());
    // the formula at GPT-2 small's full context, per token
    let n = 1024;
    let f = Flops::formula(crate::params::GPT2_SMALL, n);
    let per_token = |x: u64| x as f64 / n as f64 / 1e6;
    let total = nb.value("gpt2_mflops", show::num(per_token(f.total()), 1));
    say!(nb, "GPT-2 small at n = {n}: {total} MFLOPs per token");
    for (label, key, x) in [
        ("feed-forward", "ffn", f.ffn),
        ("output layer", "output", f.output),
        ("Q, K, V projections", "qkv", f.qkv),
        ("attention (QKᵀ, ·V)", "attention", f.attention),
        ("W^O", "wo", f.w_o),
    ] {
        let share = nb
            .value(&format!("gpt2_share_{key}"), show::num(100.0 * x as f64 / f.total() as f64, 1));
        say!(nb, "  {label:<22} {:>7} MFLOPs  {share:>5}%", show::num(per_token(x), 1));
    }
    let n_params = crate::params::Parts::formula(crate::params::GPT2_SMALL).total();
    // parameters that take part in no product: the position table, the
    // layer norms and every bias
    let g = crate::params::GPT2_SMALL;
    let idle = g.context * g.d + (4 * g.layers + 2) * g.d + g.layers * (4 * g.d + g.d_ff + g.d);
    nb.value("gpt2_idle_params", show::grouped(idle));
    nb.value("gpt2_idle_mflops", show::num(2.0 * idle as f64 / 1e6, 1));
    let two_n = nb.value("gpt2_two_n", show::num(2.0 * n_params as f64 / 1e6, 1));
    say!(nb, "2N = 2 × {} = {two_n} MFLOPs", show::grouped(n_params));
}

// ANCHOR: attention_share
/// Attention's share of a layer's FLOPs per token at context n:
/// 4nd / (24d² + 4nd) = 4n / (24d + 4n), one half at n = 6d.
pub fn attention_share(d: f64, n: f64) -> f64 {
    4.0 * n / (24.0 * d + 4.0 * n)
}
// ANCHOR_END: attention_share

pub fn crossover(nb: &mut Notebook) {
    nb.demo(
        "crossover",
        "L6 06.3 · Where attention's n² overtakes the projections and the feed-forward",
    );
    for (name, key, d) in [("GPT-2 small", "gpt2", 768.0), ("LLaMA-7B", "llama", 4096.0)] {
        let n = nb.value(&format!("crossover_{key}"), show::grouped(6 * d as usize));
        say!(nb, "{name:<12} d = {d:>4}: 24d² = 4nd at n = 6d = {n}");
    }
    say!(nb, "LLaMA-7B, attention's share of a layer's FLOPs:");
    for n in [2048.0, 32_768.0, 131_072.0] {
        let share =
            nb.value(&format!("llama_share_{n}"), show::num(100.0 * attention_share(4096.0, n), 1));
        say!(nb, "  n = {:>7}: {share:>4}%", show::grouped(n as usize));
    }
    let curve =
        |d: f64| (8..=17).map(|e| (e as f64, 100.0 * attention_share(d, 2f64.powi(e)))).collect();
    let series = [
        Series { label: "GPT-2 small, d = 768", colour: "#1f77b4", points: curve(768.0) },
        Series { label: "LLaMA-7B, d = 4096", colour: "#d62728", points: curve(4096.0) },
    ];
    let plot = LinePlot {
        series: &series,
        x_label: "log₂ n (context length)",
        y_label: "attention's share of a layer's FLOPs, %",
    };
    nb.figure("attention_share", plot.to_svg());
}
