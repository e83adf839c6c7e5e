//! An observer hears every product and every op: the FLOPs of a linear
//! layer's forward and backward are counted exactly, and on a plain tape a
//! Post-LN residual is two ops (add, layer_norm) where a fused tape has one.

use autograd::flops::{Observer, Shape, counting, observe};
use autograd::nn::LayerNorm;
use autograd::{Kernels, Params, Tape};
use faer::Mat;

/// Counts the ops recorded, by name, in order.
#[derive(Default)]
struct Ops(Vec<String>);

impl Observer for Ops {
    fn op(&mut self, name: &str, _seconds: f64) {
        self.0.push(name.to_string());
    }
}

#[test]
fn a_linear_layer_costs_what_its_products_say() {
    let mut params = Params::<f64>::new();
    let w = params.add("w", Mat::from_fn(4, 3, |i, j| (i + j) as f64 / 10.0));
    let b = params.add("b", Mat::zeros(1, 3));
    let ((), count) = counting(|| {
        let tape = Tape::new(&params);
        let x = tape.input(Mat::from_fn(5, 4, |i, j| (i * j) as f64));
        let y = x.linear(tape.param(w), tape.param(b)).sum();
        drop(tape.backward(y));
    });
    // forward (5,4)·(4,3); backward dW = xᵀ·dy only (x is a constant)
    assert_eq!(count.flops, 2 * (5 * 4 * 3) * 2);
    let shapes: Vec<Shape> = count.shapes.keys().copied().collect();
    assert!(shapes.iter().all(|s| s.m * s.k * s.n == 60), "{shapes:?}");
    assert!(count.ops.contains_key("linear") && count.ops.contains_key("sum"), "{:?}", count.ops);
}

#[test]
fn a_plain_tape_records_the_plain_ops() {
    let mut params = Params::<f64>::new();
    let ln = LayerNorm::new(&mut params, "ln", 6);
    let ops_on = |kernels| {
        let ((), Ops(names)) = observe(Ops::default(), || {
            let tape = Tape::with_kernels(&params, kernels);
            let x = tape.input(Mat::from_fn(2, 6, |i, j| (i + 2 * j) as f64));
            let y = tape.input(Mat::from_fn(2, 6, |i, j| (3 * i + j) as f64));
            ln.forward_add(x, y);
        });
        names
    };
    assert_eq!(ops_on(Kernels::Fused), ["add_layer_norm"]);
    assert_eq!(ops_on(Kernels::Plain), ["add", "layer_norm"]);
}

/// What backward read (activations only) and what ops saved.
#[derive(Default)]
struct Kept {
    read: Vec<(usize, usize, usize)>,
    saved: usize,
}

impl Observer for Kept {
    fn read(&mut self, node: usize, rows: usize, cols: usize) {
        if !self.read.iter().any(|r| r.0 == node) {
            self.read.push((node, rows, cols));
        }
    }
    fn saved(&mut self, numbers: usize) {
        self.saved += numbers;
    }
}

#[test]
fn backward_reports_the_activations_it_reads_and_what_ops_saved() {
    let mut params = Params::<f64>::new();
    let w = params.add("w", Mat::from_fn(4, 3, |i, j| (i + 2 * j) as f64 / 10.0));
    let ln = LayerNorm::new(&mut params, "ln", 3);
    let ((), kept) = observe(Kept::default(), || {
        let tape = Tape::new(&params);
        let x = tape.input(Mat::from_fn(5, 4, |i, j| (i * j) as f64 - 3.0));
        // x·w reads x (w is a parameter, not reported); relu reads its own
        // output or input, (5, 3); layer norm reads its input and saves two
        // numbers per row
        let y = ln.forward(x.matmul(tape.param(w)).relu()).sum();
        drop(tape.backward(y));
    });
    let shapes: Vec<(usize, usize)> = kept.read.iter().map(|r| (r.1, r.2)).collect();
    assert!(shapes.contains(&(5, 4)), "x was read: {shapes:?}");
    assert!(shapes.iter().all(|&s| s == (5, 4) || s == (5, 3)), "{shapes:?}");
    assert!(!shapes.contains(&(4, 3)), "a parameter was reported: {shapes:?}");
    assert_eq!(kept.saved, 2 * 5);
}
