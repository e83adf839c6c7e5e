//! The matrix pool changes nothing but speed: training steps run with the
//! pool (whose reused matrices hold the previous step's stale numbers) and
//! without it (every matrix fresh) give the same bits — losses and every
//! parameter — for the Transformer and the GRU with attention.

use autograd::data::{FIRST_SYMBOL, reversal};
use autograd::nn::{GruSeq2Seq, Norm, Seq2Seq, Seq2SeqConfig};
use autograd::optim::Adam;
use autograd::train::step;
use autograd::{Params, Smoothing, pool};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

const SYMBOLS: usize = 10;
const STEPS: usize = 4;

/// Losses and final parameters, as bits.
fn bits(losses: Vec<f32>, params: &Params<f32>) -> (Vec<u32>, Vec<u32>) {
    let ws = params
        .iter()
        .flat_map(|(_, p)| {
            let v = &p.value;
            (0..v.ncols()).flat_map(move |j| v.col_as_slice(j).iter().map(|w| w.to_bits()))
        })
        .collect();
    (losses.iter().map(|l| l.to_bits()).collect(), ws)
}

fn transformer(norm: Norm) -> (Vec<u32>, Vec<u32>) {
    let (batch, len) = (5, 7); // odd sizes: no shape happens to line up
    let mut params = Params::<f32>::new();
    let cfg = Seq2SeqConfig { norm, ..Seq2SeqConfig::lecture17(FIRST_SYMBOL + SYMBOLS) };
    let model = Seq2Seq::new(&mut params, cfg, &mut Pcg64Mcg::seed_from_u64(0));
    let mut adam = Adam::new(&params, 1e-2, 0.9, 0.999, 1e-8);
    let mut data = Pcg64Mcg::seed_from_u64(1);
    let losses = (0..STEPS)
        .map(|_| {
            let b = reversal(&mut data, batch, len, SYMBOLS);
            step(&mut params, &mut adam, |tape| {
                let out = model.forward(tape, &b.src, &b.tgt_in, batch).unwrap();
                out.logits.cross_entropy(&b.tgt_out, None, Smoothing::AllClasses(0.1))
            })
        })
        .collect();
    bits(losses, &params)
}

fn gru_attention() -> (Vec<u32>, Vec<u32>) {
    let (batch, len) = (3, 11);
    let mut params = Params::<f32>::new();
    let mut rng = Pcg64Mcg::seed_from_u64(2);
    let model = GruSeq2Seq::new(&mut params, FIRST_SYMBOL + SYMBOLS, 16, 24, true, &mut rng);
    let mut adam = Adam::new(&params, 1e-2, 0.9, 0.999, 1e-8);
    let mut data = Pcg64Mcg::seed_from_u64(3);
    let losses = (0..STEPS)
        .map(|_| {
            let b = reversal(&mut data, batch, len, SYMBOLS);
            step(&mut params, &mut adam, |tape| {
                let logits = model.forward(tape, &b.src, &b.tgt_in, batch).0;
                logits.cross_entropy(&b.tgt_out, None, Smoothing::None)
            })
        })
        .collect();
    bits(losses, &params)
}

#[test]
fn training_gives_the_same_bits_with_and_without_the_pool() {
    for (name, run) in [
        ("Post-LN Transformer", (|| transformer(Norm::Post)) as fn() -> _),
        ("Pre-LN Transformer", || transformer(Norm::Pre)),
        ("GRU + attention", gru_attention),
    ] {
        let pooled = run();
        let fresh = pool::without(run);
        assert_eq!(pooled.0, fresh.0, "{name}: the losses differ");
        assert!(pooled.1 == fresh.1, "{name}: the parameters differ");
    }
}
