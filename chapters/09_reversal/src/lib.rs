//! # Chapter 09 — the experiment: a tiny Transformer against GRUs
//!
//! Lecture 17 §9 (demos 05.1–05.4, exercise 8): three models trained the
//! same way on sequence reversal, where their errors sit, what the
//! Transformer's attention learned, and what a training step costs.

use std::path::PathBuf;
use std::time::Instant;

use clap::Parser;
use record::Notebook;

pub mod curves;
pub mod exercise;
pub mod experiment;
pub mod learned;
pub mod models;
pub mod parallel;
pub mod positions;
pub mod results;
pub mod setup;
pub mod speed;
pub mod stats;

use models::Kind;

/// One sequence length, 2..=128.
fn length(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if (2..=128).contains(&n) => Ok(n),
        _ => Err(format!("`{s}` is not a length between 2 and 128")),
    }
}

/// Sorted, without repeats: the order tables and figures use.
fn tidy<T: Ord + Clone>(xs: &[T]) -> Vec<T> {
    let mut out = xs.to_vec();
    out.sort_unstable();
    out.dedup();
    out
}

/// What a reader can change without editing code.
#[derive(Parser, Debug, Clone)]
#[command(
    about = "Chapter 09: a tiny Transformer against GRU encoder–decoders (with and without attention) on sequence reversal — accuracy, errors by position, what the attention learned, the cost of a training step"
)]
pub struct Options {
    /// Training steps of every run (Adam 1e-3, 50 warmup steps, batch 64).
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u32).range(50..=20_000))]
    pub steps: u32,

    /// Sequence lengths of the experiment (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "8,16,32", value_parser = length)]
    pub lengths: Vec<usize>,

    /// Seeds per model and length.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=32))]
    pub seeds: u16,

    /// Models to train (comma-separated: transformer, gru, gru-attention).
    #[arg(long, value_delimiter = ',', default_value = "gru,gru-attention,transformer", value_parser = clap::value_parser!(Kind))]
    pub models: Vec<Kind>,

    /// New sequences every trained model generates for its accuracy.
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u16).range(1..=10_000))]
    pub test: u16,

    /// Sequences the attention of the trained models is read on.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u16).range(1..=2_000))]
    pub probe: u16,

    /// Lengths at which one training step is timed and counted.
    #[arg(long, value_delimiter = ',', default_value = "8,16,32,64,128", value_parser = length)]
    pub speed_lengths: Vec<usize>,

    /// Training steps of exercise 8's longer runs (at a length of the
    /// experiment, its runs carry on from where the experiment stopped).
    #[arg(long, default_value_t = 1500, value_parser = clap::value_parser!(u32).range(50..=20_000))]
    pub exercise_steps: u32,

    /// Seeds of exercise 8's longer runs: the first N of the experiment's
    /// (at most --seeds).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=32))]
    pub exercise_seeds: u16,

    /// Sequence length of exercise 8's longer runs.
    #[arg(long, default_value_t = 32, value_parser = length)]
    pub exercise_length: usize,

    /// First seed; the runs use seed, seed + 1, …
    #[arg(long, default_value_t = 0, value_parser = record::cli::seed)]
    pub seed: u64,

    /// Also write the chapter's SVG figures into this directory.
    #[arg(long, value_name = "DIR")]
    pub figures: Option<PathBuf>,
}

impl Default for Options {
    /// The configuration the book shows.
    fn default() -> Self {
        Options::parse_from(["ch09_reversal"])
    }
}

/// Every demo of the chapter, in the lecture's order.
pub fn run(opts: &Options, nb: &mut Notebook) {
    let seeds: Vec<u64> = (0..u64::from(opts.seeds)).map(|k| opts.seed + k).collect();
    let setup = experiment::Setup {
        steps: opts.steps,
        lengths: tidy(&opts.lengths),
        seeds,
        models: tidy(&opts.models),
        test: opts.test as usize,
        exercise_len: opts.exercise_length,
        exercise_steps: opts.exercise_steps,
        exercise_seeds: usize::from(opts.exercise_seeds.min(opts.seeds)),
    };
    setup::setup(&setup, nb);
    models::against_pytorch(nb);
    let start = Instant::now();
    let runs = parallel::train_all(&setup, nb.is_printing());
    results::experiment(&setup, &runs, start.elapsed(), nb);
    curves::curves(&setup, &runs, nb);
    positions::by_position(&setup, &runs, nb);
    learned::what_it_learned(&setup, &runs, opts.probe as usize, nb);
    speed::speed(&tidy(&opts.speed_lengths), &setup.models, nb);
    exercise::exercise_longer(&setup, &runs, nb);
}
