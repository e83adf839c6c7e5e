//! The chapter's exercises, answered by running them: a negation against
//! the sentence it negates, and the model loaded the wrong way — W^Q left
//! untransposed, GELU's tanh form, PyTorch's default LayerNorm ε — each
//! set against the reference library.

use blocks::layers::Activation;
use blocks::worse;
use record::{Notebook, say, show};

use crate::bert::{Bert, cosine};
use crate::matching::all_real;
use crate::reference::Reference;
use crate::wordpiece::WordPiece;

fn embedding(bert: &Bert, vocab: &WordPiece, s: &str) -> Vec<f64> {
    let ids = vocab.encode(s);
    bert.sentence_embedding(&ids, &all_real(&ids))
}

// ANCHOR: mistakes
/// The first sentence's embedding from the model changed by `mistake`, and
/// its largest distance from the library's (in f64); the model is put back.
pub fn gap_after(
    bert: &mut Bert,
    vocab: &WordPiece,
    reference: &Reference,
    mistake: impl Fn(&mut Bert),
) -> f64 {
    let (layers, embed_ln) = (bert.layers.clone(), bert.embed_ln.clone());
    mistake(bert);
    let e = embedding(bert, vocab, &reference.sentences[0]);
    (bert.layers, bert.embed_ln) = (layers, embed_ln);
    e.iter().zip(&reference.embeddings_f64[0]).fold(0.0, |m, (x, y)| worse(m, (x - y).abs()))
}

/// W^Q as the file stores it, (out, in): it still fits, being square.
pub fn w_q_untransposed(bert: &mut Bert) {
    for layer in &mut bert.layers {
        layer.attn.w_q.w = layer.attn.w_q.w.transpose().to_owned();
    }
}

/// GELU's tanh form where BERT uses the exact one.
pub fn tanh_gelu(bert: &mut Bert) {
    for layer in &mut bert.layers {
        layer.ff.act = Activation::GeluTanh;
    }
}

/// PyTorch's default ε = 1e-5 in every LayerNorm, where BERT uses 1e-12.
pub fn default_eps(bert: &mut Bert) {
    bert.embed_ln.eps = 1e-5;
    for layer in &mut bert.layers {
        (layer.ln1.eps, layer.ln2.eps) = (1e-5, 1e-5);
    }
}
// ANCHOR_END: mistakes

pub fn exercises(bert: &mut Bert, vocab: &WordPiece, reference: &Reference, nb: &mut Notebook) {
    nb.demo("exercises", "Exercises: a negation, and the model loaded three wrong ways");
    let first = &reference.sentences[0];
    let base = embedding(bert, vocab, first);
    say!(nb, "1. cosine with \"{first}\":");
    for (tag, s) in [
        ("negation", "A cat is not sitting on the mat."),
        ("negation_short", "The cat is not on the mat."),
    ] {
        let c = nb
            .value(&format!("{tag}_cos"), show::num(cosine(&base, &embedding(bert, vocab, s)), 3));
        say!(nb, "   \"{s}\" {c}");
    }
    let p = nb.value(
        "paraphrase_cos",
        show::num(cosine(&base, &embedding(bert, vocab, &reference.sentences[1])), 3),
    );
    say!(nb, "   \"{}\" (the paraphrase) {p}", reference.sentences[1]);
    let largest = reference.embeddings_f64[0].iter().fold(0.0, |m: f64, x| m.max(x.abs()));
    let l = nb.value("embedding_largest", show::num(largest, 3));
    say!(
        nb,
        "2. the first sentence's embedding against the library's in f64 (its largest entry is {l}), when the model is loaded"
    );
    for (tag, what, mistake) in [
        ("untransposed", "with W^Q untransposed in every layer", w_q_untransposed as fn(&mut Bert)),
        ("tanh_gelu", "with GELU's tanh form", tanh_gelu),
        ("default_eps", "with LayerNorm's ε = 1e-5", default_eps),
    ] {
        let g = nb
            .value(&format!("{tag}_gap"), show::sci(gap_after(bert, vocab, reference, mistake), 1));
        say!(nb, "   {what:<40} {g}");
    }
    let forms = (0..=1200).map(|i| -6.0 + i as f64 * 0.01).fold(0.0, |m, x: f64| {
        worse(m, (Activation::GeluErf.apply(x) - Activation::GeluTanh.apply(x)).abs())
    });
    let f = nb.value("gelu_forms_gap", show::sci(forms, 1));
    say!(nb, "   (GELU's two forms differ by up to {f} on 1,201 points in [−6, 6])");
}
