//! Lecture 6 §9.1 (script 03 part 1) — the classification loss as
//! `logsumexp(z) − z_y`: the naive `ln Σ eᶻ` overflows at logits near 1000,
//! the shifted form does not, and the gradient is `softmax(z) − onehot(y)`,
//! checked here against finite differences.

use autograd::{Params, Smoothing, Tape};
use faer::Mat;
use record::{Notebook, say, show};

// ANCHOR: logsumexp
/// `ln Σ_j e^{z_j}` as written.
pub fn naive_log_sum_exp(z: &[f64]) -> f64 {
    libm::log(z.iter().map(|&v| libm::exp(v)).sum::<f64>())
}

/// The same, shifted by the largest logit `m`: `m + ln Σ_j e^{z_j − m}`.
/// Every exponent is ≤ 0, so no term overflows, and one term is exactly 1,
/// so the sum cannot underflow to 0.
pub fn log_sum_exp(z: &[f64]) -> f64 {
    let m = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    m + libm::log(z.iter().map(|&v| libm::exp(v - m)).sum::<f64>())
}

/// The loss built from primitives, `m + ln Σ_j e^{z_j − m} − z_y` with the
/// row maximum `m` held constant, and the gradient autograd finds for it by
/// going back through exp, the sum, ln and the pick of `z_y`.
pub fn loss_from_primitives(z: &[f64], y: usize) -> (f64, Vec<f64>) {
    let v = z.len();
    let m = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut params = Params::new();
    let id = params.add("z", Mat::from_fn(1, v, |_, j| z[j]));
    let tape = Tape::new(&params);
    let constant = |rows, cols, f: &dyn Fn(usize) -> f64| {
        tape.input(Mat::from_fn(rows, cols, |i, j| f(i + j)))
    };
    let z_var = tape.param(id); // (1, V)
    let sum = z_var.sub(constant(1, v, &|_| m)).exp().matmul(constant(v, 1, &|_| 1.0)); // (1, 1)
    let lse = sum.ln().add(constant(1, 1, &|_| m)); // (1, 1)
    let z_y = z_var.matmul(constant(v, 1, &|j| if j == y { 1.0 } else { 0.0 })); // (1, 1)
    let loss = lse.sub(z_y);
    let value = loss.scalar();
    let grads = tape.backward(loss);
    let g = grads.get(id).expect("z is used");
    (value, (0..v).map(|j| g[(0, j)]).collect())
}

/// The loss and its gradient from the framework's cross-entropy op, whose
/// backward writes `softmax(z) − onehot(y)` in one step.
pub fn loss_from_op(z: &[f64], y: usize) -> (f64, Vec<f64>) {
    let mut params = Params::new();
    let id = params.add("z", Mat::from_fn(1, z.len(), |_, j| z[j]));
    let tape = Tape::new(&params);
    let loss = tape.param(id).cross_entropy(&[y], None, Smoothing::None);
    let value = loss.scalar();
    let grads = tape.backward(loss);
    let g = grads.get(id).expect("z is used");
    (value, (0..z.len()).map(|j| g[(0, j)]).collect())
}

/// The central difference `(L(z + h·e_j) − L(z − h·e_j)) / 2h` of every logit.
pub fn finite_differences(z: &[f64], y: usize, h: f64) -> Vec<f64> {
    (0..z.len())
        .map(|j| {
            let mut up = z.to_vec();
            let mut down = z.to_vec();
            up[j] += h;
            down[j] -= h;
            (loss_from_primitives(&up, y).0 - loss_from_primitives(&down, y).0) / (2.0 * h)
        })
        .collect()
}
// ANCHOR_END: logsumexp

pub fn logsumexp(nb: &mut Notebook) {
    nb.demo("logsumexp", "L6 03.1 · The loss as logsumexp(z) − z_y, at logits near 1000");
    let z = [1000.0, 999.0, 998.0];
    let y = 0;
    let naive = naive_log_sum_exp(&z);
    let stable = log_sum_exp(&z);
    let shown = |v: f64| if v.is_finite() { format!("{v:.6}") } else { format!("{v}") };
    say!(nb, "logits z = (1000, 999, 998), class y = {y}");
    let n = nb.value("lse_naive", shown(naive));
    let s = nb.value("lse_stable", shown(stable));
    say!(
        nb,
        "ln Σ e^z, as written:        {n}   (e^1000 is beyond the largest f64, {:.3e})",
        f64::MAX
    );
    say!(nb, "m + ln Σ e^(z − m), m = max: {s}");
    let (loss, grad) = loss_from_primitives(&z, y);
    let l = nb.value("lse_loss", format!("{loss:.6}"));
    say!(nb, "loss = logsumexp(z) − z_y = {l}, built from sub, exp, a product, ln and add");
    // the formula, from the shifted logits (z − m is exact here: whole numbers)
    let m = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = z.iter().map(|&v| libm::exp(v - m)).collect();
    let softmax: Vec<f64> = e.iter().map(|&x| x / e.iter().sum::<f64>()).collect();
    let expected: Vec<f64> =
        softmax.iter().enumerate().map(|(j, &p)| p - if j == y { 1.0 } else { 0.0 }).collect();
    say!(nb, "autograd through those ops: {}", show::tuple(grad.iter().copied(), 6));
    say!(nb, "softmax(z) − onehot(y):     {}", show::tuple(expected.iter().copied(), 6));
    let fd = finite_differences(&z, y, 1e-5);
    say!(nb, "finite differences, h = 1e-5: {}", show::tuple(fd.iter().copied(), 6));
    let (_, op) = loss_from_op(&z, y);
    let gap = |a: &[f64], b: &[f64]| {
        a.iter().zip(b).fold(0.0, |m, (x, y)| blocks::worse(m, (x - y).abs()))
    };
    let fg = nb.value("lse_grad_formula_gap", show::sci(gap(&grad, &expected), 1));
    let fdg = nb.value("lse_grad_fd_gap", show::sci(gap(&grad, &fd), 1));
    let og = nb.value("lse_grad_op_gap", show::sci(gap(&grad, &op), 1));
    say!(nb, "largest difference from autograd's: the formula {fg}, finite differences {fdg},");
    say!(nb, "the cross-entropy op (which writes the formula into its backward) {og}");
}
