//! # twin — PyTorch's own layers as an outside reference
//!
//! The book's two implementations, `blocks` (forward only) and `autograd`
//! (forward and backward), are checked against each other in f64. Two
//! implementations by the same hands can share a wrong convention, so each
//! layer is also checked against PyTorch: `reference/pytorch/make_fixtures.py`
//! builds the layer in PyTorch (float64, every parameter drawn at random) and
//! writes its parameters — under PyTorch's names, in PyTorch's layouts —, its
//! inputs, its outputs and the gradients of a fixed scalar loss into a small
//! committed JSON file. PyTorch is never needed to build or test the book.
//!
//! [`Fixture`] reads one file; [`cases`] loads each into `blocks` and into
//! `autograd` (both kernel sets) and reports the largest differences. The
//! conversion from PyTorch's layout to the book's is written out once per
//! layer, in [`cases`]: that is where a wrong convention would show.

use std::collections::BTreeMap;

use faer::Mat;
use serde_json::Value;

pub mod cases;
pub mod steps;

pub use cases::{Gaps, Report};
pub use steps::Steps;

/// One tensor of a fixture, as PyTorch shaped it, flattened row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    pub shape: Vec<usize>,
    pub data: Vec<f64>,
}

impl Tensor {
    /// The book's matrix: every leading dimension folded into the rows, so
    /// (B, S, d) becomes (B·S, d), (B, h, S_q, S_k) becomes (B·h·S_q, S_k)
    /// and a vector of n becomes one row (1, n).
    pub fn mat(&self) -> Mat<f64> {
        let cols = self.shape.last().copied().unwrap_or(1);
        let rows = self.data.len().checked_div(cols).unwrap_or(0);
        Mat::from_fn(rows, cols, |i, j| self.data[i * cols + j])
    }

    /// A PyTorch weight stored (out, in) — it computes `x·Wᵀ` — as the
    /// book's (in, out), which computes `x·W`.
    pub fn transposed(&self) -> Mat<f64> {
        self.mat().transpose().to_owned()
    }

    /// The largest |element|.
    pub fn max_abs(&self) -> f64 {
        self.data.iter().fold(0.0, |m, v| blocks::worse(m, v.abs()))
    }
}

/// A fixture: what PyTorch was given and what it computed.
#[derive(Clone, Debug)]
pub struct Fixture {
    pub case: String,
    /// One sentence: the PyTorch call and its settings.
    pub about: String,
    /// PyTorch's version, as the script recorded it.
    pub torch: String,
    /// The layer's sizes and settings (d, heads, eps, …).
    pub config: BTreeMap<String, f64>,
    pub params: BTreeMap<String, Tensor>,
    pub inputs: BTreeMap<String, Tensor>,
    pub outputs: BTreeMap<String, Tensor>,
    pub grads: BTreeMap<String, Tensor>,
    /// Facts about PyTorch's behaviour the script checked (e.g. NaN rows).
    pub facts: BTreeMap<String, bool>,
    /// The vocabulary, by id, where the inputs are token ids of words.
    pub words: Vec<String>,
}

/// The committed fixtures, by case name; compiled in, so a chapter's
/// binary finds them wherever it runs.
pub const FIXTURES: [(&str, &str); 12] = [
    ("layer_norm", include_str!("../../../reference/pytorch/fixtures/layer_norm.json")),
    ("mha_causal", include_str!("../../../reference/pytorch/fixtures/mha_causal.json")),
    ("mha_padding", include_str!("../../../reference/pytorch/fixtures/mha_padding.json")),
    (
        "sdpa_fully_masked",
        include_str!("../../../reference/pytorch/fixtures/sdpa_fully_masked.json"),
    ),
    ("encoder_post", include_str!("../../../reference/pytorch/fixtures/encoder_post.json")),
    ("encoder_pre", include_str!("../../../reference/pytorch/fixtures/encoder_pre.json")),
    ("decoder_post", include_str!("../../../reference/pytorch/fixtures/decoder_post.json")),
    ("decoder_pre", include_str!("../../../reference/pytorch/fixtures/decoder_pre.json")),
    ("gru", include_str!("../../../reference/pytorch/fixtures/gru.json")),
    ("cross_entropy", include_str!("../../../reference/pytorch/fixtures/cross_entropy.json")),
    ("ffn_gelu", include_str!("../../../reference/pytorch/fixtures/ffn_gelu.json")),
    ("gpt_dropout", include_str!("../../../reference/pytorch/fixtures/gpt_dropout.json")),
];

/// Fixtures of whole training runs rather than one forward and backward
/// pass ([`steps`]).
pub const RUNS: [(&str, &str); 1] = [(
    "classifier_steps",
    include_str!("../../../reference/pytorch/fixtures/classifier_steps.json"),
)];

impl Fixture {
    /// The committed fixture `case`.
    #[track_caller]
    pub fn named(case: &str) -> Fixture {
        let (_, text) = FIXTURES
            .iter()
            .chain(&RUNS)
            .find(|(name, _)| *name == case)
            .unwrap_or_else(|| panic!("twin: no fixture named {case}"));
        Fixture::parse(text).unwrap_or_else(|e| panic!("twin: fixture {case}: {e}"))
    }

    /// Read a fixture from its JSON text.
    pub fn parse(text: &str) -> Result<Fixture, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let string = |key: &str| -> Result<String, String> {
            v[key].as_str().map(str::to_owned).ok_or(format!("no string \"{key}\""))
        };
        let group = |key: &str| -> Result<BTreeMap<String, Tensor>, String> {
            let Some(map) = v[key].as_object() else { return Err(format!("no object \"{key}\"")) };
            map.iter().map(|(name, t)| Ok((name.clone(), tensor(t, name)?))).collect()
        };
        let facts = match v["facts"].as_object() {
            None => BTreeMap::new(),
            Some(map) => map
                .iter()
                .map(|(k, b)| {
                    Ok((k.clone(), b.as_bool().ok_or(format!("fact {k} is not a bool"))?))
                })
                .collect::<Result<_, String>>()?,
        };
        let config = match v["config"].as_object() {
            None => return Err("no object \"config\"".into()),
            Some(map) => map
                .iter()
                .map(|(k, x)| {
                    Ok((k.clone(), x.as_f64().ok_or(format!("config {k} is not a number"))?))
                })
                .collect::<Result<_, String>>()?,
        };
        let words = match v["words"].as_array() {
            None => Vec::new(),
            Some(list) => list
                .iter()
                .map(|w| w.as_str().map(str::to_owned).ok_or("a word is not a string".to_owned()))
                .collect::<Result<_, String>>()?,
        };
        Ok(Fixture {
            case: string("case")?,
            words,
            config,
            about: string("about")?,
            torch: v["made_by"]["torch"].as_str().ok_or("no made_by.torch")?.to_owned(),
            params: group("params")?,
            inputs: group("inputs")?,
            outputs: group("outputs")?,
            grads: group("grads")?,
            facts,
        })
    }

    #[track_caller]
    fn get<'a>(map: &'a BTreeMap<String, Tensor>, what: &str, name: &str) -> &'a Tensor {
        map.get(name).unwrap_or_else(|| panic!("twin: the fixture has no {what} {name}"))
    }

    #[track_caller]
    pub fn param(&self, name: &str) -> &Tensor {
        Fixture::get(&self.params, "parameter", name)
    }

    #[track_caller]
    pub fn input(&self, name: &str) -> &Tensor {
        Fixture::get(&self.inputs, "input", name)
    }

    #[track_caller]
    pub fn output(&self, name: &str) -> &Tensor {
        Fixture::get(&self.outputs, "output", name)
    }

    #[track_caller]
    pub fn grad(&self, name: &str) -> &Tensor {
        Fixture::get(&self.grads, "gradient", name)
    }
}

fn tensor(t: &Value, name: &str) -> Result<Tensor, String> {
    let shape = t["shape"]
        .as_array()
        .ok_or(format!("{name}: no shape"))?
        .iter()
        .map(|d| d.as_u64().map(|d| d as usize).ok_or(format!("{name}: bad shape")))
        .collect::<Result<Vec<_>, _>>()?;
    let data = t["data"]
        .as_array()
        .ok_or(format!("{name}: no data"))?
        .iter()
        .map(|x| x.as_f64().ok_or(format!("{name}: not a number")))
        .collect::<Result<Vec<_>, _>>()?;
    let want: usize = shape.iter().product();
    if data.len() != want {
        return Err(format!(
            "{name}: shape {shape:?} wants {want} numbers, the file has {}",
            data.len()
        ));
    }
    Ok(Tensor { shape, data })
}

/// Print one line per case into a chapter's notebook and record its two
/// largest differences as `torch_<case>_out` and `torch_<case>_grad`, so
/// that the page quotes them. `cases` pairs a fixture with its label.
pub fn say_against_pytorch(nb: &mut record::Notebook, cases: &[(&str, &str)]) {
    use record::{say, show};
    let reports: Vec<(Report, &str)> = cases.iter().map(|(c, l)| (cases::named(c), *l)).collect();
    let torch = &reports[0].0.torch;
    say!(nb, "PyTorch {torch}, float64; largest |book − PyTorch| (plain and fused kernels):");
    for (r, label) in &reports {
        let out = [r.plain.output, r.fused.output]
            .into_iter()
            .fold(r.blocks.unwrap_or(0.0), blocks::worse);
        let grad = blocks::worse(r.plain.grads, r.fused.grads);
        let out = nb.value(&format!("torch_{}_out", r.case), show::sci(out, 1));
        let grad = nb.value(&format!("torch_{}_grad", r.case), show::sci(grad, 1));
        let who = if r.blocks.is_some() { "blocks + autograd" } else { "autograd" };
        say!(nb, "  {label:<36} outputs ({who}) {out}, gradients {grad}  [{} numbers]", r.compared);
    }
}
