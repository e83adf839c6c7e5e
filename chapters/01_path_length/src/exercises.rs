//! Lecture 17 §1, the chapter's exercises 2 and 6 run inside the book: the
//! RNN with a recurrent matrix three times larger, and the variance-
//! preserving measurement repeated with the next four seeds.

use record::{Notebook, say, show};

use crate::decay::{per_step_between, spectral_norm, spectral_radius};
use crate::models::{Measured, measure};
use crate::sensitivity::{min_max, near_far};
use crate::{Init, Options};

/// The factor per step from distance `a` to `b`, as printed ("–" if none).
fn rate(rnn: &[f64], a: usize, b: usize) -> String {
    shown_rate(per_step_between(rnn, a, b))
}

/// A factor per step as printed ("–" if there is none).
fn shown_rate(f: Option<f64>) -> String {
    f.map_or("–".into(), |f| show::num(f, 2))
}

// ANCHOR: larger_recurrent
/// Exercise 2 run: the RNN with W_hh three times larger, how its
/// sensitivity changes per step, and what should predict that — ρ(W_hh),
/// ‖W_hh‖₂ and the mean slope of tanh (in `m`).
pub struct Larger {
    pub opts: Options,
    pub m: Measured,
    /// Geometric mean factor per step over distances 1..n/2, and n/2..n−1
    /// (`None` where a sensitivity is zero).
    pub per_step: Option<f64>,
    pub per_step_far: Option<f64>,
    pub rho: f64,
    pub norm2: f64,
}

/// The RNN alone, measured as in the chapter's demo but with
/// `--recurrent-scale 3`.
pub fn larger_recurrent_run(opts: &Options) -> Larger {
    let big = Options { recurrent_scale: 3.0, ..opts.clone() };
    let m = measure(&big, false); // the RNN only
    let (half, last) = (big.len as usize / 2, big.len as usize - 1);
    Larger {
        per_step: per_step_between(&m.rnn, 1, half),
        per_step_far: per_step_between(&m.rnn, half, last),
        rho: spectral_radius(&m.w_hh),
        norm2: spectral_norm(&m.w_hh),
        m,
        opts: big,
    }
}
// ANCHOR_END: larger_recurrent

/// Exercise 2: `--recurrent-scale 3`, the RNN's numbers that the default
/// run prints, in one place.
pub fn larger_recurrent(opts: &Options, nb: &mut Notebook) {
    nb.demo("larger_recurrent", "Exercise 2 · W_hh three times larger");
    let Larger { opts: big, m, per_step, per_step_far, rho, norm2 } = larger_recurrent_run(opts);
    let n = big.len as usize;
    let (half, last) = (n / 2, n - 1);
    let rows = [
        (format!("per step, distances 1–{half}"), "per_step", shown_rate(per_step)),
        (format!("per step, distances {half}–{last}"), "per_step_far", shown_rate(per_step_far)),
        ("ρ(W_hh)".into(), "rho", show::num(rho, 2)),
        ("‖W_hh‖₂".into(), "norm2", show::num(norm2, 2)),
        ("mean tanh'".into(), "slope", show::num(m.mean_slope, 2)),
        ("ρ·mean tanh'".into(), "predicted", show::num(rho * m.mean_slope, 2)),
        ("sensitivity at distance 1".into(), "d1", show::sci(m.rnn[1], 1)),
        (format!("sensitivity at distance {half}"), "dhalf", show::sci(m.rnn[half], 1)),
        (format!("sensitivity at distance {last}"), "dlast", show::sci(m.rnn[last], 1)),
    ];
    say!(nb, "--recurrent-scale 3, n = {n}, seed {}:", big.seed);
    for (label, name, shown) in rows {
        let shown = nb.value(&format!("ex2_{name}"), shown);
        say!(nb, "{label:<27}  {shown:>8}");
    }
}

// ANCHOR: other_seeds
/// Exercise 6: `--init normal` with the next four seeds — the RNN's rate
/// and what sets it, and whether attention still ignores distance.
pub fn other_seeds(opts: &Options, nb: &mut Notebook) {
    nb.demo("other_seeds", "Exercise 6 · --init normal with four more seeds");
    let (n, width) = (opts.len as usize, [4, 8, 8, 7, 10, 12, 13, 12]);
    let (half, last) = (n / 2, n - 1);
    let line = |cells: &[String]| {
        let padded: Vec<String> =
            cells.iter().zip(width).map(|(c, w)| format!("{c:>w$}")).collect();
        padded.join("  ")
    };
    let head = ["seed", &format!("1–{half}"), &format!("{half}–{last}"), "ρ(W_hh)", "mean tanh'"]
        .into_iter()
        .chain(["ρ·mean tanh'", "attn far/near", "attn max/min"])
        .map(String::from)
        .collect::<Vec<_>>();
    say!(nb, "the RNN's factor per step over two ranges of distance; attention's means");
    say!(nb, "far/near (distances {half}–{last} over 1–8) and its max/min over 1–{last}");
    say!(nb, "{}", line(&head));
    let mut gap = f64::NEG_INFINITY; // the largest rate − ρ·mean tanh'
    for i in 1..=4u64 {
        let o = Options { init: Init::Normal, seed: opts.seed + i, ..opts.clone() };
        let m = measure(&o, true);
        let rho = spectral_radius(&m.w_hh);
        let predicted = rho * m.mean_slope;
        if let Some(r) = per_step_between(&m.rnn, 1, half) {
            gap = gap.max(r - predicted);
        }
        let ((near, far), (lo, hi)) = (near_far(&m.attn), min_max(&m.attn));
        let cells = [
            ("per_step", rate(&m.rnn, 1, half)),
            ("per_step_far", rate(&m.rnn, half, last)),
            ("rho", show::num(rho, 2)),
            ("slope", show::num(m.mean_slope, 2)),
            ("predicted", show::num(predicted, 2)),
            ("far_near", show::num(far / near, 2)),
            ("max_min", show::num(hi / lo, 1)),
        ];
        let mut shown = vec![o.seed.to_string()];
        for (what, v) in cells {
            shown.push(nb.value(&format!("ex6_s{i}_{what}"), v));
        }
        say!(nb, "{}", line(&shown));
    }
    let gap = nb.value("ex6_gap_max", if gap.is_finite() { show::num(gap, 2) } else { "–".into() });
    say!(nb, "largest excess of the measured factor (1–{half}) over ρ·mean tanh': {gap}");
}
// ANCHOR_END: other_seeds
