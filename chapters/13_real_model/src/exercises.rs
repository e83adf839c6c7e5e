//! The chapter's exercises, answered by running them: a negation against
//! the sentence it negates, and the model loaded with W^Q left
//! untransposed; and how far GELU's exact form is from its tanh form.

use blocks::layers::EncoderLayer;
use blocks::worse;
use record::{Notebook, say, show};

use crate::bert::{Bert, cosine};
use crate::matching::all_real;
use crate::reference::Reference;
use crate::wordpiece::WordPiece;

// ANCHOR: untransposed
/// The model with every layer's W^Q as stored in the file, (out, in),
/// instead of transposed: it loads and runs, since W^Q is square.
pub fn with_w_q_untransposed(layers: &[EncoderLayer]) -> Vec<EncoderLayer> {
    let mut layers = layers.to_vec();
    for layer in &mut layers {
        layer.attn.w_q.w = layer.attn.w_q.w.transpose().to_owned();
    }
    layers
}
// ANCHOR_END: untransposed

fn embedding(bert: &Bert, vocab: &WordPiece, s: &str) -> Vec<f64> {
    let ids = vocab.encode(s);
    bert.sentence_embedding(&ids, &all_real(&ids))
}

pub fn exercises(bert: &mut Bert, vocab: &WordPiece, reference: &Reference, nb: &mut Notebook) {
    nb.demo("exercises", "Exercises: a negation, a weight left untransposed, the two GELUs");
    let first = &reference.sentences[0];
    let negated = "The cat is not on the mat.";
    let (a, b) = (embedding(bert, vocab, first), embedding(bert, vocab, negated));
    let c = nb.value("negation_cos", show::num(cosine(&a, &b), 3));
    say!(nb, "1. \"{negated}\" against \"{first}\": cosine {c}");
    let untransposed = with_w_q_untransposed(&bert.layers);
    let right = std::mem::replace(&mut bert.layers, untransposed);
    let wrong = embedding(bert, vocab, first);
    bert.layers = right;
    let gap = wrong
        .iter()
        .zip(&reference.embeddings_f64[0])
        .fold(0.0, |m, (x, y)| worse(m, (x - y).abs()));
    let largest = reference.embeddings_f64[0].iter().fold(0.0, |m: f64, x| m.max(x.abs()));
    let g = nb.value("untransposed_gap", show::sci(gap, 1));
    let l = nb.value("embedding_largest", show::num(largest, 3));
    say!(
        nb,
        "2. W^Q untransposed in every layer: the first sentence's embedding is {g} from the library's (its largest entry is {l})"
    );
    let forms = (0..=1200).map(|i| -6.0 + i as f64 * 0.01).fold(0.0, |m, x: f64| {
        let u = (2.0 / std::f64::consts::PI).sqrt() * (x + 0.044_715 * x * x * x);
        let tanh_form = 0.5 * x * (1.0 + libm::tanh(u));
        worse(m, (blocks::layers::Activation::GeluErf.apply(x) - tanh_form).abs())
    });
    let f = nb.value("gelu_forms_gap", show::sci(forms, 1));
    say!(
        nb,
        "GELU's exact form x·Φ(x) against its tanh form, 1,201 points in [−6, 6]: largest difference {f}"
    );
}
