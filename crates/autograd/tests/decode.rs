//! Teacher forcing in one causal pass gives the same logits as generating
//! one position at a time, with and without a KV cache (f64, ≤ 1e-12).

use autograd::data::{BOS, FIRST_SYMBOL};
use autograd::nn::{GruSeq2Seq, Norm, Positions, Seq2Seq, Seq2SeqConfig};
use autograd::{Params, Tape};
use blocks::worse;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

#[test]
fn one_causal_pass_equals_step_by_step_generation() {
    let (batch, len, vocab) = (3, 7, FIRST_SYMBOL + 10);
    for (norm, positions) in
        [(Norm::Post, Positions::Sinusoidal), (Norm::Pre, Positions::Learned(16))]
    {
        let mut rng = Pcg64Mcg::seed_from_u64(21);
        let mut params = Params::<f64>::new();
        let cfg = Seq2SeqConfig {
            vocab,
            d_model: 16,
            heads: 4,
            d_ff: 32,
            layers: 2,
            norm,
            positions,
            scale_embeddings: false,
            scaled_attention: true,
        };
        let model = Seq2Seq::new(&mut params, cfg, &mut rng);
        let src: Vec<usize> =
            (0..batch * len).map(|_| rng.random_range(FIRST_SYMBOL..vocab)).collect();
        let plain = model.generate(&params, &src, batch, len, BOS, false);
        let cached = model.generate(&params, &src, batch, len, BOS, true);
        assert_eq!(plain.tokens, cached.tokens);
        // the same generated sequence, teacher-forced in one pass
        let tgt_in: Vec<usize> = (0..batch)
            .flat_map(|b| {
                std::iter::once(BOS).chain(plain.tokens[b * len..b * len + len - 1].iter().copied())
            })
            .collect();
        let tape = Tape::new(&params);
        let logits = model.forward(&tape, &src, &tgt_in, batch).unwrap().logits.value().clone();
        let mut worst: f64 = 0.0;
        for t in 0..len {
            for b in 0..batch {
                for j in 0..vocab {
                    let one_pass = logits[(b * len + t, j)];
                    worst = worse(worst, (one_pass - plain.logits[t][(b, j)]).abs());
                    worst = worse(worst, (one_pass - cached.logits[t][(b, j)]).abs());
                }
            }
        }
        println!(
            "{norm:?}, {positions:?}: one causal pass vs step by step (plain and KV cache): max |Δ| = {worst:.2e}"
        );
        assert!(worst <= 1e-12, "{worst:e}");
    }
}

#[test]
fn gru_teacher_forcing_equals_step_by_step_generation() {
    let (batch, len, vocab) = (3, 6, FIRST_SYMBOL + 10);
    for attention in [false, true] {
        let mut rng = Pcg64Mcg::seed_from_u64(22);
        let mut params = Params::<f64>::new();
        let model = GruSeq2Seq::new(&mut params, vocab, 8, 12, attention, &mut rng);
        let src: Vec<usize> =
            (0..batch * len).map(|_| rng.random_range(FIRST_SYMBOL..vocab)).collect();
        let got = model.generate(&params, &src, batch, len, BOS);
        let tgt_in: Vec<usize> = (0..batch)
            .flat_map(|b| {
                std::iter::once(BOS).chain(got.tokens[b * len..b * len + len - 1].iter().copied())
            })
            .collect();
        let tape = Tape::new(&params);
        let logits = model.forward(&tape, &src, &tgt_in, batch).0.value().clone();
        let mut worst: f64 = 0.0;
        for t in 0..len {
            for b in 0..batch {
                for j in 0..vocab {
                    worst = worse(worst, (logits[(b * len + t, j)] - got.logits[t][(b, j)]).abs());
                }
            }
        }
        println!(
            "GRU, attention {attention}: teacher forcing vs step by step: max |Δ| = {worst:.2e}"
        );
        assert!(worst <= 1e-12, "{worst:e}");
    }
}
