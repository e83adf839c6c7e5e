//! Lecture 6 §9.1 — the book's autograd crate seen as a framework: which
//! primitive ops each module records on the tape (plain ops, then the fused
//! kernels), and the life of a tape through one training step.

use std::collections::BTreeMap;

use autograd::flops::{Observer, observe};
use autograd::nn::{
    Classifier, EncoderLayer, FeedForward, LayerNorm, Linear, MultiHeadAttention, Norm,
};
use autograd::optim::{Adam, Optimizer};
use autograd::{Kernels, Params, Smoothing, Tape};
use faer::Mat;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

use crate::classify::config;
use crate::primitives::layer_norm_from_primitives;
use crate::reviews::{Training, padded};

// ANCHOR: count_ops
/// Every op a computation records on a tape, in order (the tape tells an
/// attached observer each op's name).
#[derive(Default)]
pub struct Ops(pub Vec<String>);

impl Observer for Ops {
    fn op(&mut self, name: &str, _seconds: f64) {
        // a generic op's name carries its number type: concat_cols<f64>
        self.0.push(name.split('<').next().unwrap_or(name).to_string());
    }
}

/// The ops `forward` records on a tape of `params` with `kernels`.
pub fn ops_of(
    params: &Params<f64>,
    kernels: Kernels,
    forward: impl for<'t> FnOnce(&'t Tape<f64>),
) -> Vec<String> {
    let tape = Tape::with_kernels(params, kernels);
    observe(Ops::default(), || forward(&tape)).1.0
}
// ANCHOR_END: count_ops

/// The modules counted, at the review classifier's sizes: B sequences of S
/// positions, d = 32, 4 heads, d_ff = 64.
const B: usize = 2;
const S: usize = 9;

/// One module to count: its name and what it records for an input (B·S, d).
struct Counted {
    name: &'static str,
    plain: Vec<String>,
    fused: Vec<String>,
}

fn counted(name: &'static str, params: &Params<f64>, f: impl for<'t> Fn(&'t Tape<f64>)) -> Counted {
    Counted {
        name,
        plain: ops_of(params, Kernels::Plain, &f),
        fused: ops_of(params, Kernels::Fused, &f),
    }
}

/// "linear ×3 · bmm · …": runs of one op folded.
fn folded(ops: &[String]) -> String {
    let mut parts: Vec<(String, usize)> = Vec::new();
    for op in ops {
        match parts.last_mut() {
            Some((last, n)) if last == op => *n += 1,
            _ => parts.push((op.clone(), 1)),
        }
    }
    let shown: Vec<String> = parts
        .iter()
        .map(|(op, n)| if *n > 1 { format!("{op} ×{n}") } else { op.clone() })
        .collect();
    shown.join(" · ")
}

pub fn framework(seed: u64, nb: &mut Notebook) {
    nb.demo("framework", "L6 §9.1 · The framework on one page: the ops each module records");
    let cfg = config(true);
    let (d, h, f) = (cfg.d_model, cfg.heads, cfg.d_ff);
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut params = Params::<f64>::new();
    let linear = Linear::new(&mut params, "linear", d, d, true, &mut rng);
    let ln = LayerNorm::new(&mut params, "ln", d);
    let attn = MultiHeadAttention::new(&mut params, "attn", d, h, &mut rng);
    let ff = FeedForward::new(&mut params, "ff", d, f, &mut rng);
    let mlp = autograd::nn::Mlp::new(&mut params, "mlp", d, f, &mut rng);
    let post = EncoderLayer::new(&mut params, "post", d, h, f, Norm::Post, &mut rng);
    let pre = EncoderLayer::new(&mut params, "pre", d, h, f, Norm::Pre, &mut rng);
    let x = Mat::from_fn(B * S, d, |_, _| rng.random_range(-1.0..1.0));
    let ids: Vec<usize> = (0..B * S).map(|i| 1 + i % (cfg.vocab - 1)).collect();
    let model = Classifier::new(&mut params, cfg, &mut rng);
    fn input<'t>(tape: &'t Tape<f64>, x: &Mat<f64>) -> autograd::Var<'t, f64> {
        tape.input(x.clone())
    }
    let keep = autograd::nn::padding_mask::<f64>(&ids, B, S, cfg.pad);
    let modules = [
        counted("Linear", &params, |t| {
            let _ = linear.forward(input(t, &x));
        }),
        counted("LayerNorm", &params, |t| {
            let _ = ln.forward(input(t, &x));
        }),
        counted("LayerNorm from primitives", &params, |t| {
            let (g, b) = (t.param(ln.gamma), t.param(ln.beta));
            {
                let _ = layer_norm_from_primitives(input(t, &x), g, b, 1e-5);
            };
        }),
        counted("MultiHeadAttention", &params, |t| {
            let x = input(t, &x);
            {
                let _ = attn.forward(x, x, B, Some(&keep));
            };
        }),
        counted("FeedForward (ReLU)", &params, |t| {
            let _ = ff.forward(input(t, &x));
        }),
        counted("GPT-2 network (GELU)", &params, |t| {
            let _ = mlp.forward(input(t, &x));
        }),
        counted("EncoderLayer, Post-LN", &params, |t| {
            let _ = post.forward(input(t, &x), B, Some(&keep));
        }),
        counted("EncoderLayer, Pre-LN", &params, |t| {
            let _ = pre.forward(input(t, &x), B, Some(&keep));
        }),
        counted("the review classifier + loss", &params, |t| {
            let out = model.forward(t, &ids, B).expect("short enough");
            {
                let _ = out.logits.cross_entropy(&[0, 1], None, Smoothing::None);
            };
        }),
    ];
    say!(
        nb,
        "inputs: {B} sequences of {S} positions, d = {d}, {h} heads, d_ff = {f}; ops in recording order"
    );
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    for m in &modules {
        for op in &m.plain {
            *kinds.entry(op.clone()).or_default() += 1;
        }
        say!(nb, "{}", m.name);
        say!(nb, "  plain {:>2}: {}", m.plain.len(), folded(&m.plain));
        if m.fused != m.plain {
            say!(nb, "  fused {:>2}: {}", m.fused.len(), folded(&m.fused));
        }
    }
    let tag = |name: &str| name.to_lowercase().replace([' ', ',', '(', ')', '-', '+'], "_");
    for m in &modules {
        let t = tag(m.name);
        let t = t.split('_').filter(|p| !p.is_empty()).collect::<Vec<_>>().join("_");
        nb.value(&format!("ops_plain_{t}"), m.plain.len().to_string());
        nb.value(&format!("ops_fused_{t}"), m.fused.len().to_string());
    }
    let distinct = nb.value("distinct_plain_ops", kinds.len().to_string());
    say!(nb, "the modules above use {distinct} different plain ops:");
    let names: Vec<&str> = kinds.keys().map(String::as_str).collect();
    say!(nb, "  {}", names.join(", "));
}

// ANCHOR: training_step
/// One training step, as every training loop of the book takes it; returns
/// the loss before the update.
pub fn training_step(
    model: &Classifier,
    params: &mut Params<f32>,
    adam: &mut Adam<f32>,
    ids: &[usize],
    labels: &[usize],
) -> f32 {
    let (loss, grads) = {
        let tape = Tape::new(params); // nodes 0..P: a copy of every parameter
        let logits = model.forward(&tape, ids, labels.len()).expect("short enough").logits;
        let loss = logits.cross_entropy(labels, None, Smoothing::None); // a 1×1 node
        (loss.scalar(), tape.backward(loss)) // every closure, last node first
    }; // the tape is dropped here: its matrices go back to the pool
    adam.step(params, &grads); // one gradient per parameter, by the same ids
    loss
}
// ANCHOR_END: training_step

/// What one step's tape held and did, as an observer hears it.
#[derive(Default)]
pub struct Life {
    pub ops: usize,
    pub backward: usize,
    pub saved: usize,
    /// activation node → numbers backward read of it
    pub read: BTreeMap<usize, usize>,
}

impl Observer for Life {
    fn op(&mut self, _: &str, _: f64) {
        self.ops += 1;
    }
    fn op_backward(&mut self, _: &str, _: f64) {
        self.backward += 1;
    }
    fn saved(&mut self, numbers: usize) {
        self.saved += numbers;
    }
    fn read(&mut self, node: usize, rows: usize, cols: usize) {
        self.read.insert(node, rows * cols);
    }
}

pub fn tape_life(batch: usize, seed: u64, nb: &mut Notebook) {
    nb.demo("tape_life", "L6 §9.1 · The life of a tape in one training step");
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut params = Params::<f32>::new();
    let model = Classifier::new(&mut params, config(true), &mut rng);
    let mut adam = Adam::new(&params, 3e-3, 0.9, 0.999, 1e-8);
    let (ids, len, labels) = padded(&Training::new().batch(batch, &mut rng));
    let (tensors, numbers) = (params.len(), params.count());
    let before = params.clone();
    let (loss, life) =
        observe(Life::default(), || training_step(&model, &mut params, &mut adam, &ids, &labels));
    let moved = params.iter().filter(|(id, p)| p.value != before.get(*id).value).count();
    let read: usize = life.read.values().sum();
    say!(
        nb,
        "one batch: {} reviews padded to {len} tokens; the classifier with learned positions",
        labels.len()
    );
    say!(
        nb,
        "1. Tape::new copies the {tensors} parameter matrices ({} numbers): nodes 0–{}",
        show::grouped(numbers),
        tensors - 1
    );
    say!(
        nb,
        "2. the forward pass records {} ops, one node each; the last is the loss, {loss:.4}",
        life.ops
    );
    say!(
        nb,
        "   besides their outputs, the ops keep {} numbers for backward",
        show::grouped(life.saved)
    );
    say!(
        nb,
        "3. backward runs {} closures, last node first; it reads {} activation values of {} nodes",
        life.backward,
        show::grouped(read),
        life.read.len()
    );
    say!(
        nb,
        "4. the gradients come back by parameter id; Adam changes {moved} of the {tensors} matrices"
    );
    say!(
        nb,
        "5. the tape is dropped: its values and gradients go back to the pool for the next step"
    );
    nb.value("life_tensors", tensors.to_string());
    nb.value("life_numbers", show::grouped(numbers));
    nb.value("life_ops", life.ops.to_string());
    nb.value("life_backward", life.backward.to_string());
    nb.value("life_moved", moved.to_string());
}
