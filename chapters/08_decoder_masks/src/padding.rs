//! Lecture 17 demo 04.6 — the padding mask: a 3-word sentence padded to 6.
//! The mask hides the padding *keys*; the padding rows' own outputs are
//! computed anyway and left out of the loss.

use autograd::nn::{EncoderLayer, Norm, ToBlocks, padding_mask};
use autograd::{Params, Smoothing, Tape};
use blocks::layers::sinusoidal;
use blocks::{max_diff, worse};
use faer::Mat;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

use crate::small::{D_FF, D_MODEL, HEADS, random, rows};

const PAD: usize = 0;

// ANCHOR: padding
pub fn padding(seed: u64, nb: &mut Notebook) {
    nb.demo("padding", "L17 04.6 · The padding mask");
    let batch: [[usize; 6]; 2] = [[5, 9, 3, PAD, PAD, PAD], [4, 8, 2, 7, 6, 3]];
    let ids: Vec<usize> = batch.iter().flatten().copied().collect();
    say!(nb, "a batch of two sentences, padded with token {PAD} to length 6: {batch:?}");
    let keep_batch = padding_mask::<f64>(&ids, 2, 1, PAD); // (batch·1, 6): one row per sentence
    say!(nb, "padding mask, shape (batch, 1, 6) — the same row for every query of a sentence:");
    for b in 0..2 {
        say!(nb, "  sentence {b}: {}", show::row(keep_batch.as_ref(), b, 0));
    }
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut params = Params::<f64>::new();
    let layer = EncoderLayer::new(&mut params, "enc", D_MODEL, HEADS, D_FF, Norm::Post, &mut rng);
    let layer = layer.to_blocks(&params);
    let table = random(10, D_MODEL, &mut rng); // a random embedding table, 10 tokens
    let pe = sinusoidal(6, D_MODEL);
    let x = Mat::from_fn(6, D_MODEL, |t, j| table[(batch[0][t], j)] + pe[(t, j)]); // (6, d_model)
    let keep = padding_mask::<f64>(&ids[..6], 1, 6, PAD); // (6, 6): every query row alike
    // 1. no query, not even a padding position, puts weight on a padding key
    let (_, heads) = layer.attn.forward(&x, &x, Some(&keep));
    let on_pads = heads
        .iter()
        .flat_map(|h| (0..6).flat_map(move |t| (3..6).map(move |s| h.weights[(t, s)])))
        .fold(0.0, worse);
    let on_pads = nb.value("weight_on_padding", show::sci(on_pads, 1));
    say!(nb, "largest weight on a padding key, any head, any row: {on_pads}");
    say!(nb, "row 3 (a padding position), head 0: {}", show::row(heads[0].weights.as_ref(), 3, 3));
    // 2. padded and masked = the 3 words alone
    let padded = layer.forward(&x, Some(&keep));
    let alone = layer.forward(&rows(&x, 0, 3), None);
    let vs_alone =
        nb.value("padded_vs_alone", show::sci(max_diff(&rows(&padded, 0, 3), &alone), 1));
    say!(nb, "padded + mask vs the 3 words alone: max |Δ| = {vs_alone}");
    // 3. other padding vectors: the real words do not notice, unless unmasked
    let mut x_other = x.clone();
    let fresh = random(3, D_MODEL, &mut rng);
    x_other.as_mut().submatrix_mut(3, 0, 3, D_MODEL).copy_from(&fresh);
    let masked = max_diff(&rows(&padded, 0, 3), &rows(&layer.forward(&x_other, Some(&keep)), 0, 3));
    let open = layer.forward(&x, None);
    let unmasked = max_diff(&rows(&open, 0, 3), &rows(&layer.forward(&x_other, None), 0, 3));
    let open_vs_alone = max_diff(&rows(&open, 0, 3), &alone);
    let masked = nb.value("pad_change_masked", show::sci(masked, 1));
    let unmasked = nb.value("pad_change_unmasked", show::num(unmasked, 2));
    let open_vs_alone = nb.value("unmasked_vs_alone", show::num(open_vs_alone, 2));
    say!(
        nb,
        "padding vectors replaced: real words move by {masked} with the mask, {unmasked} without"
    );
    say!(nb, "without the mask, the real words differ from the 3 words alone by {open_vs_alone}");
    // 4. the loss ignores the padding rows, whatever they hold
    let logits = random(6, 10, &mut rng); // (6, vocab): any output layer would do
    let targets = [7, 2, 9, PAD, PAD, PAD];
    let loss = |logits: &Mat<f64>, targets: &[usize]| {
        let tape = Tape::new(&params);
        tape.input(logits.clone()).cross_entropy(targets, Some(PAD), Smoothing::None).scalar()
    };
    let mut scrambled = logits.clone();
    scrambled.as_mut().submatrix_mut(3, 0, 3, 10).copy_from(&random(3, 10, &mut rng));
    let full = loss(&logits, &targets);
    let three = loss(&rows(&logits, 0, 3), &targets[..3]);
    let ignored = nb.value("loss_padded_vs_three", show::sci((full - three).abs(), 1));
    let moved =
        nb.value("loss_pad_rows_changed", show::sci((full - loss(&scrambled, &targets)).abs(), 1));
    say!(nb, "loss with ignore index {PAD} vs the 3 real rows alone: |Δ| = {ignored}");
    say!(nb, "padding rows' logits replaced: the loss moves by {moved}");
}
// ANCHOR_END: padding
