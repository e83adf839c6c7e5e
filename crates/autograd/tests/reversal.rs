//! The tiny Transformer of Lecture 17 §9 learns to reverse sequences.

use autograd::data::{BOS, FIRST_SYMBOL, reversal};
use autograd::nn::{Seq2Seq, Seq2SeqConfig};
use autograd::optim::{Adam, linear_warmup};
use autograd::train::step;
use autograd::{Params, Smoothing};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

const SYMBOLS: usize = 10;

#[test]
fn learns_reversal_at_length_8() {
    let len = 8;
    let mut rng = Pcg64Mcg::seed_from_u64(0);
    let mut params = Params::<f32>::new();
    let vocab = FIRST_SYMBOL + SYMBOLS;
    let cfg = Seq2SeqConfig::lecture17(vocab);
    let model = Seq2Seq::new(&mut params, cfg, &mut rng);
    let mut adam = Adam::new(&params, 1e-3, 0.9, 0.999, 1e-8);
    let mut data = Pcg64Mcg::seed_from_u64(1);
    let mut first = 0.0;
    let mut last = 0.0;
    for t in 1..=300 {
        let b = reversal(&mut data, 64, len, SYMBOLS);
        adam.lr = linear_warmup(t, 50, 1e-3);
        last = step(&mut params, &mut adam, |tape| {
            let out = model.forward(tape, &b.src, &b.tgt_in, 64).unwrap();
            out.logits.cross_entropy(&b.tgt_out, None, Smoothing::None)
        });
        if t == 1 {
            first = last;
        }
    }
    let mut test = Pcg64Mcg::seed_from_u64(2);
    let t = reversal(&mut test, 500, len, SYMBOLS);
    // greedy decoding, re-running the decoder on the whole prefix each step
    let predicted = model.generate(&params, &t.src, 500, len, BOS, false).tokens;
    let correct = predicted.iter().zip(&t.tgt_out).filter(|(a, b)| a == b).count();
    let accuracy = correct as f64 / t.tgt_out.len() as f64;
    println!("loss {first:.3} → {last:.4}, greedy token accuracy {accuracy:.4}");
    assert!(accuracy >= 0.99, "token accuracy {accuracy} after 300 steps (loss {first} → {last})");
}
