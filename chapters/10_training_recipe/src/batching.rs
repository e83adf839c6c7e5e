//! Lecture 6 §7.4 — batching: how much of a padded batch is padding, when
//! sentences are batched at random and when they are bucketed by length.

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

use crate::{language, lm};

// ANCHOR: waste
/// The share of a padded batch's positions that are padding: every
/// sentence is padded to the longest one in its batch.
pub fn waste(batches: &[&[Vec<usize>]]) -> f64 {
    let (mut real, mut all) = (0, 0);
    for b in batches {
        let longest = b.iter().map(Vec::len).max().unwrap_or(0);
        real += b.iter().map(Vec::len).sum::<usize>();
        all += longest * b.len();
    }
    1.0 - real as f64 / all as f64
}

/// Batches of `size` in a random order, and batches cut from the sentences
/// sorted by length (buckets), whose order is then shuffled.
pub fn both_ways(mut sentences: Vec<Vec<usize>>, size: usize, rng: &mut Pcg64Mcg) -> (f64, f64) {
    sentences.shuffle(rng);
    let random: Vec<&[Vec<usize>]> = sentences.chunks(size).collect();
    let random = waste(&random);
    sentences.sort_by_key(Vec::len);
    let mut bucketed: Vec<&[Vec<usize>]> = sentences.chunks(size).collect();
    bucketed.shuffle(rng);
    (random, waste(&bucketed))
}
// ANCHOR_END: waste

pub fn batching(seed: u64, nb: &mut Notebook) {
    nb.demo("batching", "L6 §7.4 · Padding: random batches against length buckets");
    let n = 3200;
    let sentences = lm::sentences(n, seed + 500);
    let mean = sentences.iter().map(Vec::len).sum::<usize>() as f64 / n as f64;
    say!(nb, "{n} city-language sentences of 18, 25 or 32 tokens, mean {}:", show::num(mean, 2));
    say!(nb, "{:>10} {:>16} {:>16}", "batch", "random: padding", "buckets: padding");
    let mut rng = Pcg64Mcg::seed_from_u64(seed + 600);
    for size in [8, 32, 128] {
        let (random, bucketed) = both_ways(sentences.clone(), size, &mut rng);
        let r = nb.value(&format!("waste_random_b{size}"), show::num(100.0 * random, 1));
        let b = nb.value(&format!("waste_bucket_b{size}"), show::num(100.0 * bucketed, 1));
        say!(nb, "{size:>10} {r:>15}% {b:>15}%");
    }
    // what sets the random figure: the longest sentence in a batch is almost surely 32
    let expected =
        nb.value("waste_if_longest", show::num(100.0 * (1.0 - mean / language::MAX_LEN as f64), 1));
    say!(
        nb,
        "if every random batch held a 32-token sentence: 1 − {}/32 = {expected}%",
        show::num(mean, 2)
    );
    // the book's own batches: every row as wide as the longest input, whatever it holds
    let predicted = mean - 1.0;
    let fixed = 100.0 * (1.0 - predicted / lm::WIDTH as f64);
    let fixed = nb.value("waste_fixed", show::num(fixed, 1));
    say!(
        nb,
        "the book's training rows: {} positions for {} predicted tokens on average, {fixed}% padding",
        lm::WIDTH,
        show::num(predicted, 2)
    );
}
