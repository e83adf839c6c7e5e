//! Lecture 6 §11–§12 for this chapter: exercise 12 (why negation works
//! without positions and contrast does not) answered with the trained
//! models; the pitfall "view after permute needs contiguous", and what it
//! is in this framework; two exercises of the book's own.

use autograd::{Params, Tape};
use faer::Mat;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

use crate::classify::{Model, Setup, Trained, train};
use crate::reviews::{self, Kind, Review, Training};

/// P(positive) of one review under a trained model.
pub fn p_positive(t: &Trained, r: &Review) -> f64 {
    let s = crate::review_demo::scores(t, std::slice::from_ref(r));
    1.0 / (1.0 + libm::exp(s[0] - s[1]))
}

fn review(sentence: &str, kind: Kind) -> Review {
    Review { kind, ids: reviews::parse(sentence).expect("known words"), label: 0 }
}

// ANCHOR: head_split
/// Q (B·S, D) split into h heads of d_h columns, as the stack (B·h·S, d_h)
/// attention multiplies block by block: block (b, i) holds sequence b's
/// rows of head i's columns. Three ways: the framework's copy
/// (`split_heads`), a view of each head's columns (what the fused kernel
/// reads, no copy), and the storage read with the new shape.
pub fn head_split(q: &Mat<f64>, batch: usize, heads: usize) -> [Mat<f64>; 4] {
    let (rows, d) = (q.nrows(), q.ncols());
    let (s, d_h) = (rows / batch, d / heads);
    let copied = {
        let mut params = Params::new();
        let id = params.add("q", q.clone());
        let tape = Tape::new(&params);
        tape.param(id).split_heads(batch, heads).value().clone()
    };
    let viewed = Mat::from_fn(rows * heads, d_h, |r, c| {
        let (block, pos) = (r / s, r % s);
        let (b, i) = (block / heads, block % heads);
        q.as_ref().subcols(i * d_h, d_h).subrows(b * s, s)[(pos, c)]
    });
    // the same numbers in memory order, read back as (B·h·S, d_h)
    let column_major: Vec<f64> = (0..d).flat_map(|c| (0..rows).map(move |r| q[(r, c)])).collect();
    let as_columns = Mat::from_fn(rows * heads, d_h, |r, c| column_major[c * rows * heads + r]);
    let row_major: Vec<f64> = (0..rows).flat_map(|r| (0..d).map(move |c| q[(r, c)])).collect();
    let as_rows = Mat::from_fn(rows * heads, d_h, |r, c| row_major[r * d_h + c]);
    [copied, viewed, as_columns, as_rows]
}
// ANCHOR_END: head_split

/// How many rows of `a` equal the same row of `b`.
fn same_rows(a: &Mat<f64>, b: &Mat<f64>) -> usize {
    (0..a.nrows()).filter(|&r| (0..a.ncols()).all(|c| a[(r, c)] == b[(r, c)])).count()
}

/// Contrasts whose first clause is negated: `the S₁ was not A₁ but the S₂
/// was A₂`, one token longer before "but" than any contrast trained on.
pub fn negated_first_clauses() -> Vec<Review> {
    reviews::all(true, Kind::Contrast)
        .into_iter()
        .map(|mut r| {
            r.ids.insert(3, reviews::parse("not").expect("a word")[0]);
            r
        })
        .collect()
}

pub fn exercises(runs: &[Vec<Trained>], setup: Setup, seeds: &[u64], nb: &mut Notebook) {
    nb.demo(
        "exercises",
        "Exercises: negation against contrast, the heads' view, the mix, a shifted but",
    );
    // Exercise 12 with the trained models (the first seed of each)
    let (bow, nopos, pos) = (&runs[0][0], &runs[1][0], &runs[2][0]);
    say!(
        nb,
        "L6 exercise 12, seed {}: P(positive) under bag of words / no positions / learned positions",
        seeds[0]
    );
    let sentences = [
        ("the food was good", Kind::Plain),
        ("the food was not good", Kind::Negation),
        ("the food was bad", Kind::Plain),
        ("the food was not bad", Kind::Negation),
        ("the food was good but the service was bad", Kind::Contrast),
        ("the service was bad but the food was good", Kind::Contrast),
    ];
    for (i, (s, kind)) in sentences.iter().enumerate() {
        let r = review(s, *kind);
        let p: Vec<String> =
            [bow, nopos, pos].iter().map(|t| show::num(p_positive(t, &r), 3)).collect();
        for (t, v) in ["bow", "nopos", "pos"].iter().zip(&p) {
            nb.value(&format!("ex12_s{i}_{t}"), v.clone());
        }
        say!(nb, "  {s:<44} {}", p.join(" / "));
    }
    let not_good = review("the food was not good", Kind::Negation);
    let w = nopos.attention(&not_good);
    let on_not = nb.value("ex12_good_on_not", show::num(w[(4, 3)], 3));
    say!(
        nb,
        "  without positions, \"good\" in \"the food was not good\" puts {on_not} of its attention on \"not\" (heads averaged)"
    );

    // The pitfall: the heads as a view
    let (batch, s, d, heads) = (2, 3, 8, 2);
    let mut rng = Pcg64Mcg::seed_from_u64(seeds[0]);
    let q = Mat::from_fn(batch * s, d, |_, _| rng.random_range(-1.0..1.0));
    let [copied, viewed, as_columns, as_rows] = head_split(&q, batch, heads);
    let rows = copied.nrows();
    say!(
        nb,
        "heads of Q ({}×{d}, B = {batch}, S = {s}, h = {heads}) as a ({rows}×{}) stack:",
        batch * s,
        d / heads
    );
    let v = nb.value("view_gap", show::sci(blocks::max_diff(&copied, &viewed), 1));
    say!(
        nb,
        "  split_heads (a copy) against each head's columns viewed in place: largest difference {v}"
    );
    let c = nb.value("reinterpret_columns_right", same_rows(&copied, &as_columns).to_string());
    let r = nb.value("reinterpret_rows_right", same_rows(&copied, &as_rows).to_string());
    say!(
        nb,
        "  the storage read with the new shape: {c} of {rows} rows right (column by column, as faer stores it),"
    );
    say!(
        nb,
        "  {r} of {rows} right (row by row, as a contiguous PyTorch tensor stores it; heads interleaved by token)"
    );

    // Exercise: the mix, for the bag of words
    let equal = Training { mix: [1, 1, 1], ..Training::new() };
    let tests = crate::classify::test_sets();
    let plain: Vec<f64> = seeds
        .iter()
        .map(|&seed| train(Model::BagOfWords, setup, &equal, seed).accuracy(&tests[0]))
        .collect();
    let lo = plain.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = plain.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = (
        nb.value("equal_mix_bow_plain_min", show::num(lo, 3)),
        nb.value("equal_mix_bow_plain_max", show::num(hi, 3)),
    );
    say!(
        nb,
        "bag of words trained on the mix 1 : 1 : 1: plain test accuracy {lo}–{hi} over the seeds"
    );

    // Exercise: a negated first clause moves "but" one place on
    let shifted = negated_first_clauses();
    let acc: Vec<f64> = runs[2].iter().map(|t| t.accuracy(&shifted)).collect();
    let lo = acc.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = acc.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = (
        nb.value("shifted_pos_min", show::num(lo, 3)),
        nb.value("shifted_pos_max", show::num(hi, 3)),
    );
    say!(
        nb,
        "learned positions on \"{}\" and the like ({} sentences):",
        reviews::text(&shifted[0].ids),
        shifted.len()
    );
    say!(nb, "  accuracy {lo}–{hi}; by seed {}", show::tuple(acc.iter().copied(), 3));
}
