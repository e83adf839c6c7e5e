//! # Chapter 03 — the matrix form, permutation equivariance and cost
//!
//! Lecture 17 §3 (demos 01.2, 01.3, 01.5) with Lecture 6 §1.2 and §2.4
//! (demos 01.4, 01.5). `run` calls the demos in the order the page shows them:
//! Lecture 6's FLOP count comes before the timing sweep that prints both counts.

use std::path::PathBuf;

use clap::Parser;
use record::Notebook;

pub mod cost;
pub mod equivariance;
pub mod matrix_form;
pub mod speed;

/// What a reader can change without editing code.
#[derive(Parser, Debug, Clone)]
#[command(
    about = "Chapter 03: attention in matrix form, permutation equivariance, and what it costs"
)]
pub struct Options {
    /// Seed of the random embeddings and weights.
    #[arg(long, default_value_t = 0, value_parser = record::cli::seed)]
    pub seed: u64,

    /// Largest sequence length in the RNN-against-attention timing (a power of two).
    #[arg(long, default_value_t = 2048, value_parser = max_len)]
    pub max_len: usize,

    /// Also write the chapter's SVG figures into this directory.
    #[arg(long, value_name = "DIR")]
    pub figures: Option<PathBuf>,
}

impl Default for Options {
    /// The configuration the book shows.
    fn default() -> Self {
        Options::parse_from(["ch03_matrix_form"])
    }
}

fn max_len(s: &str) -> Result<usize, String> {
    let n: usize = s.parse().map_err(|_| format!("`{s}` is not a whole number"))?;
    if n.is_power_of_two() && (128..=8192).contains(&n) {
        Ok(n)
    } else {
        Err("must be a power of two between 128 and 8192".into())
    }
}

/// Every demo of the chapter, in the lectures' order.
pub fn run(opts: &Options, nb: &mut Notebook) {
    matrix_form::loop_vs_matrix(opts.seed, nb);
    equivariance::jane_and_marie(opts.seed, nb);
    equivariance::random_permutation(opts.seed, nb);
    equivariance::plot_but_acting(opts.seed, nb);
    cost::table_1(nb);
    cost::multiply_adds(nb);
    speed::rnn_vs_attention(nb);
    speed::timing(opts.max_len, nb);
    cost::exercise_7(nb);
}
