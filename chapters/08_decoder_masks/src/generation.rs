//! Lecture 17 §8.4 and Lecture 6 §7.1 — real generation. A small
//! encoder–decoder Transformer is trained with teacher forcing on the
//! reversal task, then writes its answers itself, greedily: re-running the
//! decoder on the prefix at every step, or with a KV cache. The same
//! tokens, at very different cost — and the classic cache bug, a new token
//! given the positional encoding of position 0 instead of its own.

use autograd::data::BOS;
use autograd::flops::counting;
use autograd::nn::decode::KvCache;
use autograd::nn::{Seq2Seq, Seq2SeqConfig};
use autograd::train::{Recipe, Trained, reversal_run, test_set};
use autograd::{Params, Tape};
use blocks::worse;
use faer::Mat;
use record::{Notebook, say, show};

// ANCHOR: cache_bug
/// Greedy decoding with a KV cache, written out as `generate` does it, but
/// with the position of the token fed at step t given by `position(t)`:
/// `|t| t` is right, `|_| 0` the bug. Returns B·steps tokens, batch-major.
pub fn greedy_cached(
    model: &Seq2Seq,
    params: &Params<f32>,
    src: &[usize],
    batch: usize,
    steps: usize,
    position: fn(usize) -> usize,
) -> Vec<usize> {
    let cross: Vec<(Mat<f32>, Mat<f32>)> = {
        let tape = Tape::new(params);
        let memory = model.encode(&tape, src, batch, None).expect("fits").0; // (B·S_s, d)
        let project = |w: &autograd::nn::Linear| w.forward(memory).value().clone();
        model
            .decoder
            .iter()
            .map(|l| (project(&l.cross_attn.w_k), project(&l.cross_attn.w_v)))
            .collect()
    };
    let mut caches = vec![KvCache::default(); model.decoder.len()];
    let (mut last, mut tokens) = (vec![BOS; batch], vec![0; batch * steps]);
    for t in 0..steps {
        let tape = Tape::new(params);
        let mut y = model.target_input_at(&tape, &last, position(t)); // (B, d)
        for (layer, (cache, kv)) in model.decoder.iter().zip(caches.iter_mut().zip(&cross)) {
            y = layer.step(y, kv, cache, batch);
        }
        if let Some((_, ln)) = &model.final_ln {
            y = ln.forward(y); // Pre-LN only
        }
        let logits = model.out.forward(y).value().clone(); // (B, vocab)
        for b in 0..batch {
            let row = (0..logits.ncols()).map(|j| f64::from(logits[(b, j)]));
            last[b] = blocks::argmax(row).expect("a vocabulary");
            tokens[b * steps + t] = last[b];
        }
    }
    tokens
}
// ANCHOR_END: cache_bug

/// What the trained model's decoding produced and cost.
pub struct Decoded {
    pub trained: Trained,
    /// The right answers, and the tokens written without the cache, with
    /// it, with the chapter's own cached loop, and with the bug.
    pub answers: Vec<usize>,
    pub tokens: [Vec<usize>; 4],
    /// FLOPs of decoding the test set without and with the cache.
    pub flops: [u64; 2],
    /// Largest |Δ logit| between decoding without and with the cache.
    pub logit_diff: f64,
}

// ANCHOR: generation
/// Train the lecture's small Transformer on reversal (`recipe`), then
/// decode its test sequences greedily, without and with the KV cache
/// (counting FLOPs), and with `greedy_cached`, right and with the bug.
pub fn train_and_decode(recipe: &Recipe, seed: u64) -> Decoded {
    let cfg = Seq2SeqConfig::lecture17(recipe.vocab());
    let (model, params, trained) = reversal_run(cfg, recipe, seed);
    let test = test_set(recipe, seed);
    let (n, len) = (recipe.test, recipe.len);
    let (plain, without) = counting(|| model.generate(&params, &test.src, n, len, BOS, false));
    let (cached, with) = counting(|| model.generate(&params, &test.src, n, len, BOS, true));
    let logit_diff = largest_diff(&plain.logits, &cached.logits);
    let ours = greedy_cached(&model, &params, &test.src, n, len, |t| t);
    let bug = greedy_cached(&model, &params, &test.src, n, len, |_| 0);
    Decoded {
        trained,
        answers: test.tgt_out,
        tokens: [plain.tokens, cached.tokens, ours, bug],
        flops: [without.flops, with.flops],
        logit_diff,
    }
}
// ANCHOR_END: generation

/// The largest |a − b| over two lists of matrices of the same shapes.
fn largest_diff(a: &[Mat<f32>], b: &[Mat<f32>]) -> f64 {
    let pairs = a.iter().zip(b).flat_map(|(a, b)| {
        let cells = (0..a.nrows()).flat_map(|i| (0..a.ncols()).map(move |j| (i, j)));
        cells.map(move |p| f64::from((a[p] - b[p]).abs())).collect::<Vec<_>>()
    });
    pairs.fold(0.0, worse)
}

/// Share of tokens equal to the answers', overall and at each position.
fn accuracy(tokens: &[usize], answers: &[usize], len: usize) -> (f64, Vec<f64>) {
    let right: Vec<bool> = tokens.iter().zip(answers).map(|(a, b)| a == b).collect();
    let n = right.len() / len;
    let at = (0..len).map(|t| right.chunks(len).filter(|c| c[t]).count() as f64 / n as f64);
    (right.iter().filter(|&&r| r).count() as f64 / right.len() as f64, at.collect())
}

pub fn generation(recipe: &Recipe, seed: u64, nb: &mut Notebook) {
    nb.demo(
        "generation",
        "L17 04.5 · L6 05.1 · A trained model writes: greedy, with and without the KV cache",
    );
    let (len, steps, n) = (recipe.len, recipe.steps, recipe.test);
    let steps_shown = nb.value("gen_train_steps", steps.to_string());
    let len_shown = nb.value("gen_len", len.to_string());
    let n_shown = nb.value("gen_test", n.to_string());
    say!(
        nb,
        "Seq2SeqConfig::lecture17 trained on reversal of length {len_shown}: {steps_shown} steps, batch {}, Adam {}, seed {seed}",
        recipe.batch,
        show::short(recipe.lr)
    );
    let d = train_and_decode(recipe, seed);
    let loss = nb.value("gen_final_loss", show::num(d.trained.final_loss(20), 4));
    say!(nb, "mean loss of the last 20 steps {loss}");
    say!(nb, "{n_shown} test sequences, decoded greedily from BOS:");
    let names = ["uncached", "cached", "ours", "bug"];
    let labels = [
        "generate, no cache",
        "generate, KV cache",
        "greedy_cached(|t| t)",
        "greedy_cached(|_| 0)",
    ];
    for (i, tokens) in d.tokens.iter().enumerate() {
        let (acc, at) = accuracy(tokens, &d.answers, len);
        let acc = nb.value(&format!("gen_acc_{}", names[i]), show::num(acc, 3));
        let same = if i == 0 {
            "the reference".to_string()
        } else {
            let same =
                nb.value(&format!("gen_same_{}", names[i]), (tokens == &d.tokens[0]).to_string());
            format!("same tokens as without the cache: {same}")
        };
        say!(nb, "  {:<22} token accuracy {acc}; {same}", labels[i]);
        let at: Vec<String> = at.iter().map(|a| show::num(*a, 2)).collect();
        say!(nb, "  {:<22} right at each step: {}", "", at.join(" "));
        if names[i] == "bug" {
            for (t, a) in at.iter().enumerate() {
                nb.value(&format!("gen_bug_at_{t}"), a.clone());
            }
            nb.value("gen_bug_last", at[len - 1].clone());
        }
    }
    nb.value("gen_guess", show::num(1.0 / recipe.symbols as f64, 2));
    let diff = nb.value("gen_logit_diff", show::sci(d.logit_diff, 1));
    say!(nb, "largest |Δ logit| between no cache and the cache: {diff}");
    let [without, with] = d.flops;
    let without_s = nb.value("gen_flops_uncached", show::grouped(without as usize));
    let with_s = nb.value("gen_flops_cached", show::grouped(with as usize));
    let ratio = nb.value("gen_flops_ratio", show::num(without as f64 / with as f64, 2));
    say!(
        nb,
        "FLOPs of decoding the test set: {without_s} without the cache, {with_s} with it ({ratio}×)"
    );
    // one example, as the reader would see it
    let shown = |t: &[usize]| format!("{:?}", &t[..len]);
    say!(nb, "the first test sequence: answer {}", shown(&d.answers));
    say!(nb, "  with the cache:        {}", shown(&d.tokens[1]));
    say!(nb, "  with the bug:          {}", shown(&d.tokens[3]));
}
