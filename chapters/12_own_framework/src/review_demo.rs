//! Lecture 6 §9.3 (script 07) — the review set, three models trained on it
//! over several seeds, their accuracy on each kind of sentence, and where
//! the trained Transformer's attention goes in a contrast sentence.

use faer::Mat;
use rayon::prelude::*;
use record::svg::{Heatmap, LogPlot, Series};
use record::{Notebook, say, show};

use crate::classify::{Model, Setup, Trained, test_sets, train};
use crate::reviews::{self, Kind, Review, Training, swapped};

pub fn review_set(nb: &mut Notebook) {
    nb.demo("review_set", "L6 §9.3 · The review set: plain, negated and contrasting sentences");
    let words = reviews::vocabulary();
    let data = Training::new();
    let tests = test_sets();
    say!(nb, "vocabulary: {} words — {}", words.len(), words.join(" "));
    nb.value("vocab_size", words.len().to_string());
    let mix: Vec<String> = data.mix.iter().map(u32::to_string).collect();
    let mix = nb.value("mix", mix.join(" : "));
    say!(nb, "kind        example                                        label     train  test");
    let examples =
        [reviews::plain(0, 1), reviews::negation(3, 13), reviews::contrast((0, 1), (1, 10))];
    for (k, kind) in Kind::ALL.iter().enumerate() {
        let e = &examples[k];
        let label = if e.label == 1 { "positive" } else { "negative" };
        let (train_n, test_n) = (data.by_kind[k].len(), tests[k].len());
        nb.value(&format!("train_{}", kind.name()), show::grouped(train_n));
        nb.value(&format!("test_{}", kind.name()), show::grouped(test_n));
        say!(
            nb,
            "{:<11} {:<46} {label:<9} {:>5}  {:>4}",
            kind.name(),
            reviews::text(&e.ids),
            show::grouped(train_n),
            test_n
        );
    }
    say!(
        nb,
        "a batch draws plain, negation and contrast in the mix {mix}; test sentences use only held-out"
    );
    say!(
        nb,
        "(subject, adjective) pairs, {} of the {}",
        count_held_out(),
        reviews::SUBJECTS.len() * 16
    );
    let c = reviews::contrast((0, 1), (1, 10));
    say!(
        nb,
        "a contrast and its swap: \"{}\" ({}) / \"{}\" ({})",
        reviews::text(&c.ids),
        c.label,
        reviews::text(&swapped(&c).ids),
        swapped(&c).label
    );
}

fn count_held_out() -> usize {
    (0..reviews::SUBJECTS.len())
        .flat_map(|s| (0..16).map(move |a| (s, a)))
        .filter(|&(s, a)| reviews::held_out(s, a))
        .count()
}

/// Every model trained with every seed, in order: `runs[m][s]`.
pub fn train_all(setup: Setup, seeds: &[u64], data: &Training) -> Vec<Vec<Trained>> {
    let jobs: Vec<(Model, u64)> =
        Model::ALL.iter().flat_map(|&m| seeds.iter().map(move |&s| (m, s))).collect();
    let mut done: Vec<Trained> = jobs.par_iter().map(|&(m, s)| train(m, setup, data, s)).collect();
    let mut runs = Vec::new();
    for _ in Model::ALL {
        runs.push(done.drain(..seeds.len()).collect());
    }
    runs
}

// ANCHOR: swap_gap
/// The largest |difference| between a model's class scores for each
/// contrast sentence and for the same sentence with its clauses swapped.
pub fn swap_gap(t: &Trained, contrasts: &[Review]) -> f64 {
    let swaps: Vec<Review> = contrasts.iter().map(swapped).collect();
    let (a, b) = (scores(t, contrasts), scores(t, &swaps));
    a.iter().zip(&b).fold(0.0, |m, (x, y)| blocks::worse(m, (x - y).abs()))
}

/// Both class scores of every review, one after another.
pub fn scores(t: &Trained, reviews: &[Review]) -> Vec<f64> {
    let (ids, _, _) = reviews::padded(reviews);
    let tape = autograd::Tape::new(&t.params);
    let z = t.net.logits(&tape, &ids, reviews.len());
    let z = z.value();
    (0..z.nrows()).flat_map(|i| [f64::from(z[(i, 0)]), f64::from(z[(i, 1)])]).collect()
}
// ANCHOR_END: swap_gap

fn spread(xs: &[f64]) -> (f64, f64, f64) {
    let mean = xs.iter().sum::<f64>() / xs.len() as f64;
    let min = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (mean, min, max)
}

pub fn review_classifier(runs: &[Vec<Trained>], setup: Setup, seeds: &[u64], nb: &mut Notebook) {
    nb.demo(
        "review_classifier",
        "L6 07 · Bag of words, and the Transformer without and with positions",
    );
    let tests = test_sets();
    let n = nb.value("seeds_n", seeds.len().to_string());
    say!(
        nb,
        "{} steps of Adam (lr {}), batches of {}, seeds {}–{} ({n} per model); accuracy on the test sentences",
        setup.steps,
        setup.lr,
        setup.batch,
        seeds[0],
        seeds[seeds.len() - 1]
    );
    nb.value("steps", setup.steps.to_string());
    say!(
        nb,
        "model                            plain                negation             contrast             last-50 loss"
    );
    for (m, model) in Model::ALL.iter().enumerate() {
        let mut cells = Vec::new();
        for (k, kind) in Kind::ALL.iter().enumerate() {
            let acc: Vec<f64> = runs[m].iter().map(|t| t.accuracy(&tests[k])).collect();
            let (mean, min, max) = spread(&acc);
            let tag = format!("acc_{}_{}", model.tag(), kind.name());
            let mean = nb.value(&format!("{tag}_mean"), show::num(mean, 3));
            let (min, max) = (
                nb.value(&format!("{tag}_min"), show::num(min, 3)),
                nb.value(&format!("{tag}_max"), show::num(max, 3)),
            );
            cells.push(format!("{mean} ({min}–{max})"));
        }
        let losses: Vec<f64> = runs[m]
            .iter()
            .map(|t| {
                let tail = &t.losses[t.losses.len().saturating_sub(50)..];
                tail.iter().sum::<f64>() / tail.len() as f64
            })
            .collect();
        let (loss, _, _) = spread(&losses);
        let loss = nb.value(&format!("loss_{}", model.tag()), show::num(loss, 4));
        say!(nb, "{:<32} {:<20} {:<20} {:<20} {loss}", model.name(), cells[0], cells[1], cells[2]);
    }
    say!(
        nb,
        "(mean over seeds, then the lowest and highest seed; test sets of {}, {} and {} sentences)",
        tests[0].len(),
        tests[1].len(),
        tests[2].len()
    );
    let contrasts = &tests[2];
    for (m, model) in Model::ALL.iter().enumerate() {
        let gap = runs[m].iter().fold(0.0, |g, t| blocks::worse(g, swap_gap(t, contrasts)));
        let gap = nb.value(&format!("swap_gap_{}", model.tag()), show::sci(gap, 1));
        say!(
            nb,
            "{:<32} largest |score(sentence) − score(clauses swapped)| over the contrast test set: {gap}",
            model.name()
        );
    }
    let floor = nb.value("quarter_ln2", show::num(std::f64::consts::LN_2 / 4.0, 4));
    say!(
        nb,
        "a model that can only guess on the contrasts, a quarter of every batch, has a loss of at least ¼·ln 2 = {floor}"
    );
    nb.figure("review_losses", loss_curves(runs));
}

/// Each model's training loss, averaged over the seeds and over windows of
/// 20 steps, with the floor ¼·ln 2 of a model that must guess on contrasts.
fn loss_curves(runs: &[Vec<Trained>]) -> String {
    let colours = ["#7f7f7f", "#d62728", "#1f77b4"];
    let steps = runs[0][0].losses.len();
    let window = 20.min(steps);
    let mut series: Vec<Series> = Model::ALL
        .iter()
        .enumerate()
        .map(|(m, model)| {
            let mean: Vec<f64> = (0..steps)
                .map(|t| runs[m].iter().map(|r| r.losses[t]).sum::<f64>() / runs[m].len() as f64)
                .collect();
            let points = (window..=steps)
                .step_by(10)
                .map(|end| {
                    (end as f64, mean[end - window..end].iter().sum::<f64>() / window as f64)
                })
                .collect();
            Series { label: model.name(), colour: colours[m], points }
        })
        .collect();
    let floor = std::f64::consts::LN_2 / 4.0;
    series.push(Series {
        label: "¼·ln 2",
        colour: "#2ca02c",
        points: vec![(window as f64, floor), (steps as f64, floor)],
    });
    LogPlot {
        series: &series,
        x_label: "training step (mean of the last 20)",
        y_label: "cross-entropy, mean over seeds",
    }
    .to_svg()
}

// ANCHOR: attention_received
/// How much attention each position of the contrast sentences receives:
/// the weights averaged over heads and over the queries, then over the
/// sentences — one number per position, summing to 1.
pub fn attention_received(t: &Trained, contrasts: &[Review]) -> Vec<f64> {
    let len = contrasts[0].ids.len();
    let mut received = vec![0.0; len];
    for r in contrasts {
        let w = t.attention(r); // (S, S), heads averaged, row = query
        for (k, total) in received.iter_mut().enumerate() {
            *total += (0..len).map(|q| w[(q, k)]).sum::<f64>() / (len * contrasts.len()) as f64;
        }
    }
    received
}
// ANCHOR_END: attention_received

pub fn review_attention(runs: &[Vec<Trained>], seeds: &[u64], nb: &mut Notebook) {
    nb.demo(
        "review_attention",
        "L6 07 · Where the trained Transformer looks in a contrast sentence",
    );
    let with_positions = &runs[2];
    let contrasts = &test_sets()[2];
    let template = ["the", "S₁", "was", "A₁", "but", "the", "S₂", "was", "A₂"];
    say!(
        nb,
        "attention each position receives, averaged over heads, queries and the {} contrast test sentences",
        contrasts.len()
    );
    let uniform = nb.value("uniform_share", show::num(1.0 / template.len() as f64, 3));
    say!(nb, "(a query spreading its attention evenly gives each position {uniform})");
    say!(nb, "seed   {}", template.iter().map(|w| format!("{w:>6}")).collect::<String>());
    let mut rows = Vec::new();
    let mut firsts = Vec::new();
    let mut seconds = Vec::new();
    for (t, &seed) in with_positions.iter().zip(seeds) {
        let r = attention_received(t, contrasts);
        say!(nb, "{seed:>4}   {}", r.iter().map(|v| format!("{v:>6.3}")).collect::<String>());
        let mut order: Vec<usize> = (0..r.len()).collect();
        order.sort_by(|&a, &b| r[b].total_cmp(&r[a]));
        firsts.push(order[0]);
        seconds.push(order[1]);
        rows.push(r);
    }
    let count = |xs: &[usize], p: usize| xs.iter().filter(|&&x| x == p).count();
    let top = nb.value("top_position_a2", count(&firsts, 8).to_string());
    let second_but = nb.value("second_position_but", count(&seconds, 4).to_string());
    say!(
        nb,
        "A₂ (position 8) receives the most on {top} of {} seeds; \"but\" (position 4) is second on {second_but}",
        seeds.len()
    );
    let seconds: Vec<&str> = seconds.iter().map(|&p| template[p]).collect();
    say!(nb, "second place, seed by seed: {}", seconds.join(", "));
    let n = rows.len() as f64;
    let mean: Vec<f64> =
        (0..template.len()).map(|p| rows.iter().map(|r| r[p]).sum::<f64>() / n).collect();
    say!(nb, "mean   {}", mean.iter().map(|v| format!("{v:>6.3}")).collect::<String>());
    let mut order: Vec<usize> = (0..mean.len()).collect();
    order.sort_by(|&a, &b| mean[b].total_cmp(&mean[a]));
    let first = nb.value("top_position_mean", order[0].to_string());
    let second = nb.value("second_position_mean", order[1].to_string());
    say!(
        nb,
        "averaged over the seeds: most at position {first} ({}), then position {second} ({})",
        template[order[0]],
        template[order[1]]
    );
    let a2 = nb.value("a2_mean_share", show::num(mean[8], 3));
    let ratio = nb.value("a2_over_uniform", show::num(mean[8] * template.len() as f64, 1));
    say!(nb, "A₂ receives {a2} on average over the seeds, {ratio} times an even share");
    rows.push(mean);
    let mut labels: Vec<String> = seeds.iter().map(|s| format!("seed {s}")).collect();
    labels.push("mean".to_string());
    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
    let max = rows.iter().flatten().copied().fold(0.0, f64::max);
    nb.figure(
        "attention_received",
        Heatmap {
            row_labels: &labels,
            col_labels: &template,
            values: &rows,
            row_axis: "run",
            col_axis: "position →",
            decimals: 2,
            max: (max * 10.0).ceil() / 10.0,
            legend: "received",
        }
        .to_svg(),
    );
    // one sentence, seed 0: every query's weights
    let sentence = "the food was good but the service was bad";
    let r = Review {
        kind: Kind::Contrast,
        ids: reviews::parse(sentence).expect("known words"),
        label: 0,
    };
    let w: Mat<f64> = with_positions[0].attention(&r);
    let words: Vec<&str> = sentence.split(' ').collect();
    let values: Vec<Vec<f64>> =
        (0..w.nrows()).map(|q| (0..w.ncols()).map(|k| w[(q, k)]).collect()).collect();
    let top: Vec<&str> = (0..w.nrows())
        .map(|q| words[(0..w.ncols()).fold(0, |b, k| if w[(q, k)] > w[(q, b)] { k } else { b })])
        .collect();
    let on_bad = nb.value("bad_top_rows", top.iter().filter(|&&t| t == "bad").count().to_string());
    say!(nb, "seed {}, \"{sentence}\", heads averaged: each query's most-weighted key", seeds[0]);
    let queries = nb.value("sentence_tokens", words.len().to_string());
    say!(nb, "  {} ({on_bad} of {queries} queries look most at \"bad\")", top.join(", "));
    nb.figure(
        "contrast_weights",
        Heatmap {
            row_labels: &words,
            col_labels: &words,
            values: &values,
            row_axis: "query ↓",
            col_axis: "key →",
            decimals: 2,
            max: 1.0,
            legend: "weight",
        }
        .to_svg(),
    );
}
