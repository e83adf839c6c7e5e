//! Lecture 6 §11–§12 for this chapter: the pitfall "view after permute
//! needs contiguous" and what it is in this framework; exercise 12 (why
//! negation works without positions and contrast does not) answered with
//! the trained models; three exercises of the book's own.

use autograd::flops::counting;
use autograd::{Params, Tape, Var};
use faer::Mat;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

use crate::classify::{Model, Setup, Trained, train};
use crate::reviews::{self, Kind, Pair, Review, Training, held_out, negated_first, positive};

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

pub fn heads_view(seed: u64, nb: &mut Notebook) {
    nb.demo(
        "heads_view",
        "Pitfall: the heads as a view, a copy, or the storage read with another shape",
    );
    let (batch, s, d, heads) = (2, 3, 8, 2);
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let q = Mat::from_fn(batch * s, d, |_, _| rng.random_range(-1.0..1.0));
    let [copied, viewed, as_columns, as_rows] = head_split(&q, batch, heads);
    let rows = nb.value("stack_rows", copied.nrows().to_string());
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
}

// ANCHOR: shifted
/// Contrasts of held-out pairs with "but" and A₂ moved, two ways: (a) the
/// second "the" left out, `the S₁ was A₁ but S₂ was A₂` (A₂ at position 7,
/// a row of the position table that was trained); (b) a negated first
/// clause whose adjective has A₂'s polarity, `the S₁ was not A₁ but the S₂
/// was A₂` (A₂ at position 9, a row no training sentence reaches). Both are
/// still contrasts: the clauses disagree, and the label is the second's.
pub fn shifted_contrasts() -> [Vec<Review>; 2] {
    let without_the = reviews::all(true, Kind::Contrast)
        .into_iter()
        .map(|mut r| {
            r.ids.remove(5); // the "the" after "but"
            r
        })
        .collect();
    let held: Vec<Pair> = (0..8)
        .flat_map(|s| (0..16).map(move |a| (s, a)))
        .filter(|&(s, a)| held_out(s, a))
        .collect();
    let mut negated = Vec::new();
    for &second in &held {
        for &first in held.iter().filter(|f| f.0 != second.0 && positive(f.1) == positive(second.1))
        {
            negated.push(negated_first(first, second));
        }
    }
    [without_the, negated]
}
// ANCHOR_END: shifted

// ANCHOR: sum_rows
/// A new op, written outside the framework with `Tape::push`: each row's
/// sum, (n, d) → (n, 1). Backward: every entry of a row gets that row's
/// gradient, `dx_ij += dy_i`.
pub fn sum_rows<'t>(x: Var<'t, f64>) -> Var<'t, f64> {
    let id = x.id();
    let out = {
        let v = x.value();
        Mat::from_fn(v.nrows(), 1, |i, _| (0..v.ncols()).map(|j| v[(i, j)]).sum())
    };
    x.tape().push(out, &[id], move |b, dout| {
        let g = b.grad(id);
        for j in 0..g.ncols() {
            for i in 0..g.nrows() {
                g[(i, j)] += dout[(i, 0)];
            }
        }
    })
}

/// Each row's mean spread over the row with the new op: the sums, scaled,
/// times a (1, d) row of ones — n·d multiply-adds for the spreading, where
/// the product with a (d, d) matrix of 1/d took n·d².
pub fn row_mean_with_sum_rows<'t>(x: Var<'t, f64>) -> Var<'t, f64> {
    let d = x.shape().1;
    let ones = x.tape().input(Mat::from_fn(1, d, |_, _| 1.0)); // (1, d)
    sum_rows(x).scale(1.0 / d as f64).matmul(ones)
}
// ANCHOR_END: sum_rows

/// The largest |backward − central difference| of `Σ sum_rows(x) ⊙ probe`.
fn sum_rows_check(x: &Mat<f64>, probe: &Mat<f64>) -> f64 {
    let loss = |x: &Mat<f64>| {
        let mut params = Params::new();
        let id = params.add("x", x.clone());
        let tape = Tape::new(&params);
        let y = sum_rows(tape.param(id)).mul(tape.input(probe.clone())).sum();
        (y.scalar(), tape.backward(y).get(id).expect("used").clone())
    };
    let (_, g) = loss(x);
    let h = 1e-6;
    let mut worst = 0.0;
    for i in 0..x.nrows() {
        for j in 0..x.ncols() {
            let (mut up, mut down) = (x.clone(), x.clone());
            up[(i, j)] += h;
            down[(i, j)] -= h;
            let numeric = (loss(&up).0 - loss(&down).0) / (2.0 * h);
            worst = blocks::worse(worst, (numeric - g[(i, j)]).abs());
        }
    }
    worst
}

/// The row mean both ways: the largest difference, and the FLOPs of the
/// products each runs.
fn row_means(x: &Mat<f64>) -> (f64, u64, u64) {
    let mut params = Params::new();
    let id = params.add("x", x.clone());
    let tape = Tape::new(&params);
    let (old, old_count) = counting(|| crate::primitives::row_mean(tape.param(id)).value().clone());
    let (new, new_count) = counting(|| row_mean_with_sum_rows(tape.param(id)).value().clone());
    (blocks::max_diff(&old, &new), old_count.flops, new_count.flops)
}

fn range(xs: &[f64]) -> (f64, f64) {
    (
        xs.iter().copied().fold(f64::INFINITY, f64::min),
        xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    )
}

pub fn exercises(runs: &[Vec<Trained>], setup: Setup, seeds: &[u64], nb: &mut Notebook) {
    nb.demo("exercises", "Exercises: negation against contrast, the mix, a shifted but, a new op");
    // Exercise 1 (Lecture 6's exercise 12) with the trained models (the first seed of each)
    let (bow, nopos, pos) = (&runs[0][0], &runs[1][0], &runs[2][0]);
    say!(
        nb,
        "1. seed {}: P(positive) under bag of words / no positions / learned positions",
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

    // Exercise 2: the mix, for the bag of words
    let equal = Training { mix: [1, 1, 1], ..Training::new() };
    let tests = crate::classify::test_sets();
    let plain: Vec<f64> = seeds
        .iter()
        .map(|&seed| train(Model::BagOfWords, setup, &equal, seed).accuracy(&tests[0]))
        .collect();
    let (lo, hi) = range(&plain);
    let (lo, hi) = (
        nb.value("equal_mix_bow_plain_min", show::num(lo, 3)),
        nb.value("equal_mix_bow_plain_max", show::num(hi, 3)),
    );
    say!(
        nb,
        "2. bag of words trained on the mix 1 : 1 : 1: plain test accuracy {lo}–{hi} over the seeds"
    );

    // Exercise 3: "but" and A₂ moved
    let [without_the, negated] = shifted_contrasts();
    say!(
        nb,
        "3. contrasts with \"but\" and A₂ moved ({} sentences each), accuracy over the seeds:",
        without_the.len()
    );
    for (tag, set) in [("no_the", &without_the), ("negated", &negated)] {
        say!(nb, "  \"{}\" and the like:", reviews::text(&set[0].ids));
        for (model, m) in [("nopos", 1), ("pos", 2)] {
            let acc: Vec<f64> = runs[m].iter().map(|t| t.accuracy(set)).collect();
            let near_half = acc.iter().filter(|&&a| a < 0.65).count();
            nb.value(&format!("shifted_{tag}_{model}_below_065"), near_half.to_string());
            let (lo, hi) = range(&acc);
            let lo = nb.value(&format!("shifted_{tag}_{model}_min"), show::num(lo, 3));
            let hi = nb.value(&format!("shifted_{tag}_{model}_max"), show::num(hi, 3));
            say!(
                nb,
                "    {:<32} {lo}–{hi}; by seed {}",
                Model::ALL[m].name(),
                show::tuple(acc.iter().copied(), 3)
            );
        }
    }

    // Exercise 4: a new op from outside the framework
    let mut rng = Pcg64Mcg::seed_from_u64(seeds[0]);
    let x = Mat::from_fn(18, 32, |_, _| rng.random_range(-1.0..1.0));
    let probe = Mat::from_fn(18, 1, |_, _| rng.random_range(-1.0..1.0));
    let fd = nb.value("sum_rows_fd_gap", show::sci(sum_rows_check(&x, &probe), 1));
    let (same, old, new) = row_means(&x);
    let same = nb.value("row_mean_gap", show::sci(same, 1));
    let old = nb.value("row_mean_flops_old", show::grouped(old as usize));
    let new = nb.value("row_mean_flops_new", show::grouped(new as usize));
    say!(nb, "4. sum_rows against central differences: largest difference {fd}");
    say!(
        nb,
        "   the row mean of an 18×32 input both ways: they differ by {same}; products {old} FLOPs with the (d, d) matrix, {new} with sum_rows"
    );
}
