//! Two implementations of the same thing must agree, in f64:
//! the autograd modules against the forward-only `blocks` crate with the
//! same parameters, and each fast path against its composed reference.
//! Every test prints its largest difference.

use autograd::nn::{
    DecoderLayer, EncoderLayer, Norm, Positions, Seq2Seq, Seq2SeqConfig, ToBlocks, causal_mask,
    padding_mask,
};
use autograd::{Heads, Params, Tape, attention, attention_bands, fused_attention};
use blocks::layers as b;
use blocks::{max_diff, worse};
use faer::Mat;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

fn random(rows: usize, cols: usize, rng: &mut Pcg64Mcg) -> Mat<f64> {
    Mat::from_fn(rows, cols, |_, _| rng.random_range(-1.0..1.0))
}

fn rows(m: &Mat<f64>, start: usize, len: usize) -> Mat<f64> {
    m.as_ref().submatrix(start, 0, len, m.ncols()).to_owned()
}

const TOL: f64 = 1e-12;

#[test]
fn encoder_and_decoder_layers_match_blocks() {
    let (batch, s_t, s_s, d, heads, d_ff) = (2, 5, 6, 8, 2, 16);
    for norm in [Norm::Post, Norm::Pre] {
        let mut rng = Pcg64Mcg::seed_from_u64(11);
        let mut params = Params::<f64>::new();
        let enc = EncoderLayer::new(&mut params, "enc", d, heads, d_ff, norm, &mut rng);
        let dec = DecoderLayer::new(&mut params, "dec", d, heads, d_ff, norm, &mut rng);
        let x = random(batch * s_s, d, &mut rng);
        let y = random(batch * s_t, d, &mut rng);
        // sequence 1 of the source is padded in its last two positions
        let src_ids: Vec<usize> =
            (0..batch * s_s).map(|r| if r >= 2 * s_s - 2 { 0 } else { 3 }).collect();
        let src_keep = padding_mask::<f64>(&src_ids, batch, s_s, 0);
        let cross_keep = padding_mask::<f64>(&src_ids, batch, s_t, 0);
        let causal = causal_mask::<f64>(batch, s_t);
        let tape = Tape::new(&params);
        let (memory, _) = enc.forward(tape.input(x.clone()), batch, Some(&src_keep));
        let (out, _) =
            dec.forward(tape.input(y.clone()), memory, batch, Some(&causal), Some(&cross_keep));
        let (enc_b, dec_b) = (&enc.to_blocks(&params), &dec.to_blocks(&params));
        let mut worst: f64 = 0.0;
        for s in 0..batch {
            let keep = rows(&src_keep, s * s_s, s_s);
            let mem_b = enc_b.forward(&rows(&x, s * s_s, s_s), Some(&keep));
            worst = worse(worst, max_diff(&mem_b, &rows(&memory.value(), s * s_s, s_s)));
            let out_b = dec_b.forward(
                &rows(&y, s * s_t, s_t),
                &mem_b,
                Some(&b::causal_mask(s_t)),
                Some(&rows(&cross_keep, s * s_t, s_t)),
            );
            worst = worse(worst, max_diff(&out_b, &rows(&out.value(), s * s_t, s_t)));
        }
        println!("{norm:?} encoder + decoder layer, autograd vs blocks: max |Δ| = {worst:.2e}");
        assert!(worst <= TOL, "{norm:?}: {worst:e}");
    }
}

#[test]
fn the_tiny_transformer_matches_blocks() {
    let (batch, len, vocab) = (2, 6, 12);
    for norm in [Norm::Post, Norm::Pre] {
        let mut rng = Pcg64Mcg::seed_from_u64(5);
        let mut params = Params::<f64>::new();
        let cfg = Seq2SeqConfig {
            vocab,
            d_model: 16,
            heads: 4,
            d_ff: 32,
            layers: 1,
            norm,
            positions: Positions::Sinusoidal,
            scale_embeddings: false,
            scaled_attention: true,
        };
        let model = Seq2Seq::new(&mut params, cfg, &mut rng);
        let src: Vec<usize> = (0..batch * len).map(|_| rng.random_range(2..vocab)).collect();
        let tgt: Vec<usize> = (0..batch * len).map(|_| rng.random_range(1..vocab)).collect();
        let tape = Tape::new(&params);
        let logits = model.forward(&tape, &src, &tgt, batch).unwrap().logits.value().clone();
        let table = |name: &str| params.get(params.find(name).unwrap()).value.clone();
        let (src_table, tgt_table) = (table("src.tokens.table"), table("tgt.tokens.table"));
        let pe = b::sinusoidal(len, 16);
        let embed =
            |t: &Mat<f64>, ids: &[usize]| Mat::from_fn(len, 16, |p, j| t[(ids[p], j)] + pe[(p, j)]);
        let (enc_b, dec_b, out_b) = (
            &model.encoder[0].to_blocks(&params),
            &model.decoder[0].to_blocks(&params),
            &model.out.to_blocks(&params),
        );
        let mut worst: f64 = 0.0;
        for s in 0..batch {
            let (src_s, tgt_s) = (&src[s * len..(s + 1) * len], &tgt[s * len..(s + 1) * len]);
            let mut memory = enc_b.forward(&embed(&src_table, src_s), None);
            if let Some((ln_e, _)) = &model.final_ln {
                memory = ln_e.to_blocks(&params).forward(&memory); // Pre-LN: a norm after each stack
            }
            let mut y =
                dec_b.forward(&embed(&tgt_table, tgt_s), &memory, Some(&b::causal_mask(len)), None);
            if let Some((_, ln_d)) = &model.final_ln {
                y = ln_d.to_blocks(&params).forward(&y);
            }
            worst = worse(worst, max_diff(&out_b.forward(&y), &rows(&logits, s * len, len)));
        }
        println!("{norm:?} tiny Transformer logits, autograd vs blocks: max |Δ| = {worst:.2e}");
        assert!(worst <= TOL, "{norm:?}: {worst:e}");
    }
}

#[test]
fn fused_attention_matches_the_composed_reference() {
    let mut rng = Pcg64Mcg::seed_from_u64(3);
    let shape = Heads { batch: 3, heads: 4 };
    let (sq, sk, d) = (5, 7, 16);
    let keep =
        Mat::from_fn(3 * sq, sk, |i, j| if i == 14 || (i + 2 * j) % 5 == 0 { 0.0 } else { 1.0 });
    let mut params = Params::<f64>::new();
    let q = params.add("q", random(3 * sq, d, &mut rng));
    let k = params.add("k", random(3 * sk, d, &mut rng));
    let v = params.add("v", random(3 * sk, d, &mut rng));
    let probe = random(3 * sq, d, &mut rng);
    let run = |fused: bool| {
        let tape = Tape::new(&params);
        let (qv, kv, vv) = (tape.param(q), tape.param(k), tape.param(v));
        let out = if fused {
            fused_attention(qv, kv, vv, shape, Some(&keep), true).context
        } else {
            attention(qv, kv, vv, shape, Some(&keep), true).context
        };
        let value = out.value().clone();
        let grads = tape.backward(out.mul(tape.input(probe.clone())).sum());
        (value, [q, k, v].map(|p| grads.get(p).unwrap().clone()))
    };
    let ((a, ga), (r, gr)) = (run(true), run(false));
    let worst = ga.iter().zip(&gr).map(|(x, y)| max_diff(x, y)).fold(max_diff(&a, &r), worse);
    println!("fused attention vs composed reference (values and gradients): max |Δ| = {worst:.2e}");
    assert!(worst <= TOL, "{worst:e}");
}

#[test]
fn attention_on_bands_matches_the_composed_reference() {
    // Q, K, V as bands of one (B·S, 3D) value (self-attention), against the
    // reference on the three bands sliced out
    let mut rng = Pcg64Mcg::seed_from_u64(6);
    let shape = Heads { batch: 3, heads: 4 };
    let (s, d) = (5, 16);
    let keep = autograd::nn::causal_mask::<f64>(3, s);
    let mut params = Params::<f64>::new();
    let qkv = params.add("qkv", random(3 * s, 3 * d, &mut rng));
    let probe = random(3 * s, d, &mut rng);
    let run = |fused: bool| {
        let tape = Tape::new(&params);
        let x = tape.param(qkv);
        let out = if fused {
            attention_bands((x, 0), (x, d), (x, 2 * d), d, shape, Some(&keep), true).context
        } else {
            let [q, k, v] = [0, 1, 2].map(|i| x.slice_cols(i * d, d));
            attention(q, k, v, shape, Some(&keep), true).context
        };
        let value = out.value().clone();
        let grads = tape.backward(out.mul(tape.input(probe.clone())).sum());
        (value, grads.get(qkv).unwrap().clone())
    };
    let ((a, ga), (r, gr)) = (run(true), run(false));
    let worst = max_diff(&a, &r).max(max_diff(&ga, &gr));
    println!("attention on bands vs composed reference: max |Δ| = {worst:.2e}");
    assert!(worst <= TOL, "{worst:e}");
}

#[test]
fn fused_residual_layer_norm_matches_add_then_layer_norm() {
    let mut rng = Pcg64Mcg::seed_from_u64(7);
    let mut params = Params::<f64>::new();
    let ids = [("x", 6), ("y", 6), ("gamma", 1), ("beta", 1)]
        .map(|(name, r)| params.add(name, random(r, 8, &mut rng)));
    let probe = random(6, 8, &mut rng);
    let run = |fused: bool| {
        let tape = Tape::new(&params);
        let [x, y, g, b] = ids.map(|p| tape.param(p));
        // x also feeds the loss directly, so its gradient is a sum of two
        let out =
            if fused { x.add_layer_norm(y, g, b, 1e-5) } else { x.add(y).layer_norm(g, b, 1e-5) };
        let out = out.add(x);
        let value = out.value().clone();
        let grads = tape.backward(out.mul(tape.input(probe.clone())).sum());
        (value, ids.map(|p| grads.get(p).unwrap().clone()))
    };
    let ((a, ga), (r, gr)) = (run(true), run(false));
    let worst = ga.iter().zip(&gr).map(|(x, y)| max_diff(x, y)).fold(max_diff(&a, &r), worse);
    println!("add_layer_norm vs add then layer_norm: max |Δ| = {worst:.2e}");
    assert!(worst <= TOL, "{worst:e}");
}

#[test]
fn fused_linear_relu_matches_linear_then_relu() {
    let mut rng = Pcg64Mcg::seed_from_u64(8);
    let mut params = Params::<f64>::new();
    let ids = [("x", 7, 5), ("w", 5, 6), ("b", 1, 6)]
        .map(|(name, r, c)| params.add(name, random(r, c, &mut rng)));
    let probe = random(7, 6, &mut rng);
    let run = |fused: bool| {
        let tape = Tape::new(&params);
        let [x, w, b] = ids.map(|p| tape.param(p));
        let out = if fused { x.linear_relu(w, b) } else { x.linear(w, b).relu() };
        let value = out.value().clone();
        let grads = tape.backward(out.mul(tape.input(probe.clone())).sum());
        (value, ids.map(|p| grads.get(p).unwrap().clone()))
    };
    let ((a, ga), (r, gr)) = (run(true), run(false));
    let worst = ga.iter().zip(&gr).map(|(x, y)| max_diff(x, y)).fold(max_diff(&a, &r), worse);
    println!("linear_relu vs linear then relu: max |Δ| = {worst:.2e}");
    assert!(worst <= TOL, "{worst:e}");
}

#[test]
fn fused_gru_step_matches_the_composed_reference() {
    let mut rng = Pcg64Mcg::seed_from_u64(4);
    let (batch, hid) = (3, 5);
    let mut params = Params::<f64>::new();
    let ids = [(batch, hid), (batch, 3 * hid), (hid, 3 * hid), (1, 3 * hid)]
        .map(|(r, c)| params.add(format!("p{r}x{c}"), random(r, c, &mut rng)));
    let probe = random(batch, hid, &mut rng);
    let run = |fused: bool| {
        let tape = Tape::new(&params);
        let [h, gi, w, bias] = ids.map(|p| tape.param(p));
        let out = if fused { h.gru_step_fused(gi, w, bias) } else { h.gru_step(gi, w, bias) };
        let value = out.value().clone();
        let grads = tape.backward(out.mul(tape.input(probe.clone())).sum());
        (value, ids.map(|p| grads.get(p).unwrap().clone()))
    };
    let ((a, ga), (r, gr)) = (run(true), run(false));
    let worst = ga.iter().zip(&gr).map(|(x, y)| max_diff(x, y)).fold(max_diff(&a, &r), worse);
    println!("fused GRU step vs composed reference (values and gradients): max |Δ| = {worst:.2e}");
    assert!(worst <= TOL, "{worst:e}");
}

#[test]
fn gru_steps_on_row_bands_match_the_composed_reference() {
    // three steps reading their input projections from rows of one matrix,
    // as nn::Gru runs them
    let mut rng = Pcg64Mcg::seed_from_u64(5);
    let (batch, hid, steps) = (3, 5, 3);
    let mut params = Params::<f64>::new();
    let ids = [(batch, hid), (steps * batch, 3 * hid), (hid, 3 * hid), (1, 3 * hid)]
        .map(|(r, c)| params.add(format!("p{r}x{c}"), random(r, c, &mut rng)));
    let probe = random(batch, hid, &mut rng);
    let run = |fused: bool| {
        let tape = Tape::new(&params);
        let [mut h, gi, w, bias] = ids.map(|p| tape.param(p));
        for t in 0..steps {
            h = if fused {
                h.gru_step_at(gi, t * batch, w, bias)
            } else {
                h.gru_step(gi.slice_rows(t * batch, batch), w, bias)
            };
        }
        let value = h.value().clone();
        let grads = tape.backward(h.mul(tape.input(probe.clone())).sum());
        (value, ids.map(|p| grads.get(p).unwrap().clone()))
    };
    let ((a, ga), (r, gr)) = (run(true), run(false));
    let worst = ga.iter().zip(&gr).map(|(x, y)| max_diff(x, y)).fold(max_diff(&a, &r), worse);
    println!("GRU steps on row bands vs composed reference: max |Δ| = {worst:.2e}");
    assert!(worst <= TOL, "{worst:e}");
}

#[test]
fn the_decoder_only_lm_matches_blocks() {
    use autograd::nn::DecoderOnly;
    let (batch, len, vocab, d) = (2, 6, 11, 16);
    for norm in [Norm::Post, Norm::Pre] {
        let mut rng = Pcg64Mcg::seed_from_u64(8);
        let mut params = Params::<f64>::new();
        let cfg = Seq2SeqConfig {
            vocab,
            d_model: d,
            heads: 4,
            d_ff: 32,
            layers: 2,
            norm,
            positions: Positions::Sinusoidal,
            scale_embeddings: true,
            scaled_attention: true,
        };
        let model = DecoderOnly::new(&mut params, cfg, &mut rng);
        let ids: Vec<usize> = (0..batch * len).map(|_| rng.random_range(0..vocab)).collect();
        let tape = Tape::new(&params);
        let logits = model.forward(&tape, &ids, batch).unwrap().value().clone();
        let table = params.get(params.find("embed.tokens.table").unwrap()).value.clone();
        let pe = b::sinusoidal(len, d);
        let scale = (d as f64).sqrt();
        let mut worst: f64 = 0.0;
        for s in 0..batch {
            let mut x =
                Mat::from_fn(len, d, |p, j| table[(ids[s * len + p], j)] * scale + pe[(p, j)]);
            for layer in &model.layers {
                x = layer.to_blocks(&params).forward(&x, Some(&b::causal_mask(len)));
            }
            if let Some(ln) = &model.final_ln {
                x = ln.to_blocks(&params).forward(&x);
            }
            worst = worse(
                worst,
                max_diff(&model.out.to_blocks(&params).forward(&x), &rows(&logits, s * len, len)),
            );
        }
        println!("{norm:?} decoder-only LM logits, autograd vs blocks: max |Δ| = {worst:.2e}");
        assert!(worst <= TOL, "{norm:?}: {worst:e}");
    }
}
