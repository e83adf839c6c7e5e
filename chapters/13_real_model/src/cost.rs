//! What one forward pass costs: the time (masked in snapshots) beside the
//! parameters and the FLOPs of its products (chapter 11's formula).

use std::time::Instant;

use record::{Notebook, say, show};

use crate::bert::{Bert, Config};
use crate::matching::all_real;
use crate::wordpiece::WordPiece;

// ANCHOR: flops
/// FLOPs of the products of one forward pass over `s` tokens: per layer
/// the four projections `2·s·4d²`, the network `2·s·2·d·d_ff`, and
/// attention's two products `2·2·s²·d`.
pub fn flops(cfg: Config, s: usize) -> usize {
    let (d, f) = (cfg.d_model, cfg.d_ff);
    cfg.layers * (2 * s * 4 * d * d + 2 * s * 2 * d * f + 4 * s * s * d)
}
// ANCHOR_END: flops

pub fn cost(
    bert: &Bert,
    vocab: &WordPiece,
    sentence: &str,
    params: usize,
    repeats: usize,
    nb: &mut Notebook,
) {
    nb.demo("cost", "The cost of one forward pass");
    let ids = vocab.encode(sentence);
    let real = all_real(&ids);
    let total = flops(bert.cfg, ids.len());
    let tokens = nb.value("first_tokens", ids.len().to_string());
    let f = nb.value("forward_flops", show::grouped(total));
    let per_token = nb.value("flops_per_token", show::grouped(total / ids.len()));
    say!(nb, "\"{sentence}\": {tokens} tokens, {f} FLOPs in products, {per_token} per token");
    let n = nb.value("params_in_products", show::grouped(params));
    let two_n = nb.value("two_n", show::grouped(2 * params));
    say!(
        nb,
        "the layers' weight matrices hold N = {n} numbers, each one multiply-add per token: 2N = {two_n}"
    );
    bert.sentence_embedding(&ids, &real); // once, untimed
    let mut times: Vec<f64> = (0..repeats)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(bert.sentence_embedding(&ids, &real));
            start.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    let speed = nb.measured(format!("{:.2}", total as f64 / median / 1e9));
    let median = nb.timing(std::time::Duration::from_secs_f64(median));
    say!(
        nb,
        "time of one forward pass in f64 (blocks, one sentence, one thread), median of {repeats}: {median}, {speed} GFLOP/s"
    );
}
