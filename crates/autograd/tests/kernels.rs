//! A model runs either way: every module on a plain tape (`Kernels::Plain`,
//! the ops a student reads) gives the same loss, the same gradient of every
//! parameter and the same attention weights as on a fused tape (the
//! kernels training uses), to ≤ 1e−12 in `f64`. Covered: the Transformer
//! encoder–decoder (Post-LN and Pre-LN, with padding and causal masks:
//! embeddings, self- and cross-attention, feed-forward, layer norm, the
//! fused residual norm), the decoder-only model, and the GRU
//! encoder–decoder with and without Luong attention.

use autograd::data::{FIRST_SYMBOL, reversal};
use autograd::nn::{DecoderOnly, GruSeq2Seq, Norm, Seq2Seq, Seq2SeqConfig};
use autograd::{Kernels, Params, Smoothing, Tape, Var};
use blocks::{max_diff, worse};
use faer::Mat;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

const SYMBOLS: usize = 10;
const VOCAB: usize = FIRST_SYMBOL + SYMBOLS;

/// The loss, every parameter's gradient and some weights on one tape.
struct Run {
    loss: f64,
    grads: Vec<Mat<f64>>,
    weights: Vec<Mat<f64>>,
}

fn run(
    params: &Params<f64>,
    kernels: Kernels,
    forward: impl for<'t> Fn(&'t Tape<f64>) -> (Var<'t, f64>, Vec<Mat<f64>>),
) -> Run {
    let tape = Tape::with_kernels(params, kernels);
    let (loss, weights) = forward(&tape);
    let grads = tape.backward(loss);
    let grads =
        params.iter().map(|(id, _)| grads.get(id).expect("every parameter is used").clone());
    Run { loss: loss.scalar(), grads: grads.collect(), weights }
}

/// The largest difference between the fused and the plain run.
fn both_ways(
    params: &Params<f64>,
    forward: impl for<'t> Fn(&'t Tape<f64>) -> (Var<'t, f64>, Vec<Mat<f64>>),
) -> f64 {
    let (fused, plain) =
        (run(params, Kernels::Fused, &forward), run(params, Kernels::Plain, &forward));
    assert_eq!(fused.weights.len(), plain.weights.len());
    let mut worst = (fused.loss - plain.loss).abs();
    for (a, b) in
        fused.grads.iter().zip(&plain.grads).chain(fused.weights.iter().zip(&plain.weights))
    {
        worst = worse(worst, max_diff(a, b));
    }
    worst
}

#[test]
fn the_transformer_runs_the_same_either_way() {
    let (batch, len) = (3, 5);
    for norm in [Norm::Post, Norm::Pre] {
        let mut params = Params::<f64>::new();
        let cfg = Seq2SeqConfig {
            d_model: 16,
            heads: 4,
            d_ff: 32,
            layers: 2,
            norm,
            ..Seq2SeqConfig::lecture17(VOCAB)
        };
        let model = Seq2Seq::new(&mut params, cfg, &mut Pcg64Mcg::seed_from_u64(0));
        let mut b = reversal(&mut Pcg64Mcg::seed_from_u64(1), batch, len, SYMBOLS);
        b.src[len - 1] = 0; // one padded source position: the padding mask is used
        let worst = both_ways(&params, |tape| {
            let out = model.forward(tape, &b.src, &b.tgt_in, batch).unwrap();
            let loss = out.logits.cross_entropy(&b.tgt_out, Some(0), Smoothing::AllClasses(0.1));
            let mut weights: Vec<Mat<f64>> =
                out.encoder_weights.iter().map(|w| w.all(tape)).collect();
            for w in &out.decoder_weights {
                weights.extend([w.self_attn.all(tape), w.cross_attn.all(tape)]);
            }
            (loss, weights)
        });
        println!("{norm:?} Transformer, fused vs plain: max |Δ| = {worst:.1e}");
        assert!(worst <= 1e-12, "{norm:?}: fused and plain differ by {worst:e}");
    }
}

#[test]
fn the_decoder_only_model_runs_the_same_either_way() {
    let mut params = Params::<f64>::new();
    let cfg = Seq2SeqConfig {
        d_model: 8,
        heads: 2,
        d_ff: 16,
        layers: 2,
        ..Seq2SeqConfig::lecture17(VOCAB)
    };
    let model = DecoderOnly::new(&mut params, cfg, &mut Pcg64Mcg::seed_from_u64(2));
    let b = reversal(&mut Pcg64Mcg::seed_from_u64(3), 2, 6, SYMBOLS);
    let worst = both_ways(&params, |tape| {
        let logits = model.forward(tape, &b.tgt_in, 2).unwrap();
        (logits.cross_entropy(&b.tgt_out, None, Smoothing::None), Vec::new())
    });
    assert!(worst <= 1e-12, "decoder-only: fused and plain differ by {worst:e}");
}

#[test]
fn the_gru_models_run_the_same_either_way() {
    let (batch, len) = (3, 7);
    for attention in [false, true] {
        let mut params = Params::<f64>::new();
        let mut rng = Pcg64Mcg::seed_from_u64(4);
        let model = GruSeq2Seq::new(&mut params, VOCAB, 8, 12, attention, &mut rng);
        let b = reversal(&mut Pcg64Mcg::seed_from_u64(5), batch, len, SYMBOLS);
        let worst = both_ways(&params, |tape| {
            let (logits, weights) = model.forward(tape, &b.src, &b.tgt_in, batch);
            let loss = logits.cross_entropy(&b.tgt_out, None, Smoothing::None);
            (loss, weights.iter().map(|w| w.all(tape)).collect())
        });
        println!("GRU (attention {attention}), fused vs plain: max |Δ| = {worst:.1e}");
        assert!(worst <= 1e-12, "GRU (attention {attention}): fused and plain differ by {worst:e}");
    }
}
