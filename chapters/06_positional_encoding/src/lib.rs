//! # Chapter 06 — positional encoding
//!
//! Lecture 17 §6 (demos 03.1–03.5, exercise 6) and Lecture 6 §4.2–4.4
//! (scripts 02.1–02.4). `run` calls the demos in the lectures' order.

use std::path::PathBuf;

use clap::Parser;
use record::Notebook;

pub mod exercises;
pub mod previous_token;
pub mod relative;
pub mod runs;
pub mod sinusoids;
pub mod training;

/// What a reader can change without editing code.
#[derive(Parser, Debug, Clone)]
#[command(
    about = "Chapter 06: positional encoding — sinusoids, rotations, a previous-token head, and reversal with and without positions"
)]
pub struct Options {
    /// Width of the encodings in the §6 demos (even, 4 to 1024).
    #[arg(long, default_value_t = 64, value_parser = even_width)]
    pub d_model: usize,

    /// The sharpness β of the previous-token head, comma-separated (each 0 to 1000).
    #[arg(long, value_delimiter = ',', default_value = "1,2,4,8,16", value_parser = record::cli::float_in(0.0, 1000.0))]
    pub beta: Vec<f64>,

    /// How many positions Lecture 6's d = 512 check compares pairwise (2 to 10,000).
    #[arg(long, default_value_t = 2048, value_parser = clap::value_parser!(u16).range(2..=10_000))]
    pub l6_positions: u16,

    /// Training steps of each reversal run.
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u32).range(1..=5_000))]
    pub steps: u32,

    /// Training steps of exercise 4's longer runs (no positions, × √d).
    #[arg(long, default_value_t = 1500, value_parser = clap::value_parser!(u32).range(1..=5_000))]
    pub long_steps: u32,

    /// Length of the sequences to reverse (2 to 64).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u16).range(2..=64))]
    pub len: u16,

    /// Training seeds per configuration (seeds 0, 1, … plus --seed).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=8))]
    pub seeds: u16,

    /// Added to every seed of the chapter.
    #[arg(long, default_value_t = 0, value_parser = record::cli::seed)]
    pub seed: u64,

    /// Also write the chapter's SVG figures into this directory.
    #[arg(long, value_name = "DIR")]
    pub figures: Option<PathBuf>,
}

fn even_width(s: &str) -> Result<usize, String> {
    let d: usize = s.trim().parse().map_err(|_| format!("`{s}` is not a whole number"))?;
    if (4..=1024).contains(&d) && d.is_multiple_of(2) {
        Ok(d)
    } else {
        Err("must be even and between 4 and 1024 (sines and cosines come in pairs)".into())
    }
}

impl Default for Options {
    /// The configuration the book shows.
    fn default() -> Self {
        Options::parse_from(["ch06_positional_encoding"])
    }
}

/// Every demo of the chapter, in the lectures' order.
pub fn run(opts: &Options, nb: &mut Notebook) {
    let d = opts.d_model;
    sinusoids::sinusoids(d, nb);
    sinusoids::d512_facts(opts.l6_positions as usize, nb);
    relative::rotation(d, nb);
    relative::distance_only(d, nb);
    previous_token::previous_token(d, &opts.beta, opts.seed, nb);
    training::learned_limit(opts.seed, nb);
    let seeds: Vec<u64> = (0..u64::from(opts.seeds)).map(|s| opts.seed + s).collect();
    training::reversal(opts.len as usize, opts.steps, &seeds, nb);
    training::scale_of_signals(opts.seed, nb);
    exercises::exercise_6(d, nb);
    exercises::narrower(d, nb);
    exercises::reversal_longer(opts.len as usize, opts.long_steps, &seeds, nb);
}
