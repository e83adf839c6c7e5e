//! Lecture 17 demo 05.3 — what the trained models attend to, read on new
//! sequences with the right target fed in (teacher forcing): the
//! Transformer's cross-attention, decoder self-attention and encoder
//! self-attention, head by head; and the GRU's attention.

use autograd::data::reversal;
use autograd::nn::GruSeq2Seq;
use autograd::{Tape, Weights};
use faer::Mat;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::svg::Heatmap;
use record::{Notebook, say, show};

use crate::experiment::{Run, Setup};
use crate::models::{Kind, Model};

/// `−Σ p ln p` of one row.
fn entropy(row: impl Iterator<Item = f64>) -> f64 {
    row.filter(|&p| p > 0.0).map(|p| -p * libm::log(p)).sum()
}

/// Head `i`'s weights averaged over the `batch` sequences, as f64.
fn mean_head(tape: &Tape<f32>, w: &Weights, batch: usize, i: usize) -> Mat<f64> {
    let mut sum: Option<Mat<f64>> = None;
    for b in 0..batch {
        let h = w.head(tape, b, i);
        let h = Mat::from_fn(h.nrows(), h.ncols(), |r, c| f64::from(h[(r, c)]));
        sum = Some(match sum {
            None => h,
            Some(s) => s + h,
        });
    }
    let s = sum.expect("at least one sequence");
    Mat::from_fn(s.nrows(), s.ncols(), |r, c| s[(r, c)] / batch as f64)
}

/// Mean entropy of the rows of head `i` over the `batch` sequences.
fn mean_entropy(tape: &Tape<f32>, w: &Weights, batch: usize, i: usize) -> f64 {
    let mut total = 0.0;
    let mut rows = 0;
    for b in 0..batch {
        let h = w.head(tape, b, i);
        for r in 0..h.nrows() {
            total += entropy((0..h.ncols()).map(|c| f64::from(h[(r, c)])));
            rows += 1;
        }
    }
    total / rows as f64
}

fn labels(n: usize) -> Vec<String> {
    (0..n).map(|i| i.to_string()).collect()
}

fn heatmap(m: &Mat<f64>, rows: &str, cols: &str) -> String {
    let (r, c) = (labels(m.nrows()), labels(m.ncols()));
    let (r, c): (Vec<&str>, Vec<&str>) =
        (r.iter().map(String::as_str).collect(), c.iter().map(String::as_str).collect());
    let values: Vec<Vec<f64>> =
        (0..m.nrows()).map(|i| (0..m.ncols()).map(|j| m[(i, j)]).collect()).collect();
    Heatmap {
        row_labels: &r,
        col_labels: &c,
        values: &values,
        row_axis: rows,
        col_axis: cols,
        decimals: 1,
        max: 1.0,
        legend: "weight",
    }
    .to_svg()
}

/// The run of `kind` at `len` with the first seed, if the setup has it.
fn first<'a>(runs: &'a [Run], setup: &Setup, kind: Kind, len: usize) -> Option<&'a Run> {
    runs.iter().find(|r| r.kind == kind && r.len == len && r.seed == setup.seeds[0])
}

// ANCHOR: what_it_learned
pub fn what_it_learned(setup: &Setup, runs: &[Run], probe: usize, nb: &mut Notebook) {
    nb.demo("what_it_learned", "L17 05.3 · What the attention learned");
    // the lecture reads L = 16; a smaller setup reads the length nearest it
    let len = *setup.lengths.iter().min_by_key(|&&l| l.abs_diff(16)).expect("a length");
    let seed = setup.seeds[0];
    let data = reversal(&mut Pcg64Mcg::seed_from_u64(seed + 300), probe, len, 10);
    say!(
        nb,
        "L = {len}, seed {seed}, {probe} new sequences, the right target fed in (teacher forcing)"
    );
    say!(
        nb,
        "output t should fetch source position L − 1 − t (its mirror); ln {len} = {} is uniform",
        show::num(libm::log(len as f64), 2)
    );
    if let Some(Run { model: Model::Transformer(m), params, .. }) =
        first(runs, setup, Kind::Transformer, len)
    {
        let tape = Tape::new(params);
        let out = m.forward(&tape, &data.src, &data.tgt_in, probe).expect("positions fit");
        let (cross, own) = (&out.decoder_weights[0].cross_attn, &out.decoder_weights[0].self_attn);
        let heads = m.cfg.heads;
        say!(nb, "Transformer, cross-attention (decoder queries, encoder keys):");
        for i in 0..heads {
            let w = mean_head(&tape, cross, probe, i); // (L, L), mean over the sequences
            let mirror = (0..len).map(|t| w[(t, len - 1 - t)]).sum::<f64>() / len as f64;
            let near = (0..len)
                .map(|t| {
                    let s = len - 1 - t;
                    (if s > 0 { w[(t, s - 1)] } else { 0.0 })
                        + (if s + 1 < len { w[(t, s + 1)] } else { 0.0 })
                })
                .sum::<f64>()
                / len as f64;
            let mirror = nb.value(&format!("cross_mirror_h{i}"), show::num(mirror, 3));
            let near = nb.value(&format!("cross_near_h{i}"), show::num(near, 3));
            let ent = nb.value(
                &format!("cross_entropy_h{i}"),
                show::num(mean_entropy(&tape, cross, probe, i), 2),
            );
            say!(
                nb,
                "  head {i}: weight on the mirror {mirror}, on its two neighbours {near}, entropy {ent}"
            );
            nb.figure(
                &format!("cross_head_{i}"),
                heatmap(&w, "output t ↓", &format!("head {i} · source position →")),
            );
        }
        say!(nb, "Transformer, decoder self-attention (causal; position 0 holds BOS):");
        let causal_uniform = (0..len).map(|t| libm::log((t + 1) as f64)).sum::<f64>() / len as f64;
        let mut ents = Vec::new();
        for i in 0..heads {
            let w = mean_head(&tape, own, probe, i);
            // row 0 can only look at BOS; the rows after it choose to
            let on_bos = (1..len).map(|t| w[(t, 0)]).sum::<f64>() / (len - 1) as f64;
            let on_bos = nb.value(&format!("bos_h{i}"), show::num(on_bos, 3));
            // the same average with row 0 (always 1 on BOS) counted in
            let all = (0..len).map(|t| w[(t, 0)]).sum::<f64>() / len as f64;
            let all = nb.value(&format!("bos_all_h{i}"), show::num(all, 3));
            ents.push(mean_entropy(&tape, own, probe, i));
            let ent = nb.value(&format!("dec_entropy_h{i}"), show::num(ents[i], 2));
            say!(
                nb,
                "  head {i}: weight on BOS (rows 1..) {on_bos}, (all rows) {all}, entropy {ent}"
            );
        }
        let (_, lo, hi) = crate::experiment::spread(&ents);
        nb.value("dec_entropy_min", show::num(lo, 2));
        nb.value("dec_entropy_max", show::num(hi, 2));
        let causal_uniform = nb.value("causal_uniform_entropy", show::num(causal_uniform, 2));
        say!(nb, "  (uniform over the visible positions: entropy {causal_uniform} on average)");
        // does any seed grow a head that parks on BOS?
        for r in runs.iter().filter(|r| r.kind == Kind::Transformer && r.len == len) {
            let Model::Transformer(m) = &r.model else { continue };
            let tape = Tape::new(&r.params);
            let out = m.forward(&tape, &data.src, &data.tgt_in, probe).expect("positions fit");
            let own = &out.decoder_weights[0].self_attn;
            // (rows 1.., all rows) of head i
            let on_bos = |i: usize| {
                let w = mean_head(&tape, own, probe, i);
                let rest = (1..len).map(|t| w[(t, 0)]).sum::<f64>();
                (rest / (len - 1) as f64, (rest + w[(0, 0)]) / len as f64)
            };
            let (best, all) = (0..heads)
                .map(on_bos)
                .fold((0.0, 0.0), |(b, a), (x, y)| (f64::max(b, x), f64::max(a, y)));
            let best = nb.value(&format!("bos_max_seed{}", r.seed), show::num(best, 3));
            let all = nb.value(&format!("bos_all_max_seed{}", r.seed), show::num(all, 3));
            say!(
                nb,
                "  seed {}: the head that looks at BOS most gives it {best} (all rows: {all})",
                r.seed
            );
        }
        say!(nb, "Transformer, encoder self-attention:");
        let enc = &out.encoder_weights[0];
        let ents: Vec<String> = (0..heads)
            .map(|i| {
                nb.value(
                    &format!("enc_entropy_h{i}"),
                    show::num(mean_entropy(&tape, enc, probe, i), 2),
                )
            })
            .collect();
        nb.value("uniform_entropy", show::num(libm::log(len as f64), 2));
        say!(nb, "  entropy by head {}", ents.join(", "));
    } else {
        say!(nb, "(no Transformer run at L = {len} with seed {seed} in this setup)");
    }
    if let Some(Run { model: Model::Gru(m), params, .. }) =
        first(runs, setup, Kind::GruAttention, len)
    {
        gru_attention(m, params, &data, probe, len, nb);
    } else {
        say!(nb, "(no GRU + attention run at L = {len} with seed {seed} in this setup)");
    }
}
// ANCHOR_END: what_it_learned

// ANCHOR: gru_attention
fn gru_attention(
    m: &GruSeq2Seq,
    params: &autograd::Params<f32>,
    data: &autograd::data::Reversal,
    probe: usize,
    len: usize,
    nb: &mut Notebook,
) {
    let tape = Tape::new(params);
    let (_, weights) = m.forward(&tape, &data.src, &data.tgt_in, probe);
    let w = weights.expect("the GRU with attention");
    // counts at step t = 0 and at the steps after it: at t = 0 the mirror
    // is the last state, and no state comes after it
    let (mut mirror, mut next) = ([0, 0], [0, 0]);
    for b in 0..probe {
        let h = w.head(&tape, b, 0); // (L, L): decoder step × encoder state
        for t in 0..len {
            let best = blocks::argmax((0..len).map(|s| f64::from(h[(t, s)]))).expect("keys");
            let s = len - 1 - t; // the state that has just read the symbol to copy
            mirror[usize::from(t > 0)] += usize::from(best == s);
            next[usize::from(t > 0)] += usize::from(best == s + 1);
        }
    }
    let share = |n: usize, rows: usize| show::num(100.0 * n as f64 / rows as f64, 1);
    let (all, later) = (probe * len, probe * (len - 1));
    let ent = nb.value("gru_entropy", show::num(mean_entropy(&tape, &w, probe, 0), 2));
    let m = nb.value("gru_argmax_mirror", share(mirror[0] + mirror[1], all));
    let n = nb.value("gru_argmax_next", share(next[0] + next[1], all));
    let ceiling = nb.value("gru_next_ceiling", share(later, all));
    say!(nb, "GRU + attention: entropy {ent}; where its largest weight sits, share of all steps:");
    say!(nb, "  on the mirror state {m}%, on the state after it {n}% (at most {ceiling}%:");
    say!(nb, "  at t = 0 the mirror is the last state, and nothing comes after it)");
    let m0 = nb.value("gru_argmax_mirror_t0", share(mirror[0], probe));
    let m1 = nb.value("gru_argmax_mirror_later", share(mirror[1], later));
    let n1 = nb.value("gru_argmax_next_later", share(next[1], later));
    say!(nb, "  step t = 0: on the mirror {m0}%; steps t ≥ 1: on the mirror {m1}%, after it {n1}%");
    nb.figure(
        "gru_attention",
        heatmap(&mean_head(&tape, &w, probe, 0), "output t ↓", "encoder state →"),
    );
}
// ANCHOR_END: gru_attention
