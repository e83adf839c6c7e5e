//! # Chapter 11 — what a Transformer costs
//!
//! Lecture 6 §8 (and §4.1's shared embeddings): parameters, FLOPs per
//! token, activation memory and time, each formula set against what the
//! book's code really does — the modules' own parameters, the products the
//! autograd tape runs, the values its backward reads, the time its ops take.

use std::path::PathBuf;

use clap::Parser;
use record::Notebook;

pub mod compute;
pub mod exercises;
pub mod memory;
pub mod params;
pub mod small_ops;
pub mod time;
pub mod trace;

/// What a reader can change without editing code.
#[derive(Parser, Debug, Clone)]
#[command(about = "Chapter 11: what a Transformer costs, counted on the book's own code")]
pub struct Options {
    /// Build GPT-2 small at full size (124M parameters, 0.5 GB in f32) and
    /// count it; `--gpt2 false` counts a model of the same width with 2
    /// layers and a 1000-token vocabulary.
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    pub gpt2: bool,

    /// Tokens of the forward pass whose products are counted on GPT-2 small.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub gpt2_tokens: u16,

    /// The longest sequence of the activation-memory measurement (32, 64, … up to it).
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u16).range(32..=4096))]
    pub memory_max: u16,

    /// The longest sequence of the time measurement (128, 512, 2048, 8192: each 4× the last, up to it).
    #[arg(long, default_value_t = 2048, value_parser = clap::value_parser!(u16).range(128..=8192))]
    pub time_max: u16,

    /// Timed runs per measurement, after one run not timed (the median is printed).
    #[arg(long, default_value_t = 21, value_parser = clap::value_parser!(u16).range(1..=100))]
    pub repeats: u16,

    /// Seed of every random draw in the chapter.
    #[arg(long, default_value_t = 0, value_parser = record::cli::seed)]
    pub seed: u64,

    /// Also write the chapter's SVG figures into this directory.
    #[arg(long, value_name = "DIR")]
    pub figures: Option<PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Options::parse_from(["ch11_costs"])
    }
}

pub fn run(opts: &Options, nb: &mut Notebook) {
    let shape = params::gpt2_shape(opts.gpt2);
    let (gpt_params, gpt, took) = params::build(shape, opts.seed);
    params::gpt2_parameters(&gpt_params, shape, took, nb);
    params::shared_embeddings(nb);
    compute::flops_counted(opts.seed, nb);
    compute::gpt2_flops(&gpt_params, &gpt, shape, opts.gpt2_tokens as usize, opts.seed + 1, nb);
    drop((gpt_params, gpt));
    compute::crossover(nb);
    memory::activation_memory(opts.memory_max as usize, opts.seed, nb);
    time::time_against_flops(opts.time_max as usize, opts.repeats as usize, opts.seed, nb);
    small_ops::small_ops(opts.repeats as usize, opts.seed, nb);
    exercises::exercises(opts.seed, nb);
}
