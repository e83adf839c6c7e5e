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

/// What one head does, on average over the ordinary tokens of the sentences.
#[derive(Clone, Copy, Debug, Default)]
pub struct Pattern {
    pub cls: f64,
    pub sep: f64,
    /// The sentence's final full stop (every English sentence here ends in one).
    pub period: f64,
    pub own: f64,
    pub previous: f64,
    pub next: f64,
}

// ANCHOR: patterns
/// Every head's pattern, `[layer][head]`, from the weights of each sentence
/// (`weights[sentence][layer][head]`, queries × keys, [CLS] first, the full
/// stop and [SEP] last).
pub fn patterns(weights: &[Vec<Vec<Attention>>]) -> Vec<Vec<Pattern>> {
    let (layers, heads) = (weights[0].len(), weights[0][0].len());
    let mut out = vec![vec![Pattern::default(); heads]; layers];
    let mut queries = 0.0;
    for sentence in weights {
        let s = sentence[0][0].weights.nrows();
        queries += (s - 2) as f64; // tokens 1..s−1: neither [CLS] nor [SEP]
        for (l, layer) in sentence.iter().enumerate() {
            for (h, a) in layer.iter().enumerate() {
                let w = &a.weights;
                let p = &mut out[l][h];
                for q in 1..s - 1 {
                    p.cls += w[(q, 0)];
                    p.sep += w[(q, s - 1)];
                    p.period += w[(q, s - 2)];
                    p.own += w[(q, q)];
                    p.previous += w[(q, q - 1)];
                    p.next += w[(q, q + 1)];
                }
            }
        }
    }
    for p in out.iter_mut().flatten() {
        for v in [&mut p.cls, &mut p.sep, &mut p.period, &mut p.own, &mut p.previous, &mut p.next] {
            *v /= queries;
        }
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
    say!(
        nb,
        "{} English sentences; the average weight an ordinary token puts on …",
        sentences.len()
    );
    say!(nb, "layer   [CLS]  [SEP]      .   self   prev   next     (means over the 12 heads)");
    for (l, layer) in p.iter().enumerate() {
        let mean = |f: fn(&Pattern) -> f64| layer.iter().map(f).sum::<f64>() / layer.len() as f64;
        say!(
            nb,
            "{l:>5}  {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3}",
            mean(|p| p.cls),
            mean(|p| p.sep),
            mean(|p| p.period),
            mean(|p| p.own),
            mean(|p| p.previous),
            mean(|p| p.next)
        );
    }
    let all = |f: fn(&Pattern) -> f64| {
        p.iter().flatten().map(f).sum::<f64>() / (p.len() * p[0].len()) as f64
    };
    nb.value("mean_cls", show::num(all(|p| p.cls), 3));
    nb.value("mean_sep", show::num(all(|p| p.sep), 3));
    nb.value("mean_period", show::num(all(|p| p.period), 3));
    let count = |f: fn(&Pattern) -> f64| p.iter().flatten().filter(|x| f(x) > 0.5).count();
    let sep = nb.value("heads_sep", count(|p| p.sep).to_string());
    let cls = nb.value("heads_cls", count(|p| p.cls).to_string());
    let prev = nb.value("heads_previous", count(|p| p.previous).to_string());
    let next = nb.value("heads_next", count(|p| p.next).to_string());
    let own = nb.value("heads_own", count(|p| p.own).to_string());
    let period = nb.value("heads_period", count(|p| p.period).to_string());
    say!(
        nb,
        "heads with more than half their weight on one place: [CLS] {cls}, [SEP] {sep}, the full stop {period}, previous token {prev}, next token {next}, itself {own}"
    );
    let by_layer: Vec<String> =
        p.iter().map(|layer| layer.iter().filter(|x| x.cls > 0.5).count().to_string()).collect();
    say!(nb, "[CLS] heads by layer 0–5: {}", by_layer.join(", "));
    let mut named = Vec::new();
    for (tag, label, f) in [
        ("cls", "[CLS]", (|p: &Pattern| p.cls) as fn(&Pattern) -> f64),
        ("sep", "[SEP]", |p: &Pattern| p.sep),
        ("previous", "previous token", |p: &Pattern| p.previous),
        ("next", "next token", |p: &Pattern| p.next),
    ] {
        let (l, h, v) = best(&p, f);
        let v = nb.value(&format!("best_{tag}_share"), show::num(v, 3));
        nb.value(&format!("best_{tag}_head"), format!("{l}.{h}"));
        say!(nb, "the strongest {label} head: layer {l}, head {h}, {v} of its weight there");
        named.push((tag, l, h));
    }
    let rows: Vec<String> = (0..p.len()).map(|l| format!("layer {l}")).collect();
    let cols: Vec<String> = (0..p[0].len()).map(|h| h.to_string()).collect();
    let (rows, cols): (Vec<&str>, Vec<&str>) =
        (rows.iter().map(String::as_str).collect(), cols.iter().map(String::as_str).collect());
    for (name, legend, f) in [
        ("cls_share", "on [CLS]", (|p: &Pattern| p.cls) as fn(&Pattern) -> f64),
        ("sep_share", "on [SEP]", |p: &Pattern| p.sep),
    ] {
        nb.figure(
            name,
            Heatmap {
                row_labels: &rows,
                col_labels: &cols,
                values: &grid(&p, f),
                row_axis: "layer",
                col_axis: "head →",
                decimals: 2,
                max: 1.0,
                legend,
            }
            .to_svg(),
        );
    }
    // the three heads, on the first sentence
    let words: Vec<String> =
        vocab.encode(&sentences[0]).iter().map(|&i| vocab.token(i).to_string()).collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    for (tag, l, h) in named.into_iter().filter(|(tag, _, _)| *tag != "sep") {
        let w = &weights[0][l][h].weights;
        let values: Vec<Vec<f64>> =
            (0..w.nrows()).map(|q| (0..w.ncols()).map(|k| w[(q, k)]).collect()).collect();
        nb.figure(
            &format!("head_{tag}"),
            Heatmap {
                row_labels: &words,
                col_labels: &words,
                values: &values,
                row_axis: "query ↓",
                col_axis: "key →",
                decimals: 2,
                max: 1.0,
                legend: "weight",
            }
            .to_svg(),
        );
    }
}
