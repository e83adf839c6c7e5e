//! Lecture 17 demo 04.5 and Lecture 6 §3.3 — the decoder layer written
//! twice (the forward-only `blocks` crate and the autograd module) agrees
//! in f64, and with PyTorch's; and cross-attention: queries from the
//! decoder, keys and values from the encoder's output, no look-ahead mask.

use autograd::nn::{DecoderLayer, EncoderLayer, Norm, ToBlocks};
use autograd::{Params, Tape};
use blocks::layers::causal_mask;
use blocks::max_diff;
use faer::Mat;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

use crate::small::{D_MODEL, N, N_SRC, POS, SRC, Small, random, rows};

/// Target and source positions, d_model, heads, d_ff of the agreement demo.
const AGREE: (usize, usize, usize, usize, usize) = (7, 9, 64, 8, 256);

// ANCHOR: agreement
/// One random decoder layer (`seed`) in autograd and its copy in `blocks`,
/// on the same target, memory and look-ahead mask: max |difference|.
pub fn two_implementations(norm: Norm, seed: u64) -> f64 {
    let (s_t, s_s, d_model, heads, d_ff) = AGREE;
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut params = Params::<f64>::new();
    let layer = DecoderLayer::new(&mut params, "dec", d_model, heads, d_ff, norm, &mut rng);
    let y = random(s_t, d_model, &mut rng); // (s_t, d_model)
    let memory = random(s_s, d_model, &mut rng); // (s_s, d_model)
    let keep = causal_mask(s_t); // (s_t, s_t)
    let tape = Tape::new(&params);
    let (y_in, m_in) = (tape.input(y.clone()), tape.input(memory.clone()));
    let (out, _) = layer.forward(y_in, m_in, 1, Some(&keep), None); // (s_t, d_model)
    let out_b = layer.to_blocks(&params).forward(&y, &memory, Some(&keep), None);
    max_diff(&out.value(), &out_b)
}
// ANCHOR_END: agreement

pub fn agreement(seed: u64, nb: &mut Notebook) {
    nb.demo("agreement", "L17 04.5 · One decoder layer, two implementations, f64");
    let (s_t, s_s, d_model, heads, d_ff) = AGREE;
    say!(nb, "target {s_t} positions, source {s_s}, d_model {d_model}, {heads} heads, d_ff {d_ff}");
    for (norm, name) in [(Norm::Post, "post"), (Norm::Pre, "pre")] {
        let shown =
            nb.value(&format!("agree_{name}"), show::sci(two_implementations(norm, seed), 1));
        say!(nb, "{norm:?}-LN: max |autograd − blocks| = {shown}");
    }
}

/// What the fixture script checked PyTorch does with a fully masked row.
const FACTS: [(&str, &str, &str); 3] = [
    (
        "sdpa_fully_masked_row_is_zero",
        "torch_fact_sdpa_zero",
        "F.scaled_dot_product_attention: the row is 0",
    ),
    (
        "softmax_of_all_minus_inf_is_nan",
        "torch_fact_softmax_nan",
        "torch.softmax over a row of −∞: NaN",
    ),
    (
        "mha_fully_masked_weights_are_nan",
        "torch_fact_mha_nan",
        "nn.MultiheadAttention: the row's weights NaN",
    ),
];

/// The same layers in PyTorch (fixtures in `reference/pytorch`): its
/// decoder layer in both orders, its multi-head attention under a causal
/// and a key-padding mask, and SDPA with a query that may look at nothing.
pub fn against_pytorch(nb: &mut Notebook) {
    nb.demo("pytorch", "L17 04.5 · The same layers and masks in PyTorch, f64");
    twin::say_against_pytorch(
        nb,
        &[
            ("decoder_post", "nn.TransformerDecoderLayer, Post-LN"),
            ("decoder_pre", "nn.TransformerDecoderLayer, Pre-LN"),
            ("mha_causal", "nn.MultiheadAttention, causal"),
            ("mha_padding", "nn.MultiheadAttention, key padding"),
            ("sdpa_fully_masked", "F.scaled_dot_product_attention"),
        ],
    );
    say!(nb, "the multi-head cases compare every head's weights among the outputs");
    let facts = twin::Fixture::named("sdpa_fully_masked").facts;
    say!(nb, "a fully masked row in PyTorch, as the fixture script found (true = it does):");
    for (fact, name, label) in FACTS {
        let held = facts.get(fact).copied().unwrap_or_else(|| panic!("no fact {fact}"));
        let held = nb.value(name, held.to_string());
        say!(nb, "  {label:<46} {held}");
    }
}

// ANCHOR: cross_attention
/// Head 0 of the small layer's cross-attention, (N, N_SRC), and how far
/// target output 0 moves when the last source position gets `fresh`.
pub fn cross_reach(seed: u64, fresh: &Mat<f64>) -> (Mat<f64>, f64) {
    let keep = causal_mask(N); // for the self-attention; cross-attention has none
    let small = Small::new(seed);
    let (out, head_zero) = small.forward(&small.y, Some(&keep)); // (N, d_model)
    let mut other = Small::new(seed);
    other.memory.as_mut().submatrix_mut(N_SRC - 1, 0, 1, D_MODEL).copy_from(fresh);
    let (moved, _) = other.forward(&other.y, Some(&keep));
    (head_zero.cross_attn, max_diff(&rows(&out, 0, 1), &rows(&moved, 0, 1)))
}

/// Parameters of one decoder layer of an encoder–decoder model, and of one
/// without cross-attention (a decoder-only model's: an encoder layer's
/// sub-layers under a causal mask).
pub fn layer_parameters(d_model: usize, heads: usize, d_ff: usize) -> (usize, usize) {
    let (mut with, mut without) = (Params::<f32>::new(), Params::<f32>::new());
    let mut rng = Pcg64Mcg::seed_from_u64(0);
    let _ = DecoderLayer::new(&mut with, "d", d_model, heads, d_ff, Norm::Post, &mut rng);
    let _ = EncoderLayer::new(&mut without, "d", d_model, heads, d_ff, Norm::Post, &mut rng);
    (with.count(), without.count())
}
// ANCHOR_END: cross_attention

pub fn cross_attention(seed: u64, nb: &mut Notebook) {
    nb.demo(
        "cross_attention",
        "L17 04.5 · Cross-attention: Q from the decoder, K and V from the encoder",
    );
    let fresh = random(1, D_MODEL, &mut Pcg64Mcg::seed_from_u64(seed + 2));
    let (cross, first) = cross_reach(seed, &fresh);
    say!(nb, "cross-attention weights, head 0: {N} target rows × {N_SRC} source columns, no mask");
    for line in show::table(cross.as_ref(), &POS, &SRC, 3) {
        say!(nb, "  {line}");
    }
    let least = (0..N).flat_map(|t| (0..N_SRC).map(move |s| (t, s))).map(|(t, s)| cross[(t, s)]);
    let least = nb.value("cross_min_weight", show::num(least.fold(f64::INFINITY, f64::min), 3));
    say!(nb, "smallest weight {least}: every target position sees every source position");
    let first = nb.value("cross_first_moves", show::num(first, 3));
    say!(nb, "source position {} changed: target output 0 moves by {first}", N_SRC - 1);
    let (d, h, f) = (512, 8, 2048); // the paper's base model
    let (with, without) = layer_parameters(d, h, f);
    nb.value("params_d_model", d.to_string());
    let with_s = nb.value("params_decoder_layer", show::grouped(with));
    let without_s = nb.value("params_decoder_only_layer", show::grouped(without));
    let extra = nb.value("params_cross", show::grouped(with - without));
    say!(
        nb,
        "d_model {d}: encoder–decoder layer {with_s} parameters, decoder-only layer {without_s}"
    );
    say!(nb, "cross-attention and its LayerNorm: {extra} = 4d² + 4d + 2d");
}
