//! The file, mapped onto the book's parts: every tensor's name and shape,
//! where it goes, and the parameters by part against the formulas of
//! chapters 5, 7 and 11.

use record::{Notebook, say, show};

use crate::bert::Config;
use crate::weights::Weights;

// ANCHOR: count_by_part
/// The file's numbers grouped by the part of the model they belong to,
/// from the tensor names alone.
pub fn count_by_part(w: &Weights) -> Vec<(&'static str, usize)> {
    let part = |name: &str| -> &'static str {
        if name.starts_with("embeddings.word_embeddings") {
            "token embeddings"
        } else if name.starts_with("embeddings.position_embeddings") {
            "position embeddings"
        } else if name.starts_with("embeddings.token_type_embeddings") {
            "token-type embeddings"
        } else if name.starts_with("embeddings.LayerNorm") || name.contains("LayerNorm") {
            "layer norms"
        } else if name.contains(".attention.") {
            "attention"
        } else if name.contains(".intermediate.") || name.contains(".output.dense") {
            "feed-forward"
        } else if name.starts_with("pooler.") {
            "pooler (not used for sentence embeddings)"
        } else {
            "other"
        }
    };
    let mut parts: Vec<(&'static str, usize)> = Vec::new();
    for (name, t) in &w.tensors {
        let p = part(name);
        match parts.iter_mut().find(|(q, _)| *q == p) {
            Some((_, n)) => *n += t.data.len(),
            None => parts.push((p, t.data.len())),
        }
    }
    parts
}

/// The same parts from the sizes alone.
pub fn formula(cfg: Config, part: &str) -> usize {
    let (v, d, f, l) = (cfg.vocab, cfg.d_model, cfg.d_ff, cfg.layers);
    match part {
        "token embeddings" => v * d,
        "position embeddings" => cfg.max_positions * d,
        "token-type embeddings" => 2 * d,
        "layer norms" => 2 * d + l * 4 * d,
        "attention" => l * (4 * d * d + 4 * d),
        "feed-forward" => l * (2 * d * f + f + d),
        "pooler (not used for sentence embeddings)" => d * d + d,
        _ => 0,
    }
}
// ANCHOR_END: count_by_part

pub fn loading(w: &Weights, cfg: Config, nb: &mut Notebook) {
    nb.demo("loading", "The file, mapped onto the blocks");
    let mb = nb.value("file_mb", show::num(w.bytes as f64 / 1e6, 1));
    say!(
        nb,
        "model.safetensors: {mb} MB, {} f32 tensors; not f32: {}",
        w.tensors.len(),
        w.others.iter().map(|(n, t, s)| format!("{n} ({t}, {s:?})")).collect::<Vec<_>>().join(", ")
    );
    say!(
        nb,
        "layer 0's tensors and the blocks part each fills (PyTorch's (out, in) weights transposed):"
    );
    let place = [
        ("attention.self.query", "attn.w_q"),
        ("attention.self.key", "attn.w_k"),
        ("attention.self.value", "attn.w_v"),
        ("attention.output.dense", "attn.w_o"),
        ("attention.output.LayerNorm", "ln1 (γ, β)"),
        ("intermediate.dense", "ff.up (then GELU)"),
        ("output.dense", "ff.down"),
        ("output.LayerNorm", "ln2 (γ, β)"),
    ];
    for (torch, ours) in place {
        let shape = |s: &str| {
            w.tensors
                .get(&format!("encoder.layer.0.{torch}.{s}"))
                .map(|t| format!("{:?}", t.shape))
                .unwrap_or_default()
        };
        say!(
            nb,
            "  encoder.layer.0.{torch:<28} weight {:<12} bias {:<7} → {ours}",
            shape("weight"),
            shape("bias")
        );
    }
    say!(
        nb,
        "  embeddings: word {:?}, position {:?}, token type {:?}, LayerNorm → Bert::embed",
        w.tensors["embeddings.word_embeddings.weight"].shape,
        w.tensors["embeddings.position_embeddings.weight"].shape,
        w.tensors["embeddings.token_type_embeddings.weight"].shape
    );
    say!(nb, "parameters by part            in the file      by formula");
    let parts = count_by_part(w);
    let mut all_equal = true;
    for (part, n) in &parts {
        let f = formula(cfg, part);
        all_equal &= f == *n;
        say!(nb, "  {part:<42} {:>11} {:>11}", show::grouped(*n), show::grouped(f));
    }
    let total = nb.value("params_file", show::grouped(w.count()));
    let used: usize = parts.iter().filter(|(p, _)| !p.starts_with("pooler")).map(|(_, n)| n).sum();
    let used = nb.value("params_used", show::grouped(used));
    let equal = nb.value("params_match", all_equal.to_string());
    say!(
        nb,
        "total {total}; without the pooler, the {used} a sentence embedding uses; every part equals its formula: {equal}"
    );
    for (part, n) in parts {
        let tag = part.split(' ').next().unwrap_or(part).replace('-', "_");
        nb.value(&format!("params_{tag}"), show::grouped(n));
    }
}
