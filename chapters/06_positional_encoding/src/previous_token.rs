//! Lecture 17 demo 03.4 — one linear W^Q turns the encodings into a
//! "look at the previous word" head, the same matrix for every position.

use autograd::nn::init::normal;
use blocks::{matmul, scaled_dot_product_attention};
use faer::Mat;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::svg::Raster;
use record::{Notebook, say, show};

use crate::relative::shift;
use crate::sinusoids::table;

/// Positions in the demo.
pub const N: usize = 20;

/// The previous-token head at sharpness β over positions 0..N with
/// d_model = `d`: its (N, N) weights, how many of the N − 1 positions with
/// a predecessor put their argmax on it, and the mean weight they put there.
pub fn head(d: usize, beta: f64) -> (Mat<f64>, usize, f64) {
    let x = table((0..N).map(|p| p as f64), d); // (20, d): positions only
    let back = shift(-1.0, d); // M₋₁: PE(p)·M₋₁ = PE(p − 1)
    let w_q = Mat::from_fn(d, d, |r, c| beta * back[(r, c)]);
    let q = matmul(x.as_ref(), w_q.as_ref()); // (20, d): row i = β·PE(i − 1)
    let w = scaled_dot_product_attention(q.as_ref(), x.as_ref(), x.as_ref(), None).weights;
    let best = |i: usize| blocks::argmax((0..N).map(|a| w[(i, a)])).unwrap();
    let hits = (1..N).filter(|&i| best(i) == i - 1).count();
    let mean = (1..N).map(|i| w[(i, i - 1)]).sum::<f64>() / (N - 1) as f64;
    (w, hits, mean)
}

// ANCHOR: previous_token
/// Inputs are the encodings alone (no words): W^Q = β·M₋₁, W^K = W^V = I,
/// scores divided by √d_model as usual. Position i's query is β·PE(i − 1),
/// which matches the key PE(i − 1) best.
pub fn previous_token(d: usize, betas: &[f64], seed: u64, nb: &mut Notebook) {
    nb.demo("previous_token", "L17 03.4 · A previous-token head from W^Q = β·M₋₁");
    say!(nb, "{N} positions, d_model = {d}, inputs = PE(0..{}) only, scores ÷ √d", N - 1);
    say!(nb, "{:>6} {:>28} {:>26}", "β", "argmax on position i − 1", "mean weight on i − 1");
    let mut last = None;
    for &beta in betas {
        let (w, hits, mean) = head(d, beta);
        let tag = show::short(beta).replace('.', "_");
        let hits = nb.value(&format!("prev_hits_b{tag}"), format!("{hits}/{}", N - 1));
        let mean = nb.value(&format!("prev_weight_b{tag}"), show::num(mean, 3));
        say!(nb, "{:>6} {hits:>28} {mean:>26}", show::short(beta));
        last = Some((beta, w));
    }
    if let Some((beta, w)) = last {
        let rows: Vec<Vec<f64>> = (0..N).map(|i| (0..N).map(|j| w[(i, j)]).collect()).collect();
        let label = format!("weights at β = {} →  key position", show::short(beta));
        let figure = Raster {
            values: &rows,
            cell: 14.0,
            row_axis: "query position ↓",
            col_axis: &label,
            range: (0.0, 1.0),
            legend: "weight",
        };
        nb.figure("previous_token", figure.to_svg());
    }

    // Without positions: twenty copies of one word; no W^Q can tell them apart.
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let word = normal::<f64>(1, d, 1.0, &mut rng);
    let same = Mat::from_fn(N, d, |_, c| word[(0, c)]); // (20, d)
    let back = shift(-1.0, d);
    let shifted = Mat::from_fn(d, d, |r, c| 8.0 * back[(r, c)]);
    for (tag, name, w_q) in
        [("shift", "8·M₋₁", shifted), ("random", "random", normal::<f64>(d, d, 1.0, &mut rng))]
    {
        let q = matmul(same.as_ref(), w_q.as_ref());
        let att = scaled_dot_product_attention(q.as_ref(), same.as_ref(), same.as_ref(), None);
        let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
        for i in 0..N {
            for j in 0..N {
                lo = lo.min(att.weights[(i, j)]);
                hi = hi.max(att.weights[(i, j)]);
            }
        }
        let lo = nb.value(&format!("no_pe_{tag}_min"), show::num(lo, 3));
        let hi = nb.value(&format!("no_pe_{tag}_max"), show::num(hi, 3));
        let weights = if lo == hi {
            format!("every weight = {lo}")
        } else {
            format!("weights from {lo} to {hi}")
        };
        say!(nb, "no positions, {N} identical words, W^Q = {name}: {weights}");
    }
}
// ANCHOR_END: previous_token
