//! Sentence embeddings as meaning: cosine similarities between the
//! chapter's sentences — paraphrases, unrelated pairs, and two Chinese
//! sentences that an English vocabulary mostly cannot spell.

use record::svg::Heatmap;
use record::{Notebook, say, show};

use crate::bert::{Bert, cosine};
use crate::matching::all_real;
use crate::wordpiece::WordPiece;

// ANCHOR: similarities
/// Every sentence's embedding, and the cosine of every pair.
pub fn similarities(bert: &Bert, vocab: &WordPiece, sentences: &[String]) -> Vec<Vec<f64>> {
    let embeddings: Vec<Vec<f64>> = sentences
        .iter()
        .map(|s| {
            let ids = vocab.encode(s);
            bert.sentence_embedding(&ids, &all_real(&ids))
        })
        .collect();
    embeddings.iter().map(|a| embeddings.iter().map(|b| cosine(a, b)).collect()).collect()
}
// ANCHOR_END: similarities

pub fn similarity(bert: &Bert, vocab: &WordPiece, sentences: &[String], nb: &mut Notebook) {
    nb.demo("similarity", "Meaning: cosine similarity between sentence embeddings");
    let sim = similarities(bert, vocab, sentences);
    let labels: Vec<String> = (0..sentences.len()).map(|i| format!("s{}", i + 1)).collect();
    for (i, s) in sentences.iter().enumerate() {
        say!(nb, "s{}  {s}", i + 1);
    }
    say!(nb, "     {}", labels.iter().map(|l| format!("{l:>6}")).collect::<String>());
    for (i, row) in sim.iter().enumerate() {
        say!(
            nb,
            "{:<4} {}",
            labels[i],
            row.iter().map(|v| format!("{v:>6.3}")).collect::<String>()
        );
    }
    let pairs = [
        ("cat_paraphrase", 0, 1),
        ("market_paraphrase", 2, 3),
        ("cat_market", 0, 2),
        ("violin_rain", 4, 5),
        ("chinese_pair", 6, 7),
        ("chinese_cat_english_cat", 6, 0),
        ("chinese_market_english_market", 7, 2),
    ];
    for (name, a, b) in pairs {
        nb.value(&format!("cos_{name}"), show::num(sim[a][b], 3));
    }
    // every pair of the six English sentences but the two paraphrase pairs
    let paraphrases = [(0, 1), (2, 3)];
    let unrelated: Vec<f64> = (0..6)
        .flat_map(|a| (a + 1..6).map(move |b| (a, b)))
        .filter(|p| !paraphrases.contains(p))
        .map(|(a, b)| sim[a][b])
        .collect();
    let hi = unrelated.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let hi = nb.value("cos_unrelated_max", show::num(hi, 3));
    say!(
        nb,
        "paraphrases: s1–s2 {}, s3–s4 {}; the English pairs that are not paraphrases: at most {hi}",
        show::num(sim[0][1], 3),
        show::num(sim[2][3], 3)
    );
    say!(
        nb,
        "the two Chinese sentences: s7–s8 {}; each with its English counterpart: s7–s1 {}, s8–s3 {}",
        show::num(sim[6][7], 3),
        show::num(sim[6][0], 3),
        show::num(sim[7][2], 3)
    );
    // what the two Chinese sentences share, spelled out: [UNK]s and a full stop
    let control = "[CLS] [UNK] [UNK] [UNK] [UNK] [UNK] [UNK] 。 [SEP]";
    let ids: Vec<usize> = (0..6).map(|_| vocab.unk).chain([vocab.encode("。")[1]]).collect();
    let ids: Vec<usize> = [vocab.cls].into_iter().chain(ids).chain([vocab.sep]).collect();
    let e = bert.sentence_embedding(&ids, &all_real(&ids));
    let with = |i: usize| {
        let t = vocab.encode(&sentences[i]);
        cosine(&e, &bert.sentence_embedding(&t, &all_real(&t)))
    };
    let (c7, c8) = (
        nb.value("cos_unk_s7", show::num(with(6), 3)),
        nb.value("cos_unk_s8", show::num(with(7), 3)),
    );
    say!(nb, "{control}, against s7 {c7} and s8 {c8}");
    let label_refs: Vec<&str> = labels.iter().map(String::as_str).collect();
    let values: Vec<Vec<f64>> =
        sim.iter().map(|r| r.iter().map(|v| v.max(0.0)).collect()).collect();
    let lowest = sim.iter().flatten().copied().fold(f64::INFINITY, f64::min);
    nb.value("cos_min", show::num(lowest, 3));
    nb.figure(
        "similarity",
        Heatmap {
            row_labels: &label_refs,
            col_labels: &label_refs,
            values: &values,
            row_axis: "sentence",
            col_axis: "sentence",
            decimals: 2,
            max: 1.0,
            legend: "cosine",
        }
        .to_svg(),
    );
}

/// The longest input sentence-transformers gives this model
/// (`sentence_bert_config.json`'s max_seq_length).
pub const MAX_TOKENS: usize = 256;

/// `--sentence`: the reader's sentence, its tokens, and its cosine with each
/// of the chapter's sentences.
pub fn yours(
    bert: &Bert,
    vocab: &WordPiece,
    sentence: &str,
    sentences: &[String],
    nb: &mut Notebook,
) {
    nb.demo("yours", "Your sentence");
    let mut ids = vocab.encode(sentence);
    if ids.len() > MAX_TOKENS {
        // as the library does (its max_seq_length): the first 255, then [SEP]
        ids.truncate(MAX_TOKENS - 1);
        ids.push(vocab.sep);
        say!(nb, "(cut at {MAX_TOKENS} tokens, as sentence-transformers cuts it)");
    }
    let pieces: Vec<&str> = ids.iter().map(|&i| vocab.token(i)).collect();
    say!(nb, "{sentence}");
    say!(nb, "  {} tokens: {}", ids.len(), pieces.join(" "));
    let mine = bert.sentence_embedding(&ids, &all_real(&ids));
    for s in sentences {
        let t = vocab.encode(s);
        say!(
            nb,
            "  {:>7}  {s}",
            show::num(cosine(&mine, &bert.sentence_embedding(&t, &all_real(&t))), 3)
        );
    }
}
