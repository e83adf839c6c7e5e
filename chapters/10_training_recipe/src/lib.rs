//! # Chapter 10 — the training recipe
//!
//! Lecture 6 §5.4 (the training half) and §7 (label smoothing, vocabulary
//! and batching, Adam with warmup, checkpoint averaging), each measured on a
//! language whose true distribution is known, as cross-entropy above its
//! exact floor.

use std::path::PathBuf;

use clap::Parser;
use record::Notebook;

pub mod averaging;
pub mod batching;
pub mod floor;
pub mod language;
pub mod lm;
pub mod schedule;
pub mod smoothing;
pub mod warmup;

/// What a reader can change without editing code.
#[derive(Parser, Debug, Clone)]
#[command(about = "Chapter 10: the training recipe on the city language")]
pub struct Options {
    /// Sentences the sampled estimate of the floor draws.
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u32).range(100..=10_000_000))]
    pub samples: u32,

    /// Training steps of the warmup grid.
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub steps: u32,

    /// Sentences per training batch.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u16).range(1..=4096))]
    pub batch: u16,

    /// Warmup steps of the recipes that warm up.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub warmup: u32,

    /// Training steps of the checkpoint-averaging run (a checkpoint every 50).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(50..=100_000))]
    pub average_steps: u32,

    /// Seeds each recipe is trained with (0, 1, …).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u16).range(1..=20))]
    pub seeds: u16,

    /// Test sentences per seed.
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub test: u32,

    /// Seed of every random draw in the chapter.
    #[arg(long, default_value_t = 0, value_parser = record::cli::seed)]
    pub seed: u64,

    /// Also write the chapter's SVG figures into this directory.
    #[arg(long, value_name = "DIR")]
    pub figures: Option<PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Options::parse_from(["ch10_training_recipe"])
    }
}

pub fn run(opts: &Options, nb: &mut Notebook) {
    floor::floor(opts.samples as usize, opts.seed, nb);
    smoothing::label_smoothing(opts.seed, 2000, nb);
    schedule::schedule(nb);
    schedule::adam_first_step(opts.seed, nb);
    let seeds: Vec<u64> = (0..u64::from(opts.seeds)).map(|s| opts.seed + s).collect();
    let (recipes, grid) = warmup::warmup_grid(
        opts.steps,
        opts.warmup,
        opts.batch as usize,
        &seeds,
        opts.test as usize,
        nb,
    );
    // smoothing, trained: one of the two Pre-LN recipes at the large rate, the one without warmup
    let best = recipes
        .iter()
        .position(|r| r.norm == autograd::nn::Norm::Pre && r.lr > 5e-3 && r.warmup == 0)
        .expect("the grid has it");
    let plain: Vec<&warmup::Outcome> =
        (0..seeds.len()).map(|s| &grid[best * seeds.len() + s]).collect();
    let exact = nb.number("cost_all");
    smoothing::trained(recipes[best], &plain, &seeds, opts.test as usize, exact, nb);
    averaging::checkpoint_averaging(
        opts.average_steps,
        opts.batch as usize,
        &seeds,
        opts.test as usize,
        nb,
    );
    batching::batching(opts.seed, nb);
}
