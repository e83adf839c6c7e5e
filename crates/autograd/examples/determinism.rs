//! 50 training steps (or `--steps N`) of the reversal Transformer and of the
//! GRU encoder–decoder with attention, in f32; prints every loss with its
//! bits. `ci/determinism.sh` runs this in debug and release, with 1 and 2
//! threads and (for fewer steps) under `qemu-x86_64 -cpu Haswell-v4`, and
//! requires identical output.

use autograd::data::{FIRST_SYMBOL, reversal};
use autograd::nn::{GruSeq2Seq, Norm, Seq2Seq, Seq2SeqConfig};
use autograd::optim::{Adam, linear_warmup};
use autograd::train::step;
use autograd::{Params, Smoothing};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

const SYMBOLS: usize = 10;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let steps: u32 = match args.as_slice() {
        [] => 50,
        [flag, n] if flag == "--steps" => match n.parse() {
            Ok(n) if (1..=10_000).contains(&n) => n,
            _ => {
                eprintln!("--steps takes a whole number from 1 to 10000, not {n:?}");
                std::process::exit(2);
            }
        },
        _ => {
            eprintln!("usage: determinism [--steps N]");
            std::process::exit(2);
        }
    };
    let (batch, len) = (16, 8);
    println!("Transformer, reversal L = {len}, batch {batch}, Adam 1e-3 with 10 warmup steps");
    let mut rng = Pcg64Mcg::seed_from_u64(0);
    let mut params = Params::<f32>::new();
    let vocab = FIRST_SYMBOL + SYMBOLS;
    let cfg = Seq2SeqConfig { norm: Norm::Pre, ..Seq2SeqConfig::lecture17(vocab) };
    let model = Seq2Seq::new(&mut params, cfg, &mut rng);
    let mut adam = Adam::new(&params, 1e-3, 0.9, 0.999, 1e-8);
    let mut data = Pcg64Mcg::seed_from_u64(1);
    for t in 1..=steps {
        let b = reversal(&mut data, batch, len, SYMBOLS);
        adam.lr = linear_warmup(t, 10, 1e-3);
        let value = step(&mut params, &mut adam, |tape| {
            let logits = model.forward(tape, &b.src, &b.tgt_in, batch).unwrap().logits;
            logits.cross_entropy(&b.tgt_out, None, Smoothing::AllClasses(0.1))
        });
        println!("{t:>3} {value:.7} {:08x}", value.to_bits());
    }

    println!("GRU encoder-decoder with attention, hidden 32, same task");
    let mut rng = Pcg64Mcg::seed_from_u64(2);
    let mut params = Params::<f32>::new();
    let model = GruSeq2Seq::new(&mut params, FIRST_SYMBOL + SYMBOLS, 16, 32, true, &mut rng);
    let mut adam = Adam::new(&params, 3e-3, 0.9, 0.999, 1e-8);
    let mut data = Pcg64Mcg::seed_from_u64(3);
    for t in 1..=steps {
        let b = reversal(&mut data, batch, len, SYMBOLS);
        let value = step(&mut params, &mut adam, |tape| {
            let logits = model.forward(tape, &b.src, &b.tgt_in, batch).0;
            logits.cross_entropy(&b.tgt_out, None, Smoothing::None)
        });
        println!("{t:>3} {value:.7} {:08x}", value.to_bits());
    }
}
