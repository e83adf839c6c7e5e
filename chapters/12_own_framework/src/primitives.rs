//! Lecture 6 §9.1 — building layers from the smallest ops, as HW3 builds
//! them from the dozen or so its framework has: GELU from a sigmoid, 1/√x
//! from exp and ln, LayerNorm and softmax from products, exp and ln. Each is
//! checked against the framework's own op (forward and backward).

use autograd::{Params, Tape, Var};
use faer::Mat;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

// ANCHOR: gelu_from_sigmoid
/// GELU's tanh form `½x(1 + tanh u)`, `u = √(2/π)(x + 0.044715x³)`, written
/// as `x·σ(2u)`: `½(1 + tanh u) = σ(2u)`, since `tanh u = 2σ(2u) − 1`.
pub fn gelu_from_sigmoid<'t>(x: Var<'t, f64>) -> Var<'t, f64> {
    let cube = x.mul(x).mul(x);
    let u = x.add(cube.scale(0.044_715)).scale((2.0 / std::f64::consts::PI).sqrt());
    x.mul(u.scale(2.0).sigmoid())
}
// ANCHOR_END: gelu_from_sigmoid

// ANCHOR: from_primitives
/// A constant (rows, cols) matrix of `v` on the tape.
fn filled<'t>(tape: &'t Tape<f64>, rows: usize, cols: usize, v: f64) -> Var<'t, f64> {
    tape.input(Mat::from_fn(rows, cols, |_, _| v))
}

/// `1/√x` as `exp(−½ ln x)`: two ops every framework has.
pub fn rsqrt<'t>(x: Var<'t, f64>) -> Var<'t, f64> {
    x.ln().scale(-0.5).exp()
}

/// Each row's mean, repeated across the row: `x · (1/d)·𝟙𝟙ᵀ`, a product
/// with a constant (d, d) matrix — how a framework without a row-sum op
/// reduces and broadcasts at once.
pub fn row_mean<'t>(x: Var<'t, f64>) -> Var<'t, f64> {
    let d = x.shape().1;
    x.matmul(filled(x.tape(), d, d, 1.0 / d as f64))
}

/// LayerNorm built from primitives: `(x − μ) · (σ² + ε)^−½ · γ + β`.
pub fn layer_norm_from_primitives<'t>(
    x: Var<'t, f64>,
    gamma: Var<'t, f64>,
    beta: Var<'t, f64>,
    eps: f64,
) -> Var<'t, f64> {
    let (n, d) = x.shape();
    let centred = x.sub(row_mean(x)); // (n, d)
    let var = row_mean(centred.mul(centred)); // (n, d), each row its variance
    let inv_std = rsqrt(var.add(filled(x.tape(), n, d, eps)));
    let gamma_rows = filled(x.tape(), n, 1, 1.0).matmul(gamma); // (n, d): γ on every row
    centred.mul(inv_std).mul(gamma_rows).add(beta) // β: a row added to every row
}

/// Softmax of each row built from primitives, with a constant `shift`
/// subtracted first: `exp(x − m) / Σ exp(x − m)`. The sum is a product with
/// a constant matrix of ones, its reciprocal `exp(−ln s)`.
pub fn softmax_from_primitives<'t>(x: Var<'t, f64>, shift: &Mat<f64>) -> Var<'t, f64> {
    let d = x.shape().1;
    let e = x.sub(x.tape().input(shift.clone())).exp(); // m is a constant: no gradient
    let sums = e.matmul(filled(x.tape(), d, d, 1.0)); // (n, d), each row its sum
    e.mul(sums.ln().scale(-1.0).exp())
}
// ANCHOR_END: from_primitives

/// The largest |a − b|, element by element.
fn gap(a: &Mat<f64>, b: &Mat<f64>) -> f64 {
    blocks::max_diff(a, b)
}

/// Value and gradient (of `Σ out ⊙ probe`) of `f` at `x`.
fn value_and_grad(
    x: &Mat<f64>,
    probe: &Mat<f64>,
    f: impl for<'t> Fn(Var<'t, f64>) -> Var<'t, f64>,
) -> (Mat<f64>, Mat<f64>) {
    let mut params = Params::new();
    let id = params.add("x", x.clone());
    let tape = Tape::new(&params);
    let out = f(tape.param(id));
    let value = out.value().clone();
    let grads = tape.backward(out.mul(tape.input(probe.clone())).sum());
    (value, grads.get(id).expect("x is used").clone())
}

/// The gradient of every entry of `x` through the softmax composed with
/// each shift: their largest distance from the framework's softmax op.
pub struct ShiftCheck {
    pub shifts: Vec<&'static str>,
    pub value_gaps: Vec<f64>,
    pub grad_gaps: Vec<f64>,
}

pub fn identities(seed: u64, nb: &mut Notebook) {
    nb.demo(
        "identities",
        "L6 §9.1 · Two identities HW3 builds on, and why the max needs no gradient",
    );
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    // GELU over a grid of x in [−6, 6], value and gradient
    let grid = Mat::from_fn(1201, 1, |i, _| -6.0 + i as f64 * 0.01);
    let ones = Mat::from_fn(1201, 1, |_, _| 1.0);
    let (op, d_op) = value_and_grad(&grid, &ones, |x| x.gelu());
    let (composed, d_composed) = value_and_grad(&grid, &ones, gelu_from_sigmoid);
    let g_val = nb.value("gelu_value_gap", show::sci(gap(&op, &composed), 1));
    let g_grad = nb.value("gelu_grad_gap", show::sci(gap(&d_op, &d_composed), 1));
    say!(nb, "GELU: ½x(1 + tanh u) against x·σ(2u), 1,201 points in [−6, 6]");
    say!(
        nb,
        "  largest difference: value {g_val}, gradient {g_grad} (the op's hand-written derivative against autograd through the composition)"
    );
    // 1/√x over 12 decades
    let xs = Mat::from_fn(1201, 1, |i, _| libm::pow(10.0, -6.0 + i as f64 * 0.01));
    let (r, dr) = value_and_grad(&xs, &ones, rsqrt);
    let rel = (0..xs.nrows()).fold(0.0, |m: f64, i| {
        let exact = 1.0 / xs[(i, 0)].sqrt();
        blocks::worse(m, (r[(i, 0)] - exact).abs() / exact)
    });
    let rel_d = (0..xs.nrows()).fold(0.0, |m: f64, i| {
        let exact = -0.5 / (xs[(i, 0)] * xs[(i, 0)].sqrt());
        blocks::worse(m, (dr[(i, 0)] - exact).abs() / exact.abs())
    });
    let r_val = nb.value("rsqrt_rel_gap", show::sci(rel, 1));
    let r_grad = nb.value("rsqrt_grad_rel_gap", show::sci(rel_d, 1));
    say!(nb, "1/√x as exp(−½ ln x), 1,201 points from 1e-6 to 1e6");
    say!(
        nb,
        "  largest relative difference from 1/√x: {r_val}; of the gradient from −½x^(−3/2): {r_grad}"
    );
    // softmax with the row max, zero, or any constant subtracted
    let (n, d) = (4, 6);
    let x = Mat::from_fn(n, d, |_, _| rng.random_range(-3.0..3.0));
    let probe = Mat::from_fn(n, d, |_, _| rng.random_range(-1.0..1.0));
    let (op, d_op) = value_and_grad(&x, &probe, |x| x.softmax_rows(None));
    let row_max = Mat::from_fn(n, d, |i, _| (0..d).map(|j| x[(i, j)]).fold(f64::MIN, f64::max));
    let shifts = [
        ("the row's max", row_max),
        ("0", Mat::zeros(n, d)),
        ("−7.5", Mat::from_fn(n, d, |_, _| -7.5)),
        ("a random number per row", {
            let r: Vec<f64> = (0..n).map(|_| rng.random_range(-5.0..5.0)).collect();
            Mat::from_fn(n, d, |i, _| r[i])
        }),
    ];
    say!(
        nb,
        "softmax built from exp, ln and products, with a constant m subtracted from each row ({n}×{d} logits):"
    );
    let (mut worst_value, mut worst_grad) = (0.0, 0.0);
    for (name, m) in &shifts {
        let (s, ds) = value_and_grad(&x, &probe, |x| softmax_from_primitives(x, m));
        let (v, g) = (gap(&s, &op), gap(&ds, &d_op));
        (worst_value, worst_grad) = (blocks::worse(worst_value, v), blocks::worse(worst_grad, g));
        say!(
            nb,
            "  m = {name:<24} value {}, gradient {} from the framework's softmax",
            show::sci(v, 1),
            show::sci(g, 1)
        );
    }
    let v = nb.value("shift_value_gap", show::sci(worst_value, 1));
    let g = nb.value("shift_grad_gap", show::sci(worst_grad, 1));
    say!(
        nb,
        "whatever m is, the values are within {v} and the gradients within {g} of the op's: ∂/∂m of softmax(x − m) is 0, so m may be held constant"
    );
    // and at logits near 1000, only the row max keeps exp finite
    let big = Mat::from_fn(1, 3, |_, j| 1000.0 - j as f64);
    let (s0, _) =
        value_and_grad(&big, &Mat::zeros(1, 3), |x| softmax_from_primitives(x, &Mat::zeros(1, 3)));
    let (sm, _) = value_and_grad(&big, &Mat::zeros(1, 3), |x| {
        softmax_from_primitives(x, &Mat::from_fn(1, 3, |_, _| 1000.0))
    });
    say!(
        nb,
        "logits (1000, 999, 998): with m = 0 the composed softmax gives {}; with m = the max, {}",
        show::row(s0.as_ref(), 0, 4),
        show::row(sm.as_ref(), 0, 4)
    );
    nb.value("softmax_m0_first", format!("{}", s0[(0, 0)]));
}

/// LayerNorm from primitives against the framework's LayerNorm op and
/// against PyTorch's `nn.LayerNorm` (the committed fixture), outputs and
/// gradients of x, γ and β.
pub fn layer_norm_built(nb: &mut Notebook) {
    nb.demo("layer_norm_built", "L6 §9.1 · A module from primitives: LayerNorm, three ways");
    let fix = twin::Fixture::named("layer_norm");
    let (x, gamma, beta) =
        (fix.input("x").mat(), fix.param("weight").mat(), fix.param("bias").mat());
    let probe = fix.input("probe").mat();
    let eps = fix.config["eps"];
    let mut params = Params::new();
    let ids = [params.add("x", x.clone()), params.add("gamma", gamma), params.add("beta", beta)];
    let run = |composed: bool| {
        let tape = Tape::new(&params);
        let [x, g, b] = ids.map(|p| tape.param(p));
        let y = if composed {
            layer_norm_from_primitives(x, g, b, eps)
        } else {
            x.layer_norm(g, b, eps)
        };
        let value = y.value().clone();
        let grads = tape.backward(y.mul(tape.input(probe.clone())).sum());
        let g: Vec<Mat<f64>> = ids.iter().map(|&p| grads.get(p).expect("used").clone()).collect();
        (value, g)
    };
    let (composed, d_composed) = run(true);
    let (op, d_op) = run(false);
    let torch_y = fix.output("y").mat();
    let torch_g = [fix.grad("x").mat(), fix.grad("weight").mat(), fix.grad("bias").mat()];
    let grad_gap = |a: &[Mat<f64>], b: &[Mat<f64>]| {
        a.iter().zip(b).fold(0.0, |m, (p, q)| blocks::worse(m, gap(p, q)))
    };
    let (n, d) = (x.nrows(), x.ncols());
    say!(nb, "{n} rows of d = {d}, ε = {eps}; the loss Σ y ⊙ probe; PyTorch {}", fix.torch);
    say!(nb, "                         output     gradients (x, γ, β)");
    let rows = [
        ("from primitives vs op", gap(&composed, &op), grad_gap(&d_composed, &d_op)),
        ("from primitives vs torch", gap(&composed, &torch_y), grad_gap(&d_composed, &torch_g)),
        ("the op vs torch", gap(&op, &torch_y), grad_gap(&d_op, &torch_g)),
    ];
    for (i, (name, v, g)) in rows.iter().enumerate() {
        let tag = ["built_vs_op", "built_vs_torch", "op_vs_torch"][i];
        let v = nb.value(&format!("ln_{tag}_out"), show::sci(*v, 1));
        let g = nb.value(&format!("ln_{tag}_grad"), show::sci(*g, 1));
        say!(nb, "  {name:<24} {v:<10} {g}");
    }
}
