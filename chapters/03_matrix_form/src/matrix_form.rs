//! Lecture 17 demo 01.2 — one query at a time, or all at once: the same
//! numbers, from three independent implementations.

use autograd::nn::init::normal;
use autograd::{Heads, Params, Tape, fused_attention};
use blocks::attention::attention_by_loops;
use blocks::{matmul, max_diff, scaled_dot_product_attention};
use faer::Mat;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say, show};

// ANCHOR: loop_vs_matrix
/// Six words, d_model = d_k = 8: the word-by-word loop of chapter 2, the
/// matrix form `softmax(QKᵀ/√d_k)·V`, and the autograd crate's fused op.
pub fn loop_vs_matrix(seed: u64, nb: &mut Notebook) {
    nb.demo("loop_vs_matrix", "L17 01.2 · Word by word, or all at once");
    let (n, d) = (6, 8);
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let x: Mat<f64> = normal(n, d, 1.0, &mut rng); // (n, d_model)
    let w = |rng: &mut Pcg64Mcg| normal::<f64>(d, d, 1.0 / (d as f64).sqrt(), rng);
    let (w_q, w_k, w_v) = (w(&mut rng), w(&mut rng), w(&mut rng)); // (d_model, d_k) each
    let q = matmul(x.as_ref(), w_q.as_ref()); // (n, d_k)
    let k = matmul(x.as_ref(), w_k.as_ref()); // (n, d_k)
    let v = matmul(x.as_ref(), w_v.as_ref()); // (n, d_v)

    let by_loops = attention_by_loops(q.as_ref(), k.as_ref(), v.as_ref());
    let by_matrix = scaled_dot_product_attention(q.as_ref(), k.as_ref(), v.as_ref(), None).output;
    let by_autograd = {
        let mut params = Params::<f64>::new();
        let ids =
            [params.add("q", q.clone()), params.add("k", k.clone()), params.add("v", v.clone())];
        let tape = Tape::new(&params);
        let [q, k, v] = ids.map(|p| tape.param(p));
        let scaled = true; // scale the scores by 1/√d_k, as the other two do
        fused_attention(q, k, v, Heads { batch: 1, heads: 1 }, None, scaled).context.value().clone()
    };
    say!(nb, "{n} words, d_model = d_k = {d}, f64");
    let a = nb.value("loop_vs_matrix", show::sci(max_diff(&by_loops, &by_matrix), 1));
    let b = nb.value("matrix_vs_autograd", show::sci(max_diff(&by_matrix, &by_autograd), 1));
    say!(nb, "max |loop − matrix|      = {a}");
    say!(nb, "max |matrix − autograd|  = {b}");
}
// ANCHOR_END: loop_vs_matrix
