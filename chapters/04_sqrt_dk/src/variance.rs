//! Lecture 17 demo 02.1 — the dot product of two random vectors has a
//! variance that grows linearly with their length.

use autograd::nn::init::normal;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

/// `n` independent N(0, σ²) numbers.
pub fn gaussian(n: usize, sigma: f64, rng: &mut Pcg64Mcg) -> Vec<f64> {
    normal::<f64>(1, n, sigma, rng).row(0).iter().copied().collect()
}

/// q·k, summed left to right.
pub fn dot(q: &[f64], k: &[f64]) -> f64 {
    q.iter().zip(k).map(|(a, b)| a * b).sum()
}

/// Sample mean and (unbiased) variance, each summed in order.
pub fn mean_var(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    (mean, var)
}

// ANCHOR: variance
/// For each d_k draw `pairs` pairs (q, k) with independent N(0, 1)
/// components and measure the spread of q·k before and after ÷√d_k.
pub fn variance(dims: &[usize], pairs: usize, seed: u64, nb: &mut Notebook) {
    nb.demo("variance", "L17 02.1 · Var(q·k) grows like d_k");
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    say!(nb, "{pairs} pairs (q, k) per d_k, components independent N(0, 1), seed {seed}");
    say!(
        nb,
        "{:>6} {:>10} {:>10} {:>9} {:>7} {:>14}",
        "d_k",
        "mean q·k",
        "Var(q·k)",
        "std",
        "√d_k",
        "std(q·k/√d_k)"
    );
    let mut widest = (0, 0.0); // (d_k, std) of the last row
    for &d in dims {
        let dots: Vec<f64> = (0..pairs)
            .map(|_| {
                let q = gaussian(d, 1.0, &mut rng);
                let k = gaussian(d, 1.0, &mut rng);
                dot(&q, &k)
            })
            .collect();
        let (mean, var) = mean_var(&dots);
        let root = (d as f64).sqrt();
        widest = (d, var.sqrt());
        let std = nb.value(&format!("std_dk{d}"), show::num(var.sqrt(), 2));
        let scaled = nb.value(&format!("scaled_std_dk{d}"), show::num(var.sqrt() / root, 3));
        say!(
            nb,
            "{d:>6} {:>10} {:>10} {std:>9} {:>7} {scaled:>14}",
            show::num(mean, 3),
            show::num(var, 1),
            show::num(root, 2)
        );
    }
    say!(nb, "Var(q·k) ≈ d_k, so std ≈ √d_k; divided by √d_k the spread is ≈ 1 for every d_k");
    // the softmax turns a gap g between two scores into a weight ratio e^g
    let (d, std) = widest;
    let ratio = nb.value(&format!("gap_ratio_dk{d}"), show::sci(libm::exp(std), 1));
    say!(
        nb,
        "d_k {d}: a gap of one std, {}, makes one weight e^gap = {ratio} times the other",
        show::num(std, 2)
    );
    let thirty = nb.value("gap30_ratio", show::sci(libm::exp(30.0), 1));
    say!(nb, "(a round gap of 30: e^30 = {thirty})");
}
// ANCHOR_END: variance
