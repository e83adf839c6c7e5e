//! Chapter 08's padding check on real weights: sentences padded to the
//! longest of a batch, the padding hidden from every query by the mask and
//! left out of the mean, give the embedding each has alone; without the
//! mask they do not.

use blocks::worse;
use record::{Notebook, say, show};

use crate::bert::Bert;
use crate::wordpiece::WordPiece;

/// The common length every sentence is padded to.
pub const PADDED: usize = 16;

// ANCHOR: padded
/// A sentence padded to `len` with `[PAD]`; its embedding with the padding
/// masked (`masked`) or seen like any token, always pooled over its real
/// tokens only.
pub fn padded_embedding(
    bert: &Bert,
    vocab: &WordPiece,
    ids: &[usize],
    len: usize,
    masked: bool,
) -> Vec<f64> {
    let mut padded = ids.to_vec();
    padded.resize(len, vocab.pad);
    let real: Vec<bool> = (0..len).map(|p| p < ids.len()).collect();
    if masked {
        return bert.sentence_embedding(&padded, &real);
    }
    let (out, _) = bert.forward(&padded, None);
    let n = ids.len() as f64;
    let mean: Vec<f64> =
        (0..out.ncols()).map(|j| (0..ids.len()).map(|p| out[(p, j)]).sum::<f64>() / n).collect();
    let norm = mean.iter().map(|v| v * v).sum::<f64>().sqrt();
    mean.iter().map(|v| v / norm).collect()
}
// ANCHOR_END: padded

pub fn padding(bert: &Bert, vocab: &WordPiece, sentences: &[String], nb: &mut Notebook) {
    nb.demo(
        "padding",
        "Padding on a real model: sentences padded to one length, with and without the mask",
    );
    let ids: Vec<Vec<usize>> = sentences.iter().map(|s| vocab.encode(s)).collect();
    let len = nb.value("padded_len", PADDED.to_string());
    say!(nb, "{} sentences padded to a common length of {len} tokens", ids.len());
    let (mut with_mask, mut without) = (0.0, 0.0);
    for (s, t) in sentences.iter().zip(&ids) {
        let alone = bert.sentence_embedding(t, &vec![true; t.len()]);
        let gap = |e: Vec<f64>| e.iter().zip(&alone).fold(0.0, |m, (a, b)| worse(m, (a - b).abs()));
        let (m, u) = (
            gap(padded_embedding(bert, vocab, t, PADDED, true)),
            gap(padded_embedding(bert, vocab, t, PADDED, false)),
        );
        (with_mask, without) = (worse(with_mask, m), worse(without, u));
        say!(
            nb,
            "  {s:<46} {:>2} + {} [PAD]: masked {}, unmasked {}",
            t.len(),
            PADDED - t.len(),
            show::sci(m, 1),
            show::sci(u, 1)
        );
    }
    let m = nb.value("padding_masked_gap", show::sci(with_mask, 1));
    let u = nb.value("padding_unmasked_gap", show::sci(without, 1));
    say!(nb, "largest difference from the sentence alone: {m} with the mask, {u} without");
}
