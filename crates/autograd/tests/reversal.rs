//! The tiny Transformer of Lecture 17 §9 learns to reverse sequences.

use autograd::nn::{Norm, Positions, Seq2Seq, Seq2SeqConfig};
use autograd::optim::{Adam, linear_warmup};
use autograd::{Params, Smoothing, Tape};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

const BOS: usize = 1;
const SYMBOLS: usize = 10; // tokens 2..12

fn batch(rng: &mut Pcg64Mcg, b: usize, len: usize) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    let (mut src, mut tgt_in, mut tgt_out) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..b {
        let seq: Vec<usize> = (0..len).map(|_| 2 + rng.random_range(0..SYMBOLS)).collect();
        let rev: Vec<usize> = seq.iter().rev().copied().collect();
        src.extend(&seq);
        tgt_in.push(BOS);
        tgt_in.extend(&rev[..len - 1]);
        tgt_out.extend(&rev);
    }
    (src, tgt_in, tgt_out)
}

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
    let cfg = Seq2SeqConfig {
        vocab: 2 + SYMBOLS,
        d_model: 64,
        heads: 4,
        d_ff: 256,
        layers: 1,
        norm: Norm::Post,
        positions: Positions::Sinusoidal,
        scale_embeddings: false,
    };
    let model = Seq2Seq::new(&mut params, cfg, &mut rng);
    let mut adam = Adam::new(&params, 1e-3, 0.9, 0.999, 1e-8);
    let mut data = Pcg64Mcg::seed_from_u64(1);
    let mut first = 0.0;
    let mut last = 0.0;
    for step in 1..=300 {
        let (src, tgt_in, tgt_out) = batch(&mut data, 64, len);
        let grads = {
            let tape = Tape::new(&params);
            let out = model.forward(&tape, &src, &tgt_in, 64).unwrap();
            let loss = out.logits.cross_entropy(&tgt_out, None, Smoothing::None);
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
    let (src, _, tgt_out) = batch(&mut test, 500, len);
    let predicted = greedy(&model, &params, &src, 500, len);
    let correct = predicted.iter().zip(&tgt_out).filter(|(a, b)| a == b).count();
    let accuracy = correct as f64 / tgt_out.len() as f64;
    println!("loss {first:.3} → {last:.4}, greedy token accuracy {accuracy:.4}");
    assert!(accuracy >= 0.99, "token accuracy {accuracy} after 300 steps (loss {first} → {last})");
}
