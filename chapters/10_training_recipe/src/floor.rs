//! Lecture 6 §5.4 and §7.3 judge every recipe by test cross-entropy above an
//! exact floor. This demo shows the language, the floor, and checks the
//! floor's exact value against sampling.

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

use crate::language::{self, VOCAB};

// ANCHOR: monte_carlo
/// The floor by sampling: the mean of −ln p over the tokens of `n`
/// sentences, and its standard error (the delta method for a ratio of two
/// sums: nats over tokens).
pub fn monte_carlo(n: usize, seed: u64) -> (f64, f64) {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let per: Vec<(f64, f64)> = (0..n)
        .map(|_| {
            let s = language::sample(&mut rng);
            let nats: f64 = language::probabilities(&s).iter().map(|&p| -libm::log(p)).sum();
            (nats, (s.len() - 1) as f64)
        })
        .collect();
    let (h, t): (f64, f64) = per.iter().fold((0.0, 0.0), |a, &(x, y)| (a.0 + x, a.1 + y));
    let rate = h / t;
    let mean_t = t / n as f64;
    let var = per.iter().map(|&(x, y)| (x - rate * y).powi(2)).sum::<f64>() / (n - 1) as f64;
    (rate, (var / n as f64).sqrt() / mean_t)
}
// ANCHOR_END: monte_carlo

pub fn floor(samples: usize, seed: u64, nb: &mut Notebook) {
    nb.demo("language", "L6 §5.4 · The city language and its exact floor");
    say!(nb, "vocabulary {VOCAB} tokens; sentences of 18, 25 or 32 tokens (1, 2 or 3 legs)");
    nb.value("vocab", VOCAB.to_string());
    let mut rng = Pcg64Mcg::seed_from_u64(seed + 300);
    say!(nb, "four sentences, each with −ln p(x_t | x_<t) summed over its tokens:");
    for i in 0..4 {
        let s = language::sample(&mut rng);
        let nats: f64 = language::probabilities(&s).iter().map(|&p| -libm::log(p)).sum();
        let line = language::sentence(&s);
        say!(nb, "  {line}   ({} tokens, {} nats)", s.len(), show::num(nats, 2));
        if i == 0 {
            nb.value("example", line);
        }
    }
    let (h, n) = language::entropy_rate();
    let rate = h / n;
    let exact = nb.value("floor_exact", show::num(rate, 5));
    let per_sentence = nb.value("entropy_per_sentence", show::num(h, 4));
    let tokens = nb.value("tokens_per_sentence", show::num(n, 4));
    say!(nb, "exact: {per_sentence} nats per sentence over {tokens} tokens = {exact} nats/token");
    let (mc, se) = monte_carlo(samples, seed + 400);
    let mc_s = nb.value("floor_mc", show::num(mc, 5));
    let se_s = nb.value("floor_mc_se", show::num(se, 5));
    let z = nb.value("floor_mc_z", show::num((mc - rate) / se, 2));
    say!(nb, "sampled, {samples} sentences: {mc_s} ± {se_s} nats/token (z = {z})");
}
