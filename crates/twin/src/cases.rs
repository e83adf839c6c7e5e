//! Each fixture loaded into the book's layers and compared with PyTorch.
//!
//! For every case the same steps: build the book's module, copy PyTorch's
//! parameters into it through an explicit [`Layout`] (that table is the
//! convention under test), run `blocks` forward and `autograd` forward and
//! backward with both kernel sets, and take the largest |difference| of
//! every output and every gradient — parameters and inputs alike. A case
//! fails to load if the fixture holds a gradient that no link compares.

use autograd::nn::gru::{batch_major, time_major};
use autograd::nn::{
    DecoderLayer, EncoderLayer, GivenMasks, Gpt, GptConfig, Gru, LayerNorm, Mlp,
    MultiHeadAttention, Norm, ToBlocks,
};
use autograd::tape::Kernels;
use autograd::{Heads, ParamId, Params, Smoothing, Tape, Var, attention, fused_attention};
use blocks::{max_diff, worse};
use faer::Mat;
use rand::SeedableRng;

use crate::{Fixture, Tensor};

// ANCHOR: layout
/// How a PyTorch tensor maps onto a parameter of the book.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// The same numbers ([`Tensor::mat`]): biases, LayerNorm's γ and β, inputs.
    Same,
    /// `nn.Linear`'s (out, in) weight, transposed to the book's (in, out).
    Transposed,
    /// Block `k` of `nn.MultiheadAttention`'s `in_proj_weight`, which stacks
    /// W^Q, W^K, W^V as (3d, d) rows: rows `k·d..(k+1)·d`, transposed.
    StackedWeight(usize),
    /// Block `k` of the stacked `in_proj_bias` (3d).
    StackedBias(usize),
}

/// PyTorch's tensor in the book's layout.
pub fn convert(t: &Tensor, layout: Layout) -> Mat<f64> {
    match layout {
        Layout::Same => t.mat(),
        Layout::Transposed => t.transposed(),
        Layout::StackedWeight(k) => {
            let m = t.mat();
            let d = m.ncols();
            m.as_ref().submatrix(k * d, 0, d, d).transpose().to_owned()
        }
        Layout::StackedBias(k) => {
            let m = t.mat();
            let d = m.ncols() / 3;
            m.as_ref().submatrix(0, k * d, 1, d).to_owned()
        }
    }
}

// ANCHOR_END: layout

/// The largest differences of one kernel set against PyTorch.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Gaps {
    /// Over every output the fixture holds (values, attention weights, loss).
    pub output: f64,
    /// Over every gradient the fixture holds (parameters and inputs).
    pub grads: f64,
}

/// One case against PyTorch.
#[derive(Clone, Debug)]
pub struct Report {
    pub case: String,
    pub about: String,
    pub torch: String,
    /// The forward-only `blocks` layer's output (`None`: no such layer there).
    pub blocks: Option<f64>,
    /// autograd with the plain ops.
    pub plain: Gaps,
    /// autograd with its fused kernels.
    pub fused: Gaps,
    /// How many numbers were compared (outputs and gradients, each implementation).
    pub compared: usize,
}

impl Report {
    /// The largest difference anywhere in the case.
    pub fn worst(&self) -> f64 {
        [self.plain.output, self.plain.grads, self.fused.output, self.fused.grads]
            .into_iter()
            .fold(self.blocks.unwrap_or(0.0), worse)
    }
}

/// The book's parameters for a case, each linked to the PyTorch tensor it
/// came from (and whose gradient it is compared with).
pub(crate) struct Linked {
    pub(crate) params: Params<f64>,
    pub(crate) links: Vec<(String, ParamId, Layout)>,
}

impl Linked {
    pub(crate) fn new(params: Params<f64>) -> Self {
        Linked { params, links: Vec::new() }
    }

    /// Copy PyTorch's parameter `torch` into the book's parameter `ours`.
    #[track_caller]
    pub(crate) fn param(&mut self, fix: &Fixture, torch: &str, ours: &str, layout: Layout) {
        let id = self.params.find(ours).unwrap_or_else(|| panic!("twin: no parameter {ours}"));
        let value = convert(fix.param(torch), layout);
        let old = &self.params.get(id).value;
        assert_eq!(
            (old.nrows(), old.ncols()),
            (value.nrows(), value.ncols()),
            "twin: {torch} does not fit {ours}"
        );
        self.params.get_mut(id).value = value;
        self.links.push((torch.to_owned(), id, layout));
    }

    /// An input PyTorch differentiated, held as a parameter so that its
    /// gradient is compared too.
    fn input(&mut self, fix: &Fixture, name: &str) -> ParamId {
        let id = self.params.add(format!("input.{name}"), fix.input(name).mat());
        self.links.push((name.to_owned(), id, Layout::Same));
        id
    }

    /// The largest gradient difference over every link; panics if the
    /// fixture holds a gradient that no link compares.
    #[track_caller]
    fn grads_gap(&self, fix: &Fixture, grads: &autograd::tape::Grads<f64>) -> (f64, usize) {
        for name in fix.grads.keys() {
            assert!(
                self.links.iter().any(|(t, _, _)| t == name),
                "twin: {}: the gradient of {name} is never compared",
                fix.case
            );
        }
        let mut count = 0;
        let gap = self.links.iter().fold(0.0, |m, (torch, id, layout)| {
            let want = convert(fix.grad(torch), *layout);
            let got = grads.get(*id).unwrap_or_else(|| panic!("twin: no gradient for {torch}"));
            count += want.nrows() * want.ncols();
            worse(m, max_diff(&want, got))
        });
        (gap, count)
    }
}

fn probe_loss<'t>(out: Var<'t, f64>, fix: &Fixture) -> Var<'t, f64> {
    out.mul(out.tape().input(fix.input("probe").mat())).sum()
}

/// Forward and backward on one kernel set: `forward` returns the outputs
/// to compare, in the fixture's order, and the loss.
fn run_autograd(
    fix: &Fixture,
    linked: &Linked,
    outputs: &[&str],
    forward: impl Fn(&Tape<f64>) -> (Vec<Mat<f64>>, Var<'_, f64>),
) -> ([Gaps; 2], usize) {
    let mut gaps = [Gaps::default(); 2];
    let mut count = 0;
    for (k, kernels) in [Kernels::Plain, Kernels::Fused].into_iter().enumerate() {
        let tape = Tape::with_kernels(&linked.params, kernels);
        let (values, loss) = forward(&tape);
        for (name, got) in outputs.iter().zip(&values) {
            let want = fix.output(name).mat();
            gaps[k].output = worse(gaps[k].output, max_diff(&want, got));
            count += want.nrows() * want.ncols();
        }
        let grads = tape.backward(loss);
        let (g, n) = linked.grads_gap(fix, &grads);
        gaps[k].grads = g;
        count += n;
    }
    (gaps, count)
}

fn report(
    fix: &Fixture,
    blocks: Option<f64>,
    ([plain, fused], count): ([Gaps; 2], usize),
) -> Report {
    Report {
        case: fix.case.clone(),
        about: fix.about.clone(),
        torch: fix.torch.clone(),
        blocks,
        plain,
        fused,
        compared: count,
    }
}

pub(crate) fn config(fix: &Fixture, key: &str) -> usize {
    let t = fix.config.get(key).unwrap_or_else(|| panic!("twin: {}: no config {key}", fix.case));
    *t as usize
}

fn rows(m: &Mat<f64>, start: usize, len: usize) -> Mat<f64> {
    m.as_ref().submatrix(start, 0, len, m.ncols()).to_owned()
}

// ANCHOR: key_padding
/// The book's keep-mask (1 = may look), (B·S_q, S_k), from PyTorch's
/// key-padding mask (B, S_k) with 1 = padding: the polarity flips.
pub fn keep_from_key_padding(pad: &Tensor, len_q: usize) -> Mat<f64> {
    let pad = pad.mat();
    Mat::from_fn(pad.nrows() * len_q, pad.ncols(), |r, j| 1.0 - pad[(r / len_q, j)])
}

// ANCHOR_END: key_padding

pub(crate) fn rng() -> rand_pcg::Pcg64Mcg {
    rand_pcg::Pcg64Mcg::seed_from_u64(0) // initial values, all overwritten by PyTorch's
}

/// `nn.LayerNorm` against blocks' and autograd's LayerNorm.
pub fn layer_norm(fix: &Fixture) -> Report {
    let d = config(fix, "d");
    let mut params = Params::new();
    let ln = LayerNorm::new(&mut params, "ln", d);
    let mut linked = Linked::new(params);
    linked.param(fix, "weight", "ln.gamma", Layout::Same);
    linked.param(fix, "bias", "ln.beta", Layout::Same);
    let x = linked.input(fix, "x");
    let blocks = max_diff(
        &ln.to_blocks(&linked.params).forward(&fix.input("x").mat()),
        &fix.output("y").mat(),
    );
    let autograd = run_autograd(fix, &linked, &["y"], |tape| {
        let y = ln.forward(tape.param(x));
        {
            let loss = probe_loss(y, fix);
            (vec![y.value().clone()], loss)
        }
    });
    report(fix, Some(blocks), autograd)
}

// ANCHOR: links
/// Link `nn.MultiheadAttention`'s parameters (prefix `torch`) to the
/// book's attention `ours`.
pub(crate) fn link_attention(linked: &mut Linked, fix: &Fixture, torch: &str, ours: &str) {
    for (k, which) in ["w_q", "w_k", "w_v"].iter().enumerate() {
        let (w, b) = (format!("{ours}.{which}.w"), format!("{ours}.{which}.b"));
        linked.param(fix, &format!("{torch}in_proj_weight"), &w, Layout::StackedWeight(k));
        linked.param(fix, &format!("{torch}in_proj_bias"), &b, Layout::StackedBias(k));
    }
    // in_proj_weight's gradient is compared block by block, one link each
    linked.param(
        fix,
        &format!("{torch}out_proj.weight"),
        &format!("{ours}.w_o.w"),
        Layout::Transposed,
    );
    linked.param(fix, &format!("{torch}out_proj.bias"), &format!("{ours}.w_o.b"), Layout::Same);
}

/// Link a PyTorch Transformer layer's (prefix `torch`) feed-forward
/// network and norms.
pub(crate) fn link_ff_and_norms(
    linked: &mut Linked,
    fix: &Fixture,
    torch: &str,
    ours: &str,
    norms: usize,
) {
    let t = |name: &str| format!("{torch}{name}");
    linked.param(fix, &t("linear1.weight"), &format!("{ours}.ff.up.w"), Layout::Transposed);
    linked.param(fix, &t("linear1.bias"), &format!("{ours}.ff.up.b"), Layout::Same);
    linked.param(fix, &t("linear2.weight"), &format!("{ours}.ff.down.w"), Layout::Transposed);
    linked.param(fix, &t("linear2.bias"), &format!("{ours}.ff.down.b"), Layout::Same);
    for i in 1..=norms {
        linked.param(
            fix,
            &t(&format!("norm{i}.weight")),
            &format!("{ours}.ln{i}.gamma"),
            Layout::Same,
        );
        linked.param(
            fix,
            &t(&format!("norm{i}.bias")),
            &format!("{ours}.ln{i}.beta"),
            Layout::Same,
        );
    }
}
// ANCHOR_END: links

/// `nn.MultiheadAttention` as causal self-attention (`mha_causal`) or as
/// cross-attention under a key-padding mask (`mha_padding`): outputs and
/// every head's weights.
pub fn multi_head_attention(fix: &Fixture) -> Report {
    let (d, heads) = (config(fix, "d"), config(fix, "heads"));
    let mut params = Params::new();
    let attn = MultiHeadAttention::new(&mut params, "attn", d, heads, &mut rng());
    let mut linked = Linked::new(params);
    link_attention(&mut linked, fix, "", "attn");
    let self_attention = fix.inputs.contains_key("x");
    let (q_name, kv_name) = if self_attention { ("x", "x") } else { ("query", "memory") };
    let batch = fix.input(q_name).shape[0];
    let (s_q, s_k) = (fix.input(q_name).shape[1], fix.input(kv_name).shape[1]);
    let keep = if self_attention {
        autograd::nn::causal_mask::<f64>(batch, s_q)
    } else {
        keep_from_key_padding(fix.input("key_padding"), s_q)
    };
    let q_id = linked.input(fix, q_name);
    let kv_id = if self_attention { q_id } else { linked.input(fix, kv_name) };
    // blocks, one sequence at a time
    let attn_b = attn.to_blocks(&linked.params);
    let (xq, xkv) = (fix.input(q_name).mat(), fix.input(kv_name).mat());
    let (want_out, want_w) = (fix.output("out").mat(), fix.output("weights").mat());
    let mut blocks = 0.0;
    for b in 0..batch {
        let (out, per_head) = attn_b.forward(
            &rows(&xq, b * s_q, s_q),
            &rows(&xkv, b * s_k, s_k),
            Some(&rows(&keep, b * s_q, s_q)),
        );
        blocks = worse(blocks, max_diff(&out, &rows(&want_out, b * s_q, s_q)));
        for (h, a) in per_head.iter().enumerate() {
            blocks =
                worse(blocks, max_diff(&a.weights, &rows(&want_w, (b * heads + h) * s_q, s_q)));
        }
    }
    let autograd = run_autograd(fix, &linked, &["out", "weights"], |tape| {
        let (xq, xkv) = (tape.param(q_id), tape.param(kv_id));
        let a = attn.forward(xq, xkv, batch, Some(&keep));
        {
            let loss = probe_loss(a.context, fix);
            (vec![a.context.value().clone(), a.weights.all(tape)], loss)
        }
    });
    report(fix, Some(blocks), autograd)
}

/// `F.scaled_dot_product_attention` with a query that may look at nothing:
/// PyTorch returns a zero row, and so must the book.
pub fn sdpa_fully_masked(fix: &Fixture) -> Report {
    let mut linked = Linked::new(Params::new());
    let [q, k, v] = ["q", "k", "v"].map(|n| linked.input(fix, n));
    let keep = fix.input("keep").mat();
    let m = |n: &str| fix.input(n).mat();
    let a = blocks::scaled_dot_product_attention(
        m("q").as_ref(),
        m("k").as_ref(),
        m("v").as_ref(),
        Some(keep.as_ref()),
    );
    let blocks = max_diff(&a.output, &fix.output("out").mat());
    let shape = Heads { batch: 1, heads: 1 };
    let autograd = run_autograd(fix, &linked, &["out"], |tape| {
        let [q, k, v] = [q, k, v].map(|p| tape.param(p));
        let out = if tape.fused() {
            fused_attention(q, k, v, shape, Some(&keep), true).context
        } else {
            attention(q, k, v, shape, Some(&keep), true).context
        };
        {
            let loss = probe_loss(out, fix);
            (vec![out.value().clone()], loss)
        }
    });
    report(fix, Some(blocks), autograd)
}

fn norm_of(case: &str) -> Norm {
    if case.ends_with("pre") { Norm::Pre } else { Norm::Post }
}

/// `nn.TransformerEncoderLayer` (`encoder_post`, `encoder_pre`) under a
/// key-padding mask.
pub fn encoder_layer(fix: &Fixture) -> Report {
    let (d, heads, d_ff) = (config(fix, "d"), config(fix, "heads"), config(fix, "d_ff"));
    let mut params = Params::new();
    let layer =
        EncoderLayer::new(&mut params, "enc", d, heads, d_ff, norm_of(&fix.case), &mut rng());
    let mut linked = Linked::new(params);
    link_attention(&mut linked, fix, "self_attn.", "enc.attn");
    link_ff_and_norms(&mut linked, fix, "", "enc", 2);
    let (batch, s) = (fix.input("x").shape[0], fix.input("x").shape[1]);
    let keep = keep_from_key_padding(fix.input("key_padding"), s);
    let x = linked.input(fix, "x");
    let layer_b = layer.to_blocks(&linked.params);
    let (xm, want) = (fix.input("x").mat(), fix.output("y").mat());
    let blocks = (0..batch).fold(0.0, |m, b| {
        let y = layer_b.forward(&rows(&xm, b * s, s), Some(&rows(&keep, b * s, s)));
        worse(m, max_diff(&y, &rows(&want, b * s, s)))
    });
    let autograd = run_autograd(fix, &linked, &["y"], |tape| {
        let (y, _) = layer.forward(tape.param(x), batch, Some(&keep));
        {
            let loss = probe_loss(y, fix);
            (vec![y.value().clone()], loss)
        }
    });
    report(fix, Some(blocks), autograd)
}

/// `nn.TransformerDecoderLayer` (`decoder_post`, `decoder_pre`): causal
/// self-attention, cross-attention under the source's padding mask.
pub fn decoder_layer(fix: &Fixture) -> Report {
    let (d, heads, d_ff) = (config(fix, "d"), config(fix, "heads"), config(fix, "d_ff"));
    let mut params = Params::new();
    let layer =
        DecoderLayer::new(&mut params, "dec", d, heads, d_ff, norm_of(&fix.case), &mut rng());
    let mut linked = Linked::new(params);
    link_attention(&mut linked, fix, "self_attn.", "dec.self_attn");
    link_attention(&mut linked, fix, "multihead_attn.", "dec.cross_attn");
    link_ff_and_norms(&mut linked, fix, "", "dec", 3);
    let (batch, s_t, s_s) =
        (fix.input("y").shape[0], fix.input("y").shape[1], fix.input("memory").shape[1]);
    let causal = autograd::nn::causal_mask::<f64>(batch, s_t);
    let cross = keep_from_key_padding(fix.input("memory_key_padding"), s_t);
    let (y, mem) = (linked.input(fix, "y"), linked.input(fix, "memory"));
    let layer_b = layer.to_blocks(&linked.params);
    let (ym, mm, want) = (fix.input("y").mat(), fix.input("memory").mat(), fix.output("out").mat());
    let blocks = (0..batch).fold(0.0, |m, b| {
        let out = layer_b.forward(
            &rows(&ym, b * s_t, s_t),
            &rows(&mm, b * s_s, s_s),
            Some(&blocks::layers::causal_mask(s_t)),
            Some(&rows(&cross, b * s_t, s_t)),
        );
        worse(m, max_diff(&out, &rows(&want, b * s_t, s_t)))
    });
    let autograd = run_autograd(fix, &linked, &["out"], |tape| {
        let (out, _) =
            layer.forward(tape.param(y), tape.param(mem), batch, Some(&causal), Some(&cross));
        {
            let loss = probe_loss(out, fix);
            (vec![out.value().clone()], loss)
        }
    });
    report(fix, Some(blocks), autograd)
}

// ANCHOR: gru
/// `nn.GRU`, one layer, from a given h0: every state and the last.
/// (`blocks` has no GRU.)
pub fn gru(fix: &Fixture) -> Report {
    let (input, hidden) = (config(fix, "input"), config(fix, "hidden"));
    let mut params = Params::new();
    let gru = Gru::new(&mut params, "gru", input, hidden, &mut rng());
    let mut linked = Linked::new(params);
    linked.param(fix, "weight_ih_l0", "gru.w_i", Layout::Transposed);
    linked.param(fix, "weight_hh_l0", "gru.w_h", Layout::Transposed);
    linked.param(fix, "bias_ih_l0", "gru.b_i", Layout::Same);
    linked.param(fix, "bias_hh_l0", "gru.b_h", Layout::Same);
    let (batch, len) = (fix.input("x").shape[0], fix.input("x").shape[1]);
    let (x, h0) = (linked.input(fix, "x"), linked.input(fix, "h0"));
    let autograd = run_autograd(fix, &linked, &["out", "h_n"], |tape| {
        // PyTorch's batch_first (B·S) rows into the GRU's time-major order and back
        let x = tape.param(x).gather_rows(&time_major(batch, len));
        let (states, last) = gru.forward(x, batch, Some(tape.param(h0)));
        let out = states.gather_rows(&batch_major(batch, len));
        {
            let loss = probe_loss(out, fix);
            (vec![out.value().clone(), last.value().clone()], loss)
        }
    });
    report(fix, None, autograd)
}
// ANCHOR_END: gru

/// `F.cross_entropy` with an ignored class and PyTorch's label smoothing
/// (the book's `Smoothing::AllClasses`); also without smoothing.
pub fn cross_entropy(fix: &Fixture) -> Report {
    let ignore = config(fix, "ignore_index");
    let eps = fix.config["label_smoothing"];
    let targets: Vec<usize> = fix.input("targets").data.iter().map(|&t| t as usize).collect();
    let mut linked = Linked::new(Params::new());
    let logits = linked.input(fix, "logits");
    let autograd = run_autograd(fix, &linked, &["loss", "loss_plain"], |tape| {
        let z = tape.param(logits);
        let loss = z.cross_entropy(&targets, Some(ignore), Smoothing::AllClasses(eps));
        let plain = z.cross_entropy(&targets, Some(ignore), Smoothing::None);
        let values = vec![loss.value().clone(), plain.value().clone()];
        (values, loss)
    });
    report(fix, None, autograd)
}

/// Link GPT-2's feed-forward network (prefix `torch`) to the book's `Mlp` `ours`.
fn link_mlp(linked: &mut Linked, fix: &Fixture, torch: &str, ours: &str) {
    for part in ["c_fc", "c_proj"] {
        let (t, o) = (format!("{torch}{part}"), format!("{ours}.{part}"));
        linked.param(fix, &format!("{t}.weight"), &format!("{o}.w"), Layout::Transposed);
        linked.param(fix, &format!("{t}.bias"), &format!("{o}.b"), Layout::Same);
    }
}

/// GPT-2's feed-forward network (`ffn_gelu`): GELU in its tanh form
/// between two linear layers.
pub fn ffn_gelu(fix: &Fixture) -> Report {
    let (d, d_ff) = (config(fix, "d"), config(fix, "d_ff"));
    let mut params = Params::new();
    let mlp = Mlp::new(&mut params, "mlp", d, d_ff, &mut rng());
    let mut linked = Linked::new(params);
    link_mlp(&mut linked, fix, "", "mlp");
    let x = linked.input(fix, "x");
    let autograd = run_autograd(fix, &linked, &["y"], |tape| {
        let y = mlp.forward(tape.param(x));
        {
            let loss = probe_loss(y, fix);
            (vec![y.value().clone()], loss)
        }
    });
    report(fix, None, autograd)
}

/// Token ids stored as numbers, (B, S), one after another.
pub fn ids(t: &Tensor) -> Vec<usize> {
    t.data.iter().map(|&v| v as usize).collect()
}

/// Link the GPT-2-style model's parameters (`gpt_dropout`) to a [`Gpt`].
fn link_gpt(linked: &mut Linked, fix: &Fixture, layers: usize) {
    linked.param(fix, "wte.weight", "wte.table", Layout::Same);
    linked.param(fix, "wpe.weight", "wpe.table", Layout::Same);
    for i in 0..layers {
        // PyTorch's names and the book's share the prefix h.{i}.
        let (t, o) = (format!("h.{i}."), format!("h.{i}."));
        for ln in ["ln_1", "ln_2"] {
            linked.param(fix, &format!("{t}{ln}.weight"), &format!("{o}{ln}.gamma"), Layout::Same);
            linked.param(fix, &format!("{t}{ln}.bias"), &format!("{o}{ln}.beta"), Layout::Same);
        }
        for (k, which) in ["w_q", "w_k", "w_v"].iter().enumerate() {
            let ours = format!("{o}attn.{which}");
            let c_attn = format!("{t}attn.c_attn");
            linked.param(
                fix,
                &format!("{c_attn}.weight"),
                &format!("{ours}.w"),
                Layout::StackedWeight(k),
            );
            linked.param(
                fix,
                &format!("{c_attn}.bias"),
                &format!("{ours}.b"),
                Layout::StackedBias(k),
            );
        }
        linked.param(
            fix,
            &format!("{t}attn.c_proj.weight"),
            &format!("{o}attn.w_o.w"),
            Layout::Transposed,
        );
        linked.param(fix, &format!("{t}attn.c_proj.bias"), &format!("{o}attn.w_o.b"), Layout::Same);
        link_mlp(linked, fix, &format!("{t}mlp."), &format!("{o}mlp"));
    }
    linked.param(fix, "ln_f.weight", "ln_f.gamma", Layout::Same);
    linked.param(fix, "ln_f.bias", "ln_f.beta", Layout::Same);
}

/// Copy PyTorch's parameters of `gpt_dropout` into the parameters of a
/// [`Gpt`] of the fixture's sizes; returns how many tensors were copied.
pub fn load_gpt(fix: &Fixture, params: &mut Params<f64>) -> usize {
    let mut linked = Linked::new(std::mem::take(params));
    link_gpt(&mut linked, fix, config(fix, "layers"));
    *params = linked.params;
    fix.params.len()
}

/// A GPT-2-style model with dropout (`gpt_dropout`): the masks PyTorch drew
/// are handed to the book's model, site by site; the loss is the model's
/// own (next-token cross-entropy), and every parameter's gradient is compared.
pub fn gpt_dropout(fix: &Fixture) -> Report {
    let cfg = GptConfig {
        vocab: config(fix, "vocab"),
        max_len: config(fix, "max_len"),
        d_model: config(fix, "d"),
        heads: config(fix, "heads"),
        d_ff: config(fix, "d_ff"),
        layers: config(fix, "layers"),
    };
    let mut params = Params::new();
    let gpt = Gpt::new(&mut params, cfg, &mut rng());
    let mut linked = Linked::new(params);
    link_gpt(&mut linked, fix, cfg.layers);
    let batch = fix.input("ids").shape[0];
    let (tokens, targets) = (ids(fix.input("ids")), ids(fix.input("targets")));
    let masks: Vec<Mat<f64>> =
        (0..).map_while(|i| fix.inputs.get(&format!("mask_{i}")).map(Tensor::mat)).collect();
    let autograd = run_autograd(fix, &linked, &["logits", "loss"], |tape| {
        let mut given = GivenMasks(masks.iter().cloned().collect());
        let logits = gpt.forward(tape, &tokens, batch, &mut given).expect("within max_len");
        assert!(given.0.is_empty(), "twin: gpt_dropout left masks unused");
        let loss = logits.cross_entropy(&targets, None, Smoothing::None);
        let values = vec![logits.value().clone(), loss.value().clone()];
        (values, loss)
    });
    report(fix, None, autograd)
}

/// What a wrong convention costs: the Post-LN encoder layer with PyTorch's
/// key-padding mask read the wrong way round (1 taken as "may look").
pub fn encoder_with_flipped_padding() -> f64 {
    let mut fix = Fixture::named("encoder_post");
    for v in &mut fix.inputs.get_mut("key_padding").expect("key_padding").data {
        *v = 1.0 - *v;
    }
    check(&fix).worst()
}

/// What a wrong convention costs: the GRU read with its r and z gates
/// swapped (rows 0..H and H..2H of every stacked weight and bias).
pub fn gru_with_swapped_gates() -> f64 {
    let mut fix = Fixture::named("gru");
    for name in ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"] {
        let t = fix.params.get_mut(name).expect("a GRU weight");
        let cols = if t.shape.len() == 2 { t.shape[1] } else { 1 };
        let h = t.shape[0] / 3;
        for i in 0..h * cols {
            t.data.swap(i, h * cols + i);
        }
    }
    check(&fix).worst()
}

/// The check of one fixture, by its case name.
#[track_caller]
pub fn check(fix: &Fixture) -> Report {
    match fix.case.as_str() {
        "layer_norm" => layer_norm(fix),
        "mha_causal" | "mha_padding" => multi_head_attention(fix),
        "sdpa_fully_masked" => sdpa_fully_masked(fix),
        "encoder_post" | "encoder_pre" => encoder_layer(fix),
        "decoder_post" | "decoder_pre" => decoder_layer(fix),
        "gru" => gru(fix),
        "cross_entropy" => cross_entropy(fix),
        "ffn_gelu" => ffn_gelu(fix),
        "gpt_dropout" => gpt_dropout(fix),
        other => panic!("twin: no check for the case {other}"),
    }
}

/// The committed fixture `case`, checked.
#[track_caller]
pub fn named(case: &str) -> Report {
    check(&Fixture::named(case))
}

/// Every committed fixture, checked, in [`crate::FIXTURES`]' order.
pub fn all() -> Vec<Report> {
    crate::FIXTURES.iter().map(|(case, _)| named(case)).collect()
}
