//! The synthetic task the lectures train on: reversing a sequence of
//! random symbols (Lecture 17 §9, §6.6).

use rand::RngExt;

/// Padding.
pub const PAD: usize = 0;
/// Beginning of the target sequence.
pub const BOS: usize = 1;
/// The first symbol's token id; symbols are `FIRST_SYMBOL..FIRST_SYMBOL + symbols`.
pub const FIRST_SYMBOL: usize = 2;

/// One batch of `b` reversal examples of length `len`, each flattened
/// sequence after sequence: `src` the symbols, `tgt_in` BOS and the first
/// `len − 1` reversed symbols (teacher forcing), `tgt_out` the reversed
/// symbols.
pub struct Reversal {
    pub src: Vec<usize>,
    pub tgt_in: Vec<usize>,
    pub tgt_out: Vec<usize>,
}

// ANCHOR: reversal
/// Draw a batch; a vocabulary of `FIRST_SYMBOL + symbols` tokens.
pub fn reversal(
    rng: &mut (impl rand::Rng + ?Sized),
    b: usize,
    len: usize,
    symbols: usize,
) -> Reversal {
    let mut r = Reversal {
        src: Vec::with_capacity(b * len),
        tgt_in: Vec::with_capacity(b * len),
        tgt_out: Vec::with_capacity(b * len),
    };
    for _ in 0..b {
        let seq: Vec<usize> =
            (0..len).map(|_| FIRST_SYMBOL + rng.random_range(0..symbols)).collect();
        r.src.extend(&seq);
        r.tgt_in.push(BOS);
        r.tgt_in.extend(seq.iter().rev().take(len - 1));
        r.tgt_out.extend(seq.iter().rev());
    }
    r
}
// ANCHOR_END: reversal
