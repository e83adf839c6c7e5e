//! Lecture 17 demo 05.3 — what the trained models attend to, read on new
//! sequences with the right target fed in (teacher forcing): the
//! Transformer's cross-attention, decoder self-attention and encoder
//! self-attention, head by head; and the GRU's attention.

use autograd::data::{Reversal, reversal};
use autograd::nn::{GruSeq2Seq, Seq2Seq};
use autograd::{Params, Tape, Weights};
use faer::Mat;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::svg::Heatmap;
use record::{Notebook, say, show};

use crate::experiment::{Run, Setup};
use crate::models::{Kind, Model};
use crate::stats::summary;

/// `−Σ p ln p` of one row.
fn entropy(row: impl Iterator<Item = f64>) -> f64 {
    row.filter(|&p| p > 0.0).map(|p| -p * libm::log(p)).sum()
}

/// Head `i`'s weights averaged over the `n` sequences, as f64.
fn mean_head(tape: &Tape<f32>, w: &Weights, n: usize, i: usize) -> Mat<f64> {
    let mut sum: Option<Mat<f64>> = None;
    for b in 0..n {
        let h = w.head(tape, b, i);
        let h = Mat::from_fn(h.nrows(), h.ncols(), |r, c| f64::from(h[(r, c)]));
        sum = Some(match sum {
            None => h,
            Some(s) => s + h,
        });
    }
    let s = sum.expect("at least one sequence");
    Mat::from_fn(s.nrows(), s.ncols(), |r, c| s[(r, c)] / n as f64)
}

/// Mean entropy of the rows of head `i` over the `n` sequences.
fn mean_entropy(tape: &Tape<f32>, w: &Weights, n: usize, i: usize) -> f64 {
    let mut total = 0.0;
    let mut rows = 0;
    for b in 0..n {
        let h = w.head(tape, b, i);
        for r in 0..h.nrows() {
            total += entropy((0..h.ncols()).map(|c| f64::from(h[(r, c)])));
            rows += 1;
        }
    }
    total / rows as f64
}

// ANCHOR: read_attention
/// What one head does, averaged over the sequences.
pub struct Reading {
    /// (L, L): query position × key position
    pub map: Mat<f64>,
    /// mean weight on the mirror key L − 1 − t, and on its two neighbours
    pub mirror: f64,
    pub near: f64,
    /// mean entropy of a row
    pub entropy: f64,
    /// mean weight on key 0 (BOS, in the decoder) over rows 1.., and all rows
    pub bos: f64,
    pub bos_all: f64,
}

pub fn read_head(tape: &Tape<f32>, w: &Weights, n: usize, i: usize) -> Reading {
    let map = mean_head(tape, w, n, i); // (L, L)
    let len = map.nrows();
    let mirror = (0..len).map(|t| map[(t, len - 1 - t)]).sum::<f64>() / len as f64;
    let near = (0..len)
        .map(|t| {
            let s = len - 1 - t;
            (if s > 0 { map[(t, s - 1)] } else { 0.0 })
                + (if s + 1 < len { map[(t, s + 1)] } else { 0.0 })
        })
        .sum::<f64>()
        / len as f64;
    // in the decoder, row 0 can only see BOS; the rows after it choose to
    let rest = (1..len).map(|t| map[(t, 0)]).sum::<f64>();
    let (bos, bos_all) = (rest / (len - 1) as f64, (rest + map[(0, 0)]) / len as f64);
    Reading { entropy: mean_entropy(tape, w, n, i), map, mirror, near, bos, bos_all }
}

/// Every head of the Transformer's three attentions, on `data` (n
/// sequences) with the right target fed in.
pub struct TransformerReading {
    pub cross: Vec<Reading>,
    pub self_attn: Vec<Reading>,
    pub encoder: Vec<Reading>,
}

pub fn read_transformer(
    m: &Seq2Seq,
    params: &Params<f32>,
    data: &Reversal,
    n: usize,
) -> TransformerReading {
    let tape = Tape::new(params);
    let out = m.forward(&tape, &data.src, &data.tgt_in, n).expect("positions fit");
    let heads = |w: &Weights| (0..m.cfg.heads).map(|i| read_head(&tape, w, n, i)).collect();
    let layer = &out.decoder_weights[0];
    TransformerReading {
        cross: heads(&layer.cross_attn),
        self_attn: heads(&layer.self_attn),
        encoder: heads(&out.encoder_weights[0]),
    }
}
// ANCHOR_END: read_attention

// ANCHOR: gru_attention
/// Where the GRU's largest attention weight falls: counts on the mirror
/// state L − 1 − t and on the state after it, at step 0 and at the steps
/// after it (at step 0 the mirror is the last state, and nothing comes
/// after it).
pub struct GruReading {
    pub map: Mat<f64>,
    pub entropy: f64,
    pub mirror: [usize; 2],
    pub next: [usize; 2],
}

pub fn read_gru(m: &GruSeq2Seq, params: &Params<f32>, data: &Reversal, n: usize) -> GruReading {
    let tape = Tape::new(params);
    let (_, weights) = m.forward(&tape, &data.src, &data.tgt_in, n);
    let w = weights.expect("the GRU with attention");
    let (mut mirror, mut next) = ([0, 0], [0, 0]);
    for b in 0..n {
        let h = w.head(&tape, b, 0); // (L, L): decoder step × encoder state
        let len = h.nrows();
        for t in 0..len {
            let best = blocks::argmax((0..len).map(|s| f64::from(h[(t, s)]))).expect("keys");
            let s = len - 1 - t; // the state that has just read the symbol to copy
            mirror[usize::from(t > 0)] += usize::from(best == s);
            next[usize::from(t > 0)] += usize::from(best == s + 1);
        }
    }
    GruReading {
        map: mean_head(&tape, &w, n, 0),
        entropy: mean_entropy(&tape, &w, n, 0),
        mirror,
        next,
    }
}
// ANCHOR_END: gru_attention

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

pub fn what_it_learned(setup: &Setup, runs: &[Run], probe: usize, nb: &mut Notebook) {
    nb.demo("what_it_learned", "L17 05.3 · What the attention learned");
    // the lecture reads L = 16; a smaller setup reads the length nearest it
    let len = *setup.lengths.iter().min_by_key(|&&l| l.abs_diff(16)).expect("a length");
    let seed = setup.seeds[0];
    let data = reversal(&mut Pcg64Mcg::seed_from_u64(seed + 300), probe, len, 10);
    nb.value("probe_n", probe.to_string());
    nb.value("probe_len", len.to_string());
    say!(
        nb,
        "L = {len}, seed {seed}, {probe} new sequences, the right target fed in (teacher forcing)"
    );
    let uniform = nb.value("uniform_entropy", show::num(libm::log(len as f64), 2));
    say!(
        nb,
        "output t should fetch source position L − 1 − t (its mirror); ln {len} = {uniform} is uniform"
    );
    if let Some(Run { model: Model::Transformer(m), params, .. }) =
        first(runs, setup, Kind::Transformer, len)
    {
        say_transformer(&read_transformer(m, params, &data, probe), len, nb);
        // does any seed grow a head that parks on BOS?
        let (mut most, mut most_all) = (Vec::new(), Vec::new());
        for r in runs.iter().filter(|r| r.kind == Kind::Transformer && r.len == len) {
            let Model::Transformer(m) = &r.model else { continue };
            let own = read_transformer(m, &r.params, &data, probe).self_attn;
            let best = own.iter().map(|h| h.bos).fold(0.0, f64::max);
            let all = own.iter().map(|h| h.bos_all).fold(0.0, f64::max);
            most.push(best);
            most_all.push(all);
            let best = nb.value(&format!("bos_max_seed{}", r.seed), show::num(best, 3));
            let all = nb.value(&format!("bos_all_max_seed{}", r.seed), show::num(all, 3));
            say!(
                nb,
                "  seed {}: the head that looks at BOS most gives it {best} (all rows: {all})",
                r.seed
            );
        }
        let (lo, hi) = (summary(&most), summary(&most_all));
        let lo_shown = nb.value("bos_most_min", show::num(lo.min, 3));
        let hi_shown = nb.value("bos_most_max", show::num(lo.max, 3));
        let all_shown = nb.value("bos_all_most_max", show::num(hi.max, 3));
        say!(nb, "  over the seeds: {lo_shown}–{hi_shown} (all rows: at most {all_shown})");
    } else {
        say!(nb, "(no Transformer run at L = {len} with seed {seed} in this setup)");
    }
    if let Some(Run { model: Model::Gru(m), params, .. }) =
        first(runs, setup, Kind::GruAttention, len)
    {
        say_gru(&read_gru(m, params, &data, probe), probe, len, nb);
    } else {
        say!(nb, "(no GRU + attention run at L = {len} with seed {seed} in this setup)");
    }
}

fn say_transformer(read: &TransformerReading, len: usize, nb: &mut Notebook) {
    say!(nb, "Transformer, cross-attention (decoder queries, encoder keys):");
    for (i, h) in read.cross.iter().enumerate() {
        let mirror = nb.value(&format!("cross_mirror_h{i}"), show::num(h.mirror, 3));
        let near = nb.value(&format!("cross_near_h{i}"), show::num(h.near, 3));
        let ent = nb.value(&format!("cross_entropy_h{i}"), show::num(h.entropy, 2));
        say!(
            nb,
            "  head {i}: weight on the mirror {mirror}, on its two neighbours {near}, entropy {ent}"
        );
        let cols = format!("head {i} · source position →");
        nb.figure(&format!("cross_head_{i}"), heatmap(&h.map, "output t ↓", &cols));
    }
    say!(nb, "Transformer, decoder self-attention (causal; position 0 holds BOS):");
    for (i, h) in read.self_attn.iter().enumerate() {
        let bos = nb.value(&format!("bos_h{i}"), show::num(h.bos, 3));
        let all = nb.value(&format!("bos_all_h{i}"), show::num(h.bos_all, 3));
        let ent = nb.value(&format!("dec_entropy_h{i}"), show::num(h.entropy, 2));
        say!(nb, "  head {i}: weight on BOS (rows 1..) {bos}, (all rows) {all}, entropy {ent}");
    }
    let ents: Vec<f64> = read.self_attn.iter().map(|h| h.entropy).collect();
    let lo = ents.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = ents.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    nb.value("dec_entropy_min", show::num(lo, 2));
    nb.value("dec_entropy_max", show::num(hi, 2));
    let causal_uniform = (0..len).map(|t| libm::log((t + 1) as f64)).sum::<f64>() / len as f64;
    let causal_uniform = nb.value("causal_uniform_entropy", show::num(causal_uniform, 2));
    say!(nb, "  (uniform over the visible positions: entropy {causal_uniform} on average)");
    say!(nb, "Transformer, encoder self-attention:");
    let ents: Vec<String> = read
        .encoder
        .iter()
        .enumerate()
        .map(|(i, h)| nb.value(&format!("enc_entropy_h{i}"), show::num(h.entropy, 2)))
        .collect();
    say!(nb, "  entropy by head {}", ents.join(", "));
    let ents: Vec<f64> = read.encoder.iter().map(|h| h.entropy).collect();
    let lo = ents.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = ents.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    nb.value("enc_entropy_min", show::num(lo, 2));
    nb.value("enc_entropy_max", show::num(hi, 2));
    say!(nb, "each seed's decoder self-attention:");
}

fn say_gru(read: &GruReading, probe: usize, len: usize, nb: &mut Notebook) {
    let share = |n: usize, rows: usize| show::num(100.0 * n as f64 / rows as f64, 1);
    let (all, later) = (probe * len, probe * (len - 1));
    let ent = nb.value("gru_entropy", show::num(read.entropy, 2));
    let m = nb.value("gru_argmax_mirror", share(read.mirror[0] + read.mirror[1], all));
    let n = nb.value("gru_argmax_next", share(read.next[0] + read.next[1], all));
    let ceiling = nb.value("gru_next_ceiling", share(later, all));
    say!(nb, "GRU + attention: entropy {ent}; where its largest weight sits, share of all steps:");
    say!(nb, "  on the mirror state {m}%, on the state after it {n}% (at most {ceiling}%:");
    say!(nb, "  at t = 0 the mirror is the last state, and nothing comes after it)");
    let m0 = nb.value("gru_argmax_mirror_t0", share(read.mirror[0], probe));
    let m1 = nb.value("gru_argmax_mirror_later", share(read.mirror[1], later));
    let n1 = nb.value("gru_argmax_next_later", share(read.next[1], later));
    say!(nb, "  step t = 0: on the mirror {m0}%; steps t ≥ 1: on the mirror {m1}%, after it {n1}%");
    nb.figure("gru_attention", heatmap(&read.map, "output t ↓", "encoder state →"));
}
