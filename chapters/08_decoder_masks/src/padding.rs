//! Lecture 17 demo 04.6 — the padding mask: a batch of two sentences, one
//! padded from 3 words to 6. The mask hides the padding *keys*, in the
//! encoder's self-attention and in the decoder's cross-attention; the
//! padding rows' own outputs are computed anyway and left out of the loss.

use autograd::nn::{EncoderLayer, Norm, Seq2Seq, Seq2SeqConfig, padding_mask};
use autograd::{Params, Smoothing, Tape};
use blocks::layers::sinusoidal;
use blocks::{max_diff, worse};
use faer::Mat;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

use crate::small::{D_FF, D_MODEL, HEADS, random, rows};

pub const PAD: usize = 0;
const BOS: usize = 1;
/// The batch: sentence 0 has 3 words and 3 padding tokens, sentence 1 six words.
const BATCH: [[usize; 6]; 2] = [[5, 9, 3, PAD, PAD, PAD], [4, 8, 2, 7, 6, 3]];
const LENS: [usize; 2] = [3, 6];

// ANCHOR: padding
/// The batch `x` (B·S, d_model) through the encoder layer under `keep`
/// (B·S, S), and each sentence's first `lens[b]` rows against that sentence
/// run alone (its real words only, no mask). Returns the outputs
/// (B·S, d_model), every head's weights (B·h·S, S) and one max |Δ| per
/// sentence.
pub fn batch_vs_alone(
    layer: &EncoderLayer,
    params: &Params<f64>,
    x: &Mat<f64>,
    lens: &[usize],
    keep: Option<&Mat<f64>>,
) -> (Mat<f64>, Mat<f64>, Vec<f64>) {
    let (batch, s) = (lens.len(), x.nrows() / lens.len());
    let tape = Tape::new(params);
    let (out, weights) = layer.forward(tape.input(x.clone()), batch, keep);
    let (out, weights) = (out.value().clone(), weights.all(&tape)); // (B·S, d), (B·h·S, S)
    let mut diffs = Vec::new();
    for (b, &n) in lens.iter().enumerate() {
        let alone = layer.forward(tape.input(rows(x, b * s, n)), 1, None).0; // (n, d_model)
        diffs.push(max_diff(&rows(&out, b * s, n), &alone.value()));
    }
    (out, weights, diffs)
}

/// Mean cross-entropy of `logits` (rows, vocab) against `targets`, the
/// rows whose target is PAD left out.
pub fn loss_ignoring_pad(logits: &Mat<f64>, targets: &[usize]) -> f64 {
    let params = Params::<f64>::new();
    let tape = Tape::new(&params);
    tape.input(logits.clone()).cross_entropy(targets, Some(PAD), Smoothing::None).scalar()
}
// ANCHOR_END: padding

/// The largest weight any query of any head puts on a padding key: `weights`
/// (B·h·S_q, S_k) as `Weights::all` stacks them, `ids` the keys' tokens (B·S_k).
pub fn weight_on_pads(weights: &Mat<f64>, ids: &[usize], batch: usize) -> f64 {
    let s_k = ids.len() / batch;
    let per_seq = weights.nrows() / batch; // h·S_q rows per sequence
    (0..weights.nrows())
        .flat_map(|r| (0..s_k).map(move |s| (r, s)))
        .filter(|&(r, s)| ids[(r / per_seq) * s_k + s] == PAD)
        .map(|(r, s)| weights[(r, s)])
        .fold(0.0, worse)
}

/// The largest share of its weight any one query row of any head puts on
/// all the padding keys together (the same layout as [`weight_on_pads`]).
pub fn share_on_pads(weights: &Mat<f64>, ids: &[usize], batch: usize) -> f64 {
    let s_k = ids.len() / batch;
    let per_seq = weights.nrows() / batch;
    (0..weights.nrows())
        .map(|r| {
            let pads = (0..s_k).filter(|&s| ids[(r / per_seq) * s_k + s] == PAD);
            pads.map(|s| weights[(r, s)]).sum::<f64>()
        })
        .fold(0.0, worse)
}

pub fn padding(seed: u64, nb: &mut Notebook) {
    nb.demo("padding", "L17 04.6 · The padding mask");
    let ids: Vec<usize> = BATCH.iter().flatten().copied().collect();
    let (b, s) = (BATCH.len(), BATCH[0].len());
    say!(nb, "a batch of two sentences, padded with token {PAD} to length {s}: {BATCH:?}");
    let words0 = nb.value("pad_words_0", LENS[0].to_string());
    let words1 = nb.value("pad_words_1", LENS[1].to_string());
    let pads = nb.value("pad_count", (s - LENS[0]).to_string());
    say!(nb, "sentence 0 has {words0} words and {pads} padding tokens, sentence 1 {words1} words");
    let keep = padding_mask::<f64>(&ids, b, s, PAD); // (B·S, S): every query row of a sentence alike
    say!(nb, "padding mask, one row per sentence, the same for each of its {s} queries:");
    for i in 0..b {
        say!(nb, "  sentence {i}: {}", show::row(keep.as_ref(), i * s, 0));
    }
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut params = Params::<f64>::new();
    let layer = EncoderLayer::new(&mut params, "enc", D_MODEL, HEADS, D_FF, Norm::Post, &mut rng);
    let table = random(10, D_MODEL, &mut rng); // a random embedding table, 10 tokens
    let pe = sinusoidal(s, D_MODEL);
    let x = Mat::from_fn(b * s, D_MODEL, |r, j| table[(ids[r], j)] + pe[(r % s, j)]); // (B·S, d)
    say!(
        nb,
        "one Post-LN encoder layer (d_model {D_MODEL}, {HEADS} heads), the batch in one pass:"
    );
    // 1. no query, not even a padding position, puts weight on a padding key
    let (padded, weights, vs_alone) = batch_vs_alone(&layer, &params, &x, &LENS, Some(&keep));
    let on_pads = nb.value("weight_on_padding", show::sci(weight_on_pads(&weights, &ids, b), 1));
    say!(nb, "  largest weight on a padding key, any head, any row: {on_pads}");
    let row3 = show::row(weights.as_ref(), 3, 3); // sentence 0, head 0, query 3
    say!(nb, "  row 3 of sentence 0 (a padding position), head 0: {row3}");
    // 2. each sentence of the padded, masked batch = the sentence alone
    for (i, d) in vs_alone.iter().enumerate() {
        let name = if i == 0 { "padded_vs_alone" } else { "full_vs_alone" };
        let d = nb.value(name, show::sci(*d, 1));
        say!(nb, "  sentence {i} in the batch vs alone ({} words): max |Δ| = {d}", LENS[i]);
    }
    // 3. other padding vectors: the real words do not notice, unless unmasked
    let mut x_other = x.clone();
    x_other.as_mut().submatrix_mut(3, 0, 3, D_MODEL).copy_from(&random(3, D_MODEL, &mut rng));
    let real = |m: &Mat<f64>| rows(m, 0, 3); // sentence 0's real words
    let masked = max_diff(
        &real(&padded),
        &real(&batch_vs_alone(&layer, &params, &x_other, &LENS, Some(&keep)).0),
    );
    let (open, _, open_vs_alone) = batch_vs_alone(&layer, &params, &x, &LENS, None);
    let unmasked =
        max_diff(&real(&open), &real(&batch_vs_alone(&layer, &params, &x_other, &LENS, None).0));
    let masked = nb.value("pad_change_masked", show::sci(masked, 1));
    let unmasked = nb.value("pad_change_unmasked", show::num(unmasked, 2));
    let open_vs_alone = nb.value("unmasked_vs_alone", show::num(open_vs_alone[0], 2));
    say!(
        nb,
        "  sentence 0's padding vectors replaced: its words move by {masked} with the mask, {unmasked} without"
    );
    say!(nb, "  without the mask, sentence 0's words differ from it alone by {open_vs_alone}");
    // 4. the loss ignores the padding rows, whatever they hold
    let vocab = 10;
    let logits = random(b * s, vocab, &mut rng); // (B·S, vocab): any output layer would do
    let targets = [7, 2, 9, PAD, PAD, PAD, 3, 6, 7, 2, 8, 4];
    let mut scrambled = logits.clone();
    scrambled.as_mut().submatrix_mut(3, 0, 3, vocab).copy_from(&random(3, vocab, &mut rng));
    let full = loss_ignoring_pad(&logits, &targets);
    let real_rows: Vec<usize> = (0..b * s).filter(|&r| targets[r] != PAD).collect();
    let only_real = Mat::from_fn(real_rows.len(), vocab, |i, j| logits[(real_rows[i], j)]);
    let only_targets: Vec<usize> = real_rows.iter().map(|&r| targets[r]).collect();
    let nine = loss_ignoring_pad(&only_real, &only_targets);
    let ignored = nb.value("loss_padded_vs_real", show::sci((full - nine).abs(), 1));
    let moved = loss_ignoring_pad(&scrambled, &targets);
    let moved = nb.value("loss_pad_rows_changed", show::sci((full - moved).abs(), 1));
    let n_real = nb.value("loss_real_rows", real_rows.len().to_string());
    let n_rows = nb.value("loss_rows", (b * s).to_string());
    say!(
        nb,
        "loss over all {n_rows} rows, PAD ignored, vs the {n_real} real rows alone: |Δ| = {ignored}"
    );
    say!(nb, "padding rows' logits replaced: the loss moves by {moved}");
}

// ANCHOR: cross_padding
/// An encoder–decoder model on a batch of right-padded sources and targets
/// (B·S_s and B·S_t ids). With `masked`, the source padding mask goes to
/// the encoder's self-attention and to the decoder's cross-attention; the
/// target gets only the look-ahead mask `decode` always applies. Returns
/// the logits (B·S_t, vocab) and the cross-attention weights of the first
/// decoder layer, all heads (B·h·S_t, S_s).
pub fn padded_model(
    model: &Seq2Seq,
    params: &Params<f64>,
    src: &[usize],
    tgt_in: &[usize],
    batch: usize,
    masked: bool,
) -> (Mat<f64>, Mat<f64>) {
    let (s_s, s_t) = (src.len() / batch, tgt_in.len() / batch);
    let src_keep = padding_mask::<f64>(src, batch, s_s, PAD); // (B·S_s, S_s): encoder queries
    let cross_keep = padding_mask::<f64>(src, batch, s_t, PAD); // (B·S_t, S_s): decoder queries
    let tape = Tape::new(params);
    let (memory, _) = model.encode(&tape, src, batch, masked.then_some(&src_keep)).expect("fits");
    let cross = masked.then_some(&cross_keep);
    let (logits, w) = model.decode(&tape, memory, tgt_in, batch, cross).expect("fits");
    (logits.value().clone(), w[0].cross_attn.all(&tape))
}
// ANCHOR_END: cross_padding

pub fn cross_padding(seed: u64, nb: &mut Notebook) {
    nb.demo("cross_padding", "L17 04.6 · The source's padding mask in cross-attention");
    let mut params = Params::<f64>::new();
    let vocab = 12; // PAD, BOS, ten symbols
    let model = Seq2Seq::new(
        &mut params,
        Seq2SeqConfig::lecture17(vocab),
        &mut Pcg64Mcg::seed_from_u64(seed),
    );
    let src: Vec<usize> = BATCH.iter().flatten().copied().collect();
    // the reversal task's decoder inputs: BOS, then the reversed source but its last
    let tgt_of = |words: &[usize]| -> Vec<usize> {
        std::iter::once(BOS).chain(words.iter().rev().take(words.len() - 1).copied()).collect()
    };
    let words: Vec<Vec<usize>> = BATCH.iter().zip(LENS).map(|(s, n)| s[..n].to_vec()).collect();
    let s_t = 6;
    let tgt_in: Vec<usize> = words
        .iter()
        .flat_map(|w| {
            let mut t = tgt_of(w);
            t.resize(s_t, PAD); // right padding
            t
        })
        .collect();
    say!(nb, "an untrained encoder–decoder Transformer (d_model 64, 4 heads, seed {seed})");
    say!(nb, "sources {:?}, decoder inputs {:?}", BATCH, [&tgt_in[..s_t], &tgt_in[s_t..]]);
    let real_in = nb.value("cross_tgt_in_0", format!("{:?}", tgt_of(&words[0])));
    let s_t_shown = nb.value("cross_tgt_len", s_t.to_string());
    say!(
        nb,
        "sentence 0's decoder input {real_in} is padded on the right to {s_t_shown} positions"
    );
    for (name, masked) in [("masked", true), ("unmasked", false)] {
        let (logits, cross) = padded_model(&model, &params, &src, &tgt_in, 2, masked);
        let on_pads = weight_on_pads(&cross, &src, 2);
        let on_pads = nb.value(&format!("cross_on_pads_{name}"), show::sci(on_pads, 1));
        let share = share_on_pads(&cross, &src, 2);
        let share = nb.value(&format!("cross_pad_share_{name}"), show::sci(share, 1));
        let label =
            if masked { "source mask in encoder and cross-attention" } else { "no source mask" };
        say!(nb, "{label}:");
        say!(nb, "  largest cross-attention weight on one padding source position {on_pads}");
        say!(nb, "  largest share of one query's weight on all padding positions {share}");
        for (b, w) in words.iter().enumerate() {
            let t = tgt_of(w);
            let (alone, _) = padded_model(&model, &params, w, &t, 1, true);
            let d = max_diff(&rows(&logits, b * s_t, t.len()), &alone);
            let d = nb.value(&format!("cross_vs_alone_{name}_{b}"), show::sci(d, 1));
            say!(
                nb,
                "  sentence {b}: logits of its {} real target rows vs the sentence alone: max |Δ| = {d}",
                t.len()
            );
        }
    }
}
