//! # Chapter 12 — a framework of our own
//!
//! Lecture 6 §9: the book's autograd crate presented as a framework — its
//! primitive ops, its tape, how modules are composed of ops and checked —
//! then set against PyTorch (one pass, then twenty training steps) and
//! used for real, on reviews whose meaning depends on word order.

use std::path::PathBuf;

use clap::Parser;
use record::Notebook;

pub mod against_pytorch;
pub mod classify;
pub mod exercises;
pub mod framework;
pub mod logsumexp;
pub mod primitives;
pub mod review_demo;
pub mod reviews;
pub mod steps;

/// What a reader can change without editing code.
#[derive(Parser, Debug, Clone)]
#[command(
    about = "Chapter 12: a framework of our own — its ops and tape, checked against PyTorch, and a review classifier trained with it"
)]
pub struct Options {
    /// Training steps of each review classifier.
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub steps: u32,

    /// Reviews per training batch.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u16).range(1..=4096))]
    pub batch: u16,

    /// Adam's learning rate for the classifiers.
    #[arg(long, default_value_t = 3e-3, value_parser = record::cli::float_in(1e-6, 1.0))]
    pub lr: f64,

    /// Seeds each classifier is trained with (seed, seed + 1, …).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u16).range(1..=50))]
    pub seeds: u16,

    /// Check every Nth parameter entry of the GPT-2-style model against
    /// finite differences (1: all of them).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=10_000))]
    pub fd_stride: u16,

    /// Seed of every random draw in the chapter.
    #[arg(long, default_value_t = 0, value_parser = record::cli::seed)]
    pub seed: u64,

    /// Also write the chapter's SVG figures into this directory.
    #[arg(long, value_name = "DIR")]
    pub figures: Option<PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Options::parse_from(["ch12_own_framework"])
    }
}

pub fn run(opts: &Options, nb: &mut Notebook) {
    framework::framework(opts.seed, nb);
    framework::tape_life(opts.batch as usize, opts.seed, nb);
    primitives::identities(opts.seed, nb);
    primitives::layer_norm_built(nb);
    logsumexp::logsumexp(nb);
    against_pytorch::against_pytorch(opts.fd_stride as usize, nb);
    steps::twinned_steps(nb);
    review_demo::review_set(nb);
    let setup = classify::Setup { steps: opts.steps, batch: opts.batch as usize, lr: opts.lr };
    let seeds: Vec<u64> = (0..u64::from(opts.seeds)).map(|s| opts.seed + s).collect();
    let runs = review_demo::train_all(setup, &seeds, &reviews::Training::new());
    review_demo::review_classifier(&runs, setup, &seeds, nb);
    review_demo::review_attention(&runs, &seeds, nb);
    exercises::heads_view(opts.seed, nb);
    exercises::exercises(&runs, setup, &seeds, nb);
}
