//! Lecture 17 demo 01.3 and Lecture 6 demo 01.4 — self-attention does not
//! know word order: permute the input, and the output is permuted the same
//! way, every row unchanged. Positional encodings break the symmetry.

use autograd::nn::init::normal;
use blocks::layers::sinusoidal;
use blocks::{matmul, scaled_dot_product_attention};
use faer::Mat;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

use blocks::max_diff;

/// One self-attention layer with random W^Q, W^K, W^V (no output projection).
pub struct SelfAttention {
    w_q: Mat<f64>,
    w_k: Mat<f64>,
    w_v: Mat<f64>,
}

impl SelfAttention {
    pub fn random(d: usize, rng: &mut Pcg64Mcg) -> Self {
        let s = 1.0 / (d as f64).sqrt();
        SelfAttention {
            w_q: normal(d, d, s, rng),
            w_k: normal(d, d, s, rng),
            w_v: normal(d, d, s, rng),
        }
    }

    /// `softmax(XW^Q (XW^K)ᵀ/√d)·XW^V` for X (n, d).
    pub fn forward(&self, x: &Mat<f64>) -> Mat<f64> {
        let (q, k, v) = (
            matmul(x.as_ref(), self.w_q.as_ref()),
            matmul(x.as_ref(), self.w_k.as_ref()),
            matmul(x.as_ref(), self.w_v.as_ref()),
        );
        scaled_dot_product_attention(q.as_ref(), k.as_ref(), v.as_ref(), None).output
    }
}

/// Stack the embeddings of `words` into (n, d), optionally adding the
/// sinusoidal encoding of each position.
fn embed(table: &[(&str, Mat<f64>)], words: &[&str], positions: bool) -> Mat<f64> {
    let d = table[0].1.ncols();
    let pe = sinusoidal(words.len(), d);
    Mat::from_fn(words.len(), d, |i, j| {
        let row = &table.iter().find(|(w, _)| *w == words[i]).unwrap().1;
        row[(0, j)] + if positions { pe[(i, j)] } else { 0.0 }
    })
}

/// Row `r` of `m` as a (1, d) matrix.
fn row(m: &Mat<f64>, r: usize) -> Mat<f64> {
    m.as_ref().submatrix(r, 0, 1, m.ncols()).to_owned()
}

// ANCHOR: jane_and_marie
/// "Jane visite Marie" and "Marie visite Jane": same words, other order.
/// Without positions, visite cannot tell who visits whom.
pub fn jane_and_marie(seed: u64, nb: &mut Notebook) {
    nb.demo("jane_and_marie", "L17 01.3 · Jane visite Marie, Marie visite Jane");
    let d = 16;
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let table: Vec<(&str, Mat<f64>)> =
        ["Jane", "visite", "Marie"].iter().map(|&w| (w, normal(1, d, 1.0, &mut rng))).collect();
    let attn = SelfAttention::random(d, &mut rng);
    let (a, b) = (["Jane", "visite", "Marie"], ["Marie", "visite", "Jane"]);
    say!(nb, "random embeddings and W^Q, W^K, W^V, d = {d}; visite is word 2 in both sentences");
    for (positions, name) in [(false, "visite_diff_no_pe"), (true, "visite_diff_pe")] {
        let out_a = attn.forward(&embed(&table, &a, positions));
        let out_b = attn.forward(&embed(&table, &b, positions));
        let diff = nb.value(name, show::sci(max_diff(&row(&out_a, 1), &row(&out_b, 1)), 1));
        let label = if positions { "with positional encoding" } else { "without positions" };
        say!(nb, "  {label:<25} max |visite(A) − visite(B)| = {diff}");
    }
}
// ANCHOR_END: jane_and_marie

// ANCHOR: random_permutation
/// Random words under a random permutation P: is Attn(PX) = P·Attn(X)?
/// Six words as in Lecture 17, nine tokens as in Lecture 6.
pub fn random_permutation(seed: u64, nb: &mut Notebook) {
    nb.demo("random_permutation", "L17 01.3, L6 01.4 · Attn(PX) against P·Attn(X)");
    let d = 16;
    for (n, draw, tag) in [(6, seed + 1, "perm"), (9, seed + 3, "perm9")] {
        let mut rng = Pcg64Mcg::seed_from_u64(draw);
        let x: Mat<f64> = normal(n, d, 1.0, &mut rng); // (n, d)
        let attn = SelfAttention::random(d, &mut rng);
        let mut perm: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            perm.swap(i, rng.random_range(0..=i)); // Fisher–Yates
        }
        let permute = |m: &Mat<f64>| Mat::from_fn(m.nrows(), m.ncols(), |i, j| m[(perm[i], j)]);
        let pe = sinusoidal(n, d);
        say!(nb, "{n} random words, d = {d}, permutation {perm:?}");
        for (positions, case) in [(false, "no_pe"), (true, "pe")] {
            // positions belong to slots, not to words: they are added after permuting
            let with = |m: Mat<f64>| if positions { &m + &pe } else { m };
            let lhs = attn.forward(&with(permute(&x))); // Attn(PX)
            let rhs = permute(&attn.forward(&with(x.clone()))); // P·Attn(X)
            let diff = nb.value(&format!("{tag}_diff_{case}"), show::sci(max_diff(&lhs, &rhs), 1));
            let label = if positions { "with positional encoding" } else { "without positions" };
            say!(nb, "  {label:<25} max |Attn(PX) − P·Attn(X)| = {diff}");
        }
    }
}
// ANCHOR_END: random_permutation

// ANCHOR: plot_but_acting
/// Lecture 6: a "but" sentence and its swap have the same words. Averaged
/// over positions, self-attention's outputs cannot tell them apart.
pub fn plot_but_acting(seed: u64, nb: &mut Notebook) {
    nb.demo("plot_but_acting", "L6 01.4 · the plot was good but the acting was bad");
    let d = 16;
    let mut rng = Pcg64Mcg::seed_from_u64(seed + 2);
    let a: Vec<&str> = "the plot was good but the acting was bad".split(' ').collect();
    let b: Vec<&str> = "the acting was bad but the plot was good".split(' ').collect();
    let mut vocab: Vec<&str> = a.clone();
    vocab.sort();
    vocab.dedup();
    let mut table: Vec<(&str, Mat<f64>)> =
        vocab.iter().map(|&w| (w, normal(1, d, 1.0, &mut rng))).collect();
    let attn = SelfAttention::random(d, &mut rng);
    let mean_pool = |m: &Mat<f64>| {
        Mat::from_fn(1, m.ncols(), |_, j| {
            (0..m.nrows()).map(|i| m[(i, j)]).sum::<f64>() / m.nrows() as f64
        })
    };
    say!(nb, "A: {}", a.join(" "));
    say!(nb, "B: {}", b.join(" "));
    for (positions, name) in [(false, "pooled_diff_no_pe"), (true, "pooled_diff_pe")] {
        let pa = mean_pool(&attn.forward(&embed(&table, &a, positions)));
        let pb = mean_pool(&attn.forward(&embed(&table, &b, positions)));
        let diff = nb.value(name, show::sci(max_diff(&pa, &pb), 1));
        let label = if positions { "with positional encoding" } else { "without positions" };
        say!(nb, "  {label:<25} max |mean(A) − mean(B)| = {diff}");
    }
    // A negation changes which words are there, not just their order: it is
    // visible without positions. ("not" is drawn last, so A and B keep theirs.)
    table.push(("not", normal(1, d, 1.0, &mut rng)));
    let plain = ["the", "plot", "was", "good"];
    let negated = ["the", "plot", "was", "not", "good"];
    let pc = mean_pool(&attn.forward(&embed(&table, &plain, false)));
    let pd = mean_pool(&attn.forward(&embed(&table, &negated, false)));
    let diff = nb.value("pooled_diff_negation", show::sci(max_diff(&pc, &pd), 1));
    say!(nb, "C: {}", plain.join(" "));
    say!(nb, "D: {}", negated.join(" "));
    say!(nb, "  {:<25} max |mean(C) − mean(D)| = {diff}", "without positions");
}
// ANCHOR_END: plot_but_acting
