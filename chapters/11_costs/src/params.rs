//! Lecture 6 §8.1 (script 06 part 1) and §4.1 (script 02 part 5) — where
//! the parameters are: the formulas beside the modules' own counts, for
//! GPT-2 small built at full size, and the paper's base and big models with
//! and without shared embeddings.

use autograd::nn::{DecoderLayer, Embedding};
use autograd::nn::{EncoderLayer, LayerNorm, LearnedPositions, Norm, causal_mask};
use autograd::{Params, Real, Tape, Var};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

/// The shape of a decoder-only model.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub vocab: usize,
    pub context: usize,
    pub d: usize,
    pub heads: usize,
    pub d_ff: usize,
    pub layers: usize,
}

/// GPT-2 small (Radford et al. 2019).
pub const GPT2_SMALL: Shape =
    Shape { vocab: 50_257, context: 1024, d: 768, heads: 12, d_ff: 3072, layers: 12 };

// ANCHOR: gpt
/// A GPT-2-shaped language model from the autograd crate's modules: token
/// and learned position tables, Pre-LN layers, a final layer norm, and
/// logits from the token table itself (tied embeddings: no output matrix).
/// GPT-2's feed-forward uses GELU where ours uses ReLU; the parameters and
/// the products are the same.
pub struct Gpt {
    pub tokens: Embedding,
    pub positions: LearnedPositions,
    pub layers: Vec<EncoderLayer>,
    pub ln_f: LayerNorm,
}

impl Gpt {
    pub fn new<T: Real>(params: &mut Params<T>, s: Shape, rng: &mut impl rand::Rng) -> Self {
        let tokens = Embedding::new(params, "tokens", s.vocab, s.d, rng);
        let positions = LearnedPositions::new(params, "positions", s.context, s.d, rng);
        let layers = (0..s.layers)
            .map(|i| {
                EncoderLayer::new(
                    params,
                    &format!("layer.{i}"),
                    s.d,
                    s.heads,
                    s.d_ff,
                    Norm::Pre,
                    rng,
                )
            })
            .collect();
        let ln_f = LayerNorm::new(params, "ln_f", s.d);
        Gpt { tokens, positions, layers, ln_f }
    }

    /// Next-token logits (S, V) for one sequence of ids (S ≤ context).
    pub fn forward<'t, T: Real>(&self, tape: &'t Tape<T>, ids: &[usize]) -> Var<'t, T> {
        let len = ids.len();
        let pos = self.positions.forward(tape, 1, len).expect("S fits the context");
        let mut x = self.tokens.forward(tape, ids).add(pos); // (S, d)
        let causal = causal_mask::<T>(1, len);
        for layer in &self.layers {
            x = layer.forward(x, 1, Some(&causal)).0;
        }
        self.ln_f.forward(x).matmul_t(tape.param(self.tokens.table)) // (S, V)
    }
}
// ANCHOR_END: gpt

/// Parameters by part.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Parts {
    pub embeddings: usize,
    pub positions: usize,
    pub attention: usize,
    pub ffn: usize,
    pub norms: usize,
}

impl Parts {
    pub fn total(&self) -> usize {
        self.embeddings + self.positions + self.attention + self.ffn + self.norms
    }

    // ANCHOR: formula
    /// The lecture's formulas: per layer attention 4d² + 4d (four d×d
    /// projections and their biases), feed-forward 2·d·d_ff + d_ff + d, two
    /// layer norms of 2d; one more at the end; the token table once (tied)
    /// and the position table.
    pub fn formula(s: Shape) -> Parts {
        let (d, f, l) = (s.d, s.d_ff, s.layers);
        Parts {
            embeddings: s.vocab * d,
            positions: s.context * d,
            attention: l * (4 * d * d + 4 * d),
            ffn: l * (2 * d * f + f + d),
            norms: l * 4 * d + 2 * d,
        }
    }
    // ANCHOR_END: formula

    // ANCHOR: count
    /// What the modules really created, summed by part from each
    /// parameter's name.
    pub fn count<T: Real>(params: &Params<T>) -> Parts {
        let mut parts = Parts::default();
        for (_, p) in params.iter() {
            let n = p.value.nrows() * p.value.ncols();
            let part = match p.name.as_str() {
                name if name.starts_with("tokens") => &mut parts.embeddings,
                name if name.starts_with("positions") => &mut parts.positions,
                name if name.contains(".attn.") => &mut parts.attention,
                name if name.contains(".ff.") => &mut parts.ffn,
                name if name.contains("ln") => &mut parts.norms,
                name => panic!("parameter {name} belongs to no part"),
            };
            *part += n;
        }
        parts
    }
    // ANCHOR_END: count
}

/// GPT-2 small at full size (or, with `full` off, two of its layers and a
/// vocabulary of 1000: the quick check).
pub fn gpt2_shape(full: bool) -> Shape {
    if full { GPT2_SMALL } else { Shape { layers: 2, vocab: 1000, ..GPT2_SMALL } }
}

/// Build GPT-2 small (or its 2-layer cut) in f32: its parameters, the
/// model, and how long building took.
pub fn build(shape: Shape, seed: u64) -> (Params<f32>, Gpt, std::time::Duration) {
    let mut params = Params::<f32>::new();
    let started = std::time::Instant::now();
    let model = Gpt::new(&mut params, shape, &mut Pcg64Mcg::seed_from_u64(seed));
    (params, model, started.elapsed())
}

// ANCHOR: gpt2_parameters
pub fn gpt2_parameters(
    params: &Params<f32>,
    shape: Shape,
    took: std::time::Duration,
    nb: &mut Notebook,
) {
    nb.demo(
        "gpt2_parameters",
        "L6 06.1 · Parameters of GPT-2 small: the formulas against the modules",
    );
    let built = nb.timing(took);
    let (counted, formula) = (Parts::count(params), Parts::formula(shape));
    say!(
        nb,
        "built with {} layers, d = {}, V = {}, context {} ({} tensors, in {built})",
        shape.layers,
        shape.d,
        shape.vocab,
        shape.context,
        params.len()
    );
    say!(nb, "{:<22} {:>13} {:>13} {:>7}", "part", "modules", "formula", "share");
    let rows = [
        ("token table (tied)", counted.embeddings, formula.embeddings, "embeddings"),
        ("position table", counted.positions, formula.positions, "positions"),
        ("attention 4d²+4d", counted.attention, formula.attention, "attention"),
        ("feed-forward", counted.ffn, formula.ffn, "ffn"),
        ("layer norms", counted.norms, formula.norms, "norms"),
        ("total", counted.total(), formula.total(), "total"),
    ];
    for (label, c, f, key) in rows {
        let share = 100.0 * c as f64 / counted.total() as f64;
        say!(
            nb,
            "{label:<22} {:>13} {:>13} {:>6}%",
            show::grouped(c),
            show::grouped(f),
            show::num(share, 1)
        );
        nb.value(&format!("params_{key}"), show::grouped(c));
        nb.value(&format!("params_{key}_share"), show::num(share, 1));
    }
    nb.value("params_match", (counted == formula).to_string());
    let per_layer = (counted.attention + counted.ffn + counted.norms - 2 * shape.d) / shape.layers;
    let twelve = 12 * shape.d * shape.d;
    say!(
        nb,
        "one layer: {} parameters; 12d² = {} ({}%)",
        show::grouped(per_layer),
        show::grouped(twelve),
        show::num(100.0 * twelve as f64 / per_layer as f64, 2)
    );
    nb.value("params_per_layer", show::grouped(per_layer));
}
// ANCHOR_END: gpt2_parameters

/// The paper's encoder–decoder (Vaswani et al. 2017, Table 3).
#[derive(Clone, Copy, Debug)]
pub struct Paper {
    pub d: usize,
    pub heads: usize,
    pub d_ff: usize,
    pub layers: usize,
}

// ANCHOR: paper_count
/// Parameters of the paper's Transformer, counted from the book's modules:
/// one encoder and one decoder layer built at the model's size, `layers` of
/// each; the embeddings are one V×d table when source, target and output
/// share it, three when they do not.
pub fn paper_params(m: Paper, vocab: usize, shared: bool) -> usize {
    let layer_params = |build: &dyn Fn(&mut Params<f32>)| {
        let mut p = Params::new();
        build(&mut p);
        p.count()
    };
    let enc = layer_params(&|p| {
        EncoderLayer::new(
            p,
            "enc",
            m.d,
            m.heads,
            m.d_ff,
            Norm::Post,
            &mut Pcg64Mcg::seed_from_u64(0),
        );
    });
    let dec = layer_params(&|p| {
        DecoderLayer::new(
            p,
            "dec",
            m.d,
            m.heads,
            m.d_ff,
            Norm::Post,
            &mut Pcg64Mcg::seed_from_u64(0),
        );
    });
    let tables = if shared { 1 } else { 3 };
    m.layers * (enc + dec) + tables * vocab * m.d
}
// ANCHOR_END: paper_count

pub fn shared_embeddings(nb: &mut Notebook) {
    nb.demo(
        "shared_embeddings",
        "L6 02.5 · The paper's models, with and without shared embeddings (V = 37,000)",
    );
    let vocab = 37_000;
    let models = [
        ("base", Paper { d: 512, heads: 8, d_ff: 2048, layers: 6 }),
        ("big", Paper { d: 1024, heads: 16, d_ff: 4096, layers: 6 }),
    ];
    say!(
        nb,
        "{:<6} {:>14} {:>14} {:>8}   embeddings shared",
        "model",
        "not shared",
        "shared",
        "saved"
    );
    for (name, m) in models {
        let apart = paper_params(m, vocab, false);
        let shared = paper_params(m, vocab, true);
        let saved = 100.0 * (apart - shared) as f64 / apart as f64;
        let s = nb.value(&format!("{name}_shared_m"), show::num(shared as f64 / 1e6, 1));
        let a = nb.value(&format!("{name}_apart_m"), show::num(apart as f64 / 1e6, 1));
        let p = nb.value(&format!("{name}_saved"), show::num(saved, 1));
        say!(
            nb,
            "{name:<6} {:>13}M {:>13}M {p:>7}%   ({} parameters)",
            a,
            s,
            show::grouped(shared)
        );
        // the vocabulary at which the shared model would have the paper's size
        let paper = if name == "base" { 65e6 } else { 213e6 };
        let body = (shared - vocab * m.d) as f64;
        // how far off, in per cent (the page says which way: base short, big over)
        let paper_m = if name == "base" { 65.0 } else { 213.0 };
        nb.value(
            &format!("{name}_off"),
            show::num((100.0 * (shared as f64 / 1e6 - paper_m) / paper_m).abs(), 1),
        );
        let v = nb.value(
            &format!("{name}_vocab_for_paper"),
            show::grouped(((paper - body) / m.d as f64).round() as usize),
        );
        say!(nb, "       the paper's {}M would need V = {v}", show::short(paper / 1e6));
    }
}
