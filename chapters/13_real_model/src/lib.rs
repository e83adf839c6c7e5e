//! # Chapter 13 — the book's blocks run a real pretrained Transformer
//!
//! Beyond the lectures (Lecture 17 §10's encoder-only models, and the heads
//! Clark et al. 2019 found in BERT): the pretrained sentence encoder
//! all-MiniLM-L6-v2 loaded into the forward-only `blocks` crate, matched to
//! the reference library, and looked at.

use std::path::PathBuf;

use clap::Parser;
use record::Notebook;

pub mod bert;
pub mod cost;
pub mod exercises;
pub mod heads;
pub mod loading;
pub mod matching;
pub mod meaning;
pub mod padding;
pub mod reference;
pub mod weights;
pub mod wordpiece;

/// What a reader can change without editing code.
#[derive(Parser, Debug, Clone)]
#[command(
    about = "Chapter 13: a real pretrained encoder (all-MiniLM-L6-v2) in the book's own blocks"
)]
pub struct Options {
    /// The model's directory (model.safetensors, vocab.txt), as the README's fetch command unpacks it.
    #[arg(long, value_name = "DIR", default_value_os_t = weights::default_dir(), value_parser = weights::model_dir)]
    pub model: PathBuf,

    /// A sentence of your own: its tokens, and its similarity to the chapter's sentences
    /// (cut at 256 tokens, as the library cuts it).
    #[arg(long, value_parser = not_blank)]
    pub sentence: Option<String>,

    /// Timed forward passes, after one untimed (the median is printed).
    #[arg(long, default_value_t = 21, value_parser = clap::value_parser!(u16).range(1..=1000))]
    pub repeats: u16,

    /// Also write the chapter's SVG figures into this directory.
    #[arg(long, value_name = "DIR")]
    pub figures: Option<PathBuf>,
}

/// `--sentence` must hold something to embed.
fn not_blank(s: &str) -> Result<String, String> {
    if s.trim().is_empty() {
        Err("give a sentence with some words in it".into())
    } else {
        Ok(s.to_owned())
    }
}

impl Default for Options {
    fn default() -> Self {
        Options::parse_from(["ch13_real_model"])
    }
}

pub fn run(opts: &Options, nb: &mut Notebook) {
    // the `--model` parser has checked all of this already (exit code 2)
    let files = weights::Weights::read(&opts.model.join("model.safetensors")).expect("checked");
    let vocab_text = std::fs::read_to_string(opts.model.join("vocab.txt")).expect("checked");
    let vocab = wordpiece::WordPiece::from_vocab(&vocab_text).expect("checked");
    let cfg = bert::Config::MINILM;
    let mut model = bert::Bert::load(&files, cfg).expect("checked");
    let reference = reference::Reference::load();
    loading::loading(&files, cfg, nb);
    // the numbers that enter products: every layer's weight matrices (the
    // embedding tables are looked up, the pooler is not used)
    let in_products = cfg.layers * (4 * cfg.d_model * cfg.d_model + 2 * cfg.d_model * cfg.d_ff);
    drop(files);
    matching::tokens(&vocab, &reference, nb);
    matching::forward(&model, &vocab, &reference, nb);
    meaning::similarity(&model, &vocab, &reference.sentences, nb);
    let english: Vec<String> = reference.sentences[..6].to_vec();
    heads::real_attention(&model, &vocab, &english, nb);
    padding::padding(&model, &vocab, &english, nb);
    cost::cost(&model, &vocab, &reference.sentences[0], in_products, opts.repeats as usize, nb);
    exercises::exercises(&mut model, &vocab, &reference, nb);
    if let Some(s) = &opts.sentence {
        meaning::yours(&model, &vocab, s, &reference.sentences, nb);
    }
}
