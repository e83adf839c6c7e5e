//! Lecture 6 demo 01.1 — attention as a soft lookup in a four-entry table.

use blocks::{mat, matmul, matmul_t, softmax_rows};
use faer::Scale;
use record::{Notebook, say, show};

// ANCHOR: soft_lookup
/// A table with keys e1…e4 and values 10, 20, 30, 40; a query that is
/// closest to key 2. Multiplying the scores by a growing factor turns the
/// soft, differentiable lookup into a hard one. Weights print to 4 decimals
/// so that the last few ten-thousandths behind an output like 20.001 show.
pub fn soft_lookup(factors: &[f64], nb: &mut Notebook) {
    nb.demo("soft_lookup", "L6 01.1 · Attention as a soft lookup");
    let keys = mat(&[
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ]); // (4, 4): orthogonal keys
    let values = mat(&[[10.0], [20.0], [30.0], [40.0]]); // (4, 1)
    let query = mat(&[[0.1, 0.9, 0.3, 0.0]]); // (1, 4): most like key 2
    let asked = nb.value("lookup_query", show::row(query.as_ref(), 0, 1));
    say!(nb, "keys e1..e4, values 10 20 30 40, query {asked}");
    say!(nb, "{:>6}  {:<32}  {:>6}", "factor", "weights on keys 1..4", "output");
    for &factor in factors {
        let scores = matmul_t(query.as_ref(), keys.as_ref()) * Scale(factor); // (1, 4)
        let weights = softmax_rows(scores.as_ref()); // (1, 4)
        let output = matmul(weights.as_ref(), values.as_ref()); // (1, 1)
        let name = format!("lookup_x{}", show::short(factor).replace('.', "p"));
        let shown = nb.value(&name, show::num(output[(0, 0)], 3));
        let weights_shown = nb.value(&format!("{name}_weights"), show::row(weights.as_ref(), 0, 4));
        say!(nb, "{:>6}  {weights_shown:<32}  {shown:>6}", show::short(factor));
    }
}
// ANCHOR_END: soft_lookup
