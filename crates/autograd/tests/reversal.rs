//! The tiny Transformer of Lecture 17 §9 learns to reverse sequences.

use autograd::data::{BOS, FIRST_SYMBOL, reversal};
use autograd::nn::{Seq2Seq, Seq2SeqConfig};
use autograd::optim::{Adam, linear_warmup};
use autograd::{Params, Smoothing, Tape};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

const SYMBOLS: usize = 10;

/// Greedy decoding, one position at a time (each step re-runs the decoder
/// on the prefix generated so far).
fn greedy(
    model: &Seq2Seq,
    params: &Params<f32>,
    src: &[usize],
    b: usize,
    len: usize,
) -> Vec<usize> {
    let tape = Tape::new(params);
    let (memory, _) = model.encode(&tape, src, b, None).unwrap();
    let mut prefix: Vec<Vec<usize>> = vec![vec![BOS]; b];
    for t in 0..len {
        let ids: Vec<usize> = prefix.iter().flatten().copied().collect();
        let (logits, _) = model.decode(&tape, memory, &ids, b, None).unwrap();
        let logits = logits.value();
        for (s, p) in prefix.iter_mut().enumerate() {
            let row = s * (t + 1) + t;
            let best = (0..logits.ncols())
                .max_by(|&x, &y| logits[(row, x)].total_cmp(&logits[(row, y)]))
                .unwrap();
            p.push(best);
        }
    }
    prefix.iter().flat_map(|p| p[1..].to_vec()).collect()
}

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
    for step in 1..=300 {
        let b = reversal(&mut data, 64, len, SYMBOLS);
        let grads = {
            let tape = Tape::new(&params);
            let out = model.forward(&tape, &b.src, &b.tgt_in, 64).unwrap();
            let loss = out.logits.cross_entropy(&b.tgt_out, None, Smoothing::None);
            if step == 1 {
                first = loss.scalar();
            }
            last = loss.scalar();
            tape.backward(loss)
        };
        adam.lr = linear_warmup(step, 50, 1e-3);
        adam.step(&mut params, &grads);
    }
    let mut test = Pcg64Mcg::seed_from_u64(2);
    let t = reversal(&mut test, 500, len, SYMBOLS);
    let predicted = greedy(&model, &params, &t.src, 500, len);
    let correct = predicted.iter().zip(&t.tgt_out).filter(|(a, b)| a == b).count();
    let accuracy = correct as f64 / t.tgt_out.len() as f64;
    println!("loss {first:.3} → {last:.4}, greedy token accuracy {accuracy:.4}");
    assert!(accuracy >= 0.99, "token accuracy {accuracy} after 300 steps (loss {first} → {last})");
}
