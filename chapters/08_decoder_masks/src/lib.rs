//! # Chapter 08 — the decoder and its masks
//!
//! Lecture 17 §8 (demos 04.4–04.6, exercise 4) and Lecture 6 §2.3, §3.3,
//! §7.1–7.2 (scripts 01.3, 05.1, 03.2, exercises 2 and 11). `run` calls the
//! demos in the lectures' order.

use std::path::PathBuf;

use clap::Parser;
use record::Notebook;

pub mod decoder;
pub mod dropout;
pub mod exercises;
pub mod jacobian;
pub mod masks;
pub mod padding;
pub mod parallel;
pub mod small;

/// What a reader can change without editing code.
#[derive(Parser, Debug, Clone)]
#[command(
    about = "Chapter 08: the decoder — the look-ahead mask (outputs and an exact Jacobian), fully masked rows, cross-attention, training in parallel against generation step by step (with and without a KV cache), the padding mask, teacher forcing, dropout"
)]
pub struct Options {
    /// Target length of the parallel-vs-step-by-step demo.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=128))]
    pub len: u16,

    /// Decoder layers of the parallel-vs-step-by-step demo.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=12))]
    pub layers: u16,

    /// Dropout probability p of the dropout demo.
    #[arg(long, default_value_t = 0.1, value_parser = record::cli::float_in(0.0, 0.95))]
    pub dropout: f64,

    /// Entries the dropout demo draws its masks over.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(100..=10_000_000))]
    pub samples: u32,

    /// Seed of every random draw in the chapter (each demo derives its own from it).
    #[arg(long, default_value_t = 0, value_parser = record::cli::seed)]
    pub seed: u64,

    /// Also write the chapter's SVG figures into this directory.
    #[arg(long, value_name = "DIR")]
    pub figures: Option<PathBuf>,
}

impl Default for Options {
    /// The configuration the book shows.
    fn default() -> Self {
        Options::parse_from(["ch08_decoder_masks"])
    }
}

/// Every demo of the chapter, in the lectures' order.
pub fn run(opts: &Options, nb: &mut Notebook) {
    let seed = opts.seed;
    masks::look_ahead(seed, nb);
    masks::future_inputs(seed, nb);
    masks::unmasked_size(seed, nb);
    jacobian::jacobian(seed, nb);
    masks::fully_masked_row(nb);
    decoder::agreement(seed, nb);
    decoder::against_pytorch(nb);
    decoder::cross_attention(seed, nb);
    parallel::parallel_vs_steps(opts.len as usize, opts.layers as usize, seed, nb);
    padding::padding(seed, nb);
    parallel::teacher_forcing(seed, nb);
    dropout::dropout(opts.dropout, opts.samples as usize, seed, nb);
    exercises::exercise_masks(seed, nb);
    exercises::exercise_masked_count(nb);
}
