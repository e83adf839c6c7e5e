//! Lecture 17 exercise 8 — three times the training (1500 steps instead
//! of 500) at L = 32: predict first, then run.

use record::{Notebook, say, show};

use crate::experiment::{Setup, runs_of, spread, train_all};

// ANCHOR: exercise_longer
pub fn exercise_longer(setup: &Setup, len: usize, steps: u32, nb: &mut Notebook) {
    nb.demo("exercise_longer", "L17 exercise 8 · Longer training at one length");
    say!(nb, "L = {len}, {steps} steps (the experiment: {}), seeds {:?}", setup.steps, setup.seeds);
    let runs = train_all(setup, &[len], steps, nb.is_printing());
    say!(nb, "  {:<16}{:>24}{:>24}", "", "whole-sequence", "per-token");
    for &kind in &setup.models {
        let own = runs_of(&runs, kind, len);
        let seq: Vec<f64> = own.iter().map(|r| r.trained.sequence_accuracy).collect();
        let tok: Vec<f64> = own.iter().map(|r| r.trained.token_accuracy).collect();
        let mut cells = String::new();
        for (which, xs) in [("seq", &seq), ("tok", &tok)] {
            let (mean, lo, hi) = spread(xs);
            let name = format!("ex_{which}_{}", kind.tag());
            let mean = nb.value(&format!("{name}_mean"), show::num(mean, 3));
            let lo = nb.value(&format!("{name}_min"), show::num(lo, 3));
            let hi = nb.value(&format!("{name}_max"), show::num(hi, 3));
            cells.push_str(&format!("{:>24}", format!("{mean} ({lo}–{hi})")));
        }
        say!(nb, "  {:<16}{cells}", kind.label());
    }
}
// ANCHOR_END: exercise_longer
