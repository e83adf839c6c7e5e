//! The chapter's exercises, checked by running them: Lecture 17 exercise 6,
//! a narrower clock, and the reversal of §6.6 trained for longer.

use blocks::worse;
use record::{Notebook, say, show};

use crate::previous_token::{N, head};
use crate::relative::dot;
use crate::runs::{Kind, table, train};
use crate::sinusoids::omega;

// ANCHOR: exercise_6
/// PE(p)·PE(p + k) = Σ_i cos(ω_i k): its value at k = 0, its symmetry in k
/// (the largest |PE(50)·PE(50+k) − PE(50)·PE(50−k)|, k = 1..40), and how a
/// non-symmetric W^Q — this chapter's previous-token head, β = 8 — still
/// tells "before" from "after": its mean weight on i − 1 and on i + 1.
pub fn exercise_6_numbers(d: usize) -> (f64, f64, f64, f64) {
    let at0 = dot(50.0, 50.0, d);
    let worst = (1..=40)
        .map(|k| (dot(50.0, 50.0 + f64::from(k), d) - dot(50.0, 50.0 - f64::from(k), d)).abs())
        .fold(0.0, worse);
    let (w, _, _) = head(d, 8.0);
    let before = (1..N - 1).map(|i| w[(i, i - 1)]).sum::<f64>() / (N - 2) as f64;
    let after = (1..N - 1).map(|i| w[(i, i + 1)]).sum::<f64>() / (N - 2) as f64;
    (at0, worst, before, after)
}
// ANCHOR_END: exercise_6

/// Exercise 6's numbers, printed.
pub fn exercise_6(d: usize, nb: &mut Notebook) {
    nb.demo("exercise_6", "L17 exercise 6 · The dot product of two encodings");
    let (at0, worst, before, after) = exercise_6_numbers(d);
    let at0 = nb.value("ex6_k0", show::num(at0, 2));
    say!(nb, "d = {d}: PE(p)·PE(p) = {at0} = d/2 (every pair contributes sin² + cos² = 1)");
    let worst = nb.value("ex6_symmetry", show::sci(worst, 1));
    say!(
        nb,
        "max over k = 1..40 of |PE(50)·PE(50+k) − PE(50)·PE(50−k)| = {worst}: k and −k look alike"
    );
    let before = nb.value("ex6_before", show::num(before, 3));
    let after = nb.value("ex6_after", show::num(after, 3));
    say!(
        nb,
        "with W^Q = 8·M₋₁ (not symmetric): mean weight on i − 1 = {before}, on i + 1 = {after}"
    );
}

// ANCHOR: narrower
/// A narrower clock: the slowest hand and the previous-token head with
/// d_model = 16 beside the chapter's width, and the score gaps behind them.
pub fn narrower(d: usize, nb: &mut Notebook) {
    nb.demo("narrower", "Exercise · A narrower clock, d_model = 16");
    say!(nb, "Δ(m)/β: score gap between the predecessor and a key m positions further away");
    let head_row = ["d_model", "slowest wavelength", "β = 1: on i − 1", "β = 16: on i − 1"];
    say!(
        nb,
        "{:>8} {:>20} {:>17} {:>17} {:>8} {:>8}",
        head_row[0],
        head_row[1],
        head_row[2],
        head_row[3],
        "Δ(1)/β",
        "Δ(19)/β"
    );
    let widths = if d == 16 { vec![16] } else { vec![16, d] };
    for width in widths {
        let slowest = 2.0 * std::f64::consts::PI / omega(width / 2 - 1, width);
        let slowest =
            nb.value(&format!("narrow_d{width}_slowest"), show::grouped(slowest.round() as usize));
        let mut cells = Vec::new();
        for beta in [1.0, 16.0] {
            let (_, hits, mean) = head(width, beta);
            let mean = nb.value(&format!("narrow_d{width}_b{beta}_weight"), show::num(mean, 3));
            cells.push(format!("{mean} ({hits}/{})", N - 1));
        }
        // softmax sees only gaps: Σ_i (1 − cos ω_i m) / √d per unit of β
        let gap = |m: f64| {
            (0..width / 2).map(|i| 1.0 - libm::cos(omega(i, width) * m)).sum::<f64>()
                / (width as f64).sqrt()
        };
        let g1 = nb.value(&format!("narrow_d{width}_gap1"), show::num(gap(1.0), 3));
        let g19 = nb.value(&format!("narrow_d{width}_gap19"), show::num(gap(19.0), 2));
        say!(nb, "{width:>8} {slowest:>20} {:>17} {:>17} {g1:>8} {g19:>8}", cells[0], cells[1]);
    }
}
// ANCHOR_END: narrower

// ANCHOR: reversal_longer
/// The two rows of the reversal demo that failed, trained for `steps`
/// (1500 in the lecture's prototype) instead of 400: same seeds, same data.
pub fn reversal_longer(len: usize, steps: u32, seeds: &[u64], nb: &mut Notebook) {
    nb.demo("reversal_longer", "Exercise · Reversal without positions and with × √d, longer");
    say!(nb, "reversal, L = {len}, {steps} steps, seeds {seeds:?}, as in the reversal demo");
    let runs = train(&[Kind::None, Kind::ScaledEmbeddings], len, steps, seeds);
    table("long", &runs, seeds, nb);
}
// ANCHOR_END: reversal_longer
