//! The gradient that reaches W^Q at step 0 of the lookup sweep, with and
//! without the 1/√d_k — what reading 3 of the sweep needs measured rather
//! than argued.
//!
//! Without the division the scores are √d_k times larger, so the chain rule
//! gives W^Q a √d_k times larger gradient *if* the softmax's Jacobian stayed
//! the same; it does not, because the larger scores also sharpen the softmax
//! and shrink J. Which of the two wins at each d_k is what this demo shows.

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

use crate::lookup::{BATCH, Layer, Task, logits};
use autograd::{Smoothing, Tape};

/// ‖M‖_F, summed column by column in a fixed order.
fn frobenius(m: &faer::Mat<f32>) -> f64 {
    let mut sum = 0.0;
    for j in 0..m.ncols() {
        sum += m.col_as_slice(j).iter().map(|&x| f64::from(x) * f64::from(x)).sum::<f64>();
    }
    sum.sqrt()
}

/// ‖∇W^Q‖_F and ‖∇W^K‖_F of the cross-entropy of one batch, at the initial weights.
fn start_gradients(layer: &Layer, task: &Task, data_seed: u64) -> (f64, f64) {
    let b = task.batch(BATCH, &mut Pcg64Mcg::seed_from_u64(data_seed)); // the sweep's first batch
    let tape = Tape::new(&layer.params);
    let loss = logits(&layer.ids, &tape, &b).cross_entropy(&b.answers, None, Smoothing::None);
    let grads = tape.backward(loss);
    let norm = |id| grads.get(id).map_or(0.0, frobenius);
    (norm(layer.ids.w_q), norm(layer.ids.w_k))
}

// ANCHOR: gradient_at_start
/// For each d_k: the gradient on W^Q and W^K at step 0 of the sweep (its
/// initial weights, its first batch), scaled and unscaled, and the ratio;
/// for the sweep's seed and for the next one (exercise 4's sweep).
pub fn gradient_at_start(dks: &[usize], seed: u64, nb: &mut Notebook) {
    nb.demo("gradient_at_start", "The gradient on W^Q and W^K at step 0, with and without ÷√d_k");
    say!(nb, "each sweep's initial weights and first batch; ‖·‖ is the Frobenius norm");
    say!(
        nb,
        "{:>4} {:>5} │ {:>8} {:>8} │ {:>10} {:>8} │ {:>10} {:>5}",
        "seed",
        "d_k",
        "‖∇W^Q‖",
        "‖∇W^K‖",
        "raw ‖∇W^Q‖",
        "‖∇W^K‖",
        "raw/scaled",
        "√d_k"
    );
    for (s, prefix) in [(seed, ""), (seed + 1, "next_")] {
        let (init_seed, data_seed, label_seed) = (s, s + 1, s + 3); // as in the sweep
        let task = Task::new(false, &mut Pcg64Mcg::seed_from_u64(label_seed));
        for &d in dks {
            let grad = |scaled| {
                let layer = Layer::new(d, scaled, &mut Pcg64Mcg::seed_from_u64(init_seed));
                start_gradients(&layer, &task, data_seed)
            };
            let ((q_s, k_s), (q_r, k_r)) = (grad(true), grad(false));
            let tag = format!("{prefix}grad_dk{d}");
            let q_s_shown = nb.value(&format!("{tag}_scaled_wq"), show::num(q_s, 4));
            let q_r_shown = nb.value(&format!("{tag}_raw_wq"), show::num(q_r, 4));
            let ratio = nb.value(&format!("{tag}_ratio"), show::num(q_r / q_s, 2));
            say!(
                nb,
                "{s:>4} {d:>5} │ {q_s_shown:>8} {:>8} │ {q_r_shown:>10} {:>8} │ {ratio:>10} {:>5}",
                show::num(k_s, 4),
                show::num(k_r, 4),
                show::num((d as f64).sqrt(), 1)
            );
        }
    }
    say!(
        nb,
        "a ratio of √d_k: the softmax did not sharpen; less: the sharper softmax took part back"
    );
}
// ANCHOR_END: gradient_at_start
