//! # Chapter 08 — the decoder and its masks
//!
//! Lecture 17 §8 (demos 04.4–04.6, exercise 4) and Lecture 6 §2.3, §3.3, §6.3,
//! §7.1–7.2 (scripts 01.3, 05.1, 03.2, exercises 2 and 11). `run` calls the
//! demos in the lectures' order. Each demo is two functions: one computes
//! and returns its numbers (the page shows it), the other prints and
//! records them.

use std::path::PathBuf;

use autograd::train::Recipe;
use clap::Parser;
use record::Notebook;

pub mod decoder;
pub mod dropout;
pub mod exercises;
pub mod fully_masked;
pub mod generation;
pub mod jacobian;
pub mod left;
pub mod masks;
pub mod padding;
pub mod parallel;
pub mod small;

/// What a reader can change without editing code.
#[derive(Parser, Debug, Clone)]
#[command(
    about = "Chapter 08: the decoder — the look-ahead mask (outputs and an exact Jacobian), cross-attention, the padding mask on the right and on the left, fully masked rows, training in parallel against generation step by step (with and without a KV cache), teacher forcing, a trained model generating (and the positional cache bug), dropout"
)]
pub struct Options {
    /// Target length of the parallel-vs-step-by-step demo.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=128))]
    pub len: u16,

    /// Decoder layers of the parallel-vs-step-by-step demo.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=12))]
    pub layers: u16,

    /// Training steps of the small Transformer the generation demo trains.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u32).range(1..=20_000))]
    pub train_steps: u32,

    /// Length of the sequences it learns to reverse and then generates.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u16).range(2..=64))]
    pub train_len: u16,

    /// Test sequences the generation demo decodes.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=5_000))]
    pub test: u32,

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
    decoder::agreement(seed, nb);
    decoder::against_pytorch(nb);
    decoder::cross_attention(seed, nb);
    padding::padding(seed, nb);
    padding::cross_padding(seed, nb);
    left::left_padding(seed, nb);
    fully_masked::fully_masked_row(seed, nb);
    parallel::parallel_vs_steps(opts.len as usize, opts.layers as usize, seed, nb);
    parallel::teacher_forcing(seed, nb);
    let recipe = Recipe {
        test: opts.test as usize,
        ..Recipe::reversal(opts.train_len as usize, opts.train_steps)
    };
    generation::generation(&recipe, seed, nb);
    dropout::dropout(opts.dropout, opts.samples as usize, seed, nb);
    exercises::exercise_masks(seed, nb);
    exercises::exercise_masked_count(nb);
    exercises::exercise_short_training(&recipe, seed, nb);
}
