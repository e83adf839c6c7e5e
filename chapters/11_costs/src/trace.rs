//! Two observers of the autograd tape (`autograd::flops::Observer`): one
//! lists the ops a forward pass records with the FLOPs of the products each
//! ran, the other adds up what backward really needs kept. Everything this
//! chapter counts comes from them, never from the formulas it checks.

use std::collections::BTreeMap;

use autograd::flops::{Observer, Shape};

// ANCHOR: trace
/// Every op recorded on the tape, in order, with the FLOPs (2·m·k·n) and
/// the number of the matrix products it ran.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub ops: Vec<Op>,
    flops: u64,
    products: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Op {
    pub name: String,
    pub flops: u64,
    pub products: usize,
}

impl Observer for Trace {
    // a product runs inside an op, before the op records its node
    fn product(&mut self, shape: Shape, _seconds: f64) {
        self.flops += shape.flops();
        self.products += 1;
    }
    fn op(&mut self, name: &str, _seconds: f64) {
        let (flops, products) =
            (std::mem::take(&mut self.flops), std::mem::take(&mut self.products));
        self.ops.push(Op { name: name.to_string(), flops, products });
    }
}

impl Trace {
    /// FLOPs of every product the pass ran.
    pub fn flops(&self) -> u64 {
        self.ops.iter().map(|o| o.flops).sum()
    }
}
// ANCHOR_END: trace

// ANCHOR: kept
/// What a training step must keep between forward and backward: the
/// activations some backward read (each node once, parameters not
/// counted) and what the ops saved beside them (`autograd::Saved`).
#[derive(Clone, Debug, Default)]
pub struct Kept {
    /// node → (rows, columns)
    pub read: BTreeMap<usize, (usize, usize)>,
    pub saved: usize,
}

impl Observer for Kept {
    fn read(&mut self, node: usize, rows: usize, cols: usize) {
        self.read.insert(node, (rows, cols));
    }
    fn saved(&mut self, numbers: usize) {
        self.saved += numbers;
    }
}

impl Kept {
    /// Numbers backward needs: the activations it read plus what was saved.
    pub fn numbers(&self) -> usize {
        self.read.values().map(|(r, c)| r * c).sum::<usize>() + self.saved
    }

    /// The activations read, by shape: how many of each.
    pub fn by_shape(&self) -> BTreeMap<(usize, usize), usize> {
        let mut shapes = BTreeMap::new();
        for &shape in self.read.values() {
            *shapes.entry(shape).or_insert(0) += 1;
        }
        shapes
    }
}
// ANCHOR_END: kept

/// Op and product timing: forward seconds per op name.
#[derive(Clone, Debug, Default)]
pub struct Timed {
    pub seconds: BTreeMap<String, f64>,
}

impl Observer for Timed {
    fn op(&mut self, name: &str, seconds: f64) {
        *self.seconds.entry(name.to_string()).or_insert(0.0) += seconds;
    }
}
