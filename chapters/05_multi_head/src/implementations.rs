//! Lecture 17 demo 02.4 and exercise 3 — the parameter count does not
//! depend on h; three implementations give the same numbers; a reversed
//! mask convention silently attends to padding only.

use autograd::nn::init::normal;
use autograd::nn::{DecoderLayer, EncoderLayer, MultiHeadAttention, Norm, padding_mask};
use autograd::{Heads, Params, Tape, attention};
use blocks::{matmul, max_diff, scaled_dot_product_attention, worse};
use faer::Mat;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

// ANCHOR: parameter_count
/// nn.MultiheadAttention(d, h)'s parameters, counted on the autograd
/// module: W^Q, W^K, W^V, W^O and four biases.
pub fn attention_parameters(d: usize, h: usize) -> usize {
    let mut params = Params::<f64>::new();
    let mut rng = Pcg64Mcg::seed_from_u64(0);
    MultiHeadAttention::new(&mut params, "mha", d, h, &mut rng);
    params.count()
}
// ANCHOR_END: parameter_count

/// The count for h = 1, 8, 16 at d_model = 512, beside the formula.
pub fn parameter_count(nb: &mut Notebook) {
    nb.demo("parameter_count", "L17 02.4 · Parameters of multi-head attention, d_model = 512");
    let d = 512;
    for h in [1, 8, 16] {
        let count = nb.value(&format!("params_h{h}"), show::grouped(attention_parameters(d, h)));
        say!(nb, "h = {h:>2}: {count} parameters, d_k = d_model/h = {}", d / h);
    }
    let formula = nb.value("params_formula", show::grouped(4 * d * d + 4 * d));
    say!(nb, "4·d_model² + 4·d_model = {formula}");
}

// ANCHOR: three_implementations
/// The same parameters through (1) a loop over heads with separate
/// matrices, (2) one projection split into heads and combined again,
/// (3) the autograd module (fused op) — self- and cross-attention.
pub fn three_implementations(seed: u64, nb: &mut Notebook) {
    nb.demo("three_implementations", "L17 02.4 · Three implementations, one answer");
    // the small case, and the width of the lecture's parameter count
    for (d, h) in [(12, 3), (512, 8)] {
        compare(d, h, seed, nb);
    }
    // The lecture's figures as it reported them: numpy, its own PyTorch module
    // and nn.MultiheadAttention (it does not say which pair gave which).
    const LECTURE: [(&str, &[f64]); 3] =
        [("self", &[1.3e-15, 8.9e-16]), ("cross", &[6.7e-16]), ("weights", &[2.2e-16])];
    say!(nb, "ours (1) vs (2) from d_model 12 to 512, beside the lecture's figures:");
    for (kind, figures) in LECTURE {
        let name = |d| match kind {
            "weights" => format!("self_weights_d{d}"),
            _ => format!("{kind}_loop_vs_split_d{d}"),
        };
        let (small, wide) = (nb.number(&name(12)), nb.number(&name(512)));
        let growth = nb.value(&format!("{kind}_width_growth"), show::num(wide / small, 1));
        let lecture: Vec<String> = figures.iter().map(|&f| show::sci(f, 1)).collect();
        // how many times ours each lecture figure is, at each width
        let gaps = |d, ours: f64, nb: &mut Notebook| -> String {
            let shown = figures.iter().enumerate().map(|(i, &f)| {
                nb.value(&format!("{kind}_lecture_gap{i}_d{d}"), show::num(f / ours, 1))
            });
            shown.collect::<Vec<_>>().join("×, ") + "×"
        };
        let (at12, at512) = (gaps(12, small, nb), gaps(512, wide, nb));
        say!(
            nb,
            "  {kind:<8} ours ×{growth} with width; lecture {} = {at12} ours at 12, {at512} at 512",
            lecture.join(", ")
        );
    }
}

/// One comparison of the three routes at width `d` with `h` heads.
fn compare(d: usize, h: usize, seed: u64, nb: &mut Notebook) {
    let (batch, s_q, s_k) = (2, 5, 7);
    say!(nb, "d_model = {d}, h = {h}, B = {batch}, S_q = {s_q}, S_k = {s_k}, seed {seed}");
    let d_h = d / h;
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut params = Params::<f64>::new();
    let mha = MultiHeadAttention::new(&mut params, "mha", d, h, &mut rng);
    let x: Mat<f64> = normal(batch * s_q, d, 1.0, &mut rng); // (B·S_q, d): the queries' sequence
    let memory: Mat<f64> = normal(batch * s_k, d, 1.0, &mut rng); // (B·S_k, d): keys and values, cross
    let value = |id| params.get(id).value.clone();
    let (w_q, w_k, w_v, w_o) =
        (value(mha.w_q.w), value(mha.w_k.w), value(mha.w_v.w), value(mha.w_o.w));
    let (b_q, b_k, b_v, b_o) = (
        value(mha.w_q.b.unwrap()),
        value(mha.w_k.b.unwrap()),
        value(mha.w_v.b.unwrap()),
        value(mha.w_o.b.unwrap()),
    );
    let affine = |x: &Mat<f64>, w: &Mat<f64>, b: &Mat<f64>| {
        let y = matmul(x.as_ref(), w.as_ref());
        Mat::from_fn(y.nrows(), y.ncols(), |i, j| y[(i, j)] + b[(0, j)])
    };
    let cols = |m: &Mat<f64>, i: usize| m.as_ref().submatrix(0, i * d_h, m.nrows(), d_h).to_owned();
    for (kind, kv) in [("self", &x), ("cross", &memory)] {
        let s_kv = kv.nrows() / batch;
        // (1) h sets of separate matrices W^Q_i, W^K_i, W^V_i, one sequence at a time
        let mut loop_out = Mat::<f64>::zeros(batch * s_q, d);
        let mut loop_weights = Vec::new();
        for b in 0..batch {
            let xb = x.as_ref().submatrix(b * s_q, 0, s_q, d).to_owned();
            let kvb = kv.as_ref().submatrix(b * s_kv, 0, s_kv, d).to_owned();
            let mut concat = Mat::<f64>::zeros(s_q, d);
            for i in 0..h {
                let q = affine(&xb, &cols(&w_q, i), &cols(&b_q, i)); // (S_q, d_h)
                let k = affine(&kvb, &cols(&w_k, i), &cols(&b_k, i)); // (S_k, d_h)
                let v = affine(&kvb, &cols(&w_v, i), &cols(&b_v, i)); // (S_k, d_h)
                let a = scaled_dot_product_attention(q.as_ref(), k.as_ref(), v.as_ref(), None);
                concat.as_mut().submatrix_mut(0, i * d_h, s_q, d_h).copy_from(&a.output);
                loop_weights.push(a.weights);
            }
            loop_out
                .as_mut()
                .submatrix_mut(b * s_q, 0, s_q, d)
                .copy_from(&affine(&concat, &w_o, &b_o));
        }
        // (2) and (3) on the tape
        let tape = Tape::new(&params);
        let (xv, kvv) = (tape.input(x.clone()), tape.input(kv.clone()));
        let (q, k, v) = (mha.w_q.forward(xv), mha.w_k.forward(kvv), mha.w_v.forward(kvv));
        let split = mha
            .w_o
            .forward(attention(q, k, v, Heads { batch, heads: h }, None, true).context)
            .value()
            .clone();
        let fused = mha.forward(xv, kvv, batch, None);
        let fused_out = fused.context.value().clone();
        let mut w_diff: f64 = 0.0;
        for b in 0..batch {
            for i in 0..h {
                let head = fused.weights.head(&tape, b, i);
                w_diff = worse(w_diff, max_diff(&loop_weights[b * h + i], &head));
            }
        }
        let a = nb.value(
            &format!("{kind}_loop_vs_split_d{d}"),
            show::sci(max_diff(&loop_out, &split), 1),
        );
        let c = nb.value(
            &format!("{kind}_split_vs_fused_d{d}"),
            show::sci(max_diff(&split, &fused_out), 1),
        );
        let w = nb.value(&format!("{kind}_weights_d{d}"), show::sci(w_diff, 1));
        say!(
            nb,
            "  {:<16} |loop − split| {a}, |split − fused| {c}, per-head weights |loop − fused| {w}",
            format!("{kind} attention:")
        );
    }
}
// ANCHOR_END: three_implementations

// ANCHOR: reversed_mask
/// A padding mask in the 1 = keep convention, and the same mask passed to
/// code that expects 1 = ignore (PyTorch's nn.MultiheadAttention booleans).
pub fn reversed_mask(seed: u64, nb: &mut Notebook) {
    nb.demo("reversed_mask", "L17 02.4 · The mask convention, passed the wrong way round");
    let (s, d, pad) = (5, 8, 0);
    let ids = [7, 3, 9, pad, pad]; // three words, two padding positions
    let mut rng = Pcg64Mcg::seed_from_u64(seed + 1);
    let x: Mat<f64> = normal(s, d, 1.0, &mut rng);
    let keep: Mat<f64> = padding_mask(&ids, 1, s, pad); // (5, 5), 1 = may look
    let reversed = Mat::from_fn(s, s, |i, j| 1.0 - keep[(i, j)]); // what "1 = ignore" code would see
    say!(nb, "ids {ids:?} (0 = padding), keep-mask row: {}", show::row(keep.as_ref(), 0, 0));
    for (label, mask) in [("right", &keep), ("reversed", &reversed)] {
        let a =
            scaled_dot_product_attention(x.as_ref(), x.as_ref(), x.as_ref(), Some(mask.as_ref()));
        let on_padding: Vec<f64> = (0..s).map(|i| a.weights[(i, 3)] + a.weights[(i, 4)]).collect();
        let shown = nb.value(&format!("pad_weights_{label}"), show::tuple(on_padding, 3));
        say!(nb, "{label:<8} convention: each query's weight on the two padding positions {shown}");
    }
}
// ANCHOR_END: reversed_mask

// ANCHOR: exercise_1
/// Exercise 1 (L17 exercise 3): the parameters of one encoder layer and one
/// decoder layer at d_model = d, d_ff and h heads, counted on the modules
/// themselves; and the encoder layer's by part (attention, feed-forward,
/// LayerNorms), from the names the modules gave its parameters.
pub fn layer_parameters(d: usize, d_ff: usize, h: usize) -> (usize, usize, [usize; 3]) {
    let mut rng = Pcg64Mcg::seed_from_u64(0);
    let mut enc = Params::<f32>::new();
    EncoderLayer::new(&mut enc, "enc", d, h, d_ff, Norm::Post, &mut rng);
    let part = |prefix: &str| -> usize {
        let sizes = enc.iter().filter(|(_, p)| p.name.starts_with(prefix));
        sizes.map(|(_, p)| p.value.nrows() * p.value.ncols()).sum()
    };
    let parts = [part("enc.attn"), part("enc.ff"), part("enc.ln")];
    let mut dec = Params::<f32>::new();
    DecoderLayer::new(&mut dec, "dec", d, h, d_ff, Norm::Post, &mut rng);
    (enc.count(), dec.count(), parts)
}
// ANCHOR_END: exercise_1

/// Exercise 1 at the big model's sizes (d_model 1024, d_ff 4096), printed.
pub fn exercise_1(nb: &mut Notebook) {
    nb.demo("exercise_1", "Exercise 1 (L17 ex. 3) · Parameters of the big model's layers");
    let (d, d_ff) = (1024, 4096);
    for h in [16, 8] {
        let (encoder, decoder, [attention, ffn, norms]) = layer_parameters(d, d_ff, h);
        if h == 16 {
            let a = nb.value("big_attention", show::grouped(attention));
            let f = nb.value("big_ffn", show::grouped(ffn));
            let n = nb.value("big_norms", show::grouped(norms));
            say!(nb, "encoder layer = attention {a} + feed-forward {f} + two LayerNorms {n}");
        }
        let e = nb.value(&format!("big_encoder_h{h}"), show::grouped(encoder));
        let dd = nb.value(&format!("big_decoder_h{h}"), show::grouped(decoder));
        say!(nb, "h = {h:>2}: encoder layer {e}, decoder layer {dd}");
    }
}
