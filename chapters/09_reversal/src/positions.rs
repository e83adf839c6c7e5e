//! Lecture 17 demo 05.2 — where the errors are: accuracy at each output
//! position of the longest length, averaged over the seeds.

use record::svg::{LinePlot, Series};
use record::{Notebook, say, show};

use crate::experiment::{Run, Setup, runs_of, spread};

// ANCHOR: by_position
pub fn by_position(setup: &Setup, runs: &[Run], nb: &mut Notebook) {
    nb.demo("by_position", "L17 05.2 · Accuracy at each output position");
    let len = *setup.lengths.last().expect("at least one length");
    say!(
        nb,
        "L = {len}: share of the test sequences right at output position t, mean over {} seeds",
        setup.seeds.len()
    );
    say!(nb, "(output t copies input L − 1 − t: the larger t, the earlier the encoder read it)");
    let mut curves = Vec::new();
    for &kind in &setup.models {
        let own = runs_of(runs, kind, len);
        let mean: Vec<f64> = (0..len)
            .map(|t| {
                own.iter().map(|r| r.trained.position_accuracy[t]).sum::<f64>() / own.len() as f64
            })
            .collect();
        for (t, a) in mean.iter().enumerate() {
            nb.value(&format!("pos_{}_t{t}", kind.tag()), show::num(*a, 2));
        }
        let shown: Vec<String> = mean.iter().map(|a| show::num(*a, 2)).collect();
        say!(nb, "  {:<16} {}", kind.label(), shown.join(" "));
        // the range over the second half: the symbols the encoder read first
        let (_, lo, hi) = spread(&mean[len / 2..]);
        let lo = nb.value(&format!("pos_{}_late_min", kind.tag()), show::num(lo, 2));
        let hi = nb.value(&format!("pos_{}_late_max", kind.tag()), show::num(hi, 2));
        say!(nb, "  {:<16} t = {}–{}: {lo}–{hi}", "", len / 2, len - 1);
        curves.push((kind, mean));
    }
    let series: Vec<Series> = curves
        .iter()
        .map(|(kind, mean)| Series {
            label: kind.label(),
            colour: kind.colour(),
            points: mean.iter().enumerate().map(|(t, &a)| (t as f64, a)).collect(),
        })
        .collect();
    let plot = LinePlot { series: &series, x_label: "output position t", y_label: "share right" };
    nb.figure("by_position", plot.to_svg());
}
// ANCHOR_END: by_position
