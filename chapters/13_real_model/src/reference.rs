//! What the reference library (sentence-transformers, on PyTorch) computed
//! for the chapter's sentences: `reference/minilm.json`, written by
//! `reference/make_fixture.py` and committed, so that no test needs Python.

use serde_json::Value;

/// The committed fixture.
pub const FIXTURE: &str = include_str!("../reference/minilm.json");

pub struct Reference {
    pub sentences: Vec<String>,
    /// The library tokenizer's ids, `[CLS] … [SEP]`.
    pub tokens: Vec<Vec<usize>>,
    /// Strings only the tokenizer sees, with the library's ids.
    pub tokenizer_checks: Vec<(String, Vec<usize>)>,
    /// Sentence embeddings: the library as users run it (f32), and with the
    /// model cast to f64.
    pub embeddings_f32: Vec<Vec<f64>>,
    pub embeddings_f64: Vec<Vec<f64>>,
    /// The first sentence, in f64: the last layer's output (S rows of d) and
    /// the attention weights, `[layer][head][query][key]`.
    pub last_hidden: Vec<Vec<f64>>,
    pub attentions: Vec<Vec<Vec<Vec<f64>>>>,
    /// Versions and the command that wrote it.
    pub made_by: String,
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array().expect("an array").iter().map(|x| x.as_f64().expect("a number")).collect()
}

fn rows(v: &Value) -> Vec<Vec<f64>> {
    v.as_array().expect("an array").iter().map(numbers).collect()
}

impl Reference {
    pub fn load() -> Reference {
        let v: Value = serde_json::from_str(FIXTURE).expect("the committed fixture is JSON");
        let made_by = &v["made_by"];
        let field = |k: &str| made_by[k].as_str().unwrap_or("?").to_owned();
        Reference {
            sentences: v["sentences"]
                .as_array()
                .expect("sentences")
                .iter()
                .map(|s| s.as_str().expect("text").to_owned())
                .collect(),
            tokens: v["tokens"]
                .as_array()
                .expect("tokens")
                .iter()
                .map(|t| numbers(t).iter().map(|&x| x as usize).collect())
                .collect(),
            tokenizer_checks: v["tokenizer_checks"]
                .as_array()
                .expect("tokenizer checks")
                .iter()
                .map(|pair| {
                    let text = pair[0].as_str().expect("a string").to_owned();
                    (text, numbers(&pair[1]).iter().map(|&x| x as usize).collect())
                })
                .collect(),
            embeddings_f32: rows(&v["embeddings_f32"]),
            embeddings_f64: rows(&v["embeddings_f64"]),
            last_hidden: rows(&v["first"]["last_hidden_f64"]),
            attentions: v["first"]["attentions_f64"]
                .as_array()
                .expect("layers")
                .iter()
                .map(|layer| layer.as_array().expect("heads").iter().map(rows).collect())
                .collect(),
            made_by: format!(
                "sentence-transformers {}, transformers {}, torch {}",
                field("sentence_transformers"),
                field("transformers"),
                field("torch")
            ),
        }
    }
}
