//! Lecture 17 exercise 1 — three words, d_k = 4, computed by hand and here.

use blocks::{mat, scaled_dot_product_attention};
use record::{Notebook, say, show};

// ANCHOR: exercise_1
/// The exercise's three words: the third query is orthogonal to every key.
pub fn exercise_1(nb: &mut Notebook) {
    nb.demo("exercise_1", "L17 exercise 1 · three words by hand, checked");
    let q = mat(&[[2.0, 2.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0], [0.0, 0.0, 2.0, 0.0]]); // (3, 4)
    let k = mat(&[[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]]); // (3, 4)
    let v = mat(&[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]); // (3, 2)
    let attn = scaled_dot_product_attention(q.as_ref(), k.as_ref(), v.as_ref(), None);
    let words = ["word 1", "word 2", "word 3"];
    say!(nb, "(a) scores Q·Kᵀ/√d_k:");
    for line in show::table(attn.scores.as_ref(), &words, &["key 1", "key 2", "key 3"], 0) {
        say!(nb, "  {line}");
    }
    for i in 0..3 {
        nb.value(&format!("ex1_scores_{}", i + 1), show::row(attn.scores.as_ref(), i, 0));
    }
    say!(nb, "(b) weights:");
    for line in show::table(attn.weights.as_ref(), &words, &["key 1", "key 2", "key 3"], 4) {
        say!(nb, "  {line}");
    }
    for (i, _) in words.iter().enumerate() {
        nb.value(&format!("ex1_weights_{}", i + 1), show::row(attn.weights.as_ref(), i, 4));
    }
    say!(nb, "(c) outputs:");
    for (i, word) in words.iter().enumerate() {
        let out = nb.value(&format!("ex1_output_{}", i + 1), show::row(attn.output.as_ref(), i, 4));
        say!(nb, "  {word}  {out}");
    }
    say!(nb, "(d) word 3's query meets no key: its weights are uniform, its output the mean value");
}
// ANCHOR_END: exercise_1
