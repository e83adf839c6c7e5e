//! Modules. Each is a struct holding [`ParamId`](crate::ParamId)s, a `new`
//! that creates and initialises its parameters in a [`Params`](crate::Params),
//! and a `forward` on a tape.
//!
//! Initialisation follows PyTorch's defaults unless noted: `Linear` weights
//! and biases `U(−1/√d_in, 1/√d_in)`; `Embedding` `N(0, 1)`; `LayerNorm`
//! `γ = 1, β = 0`; `GRU` every weight and bias `U(−1/√H, 1/√H)`.

pub mod attention;
pub mod classifier;
pub mod decode;
pub mod gpt;

pub mod gru;
pub mod init;
pub mod layers;
pub mod positions;
pub mod to_blocks;
pub mod transformer;
pub mod transformer_layers;

pub use attention::MultiHeadAttention;
pub use classifier::{Classified, Classifier, ClassifierConfig, mean_pool};
pub use gpt::{GivenMasks, Gpt, GptConfig, Masks, Mlp, NoDropout, RandomMasks};
pub use gru::{Gru, GruCell, GruSeq2Seq};

pub use layers::{Dropout, Embedding, FeedForward, LayerNorm, Linear};
pub use positions::{LearnedPositions, sinusoidal};
pub use to_blocks::ToBlocks;
pub use transformer::{DecoderOnly, Positions, Seq2Seq, Seq2SeqConfig, causal_mask, padding_mask};
pub use transformer_layers::{DecoderLayer, DecoderWeights, EncoderLayer, Norm};
