//! The three models of Lecture 17 §9, built the same way and trained by
//! the same loop (`autograd::train::train_reversal`).

use autograd::nn::{GruSeq2Seq, Norm, Positions, Seq2Seq, Seq2SeqConfig};
use autograd::train::Translator;
use autograd::{Params, Tape, Var};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

/// The GRUs' hidden state: all the plain GRU's decoder learns of the input.
pub const GRU_HIDDEN: usize = 128;
/// The Transformer's attention heads.
pub const HEADS: usize = 4;

/// Which model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// GRU encoder–decoder, embedding 64, hidden 128, no attention.
    Gru,
    /// The same with Luong dot attention over the encoder states.
    GruAttention,
    /// 1 encoder + 1 decoder layer, d_model 64, 4 heads, d_ff 256, Post-LN,
    /// sinusoidal positions, embeddings not scaled by √d_model.
    Transformer,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Gru, Kind::GruAttention, Kind::Transformer];

    /// The name on the command line and in recorded values.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Gru => "gru",
            Kind::GruAttention => "gru-attention",
            Kind::Transformer => "transformer",
        }
    }

    /// The name in tables.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Gru => "GRU",
            Kind::GruAttention => "GRU + attention",
            Kind::Transformer => "Transformer",
        }
    }

    /// A tag for value names: `gru`, `gru_att`, `transformer`.
    pub fn tag(self) -> &'static str {
        match self {
            Kind::Gru => "gru",
            Kind::GruAttention => "gru_att",
            Kind::Transformer => "transformer",
        }
    }

    pub fn colour(self) -> &'static str {
        match self {
            Kind::Gru => "#7f7f7f",
            Kind::GruAttention => "#ff7f0e",
            Kind::Transformer => "#1f77b4",
        }
    }

    // ANCHOR: build
    /// A freshly initialised model (weights drawn from `seed`) and its
    /// parameters. Every size here is the book's choice (see the page).
    pub fn build(self, vocab: usize, seed: u64) -> (Model, Params<f32>) {
        let mut params = Params::new();
        let rng = &mut Pcg64Mcg::seed_from_u64(seed);
        let (embed, hidden) = (64, GRU_HIDDEN); // the GRUs
        let model = match self {
            Kind::Gru => Model::Gru(GruSeq2Seq::new(&mut params, vocab, embed, hidden, false, rng)),
            Kind::GruAttention => {
                Model::Gru(GruSeq2Seq::new(&mut params, vocab, embed, hidden, true, rng))
            }
            Kind::Transformer => {
                let cfg = Seq2SeqConfig {
                    vocab,
                    d_model: 64,
                    heads: HEADS,
                    d_ff: 256,
                    layers: 1, // one encoder layer, one decoder layer
                    norm: Norm::Post,
                    positions: Positions::Sinusoidal,
                    scale_embeddings: false, // no √d_model (chapter 6)
                    scaled_attention: true,  // scores ÷ √d_k
                };
                Model::Transformer(Seq2Seq::new(&mut params, cfg, rng))
            }
        };
        (model, params)
    }
    // ANCHOR_END: build
}

impl std::str::FromStr for Kind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Kind::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| {
            format!("`{s}` is not a model: choose from transformer, gru, gru-attention")
        })
    }
}

/// A built model of either family.
#[derive(Clone, Debug)]
pub enum Model {
    Transformer(Seq2Seq),
    Gru(GruSeq2Seq),
}

impl Translator for Model {
    fn logits<'t>(
        &self,
        tape: &'t Tape<f32>,
        src: &[usize],
        tgt_in: &[usize],
        batch: usize,
    ) -> Var<'t, f32> {
        match self {
            Model::Transformer(m) => m.logits(tape, src, tgt_in, batch),
            Model::Gru(m) => m.logits(tape, src, tgt_in, batch),
        }
    }
    fn greedy(
        &self,
        params: &Params<f32>,
        src: &[usize],
        batch: usize,
        steps: usize,
    ) -> Vec<usize> {
        match self {
            Model::Transformer(m) => m.greedy(params, src, batch, steps),
            Model::Gru(m) => m.greedy(params, src, batch, steps),
        }
    }
}

/// The GRU and the loss in PyTorch (fixtures in `reference/pytorch`):
/// `nn.GRU` from a given state, and `F.cross_entropy` with an ignored
/// class and label smoothing, outputs and every gradient compared.
pub fn against_pytorch(nb: &mut record::Notebook) {
    nb.demo("pytorch", "L17 05 · The GRU and the loss in PyTorch, f64");
    twin::say_against_pytorch(
        nb,
        &[("gru", "nn.GRU"), ("cross_entropy", "F.cross_entropy (ignore, smoothing)")],
    );
    let swapped = twin::cases::gru_with_swapped_gates();
    let swapped = nb.value("torch_gru_swapped", record::show::sci(swapped, 1));
    record::say!(nb, "the GRU with PyTorch's r and z gates read the wrong way round: {swapped}");
}
