//! # Chapter 02 — self-attention: every word asks a question
//!
//! Lecture 17 §2 (the Jane example, by hand) and Lecture 6 §2.1 (attention as
//! a soft lookup), then the exercises. `run` calls the demos in the lectures'
//! order, the exercises last.

use std::path::PathBuf;

use clap::Parser;
use record::Notebook;

pub mod exercise;
pub mod jane;
pub mod soft_lookup;

/// What a reader can change without editing code.
#[derive(Parser, Debug, Clone)]
#[command(
    about = "Chapter 02: self-attention by hand (the Jane example) and as a soft lookup",
    allow_negative_numbers = true
)]
pub struct Options {
    /// How strongly each word's query asks for the meaning it wants (the
    /// lecture uses 4).
    #[arg(long, default_value_t = 4.0, value_parser = record::cli::float_in(0.0, 100.0))]
    pub strength: f64,

    /// Factors the soft lookup multiplies its scores by, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [1.0, 4.0, 16.0, 64.0], value_parser = factor)]
    pub sharpen: Vec<f64>,

    /// Seed of the random inputs and weights in exercise 1(d)'s check.
    #[arg(long, default_value_t = 0, value_parser = record::cli::seed)]
    pub seed: u64,

    /// Also write the chapter's SVG figures into this directory.
    #[arg(long, value_name = "DIR")]
    pub figures: Option<PathBuf>,
}

impl Default for Options {
    /// The configuration the book shows.
    fn default() -> Self {
        Options::parse_from(["ch02_self_attention"])
    }
}

fn factor(s: &str) -> Result<f64, String> {
    let x = record::cli::float_in(0.0, 1000.0)(s)?;
    if x == 0.0 {
        return Err("must be greater than 0".into());
    }
    Ok(x)
}

/// Every demo of the chapter, in the lectures' order.
pub fn run(opts: &Options, nb: &mut Notebook) {
    jane::jane(opts.strength, nb);
    jane::one_vector(nb);
    soft_lookup::soft_lookup(&opts.sharpen, nb);
    exercise::exercise_1(nb);
    exercise::random_init(opts.seed, nb);
    exercise::exercise_2(nb);
}
