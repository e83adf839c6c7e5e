//! Lecture 17 demo 04.1 — one encoder layer written twice (the forward-only
//! `blocks` crate and the autograd module) agrees in f64; and where the
//! base model's parameters sit.

use autograd::nn::{self, EncoderLayer, FeedForward, MultiHeadAttention, Norm, ToBlocks};
use autograd::{Params, Tape};
use faer::Mat;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

// ANCHOR: agreement
/// One encoder layer with random parameters, run by autograd and by
/// `blocks` on the same input: the largest difference of the outputs.
pub fn agreement_gap(norm: Norm, seed: u64) -> f64 {
    let (n, d_model, heads, d_ff) = AGREEMENT_SHAPE;
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut params = Params::<f64>::new();
    let layer = EncoderLayer::new(&mut params, "enc", d_model, heads, d_ff, norm, &mut rng);
    let x = Mat::from_fn(n, d_model, |_, _| rng.random_range(-1.0..1.0)); // (n, d_model)
    let tape = Tape::new(&params);
    let (out, _) = layer.forward(tape.input(x.clone()), 1, None); // (n, d_model), batch of 1, no mask
    let out_b = layer.to_blocks(&params).forward(&x, None); // the same parameters, copied
    blocks::max_diff(&out.value(), &out_b)
}
// ANCHOR_END: agreement

/// Positions, d_model, heads, d_ff of the agreement check.
pub const AGREEMENT_SHAPE: (usize, usize, usize, usize) = (10, 64, 8, 256);

pub fn agreement(seed: u64, nb: &mut Notebook) {
    nb.demo("agreement", "L17 04.1 · One encoder layer, two implementations, f64");
    let (n, d_model, heads, d_ff) = AGREEMENT_SHAPE;
    say!(nb, "n = {n} positions, d_model {d_model}, {heads} heads, d_ff {d_ff}; seed {seed}");
    for norm in [Norm::Post, Norm::Pre] {
        let name = if norm == Norm::Post { "post" } else { "pre" };
        let shown = nb.value(&format!("agree_{name}"), show::sci(agreement_gap(norm, seed), 1));
        say!(nb, "{norm:?}-LN: max |autograd − blocks| = {shown}");
    }
}

/// The same layers in PyTorch (fixtures in `reference/pytorch`): its
/// `nn.LayerNorm` and `nn.TransformerEncoderLayer` in both orders, loaded
/// into blocks and autograd, outputs and every gradient compared.
pub fn against_pytorch(nb: &mut Notebook) {
    nb.demo("pytorch", "L17 04.1 · The same layers in PyTorch, f64");
    twin::say_against_pytorch(
        nb,
        &[
            ("layer_norm", "nn.LayerNorm"),
            ("encoder_post", "nn.TransformerEncoderLayer, Post-LN"),
            ("encoder_pre", "nn.TransformerEncoderLayer, Pre-LN"),
        ],
    );
    let flipped = nb
        .value("torch_flipped_padding", show::sci(twin::cases::encoder_with_flipped_padding(), 1));
    say!(nb, "the Post-LN layer with PyTorch's padding mask read as 1 = may look: {flipped}");
}

/// The paper's base model.
pub const D_MODEL: usize = 512;
pub const D_FF: usize = 2048;
pub const HEADS: usize = 8;
pub const N: usize = 6;
pub const VOCAB: usize = 37_000;

// ANCHOR: parameters
/// Parameters of one freshly built module, counted on its `Params`.
fn count(build: impl FnOnce(&mut Params<f32>, &mut Pcg64Mcg)) -> usize {
    let mut params = Params::<f32>::new();
    build(&mut params, &mut Pcg64Mcg::seed_from_u64(0));
    params.count()
}

/// The base model by part: (part, one module's parameters, how many modules).
pub fn base_model_parts() -> [(&'static str, usize, usize); 4] {
    let (d, f, h) = (D_MODEL, D_FF, HEADS);
    let attn = count(|p, r| {
        let _ = MultiHeadAttention::new(p, "a", d, h, r);
    });
    let ff = count(|p, r| {
        let _ = FeedForward::new(p, "f", d, f, r);
    });
    let ln = count(|p, _| {
        let _ = nn::LayerNorm::new(p, "n", d);
    });
    let emb = count(|p, r| {
        let _ = nn::Embedding::new(p, "e", VOCAB, d, r);
    });
    [
        // encoder self-attention, decoder self- and cross-attention
        ("attention", attn, 3 * N),
        ("feed-forward", ff, 2 * N),
        // two per encoder layer, three per decoder layer
        ("LayerNorm", ln, 5 * N),
        // one table shared by source, target and the output layer
        ("embeddings", emb, 1),
    ]
}
// ANCHOR_END: parameters

pub fn parameters(nb: &mut Notebook) {
    nb.demo("parameters", "L17 04.1 · Where the base model's parameters are");
    say!(nb, "d_model {D_MODEL}, d_ff {D_FF}, h {HEADS}, N = {N}, one shared {VOCAB}-token table");
    let rows = base_model_parts();
    let total: usize = rows.iter().map(|r| r.1 * r.2).sum();
    say!(nb, "{:<13}{:>12}{:>7}{:>14}{:>8}", "part", "per module", "×", "total", "share");
    for (label, one, times) in rows {
        let name = if label == "feed-forward" { "ffn".to_owned() } else { label.to_lowercase() };
        let all = nb.value(&format!("params_{name}"), show::grouped(one * times));
        nb.value(&format!("params_{name}_one"), show::grouped(one));
        let share = nb.value(
            &format!("share_{name}"),
            show::num(100.0 * (one * times) as f64 / total as f64, 2),
        );
        say!(nb, "{label:<13}{:>12}{times:>7}{all:>14}{share:>7}%", show::grouped(one));
    }
    let total_m = nb.value("params_total", show::num(total as f64 / 1e6, 1));
    say!(nb, "total {total_m}M (the paper's table: 65M)");
    let extra = (65e6 - rows.iter().map(|r| r.1 * r.2).sum::<usize>() as f64) / D_MODEL as f64;
    let vocab = nb.value("vocab_for_65m", show::grouped(VOCAB + extra.round() as usize));
    say!(nb, "the table alone would reach 65M with a vocabulary of {vocab}");
    let (attn, ff, ln) = (rows[0].1, rows[1].1, rows[2].1);
    let ratio = nb.value("ffn_over_attention", show::num(ff as f64 / attn as f64, 2));
    let share = nb.value("ffn_share_layer", show::num(ff as f64 / (attn + ff) as f64, 3));
    say!(nb, "one feed-forward / one attention: {ratio}; its share of the two: {share}");
    let enc = nb.value("encoder_layer", show::grouped(attn + ff + 2 * ln));
    say!(nb, "one encoder layer: {enc}");
}
