//! Where the padding goes. A decoder-only model that generates for a batch
//! of prompts of different lengths pads them on the left, so that every
//! prompt ends in the same column and the next token goes in the next one.
//! With padding on the right, the look-ahead mask alone already hides every
//! padding key from every real query; on the left it does not, and the two
//! masks together leave the padding positions' own rows with no key at all.

use autograd::nn::{EncoderLayer, Norm, causal_mask, padding_mask};
use autograd::{Params, Tape};
use blocks::layers::sinusoidal;
use blocks::max_diff;
use faer::Mat;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

use crate::padding::PAD;
use crate::small::{D_FF, D_MODEL, HEADS, random, rows};

/// Two prompts of 3 and 5 tokens, padded to 5 on the left and on the right.
pub const LEFT: [usize; 10] = [PAD, PAD, 5, 9, 3, 4, 8, 2, 7, 6];
pub const RIGHT: [usize; 10] = [5, 9, 3, PAD, PAD, 4, 8, 2, 7, 6];
const LABELS: [&str; 5] = ["0", "1", "2", "3", "4"];

/// One decoder-only block (seed `seed`: an encoder layer's two sub-layers,
/// run under a causal mask) and a random embedding table of 10 tokens.
pub fn block(seed: u64) -> (EncoderLayer, Params<f64>, Mat<f64>) {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut params = Params::<f64>::new();
    let layer = EncoderLayer::new(&mut params, "block", D_MODEL, HEADS, D_FF, Norm::Post, &mut rng);
    let table = random(10, D_MODEL, &mut rng);
    (layer, params, table)
}

// ANCHOR: left_padding
/// The self-attention keep-mask of a batch (B·S, S): the look-ahead mask,
/// the padding mask, or both multiplied entry by entry.
pub fn decoder_keep(ids: &[usize], batch: usize, causal: bool, padding: bool) -> Mat<f64> {
    let len = ids.len() / batch;
    let look_ahead = causal_mask::<f64>(batch, len); // (B·S, S)
    let pads = padding_mask::<f64>(ids, batch, len, PAD); // (B·S, S)
    let on = |use_it: bool, m: f64| if use_it { m } else { 1.0 };
    Mat::from_fn(batch * len, len, |r, j| {
        on(causal, look_ahead[(r, j)]) * on(padding, pads[(r, j)])
    })
}

/// The batch's inputs (B·S, d_model): each token's embedding plus the
/// encoding of its place in its own prompt, counted from the prompt's first
/// real token (`by_prompt`), or of its column in the batch.
pub fn embed(table: &Mat<f64>, ids: &[usize], batch: usize, by_prompt: bool) -> Mat<f64> {
    let len = ids.len() / batch;
    let pe = sinusoidal(len, D_MODEL); // (S, d_model)
    let first = |b: usize| (0..len).find(|&c| ids[b * len + c] != PAD).unwrap_or(0);
    Mat::from_fn(ids.len(), D_MODEL, |r, j| {
        let (b, col) = (r / len, r % len);
        let place = if by_prompt { col.saturating_sub(first(b)) } else { col };
        table[(ids[r], j)] + pe[(place, j)]
    })
}

/// The block over the batch under `keep`; for each prompt, the largest
/// difference of its real rows from the prompt run alone (no padding,
/// look-ahead mask only).
pub fn prompts_vs_alone(
    (layer, params, table): &(EncoderLayer, Params<f64>, Mat<f64>),
    ids: &[usize],
    batch: usize,
    keep: &Mat<f64>,
    by_prompt: bool,
) -> Vec<f64> {
    let len = ids.len() / batch;
    let tape = Tape::new(params);
    let x = tape.input(embed(table, ids, batch, by_prompt)); // (B·S, d_model)
    let out = layer.forward(x, batch, Some(keep)).0.value().clone(); // (B·S, d_model)
    (0..batch)
        .map(|b| {
            let real: Vec<usize> = (b * len..(b + 1) * len).filter(|&r| ids[r] != PAD).collect();
            let prompt: Vec<usize> = real.iter().map(|&r| ids[r]).collect();
            let x = tape.input(embed(table, &prompt, 1, true)); // (n, d_model)
            let keep = causal_mask::<f64>(1, prompt.len());
            let alone = layer.forward(x, 1, Some(&keep)).0.value().clone(); // (n, d_model)
            let ours = Mat::from_fn(real.len(), D_MODEL, |i, j| out[(real[i], j)]);
            max_diff(&ours, &alone)
        })
        .collect()
}
// ANCHOR_END: left_padding

pub fn left_padding(seed: u64, nb: &mut Notebook) {
    nb.demo(
        "left_padding",
        "L17 04.6 · Padding on the right and on the left, under the look-ahead mask",
    );
    let block = block(seed);
    say!(
        nb,
        "a decoder-only block (self-attention and feed-forward, Post-LN, d_model {D_MODEL}, {HEADS} heads)"
    );
    let lens: Vec<usize> =
        LEFT.chunks(5).map(|p| p.iter().filter(|&&t| t != PAD).count()).collect();
    let len0 = nb.value("prompt_len_0", lens[0].to_string());
    let len1 = nb.value("prompt_len_1", lens[1].to_string());
    say!(
        nb,
        "two prompts of {len0} and {len1} tokens, padded with {PAD} to 5 on the right or on the left"
    );
    for (side, ids) in [("right", &RIGHT), ("left", &LEFT)] {
        say!(
            nb,
            "{side} padding {:?} {:?}; look-ahead × padding mask of prompt 0:",
            &ids[..5],
            &ids[5..]
        );
        let both = decoder_keep(ids, 2, true, true);
        for line in show::table(rows(&both, 0, 5).as_ref(), &LABELS, &LABELS, 0) {
            say!(nb, "  {line}");
        }
        let empty = (0..10).filter(|&r| (0..5).all(|j| both[(r, j)] == 0.0)).count();
        nb.value(&format!("{side}_empty_rows"), empty.to_string());
        say!(nb, "  rows that may look at no key: {empty}");
        say!(nb, "  real rows of prompt 0 and of prompt 1 vs each prompt alone, max |Δ|:");
        for (name, label, causal, padding, by_prompt) in [
            ("causal", "look-ahead mask only        ", true, false, true),
            ("both", "look-ahead × padding        ", true, true, true),
            ("by_column", "both, positions by column   ", true, true, false),
        ] {
            if side == "right" && name == "by_column" {
                continue; // on the right, a prompt's places and its columns are the same
            }
            let keep = decoder_keep(ids, 2, causal, padding);
            let d = prompts_vs_alone(&block, ids, 2, &keep, by_prompt);
            let d0 = nb.value(&format!("{side}_{name}_0"), show::sci(d[0], 1));
            let d1 = nb.value(&format!("{side}_{name}_1"), show::sci(d[1], 1));
            say!(nb, "    {label} {d0:>9} {d1:>9}");
        }
    }
}
