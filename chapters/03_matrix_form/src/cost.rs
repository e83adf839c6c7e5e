//! Lecture 17 demo 01.5 and exercise 7 — what attention costs, counted:
//! the paper's Table 1, multiply-adds against an RNN, the memory of the n×n
//! weights, and one layer of a long-context model. (The timed part of the
//! demo is in `speed.rs`.)

use record::svg::{LogPlot, Series};
use record::{Notebook, say, show};

// ANCHOR: table_1
/// The paper's Table 1: per layer, n positions of width d, kernel k.
pub fn table_1(nb: &mut Notebook) {
    nb.demo("table_1", "Vaswani et al. (2017), Table 1");
    let rows = [
        ("layer", "compute per layer", "sequential ops", "max path length"),
        ("self-attention", "O(n²·d)", "O(1)", "O(1)"),
        ("recurrent", "O(n·d²)", "O(n)", "O(n)"),
        // dilated kernels; contiguous ones need O(n/k) layers to span n
        ("convolutional", "O(k·n·d²)", "O(1)", "O(log_k n)"),
        ("self-attention, window r", "O(r·n·d)", "O(1)", "O(n/r)"),
    ];
    for (a, b, c, d) in rows {
        say!(nb, "{a:<25} {b:<18} {c:<15} {d}");
    }
}
// ANCHOR_END: table_1

// ANCHOR: multiply_adds
/// Multiply-adds of one layer for d = 512: attention's two n×n products
/// (QKᵀ and weights·V) against an RNN's two d×d products per step. Lecture 17
/// compares n²d with nd², one d×d product per RNN step: both columns here
/// are twice its, their ratio n/d the same.
pub fn multiply_adds(nb: &mut Notebook) {
    nb.demo("multiply_adds", "L17 01.5 · Multiply-adds per layer, d = 512");
    let d: f64 = 512.0;
    say!(
        nb,
        "{:>6}  {:>13}  {:>13}  {:>5}  {:>12}",
        "n",
        "attention 2n²d",
        "RNN 2nd²",
        "n/d",
        "n×n in f64"
    );
    for n in [64.0, 128.0, 256.0, 512.0, 1024.0, 2048.0, 4096.0, 8192.0] {
        let (attn, rnn) = (2.0 * n * n * d, 2.0 * n * d * d);
        say!(
            nb,
            "{n:>6}  {:>13}  {:>13}  {:>5}  {:>12}",
            show::sci(attn, 2),
            show::sci(rnn, 2),
            show::short(n / d),
            bytes(n * n * 8.0)
        );
        if attn == rnn {
            nb.value("multiply_adds_equal_n", n.to_string()); // 2n²d = 2nd² at n = d
        }
    }
    let curve =
        |f: &dyn Fn(f64) -> f64| (6..=13).map(|e| (e as f64, f(2f64.powi(e)))).collect::<Vec<_>>();
    let series = [
        Series { label: "attention 2n²d", colour: "#1f77b4", points: curve(&|n| 2.0 * n * n * d) },
        Series { label: "RNN 2nd²", colour: "#d62728", points: curve(&|n| 2.0 * n * d * d) },
    ];
    let plot = LogPlot {
        series: &series,
        x_label: "log₂ n  (they cross at n = d = 512)",
        y_label: "multiply-adds per layer",
    };
    nb.figure("multiply_adds", plot.to_svg());
    nb.value("weights_mb_2048", show::num(2048.0 * 2048.0 * 8.0 / 1e6, 1));
    nb.value("weights_mb_4096", show::num(4096.0 * 4096.0 * 8.0 / 1e6, 1));
}
// ANCHOR_END: multiply_adds

/// A size in decimal units with one decimal: 32.8 KB, 33.6 MB, 20.0 GB.
fn bytes(b: f64) -> String {
    let (scale, unit) = match b {
        b if b < 1e6 => (1e3, "KB"),
        b if b < 1e9 => (1e6, "MB"),
        _ => (1e9, "GB"),
    };
    format!("{} {unit}", show::num(b / scale, 1))
}

// ANCHOR: exercise_7
/// Lecture 17 exercise 7: one layer over n tokens at width d, d_ff = 4d.
pub struct LongContext {
    /// Multiply-adds of Q·Kᵀ and weights·V.
    pub scores: f64,
    /// Multiply-adds of the four projections.
    pub projections: f64,
    /// Multiply-adds of the feed-forward network.
    pub ffn: f64,
    /// The length n, in tokens, at which the scores cost as much as the rest.
    pub break_even: f64,
    /// One head's n×n weights in 16-bit floats, in GB.
    pub weights_gb: f64,
}

/// The costs of one layer at n tokens and width d.
pub fn long_context(n: f64, d: f64) -> LongContext {
    LongContext {
        scores: 2.0 * n * n * d,       // QKᵀ and weights·V
        projections: 4.0 * n * d * d,  // W^Q, W^K, W^V, W^O
        ffn: 2.0 * n * d * (4.0 * d),  // d → 4d → d
        break_even: 6.0 * d,           // 2n²d = 12nd²  ⇔  n = 6d
        weights_gb: n * n * 2.0 / 1e9, // one head's n×n weights in 16-bit floats
    }
}
// ANCHOR_END: exercise_7

/// Lecture 17 exercise 7 at n = 100,000 and d_model = 4096, printed.
pub fn exercise_7(nb: &mut Notebook) {
    nb.demo("exercise_7", "L17 exercise 7 · n = 100,000 tokens, d_model = 4096, d_ff = 4·d_model");
    let LongContext { scores, projections, ffn, break_even, weights_gb } =
        long_context(100_000.0, 4096.0);
    let a = nb.value("ex7_attention", show::sci(scores, 2));
    say!(nb, "(a) QKᵀ and weights·V: 2n²d = {a} multiply-adds");
    let p = nb.value("ex7_projections", show::sci(projections, 2));
    let f = nb.value("ex7_ffn", show::sci(ffn, 2));
    let b = nb.value("ex7_linear", show::sci(projections + ffn, 2));
    say!(nb, "(b) projections 4nd² = {p}, feed-forward 8nd² = {f}; together 12nd² = {b}");
    let ratio = nb.value("ex7_ratio", show::num(scores / (projections + ffn), 1));
    say!(nb, "    (a) is {ratio}× (b)");
    let c = nb.value("ex7_break_even", format!("{break_even}"));
    say!(nb, "(c) equal when 2n²d = 12nd², i.e. n = 6d = {c}");
    let e = nb.value("ex7_weights_gb", show::num(weights_gb, 0));
    say!(nb, "(d) one head's n×n weights in 16-bit floats: {e} GB, for every head of every layer");
}
