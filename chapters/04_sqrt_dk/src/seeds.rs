//! Exercise 4, continued: the page's readings and the two statements that
//! survived the second seed, decided again over more seeds. Only the
//! verdicts are printed; the sweeps themselves are the same as the book's.

use record::{Notebook, say};

use crate::lookup::train_all;
use crate::readings::{NAMES, Verdicts, verdicts, yes_no};

// ANCHOR: exercise_seeds
/// `known` are the verdicts of the sweeps already run (seeds `seed`,
/// `seed + 1`); the rest up to `seeds` sweeps are trained here.
pub fn exercise_seeds(
    dks: &[usize],
    steps: u32,
    mixed: bool,
    (seed, seeds): (u64, u64),
    known: &[Verdicts],
    nb: &mut Notebook,
) {
    nb.demo("exercise_seeds", "Exercise 4 · The verdicts over more seeds");
    let mut all: Vec<Verdicts> = known.to_vec();
    for s in seed + known.len() as u64..seed + seeds {
        let firsts = train_all(dks, steps, mixed, s, nb.is_printing());
        all.push(verdicts(dks, &firsts));
    }
    say!(nb, "{} sweeps as above, seeds {seed} to {}", all.len(), seed + seeds - 1);
    say!(
        nb,
        "{:>5} │ {:>9} {:>9} {:>9} {:>9} │ {:>11} {:>10}",
        "seed",
        "reading 1",
        "2",
        "3",
        "4",
        "fewer rates",
        "best later"
    );
    for (k, v) in all.iter().enumerate() {
        let c: Vec<&str> = v.iter().map(|&b| yes_no(b)).collect();
        let s = seed + k as u64;
        say!(
            nb,
            "{s:>5} │ {:>9} {:>9} {:>9} {:>9} │ {:>11} {:>10}",
            c[0],
            c[1],
            c[2],
            c[3],
            c[4],
            c[5]
        );
    }
    let n = all.len();
    let held: Vec<String> = (0..NAMES.len())
        .map(|i| {
            let k = all.iter().filter(|v| v[i]).count();
            nb.value(&format!("seeds_{}", NAMES[i]), format!("{k}/{n}"))
        })
        .collect();
    say!(
        nb,
        "{:>5} │ {:>9} {:>9} {:>9} {:>9} │ {:>11} {:>10}",
        "held",
        held[0],
        held[1],
        held[2],
        held[3],
        held[4],
        held[5]
    );
}
// ANCHOR_END: exercise_seeds
