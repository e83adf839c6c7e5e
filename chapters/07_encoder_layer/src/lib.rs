//! # Chapter 07 — the encoder layer: residuals, LayerNorm, feed-forward
//!
//! Lecture 17 §7 (demos 04.1–04.3, exercise 3) and Lecture 6 §5–§6.1
//! (scripts 04.1–04.3, exercises 5 and 9). `run` calls the demos in the
//! lectures' order.

use std::path::PathBuf;

use clap::Parser;
use record::Notebook;

pub mod depth;
pub mod exercises;
pub mod layer;
pub mod model;
pub mod norms;
pub mod training;
pub mod warmup;

/// What a reader can change without editing code.
#[derive(Parser, Debug, Clone)]
#[command(
    about = "Chapter 07: the encoder layer — blocks against autograd, the parameter count, LayerNorm vs BatchNorm, deep stacks with and without residuals and LayerNorm, Post-LN vs Pre-LN"
)]
pub struct Options {
    /// Deepest plain / residual / residual + LN stack of Linear + ReLU (a power of 2).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u16).range(2..=256))]
    pub max_depth: u16,

    /// Batch of the gradient-at-initialisation measurement (sequences of 16).
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub grad_batch: u16,

    /// Encoder layers of the reversal model.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u16).range(1..=24))]
    pub layers: u16,

    /// Training steps of every reversal run (accuracy is read every 100).
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u32).range(100..=5_000))]
    pub steps: u32,

    /// Sequences per training step.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub batch: u16,

    /// Held-out sequences for the accuracy.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u16).range(1..=4096))]
    pub eval: u16,

    /// Seeds of every reversal configuration (the lecture ran 1; the rest check robustness).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u16).range(1..=10))]
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
        Options::parse_from(["ch07_encoder_layer"])
    }
}

/// Every demo of the chapter, in the lectures' order.
pub fn run(opts: &Options, nb: &mut Notebook) {
    layer::agreement(opts.seed, nb);
    layer::against_pytorch(nb);
    layer::parameters(nb);
    norms::layer_vs_batch_norm(opts.seed, nb);
    let depths = depth::depths(opts.max_depth as usize);
    let stack = depth::deep_stack(&depths, opts.seed, nb);
    depth::grad_by_depth(opts.grad_batch as usize, opts.seed, nb);
    let setup = training::Setup {
        layers: opts.layers as usize,
        batch: opts.batch as usize,
        steps: opts.steps,
        eval: opts.eval as usize,
    };
    let seeds: Vec<u64> = (0..u64::from(opts.seeds)).map(|k| opts.seed + k).collect();
    training::post_vs_pre(setup, &seeds, nb);
    warmup::warmup_measured(setup, opts.seed, nb);
    exercises::exercise_padding(opts.seed, nb);
    exercises::exercise_depth(&stack, nb);
    exercises::exercise_big_model(nb);
    exercises::exercise_adam_first_step(opts.seed, nb);
}
