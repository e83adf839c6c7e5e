//! # Chapter 05 — multi-head attention
//!
//! Lecture 17 §5 (demos 02.5, 02.4; the page's exercise 1 is its exercise
//! 3) and Lecture 6 §3 (demo 03.3; the page's exercise 3 is its exercise
//! 3). `run` calls the demos in the lectures' order, the exercises last.

use std::path::PathBuf;

use clap::Parser;
use record::Notebook;

pub mod heads;
pub mod implementations;
pub mod shapes;

/// What a reader can change without editing code.
#[derive(Parser, Debug, Clone)]
#[command(
    about = "Chapter 05: multi-head attention — one head vs three, parameters, three implementations, shapes"
)]
pub struct Options {
    /// How strongly visite's queries ask (the lecture's figures need 6).
    #[arg(long, default_value_t = 6.0, value_parser = record::cli::float_in(0.0, 100.0))]
    pub strength: f64,

    /// Seed of the random weights in the comparison of implementations.
    #[arg(long, default_value_t = 0, value_parser = record::cli::seed)]
    pub seed: u64,

    /// Also write the chapter's SVG figures into this directory.
    #[arg(long, value_name = "DIR")]
    pub figures: Option<PathBuf>,
}

impl Default for Options {
    /// The configuration the book shows.
    fn default() -> Self {
        Options::parse_from(["ch05_multi_head"])
    }
}

/// Every demo of the chapter, in the lectures' order.
pub fn run(opts: &Options, nb: &mut Notebook) {
    heads::one_vs_three(opts.strength, nb);
    implementations::parameter_count(nb);
    implementations::three_implementations(opts.seed, nb);
    implementations::reversed_mask(opts.seed, nb);
    shapes::shape_walk(nb);
    implementations::exercise_1(nb);
    heads::exercise_2(nb);
    shapes::exercise_3(nb);
}
