//! The page's four readings of a lookup sweep, and its two statements that
//! held under both seeds, each decided from the sweep's own cells — so the
//! verdicts the page gives for seed 0 and for the next seed are computed.

use record::{Notebook, say};

use crate::lookup::{ADAM_LRS, EVERY};

/// One d_k's cells: (Adam scaled, Adam raw, SGD scaled, SGD raw).
type Rows<'a> = (&'a [Option<u32>], &'a [Option<u32>], &'a [Option<u32>], &'a [Option<u32>]);

/// "Later or never": the unscaled run needs more steps, or never gets there.
fn later(raw: Option<u32>, scaled: Option<u32>) -> bool {
    match (raw, scaled) {
        (None, _) => true,
        (Some(r), Some(s)) => r > s,
        (Some(_), None) => false,
    }
}

/// The unscaled run gets there, and sooner than the scaled one (or that one never does).
fn sooner(raw: Option<u32>, scaled: Option<u32>) -> bool {
    raw.is_some_and(|r| scaled.is_none_or(|s| r < s))
}

fn best(v: &[Option<u32>]) -> Option<u32> {
    v.iter().flatten().min().copied()
}

fn count(v: &[Option<u32>]) -> usize {
    v.iter().flatten().count()
}

/// Readings 1–4, then "never more rates" and "best later".
pub type Verdicts = [bool; 6];

// ANCHOR: readings
/// Decide every statement on the cells `firsts` (rows as the table prints
/// them: per d_k the scaled row, then the raw one; Adam's 4 cells, then
/// SGD's 5).
pub fn verdicts(dks: &[usize], firsts: &[Option<u32>]) -> Verdicts {
    let width = firsts.len() / (2 * dks.len()); // 9 learning rates per row
    let a = ADAM_LRS.len();
    let per_dk: Vec<Rows> = firsts
        .chunks(2 * width)
        .map(|c| (&c[..a], &c[width..width + a], &c[a..width], &c[width + a..]))
        .collect();
    let all = |f: &dyn Fn(&Rows) -> bool| per_dk.iter().all(f);
    let bests: Vec<Option<u32>> = per_dk.iter().map(|r| best(r.0)).collect();
    let spread = bests.iter().flatten().max().zip(bests.iter().flatten().min());
    [
        // 1: scaled, every Adam rate arrives at every d_k, best runs within one measurement
        all(&|r| count(r.0) == r.0.len()) && spread.is_some_and(|(hi, lo)| hi - lo <= EVERY),
        // 2: unscaled Adam later (or never) at every rate, and its largest rate never arrives
        all(&|r| r.0.iter().zip(r.1).all(|(&s, &w)| later(w, s)) && r.1[a - 1].is_none()),
        // 3: at SGD's smallest rate the unscaled run arrives, and sooner than the scaled one
        all(&|r| sooner(r.3[0], r.2[0])),
        // 4: unscaled Adam arrives at some rate at every d_k
        all(&|r| count(r.1) > 0),
        // never more rates without the scale, for Adam and for SGD
        all(&|r| count(r.1) <= count(r.0) && count(r.3) <= count(r.2)),
        // unscaled Adam's best run later than the scaled best, or never
        all(&|r| later(best(r.1), best(r.0))),
    ]
}
// ANCHOR_END: readings

/// The names of the verdicts' values, after the tag.
pub const NAMES: [&str; 6] =
    ["reading1", "reading2", "reading3", "reading4", "fewer_rates", "best_later"];

pub fn yes_no(v: bool) -> &'static str {
    if v { "yes" } else { "no" }
}

/// Print the verdicts and record them as `{tag}reading1` … `{tag}best_later`.
pub fn record(verdicts: &Verdicts, tag: &str, nb: &mut Notebook) {
    let shown: Vec<String> = NAMES
        .iter()
        .zip(verdicts)
        .map(|(n, &v)| nb.value(&format!("{tag}{n}"), yes_no(v)))
        .collect();
    say!(nb, "");
    say!(nb, "the page's readings 1–4 hold: {}", shown[..4].join(", "));
    say!(
        nb,
        "never more rates without the scale: {}; unscaled Adam best later: {}",
        shown[4],
        shown[5]
    );
}
