//! The book's tokenizer and forward pass against the reference library's,
//! on the same sentences: token ids, sentence embeddings (against the
//! library in f64 and as users run it, in f32), the last layer's output and
//! every attention weight of one sentence.

use blocks::worse;
use record::{Notebook, say, show};

use crate::bert::Bert;
use crate::reference::Reference;
use crate::wordpiece::WordPiece;

/// Every id real (no padding).
pub fn all_real(ids: &[usize]) -> Vec<bool> {
    vec![true; ids.len()]
}

fn gap(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).fold(0.0, |m, (x, y)| worse(m, (x - y).abs()))
}

pub fn tokens(vocab: &WordPiece, reference: &Reference, nb: &mut Notebook) {
    nb.demo("tokens", "Tokens: the book's WordPiece against the library's");
    let mut same = 0;
    for (s, want) in reference.sentences.iter().zip(&reference.tokens) {
        let ids = vocab.encode(s);
        same += usize::from(&ids == want);
        let pieces: Vec<&str> = ids.iter().map(|&i| vocab.token(i)).collect();
        say!(nb, "{s}");
        say!(nb, "  {}", pieces.join(" "));
        say!(
            nb,
            "  {}{}",
            show::tuple(ids.iter().map(|&i| i as f64), 0),
            if &ids == want { "" } else { "   ≠ the library's" }
        );
    }
    let n = nb.value("sentences", reference.sentences.len().to_string());
    let same = nb.value("tokens_same", same.to_string());
    say!(nb, "ids equal to the library's: {same} of {n} sentences");
    say!(
        nb,
        "strings only the tokenizer sees (accents, control and format characters, other scripts,"
    );
    say!(
        nb,
        "punctuation, a 120-letter word, white space, an ideograph outside the split ranges):"
    );
    let mut checks_same = 0;
    for (text, want) in &reference.tokenizer_checks {
        let ids = vocab.encode(text);
        checks_same += usize::from(&ids == want);
        let pieces: Vec<&str> = ids.iter().map(|&i| vocab.token(i)).collect();
        let shown: String = text.chars().take(40).flat_map(char::escape_debug).collect();
        say!(
            nb,
            "  \"{shown}\" → {}{}",
            pieces.join(" "),
            if &ids == want { "" } else { "   ≠ the library's" }
        );
    }
    let c = nb.value("checks_same", checks_same.to_string());
    let m = nb.value("checks", reference.tokenizer_checks.len().to_string());
    say!(nb, "ids equal to the library's: {c} of {m}");
    let unk = reference.tokens.iter().flatten().filter(|&&i| i == vocab.unk).count();
    nb.value("unk_total", unk.to_string());
    nb.value("vocab_size", show::grouped(vocab.len()));
}

pub fn forward(bert: &Bert, vocab: &WordPiece, reference: &Reference, nb: &mut Notebook) {
    nb.demo(
        "forward",
        "The forward pass: the book's blocks against the library, sentence by sentence",
    );
    say!(nb, "reference: {}", reference.made_by);
    say!(nb, "vs library in f64   vs library in f32   sentence");
    let (mut worst64, mut worst32) = (0.0, 0.0);
    for (i, s) in reference.sentences.iter().enumerate() {
        let ids = vocab.encode(s);
        let e = bert.sentence_embedding(&ids, &all_real(&ids));
        let (g64, g32) =
            (gap(&e, &reference.embeddings_f64[i]), gap(&e, &reference.embeddings_f32[i]));
        (worst64, worst32) = (worse(worst64, g64), worse(worst32, g32));
        say!(nb, "{:<18}  {:<18}  {s}", show::sci(g64, 1), show::sci(g32, 1));
    }
    let w64 = nb.value("embedding_gap_f64", show::sci(worst64, 1));
    let w32 = nb.value("embedding_gap_f32", show::sci(worst32, 1));
    say!(
        nb,
        "largest difference of a sentence embedding (384 numbers each): {w64} against f64, {w32} against f32"
    );
    // the first sentence, token by token and head by head
    let ids = vocab.encode(&reference.sentences[0]);
    let (out, heads) = bert.forward(&ids, None);
    let hidden = (0..out.nrows()).fold(0.0, |m, p| {
        let row: Vec<f64> = (0..out.ncols()).map(|j| out[(p, j)]).collect();
        worse(m, gap(&row, &reference.last_hidden[p]))
    });
    let mut weights = 0.0;
    for (layer, want) in heads.iter().zip(&reference.attentions) {
        for (head, w) in layer.iter().zip(want) {
            for (q, row) in w.iter().enumerate() {
                let ours: Vec<f64> =
                    (0..head.weights.ncols()).map(|k| head.weights[(q, k)]).collect();
                weights = worse(weights, gap(&ours, row));
            }
        }
    }
    let h = nb.value("hidden_gap", show::sci(hidden, 1));
    let a = nb.value("attention_gap", show::sci(weights, 1));
    let count = heads.len() * heads[0].len();
    say!(nb, "\"{}\" ({} tokens), against the library in f64:", reference.sentences[0], ids.len());
    say!(
        nb,
        "  the last layer's output of every token {h}; the attention weights of all {count} heads {a}"
    );
}
