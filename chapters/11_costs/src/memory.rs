//! Lecture 6 §8.3 (script 06 part 4) — activation memory, measured: what
//! backward really needs from a Pre-LN layer's forward pass, across
//! sequence lengths, fitted to a·S·d + b·h·S², and what that means for a
//! LLaMA-7B layer.

use autograd::flops::observe;
use autograd::nn::{EncoderLayer, Norm};
use autograd::{Kernels, Params, Tape};
use faer::Mat;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use record::svg::{LogPlot, Series};
use record::{Notebook, say, show};

use crate::trace::Kept;

/// The layer measured: d 64, 4 heads, d_ff 256, f32 (the lecture's).
pub const D: usize = 64;
pub const HEADS: usize = 4;

// ANCHOR: measure_layer
/// One training step of a Pre-LN layer on S positions: the forward pass and
/// the backward of `sum(output)`, watched by [`Kept`].
pub fn measure_layer(s: usize, kernels: Kernels, seed: u64) -> Kept {
    let mut params = Params::<f32>::new();
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let layer = EncoderLayer::new(&mut params, "layer", D, HEADS, 4 * D, Norm::Pre, &mut rng);
    let x = Mat::from_fn(s, D, |_, _| rng.random_range(-1.0f32..1.0)); // (S, d)
    let tape = Tape::with_kernels(&params, kernels);
    observe(Kept::default(), || {
        let out = layer.forward(tape.input(x), 1, None).0; // (S, d)
        tape.backward(out.sum());
    })
    .1
}
// ANCHOR_END: measure_layer

// ANCHOR: fit
/// Least squares for y ≈ a·S·d + b·h·S² + c, each point weighted by 1/y
/// (the error relative to the measurement, so short and long sequences
/// count alike): returns [a, b, c].
pub fn fit(points: &[(usize, usize)], d: usize, h: usize) -> [f64; 3] {
    let mut m = [[0.0f64; 4]; 3]; // the normal equations, augmented
    for &(s, y) in points {
        let y = y as f64;
        let row = [(s * d) as f64 / y, (h * s * s) as f64 / y, 1.0 / y];
        for i in 0..3 {
            for j in 0..3 {
                m[i][j] += row[i] * row[j];
            }
            m[i][3] += row[i]; // row · (y / y)
        }
    }
    solve(m)
}
// ANCHOR_END: fit

/// Gaussian elimination with partial pivoting on a 3×3 system.
fn solve(mut m: [[f64; 4]; 3]) -> [f64; 3] {
    for col in 0..3 {
        let pivot = (col..3).max_by(|&i, &j| m[i][col].abs().total_cmp(&m[j][col].abs())).unwrap();
        m.swap(col, pivot);
        for row in col + 1..3 {
            let f = m[row][col] / m[col][col];
            for k in col..4 {
                m[row][k] -= f * m[col][k];
            }
        }
    }
    let mut x = [0.0; 3];
    for i in (0..3).rev() {
        x[i] = (m[i][3] - (i + 1..3).map(|j| m[i][j] * x[j]).sum::<f64>()) / m[i][i];
    }
    x
}

// ANCHOR: copies
/// How many S×d's worth of activations backward read at length `s`, the
/// h×S×S weights apart: an S×kd matrix is k of them, a head block
/// (h·S, d/h) one.
pub fn copies_of_sd(kept: &Kept, s: usize) -> usize {
    let copies = |&(r, c): &(usize, usize)| match (r, c) {
        (r, c) if r == s && c % D == 0 && c != HEADS * s => c / D,
        (r, c) if r == HEADS * s && c == D / HEADS => 1,
        _ => 0,
    };
    kept.read.values().map(copies).sum()
}
// ANCHOR_END: copies

/// A size in binary units: 64 MiB, 4.0 GiB.
pub fn binary(bytes: f64) -> String {
    if bytes >= 1024f64.powi(3) {
        format!("{} GiB", show::num(bytes / 1024f64.powi(3), 1))
    } else {
        format!("{} MiB", show::num(bytes / 1024f64.powi(2), 0))
    }
}

/// What a read activation is, in the layer's sizes.
fn shape_name((r, c): (usize, usize), s: usize) -> String {
    let of_d = |c: usize| match c / D {
        1 => "d".to_string(),
        k => format!("{k}d"),
    };
    match (r, c) {
        (r, c) if r == HEADS * s && c == s => "h·S×S, the weights".to_string(),
        (r, c) if r == s && c == HEADS * s => "S×h·S, the weights".to_string(),
        (r, c) if r == HEADS * s && c == D / HEADS => "h·S×d/h, one head a block".to_string(),
        (r, c) if r == s && c % D == 0 => format!("S×{}", of_d(c)),
        (r, c) if r == D => format!("d×{}, weights side by side", of_d(c)),
        (r, c) => format!("{r}×{c}"),
    }
}

pub fn activation_memory(max: usize, seed: u64, nb: &mut Notebook) {
    nb.demo(
        "activation_memory",
        "L6 06.4 · What backward keeps of a Pre-LN layer (d 64, h 4, f32)",
    );
    // from S = 32: at S = 16 an S×d and an h·S×S matrix hold as many numbers
    let lengths: Vec<usize> = (5..=12).map(|e| 1usize << e).filter(|&s| s <= max).collect();
    say!(nb, "{:>5} {:>12} {:>12}   bytes kept for backward", "S", "plain ops", "fused");
    let (mut plain, mut fused) = (Vec::new(), Vec::new());
    let mut last = None;
    for &s in &lengths {
        let (p, f) =
            (measure_layer(s, Kernels::Plain, seed), measure_layer(s, Kernels::Fused, seed));
        say!(
            nb,
            "{s:>5} {:>12} {:>12}",
            show::grouped(4 * p.numbers()),
            show::grouped(4 * f.numbers())
        );
        nb.value(&format!("kept_plain_{s}"), show::grouped(4 * p.numbers()));
        nb.value(&format!("kept_fused_{s}"), show::grouped(4 * f.numbers()));
        plain.push((s, p.numbers()));
        fused.push((s, f.numbers()));
        last = Some((s, p, f));
    }
    let (s, p, f) = last.expect("at least one length");
    say!(nb, "what backward read at S = {s}, by shape:");
    say!(nb, "  {:<26} {:>6} {:>6}", "", "plain", "fused");
    let (ps, fs) = (p.by_shape(), f.by_shape());
    let mut shapes: Vec<(usize, usize)> = ps.keys().chain(fs.keys()).copied().collect();
    shapes.sort();
    shapes.dedup();
    for shape in shapes {
        let count = |m: &std::collections::BTreeMap<(usize, usize), usize>| {
            m.get(&shape).copied().unwrap_or(0)
        };
        say!(nb, "  {:<26} {:>6} {:>6}", shape_name(shape, s), count(&ps), count(&fs));
    }
    say!(nb, "  {:<26} {:>6} {:>6}", "saved numbers (layer norms)", p.saved, f.saved);
    nb.value("copies_sd_plain", copies_of_sd(&p, s).to_string());
    nb.value("copies_sd_fused", copies_of_sd(&f, s).to_string());
    nb.value("saved_per_s", show::short(p.saved as f64 / s as f64));
    for (tag, points) in [("plain", &plain), ("fused", &fused)] {
        let [a, b, c] = fit(points, D, HEADS);
        let worst = points
            .iter()
            .map(|&(s, y)| {
                ((a * (s * D) as f64 + b * (HEADS * s * s) as f64 + c) / y as f64 - 1.0).abs()
            })
            .fold(0.0, f64::max);
        let a_s = nb.value(&format!("fit_a_{tag}"), show::num(a, 2));
        let b_s = nb.value(&format!("fit_b_{tag}"), show::num(b, 3));
        let c_s = nb.value(&format!("fit_c_{tag}"), show::grouped(c.round().max(0.0) as usize));
        let cross =
            nb.value(&format!("fit_cross_{tag}"), show::num(a * D as f64 / (b * HEADS as f64), 0));
        say!(
            nb,
            "{tag}: numbers ≈ {a_s}·S·d + {b_s}·h·S² + {c_s} (worst point off by {}%); the two terms equal at S = a·d/(b·h) = {cross}",
            show::num(100.0 * worst, 2)
        );
    }
    // one LLaMA-7B layer in fp16, with the plain fit's coefficients
    let (s, d, h) = (8192.0, 4096.0, 32.0);
    let one_hss = nb.value("llama_hss", binary(h * s * s * 2.0));
    let one_sd = nb.value("llama_sd", binary(s * d * 2.0));
    say!(
        nb,
        "LLaMA-7B layer, S = 8192, fp16: one h×S×S matrix {one_hss}, one S×d activation {one_sd}"
    );
    let [a, b, _] = fit(&plain, D, HEADS);
    let total = nb.value("llama_layer_kept", binary((a * s * d + b * h * s * s) * 2.0));
    say!(nb, "  a·S·d + b·h·S² with the plain fit's a and b: {total} per layer");
    // the whole fit lies on the measured points (the worst point is printed
    // above), so only its two parts are drawn
    let curve = |f: &dyn Fn(f64) -> f64| {
        lengths.iter().map(|&s| ((s as f64).log2(), f(s as f64))).collect()
    };
    let measured = |pts: &[(usize, usize)]| {
        pts.iter().map(|&(s, y)| ((s as f64).log2(), 4.0 * y as f64)).collect()
    };
    let series = [
        Series { label: "measured, plain ops", colour: "#1f77b4", points: measured(&plain) },
        Series { label: "measured, fused kernels", colour: "#2ca02c", points: measured(&fused) },
        Series {
            label: "plain fit: a·S·d part",
            colour: "#ff7f0e",
            points: curve(&|s| 4.0 * a * s * D as f64),
        },
        Series {
            label: "plain fit: b·h·S² part",
            colour: "#d62728",
            points: curve(&|s| 4.0 * b * HEADS as f64 * s * s),
        },
    ];
    let plot = LogPlot { series: &series, x_label: "log₂ S", y_label: "bytes kept for backward" };
    nb.figure("activation_memory", plot.to_svg());
}
