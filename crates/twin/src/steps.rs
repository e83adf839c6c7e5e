//! Training steps twinned with PyTorch — Lecture 6 §9.3: chapter 12's
//! review classifier starts from the weights PyTorch initialised, takes the
//! same batches in the same order with the same optimiser (Adam), and the
//! loss of every step and the parameters after the last are compared.
//!
//! Two frameworks that agree on one forward and backward pass can still
//! drift apart over training (an optimiser's bias correction, ε in the
//! wrong place, a gradient summed where the other averages): this is the
//! check that covers the whole loop.

use autograd::nn::{Classifier, ClassifierConfig, Norm};
use autograd::optim::{Adam, Optimizer};
use autograd::tape::Kernels;
use autograd::{Params, Smoothing, Tape};
use blocks::{max_diff, worse};

use crate::Fixture;
use crate::cases::{Layout, Linked, config, convert, ids, link_attention, link_ff_and_norms, rng};

impl Steps {
    /// The largest parameter gap over the parameters `which` accepts.
    pub fn param_gap(&self, which: impl Fn(&str) -> bool) -> f64 {
        self.param_gaps.iter().filter(|(n, _)| which(n)).fold(0.0, |m, (_, g)| worse(m, *g))
    }
}

/// One twinned training run.
#[derive(Clone, Debug)]
pub struct Steps {
    pub case: String,
    pub about: String,
    pub torch: String,
    /// The loss PyTorch computed before each step.
    pub torch_losses: Vec<f64>,
    /// The book's, with the plain ops and with the fused kernels.
    pub plain_losses: Vec<f64>,
    pub fused_losses: Vec<f64>,
    /// The largest |book − PyTorch| over every step, both kernel sets.
    pub loss_gap: f64,
    /// The largest |book − PyTorch| of each parameter (the book's name)
    /// after the last step, both kernel sets.
    pub param_gaps: Vec<(String, f64)>,
    /// How many parameter numbers were compared (per kernel set).
    pub params: usize,
}

/// Link PyTorch's classifier (chapter 12's `ReviewClassifier`) to the book's.
fn link_classifier(linked: &mut Linked, fix: &Fixture) {
    linked.param(fix, "tokens.weight", "tokens.table", Layout::Same);
    linked.param(fix, "positions.weight", "positions.table", Layout::Same);
    link_attention(linked, fix, "layer.self_attn.", "layer.0.attn");
    link_ff_and_norms(linked, fix, "layer.", "layer.0", 2);
    linked.param(fix, "head.weight", "head.w", Layout::Transposed);
    linked.param(fix, "head.bias", "head.b", Layout::Same);
}

/// The classifier of `fix` (`classifier_steps`) with PyTorch's initial
/// parameters, and how they link to PyTorch's.
fn loaded(fix: &Fixture) -> (Classifier, Linked) {
    let cfg = ClassifierConfig {
        vocab: config(fix, "vocab"),
        pad: config(fix, "pad"),
        d_model: config(fix, "d"),
        heads: config(fix, "heads"),
        d_ff: config(fix, "d_ff"),
        layers: 1,
        norm: Norm::Post,
        positions: Some(config(fix, "max_len")),
        classes: 2,
    };
    let mut linked = Linked::new(Params::new());
    let model = Classifier::new(&mut linked.params, cfg, &mut rng());
    link_classifier(&mut linked, fix);
    (model, linked)
}

/// The classifier of `fix` with PyTorch's initial parameters.
pub fn initial_classifier(fix: &Fixture) -> (Classifier, Params<f64>) {
    let (model, linked) = loaded(fix);
    (model, linked.params)
}

// ANCHOR: twinned_loop
/// The book's side of the twin run: from PyTorch's initial parameters, one
/// Adam step on each of the fixture's batches in turn (on `kernels`);
/// returns the loss before every step and the parameters after the last.
pub fn train_like_pytorch(
    fix: &Fixture,
    model: &Classifier,
    initial: &Params<f64>,
    kernels: Kernels,
) -> (Vec<f64>, Params<f64>) {
    let c = |k: &str| fix.config[k];
    let mut params = initial.clone();
    let mut adam = Adam::new(&params, c("lr"), c("beta1"), c("beta2"), c("eps"));
    let mut losses = Vec::new();
    for step in 0..config(fix, "steps") {
        let tokens = ids(fix.input(&format!("ids_{step:02}")));
        let labels = ids(fix.input(&format!("labels_{step:02}")));
        let grads = {
            let tape = Tape::with_kernels(&params, kernels);
            let out = model.forward(&tape, &tokens, labels.len()).expect("within max_len");
            let loss = out.logits.cross_entropy(&labels, None, Smoothing::None);
            losses.push(loss.scalar());
            tape.backward(loss)
        };
        adam.step(&mut params, &grads);
    }
    (losses, params)
}
// ANCHOR_END: twinned_loop

/// The classifier of `fix` (`classifier_steps`) trained step by step on
/// both kernel sets, against PyTorch.
pub fn classifier_steps(fix: &Fixture) -> Steps {
    let (model, linked) = loaded(fix);
    let torch_losses = fix.output("losses").data.clone();
    let mut losses = [Vec::new(), Vec::new()];
    let mut param_gaps: Vec<(String, f64)> = Vec::new();
    let mut params = 0;
    for (k, kernels) in [Kernels::Plain, Kernels::Fused].into_iter().enumerate() {
        let (run, p) = train_like_pytorch(fix, &model, &linked.params, kernels);
        losses[k] = run;
        params = 0;
        for (torch, id, layout) in &linked.links {
            let want = convert(fix.output(&format!("final.{torch}")), *layout);
            let gap = max_diff(&want, &p.get(*id).value);
            let name = &p.get(*id).name;
            match param_gaps.iter_mut().find(|(n, _)| n == name) {
                Some((_, g)) => *g = worse(*g, gap),
                None => param_gaps.push((name.clone(), gap)),
            }
            params += want.nrows() * want.ncols();
        }
    }
    let [plain_losses, fused_losses] = losses;
    let loss_gap = plain_losses
        .iter()
        .chain(&fused_losses)
        .zip(torch_losses.iter().cycle())
        .fold(0.0, |m, (a, b)| worse(m, (a - b).abs()));
    Steps {
        case: fix.case.clone(),
        about: fix.about.clone(),
        torch: fix.torch.clone(),
        torch_losses,
        plain_losses,
        fused_losses,
        loss_gap,
        param_gaps,
        params,
    }
}
