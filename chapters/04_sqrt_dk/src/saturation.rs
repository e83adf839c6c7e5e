//! Lecture 17 demo 02.2 and Lecture 6 01.2 — unscaled scores push the
//! softmax towards one-hot, where its Jacobian, and so the gradient that
//! reaches W^Q and W^K, vanishes.

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::svg::{LogPlot, Series};
use record::{Notebook, say, show};

use crate::variance::{dot, gaussian};

/// softmax(s), computed stably (the largest score subtracted first).
pub fn softmax(s: &[f64]) -> Vec<f64> {
    let top = s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = s.iter().map(|x| libm::exp(x - top)).collect();
    let total: f64 = e.iter().sum();
    e.iter().map(|x| x / total).collect()
}

/// ‖J‖_F of the softmax Jacobian J = diag(p) − p pᵀ at p.
pub fn jacobian_norm(p: &[f64]) -> f64 {
    let mut sum = 0.0;
    for (i, &pi) in p.iter().enumerate() {
        for (j, &pj) in p.iter().enumerate() {
            let jij = if i == j { pi - pi * pj } else { -pi * pj };
            sum += jij * jij;
        }
    }
    sum.sqrt()
}

/// Entropy −Σ p ln p in nats (a zero weight contributes nothing).
pub fn entropy(p: &[f64]) -> f64 {
    -p.iter().filter(|&&x| x > 0.0).map(|&x| x * libm::log(x)).sum::<f64>()
}

/// Averages over the draws for one d_k, one way of scoring.
#[derive(Clone, Copy, Debug, Default)]
pub struct Shape {
    /// Mean of the largest weight.
    pub max_weight: f64,
    /// Mean entropy of the weights.
    pub entropy: f64,
    /// Mean ‖J‖_F of the softmax Jacobian.
    pub jacobian: f64,
    /// Share of queries putting more than 99% on one key.
    pub one_hot: f64,
}

/// One query against `keys` keys, `draws` times: the averages for scores
/// divided by √d (`.0`) and left as they are (`.1`), on the same draws.
pub fn measure(d: usize, keys: usize, draws: usize, rng: &mut Pcg64Mcg) -> (Shape, Shape) {
    let mut sums = [Shape::default(); 2];
    for _ in 0..draws {
        let q = gaussian(d, 1.0, rng);
        let raw: Vec<f64> = (0..keys).map(|_| dot(&q, &gaussian(d, 1.0, rng))).collect();
        let scaled: Vec<f64> = raw.iter().map(|s| s / (d as f64).sqrt()).collect();
        for (sum, scores) in sums.iter_mut().zip([scaled, raw]) {
            let p = softmax(&scores);
            let top = p.iter().copied().fold(0.0, f64::max);
            sum.max_weight += top;
            sum.entropy += entropy(&p);
            sum.jacobian += jacobian_norm(&p);
            sum.one_hot += if top > 0.99 { 1.0 } else { 0.0 };
        }
    }
    let n = draws as f64;
    let mean = |s: Shape| Shape {
        max_weight: s.max_weight / n,
        entropy: s.entropy / n,
        jacobian: s.jacobian / n,
        one_hot: s.one_hot / n,
    };
    (mean(sums[0]), mean(sums[1]))
}

// ANCHOR: saturation
/// The softmax of one query against 16 keys (Lecture 17) and against 32
/// (Lecture 6), scaled and unscaled, for each d_k.
pub fn saturation(dims: &[usize], draws: usize, seed: u64, nb: &mut Notebook) {
    nb.demo("saturation", "L17 02.2 · L6 01.2 · Unscaled scores saturate the softmax");
    let mut curves = Vec::new(); // (keys, scaled or not, ‖J‖_F per d_k)
    for keys in [16, 32] {
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        say!(nb, "");
        say!(nb, "one query, {keys} keys, {draws} draws per d_k, seed {seed}");
        let uniform =
            nb.value(&format!("k{keys}_uniform_entropy"), show::num(libm::log(keys as f64), 3));
        say!(
            nb,
            "a uniform row: max weight {}, entropy ln {keys} = {uniform}",
            show::num(1.0 / keys as f64, 4)
        );
        say!(nb, "{:>6} │ {:^33} │ {:^33}", "", "scaled: q·k/√d_k", "unscaled: q·k");
        let columns = format!("{:>7} {:>7} {:>7} {:>9}", "max w", "entropy", "‖J‖_F", "> 99%");
        say!(nb, "{:>6} │ {columns} │ {columns}", "d_k");
        let mut rows = Vec::new();
        for &d in dims {
            let (scaled, raw) = measure(d, keys, draws, &mut rng);
            let cells =
                [record_row(nb, keys, "scaled", d, &scaled), record_row(nb, keys, "raw", d, &raw)];
            say!(nb, "{d:>6} │ {} │ {}", cells[0], cells[1]);
            rows.push((d, scaled, raw));
        }
        record_scaled_range(nb, keys, &rows);
        curves.push((
            keys,
            "scaled",
            rows.iter().map(|(d, s, _)| (*d, s.jacobian)).collect::<Vec<_>>(),
        ));
        curves.push((keys, "unscaled", rows.iter().map(|(d, _, r)| (*d, r.jacobian)).collect()));
    }
    say!(nb, "");
    say!(
        nb,
        "scaled, every d_k starts from the same softmax; unscaled, the rows grow sharper with d_k"
    );
    nb.figure("jacobian_vs_dk", plot(&curves));
}
// ANCHOR_END: saturation

/// Record one row's four averages under `k{keys}_{kind}_dk{d}_…` and format them.
fn record_row(nb: &mut Notebook, keys: usize, kind: &str, d: usize, shape: &Shape) -> String {
    let tag = format!("k{keys}_{kind}_dk{d}");
    let max = nb.value(&format!("{tag}_max"), show::num(shape.max_weight, 3));
    let entropy = nb.value(&format!("{tag}_entropy"), show::num(shape.entropy, 3));
    let jacobian = nb.value(&format!("{tag}_jacobian"), show::num(shape.jacobian, 4));
    let one_hot =
        nb.value(&format!("{tag}_one_hot"), format!("{}%", show::num(100.0 * shape.one_hot, 1)));
    format!("{max:>7} {entropy:>7} {jacobian:>7} {one_hot:>9}")
}

/// How alike the scaled rows are: the range of the largest weight and of
/// ‖J‖_F over all d_k, recorded and printed.
fn record_scaled_range(nb: &mut Notebook, keys: usize, rows: &[(usize, Shape, Shape)]) {
    let range = |f: fn(&Shape) -> f64| {
        let v = rows.iter().map(|(_, s, _)| f(s));
        (v.clone().fold(f64::INFINITY, f64::min), v.fold(f64::NEG_INFINITY, f64::max))
    };
    let (w_lo, w_hi) = range(|s| s.max_weight);
    let (j_lo, j_hi) = range(|s| s.jacobian);
    let w_lo = nb.value(&format!("k{keys}_scaled_max_lo"), show::num(w_lo, 3));
    let w_hi = nb.value(&format!("k{keys}_scaled_max_hi"), show::num(w_hi, 3));
    let j_lo = nb.value(&format!("k{keys}_scaled_jacobian_lo"), show::num(j_lo, 4));
    let j_hi = nb.value(&format!("k{keys}_scaled_jacobian_hi"), show::num(j_hi, 4));
    say!(nb, "scaled, over all d_k: max weight {w_lo} to {w_hi}, ‖J‖_F {j_lo} to {j_hi}");
}

/// Key count, "scaled" or "unscaled", and (d_k, mean ‖J‖_F) per d_k.
type Curve<'a> = (usize, &'a str, Vec<(usize, f64)>);

/// ‖J‖_F against log₂ d_k, one curve per key count and scaling.
fn plot(curves: &[Curve]) -> String {
    let colours = ["#1f77b4", "#d62728", "#6baed6", "#fc9272"];
    let labels: Vec<String> =
        curves.iter().map(|(k, kind, _)| format!("{k} keys, {kind}")).collect();
    let series: Vec<Series> = curves
        .iter()
        .zip(&labels)
        .zip(colours)
        .map(|(((_, _, pts), label), colour)| Series {
            label,
            colour,
            points: pts.iter().map(|&(d, j)| (libm::log2(d as f64), j)).collect(),
        })
        .collect();
    LogPlot { series: &series, x_label: "log₂ d_k", y_label: "mean ‖J‖_F of the softmax" }.to_svg()
}
