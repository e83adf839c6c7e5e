//! Lecture 17 exercise 8 — three times the training at the longest
//! length: predict first, then run. The runs continue the experiment's
//! own (see `Setup::tests_at`), for its first `exercise_seeds` seeds.

use record::{Notebook, say, show};

use crate::experiment::{Run, Setup, runs_of};
use crate::models::Kind;
use crate::results::{Metric, at_step, say_cell};
use crate::stats::summary;

pub fn exercise_longer(setup: &Setup, runs: &[Run], nb: &mut Notebook) {
    nb.demo("exercise_longer", "L17 exercise 8 · Longer training at one length");
    let (len, steps) = (setup.exercise_len, setup.exercise_steps);
    let steps_shown = nb.value("ex_steps", steps.to_string());
    nb.value("ex_len", len.to_string());
    let seeds = setup.exercise_seeds();
    let n = nb.value("ex_seeds_n", seeds.len().to_string());
    let continued = setup.lengths.contains(&len) && steps > setup.steps;
    if continued {
        say!(nb, "L = {len}: the experiment's runs of its first {n} seeds, trained on to step");
        say!(nb, "{steps_shown} (the same batches in the same order, the learning rate constant");
        say!(nb, "after warmup: a {steps}-step run)");
    } else {
        say!(nb, "L = {len}, {steps_shown} steps, {n} seeds");
    }
    say!(nb, "mean ± sd over the seeds, [sampling error of one run's test], each seed:");
    let tested = |kind: Kind| -> Vec<&Run> {
        runs_of(runs, kind, len).into_iter().filter(|r| r.tested_at(steps).is_some()).collect()
    };
    for (m, title) in [(Metric::Seq, "whole-sequence"), (Metric::Tok, "per-token")] {
        say!(nb, "{title}:");
        for &kind in &setup.models {
            let own = tested(kind);
            let name = format!("ex_{}_{}", m.tag(), kind.tag());
            if continued {
                let (early, se) = at_step(&own, setup.steps, m);
                let label = format!("{}, {} steps", kind.label(), setup.steps);
                say_cell(nb, &format!("{name}_before"), &label, &own, &early, se);
            }
            let (xs, se) = at_step(&own, steps, m);
            let label = format!("{}, {steps} steps", kind.label());
            say_cell(nb, &name, &label, &own, &xs, se);
            if continued {
                // the same seeds twice: the gain of each seed, and its spread
                let early = at_step(&own, setup.steps, m).0;
                let gains: Vec<f64> = xs.iter().zip(&early).map(|(b, a)| b - a).collect();
                let g = summary(&gains);
                let mean = nb.value(&format!("{name}_gain"), show::num(g.mean, 3));
                let se = g.sd / (g.n as f64).sqrt();
                let se = nb.value(&format!("{name}_gain_se"), show::num(se, 3));
                let lo = nb.value(&format!("{name}_gain_min"), show::num(g.min, 3));
                say!(nb, "  {:<28} gain of each seed: {mean} ± {se}, the least {lo}", "");
            }
        }
    }
}
