//! ms per training step (forward + backward + Adam, batch 64, f32, one
//! thread), the step's matrix-product FLOPs, and how close the step comes
//! to its *matmul bound*: the time faer alone needs for exactly the
//! products the step computes, measured in the same run — each shape timed
//! on its own, again and again, with its operands hot in cache.
//!
//! The last two columns say how much of the gap is the products themselves:
//! `products ms` is the time the same products took *inside* a step (cold
//! operands, thousands of small per-head calls in a row), and `ceiling` is
//! the bound as a share of it — the "of bound" figure a step would reach if
//! everything but its products cost nothing. (Each product inside the step
//! is timed between two clock reads, which adds a little to the thousands
//! of tiny per-head products: the ceiling errs low at small L.)
//!
//! Under each row, `kernels` says which of faer's kernels ran the step's
//! products on this CPU: the bound, and so "of bound", depends on it (on an
//! AVX-512 CPU faer's products run about 1.5× faster than with AVX2, while
//! the rest of the step does not change).
//!
//!     cargo bench -p autograd --bench step [-- --lengths 8,32 --min-seconds 1 --shapes --ops --models transformer,gru,gru-attention]

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use autograd::data::{FIRST_SYMBOL, reversal};
use autograd::flops::{Count, Shape, counting};
use autograd::nn::{GruSeq2Seq, Seq2Seq, Seq2SeqConfig};
use autograd::optim::Adam;
use autograd::train::step;
use autograd::{Params, Smoothing};
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, Par};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

const BATCH: usize = 64;
const SYMBOLS: usize = 10;

/// Median wall time of `f`, run until `min` has passed (at least 3 times).
fn time(min: Duration, f: impl FnMut()) -> Duration {
    let times = times(min, f);
    times[times.len() / 2]
}

/// Every wall time of `f`, sorted, run until `min` has passed (at least 3
/// times, after one run to warm up).
fn times(min: Duration, mut f: impl FnMut()) -> Vec<Duration> {
    f(); // warm up
    let mut times = Vec::new();
    let start = Instant::now();
    while times.len() < 3 || start.elapsed() < min {
        let t = Instant::now();
        f();
        times.push(t.elapsed());
    }
    times.sort();
    times
}

/// The time faer needs for every product in `count`, each timed alone.
fn matmul_bound(count: &Count, verbose: bool) -> Duration {
    let mut total = Duration::ZERO;
    for (shape, &n) in &count.shapes {
        let &Shape { m, k, n: cols, a_transposed, b_transposed } = shape;
        let (ar, ac) = if a_transposed { (k, m) } else { (m, k) };
        let (br, bc) = if b_transposed { (cols, k) } else { (k, cols) };
        let a = padded(ar, ac, |i, j| (i + j) as f32 * 1e-3);
        let b = padded(br, bc, |i, j| (i * j) as f32 * 1e-3);
        let mut c = padded(m, cols, |_, _| 0.0);
        let reps = (2_000_000 / (m * k * cols).max(1)).clamp(1, 10_000);
        // the fastest run: the bound is what faer can do, and a run slowed
        // by anything else on the machine says nothing about that
        let per = times(Duration::from_millis(20), || {
            for _ in 0..reps {
                let (a, b) =
                    (a.as_ref().submatrix(0, 0, ar, ac), b.as_ref().submatrix(0, 0, br, bc));
                let (a, b) = (
                    if a_transposed { a.transpose() } else { a },
                    if b_transposed { b.transpose() } else { b },
                );
                let c = c.as_mut().submatrix_mut(0, 0, m, cols);
                matmul(c, Accum::Add, a, b, 1.0, Par::Seq);
            }
        })[0]
            / reps as u32;
        total += per * n as u32;
        if verbose {
            let in_step = count.seconds[shape] * 1e3;
            println!(
                "      {m:>5}×{k:<5}·{k:>5}×{cols:<5} {}{} ×{n:<5} alone {:>7.3} ms   in the step {in_step:>7.3} ms",
                if a_transposed { "Aᵀ" } else { "A " },
                if b_transposed { "Bᵀ" } else { "B " },
                (per * n as u32).as_secs_f64() * 1e3
            );
        }
    }
    total
}

/// A matrix of `f(i, j)`, stored with its rows rounded up to a multiple of
/// 16 and the extra rows set to zero: use its top `rows` rows. faer's kernels
/// for fewer than 16 rows read (and multiply) a full 16, so the rows past
/// the end must hold something definite — a padding row left as the
/// allocator handed it back can hold subnormal floats, which made the 8-row
/// products here run 40× slower than they do.
fn padded(rows: usize, cols: usize, f: impl Fn(usize, usize) -> f32) -> Mat<f32> {
    Mat::from_fn(rows.next_multiple_of(16), cols, |i, j| if i < rows { f(i, j) } else { 0.0 })
}

/// The kernel faer 0.24.4 runs an f32 product of this shape on this CPU,
/// by faer's own rule (`faer/src/linalg/matmul/mod.rs`): at most 16³
/// multiply-adds go to nano-gemm, built without its AVX-512 kernels, so
/// AVX2+FMA on every CPU the book promises; larger products go to
/// private-gemm-x86, with AVX-512 microkernels (96×4 for f32) when the
/// CPU has AVX-512F and AVX2+FMA ones (24×4) otherwise.
fn kernel(shape: &Shape) -> &'static str {
    if shape.m * shape.k * shape.n <= 16 * 16 * 16 {
        "nano-gemm AVX2+FMA"
    } else if std::arch::is_x86_feature_detected!("avx512f") {
        "private-gemm-x86 AVX-512"
    } else if std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
    {
        "private-gemm-x86 AVX2+FMA"
    } else {
        "faer's portable kernels"
    }
}

/// One line: each kernel's share of the step's products and FLOPs.
fn kernels(count: &Count) -> String {
    let mut by: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    for (shape, &n) in &count.shapes {
        let e = by.entry(kernel(shape)).or_default();
        e.0 += n;
        e.1 += n * shape.flops();
    }
    let parts: Vec<String> = by
        .iter()
        .map(|(k, (calls, flops))| {
            format!("{k} ×{calls} ({:.1}% of FLOPs)", 100.0 * *flops as f64 / count.flops as f64)
        })
        .collect();
    format!("      kernels: {}", parts.join(", "))
}

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1).cloned())
}

/// Time `step`, count its products, time its matmul bound; print one row.
fn row(label: &str, min: Duration, shapes: bool, mut step: impl FnMut()) {
    step(); // the first step allocates; count warm ones
    // three counted steps; keep the one whose products took the median time
    let mut counts: Vec<Count> = (0..3).map(|_| counting(&mut step).1).collect();
    let in_step = |c: &Count| c.seconds.values().sum::<f64>();
    counts.sort_by(|a, b| in_step(a).total_cmp(&in_step(b)));
    let count = counts.swap_remove(1);
    let products = in_step(&count);
    let t = time(min, &mut step);
    let bound = matmul_bound(&count, shapes);
    if std::env::args().any(|a| a == "--ops") {
        let mut ops: Vec<_> = count.ops.iter().collect();
        ops.sort_by(|a, b| (b.1.1 + b.1.2).total_cmp(&(a.1.1 + a.1.2)));
        for (name, (calls, fwd, bwd)) in ops.iter().take(14) {
            println!(
                "      {name:<22} ×{calls:<5} forward {:>7.3} ms   backward {:>7.3} ms",
                fwd * 1e3,
                bwd * 1e3
            );
        }
    }
    let gflop = count.flops as f64 * 1e-9;
    println!(
        "{label:>5} {:>10.2} {gflop:>9.3} {:>9.1} {:>12.2} {:>11.1} {:>8.0}% {:>12.2} {:>8.0}%",
        t.as_secs_f64() * 1e3,
        gflop / t.as_secs_f64(),
        bound.as_secs_f64() * 1e3,
        gflop / bound.as_secs_f64(),
        100.0 * bound.as_secs_f64() / t.as_secs_f64(),
        products * 1e3,
        100.0 * bound.as_secs_f64() / products
    );
    println!("{}", kernels(&count));
}

const HEADER: [&str; 9] = [
    "L",
    "ms/step",
    "GFLOP",
    "GFLOP/s",
    "bound ms",
    "bound GF/s",
    "of bound",
    "products ms",
    "ceiling",
];

fn header() {
    let h = HEADER;
    println!(
        "{:>5} {:>10} {:>9} {:>9} {:>12} {:>11} {:>9} {:>12} {:>9}",
        h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8]
    );
}

fn main() {
    let lengths: Vec<usize> = arg("--lengths")
        .map(|s| s.split(',').map(|x| x.parse().expect("--lengths: numbers")).collect())
        .unwrap_or_else(|| vec![8, 16, 32, 64, 128]);
    let min = Duration::from_secs_f64(
        arg("--min-seconds").map_or(1.0, |s| s.parse().expect("--min-seconds")),
    );
    let shapes = std::env::args().any(|a| a == "--shapes");
    let vocab = FIRST_SYMBOL + SYMBOLS;
    let models = arg("--models").unwrap_or_else(|| "transformer,gru,gru-attention".into());
    let models: Vec<&str> = models.split(',').collect();

    if models.contains(&"transformer") {
        println!(
            "Transformer (1 encoder + 1 decoder layer, d_model 64, 4 heads, d_ff 256), batch {BATCH}, f32, one thread"
        );
        header();
        for &len in &lengths {
            let mut rng = Pcg64Mcg::seed_from_u64(0);
            let mut params = Params::<f32>::new();
            let cfg = Seq2SeqConfig::lecture17(vocab);
            let model = Seq2Seq::new(&mut params, cfg, &mut rng);
            let mut adam = Adam::new(&params, 1e-3, 0.9, 0.999, 1e-8);
            let mut data = Pcg64Mcg::seed_from_u64(1);
            row(&len.to_string(), min, shapes, || {
                let b = reversal(&mut data, BATCH, len, SYMBOLS);
                step(&mut params, &mut adam, |tape| {
                    let out = model.forward(tape, &b.src, &b.tgt_in, BATCH).unwrap();
                    out.logits.cross_entropy(&b.tgt_out, None, Smoothing::None)
                });
            });
        }
    }

    for attention in [false, true] {
        if !models.contains(&if attention { "gru-attention" } else { "gru" }) {
            continue;
        }
        let name = if attention { "with Luong attention" } else { "without attention" };
        println!(
            "GRU encoder-decoder {name} (embedding 64, hidden 128), batch {BATCH}, f32, one thread"
        );
        header();
        for &len in &lengths {
            let mut rng = Pcg64Mcg::seed_from_u64(0);
            let mut params = Params::<f32>::new();
            let model = GruSeq2Seq::new(&mut params, vocab, 64, 128, attention, &mut rng);
            let mut adam = Adam::new(&params, 1e-3, 0.9, 0.999, 1e-8);
            let mut data = Pcg64Mcg::seed_from_u64(1);
            row(&len.to_string(), min, shapes, || {
                let b = reversal(&mut data, BATCH, len, SYMBOLS);
                step(&mut params, &mut adam, |tape| {
                    let (logits, _) = model.forward(tape, &b.src, &b.tgt_in, BATCH);
                    logits.cross_entropy(&b.tgt_out, None, Smoothing::None)
                });
            });
        }
    }
}
