//! Lecture 17 demo 05.2 — where the errors are: accuracy at each output
//! position of the longest length, generated freely and with the right
//! symbols fed in, averaged over the seeds.

use record::svg::{LinePlot, Series};
use record::{Notebook, say, show};

use crate::experiment::{Eval, Right, Run, Setup, runs_of};
use crate::models::Kind;
use crate::stats::summary;

// ANCHOR: by_position
/// The share right at each output position, mean over the seeds, after
/// `step` steps: free-running and teacher-forced.
pub fn per_position(runs: &[&Run], step: u32) -> (Vec<f64>, Vec<f64>) {
    let len = runs[0].len;
    let mean = |pick: fn(&Eval) -> &Right| -> Vec<f64> {
        let at = |t| runs.iter().map(|r| pick(r.at(step)).at(t)).sum::<f64>() / runs.len() as f64;
        (0..len).map(at).collect()
    };
    (mean(|e| &e.free), mean(|e| &e.forced))
}

/// Up to a sequence's first free-running error, the decoder has been fed
/// exactly what teacher forcing feeds it, so the two must agree there:
/// the share of those positions where the teacher-forced output is right
/// too (1 up to rounding).
pub fn agree_before_first_error(runs: &[&Run], step: u32) -> f64 {
    let (mut same, mut all) = (0, 0);
    for r in runs {
        let e = r.at(step);
        let free = e.free.hits.chunks(r.len);
        for (free, forced) in free.zip(e.forced.hits.chunks(r.len)) {
            let first_error = free.iter().position(|&h| !h).unwrap_or(r.len);
            same += forced[..first_error].iter().filter(|&&h| h).count();
            all += first_error;
        }
    }
    same as f64 / all.max(1) as f64
}
// ANCHOR_END: by_position

/// The mean share right over the second half of the positions.
fn late(right: &Right) -> f64 {
    (right.len / 2..right.len).map(|t| right.at(t)).sum::<f64>()
        / (right.len - right.len / 2) as f64
}

fn lighter(kind: Kind) -> &'static str {
    match kind {
        Kind::Gru => "#c7c7c7",
        Kind::GruAttention => "#ffbb78",
        Kind::Transformer => "#aec7e8",
    }
}

pub fn by_position(setup: &Setup, runs: &[Run], nb: &mut Notebook) {
    nb.demo("by_position", "L17 05.2 · Accuracy at each output position");
    let len = *setup.lengths.last().expect("at least one length");
    let step = setup.steps;
    say!(
        nb,
        "L = {len}, after {step} steps: share of the test sequences right at output position t,"
    );
    say!(nb, "mean over the seeds; free = generated from BOS, forced = the right symbols fed in");
    say!(nb, "(output t copies input L − 1 − t: the larger t, the earlier the encoder read it)");
    let mut series = Vec::new();
    let labels = |kind: Kind| match kind {
        Kind::Gru => ("GRU", "GRU, teacher-forced"),
        Kind::GruAttention => ("GRU + attention", "GRU + attention, teacher-forced"),
        Kind::Transformer => ("Transformer", "Transformer, teacher-forced"),
    };
    for &kind in &setup.models {
        let own = runs_of(runs, kind, len);
        let (free, forced) = per_position(&own, step);
        for (which, curve) in [("pos", &free), ("pos_forced", &forced)] {
            for (t, a) in curve.iter().enumerate() {
                nb.value(&format!("{which}_{}_t{t}", kind.tag()), show::num(*a, 2));
            }
            let (lo, hi) = curve[len / 2..]
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &a| (l.min(a), h.max(a)));
            nb.value(&format!("{which}_{}_late_min", kind.tag()), show::num(lo, 2));
            nb.value(&format!("{which}_{}_late_max", kind.tag()), show::num(hi, 2));
        }
        let line = |c: &[f64]| c.iter().map(|a| show::num(*a, 2)).collect::<Vec<_>>().join(" ");
        say!(nb, "  {:<16} free   {}", kind.label(), line(&free));
        say!(nb, "  {:<16} forced {}", "", line(&forced));
        let agree = agree_before_first_error(&own, step);
        let agree = nb.value(&format!("agree_{}", kind.tag()), show::num(agree, 4));
        // each seed: mean over the second half, free and forced
        let (mut f, mut g) = (Vec::new(), Vec::new());
        for r in &own {
            let e = r.at(step);
            f.push(nb.value(
                &format!("late_{}_seed{}", kind.tag(), r.seed),
                show::num(late(&e.free), 2),
            ));
            g.push(nb.value(
                &format!("late_forced_{}_seed{}", kind.tag(), r.seed),
                show::num(late(&e.forced), 2),
            ));
        }
        let lf: Vec<f64> = own.iter().map(|r| late(&r.at(step).free)).collect();
        let lg: Vec<f64> = own.iter().map(|r| late(&r.at(step).forced)).collect();
        let (sf, sg) = (summary(&lf), summary(&lg));
        nb.value(&format!("late_{}_min", kind.tag()), show::num(sf.min, 2));
        nb.value(&format!("late_{}_max", kind.tag()), show::num(sf.max, 2));
        nb.value(&format!("late_forced_{}_min", kind.tag()), show::num(sg.min, 2));
        nb.value(&format!("late_forced_{}_max", kind.tag()), show::num(sg.max, 2));
        say!(nb, "  {:<16} mean over t ≥ {}, each seed:", "", len / 2);
        say!(nb, "  {:<16}   free   {}", "", f.join(" "));
        say!(nb, "  {:<16}   forced {}", "", g.join(" "));
        say!(nb, "  {:<16} before the first free-running error, forced right too: {agree}", "");
        let (free_label, forced_label) = labels(kind);
        let points = |c: &[f64]| c.iter().enumerate().map(|(t, &a)| (t as f64, a)).collect();
        series.push(Series { label: free_label, colour: kind.colour(), points: points(&free) });
        if kind != Kind::Transformer {
            series.push(Series {
                label: forced_label,
                colour: lighter(kind),
                points: points(&forced),
            });
        }
    }
    let plot = LinePlot { series: &series, x_label: "output position t", y_label: "share right" };
    nb.figure("by_position", plot.to_svg());
}
