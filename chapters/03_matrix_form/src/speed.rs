//! Lecture 17 demo 01.5 (the timing part) and Lecture 6 demo 01.5 — an RNN
//! layer's step-by-step loop against a self-attention layer of the same
//! width: FLOPs fixed by the shapes (pinned), and the time this machine takes
//! (printed, masked in snapshots: it is the only output allowed to vary).

use std::hint::black_box;
use std::time::{Duration, Instant};

use autograd::nn::init::normal;
use blocks::{matmul, scaled_dot_product_attention};
use faer::Mat;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

// ANCHOR: layers
/// The two layers being compared, with weights of width d.
pub struct Layers {
    w_xh: Mat<f64>,
    w_hh: Mat<f64>,
    w_q: Mat<f64>,
    w_k: Mat<f64>,
    w_v: Mat<f64>,
    w_o: Mat<f64>,
}

impl Layers {
    pub fn random(d: usize, rng: &mut Pcg64Mcg) -> Self {
        let mut w = || normal::<f64>(d, d, 1.0 / (d as f64).sqrt(), rng); // (d, d)
        Layers { w_xh: w(), w_hh: w(), w_q: w(), w_k: w(), w_v: w(), w_o: w() }
    }

    /// `h_t = tanh(x_t·W_xh + h_{t−1}·W_hh)`, one step after another: step t
    /// needs h_{t−1}, so no two steps can run at once. x_t·W_xh needs no h and
    /// could be one (n, d)·(d, d) product; it stays in the loop as Lecture 6
    /// counts it: 2 products · 2d² FLOPs · n steps = 4nd².
    pub fn rnn(&self, x: &Mat<f64>) -> Mat<f64> {
        let (n, d) = (x.nrows(), x.ncols());
        let x_cols = x.transpose().to_owned(); // (d, n): word t contiguous, not strided
        let mut h = Mat::<f64>::zeros(1, d); // (1, d)
        for t in 0..n {
            let x_t = x_cols.as_ref().submatrix(0, t, d, 1).transpose(); // (1, d)
            let a = matmul(x_t, self.w_xh.as_ref()) + matmul(h.as_ref(), self.w_hh.as_ref());
            h = Mat::from_fn(1, d, |_, j| libm::tanh(a[(0, j)]));
        }
        h
    }

    /// Four (n, d)·(d, d) projections, 8nd² FLOPs, and the two n×n products
    /// QKᵀ and weights·V, 4n²d FLOPs — every position at once.
    pub fn attention(&self, x: &Mat<f64>) -> Mat<f64> {
        let q = matmul(x.as_ref(), self.w_q.as_ref()); // (n, d)
        let k = matmul(x.as_ref(), self.w_k.as_ref()); // (n, d)
        let v = matmul(x.as_ref(), self.w_v.as_ref()); // (n, d)
        let c = scaled_dot_product_attention(q.as_ref(), k.as_ref(), v.as_ref(), None).output;
        matmul(c.as_ref(), self.w_o.as_ref()) // (n, d)
    }
}
// ANCHOR_END: layers

// ANCHOR: rnn_vs_attention
/// FLOPs of the matrix products alone (2 per multiply-add; tanh, softmax and
/// its n² exponentials are not counted): (RNN, attention).
pub fn flops(n: usize, d: usize) -> (f64, f64) {
    let (n, d) = (n as f64, d as f64);
    (4.0 * n * d * d, 8.0 * n * d * d + 4.0 * n * n * d)
}

/// Multiply-adds per number moved: (an RNN step, one projection of all n
/// positions). An RNN step, x·W_xh + h·W_hh, does 2d² multiply-adds,
/// reading both d×d matrices and two vectors and writing one. A projection
/// does nd², reading X (n×d) and W (d×d) and writing n×d.
pub fn intensity(n: usize, d: usize) -> (f64, f64) {
    let (n, d) = (n as f64, d as f64);
    (2.0 * d * d / (2.0 * d * d + 3.0 * d), n * d * d / (2.0 * n * d + d * d))
}
// ANCHOR_END: rnn_vs_attention

// ANCHOR: timing
/// Both layers on the same (n, d) input, each timed on its own: returns
/// (RNN, attention), the fastest of three runs each, or zeros when `timed`
/// is false. The arithmetic, `flops(n, d)`, is the same whatever the machine.
pub fn time_both(layers: &Layers, x: &Mat<f64>, timed: bool) -> (Duration, Duration) {
    (
        fastest_time(timed, || layers.rnn(black_box(x))),
        fastest_time(timed, || layers.attention(black_box(x))),
    )
}

/// The fastest of three timings of `f` (other work on the machine only ever
/// adds time); with `timed` false, zero without running `f` (where timings
/// are hidden their only product would be a masked number). `black_box`
/// keeps the optimiser from dropping work whose result is never used.
fn fastest_time<T>(timed: bool, mut f: impl FnMut() -> T) -> Duration {
    if !timed {
        return Duration::ZERO;
    }
    black_box(f()); // warm-up: first touches of the memory, not the layer
    (0..3)
        .map(|_| {
            let start = Instant::now();
            black_box(f());
            start.elapsed()
        })
        .min()
        .unwrap()
}
// ANCHOR_END: timing

/// L17: the RNN loop against self-attention as n doubles, d = 64. The paper
/// counts n²d against nd² (Table 1); counting every product gives 2 + n/d.
pub fn timing(max_len: usize, nb: &mut Notebook) {
    nb.demo("timing", "L17 01.5 · RNN loop against self-attention as n doubles, d = 64");
    let d = 64;
    let mut rng = Pcg64Mcg::seed_from_u64(5);
    let layers = Layers::random(d, &mut rng);
    say!(nb, "FLOPs of the products; attention / RNN by the paper's count (n/d) and by");
    say!(nb, "every product (2 + n/d); times: fastest of 3 runs on this machine");
    say!(nb, "    n  RNN 4nd²  attn 8nd²+4n²d    n/d  2 + n/d        RNN  attention  time ratio");
    let mut n = 16;
    while n <= max_len {
        let x: Mat<f64> = normal(n, d, 1.0, &mut rng); // (n, d)
        let (t_rnn, t_attn) = time_both(&layers, &x, !nb.hides_timings());
        let (rnn, attn) = flops(n, d);
        let paper = show::short(n as f64 / d as f64); // n²d / nd²
        let full = nb.value(&format!("timing_flop_ratio_{n}"), show::num(attn / rnn, 2));
        let ratio = nb.measured(format!("{:.2}", t_attn.as_secs_f64() / t_rnn.as_secs_f64()));
        let (a, b) = (nb.timing(t_rnn), nb.timing(t_attn));
        let (rnn, attn) = (show::sci(rnn, 2), show::sci(attn, 2));
        say!(
            nb,
            "{n:>5}  {rnn:>8}  {attn:>14}  {paper:>5}  {full:>7}  {a:>9}  {b:>9}  {ratio:>10}"
        );
        if n * n * d == n * d * d {
            nb.value("paper_count_equal_n", n.to_string()); // n²d = nd², from here on more
        }
        n *= 2;
    }
}

/// L6: the same two layers at d = 512 — FLOPs, and how fast each runs here.
pub fn rnn_vs_attention(nb: &mut Notebook) {
    nb.demo("rnn_vs_attention", "L6 01.5 · RNN against attention: FLOPs and speed, d = 512");
    let d = 512;
    say!(nb, "{:>6}  {:>12}  {:>12}  {:>17}", "n", "RNN 4nd²", "attn 8nd²+4n²d", "attention / RNN");
    for n in [128usize, 512, 2048] {
        let (rnn, attn) = flops(n, d);
        let ratio = nb.value(&format!("flop_ratio_{n}"), show::num(attn / rnn, 2));
        say!(nb, "{n:>6}  {:>12}  {:>12}  {ratio:>17}", show::sci(rnn, 2), show::sci(attn, 2));
    }
    // Without the n² term: the four projections against the RNN's two products.
    let (nf, df) = (512.0, d as f64);
    let (rnn, attn) = flops(512, d);
    let proj = nb.value("proj_over_rnn", show::num((attn - 4.0 * nf * nf * df) / rnn, 2));
    say!(nb, "the four projections alone, 8nd² / 4nd²: {proj}");
    let (rnn_i, proj_i) = intensity(512, d);
    let rnn_i = nb.value("rnn_step_intensity", show::num(rnn_i, 2));
    let proj_i = nb.value("projection_intensity", show::num(proj_i, 0));
    say!(
        nb,
        "multiply-adds per number moved: an RNN step {rnn_i}, a projection at n = 512 {proj_i}"
    );
    // One layer of each at n = 512, timed.
    let n = 512;
    let mut rng = Pcg64Mcg::seed_from_u64(6);
    let x: Mat<f64> = normal(n, d, 1.0, &mut rng); // (n, d)
    let layers = Layers::random(d, &mut rng);
    let (rnn, attn) = flops(n, d);
    let (t_rnn, t_attn) = time_both(&layers, &x, !nb.hides_timings());
    for (name, flop, time) in [("RNN", rnn, t_rnn), ("attention", attn, t_attn)] {
        let rate = nb.measured(format!("{:.1}", flop / time.as_secs_f64() * 1e-9));
        say!(nb, "n = {n}: {name:<9} takes {}, {rate} GFLOP/s", nb.timing(time));
    }
}
