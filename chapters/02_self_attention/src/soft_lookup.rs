//! Lecture 6 demo 01.1 — attention as a soft lookup in a four-entry table.

use blocks::{mat, matmul, matmul_t, softmax_rows};
use faer::{Mat, Scale};
use record::{Notebook, say, show};

// ANCHOR: soft_lookup
/// The table: keys e1…e4, orthogonal; values 10, 20, 30, 40; and a query
/// closest to key 2. Returns (keys, values, query).
pub fn table() -> (Mat<f64>, Mat<f64>, Mat<f64>) {
    let keys = mat(&[
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ]); // (4, 4): orthogonal keys
    let values = mat(&[[10.0], [20.0], [30.0], [40.0]]); // (4, 1)
    let query = mat(&[[0.1, 0.9, 0.3, 0.0]]); // (1, 4): most like key 2
    (keys, values, query)
}

/// One lookup with the scores multiplied by `factor`: the weights on the
/// four keys, and the output they mix. A growing factor turns the soft,
/// differentiable lookup into a hard one.
pub fn soft_lookup_at(
    keys: &Mat<f64>,
    values: &Mat<f64>,
    query: &Mat<f64>,
    factor: f64,
) -> (Mat<f64>, f64) {
    let scores = matmul_t(query.as_ref(), keys.as_ref()) * Scale(factor); // (1, 4)
    let weights = softmax_rows(scores.as_ref()); // (1, 4)
    let output = matmul(weights.as_ref(), values.as_ref()); // (1, 1)
    (weights, output[(0, 0)])
}
// ANCHOR_END: soft_lookup

/// The lookup at every factor, printed. Weights print to 4 decimals so that
/// the last few ten-thousandths behind an output like 20.001 show.
pub fn soft_lookup(factors: &[f64], nb: &mut Notebook) {
    nb.demo("soft_lookup", "L6 01.1 · Attention as a soft lookup");
    let (keys, values, query) = table();
    let asked = nb.value("lookup_query", show::row(query.as_ref(), 0, 1));
    say!(nb, "keys e1..e4, values 10 20 30 40, query {asked}");
    say!(nb, "{:>6}  {:<32}  {:>6}", "factor", "weights on keys 1..4", "output");
    for &factor in factors {
        let (weights, output) = soft_lookup_at(&keys, &values, &query, factor);
        let name = format!("lookup_x{}", show::short(factor).replace('.', "p"));
        let shown = nb.value(&name, show::num(output, 3));
        let weights_shown = nb.value(&format!("{name}_weights"), show::row(weights.as_ref(), 0, 4));
        say!(nb, "{:>6}  {weights_shown:<32}  {shown:>6}", show::short(factor));
    }
}
