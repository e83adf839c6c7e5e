//! # Chapter 04 — why attention divides by √d_k
//!
//! Lecture 17 §4 (demos 02.1–02.3, exercises 2 and 9) and Lecture 6 §2.2
//! (the 32-key version of the saturation measurement, exercise 1), with the
//! gradient at step 0 of the sweep and the sweep's readings judged over more
//! seeds. `run` calls the demos in the lectures' order.

use std::path::PathBuf;

use clap::Parser;
use record::Notebook;

pub mod exercises;
pub mod gradient;
pub mod lookup;
pub mod readings;
pub mod saturation;
pub mod seeds;
pub mod sweep_table;
pub mod variance;

/// The key widths d_k the first two demos measure.
pub const DIMS: [usize; 5] = [4, 16, 64, 256, 1024];

/// What a reader can change without editing code.
#[derive(Parser, Debug, Clone)]
#[command(
    about = "Chapter 04: why attention divides by √d_k — the variance of q·k, softmax saturation, and a training sweep with and without the scale"
)]
pub struct Options {
    /// Random (q, k) pairs per d_k in the variance measurement.
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(100..=1_000_000))]
    pub pairs: u64,

    /// Random queries (each against its own keys) per d_k in the saturation measurement.
    #[arg(long, default_value_t = 2_000, value_parser = clap::value_parser!(u64).range(10..=100_000))]
    pub draws: u64,

    /// Training steps of every run of the key–value lookup sweep.
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u32).range(25..=5_000))]
    pub steps: u32,

    /// The d_k of the lookup sweep, comma-separated (each 1 to 1024).
    #[arg(long, value_delimiter = ',', default_value = "16,64,256", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub dk: Vec<u16>,

    /// Lookup sweep: feed each pair as one vector (key + label)/√2 to both W^K
    /// and W^V, instead of the keys to W^K and the labels to W^V.
    #[arg(long)]
    pub mixed: bool,

    /// Exercise 9: the per-head width d_k of the small Transformer (d_model = d_k × heads).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub ex9_dk: u16,

    /// Exercise 9: the number of heads of the small Transformer.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=16))]
    pub ex9_heads: u16,

    /// Exercise 9: training steps of each run.
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u32).range(1..=5_000))]
    pub ex9_steps: u32,

    /// Exercise 4: how many seeds (from --seed on) the table of verdicts covers.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u16).range(2..=20))]
    pub seeds: u16,

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
        Options::parse_from(["ch04_sqrt_dk"])
    }
}

/// Every demo of the chapter, in the lectures' order.
pub fn run(opts: &Options, nb: &mut Notebook) {
    variance::variance(&DIMS, opts.pairs as usize, opts.seed, nb);
    saturation::saturation(&DIMS, opts.draws as usize, opts.seed, nb);
    let dks: Vec<usize> = opts.dk.iter().map(|&d| d as usize).collect();
    let first = lookup::lookup_sweep(&dks, opts.steps, opts.mixed, opts.seed, nb);
    gradient::gradient_at_start(&dks, opts.seed, nb);
    exercises::l6_exercise_1(opts.pairs as usize, opts.seed, nb);
    exercises::exercise_2(opts.pairs as usize, opts.seed, nb);
    let ex9 = exercises::Ex9 {
        d_k: opts.ex9_dk as usize,
        heads: opts.ex9_heads as usize,
        steps: opts.ex9_steps,
    };
    exercises::exercise_9(&ex9, opts.seed, nb);
    let next = exercises::exercise_seed(&dks, opts.steps, opts.mixed, opts.seed, &first, nb);
    let seeds = (opts.seed, u64::from(opts.seeds));
    seeds::exercise_seeds(&dks, opts.steps, opts.mixed, seeds, &[first, next], nb);
}
