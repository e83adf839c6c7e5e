//! Every op's gradient against central finite differences, in f64.
//!
//! Each check builds a small function of some parameters, reduces its
//! output to a number with fixed random weights (`Σ out ⊙ R`, so every
//! output element matters differently), and compares the tape's gradient of
//! every parameter element with `(f(θ + h) − f(θ − h)) / 2h`.

use autograd::{
    Heads, Params, Smoothing, Tape, Var, attention, attention_bands, concat_cols, concat_rows,
    fused_attention,
};
use blocks::worse;
use faer::Mat;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

fn random(rows: usize, cols: usize, rng: &mut Pcg64Mcg) -> Mat<f64> {
    Mat::from_fn(rows, cols, |_, _| rng.random_range(-1.0..1.0))
}

fn gradcheck(
    name: &str,
    shapes: &[(usize, usize)],
    f: impl for<'t> Fn(&'t Tape<f64>, &[Var<'t, f64>]) -> Var<'t, f64>,
) {
    let mut rng = Pcg64Mcg::seed_from_u64(7);
    let mut params = Params::<f64>::new();
    let ids: Vec<_> = shapes
        .iter()
        .enumerate()
        .map(|(i, &(r, c))| params.add(format!("p{i}"), random(r, c, &mut rng)))
        .collect();
    let loss_of = |params: &Params<f64>, probe: Option<&Mat<f64>>| -> (f64, Option<Mat<f64>>) {
        let tape = Tape::new(params);
        let xs: Vec<_> = ids.iter().map(|&p| tape.param(p)).collect();
        let out = f(&tape, &xs);
        let (r, c) = out.shape();
        let probe = probe.cloned().unwrap_or_else(|| {
            let mut g = Pcg64Mcg::seed_from_u64(99);
            random(r, c, &mut g)
        });
        let loss = out.mul(tape.input(probe.clone())).sum();
        (loss.scalar(), Some(probe))
    };
    let (_, probe) = loss_of(&params, None);
    let probe = probe.unwrap();
    // A matrix taken from the pool holds stale numbers that an op must
    // overwrite; put NaN-filled ones there, in the parameters' shapes (those
    // of their gradients), so that a gradient that reads one shows it.
    for &(r, c) in shapes {
        for _ in 0..4 {
            autograd::pool::give(Mat::from_fn(r, c, |_, _| f64::NAN));
        }
    }
    let grads = {
        let tape = Tape::new(&params);
        let xs: Vec<_> = ids.iter().map(|&p| tape.param(p)).collect();
        let loss = f(&tape, &xs).mul(tape.input(probe.clone())).sum();
        tape.backward(loss)
    };
    let h = 1e-6;
    let mut worst = 0.0f64;
    for &p in &ids {
        let (r, c) = (params.get(p).value.nrows(), params.get(p).value.ncols());
        for i in 0..r {
            for j in 0..c {
                let orig = params.get(p).value[(i, j)];
                params.get_mut(p).value[(i, j)] = orig + h;
                let up = loss_of(&params, Some(&probe)).0;
                params.get_mut(p).value[(i, j)] = orig - h;
                let down = loss_of(&params, Some(&probe)).0;
                params.get_mut(p).value[(i, j)] = orig;
                let numeric = (up - down) / (2.0 * h);
                let analytic = grads.get(p).map_or(0.0, |g| g[(i, j)]);
                let err = (numeric - analytic).abs() / (1.0 + numeric.abs().max(analytic.abs()));
                // (`max` would pass over a NaN)
                assert!(err.is_finite(), "{name}: gradient {analytic} vs {numeric} at ({i}, {j})");
                worst = worse(worst, err);
            }
        }
    }
    assert!(worst < 1e-7, "{name}: worst relative gradient error {worst:e}");
}

#[test]
fn products() {
    gradcheck("matmul", &[(3, 4), (4, 2)], |_, x| x[0].matmul(x[1]));
    gradcheck("linear_relu", &[(5, 4), (4, 3), (1, 3)], |_, x| x[0].linear_relu(x[1], x[2]));
    gradcheck("matmul_t", &[(3, 4), (5, 4)], |_, x| x[0].matmul_t(x[1]));
    gradcheck("linear", &[(3, 4), (4, 2), (1, 2)], |_, x| x[0].linear(x[1], x[2]));
    gradcheck("bmm", &[(6, 4), (8, 3)], |_, x| x[0].bmm(x[1], 2, false));
    gradcheck("bmm transposed", &[(6, 4), (10, 4)], |_, x| x[0].bmm(x[1], 2, true));
}

#[test]
fn elementwise() {
    gradcheck("add", &[(3, 4), (3, 4)], |_, x| x[0].add(x[1]));
    gradcheck("add row", &[(3, 4), (1, 4)], |_, x| x[0].add(x[1]));
    gradcheck("sub", &[(3, 4), (3, 4)], |_, x| x[0].sub(x[1]));
    gradcheck("mul", &[(3, 4), (3, 4)], |_, x| x[0].mul(x[1]));
    gradcheck("scale", &[(3, 4)], |_, x| x[0].scale(-2.5));
    gradcheck("relu", &[(3, 4)], |_, x| x[0].relu());
    gradcheck("gelu", &[(3, 4)], |_, x| x[0].scale(3.0).gelu());
    gradcheck("tanh", &[(3, 4)], |_, x| x[0].scale(2.0).tanh());
    gradcheck("sigmoid", &[(3, 4)], |_, x| x[0].scale(4.0).sigmoid());
    gradcheck("exp", &[(3, 4)], |_, x| x[0].scale(2.0).exp());
    // ln of a positive argument: e^x > 0
    gradcheck("ln", &[(3, 4)], |_, x| x[0].exp().scale(0.5).ln());
    gradcheck("a value used twice", &[(3, 3)], |_, x| x[0].matmul(x[0]).add(x[0]));
}

#[test]
fn reductions_and_shapes() {
    gradcheck("sum", &[(3, 4)], |_, x| x[0].mul(x[0]).sum());
    gradcheck("mean", &[(3, 4)], |_, x| x[0].mul(x[0]).mean());
    gradcheck("transpose", &[(3, 4)], |_, x| x[0].transpose());
    gradcheck("split_heads", &[(6, 4)], |_, x| x[0].split_heads(2, 2));
    gradcheck("combine_heads", &[(12, 2)], |_, x| x[0].combine_heads(2, 2));
    gradcheck("slice_rows", &[(5, 3)], |_, x| x[0].slice_rows(1, 3));
    gradcheck("slice_cols", &[(3, 5)], |_, x| x[0].slice_cols(2, 2));
    gradcheck("concat_rows", &[(2, 3), (4, 3)], |_, x| concat_rows(&[x[0], x[1], x[0]]));
    gradcheck("concat_cols", &[(3, 2), (3, 4)], |_, x| concat_cols(&[x[1], x[0]]));
}

#[test]
fn softmaxes_and_losses() {
    let keep = Mat::from_fn(4, 5, |i, j| if i == 3 || (i + j) % 3 == 0 { 0.0 } else { 1.0 });
    gradcheck("softmax", &[(4, 5)], |_, x| x[0].scale(3.0).softmax_rows(None));
    gradcheck("softmax masked, a row fully masked", &[(4, 5)], |_, x| {
        x[0].scale(3.0).softmax_rows(Some(&keep))
    });
    gradcheck("log_softmax", &[(4, 5)], |_, x| x[0].scale(3.0).log_softmax_rows());
    let targets = [0, 4, 2, 1];
    for smoothing in [Smoothing::None, Smoothing::AllClasses(0.1), Smoothing::OtherClasses(0.1)] {
        gradcheck("cross_entropy", &[(4, 5)], |_, x| {
            x[0].scale(3.0).cross_entropy(&targets, Some(2), smoothing)
        });
    }
}

#[test]
fn norms_embedding_dropout() {
    gradcheck("add_layer_norm", &[(4, 6), (4, 6), (1, 6), (1, 6)], |_, x| {
        x[0].scale(3.0).add_layer_norm(x[1], x[2], x[3], 1e-5)
    });
    gradcheck("add_layer_norm x + x", &[(4, 6), (1, 6), (1, 6)], |_, x| {
        x[0].add_layer_norm(x[0], x[1], x[2], 1e-5)
    });
    gradcheck("layer_norm", &[(4, 6), (1, 6), (1, 6)], |_, x| {
        x[0].scale(3.0).layer_norm(x[1], x[2], 1e-5)
    });
    gradcheck("batch_norm", &[(5, 3), (1, 3), (1, 3)], |_, x| {
        x[0].scale(3.0).batch_norm(x[1], x[2], 1e-5)
    });
    gradcheck("gather_rows", &[(5, 3)], |_, x| x[0].gather_rows(&[4, 0, 4, 2]));
    let mut rng = Pcg64Mcg::seed_from_u64(3);
    let mask = autograd::dropout_mask::<f64>(3, 4, 0.5, &mut rng);
    gradcheck("dropout", &[(3, 4)], |_, x| x[0].dropout(mask.clone()));
}

#[test]
fn attention_fused_and_reference() {
    let shape = Heads { batch: 2, heads: 2 };
    // queries 3 per sequence, keys 4 per sequence; the last query of
    // sequence 1 sees nothing at all
    let keep = Mat::from_fn(6, 4, |i, j| if i == 5 || (i == 1 && j == 3) { 0.0 } else { 1.0 });
    for scaled in [true, false] {
        for mask in [None, Some(&keep)] {
            gradcheck("fused_attention", &[(6, 4), (8, 4), (8, 4)], |_, x| {
                fused_attention(x[0], x[1], x[2], shape, mask, scaled).context
            });
            gradcheck("attention", &[(6, 4), (8, 4), (8, 4)], |_, x| {
                attention(x[0], x[1], x[2], shape, mask, scaled).context
            });
        }
    }
}

#[test]
fn attention_on_column_bands() {
    let shape = Heads { batch: 2, heads: 2 };
    let keep = Mat::from_fn(8, 4, |i, j| if j > i % 4 { 0.0 } else { 1.0 });
    // self-attention: Q, K, V side by side in one (B·S, 3D) value
    gradcheck("attention_bands qkv", &[(8, 12)], |_, x| {
        attention_bands((x[0], 0), (x[0], 4), (x[0], 8), 4, shape, Some(&keep), true).context
    });
    // cross-attention: K, V side by side; and K = V the same whole value
    gradcheck("attention_bands kv", &[(6, 4), (8, 8)], |_, x| {
        attention_bands((x[0], 0), (x[1], 0), (x[1], 4), 4, shape, None, true).context
    });
    gradcheck("attention k = v", &[(6, 4), (8, 4)], |_, x| {
        fused_attention(x[0], x[1], x[1], shape, None, false).context
    });
    // Q = K = V one value; and bands that leave columns 4..8 unused (their
    // gradient must be zero, not stale) while K and V share a band
    gradcheck("attention q = k = v", &[(8, 4)], |_, x| {
        fused_attention(x[0], x[0], x[0], shape, Some(&keep), true).context
    });
    gradcheck("attention_bands gap", &[(8, 12)], |_, x| {
        attention_bands((x[0], 0), (x[0], 8), (x[0], 8), 4, shape, Some(&keep), true).context
    });
    // bands that overlap in part: K's band starts inside Q's
    gradcheck("attention_bands overlap", &[(8, 10)], |_, x| {
        attention_bands((x[0], 0), (x[0], 2), (x[0], 6), 4, shape, Some(&keep), true).context
    });
}

#[test]
fn gru_step_fused_and_reference() {
    let shapes = [(3, 4), (3, 12), (4, 12), (1, 12)];
    gradcheck("gru_step_fused", &shapes, |_, x| x[0].gru_step_fused(x[1], x[2], x[3]));
    gradcheck("gru_step", &shapes, |_, x| x[0].gru_step(x[1], x[2], x[3]));
    // two steps reading rows 3..6 and 6..9 of one projection matrix
    gradcheck("gru_step_at", &[(3, 4), (9, 12), (4, 12), (1, 12)], |_, x| {
        x[0].gru_step_at(x[1], 3, x[2], x[3]).gru_step_at(x[1], 6, x[2], x[3])
    });
}
