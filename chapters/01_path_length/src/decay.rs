//! Lecture 17 §1: what sets the RNN's rate of forgetting. Each step back
//! multiplies the Jacobian by D_t·W_hhᵀ, so the rate is roughly the
//! spectral radius of W_hh times a typical slope tanh' = 1 − h_t²; the
//! demo changes one setting at a time and measures both.

use blocks::matmul;
use faer::Mat;
use record::{Notebook, say, show};

use crate::models::{frobenius, measure};
use crate::{Init, Options};

/// The geometric mean factor per step between distance 1 and n/2 (none
/// for n < 4, or when the RNN does not feel input n − 2 at all).
pub fn per_step(rnn: &[f64]) -> Option<f64> {
    per_step_between(rnn, 1, rnn.len() / 2)
}

/// The geometric mean factor per step from distance `a` to `b > a`.
pub fn per_step_between(rnn: &[f64], a: usize, b: usize) -> Option<f64> {
    (b > a && rnn[a] > 0.0).then(|| libm::pow(rnn[b] / rnn[a], 1.0 / (b - a) as f64))
}

/// How often [`spectral_radius`] squares W: it compares W^{2k} with W^k
/// for k = 2^(SQUARINGS − 1) = 512.
pub const SQUARINGS: u32 = 10;

/// The spectral radius ρ(W) = lim ‖W^k‖^{1/k}, estimated as
/// (‖W^{2k}‖_F / ‖W^k‖_F)^{1/k} with k = 2^(SQUARINGS − 1): the ratio alone
/// is about ρ^k. W is squared repeatedly and rescaled each time so that
/// nothing overflows; the log of the scale is kept.
pub fn spectral_radius(w: &Mat<f64>) -> f64 {
    let norm = frobenius(w);
    if norm == 0.0 {
        return 0.0;
    }
    let mut m = w * faer::Scale(1.0 / norm);
    let mut log_norm = libm::log(norm); // ln ‖W^k‖, k = 1
    let mut previous = log_norm;
    for _ in 0..SQUARINGS {
        m = matmul(m.as_ref(), m.as_ref());
        let s = frobenius(&m);
        if s == 0.0 {
            return 0.0; // nilpotent
        }
        m *= faer::Scale(1.0 / s);
        previous = log_norm;
        log_norm = 2.0 * log_norm + libm::log(s);
    }
    let k = (1u64 << (SQUARINGS - 1)) as f64;
    libm::exp((log_norm - previous) / k)
}

/// The largest singular value ‖W‖₂, by 200 steps of power iteration on WᵀW.
pub fn spectral_norm(w: &Mat<f64>) -> f64 {
    let d = w.ncols();
    let mut v = Mat::<f64>::from_fn(d, 1, |_, _| 1.0 / (d as f64).sqrt()); // (d, 1)
    let mut sigma = 0.0;
    for _ in 0..200 {
        let wv = matmul(w.as_ref(), v.as_ref()); // (d, 1)
        sigma = frobenius(&wv);
        if sigma == 0.0 {
            return 0.0;
        }
        let u = matmul(w.transpose(), wv.as_ref()); // (d, 1)
        v = &u * faer::Scale(1.0 / frobenius(&u));
    }
    sigma
}

// ANCHOR: rnn_decay
/// The RNN's factor per step under one change of setting at a time,
/// beside the spectral radius of W_hh and the mean slope of tanh.
pub fn rnn_decay(opts: &Options, nb: &mut Notebook) {
    nb.demo("rnn_decay", "L17 01.4 · What sets the RNN's rate of forgetting?");
    let k = nb.value("rho_k", (1u64 << (SQUARINGS - 1)).to_string());
    say!(
        nb,
        "ρ(W_hh) = (‖W^2k‖_F / ‖W^k‖_F)^(1/k) with k = {k}; mean tanh' over all steps and units"
    );
    let sqrt3 = 3f64.sqrt(); // uniform(±1/√d) has variance 1/(3d); ×√3 makes it 1/d
    let rows = [
        ("run", "as run above".to_string(), opts.clone()),
        ("wide", "--width 128".into(), Options { width: 128, ..opts.clone() }),
        ("small_x", "--input-scale 0.1".into(), Options { input_scale: 0.1, ..opts.clone() }),
        (
            "rec",
            format!("--recurrent-scale {}", show::num(sqrt3, 2)),
            Options { recurrent_scale: sqrt3, ..opts.clone() },
        ),
        ("normal", "--init normal".into(), Options { init: Init::Normal, ..opts.clone() }),
    ];
    let line = |c: &[&str]| {
        format!("{:<24}  {:>8}  {:>7}  {:>7}  {:>10}  {:>12}", c[0], c[1], c[2], c[3], c[4], c[5])
    };
    say!(
        nb,
        "{}",
        line(&["setting", "per step", "ρ(W_hh)", "‖W_hh‖₂", "mean tanh'", "ρ·mean tanh'"])
    );
    for (name, label, o) in rows {
        let m = measure(&o, false);
        let rho = spectral_radius(&m.w_hh);
        let cells = [
            ("per_step", per_step(&m.rnn).map_or("–".into(), |f| show::num(f, 2))),
            ("rho", show::num(rho, 2)),
            ("norm2", show::num(spectral_norm(&m.w_hh), 2)),
            ("slope", show::num(m.mean_slope, 2)),
            ("predicted", show::num(rho * m.mean_slope, 2)),
        ];
        let mut shown = vec![label];
        for (what, v) in cells {
            shown.push(nb.value(&format!("{name}_{what}"), v));
        }
        say!(nb, "{}", line(&shown.iter().map(String::as_str).collect::<Vec<_>>()));
    }
}
// ANCHOR_END: rnn_decay
