//! Lecture 17 demo 01.4 — path length, measured: the norm of the Jacobian
//! of the last output with respect to each input, for a random RNN and a
//! random self-attention layer; then the same with variance-preserving
//! weights, the setting that decays at the lecture's rate.

use record::svg::{LogPlot, Series};
use record::{Notebook, say, show};

use crate::decay::{per_step, per_step_between};
use crate::models::{Measured, measure};
use crate::{Init, Options};

/// Reports [`measure`]: for each distance `n − 1 − j`, the mean over `seqs`
/// random sequences of ‖∂ output_{n−1} / ∂ x_j‖_F, for an RNN and for
/// self-attention, printed by distance and drawn as Figure 1.1.
pub fn path_length(opts: &Options, nb: &mut Notebook) {
    nb.demo("path_length", "L17 01.4 · How much does the last output feel input j?");
    let m = measure(opts, true);
    let n = opts.len as usize;
    let (len, width, count) = (
        nb.value("len", n.to_string()),
        nb.value("width", opts.width.to_string()),
        nb.value("seqs", opts.seqs.to_string()),
    );
    say!(nb, "n = {len}, d = {width}, {count} random sequences, seed {}", opts.seed);
    report(nb, opts, &m, "");
    nb.value("dhalf", (n / 2).to_string());
    nb.value("dlast", (n - 1).to_string());
    nb.value("uniform_weight", show::num(1.0 / n as f64, 4));

    let curve = |v: &[f64]| v.iter().enumerate().map(|(t, &s)| (t as f64, s)).collect::<Vec<_>>();
    let series = [
        Series { label: "RNN", colour: "#d62728", points: curve(&m.rnn) },
        Series { label: "attention", colour: "#1f77b4", points: curve(&m.attn) },
    ];
    let plot = LogPlot {
        series: &series,
        x_label: "distance n − 1 − j",
        y_label: "‖∂ output_last / ∂ x_j‖_F",
    };
    nb.figure("sensitivity", plot.to_svg());
}

/// The mean sensitivity near (distances 1–8) and far away (n/2 … n − 1).
pub fn near_far(v: &[f64]) -> (f64, f64) {
    let n = v.len();
    let mean = |r: std::ops::RangeInclusive<usize>| {
        let r: Vec<usize> = r.filter(|&t| t < n).collect();
        r.iter().map(|&t| v[t]).sum::<f64>() / r.len().max(1) as f64
    };
    (mean(1..=8), mean(n / 2..=n - 1))
}

/// The smallest and the largest sensitivity over distances 1 … n − 1.
pub fn min_max(v: &[f64]) -> (f64, f64) {
    let rest = &v[1.min(v.len())..];
    (rest.iter().copied().fold(f64::INFINITY, f64::min), rest.iter().copied().fold(0.0, f64::max))
}

/// Print the table of sensitivities by distance and its summaries,
/// recording each summary under `prefix` + its name.
fn report(nb: &mut Notebook, opts: &Options, m: &Measured, prefix: &str) {
    let n = opts.len as usize;
    let value =
        |nb: &mut Notebook, name: &str, shown: String| nb.value(&format!("{prefix}{name}"), shown);
    say!(nb, "{:>8}  {:>9}  {:>14}", "distance", "RNN", "self-attention");
    let shown: Vec<usize> =
        [0, 1, 2, 4, 8, 16, 32, 48, 63, n - 1].into_iter().filter(|&t| t < n).collect();
    let mut last = usize::MAX;
    for &dist in &shown {
        if dist != last {
            let (r, a) = (show::sci(m.rnn[dist], 1), show::sci(m.attn[dist], 1));
            say!(nb, "{dist:>8}  {r:>9}  {a:>14}");
        }
        last = dist;
    }
    let ((rnn_near, rnn_far), (attn_near, attn_far)) = (near_far(&m.rnn), near_far(&m.attn));
    let rnn_near = value(nb, "rnn_avg_near", show::sci(rnn_near, 1));
    let rnn_far = value(nb, "rnn_avg_far", show::sci(rnn_far, 1));
    let attn_near = value(nb, "attn_avg_near", show::sci(attn_near, 1));
    let attn_far = value(nb, "attn_avg_far", show::sci(attn_far, 1));
    say!(nb, "mean over distances 1–8:   RNN {rnn_near}, self-attention {attn_near}");
    let (a, b) = (n / 2, n - 1);
    say!(nb, "mean over distances {a}–{b}: RNN {rnn_far}, self-attention {attn_far}");
    if let Some(factor) = per_step(&m.rnn) {
        let factor = value(nb, "rnn_per_step", show::num(factor, 2));
        say!(nb, "RNN: each step back multiplies the sensitivity by about {factor}");
    }
    if let Some(factor) = per_step_between(&m.rnn, n / 2, n - 1).filter(|_| n >= 4) {
        let factor = value(nb, "rnn_per_step_far", show::num(factor, 2));
        say!(nb, "RNN, distances {}–{}: about {factor} per step", n / 2, n - 1);
    }
    for (name, dist) in [("rnn_d1", 1), ("rnn_dhalf", n / 2), ("rnn_dlast", n - 1)] {
        value(nb, name, show::sci(m.rnn[dist.min(n - 1)], 1));
    }
    let (lo, hi) = min_max(&m.attn);
    let lo = value(nb, "attn_min", show::sci(lo, 1));
    let hi = value(nb, "attn_max", show::sci(hi, 1));
    say!(nb, "self-attention, distances 1–{}: between {lo} and {hi}", n - 1);
    value(nb, "attn_d0", show::sci(m.attn[0], 1));
    let path = value(nb, "value_path", show::sci(m.value_path / n as f64, 1));
    say!(nb, "self-attention, the value path alone, ‖W^V·W^O‖_F / n: {path}");
    let fixed = value(nb, "attn_d0_fixed_q", show::sci(m.attn_fixed_query[0], 1));
    say!(nb, "self-attention, distance 0 with the query held fixed: {fixed}");
    let w_max = value(nb, "weight_max", show::num(m.max_weight, 3));
    let spread = value(nb, "spread", show::num(m.spread, 1));
    say!(nb, "the last query's weights: largest {w_max}, spread over {spread} of {n} positions");
}

// ANCHOR: normal_init
/// The same measurement with every weight matrix drawn from N(0, 1/d)
/// (`--init normal`), its RNN curve beside the default's.
pub fn normal_init(opts: &Options, nb: &mut Notebook) {
    nb.demo("normal_init", "L17 01.4 · The same with variance-preserving weights");
    let normal = Options { init: Init::Normal, ..opts.clone() };
    let m = measure(&normal, true);
    say!(
        nb,
        "as above with --init normal: W_xh, W_hh, W^Q, W^K, W^V, W^O from N(0, 1/d), biases 0"
    );
    report(nb, &normal, &m, "normal_");

    let base = measure(&Options { init: Init::Pytorch, ..opts.clone() }, false);
    let curve = |v: &[f64]| v.iter().enumerate().map(|(t, &s)| (t as f64, s)).collect::<Vec<_>>();
    let series = [
        Series { label: "RNN, pytorch", colour: "#d62728", points: curve(&base.rnn) },
        Series { label: "RNN, normal", colour: "#ff7f0e", points: curve(&m.rnn) },
        Series { label: "attention, normal", colour: "#1f77b4", points: curve(&m.attn) },
    ];
    let plot = LogPlot {
        series: &series,
        x_label: "distance n − 1 − j",
        y_label: "‖∂ output_last / ∂ x_j‖_F",
    };
    nb.figure("sensitivity_normal", plot.to_svg());
}
// ANCHOR_END: normal_init
