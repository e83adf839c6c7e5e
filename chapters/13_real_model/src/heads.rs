//! Real attention: where each of the 72 heads (6 layers × 12) looks, over
//! the chapter's English sentences. For every head, the average weight an
//! ordinary token (not [CLS] or [SEP]) puts on [CLS], on [SEP], on itself,
//! on the token before and the token after. Clark et al. (2019) found
//! heads in BERT that park most of their weight on [SEP], and heads that
//! attend to the previous or the next token; chapter 06 built a
//! previous-token head by hand.

use blocks::Attention;
use record::svg::Heatmap;
use record::{Notebook, say, show};

use crate::bert::Bert;
use crate::wordpiece::WordPiece;

/// What one head does, on average over the words of the sentences: where
/// their weight goes, each key counted in the first class it falls in
/// (so that the six shares and `other` add up to 1).
#[derive(Clone, Copy, Debug, Default)]
pub struct Pattern {
    pub cls: f64,
    pub sep: f64,
    /// The sentence's final full stop (every English sentence here ends in one).
    pub period: f64,
    pub own: f64,
    pub previous: f64,
    pub next: f64,
    pub other: f64,
    /// The weight on the word before, over the words that have one (not
    /// the first), and on the word after, over those that have one (not
    /// the last): what a positional head is judged by.
    pub before: f64,
    pub after: f64,
}

// ANCHOR: patterns
/// Every head's pattern, `[layer][head]`, from the weights of each sentence
/// (`weights[sentence][layer][head]`, queries × keys: [CLS], the words, the
/// full stop, [SEP]). The queries are the words; a key is [CLS], [SEP], the
/// full stop, the query itself, the word before, the word after, or other,
/// in that order of precedence (the first word's "before" is [CLS]).
pub fn patterns(weights: &[Vec<Vec<Attention>>]) -> Vec<Vec<Pattern>> {
    let (layers, heads) = (weights[0].len(), weights[0][0].len());
    let mut out = vec![vec![Pattern::default(); heads]; layers];
    let (mut queries, mut with_neighbour) = (0.0, 0.0);
    for sentence in weights {
        let s = sentence[0][0].weights.nrows();
        queries += (s - 3) as f64; // the words: positions 1..=s−3
        with_neighbour += (s - 4) as f64; // words 2..=s−3 have one before, 1..=s−4 one after
        for (l, layer) in sentence.iter().enumerate() {
            for (h, a) in layer.iter().enumerate() {
                let p = &mut out[l][h];
                for q in 1..=s - 3 {
                    for k in 0..s {
                        let w = a.weights[(q, k)];
                        let class = match k {
                            0 => &mut p.cls,
                            _ if k == s - 1 => &mut p.sep,
                            _ if k == s - 2 => &mut p.period,
                            _ if k == q => &mut p.own,
                            _ if k + 1 == q => &mut p.previous,
                            _ if k == q + 1 => &mut p.next,
                            _ => &mut p.other,
                        };
                        *class += w;
                    }
                    if q >= 2 {
                        p.before += a.weights[(q, q - 1)];
                    }
                    if q + 4 <= s {
                        p.after += a.weights[(q, q + 1)];
                    }
                }
            }
        }
    }
    for p in out.iter_mut().flatten() {
        for v in [
            &mut p.cls,
            &mut p.sep,
            &mut p.period,
            &mut p.own,
            &mut p.previous,
            &mut p.next,
            &mut p.other,
        ] {
            *v /= queries;
        }
        p.before /= with_neighbour;
        p.after /= with_neighbour;
    }
    out
}
// ANCHOR_END: patterns

/// The head with the largest `f`, as (layer, head, value).
fn best(p: &[Vec<Pattern>], f: impl Fn(&Pattern) -> f64) -> (usize, usize, f64) {
    let mut top = (0, 0, f64::NEG_INFINITY);
    for (l, layer) in p.iter().enumerate() {
        for (h, pat) in layer.iter().enumerate() {
            if f(pat) > top.2 {
                top = (l, h, f(pat));
            }
        }
    }
    top
}

fn grid(p: &[Vec<Pattern>], f: impl Fn(&Pattern) -> f64) -> Vec<Vec<f64>> {
    p.iter().map(|layer| layer.iter().map(&f).collect()).collect()
}

pub fn real_attention(bert: &Bert, vocab: &WordPiece, sentences: &[String], nb: &mut Notebook) {
    nb.demo("real_attention", "Real attention: what the 72 heads look at");
    let weights: Vec<Vec<Vec<Attention>>> =
        sentences.iter().map(|s| bert.forward(&vocab.encode(s), None).1).collect();
    let p = patterns(&weights);
    let words: usize = weights.iter().map(|w| w[0][0].weights.nrows() - 3).sum();
    let words = nb.value("query_words", words.to_string());
    say!(
        nb,
        "{} English sentences, {words} words as queries; where a word's weight goes (each key counted once):",
        sentences.len()
    );
    say!(
        nb,
        "layer   [CLS]  [SEP]      .   self   prev   next  other     (means over the 12 heads)"
    );
    for (l, layer) in p.iter().enumerate() {
        let mean = |f: fn(&Pattern) -> f64| layer.iter().map(f).sum::<f64>() / layer.len() as f64;
        let columns = [
            mean(|p| p.cls),
            mean(|p| p.sep),
            mean(|p| p.period),
            mean(|p| p.own),
            mean(|p| p.previous),
            mean(|p| p.next),
            mean(|p| p.other),
        ];
        say!(
            nb,
            "{l:>5}  {}",
            columns.iter().map(|v| format!("{v:>6.3}")).collect::<Vec<_>>().join(" ")
        );
    }
    let count = |f: fn(&Pattern) -> f64| p.iter().flatten().filter(|x| f(x) > 0.5).count();
    let cls = nb.value("heads_cls", count(|p| p.cls).to_string());
    let sep = nb.value("heads_sep", count(|p| p.sep).to_string());
    let period = nb.value("heads_period", count(|p| p.period).to_string());
    let prev = nb.value("heads_previous", count(|p| p.before).to_string());
    let next = nb.value("heads_next", count(|p| p.after).to_string());
    let own = nb.value("heads_own", count(|p| p.own).to_string());
    say!(
        nb,
        "heads with more than half their weight in one class: [CLS] {cls}, [SEP] {sep}, the full stop {period},"
    );
    say!(
        nb,
        "  itself {own}; on the word before (of the words that have one) {prev}, on the word after {next}"
    );
    let by_layer: Vec<String> =
        p.iter().map(|layer| layer.iter().filter(|x| x.cls > 0.5).count().to_string()).collect();
    say!(nb, "[CLS] heads by layer 0–5: {}", by_layer.join(", "));
    nb.value("cls_heads_layer0", by_layer[0].clone());
    nb.value(
        "cls_heads_layers_1_4",
        by_layer[1..5].iter().map(|n| n.parse::<usize>().unwrap_or(0)).sum::<usize>().to_string(),
    );
    let mut named = Vec::new();
    for (tag, label, f) in [
        ("cls", "[CLS]", (|p: &Pattern| p.cls) as fn(&Pattern) -> f64),
        ("sep", "[SEP]", |p: &Pattern| p.sep),
        ("previous", "word-before", |p: &Pattern| p.before),
        ("next", "word-after", |p: &Pattern| p.after),
    ] {
        let (l, h, v) = best(&p, f);
        let v = nb.value(&format!("best_{tag}_share"), show::num(v, 3));
        nb.value(&format!("best_{tag}_layer"), l.to_string());
        nb.value(&format!("best_{tag}_index"), h.to_string());
        say!(nb, "the strongest {label} head: layer {l}, head {h}, {v} of its weight there");
        named.push((tag, l, h));
    }
    let rows: Vec<String> = (0..p.len()).map(|l| format!("layer {l}")).collect();
    let cols: Vec<String> = (0..p[0].len()).map(|h| h.to_string()).collect();
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let cols: Vec<&str> = cols.iter().map(String::as_str).collect();
    for (name, legend, f) in [
        ("cls_share", "on [CLS]", (|p: &Pattern| p.cls) as fn(&Pattern) -> f64),
        ("sep_share", "on [SEP]", |p: &Pattern| p.sep),
    ] {
        let heatmap = Heatmap {
            row_labels: &rows,
            col_labels: &cols,
            values: &grid(&p, f),
            row_axis: "layer",
            col_axis: "head →",
            decimals: 2,
            max: 1.0,
            legend,
        };
        nb.figure(name, heatmap.to_svg());
    }
    // three of those heads, reading the first sentence
    let tokens: Vec<String> =
        vocab.encode(&sentences[0]).iter().map(|&i| vocab.token(i).to_string()).collect();
    let tokens: Vec<&str> = tokens.iter().map(String::as_str).collect();
    for (tag, l, h) in named.into_iter().filter(|(tag, _, _)| *tag != "sep") {
        let w = &weights[0][l][h].weights;
        let values: Vec<Vec<f64>> =
            (0..w.nrows()).map(|q| (0..w.ncols()).map(|k| w[(q, k)]).collect()).collect();
        let heatmap = Heatmap {
            row_labels: &tokens,
            col_labels: &tokens,
            values: &values,
            row_axis: "query ↓",
            col_axis: "key →",
            decimals: 2,
            max: 1.0,
            legend: "weight",
        };
        nb.figure(&format!("head_{tag}"), heatmap.to_svg());
    }
}
