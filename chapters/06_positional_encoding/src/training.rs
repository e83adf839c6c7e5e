//! Lecture 17 demo 03.5 with Lecture 6 02.3 and 02.4 — how much the
//! positions matter when the task is all about order, and why their scale
//! against the word embeddings matters as much.

use autograd::nn::init::normal;
use autograd::nn::{DecoderOnly, Norm, Positions, Seq2Seq, Seq2SeqConfig};
use autograd::train::Recipe;
use autograd::{Params, Tape};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

use crate::runs::{Kind, baselines, table, train};
use crate::sinusoids::{encoding, norm};

// ANCHOR: learned_limit
/// A learned position table has as many rows as the longest sequence it
/// was built for; one position more is an error, reported, not a panic.
pub fn learned_limit(seed: u64, nb: &mut Notebook) {
    nb.demo("learned_limit", "L6 02.3 · A learned table of 8 positions meets a sequence of 9");
    let cfg = Seq2SeqConfig {
        vocab: 12,
        d_model: 16,
        heads: 2,
        d_ff: 32,
        layers: 1,
        norm: Norm::Pre,
        positions: Positions::Learned(8),
        scale_embeddings: false,
        scaled_attention: true,
    };
    let mut params = Params::<f64>::new();
    let lm = DecoderOnly::new(&mut params, cfg, &mut Pcg64Mcg::seed_from_u64(seed));
    let tape = Tape::new(&params);
    for len in [8, 9] {
        let ids: Vec<usize> = (0..len).map(|t| 2 + t % 10).collect();
        match lm.forward(&tape, &ids, 1) {
            Ok(logits) => say!(nb, "length {len}: logits of shape {:?}", logits.shape()),
            Err(e) => {
                let e = nb.value("too_long_message", e.to_string());
                say!(nb, "length {len}: refused — {e}");
            }
        }
    }
    let far = encoding(9999.0, 16);
    say!(
        nb,
        "the sinusoids have a vector for any position, e.g. PE(9999)[0..4] = {}",
        show::tuple(far[..4].iter().copied(), 3)
    );
}
// ANCHOR_END: learned_limit

/// The tiny Transformer of Lecture 17 §9 (one encoder and one decoder
/// layer, d_model 64, 4 heads) learning to reverse sequences, with four
/// kinds of positions.
pub fn reversal(len: usize, steps: u32, seeds: &[u64], nb: &mut Notebook) {
    nb.demo("reversal", "L17 03.5 · Reversal with and without positions");
    let recipe = Recipe::reversal(len, steps);
    let (lr, warmup, batch) = (show::short(recipe.lr), recipe.warmup, recipe.batch);
    let chance = nb.value("chance", show::num(1.0 / recipe.symbols as f64, 3));
    say!(
        nb,
        "reversal, L = {len}, {} symbols: guessing gets {chance} of the tokens",
        recipe.symbols
    );
    say!(
        nb,
        "Adam {lr} after {warmup} warmup steps, batch {batch}, {steps} steps, seeds {seeds:?}"
    );
    say!(nb, "then greedy decoding of {} new sequences per seed", recipe.test);
    let runs = train(&Kind::ALL, len, steps, seeds);
    table("rev", &runs, seeds, nb);
    say!(nb, "emits mode: share of the output that is the input's most frequent symbol");
    say!(nb, "permutes: share of outputs holding exactly the input's symbols, reordered");

    // what the bag of symbols alone allows, on each seed's own test sequences
    let head =
        ["a bag of symbols", "seed", "most frequent", "blind order", "loss: bag", "bag left"];
    say!(
        nb,
        "{:>28} {:>4} {:>14} {:>12} {:>10} {:>9}",
        head[0],
        head[1],
        head[2],
        head[3],
        head[4],
        head[5]
    );
    let mut sums = [0.0; 4];
    for &s in seeds {
        let b = baselines(len, s);
        let i = s - seeds[0];
        let m = nb.value(&format!("most_frequent_seed{i}"), show::num(b.most_frequent, 3));
        let o = nb.value(&format!("bag_order_seed{i}"), show::num(b.blind_order, 3));
        let (lb, ll) = (show::num(b.loss_bag, 3), show::num(b.loss_left, 3));
        say!(nb, "{:>28} {s:>4} {m:>14} {o:>12} {lb:>10} {ll:>9}", "");
        let all = [b.most_frequent, b.blind_order, b.loss_bag, b.loss_left];
        sums.iter_mut().zip(all).for_each(|(sum, v)| *sum += v);
    }
    let mean = sums.map(|v| v / seeds.len() as f64);
    let m = nb.value("most_frequent", show::num(mean[0], 3));
    let o = nb.value("bag_order", show::num(mean[1], 3));
    let lb = nb.value("loss_bag", show::num(mean[2], 3));
    let ll = nb.value("loss_left", show::num(mean[3], 3));
    say!(nb, "{:>28} {:>4} {m:>14} {o:>12} {lb:>10} {ll:>9}", "", "mean");
    say!(nb, "most frequent: always answer the input's most frequent symbol");
    say!(nb, "blind order: emit the input's symbols in an order blind to position (expected)");
    say!(nb, "loss: bag: predict each symbol's share of the input at every step");
    say!(nb, "bag left: predict what the input holds beyond the target so far (the floor)");
}

// ANCHOR: scale_of_signals
/// The two signals that are added, measured beside what their distributions
/// predict: the embeddings of the model above (drawn N(0, 1), as PyTorch's
/// nn.Embedding) against the encodings, and Lecture 6's reading at d = 512
/// with embeddings drawn N(0, 1/d).
pub struct Signals {
    pub d: usize,
    pub tokens: usize,
    /// Mean ‖e‖ over the model's token table, and what its distribution
    /// predicts: E‖e‖ of a chi distribution, and the spread of a mean.
    pub mean_norm: f64,
    pub expected: f64,
    pub spread: f64,
    /// ‖PE(p)‖ = √(d/2) at every position.
    pub pe_norm: f64,
    /// At d = 512 with `n` embeddings N(0, 1/d), token t at position t:
    pub d512: usize,
    pub n: usize,
    /// mean ‖e‖, and ‖PE‖;
    pub e512: f64,
    pub pe512: f64,
    /// the mean cosine between e + PE and e, plain and with √d·e;
    pub cos_plain: f64,
    pub cos_scaled: f64,
    /// what the cosines should be, and the spread of the plain mean.
    pub cos_plain_expected: f64,
    pub cos_scaled_expected: f64,
    pub cos_plain_spread: f64,
}

/// Measures [`Signals`] with the model and embeddings drawn from `seed`.
pub fn signals(seed: u64) -> Signals {
    let cfg = Seq2SeqConfig::lecture17(Recipe::reversal(16, 1).vocab());
    let d = cfg.d_model;
    let mut params = Params::<f64>::new();
    let _model = Seq2Seq::new(&mut params, cfg, &mut Pcg64Mcg::seed_from_u64(seed));
    let table = &params.get(params.find("src.tokens.table").expect("the source embedding")).value;
    let tokens = table.nrows();
    let mean_norm =
        (0..tokens).map(|t| norm(table.row(t).iter().copied())).sum::<f64>() / tokens as f64;
    // ‖e‖ of N(0, 1)^d follows a chi distribution: E‖e‖ = √2·Γ((d+1)/2)/Γ(d/2),
    // Var‖e‖ = d − (E‖e‖)²; a mean over n tokens spreads by √Var/√n.
    let half = d as f64 / 2.0;
    let expected = 2f64.sqrt() * libm::exp(libm::lgamma(half + 0.5) - libm::lgamma(half));
    let spread = (d as f64 - expected * expected).sqrt() / (tokens as f64).sqrt();

    let (d512, n) = (512, 1000);
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let emb = normal::<f64>(n, d512, 1.0 / (d512 as f64).sqrt(), &mut rng); // (1000, 512)
    let cosine = |factor: f64| -> f64 {
        let mut total = 0.0;
        for t in 0..n {
            let e: Vec<f64> = emb.row(t).iter().map(|v| factor * v).collect();
            let sum: Vec<f64> =
                e.iter().zip(encoding(t as f64, d512)).map(|(a, b)| a + b).collect();
            let dot: f64 = sum.iter().zip(&e).map(|(a, b)| a * b).sum();
            total += dot / (norm(sum.iter().copied()) * norm(e.iter().copied()));
        }
        total / n as f64
    };
    let e512 = (0..n).map(|t| norm(emb.row(t).iter().copied())).sum::<f64>() / n as f64;
    let (cos_plain, cos_scaled) = (cosine(1.0), cosine((d512 as f64).sqrt()));
    // With ‖e‖² ≈ a and ‖PE‖² = d/2, e·PE ≈ 0: cos ≈ √a / √(a + d/2). The
    // cross term e·PE has standard deviation ‖PE‖/√d, so one token's cosine
    // spreads by about that over √(1 + d/2), the mean of n by 1/√n of it.
    let pe2 = d512 as f64 / 2.0;
    let cos_of = |a: f64| a.sqrt() / (a + pe2).sqrt();
    Signals {
        d,
        tokens,
        mean_norm,
        expected,
        spread,
        pe_norm: (d as f64 / 2.0).sqrt(),
        d512,
        n,
        e512,
        pe512: pe2.sqrt(),
        cos_plain,
        cos_scaled,
        cos_plain_expected: cos_of(1.0),
        cos_scaled_expected: cos_of(d512 as f64),
        cos_plain_spread: (pe2 / d512 as f64).sqrt() / (1.0 + pe2).sqrt() / (n as f64).sqrt(),
    }
}
// ANCHOR_END: scale_of_signals

/// Why "× √d_model" failed above: the length of what is added, measured and
/// as expected from the distribution the embeddings come from, printed.
pub fn scale_of_signals(seed: u64, nb: &mut Notebook) {
    nb.demo("scale_of_signals", "L17 03.5 (last row) · L6 02.4 · Two signals added: their scales");
    let s = signals(seed);
    let (d, tokens) = (s.d, s.tokens);
    let root = (d as f64).sqrt();
    let e = nb.value("emb_norm", show::num(s.mean_norm, 2));
    let scaled = nb.value("emb_norm_scaled", show::num(s.mean_norm * root, 1));
    let pe = nb.value("pe_norm", show::num(s.pe_norm, 2));
    say!(nb, "d_model {d}, embeddings N(0, 1): mean ‖e‖ over the {tokens} tokens = {e}");
    say!(nb, "  × √{d} = {} → {scaled}, against ‖PE‖ = √(d/2) = {pe}", show::short(root));
    let expected = nb.value("emb_norm_expected", show::num(s.expected, 2));
    let spread = nb.value("emb_norm_spread", show::num(s.spread, 2));
    say!(nb, "  expected: E‖e‖ = {expected}; a mean over {tokens} tokens spreads by ±{spread}");

    let (d, n) = (s.d512, s.n);
    let e512 = nb.value("d512_emb_norm", show::num(s.e512, 2));
    let pe512 = nb.value("d512_pe_norm", show::num(s.pe512, 1));
    say!(nb, "d_model {d}, embeddings N(0, 1/d), token t at position t, t < {n}:");
    say!(nb, "  mean ‖e‖ = {e512}, against ‖PE‖ = √(d/2) = {pe512}");
    let plain = nb.value("cos_plain", show::num(s.cos_plain, 3));
    let times = nb.value("cos_scaled", show::num(s.cos_scaled, 3));
    say!(nb, "  mean cos(e + PE, e) = {plain}; with √d·e: mean cos(√d·e + PE, √d·e) = {times}");
    let plain = nb.value("cos_plain_expected", show::num(s.cos_plain_expected, 3));
    let times = nb.value("cos_scaled_expected", show::num(s.cos_scaled_expected, 3));
    let spread = nb.value("cos_plain_spread", show::num(s.cos_plain_spread, 3));
    say!(nb, "  expected: √1/√(1 + d/2) = {plain} (a mean over {n} spreads by ±{spread});");
    say!(nb, "            √d/√(d + d/2) = {times}");
}
