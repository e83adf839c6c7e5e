//! Lecture 6 §9.2 (script 03 part 4) — the framework's modules against
//! PyTorch's, from the committed fixtures, in f64: attention, GPT-2's GELU
//! network, Pre-LN and Post-LN layers and a GPT-2-style model whose dropout
//! masks PyTorch drew. Then the same model's gradient against finite
//! differences, so that both references are outside the framework.

use std::collections::VecDeque;

use autograd::nn::{GivenMasks, Gpt, GptConfig};
use autograd::{Params, Smoothing, Tape};
use faer::Mat;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

/// The fixtures this chapter sets against PyTorch, with their labels.
pub const CASES: [(&str, &str); 5] = [
    ("mha_causal", "multi-head attention, causal"),
    ("ffn_gelu", "feed-forward network, GELU"),
    ("encoder_pre", "Pre-LN encoder layer"),
    ("encoder_post", "Post-LN encoder layer"),
    ("gpt_dropout", "GPT-2-style model with dropout"),
];

// ANCHOR: finite_differences
/// The model's loss on one batch with fixed dropout masks.
fn loss(
    model: &Gpt,
    params: &Params<f64>,
    ids: &[usize],
    targets: &[usize],
    masks: &[Mat<f64>],
) -> f64 {
    let tape = Tape::new(params);
    let mut given = GivenMasks(masks.iter().cloned().collect::<VecDeque<_>>());
    let logits = model.forward(&tape, ids, 2, &mut given).expect("within max_len");
    logits.cross_entropy(targets, None, Smoothing::None).scalar()
}

/// The largest |backward − central difference| over every `stride`-th
/// parameter entry, relative to 1 + |gradient|, with step `h`.
pub fn gradient_check(
    model: &Gpt,
    params: &Params<f64>,
    (ids, targets, masks): (&[usize], &[usize], &[Mat<f64>]),
    h: f64,
    stride: usize,
) -> (f64, usize) {
    let grads = {
        let tape = Tape::new(params);
        let mut given = GivenMasks(masks.iter().cloned().collect::<VecDeque<_>>());
        let logits = model.forward(&tape, ids, 2, &mut given).expect("within max_len");
        tape.backward(logits.cross_entropy(targets, None, Smoothing::None))
    };
    let mut p = params.clone();
    let (mut worst, mut checked) = (0.0, 0);
    let entries: Vec<_> = params
        .iter()
        .flat_map(|(id, p)| {
            let cols = p.value.ncols();
            (0..p.value.nrows() * cols).map(move |k| (id, k / cols, k % cols))
        })
        .step_by(stride)
        .collect();
    for (id, i, j) in entries {
        {
            let x = params.get(id).value[(i, j)];
            p.get_mut(id).value[(i, j)] = x + h;
            let up = loss(model, &p, ids, targets, masks);
            p.get_mut(id).value[(i, j)] = x - h;
            let down = loss(model, &p, ids, targets, masks);
            p.get_mut(id).value[(i, j)] = x;
            let numeric = (up - down) / (2.0 * h);
            let analytic = grads.get(id).map_or(0.0, |g| g[(i, j)]);
            worst = blocks::worse(worst, (numeric - analytic).abs() / (1.0 + analytic.abs()));
            checked += 1;
        }
    }
    (worst, checked)
}
// ANCHOR_END: finite_differences

pub fn against_pytorch(fd_stride: usize, nb: &mut Notebook) {
    nb.demo("against_pytorch", "L6 03.4 · The framework against PyTorch, module by module, in f64");
    twin::say_against_pytorch(nb, &CASES);
    let worst =
        CASES.iter().fold(0.0, |m, (case, _)| blocks::worse(m, twin::cases::named(case).worst()));
    let w = nb.value("torch_largest", show::sci(worst, 1));
    say!(nb, "largest difference over every output and gradient above: {w}");
    // the GPT-2-style model, with PyTorch's weights and masks, against finite differences
    let fix = twin::Fixture::named("gpt_dropout");
    let c = |k: &str| fix.config[k] as usize;
    let cfg = GptConfig {
        vocab: c("vocab"),
        max_len: c("max_len"),
        d_model: c("d"),
        heads: c("heads"),
        d_ff: c("d_ff"),
        layers: c("layers"),
    };
    let mut params = Params::new();
    let model = Gpt::new(&mut params, cfg, &mut Pcg64Mcg::seed_from_u64(0));
    let loaded = twin::cases::load_gpt(&fix, &mut params);
    let ids = twin::cases::ids(fix.input("ids"));
    let targets = twin::cases::ids(fix.input("targets"));
    let masks: Vec<Mat<f64>> =
        (0..).map_while(|i| fix.inputs.get(&format!("mask_{i}")).map(|t| t.mat())).collect();
    let (worst, checked) =
        gradient_check(&model, &params, (&ids, &targets, &masks), 1e-5, fd_stride);
    let n = nb.value("fd_checked", show::grouped(checked));
    let g = nb.value("fd_gap", show::sci(worst, 1));
    say!(
        nb,
        "the same model ({loaded} tensors from PyTorch, {} dropout masks) against central differences, h = 1e-5:",
        masks.len()
    );
    say!(nb, "  {n} parameter entries, largest |backward − numeric| / (1 + |backward|) {g}");
}
