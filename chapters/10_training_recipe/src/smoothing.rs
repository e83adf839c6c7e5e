//! Lecture 6 demo 05.2 — label smoothing: the finite optimum it asks for,
//! its two conventions, and its exact cost on the city language.

use autograd::{Params, Smoothing, Tape};
use faer::Mat;
use record::{Notebook, say, show};

use rayon::prelude::*;

use crate::language::{self, State, VOCAB};
use crate::lm::{self, Recipe, TestSet};
use crate::warmup::{self, Outcome};

// ANCHOR: optimal_gap
/// The gap between the target's logit and every other logit at which the
/// smoothed loss is smallest: there softmax(z) equals the smoothed target
/// q, so the gap is ln(q_t / q_other).
pub fn optimal_gap(v: usize, smoothing: Smoothing) -> f64 {
    let (q_t, q_o) = smoothing.targets(v);
    libm::log(q_t / q_o)
}

/// The gradient of the smoothed loss on one row of `v` logits whose target
/// (class 0) leads every other logit by `gap`: softmax(z) − q.
pub fn gradient_at_gap(v: usize, gap: f64, smoothing: Smoothing) -> Vec<f64> {
    let mut z = Mat::<f64>::zeros(1, v);
    z[(0, 0)] = gap;
    let mut params = Params::<f64>::new();
    let id = params.add("z", z);
    let tape = Tape::new(&params);
    let loss = tape.param(id).cross_entropy(&[0], None, smoothing);
    let grads = tape.backward(loss);
    let g = grads.get(id).expect("z has a gradient");
    (0..v).map(|j| g[(0, j)]).collect()
}
// ANCHOR_END: optimal_gap

// ANCHOR: exact_cost
/// What a perfect model trained with smoothing ε gives up on the city
/// language. The expected smoothed target at a position is the optimum,
/// q* = (1 − ε)p + ε/V (ε over all V, PyTorch's convention), or
/// (1 − ε)p + ε(1 − p)/(V − 1) (over the other V − 1). Returns the mean of
/// −ln q*(x_t) over the test tokens, and how many positions' most likely
/// tokens q* changes.
pub fn exact_cost(sentences: &[Vec<usize>], smoothing: Smoothing) -> (f64, usize) {
    let v = VOCAB as f64;
    let optimum = |p: f64| match smoothing {
        Smoothing::None => p,
        Smoothing::AllClasses(e) => (1.0 - e) * p + e / v,
        Smoothing::OtherClasses(e) => (1.0 - e) * p + e * (1.0 - p) / (v - 1.0),
    };
    let (mut nats, mut tokens, mut changed) = (0.0, 0, 0);
    for s in sentences {
        let mut state = State::new();
        for &t in &s[1..] {
            let next = state.next();
            let p_of = |tok: usize| next.iter().find(|n| n.0 == tok).map_or(0.0, |n| n.1);
            // the most likely tokens under p and under q*, over the whole vocabulary
            let best = |f: &dyn Fn(usize) -> f64| {
                let top = (0..VOCAB).map(f).fold(f64::NEG_INFINITY, f64::max);
                (0..VOCAB).filter(|&j| f(j) == top).collect::<Vec<_>>()
            };
            changed += usize::from(best(&p_of) != best(&|j| optimum(p_of(j))));
            nats -= libm::log(optimum(p_of(t)));
            tokens += 1;
            state.push(t);
        }
    }
    (nats / tokens as f64, changed)
}
// ANCHOR_END: exact_cost

pub fn label_smoothing(seed: u64, test_n: usize, nb: &mut Notebook) {
    nb.demo(
        "smoothing",
        "L6 05.2 · Label smoothing: a finite optimum, two conventions, its exact cost",
    );
    let (v, eps) = (37_000, 0.1);
    let other = optimal_gap(v, Smoothing::OtherClasses(eps));
    let all = optimal_gap(v, Smoothing::AllClasses(eps));
    let other_s = nb.value("gap_other", show::num(other, 2));
    let all_s = nb.value("gap_all", show::num(all, 3));
    let other_s3 = nb.value("gap_other_3", show::num(other, 3));
    say!(nb, "V = {v}, ε = {eps}: the smoothed loss is smallest when the target leads by");
    say!(nb, "  ln((1 − ε)(V − 1)/ε) = {other_s} (ε over the other V − 1; {other_s3} to 3 places)");
    say!(nb, "  ln(1 + (1 − ε)V/ε)   = {all_s} (ε over all V)");
    let at = gradient_at_gap(v, other, Smoothing::OtherClasses(eps));
    let worst = at.iter().map(|g| g.abs()).fold(0.0, f64::max);
    let worst = nb.value("gap_grad_at_optimum", show::sci(worst, 1));
    let beyond = gradient_at_gap(v, other + 1.0, Smoothing::OtherClasses(eps))[0];
    let beyond = nb.value("gap_grad_beyond", show::sci(beyond, 1));
    say!(
        nb,
        "  largest |gradient| there: {worst}; one nat further, the target's gradient is {beyond} > 0"
    );
    say!(nb, "  (pushes it back); without smoothing the gradient is negative at every gap");

    // the two conventions for a small vocabulary (Lecture 6 exercise 8)
    let (v, target) = (10, 3);
    say!(nb, "V = {v}, ε = {eps}, target class {target}:");
    for (tag, s, label) in [
        ("slides", Smoothing::OtherClasses(eps), "slides, over the other V − 1"),
        ("torch", Smoothing::AllClasses(eps), "PyTorch, over all V"),
    ] {
        let (q_t, q_o) = s.targets(v);
        let q_t = nb.value(&format!("target_{tag}"), show::num(q_t, 4));
        let q_o = nb.value(&format!("other_{tag}"), show::num(q_o, 4));
        say!(nb, "  {label:<30} q_target {q_t}, every other class {q_o}");
    }
    let gap = 2.0;
    let g_slides = gradient_at_gap(v, gap, Smoothing::OtherClasses(eps));
    let g_torch = gradient_at_gap(v, gap, Smoothing::AllClasses(eps));
    let d_t = nb.value("grad_diff_target", show::num(g_slides[0] - g_torch[0], 4));
    let d_o = nb.value("grad_diff_other", show::num(g_torch[1] - g_slides[1], 4));
    say!(nb, "  gradient softmax(z) − q at a gap of {gap}: the conventions differ by {d_t} on the");
    say!(
        nb,
        "  target and by {d_o} on every other class (they move the same ε, spread differently)"
    );
    twin::say_against_pytorch(nb, &[("cross_entropy", "F.cross_entropy(label_smoothing=0.1)")]);

    // the exact cost on the city language
    let test = lm::sentences(test_n, seed + 200);
    let floor = lm::floor(&test);
    say!(
        nb,
        "the city language ({VOCAB} tokens), {test_n} test sentences, floor {}:",
        show::num(floor, 5)
    );
    for (tag, s, label) in [
        ("all", Smoothing::AllClasses(eps), "q* = (1 − ε)p + ε/V"),
        ("other", Smoothing::OtherClasses(eps), "q* = (1 − ε)p + ε(1 − p)/(V − 1)"),
    ] {
        let (nats, changed) = exact_cost(&test, s);
        let cost = nb.value(&format!("cost_{tag}"), show::num(1e3 * (nats - floor), 1));
        let changed = nb.value(&format!("argmax_changed_{tag}"), changed.to_string());
        say!(
            nb,
            "  {label:<34} {cost} mnats/token above the floor; most likely token changed at {changed} positions"
        );
    }
    // where the cost comes from: a forced token (p = 1) pays −ln(1 − ε + ε/V)
    let forced: usize =
        test.iter().map(|s| language::probabilities(s).iter().filter(|&&p| p == 1.0).count()).sum();
    let tokens: usize = test.iter().map(|s| s.len() - 1).sum();
    let share = nb.value("forced_share", show::num(100.0 * forced as f64 / tokens as f64, 1));
    let per =
        nb.value("forced_cost", show::num(-1e3 * libm::log(1.0 - eps + eps / VOCAB as f64), 1));
    say!(
        nb,
        "  {share}% of the test tokens are forced (p = 1); each pays −ln(1 − ε + ε/V) = {per} mnats"
    );
    // other strengths of smoothing (an exercise)
    for e in [0.05, 0.2] {
        let (nats, _) = exact_cost(&test, Smoothing::AllClasses(e));
        let tag = show::short(e).replace('.', "_");
        let cost = nb.value(&format!("cost_all_eps{tag}"), show::num(1e3 * (nats - floor), 1));
        let forced = -1e3 * libm::log(1.0 - e + e / VOCAB as f64);
        let forced = nb.value(&format!("forced_cost_eps{tag}"), show::num(forced, 1));
        say!(nb, "  ε = {e}: {cost} mnats/token (a forced token: {forced})");
    }
}

/// What a trained model is read for here: its test excess without
/// smoothing, the part of it at the home city, and how often its most
/// likely token is one of the grammar's.
pub struct Read {
    pub excess: f64,
    pub home: f64,
    pub top1: f64,
}

// ANCHOR: trained
/// The grid's `recipe` trained again with ε = 0.1 over all V, from the same
/// weights on the same batches, one run per seed, read without smoothing.
pub fn train_smoothed(recipe: Recipe, seeds: &[u64], test_n: usize) -> Vec<Read> {
    let smoothed = Recipe { smoothing: Smoothing::AllClasses(0.1), ..recipe };
    seeds
        .par_iter()
        .map(|&s| {
            let test = TestSet::new(test_n, s + 200);
            let run = lm::train_run(smoothed, s, &test, recipe.steps, false);
            Read {
                excess: test.excess(&run.model, &run.params),
                home: test.excess_by_reach(&run.model, &run.params)[0],
                top1: test.top1(&run.model, &run.params),
            }
        })
        .collect()
}
// ANCHOR_END: trained

/// The smoothed runs beside the grid's plain ones (`plain`, one per seed).
pub fn trained(
    recipe: Recipe,
    plain: &[&Outcome],
    seeds: &[u64],
    test_n: usize,
    exact: f64,
    nb: &mut Notebook,
) {
    nb.demo("smoothing_trained", "L6 05.2 · Label smoothing, trained: its cost measured");
    let runs = train_smoothed(recipe, seeds, test_n);
    say!(
        nb,
        "{}, {} steps, seeds {seeds:?}; test excess in mnats/token, read without",
        warmup::label(&recipe),
        recipe.steps
    );
    say!(
        nb,
        "smoothing (differences before rounding); top: the share of test positions whose most likely token is the grammar's"
    );
    say!(
        nb,
        "{:<6} {:>7} {:>9} {:>6} {:>13} {:>10} {:>12}",
        "seed",
        "plain",
        "ε = 0.1",
        "cost",
        "of it: home",
        "plain top",
        "ε = 0.1 top"
    );
    let mut costs = Vec::new();
    for ((i, &s), r) in seeds.iter().enumerate().zip(&runs) {
        let p = plain[i];
        let e = *p.excess.last().expect("a final excess");
        costs.push(r.excess - e);
        let a = nb.value(&format!("trained_plain_seed{i}"), show::num(e, 0));
        let b = nb.value(&format!("trained_smoothed_seed{i}"), show::num(r.excess, 0));
        let c = nb.value(&format!("trained_cost_seed{i}"), show::num(r.excess - e, 0));
        let h = nb.value(&format!("trained_home_seed{i}"), show::num(r.home - p.reach[0], 0));
        let t0 = nb.value(&format!("trained_plain_top_seed{i}"), show::num(p.top1, 4));
        let t1 = nb.value(&format!("trained_smoothed_top_seed{i}"), show::num(r.top1, 4));
        say!(nb, "{s:<6} {a:>7} {b:>9} {c:>6} {h:>13} {t0:>10} {t1:>12}");
    }
    let lo = costs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = costs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let lo = nb.value("trained_cost_min", show::num(lo, 0));
    let hi = nb.value("trained_cost_max", show::num(hi, 0));
    say!(
        nb,
        "cost of smoothing, trained: {lo}–{hi}; exact, for a perfect model: {}",
        show::num(exact, 1)
    );
}
