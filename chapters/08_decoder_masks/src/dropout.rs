//! Lecture 6 §7.2 (script 03.2) — dropout: in training each entry is zeroed
//! with probability p and the survivors are scaled by 1/(1 − p), so the
//! expected value is unchanged; in evaluation it does nothing.

use autograd::nn::Dropout;
use autograd::{Params, Tape, dropout_mask};
use faer::Mat;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

// ANCHOR: dropout
/// One dropout mask over `samples` entries equal to 1, in training: the
/// share of entries kept, and their mean after dropout.
pub fn dropout_in_training(p: f64, samples: usize, seed: u64) -> (f64, f64) {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mask = dropout_mask::<f64>(samples, 1, p, &mut rng); // (samples, 1): 0 or 1/(1 − p)
    let kept = (0..samples).filter(|&i| mask[(i, 0)] != 0.0).count();
    let mean = (0..samples).map(|i| mask[(i, 0)]).sum::<f64>() / samples as f64;
    (kept as f64 / samples as f64, mean)
}

/// The dropout module in evaluation (no random source): max |output − input|.
pub fn dropout_in_evaluation(p: f64) -> f64 {
    let params = Params::<f64>::new();
    let tape = Tape::new(&params);
    let x = Mat::from_fn(4, 3, |i, j| (i * 3 + j) as f64 * 0.1); // (4, 3)
    let eval = Dropout::new(p).forward(tape.input(x.clone()), None::<&mut Pcg64Mcg>);
    blocks::max_diff(&eval.value(), &x)
}
// ANCHOR_END: dropout

pub fn dropout(p: f64, samples: usize, seed: u64, nb: &mut Notebook) {
    nb.demo("dropout", "L6 03.2 · Dropout: keep ratio, mean, and evaluation");
    let (kept, mean) = dropout_in_training(p, samples, seed);
    let p_shown = nb.value("dropout_p", show::short(p));
    let samples_shown = nb.value("dropout_samples", show::grouped(samples));
    say!(nb, "p = {p_shown}, {samples_shown} entries, all equal to 1, seed {seed}");
    let ratio = nb.value("keep_ratio", show::num(kept, 4));
    let mean = nb.value("dropout_mean", show::num(mean, 4));
    let scale = nb.value("keep_scale", show::num(1.0 / (1.0 - p), 4));
    // the kept fraction is a mean of `samples` coin flips: its spread is √(p(1 − p)/n)
    let sd = |p: f64| (p * (1.0 - p) / samples as f64).sqrt();
    let z = (kept - (1.0 - p)).abs() / sd(p);
    let spread = nb.value("keep_ratio_sd", show::num(sd(p), 4));
    let z = nb.value("keep_ratio_z", show::num(z, 1));
    let expected = show::num(1.0 - p, 4);
    say!(
        nb,
        "kept {ratio} of the entries (expected {expected} ± {spread}: {z} sd off), each scaled to {scale}"
    );
    // the lecture's kept fraction at p = 0.1, as if it came from as many entries
    let lecture = (0.8994_f64 - 0.9).abs() / sd(0.1);
    let lecture = nb.value("lecture_keep_ratio_z", show::num(lecture, 1));
    say!(
        nb,
        "the lecture's 0.8994 at p = 0.1, over {samples_shown} entries, would be {lecture} sd off"
    );
    say!(nb, "mean after dropout {mean} (expected 1)");
    let same = nb.value("eval_change", show::sci(dropout_in_evaluation(p), 1));
    say!(nb, "evaluation (no random source): max |output − input| = {same}");
}
