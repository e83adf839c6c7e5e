//! Lecture 17 §1 (demo 01.4): the two random models whose path lengths the
//! chapter measures — a vanilla RNN and one self-attention layer — and the
//! exact Jacobian of each one's last output with respect to every input.

use autograd::nn::init::{constant, normal, uniform};
use autograd::nn::{Linear, MultiHeadAttention};
use autograd::{Params, Tape};
use blocks::matmul;
use faer::{Mat, MatRef, Scale};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use crate::{Init, Options};

/// A vanilla RNN's weights, row convention.
pub struct Rnn {
    pub w_xh: Mat<f64>, // (d, d)
    pub w_hh: Mat<f64>, // (d, d)
    pub b_xh: Mat<f64>, // (1, d)
    pub b_hh: Mat<f64>, // (1, d)
}

/// What one run of the measurement found, each entry indexed by distance
/// `n − 1 − j` and averaged over the random sequences.
pub struct Measured {
    pub rnn: Vec<f64>,  // (n) ‖∂h_{n−1}/∂x_j‖_F
    pub attn: Vec<f64>, // (n) ‖∂y_{n−1}/∂x_j‖_F
    /// The same with the query held fixed: x_j reaches y_{n−1} only as a
    /// key and a value.
    pub attn_fixed_query: Vec<f64>, // (n)
    /// The RNN's recurrent matrix, for the decay analysis.
    pub w_hh: Mat<f64>, // (d, d)
    /// The mean of tanh' = 1 − h_t² over every step, unit and sequence.
    pub mean_slope: f64,
    /// The largest weight the last query gives any position, and the
    /// number of positions its weights are spread over, exp(entropy).
    pub max_weight: f64,
    pub spread: f64,
    /// ‖W^V·W^O‖_F: what every input's value path is scaled by.
    pub value_path: f64,
}

/// ‖m‖_F, summed in a fixed order.
pub fn frobenius(m: &Mat<f64>) -> f64 {
    let mut s = 0.0;
    for i in 0..m.nrows() {
        for j in 0..m.ncols() {
            s += m[(i, j)] * m[(i, j)];
        }
    }
    s.sqrt()
}

// ANCHOR: models
/// Draw both models and the inputs from one seed, then measure (the
/// attention layer's Jacobians only if `attention`).
pub fn measure(opts: &Options, attention: bool) -> Measured {
    let (n, d, seqs) = (opts.len as usize, opts.width as usize, opts.seqs as usize);
    let mut rng = Pcg64Mcg::seed_from_u64(opts.seed);
    // h_t = tanh(x_t·W_xh + b_xh + h_{t−1}·W_hh + b_hh). `pytorch` is
    // nn.RNN's init, everything uniform in ±1/√d; `normal` draws the
    // matrices from N(0, 1/d), the variance-preserving init, biases 0.
    let k = 1.0 / (d as f64).sqrt();
    let rnn = match opts.init {
        Init::Pytorch => Rnn {
            w_xh: uniform(d, d, k, &mut rng),
            w_hh: uniform::<f64>(d, d, k, &mut rng) * Scale(opts.recurrent_scale),
            b_xh: uniform(1, d, k, &mut rng),
            b_hh: uniform(1, d, k, &mut rng),
        },
        Init::Normal => Rnn {
            w_xh: normal(d, d, k, &mut rng),
            w_hh: normal::<f64>(d, d, k, &mut rng) * Scale(opts.recurrent_scale),
            b_xh: constant(1, d, 0.0),
            b_hh: constant(1, d, 0.0),
        },
    };
    // One self-attention layer (one head, W^Q, W^K, W^V, W^O), initialised
    // as nn.MultiheadAttention, or with its four matrices from N(0, 1/d).
    let mut params = Params::<f64>::new();
    let attn = MultiHeadAttention::new(&mut params, "attn", d, 1, &mut rng);
    if opts.init == Init::Normal {
        for w in [attn.w_q.w, attn.w_k.w, attn.w_v.w, attn.w_o.w] {
            params.get_mut(w).value = normal(d, d, k, &mut rng);
        }
    }
    let mut m = Measured {
        rnn: vec![0.0; n],
        attn: vec![0.0; n],
        attn_fixed_query: vec![0.0; n],
        w_hh: rnn.w_hh.clone(),
        mean_slope: 0.0,
        max_weight: 0.0,
        spread: 0.0,
        value_path: frobenius(&matmul(
            params.get(attn.w_v.w).value.as_ref(),
            params.get(attn.w_o.w).value.as_ref(),
        )),
    };
    for _ in 0..seqs {
        let x = normal::<f64>(n, d, opts.input_scale, &mut rng); // (n, d)
        let (r, slope) = rnn.sensitivity(&x);
        m.mean_slope += slope / seqs as f64;
        for dist in 0..n {
            m.rnn[dist] += r[dist] / seqs as f64;
        }
        if !attention {
            continue;
        }
        let (a, weights) = attention_sensitivity(&attn, &params, &x, false);
        let (a_fixed, _) = attention_sensitivity(&attn, &params, &x, true);
        for dist in 0..n {
            m.attn[dist] += a[dist] / seqs as f64;
            m.attn_fixed_query[dist] += a_fixed[dist] / seqs as f64;
        }
        let entropy: f64 = weights.iter().map(|&w| -w * libm::log(w.max(f64::MIN_POSITIVE))).sum();
        m.spread += libm::exp(entropy) / seqs as f64;
        m.max_weight = weights.iter().copied().fold(m.max_weight, f64::max);
    }
    m
}
// ANCHOR_END: models

// ANCHOR: rnn_jacobian
impl Rnn {
    /// ‖∂h_{n−1}/∂x_j‖_F by distance, exactly, from the chain rule:
    /// with D_t = diag(1 − h_t²),
    /// ∂h_{n−1}/∂x_j = G_j · D_j · W_xhᵀ, where G_{n−1} = I and
    /// G_{j−1} = G_j · D_j · W_hhᵀ — one more factor per step back.
    /// Also the mean slope 1 − h_t² over all steps and units.
    pub fn sensitivity(&self, x: &Mat<f64>) -> (Vec<f64>, f64) {
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
        let mean_slope = slopes.iter().flatten().sum::<f64>() / (n * d) as f64;
        (by_distance, mean_slope)
    }
}
// ANCHOR_END: rnn_jacobian

// ANCHOR: attention_jacobian
/// ‖∂y_{n−1}/∂x_j‖_F by distance for one self-attention layer, exactly: one
/// backward pass per component of the last output gives one row of the
/// Jacobian for every input at once. With `fixed_query` the queries are
/// a constant copy of x, so only the keys and values carry a gradient.
/// Also returns the last query's weights, (n).
pub fn attention_sensitivity(
    attn: &MultiHeadAttention,
    params: &Params<f64>,
    x: &Mat<f64>,
    fixed_query: bool,
) -> (Vec<f64>, Vec<f64>) {
    let (n, d) = (x.nrows(), x.ncols());
    let mut params = params.clone();
    let x_id = params.add("x", x.clone()); // the input as a leaf we differentiate by
    let mut squares = vec![0.0; n];
    for c in 0..d {
        let tape = Tape::new(&params);
        let x_kv = tape.param(x_id);
        let x_q = if fixed_query { tape.input(x.clone()) } else { x_kv };
        let out = attn.forward(x_q, x_kv, 1, None);
        let y = out.context; // (n, d)
        let grads = tape.backward(y.slice_rows(n - 1, 1).slice_cols(c, 1).sum());
        let g = grads.get(x_id).expect("the output depends on x"); // ∂y_{n−1}[c]/∂x, (n, d)
        for j in 0..n {
            squares[j] += (0..d).map(|k| g[(j, k)] * g[(j, k)]).sum::<f64>();
        }
    }
    let by_distance = (0..n).map(|dist| squares[n - 1 - dist].sqrt()).collect();
    (by_distance, last_query_weights(attn, &params, x))
}
// ANCHOR_END: attention_jacobian

/// The last query's weights over all n positions, softmax(q_{n−1}·Kᵀ/√d),
/// recomputed from the layer's parameters (one head, so d_k = d).
fn last_query_weights(attn: &MultiHeadAttention, params: &Params<f64>, x: &Mat<f64>) -> Vec<f64> {
    let (n, d) = (x.nrows(), x.ncols());
    let project = |lin: &Linear, rows: MatRef<f64>| {
        let out = matmul(rows, params.get(lin.w).value.as_ref());
        match lin.b {
            // the (1, d) bias added to every row
            Some(b) => {
                Mat::from_fn(out.nrows(), d, |i, c| out[(i, c)] + params.get(b).value[(0, c)])
            }
            None => out,
        }
    };
    let q = project(&attn.w_q, x.as_ref().submatrix(n - 1, 0, 1, d)); // (1, d)
    let k = project(&attn.w_k, x.as_ref()); // (n, d)
    let scores = matmul(k.as_ref(), q.transpose()) * Scale(1.0 / (d as f64).sqrt()); // (n, 1)
    let top = (0..n).map(|j| scores[(j, 0)]).fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = (0..n).map(|j| libm::exp(scores[(j, 0)] - top)).collect();
    let total: f64 = e.iter().sum();
    e.iter().map(|v| v / total).collect()
}
