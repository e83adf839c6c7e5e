//! # Chapter 01 — path length: why drop recurrence
//!
//! Lecture 17 §1: how strongly the last output of a randomly initialised
//! RNN and of a randomly initialised self-attention layer depends on each
//! input, by distance; what sets the RNN's rate of forgetting; and the same
//! measurement with variance-preserving weights, the lecture-like setting;
//! and two of the chapter's exercises (a larger W_hh, other seeds).

use std::path::PathBuf;

use clap::{Parser, ValueEnum};
use record::Notebook;

pub mod decay;
pub mod exercises;
pub mod models;
pub mod sensitivity;

/// How the weights of both models are drawn.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Init {
    /// As PyTorch's nn.RNN and nn.MultiheadAttention do by default.
    Pytorch,
    /// Every weight matrix from N(0, 1/d), every bias 0 (variance-preserving).
    Normal,
}

/// What a reader can change without editing code.
#[derive(Parser, Debug, Clone)]
#[command(
    about = "Chapter 01: how the last output of an RNN and of self-attention depends on input j",
    allow_negative_numbers = true
)]
pub struct Options {
    /// Sequence length n.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u16).range(2..=256))]
    pub len: u16,

    /// Random sequences to average over.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u16).range(1..=50))]
    pub seqs: u16,

    /// Width d of the inputs, the RNN state and the attention layer.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u16).range(1..=128))]
    pub width: u16,

    /// Multiply the RNN's recurrent matrix W_hh by this factor.
    #[arg(long, default_value_t = 1.0, value_parser = record::cli::float_in(0.0, 10.0))]
    pub recurrent_scale: f64,

    /// How the weights are drawn.
    #[arg(long, value_enum, default_value_t = Init::Pytorch)]
    pub init: Init,

    /// Standard deviation of the random inputs x_j.
    #[arg(long, default_value_t = 1.0, value_parser = record::cli::float_in(0.0, 100.0))]
    pub input_scale: f64,

    /// Seed of the random weights and inputs.
    #[arg(long, default_value_t = 0, value_parser = record::cli::seed)]
    pub seed: u64,

    /// Also write the chapter's SVG figures into this directory.
    #[arg(long, value_name = "DIR")]
    pub figures: Option<PathBuf>,
}

impl Default for Options {
    /// The configuration the book shows.
    fn default() -> Self {
        Options::parse_from(["ch01_path_length"])
    }
}

/// Every demo of the chapter, in the lecture's order, then the exercises'.
pub fn run(opts: &Options, nb: &mut Notebook) {
    sensitivity::path_length(opts, nb);
    decay::rnn_decay(opts, nb);
    sensitivity::normal_init(opts, nb);
    exercises::larger_recurrent(opts, nb);
    exercises::other_seeds(opts, nb);
}
