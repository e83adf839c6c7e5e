//! Every run of the chapter at once, over all cores. Each run is
//! sequential inside and draws only from its own seeds, so its numbers do
//! not depend on the number of threads; the results are put back in the
//! plan's order (model, length, seed), whatever order they finished in.

use indicatif::{ProgressBar, ProgressStyle};
use rayon::iter::{ParallelBridge, ParallelIterator};

use crate::experiment::{Run, Setup, train_run};

/// Train every run of `setup.plan()`; a progress bar on stderr if `printing`.
pub fn train_all(setup: &Setup, printing: bool) -> Vec<Run> {
    let plan = setup.plan();
    // the longest runs first, so that no core is left with one at the end
    let cost = |i: usize| {
        let (_, len, seed) = plan[i];
        u64::from(*setup.tests_at(len, seed).iter().max().expect("a test")) * len as u64
    };
    let mut order: Vec<usize> = (0..plan.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(cost(i)), i));
    let bar = printing.then(|| {
        let bar = ProgressBar::new(plan.len() as u64);
        let style = ProgressStyle::with_template("{bar:40} {pos}/{len} runs, {eta} left");
        bar.set_style(style.expect("a valid template"));
        bar
    });
    let mut done: Vec<(usize, Run)> = order
        .into_iter()
        .par_bridge()
        .map(|i| {
            let (kind, len, seed) = plan[i];
            let tests = setup.tests_at(len, seed);
            let keep = if setup.lengths.contains(&len) { setup.steps } else { tests[0] };
            let run = train_run(kind, &setup.recipe(len), seed, &tests, keep);
            autograd::pool::clear(); // the next run on this thread has other shapes
            bar.as_ref().inspect(|b| b.inc(1));
            (i, run)
        })
        .collect();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, run)| run).collect()
}
