//! Lecture 17 demo 01.5 and Lecture 6 demo 01.5 — what attention costs:
//! the paper's Table 1, multiply-adds against an RNN, time as n doubles,
//! the memory of the n×n weights, and FLOPs against measured speed.

use std::time::{Duration, Instant};

use autograd::nn::init::normal;
use blocks::{matmul, scaled_dot_product_attention};
use faer::Mat;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
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
/// (QKᵀ and weights·V) against an RNN's two d×d products per step.
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
        let megabytes = n * n * 8.0 / 1e6;
        say!(
            nb,
            "{n:>6}  {:>13}  {:>13}  {:>5}  {:>9} MB",
            show::sci(attn, 2),
            show::sci(rnn, 2),
            show::short(n / d),
            show::num(megabytes, 1)
        );
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

/// The median of three timings of `f`; nothing at all where timings are
/// hidden (their only product would be a masked number).
fn median_time(nb: &Notebook, mut f: impl FnMut()) -> Duration {
    if nb.hides_timings() {
        return Duration::ZERO;
    }
    let mut t: Vec<Duration> = (0..3)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    t.sort();
    t[1]
}

// ANCHOR: timing
/// Scaled dot-product attention (d_k = 64) as n doubles: the time grows
/// towards 4× per doubling, the signature of n².
pub fn timing(max_len: usize, nb: &mut Notebook) {
    nb.demo("timing", "L17 01.5 · Time as n doubles (d_k = 64)");
    let mut rng = Pcg64Mcg::seed_from_u64(5);
    let mut previous: Option<Duration> = None;
    let mut n = 128;
    while n <= max_len {
        let (q, k, v): (Mat<f64>, Mat<f64>, Mat<f64>) = (
            normal(n, 64, 1.0, &mut rng),
            normal(n, 64, 1.0, &mut rng),
            normal(n, 64, 1.0, &mut rng),
        );
        let t = median_time(nb, || {
            scaled_dot_product_attention(q.as_ref(), k.as_ref(), v.as_ref(), None);
        });
        let growth = previous.map(|p| {
            nb.measured(format!("{:.1}× the previous", t.as_secs_f64() / p.as_secs_f64()))
        });
        let line = format!("n = {n:>5}  {}  {}", nb.timing(t), growth.unwrap_or_default());
        say!(nb, "{}", line.trim_end());
        previous = Some(t);
        n *= 2;
    }
}
// ANCHOR_END: timing

// ANCHOR: rnn_vs_attention
/// Lecture 6: FLOPs of an RNN layer and of an attention layer (with its
/// four projections), d = 512 — and how fast each runs here.
pub fn rnn_vs_attention(nb: &mut Notebook) {
    nb.demo("rnn_vs_attention", "L6 01.5 · RNN against attention: FLOPs and speed, d = 512");
    let d = 512;
    say!(nb, "{:>6}  {:>12}  {:>12}  {:>17}", "n", "RNN 4nd²", "attn 8nd²+4n²d", "attention / RNN");
    for n in [128usize, 512, 2048] {
        let (nf, df) = (n as f64, d as f64);
        let (rnn, attn) = (4.0 * nf * df * df, 8.0 * nf * df * df + 4.0 * nf * nf * df);
        let ratio = nb.value(&format!("flop_ratio_{n}"), show::num(attn / rnn, 2));
        say!(nb, "{n:>6}  {:>12}  {:>12}  {ratio:>17}", show::sci(rnn, 2), show::sci(attn, 2));
    }
    // One layer at n = 512 of each, timed.
    let n = 512;
    let mut rng = Pcg64Mcg::seed_from_u64(6);
    let x: Mat<f64> = normal(n, d, 1.0, &mut rng); // (n, d)
    let w = |rng: &mut Pcg64Mcg| normal::<f64>(d, d, 1.0 / (d as f64).sqrt(), rng);
    let (w_xh, w_hh) = (w(&mut rng), w(&mut rng));
    let (w_q, w_k, w_v, w_o) = (w(&mut rng), w(&mut rng), w(&mut rng), w(&mut rng));
    let rnn_time = median_time(nb, || {
        // n steps, each waiting for the last: two (1, d)·(d, d) products per step
        let mut h = Mat::<f64>::zeros(1, d);
        for t in 0..n {
            let x_t = x.as_ref().submatrix(t, 0, 1, d);
            let a = matmul(x_t, w_xh.as_ref()) + matmul(h.as_ref(), w_hh.as_ref());
            h = Mat::from_fn(1, d, |_, j| a[(0, j)].tanh());
        }
    });
    let attn_time = median_time(nb, || {
        // four (n, d)·(d, d) products and two n×n ones, all positions at once
        let (q, k, v) = (
            matmul(x.as_ref(), w_q.as_ref()),
            matmul(x.as_ref(), w_k.as_ref()),
            matmul(x.as_ref(), w_v.as_ref()),
        );
        let c = scaled_dot_product_attention(q.as_ref(), k.as_ref(), v.as_ref(), None).output;
        matmul(c.as_ref(), w_o.as_ref());
    });
    let (nf, df) = (n as f64, d as f64);
    let rnn_rate = 4.0 * nf * df * df / rnn_time.as_secs_f64() * 1e-9;
    let attn_rate = (8.0 * nf * df * df + 4.0 * nf * nf * df) / attn_time.as_secs_f64() * 1e-9;
    say!(
        nb,
        "n = {n}: RNN takes {}, {}",
        nb.timing(rnn_time),
        nb.measured(format!("{rnn_rate:.1} GFLOP/s"))
    );
    say!(
        nb,
        "n = {n}: attention takes {}, {}",
        nb.timing(attn_time),
        nb.measured(format!("{attn_rate:.1} GFLOP/s"))
    );
}
// ANCHOR_END: rnn_vs_attention

// ANCHOR: exercise_7
/// Lecture 17 exercise 7: one layer of a long-context model.
pub fn exercise_7(nb: &mut Notebook) {
    nb.demo("exercise_7", "L17 exercise 7 · n = 100,000 tokens, d_model = 4096, d_ff = 4·d_model");
    let (n, d): (f64, f64) = (100_000.0, 4096.0);
    let scores = 2.0 * n * n * d; // QKᵀ and weights·V
    let projections = 4.0 * n * d * d; // W^Q, W^K, W^V, W^O
    let ffn = 2.0 * n * d * (4.0 * d); // d → 4d → d
    let a = nb.value("ex7_attention", show::sci(scores, 2));
    let b = nb.value("ex7_linear", show::sci(projections + ffn, 2));
    say!(nb, "(a) QKᵀ and weights·V: 2n²d = {a} multiply-adds");
    let ratio = nb.value("ex7_ratio", show::num(scores / (projections + ffn), 1));
    say!(nb, "(b) projections 4nd² + feed-forward 8nd² = 12nd² = {b}; (a) is {ratio}× (b)");
    // 2n²d = 12nd²  ⇔  n = 6d
    let c = nb.value("ex7_break_even", format!("{}", 6.0 * d));
    say!(nb, "(c) equal when 2n²d = 12nd², i.e. n = 6d = {c}");
    let gb = n * n * 2.0 / 1e9; // 16-bit floats
    let e = nb.value("ex7_weights_gb", show::num(gb, 0));
    say!(nb, "(d) one head's n×n weights in 16-bit floats: {e} GB, for every head of every layer");
}
// ANCHOR_END: exercise_7
