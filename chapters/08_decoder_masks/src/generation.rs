//! Lecture 17 §8.4 and Lecture 6 §7.1 — real generation. A small
//! encoder–decoder Transformer is trained with teacher forcing on the
//! reversal task, then writes its answers itself, greedily: re-running the
//! decoder on the prefix at every step, or with a KV cache. The same
//! tokens, at very different cost — and the classic cache bug, a new token
//! given the positional encoding of position 0 instead of its own, taken
//! apart into its two halves (the token's own step, and the cache).

use autograd::data::BOS;
use autograd::flops::counting;
use autograd::nn::decode::KvCache;
use autograd::nn::{Seq2Seq, Seq2SeqConfig};
use autograd::train::{Recipe, Trained, reversal_run, test_set};
use autograd::{Params, Tape, Var};
use blocks::worse;
use faer::Mat;
use record::{Notebook, say, show};

/// Each decoder layer's cross-attention keys and values of the encoder's
/// output `memory` (B·S_s, d): they depend on the source alone, so a cached
/// loop projects them once, before its first step.
pub fn memory_kv(model: &Seq2Seq, params: &Params<f32>, memory: &Mat<f32>) -> Vec<KeysValues> {
    let tape = Tape::new(params);
    let memory = tape.input(memory.clone());
    let project = |w: &autograd::nn::Linear| w.forward(memory).value().clone(); // (B·S_s, d)
    model.decoder.iter().map(|l| (project(&l.cross_attn.w_k), project(&l.cross_attn.w_v))).collect()
}

/// The encoder's output for `batch` sources, (B·S_s, d).
pub fn encode(model: &Seq2Seq, params: &Params<f32>, src: &[usize], batch: usize) -> Mat<f32> {
    let tape = Tape::new(params);
    model.encode(&tape, src, batch, None).expect("fits").0.value().clone()
}

/// The most probable token of each row of `logits` (B, vocab).
fn argmax_rows(logits: &Mat<f32>) -> Vec<usize> {
    let row = |b: usize| (0..logits.ncols()).map(move |j| f64::from(logits[(b, j)]));
    (0..logits.nrows()).map(|b| blocks::argmax(row(b)).expect("a vocabulary")).collect()
}

// ANCHOR: cache_bug
/// One cached step of the whole decoder: `y` (B, d) — the newest token of
/// each sequence, embedded — through every layer (each appending to its
/// cache), to the logits of the next token (B, vocab).
pub fn decoder_step<'t>(
    model: &Seq2Seq,
    mut y: Var<'t, f32>,
    cross: &[KeysValues],
    caches: &mut [KvCache<f32>],
    batch: usize,
) -> Mat<f32> {
    for (layer, (cache, kv)) in model.decoder.iter().zip(caches.iter_mut().zip(cross)) {
        y = layer.step(y, kv, cache, batch);
    }
    if let Some((_, ln)) = &model.final_ln {
        y = ln.forward(y); // Pre-LN only
    }
    model.out.forward(y).value().clone()
}

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
    let cross = memory_kv(model, params, &encode(model, params, src, batch));
    let mut caches = vec![KvCache::default(); model.decoder.len()];
    let (mut last, mut tokens) = (vec![BOS; batch], vec![0; batch * steps]);
    for t in 0..steps {
        let tape = Tape::new(params);
        let y = model.target_input_at(&tape, &last, position(t)); // (B, d): token + PE(position)
        last = argmax_rows(&decoder_step(model, y, &cross, &mut caches, batch));
        for (b, &token) in last.iter().enumerate() {
            tokens[b * steps + t] = token;
        }
    }
    tokens
}
// ANCHOR_END: cache_bug

// ANCHOR: cache_cues
/// The bug taken apart. The token fed at step t is used twice: in its own
/// step, where its row picks the next token (its query, key and value at
/// position `own(t)`), and in every later step, through the key and value
/// it leaves in the cache (at position `cached(t)`). Its own step runs on a
/// copy of the cache; a second pass at `cached(t)` extends the real one.
pub fn greedy_split(
    model: &Seq2Seq,
    params: &Params<f32>,
    src: &[usize],
    (batch, steps): (usize, usize),
    own: fn(usize) -> usize,
    cached: fn(usize) -> usize,
) -> Vec<usize> {
    let cross = memory_kv(model, params, &encode(model, params, src, batch));
    let mut caches = vec![KvCache::default(); model.decoder.len()];
    let (mut last, mut tokens) = (vec![BOS; batch], vec![0; batch * steps]);
    for t in 0..steps {
        let tape = Tape::new(params);
        let mut this_step = caches.clone(); // the cache as step t finds it
        let y = model.target_input_at(&tape, &last, own(t)); // (B, d)
        let logits = decoder_step(model, y, &cross, &mut this_step, batch); // (B, vocab)
        let y = model.target_input_at(&tape, &last, cached(t)); // (B, d)
        let _ = decoder_step(model, y, &cross, &mut caches, batch); // only fills the cache
        last = argmax_rows(&logits);
        for (b, &token) in last.iter().enumerate() {
            tokens[b * steps + t] = token;
        }
    }
    tokens
}
// ANCHOR_END: cache_cues

/// Keys and values of one layer's cross-attention, (B·S_s, d) each.
pub type KeysValues = (Mat<f32>, Mat<f32>);

/// What the trained model's decoding produced and cost.
pub struct Decoded {
    pub trained: Trained,
    /// The right answers, and the tokens written without the cache, with
    /// it, with the chapter's own cached loop, with the bug, and with the
    /// bug taken apart (position 0 in the token's own step only; in the
    /// cache only).
    pub answers: Vec<usize>,
    pub tokens: [Vec<usize>; 6],
    /// FLOPs of decoding the test set with `generate`, without and with the
    /// cache, and of the memory's cross-attention keys and values, which
    /// `generate` projects before its loop in both modes.
    pub flops: [u64; 2],
    pub memory_kv_flops: u64,
    /// Largest |Δ logit| between decoding without and with the cache.
    pub logit_diff: f64,
}

// ANCHOR: generation
/// Train the lecture's small Transformer on reversal (`recipe`), then
/// decode its test sequences greedily: with `generate`, without and with
/// the KV cache (counting FLOPs), and with the chapter's own loops.
pub fn train_and_decode(recipe: &Recipe, seed: u64) -> Decoded {
    let cfg = Seq2SeqConfig::lecture17(recipe.vocab());
    let (model, params, trained) = reversal_run(cfg, recipe, seed);
    let test = test_set(recipe, seed);
    let (n, len) = (recipe.test, recipe.len);
    let (plain, without) = counting(|| model.generate(&params, &test.src, n, len, BOS, false));
    let (cached, with) = counting(|| model.generate(&params, &test.src, n, len, BOS, true));
    let memory = encode(&model, &params, &test.src, n);
    let memory_kv_flops = counting(|| memory_kv(&model, &params, &memory)).1.flops;
    let ours = greedy_cached(&model, &params, &test.src, n, len, |t| t);
    let bug = greedy_cached(&model, &params, &test.src, n, len, |_| 0);
    let own_0 = greedy_split(&model, &params, &test.src, (n, len), |_| 0, |t| t);
    let cached_0 = greedy_split(&model, &params, &test.src, (n, len), |t| t, |_| 0);
    Decoded {
        trained,
        answers: test.tgt_out,
        logit_diff: largest_diff(&plain.logits, &cached.logits),
        tokens: [plain.tokens, cached.tokens, ours, bug, own_0, cached_0],
        flops: [without.flops, with.flops],
        memory_kv_flops,
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

/// Where the bug's tokens come from, over the steps t ≥ 1 whose earlier
/// tokens were all right (so the token fed at t is the answer's t − 1):
/// [steps whose fed token occurs earlier in the answer (nearer the source's
/// end), of them written as the answer's token after that first occurrence;
/// first wrong tokens (one per sequence that goes wrong), of them one of the
/// answer's first two (the source's last two symbols)].
fn bug_sources(bug: &[usize], answers: &[usize], len: usize) -> [usize; 4] {
    let mut counts = [0; 4];
    for (b, a) in bug.chunks(len).zip(answers.chunks(len)) {
        for t in 1..len {
            if b[..t] != a[..t] {
                break;
            }
            if let Some(k) = (0..t - 1).find(|&k| a[k] == a[t - 1]) {
                counts[0] += 1;
                counts[1] += usize::from(b[t] == a[k + 1]);
            }
            if b[t] != a[t] {
                counts[2] += 1;
                counts[3] += usize::from(b[t] == a[0] || b[t] == a[1]);
            }
        }
    }
    counts
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
    let symbols = nb.value("gen_symbols", recipe.symbols.to_string());
    say!(
        nb,
        "Seq2SeqConfig::lecture17 trained on reversal of length {len_shown} over {symbols} symbols: {steps_shown} steps, batch {}, Adam {}, seed {seed}",
        recipe.batch,
        show::short(recipe.lr)
    );
    let d = train_and_decode(recipe, seed);
    let tail = 20;
    let loss = nb.value("gen_final_loss", show::num(d.trained.final_loss(tail), 4));
    let tail = nb.value("gen_loss_tail", tail.to_string());
    say!(nb, "mean loss of the last {tail} steps {loss}");
    say!(nb, "{n_shown} test sequences, decoded greedily from BOS:");
    let names = ["uncached", "cached", "ours", "bug", "own0", "cache0"];
    let labels = [
        "generate, no cache",
        "generate, KV cache",
        "greedy_cached(|t| t)",
        "greedy_cached(|_| 0)",
        "own step at 0 only",
        "cached keys at 0 only",
    ];
    for (i, tokens) in d.tokens.iter().enumerate() {
        if i == 4 {
            say!(nb, "the bug taken apart, greedy_split(own, cached):");
        }
        let (acc, at) = accuracy(tokens, &d.answers, len);
        let acc = nb.value(&format!("gen_acc_{}", names[i]), show::num(acc, 3));
        let same = if i == 0 {
            "the reference".to_string()
        } else if i < 4 {
            let same =
                nb.value(&format!("gen_same_{}", names[i]), (tokens == &d.tokens[0]).to_string());
            format!("same tokens as without the cache: {same}")
        } else {
            String::new()
        };
        let same = if same.is_empty() { same } else { format!("; {same}") };
        say!(nb, "  {:<22} token accuracy {acc}{same}", labels[i]);
        let at: Vec<String> = at.iter().map(|a| show::num(*a, 2)).collect();
        say!(nb, "  {:<22} right at each step: {}", "", at.join(" "));
        if i >= 3 {
            for (t, a) in at.iter().enumerate() {
                nb.value(&format!("gen_{}_at_{t}", names[i]), a.clone());
            }
        }
        if names[i] == "bug" {
            nb.value("gen_bug_last", at[len - 1].clone());
        }
    }
    nb.value("gen_guess", show::num(1.0 / recipe.symbols as f64, 2));
    let [repeats, beside, wrong, at_end] = bug_sources(&d.tokens[3], &d.answers, len);
    say!(nb, "the bug's steps t ≥ 1 after a right prefix (fed the answer's token t − 1):");
    let repeats = nb.value("gen_bug_repeats", repeats.to_string());
    let beside = nb.value("gen_bug_beside", beside.to_string());
    say!(
        nb,
        "  fed a token that occurs earlier in the answer: {repeats} steps; wrote the token after its first occurrence: {beside}"
    );
    let wrong = nb.value("gen_bug_wrong", wrong.to_string());
    let at_end = nb.value("gen_bug_wrong_end", at_end.to_string());
    say!(
        nb,
        "  sequences that go wrong: {wrong}; first wrong token one of the answer's first two: {at_end}"
    );
    let diff = nb.value("gen_logit_diff", show::sci(d.logit_diff, 1));
    say!(nb, "largest |Δ logit| between no cache and the cache: {diff}");
    let [without, with] = d.flops;
    let needed = without - d.memory_kv_flops;
    let without_s = nb.value("gen_flops_uncached", show::grouped(without as usize));
    let with_s = nb.value("gen_flops_cached", show::grouped(with as usize));
    let unused = nb.value("gen_flops_unused", show::grouped(d.memory_kv_flops as usize));
    let needed_s = nb.value("gen_flops_uncached_needed", show::grouped(needed as usize));
    let ratio = nb.value("gen_flops_ratio", show::num(needed as f64 / with as f64, 2));
    say!(nb, "FLOPs of decoding the test set with generate: {without_s} without the cache,");
    say!(
        nb,
        "  {unused} of them the memory's K and V, projected before the loop, unused without the cache;"
    );
    say!(nb, "  without them {needed_s}; with the cache {with_s} ({ratio}× fewer)");
    // one example, as the reader would see it
    let shown = |t: &[usize]| format!("{:?}", &t[..len]);
    say!(nb, "the first test sequence: answer {}", shown(&d.answers));
    say!(nb, "  with the cache:        {}", shown(&d.tokens[1]));
    say!(nb, "  with the bug:          {}", shown(&d.tokens[3]));
}
