//! Lecture 17 demo 01.4 — path length, measured: the norm of the Jacobian
//! of the last output with respect to each input, for a random RNN and a
//! random self-attention layer.

use autograd::nn::MultiHeadAttention;
use autograd::nn::init::{normal, uniform};
use autograd::{Params, Tape};
use blocks::matmul;
use faer::{Mat, Scale};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::svg::{LogPlot, Series};
use record::{Notebook, say, show};

use crate::Options;

// ANCHOR: path_length
/// For each distance `n − 1 − j`, the mean over `seqs` random sequences of
/// ‖∂ output_{n−1} / ∂ x_j‖_F, for an RNN and for self-attention.
pub fn path_length(opts: &Options, nb: &mut Notebook) {
    nb.demo("path_length", "L17 01.4 · How much does the last output feel input j?");
    let (n, d, seqs) = (opts.len as usize, opts.width as usize, opts.seqs as usize);
    let mut rng = Pcg64Mcg::seed_from_u64(opts.seed);
    // The RNN h_t = tanh(x_t·W_xh + b_xh + h_{t−1}·W_hh + b_hh), initialised
    // as PyTorch's nn.RNN: everything uniform in ±1/√d.
    let k = 1.0 / (d as f64).sqrt();
    let rnn = Rnn {
        w_xh: uniform(d, d, k, &mut rng),
        w_hh: uniform::<f64>(d, d, k, &mut rng) * Scale(opts.recurrent_scale),
        b_xh: uniform(1, d, k, &mut rng),
        b_hh: uniform(1, d, k, &mut rng),
    };
    // One self-attention layer (one head, with W^Q, W^K, W^V, W^O),
    // initialised as PyTorch's nn.MultiheadAttention.
    let mut params = Params::<f64>::new();
    let attn = MultiHeadAttention::new(&mut params, "attn", d, 1, &mut rng);
    let (mut rnn_mean, mut attn_mean) = (vec![0.0; n], vec![0.0; n]);
    for _ in 0..seqs {
        let x = normal::<f64>(n, d, 1.0, &mut rng); // (n, d): inputs N(0, 1)
        let (r, a) = (rnn.sensitivity(&x), attention_sensitivity(&attn, &params, &x));
        for dist in 0..n {
            rnn_mean[dist] += r[dist] / seqs as f64;
            attn_mean[dist] += a[dist] / seqs as f64;
        }
    }

    let (len, width, count) = (
        nb.value("len", n.to_string()),
        nb.value("width", d.to_string()),
        nb.value("seqs", seqs.to_string()),
    );
    say!(nb, "n = {len}, d = {width}, {count} random sequences, seed {}", opts.seed);
    say!(nb, "{:>8}  {:>9}  {:>14}", "distance", "RNN", "self-attention");
    let shown: Vec<usize> =
        [0, 1, 2, 4, 8, 16, 32, 48, 63, n - 1].into_iter().filter(|&t| t < n).collect();
    let mut last = usize::MAX;
    for &dist in &shown {
        if dist != last {
            say!(
                nb,
                "{dist:>8}  {:>9}  {:>14}",
                show::sci(rnn_mean[dist], 1),
                show::sci(attn_mean[dist], 1)
            );
        }
        last = dist;
    }
    let mean = |v: &[f64], r: std::ops::RangeInclusive<usize>| {
        let r: Vec<usize> = r.filter(|&t| t < n).collect();
        r.iter().map(|&t| v[t]).sum::<f64>() / r.len().max(1) as f64
    };
    let far = n / 2..=n - 1;
    nb.value("dhalf", (n / 2).to_string());
    nb.value("dlast", (n - 1).to_string());
    let rnn_near = nb.value("rnn_avg_near", show::sci(mean(&rnn_mean, 1..=8), 1));
    let rnn_far = nb.value("rnn_avg_far", show::sci(mean(&rnn_mean, far.clone()), 1));
    let attn_near = nb.value("attn_avg_near", show::sci(mean(&attn_mean, 1..=8), 1));
    let attn_far = nb.value("attn_avg_far", show::sci(mean(&attn_mean, far.clone()), 1));
    say!(nb, "mean over distances 1–8:   RNN {rnn_near}, self-attention {attn_near}");
    say!(
        nb,
        "mean over distances {}–{}: RNN {rnn_far}, self-attention {attn_far}",
        far.start(),
        far.end()
    );
    if n >= 4 {
        // the geometric mean factor per step between distance 1 and n/2
        let factor = (rnn_mean[n / 2] / rnn_mean[1]).powf(1.0 / (n / 2 - 1) as f64);
        let factor = nb.value("rnn_per_step", show::num(factor, 2));
        say!(nb, "RNN: each step back multiplies the sensitivity by about {factor}");
    }
    for (name, dist) in [("rnn_d1", 1), ("rnn_dhalf", n / 2), ("rnn_dlast", n - 1)] {
        nb.value(name, show::sci(rnn_mean[dist.min(n - 1)], 1));
    }
    let attn_rest = &attn_mean[1..];
    let lo =
        nb.value("attn_min", show::sci(attn_rest.iter().copied().fold(f64::INFINITY, f64::min), 1));
    let hi = nb.value("attn_max", show::sci(attn_rest.iter().copied().fold(0.0, f64::max), 1));
    say!(nb, "self-attention, distances 1–{}: between {lo} and {hi}", n - 1);
    nb.value("attn_d0", show::sci(attn_mean[0], 1));

    let curve = |v: &[f64]| v.iter().enumerate().map(|(t, &s)| (t as f64, s)).collect::<Vec<_>>();
    let series = [
        Series { label: "RNN", colour: "#d62728", points: curve(&rnn_mean) },
        Series { label: "self-attention", colour: "#1f77b4", points: curve(&attn_mean) },
    ];
    let plot = LogPlot {
        series: &series,
        x_label: "distance n − 1 − j",
        y_label: "‖∂ output_last / ∂ x_j‖_F",
    };
    nb.figure("sensitivity", plot.to_svg());
}
// ANCHOR_END: path_length

/// A vanilla RNN's weights, row convention.
pub struct Rnn {
    pub w_xh: Mat<f64>, // (d, d)
    pub w_hh: Mat<f64>, // (d, d)
    pub b_xh: Mat<f64>, // (1, d)
    pub b_hh: Mat<f64>, // (1, d)
}

// ANCHOR: rnn_jacobian
impl Rnn {
    /// ‖∂h_{n−1}/∂x_j‖_F by distance, exactly, from the chain rule:
    /// with D_t = diag(1 − h_t²),
    /// ∂h_{n−1}/∂x_j = G_j · D_j · W_xhᵀ, where G_{n−1} = I and
    /// G_{j−1} = G_j · D_j · W_hhᵀ — one more factor per step back.
    pub fn sensitivity(&self, x: &Mat<f64>) -> Vec<f64> {
        let (n, d) = (x.nrows(), x.ncols());
        let mut h = Mat::<f64>::zeros(1, d);
        let mut slopes = Vec::with_capacity(n); // 1 − h_t², each (d)
        for t in 0..n {
            let x_t = x.as_ref().submatrix(t, 0, 1, d);
            let a = matmul(x_t, self.w_xh.as_ref())
                + &self.b_xh
                + matmul(h.as_ref(), self.w_hh.as_ref())
                + &self.b_hh;
            h = Mat::from_fn(1, d, |_, i| libm::tanh(a[(0, i)]));
            slopes.push((0..d).map(|i| 1.0 - h[(0, i)] * h[(0, i)]).collect::<Vec<f64>>());
        }
        let mut g = Mat::<f64>::identity(d, d); // G_j = ∂h_{n−1}/∂h_j
        let mut by_distance = vec![0.0; n];
        for j in (0..n).rev() {
            let g_d = Mat::from_fn(d, d, |r, c| g[(r, c)] * slopes[j][c]); // G_j · D_j
            let jac = matmul(g_d.as_ref(), self.w_xh.transpose()); // ∂h_{n−1}/∂x_j
            by_distance[n - 1 - j] = jac.norm_l2();
            g = matmul(g_d.as_ref(), self.w_hh.transpose());
        }
        by_distance
    }
}
// ANCHOR_END: rnn_jacobian

// ANCHOR: attention_jacobian
/// ‖∂y_{n−1}/∂x_j‖_F by distance for one self-attention layer, exactly: one
/// backward pass per component of the last output gives one row of the
/// Jacobian for every input at once.
pub fn attention_sensitivity(
    attn: &MultiHeadAttention,
    params: &Params<f64>,
    x: &Mat<f64>,
) -> Vec<f64> {
    let (n, d) = (x.nrows(), x.ncols());
    let mut params = params.clone();
    let x_id = params.add("x", x.clone()); // the input as a leaf we differentiate by
    let mut squares = vec![0.0; n];
    for c in 0..d {
        let tape = Tape::new(&params);
        let x = tape.param(x_id);
        let y = attn.forward(x, x, 1, None).context; // (n, d)
        let grads = tape.backward(y.slice_rows(n - 1, 1).slice_cols(c, 1).sum());
        let g = grads.get(x_id).expect("the output depends on x"); // ∂y_{n−1}[c]/∂x, (n, d)
        for j in 0..n {
            squares[j] += (0..d).map(|k| g[(j, k)] * g[(j, k)]).sum::<f64>();
        }
    }
    (0..n).map(|dist| squares[n - 1 - dist].sqrt()).collect()
}
// ANCHOR_END: attention_jacobian
