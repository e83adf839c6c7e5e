//! Lecture 6 demo 03.3 — the shapes of multi-head attention, step by step.

use autograd::nn::init::normal;
use autograd::{Params, Tape};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use record::{Notebook, say};

// ANCHOR: shape_walk
/// B = 2 sequences of S = 5 positions, D = 12, h = 3 heads of D_h = 4. The
/// book stores (B, S, D) as (B·S, D), one row per position.
pub fn shape_walk(nb: &mut Notebook) {
    nb.demo("shape_walk", "L6 03.3 · B×S×D → B×h×S×D_h → B×S×D");
    let (b, s, d, h) = (2, 5, 12, 3);
    let mut rng = Pcg64Mcg::seed_from_u64(3);
    let mut params = Params::<f64>::new();
    let w_q = params.add("w_q", normal(d, d, 0.3, &mut rng));
    let tape = Tape::new(&params);
    let x = tape.input(normal(b * s, d, 1.0, &mut rng));
    let shape = |v: autograd::Var<'_, f64>| format!("{:?}", v.shape());
    say!(nb, "x                         {:<9} (B·S, D)      the input", shape(x));
    let q = x.matmul(tape.param(w_q));
    say!(nb, "q = x·W^Q                 {:<9} (B·S, D)      one product for all heads", shape(q));
    let qh = q.split_heads(b, h);
    say!(
        nb,
        "split_heads(q)            {:<9} (B·h·S, D_h)  a copy: head i of sequence b is block b·h + i",
        shape(qh)
    );
    let scores = qh.bmm(qh, b * h, true).scale(1.0 / ((d / h) as f64).sqrt());
    say!(
        nb,
        "q_h·k_hᵀ/√D_h             {:<9} (B·h·S, S)    one S×S block per sequence and head",
        shape(scores)
    );
    let weights = scores.softmax_rows(None);
    say!(nb, "softmax                   {:<9} (B·h·S, S)    each row sums to 1", shape(weights));
    let context = weights.bmm(qh, b * h, false);
    say!(nb, "weights·v_h               {:<9} (B·h·S, D_h)", shape(context));
    let combined = context.combine_heads(b, h);
    say!(
        nb,
        "combine_heads             {:<9} (B·S, D)      a copy: heads side by side again",
        shape(combined)
    );
    say!(
        nb,
        "the fused op reads each head as a view of a (S, B·D) copy of q, k, v: no split or combine node"
    );
}
// ANCHOR_END: shape_walk
