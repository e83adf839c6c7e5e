//! Lecture 17 demo 04.4 — ‖∂out_t/∂in_s‖ of a whole decoder layer, exact,
//! by reverse mode: one backward pass per output entry gives one row of the
//! Jacobian. The input is made a parameter of the tape, so its gradient
//! comes back with the others.

use autograd::{Params, Tape};
use blocks::layers::causal_mask;
use blocks::worse;
use faer::Mat;
use record::svg::Heatmap;
use record::{Notebook, say, show};

use crate::small::{D_MODEL, N, POS, Small};

// ANCHOR: jacobian_norms
/// `norms[t][s] = ‖∂out_t/∂in_s‖` (Frobenius, over the d_model × d_model
/// block), for the self-attention mask `keep`.
fn jacobian_norms(small: &Small, keep: Option<&Mat<f64>>) -> Vec<Vec<f64>> {
    let mut params: Params<f64> = small.params.clone();
    let input = params.add("input", small.y.clone()); // (N, d_model)
    let mut squares = vec![vec![0.0; N]; N];
    for t in 0..N {
        for c in 0..D_MODEL {
            let tape = Tape::new(&params);
            let (out, _) = small.forward_on(&tape, tape.param(input), keep); // (N, d_model)
            let pick = Mat::from_fn(N, D_MODEL, |i, j| if (i, j) == (t, c) { 1.0 } else { 0.0 });
            let grads = tape.backward(out.mul(tape.input(pick)).sum()); // ∂out[t, c]/∂input
            let g = grads.get(input).expect("the input is a parameter"); // (N, d_model)
            for s in 0..N {
                squares[t][s] += (0..D_MODEL).map(|j| g[(s, j)] * g[(s, j)]).sum::<f64>();
            }
        }
    }
    squares.iter().map(|row| row.iter().map(|x| x.sqrt()).collect()).collect()
}
// ANCHOR_END: jacobian_norms

pub fn jacobian(seed: u64, nb: &mut Notebook) {
    nb.demo("jacobian", "L17 04.4 · ‖∂out_t/∂in_s‖ of a whole Post-LN decoder layer, exact");
    let small = Small::new(seed);
    let keep = causal_mask(N);
    let with = jacobian_norms(&small, Some(&keep));
    let without = jacobian_norms(&small, None);
    for (label, j) in [("with the mask", &with), ("without the mask", &without)] {
        say!(nb, "{label} (row = output t, column = input s):");
        let m = Mat::from_fn(N, N, |t, s| j[t][s]);
        for line in show::table(m.as_ref(), &POS, &POS, 3) {
            say!(nb, "  {line}");
        }
    }
    let pairs = || (0..N).flat_map(|t| (0..N).map(move |s| (t, s)));
    let future = pairs().filter(|&(t, s)| s > t).map(|(t, s)| with[t][s]).fold(0.0, worse);
    let seen =
        pairs().filter(|&(t, s)| s <= t).map(|(t, s)| with[t][s]).fold(f64::INFINITY, f64::min);
    let open = pairs().map(|(t, s)| without[t][s]).fold(f64::INFINITY, f64::min);
    let future = nb.value("jacobian_future_masked", show::sci(future, 1));
    let seen = nb.value("jacobian_seen_min", show::num(seen, 3));
    let open = nb.value("jacobian_min_unmasked", show::num(open, 3));
    say!(nb, "with the mask: largest entry with s > t = {future}; smallest with s ≤ t = {seen}");
    say!(nb, "without the mask: smallest entry = {open}");
    // one colour scale for both figures: the largest entry of either
    let top = pairs().map(|(t, s)| with[t][s].max(without[t][s])).fold(0.0, f64::max);
    let labels: Vec<String> = POS.iter().map(|p| format!("in {p}")).collect();
    let cols: Vec<&str> = labels.iter().map(String::as_str).collect();
    let rows: Vec<String> = POS.iter().map(|p| format!("out {p}")).collect();
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    for (name, j, axis) in [
        ("jacobian_masked", &with, "input s → · with the mask"),
        ("jacobian_unmasked", &without, "input s → · without the mask"),
    ] {
        let figure = Heatmap {
            row_labels: &rows,
            col_labels: &cols,
            values: j,
            row_axis: "output t ↓",
            col_axis: axis,
            decimals: 2,
            max: top,
            legend: "‖∂out_t/∂in_s‖",
        };
        // an exact 0 grey: on the linear scale it would look like the 0.4 blocks
        nb.figure(name, figure.to_svg_marking_zeros("exactly 0"));
    }
}
