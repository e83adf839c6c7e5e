//! Optimizers, schedules, losses: numbers worked out by hand.

use autograd::optim::{Adam, Optimizer, Sgd, average, linear_warmup, noam};
use autograd::{Params, Smoothing, Tape};
use faer::Mat;

fn one(v: f64) -> Mat<f64> {
    Mat::from_fn(1, 1, |_, _| v)
}

/// loss = w · g for a fixed g: the gradient is g.
fn grads_of(params: &Params<f64>, g: f64) -> autograd::Grads<f64> {
    let tape = Tape::new(params);
    let w = tape.param(autograd::ParamId(0));
    tape.backward(w.mul(tape.input(one(g))).sum())
}

#[test]
fn sgd_steps_against_the_gradient() {
    let mut p = Params::new();
    p.add("w", one(1.0));
    let g = grads_of(&p, 3.0);
    Sgd { lr: 0.1 }.step(&mut p, &g);
    assert!((p.get(autograd::ParamId(0)).value[(0, 0)] - 0.7).abs() < 1e-15);
}

#[test]
fn adams_first_step_is_lr_times_the_sign_of_the_gradient() {
    // m̂ = g, v̂ = g², so the step is lr·g/(|g| + ε) ≈ lr·sign(g), whatever |g| is
    for g in [1e-6, 0.3, -50.0] {
        let mut p = Params::new();
        p.add("w", one(0.0));
        let mut adam = Adam::new(&p, 0.01, 0.9, 0.999, 1e-12);
        let grads = grads_of(&p, g);
        adam.step(&mut p, &grads);
        let w = p.get(autograd::ParamId(0)).value[(0, 0)];
        assert!((w + 0.01 * g.signum()).abs() < 1e-8, "g = {g}: w = {w}");
    }
}

#[test]
fn schedules() {
    assert_eq!(linear_warmup(1, 50, 1e-3), 2e-5);
    assert_eq!(linear_warmup(50, 50, 1e-3), 1e-3);
    assert_eq!(linear_warmup(500, 50, 1e-3), 1e-3);
    // the paper's schedule peaks at step = warmup: d^-0.5 · warmup^-0.5
    let peak = noam(4000, 512, 4000);
    assert!((peak - 1.0 / (512f64 * 4000.0).sqrt()).abs() < 1e-15);
    assert!(noam(3999, 512, 4000) < peak && noam(4001, 512, 4000) < peak);
    assert!((noam(1, 512, 4000) - 4000f64.powf(-1.5) / 512f64.sqrt()).abs() < 1e-18);
}

#[test]
fn checkpoint_average_is_the_elementwise_mean() {
    let ck: Vec<Params<f64>> = [1.0, 2.0, 6.0]
        .iter()
        .map(|&v| {
            let mut p = Params::new();
            p.add("w", one(v));
            p
        })
        .collect();
    assert_eq!(average(&ck).get(autograd::ParamId(0)).value[(0, 0)], 3.0);
}

#[test]
fn label_smoothing_conventions() {
    // V = 4 equal logits: p = 1/4 everywhere, so the loss is ln 4 whatever q is
    let mut p = Params::new();
    p.add("logits", Mat::from_fn(1, 4, |_, _| 0.0));
    let loss = |s: Smoothing| {
        let tape = Tape::new(&p);
        tape.param(autograd::ParamId(0)).cross_entropy(&[2], None, s).scalar()
    };
    for s in [Smoothing::None, Smoothing::AllClasses(0.1), Smoothing::OtherClasses(0.1)] {
        assert!((loss(s) - 4f64.ln()).abs() < 1e-15);
    }
    // the target probability each convention asks for
    assert_eq!(Smoothing::AllClasses(0.1).targets(4), (1.0 - 0.1 + 0.025, 0.025));
    assert_eq!(Smoothing::OtherClasses(0.1).targets(4), (0.9, 0.1 / 3.0));
    // an ignored row does not count
    let mut p2 = Params::new();
    p2.add("logits", Mat::from_fn(2, 3, |i, j| (i * 3 + j) as f64));
    let tape = Tape::new(&p2);
    let x = tape.param(autograd::ParamId(0));
    let both = x.cross_entropy(&[0, 1], None, Smoothing::None).scalar();
    let first = x.cross_entropy(&[0, 9], Some(9), Smoothing::None).scalar();
    let lse = |a: f64, b: f64, c: f64| (a.exp() + b.exp() + c.exp()).ln();
    assert!((first - (lse(0.0, 1.0, 2.0) - 0.0)).abs() < 1e-14);
    assert!((both - 0.5 * ((lse(0.0, 1.0, 2.0) - 0.0) + (lse(3.0, 4.0, 5.0) - 4.0))).abs() < 1e-14);
}

#[test]
fn a_fully_masked_row_gives_zeros_not_nan() {
    let mut p = Params::new();
    p.add("s", Mat::from_fn(2, 3, |i, j| (i + j) as f64));
    let tape = Tape::new(&p);
    let keep = Mat::from_fn(2, 3, |i, _| if i == 1 { 0.0 } else { 1.0 });
    let probs = tape.param(autograd::ParamId(0)).softmax_rows(Some(&keep));
    let v = probs.value();
    assert!((0..3).all(|j| v[(1, j)] == 0.0));
    assert!(((0..3).map(|j| v[(0, j)]).sum::<f64>() - 1.0).abs() < 1e-15);
}

#[test]
fn a_learned_position_table_refuses_a_longer_sequence() {
    use autograd::nn::LearnedPositions;
    use rand::SeedableRng;
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(0);
    let mut p = Params::<f64>::new();
    let pos = LearnedPositions::new(&mut p, "pos", 8, 4, &mut rng);
    let tape = Tape::new(&p);
    assert!(pos.forward(&tape, 2, 8).is_ok());
    let err = pos.forward(&tape, 2, 9).err().unwrap();
    assert_eq!((err.len, err.max_len), (9, 8));
    assert!(err.to_string().contains("only 8 rows"));
}
