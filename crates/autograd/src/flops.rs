//! Counting the matrix products of a computation: how many FLOPs, at which
//! shapes. The benchmark uses it to print a step's FLOPs and to time faer
//! on exactly those shapes (the step's "matmul bound").

use std::cell::RefCell;
use std::collections::BTreeMap;

use faer::MatRef;

/// One product `(m, k)·(k, n)`, with whether each operand is a transposed
/// (row-major) view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Shape {
    pub m: usize,
    pub k: usize,
    pub n: usize,
    pub a_transposed: bool,
    pub b_transposed: bool,
}

/// What [`counting`] saw.
#[derive(Clone, Debug, Default)]
pub struct Count {
    /// `2·m·k·n` summed over every product.
    pub flops: u64,
    /// How many times each shape occurred.
    pub shapes: BTreeMap<Shape, u64>,
    /// Wall time spent in the products of each shape (seconds).
    pub seconds: BTreeMap<Shape, f64>,
    /// Per op (named by the function that recorded it): calls, forward
    /// seconds (the time since the previous op was recorded), backward seconds.
    pub ops: BTreeMap<String, (u64, f64, f64)>,
}

/// Whether [`counting`] is on for this thread.
pub(crate) fn on() -> bool {
    COUNT.with(|c| c.borrow().is_some())
}

/// The op a backward closure belongs to, from its type's name:
/// `autograd::ops::norm::<impl …>::layer_norm::{{closure}}` → `layer_norm`.
pub(crate) fn op_name(closure_type: &str) -> String {
    let path = closure_type.trim_end_matches("::{{closure}}");
    path.rsplit("::").next().unwrap_or(path).to_string()
}

pub(crate) fn record_op(name: &str, forward: f64, backward: f64) {
    COUNT.with(|c| {
        if let Some(count) = c.borrow_mut().as_mut() {
            let e = count.ops.entry(name.to_string()).or_insert((0, 0.0, 0.0));
            if forward > 0.0 || backward == 0.0 {
                e.0 += 1;
            }
            e.1 += forward;
            e.2 += backward;
        }
    });
}

thread_local! {
    static COUNT: RefCell<Option<Count>> = const { RefCell::new(None) };
}

/// Run `f`, counting the products it computes on this thread.
pub fn counting<R>(f: impl FnOnce() -> R) -> (R, Count) {
    COUNT.with(|c| *c.borrow_mut() = Some(Count::default()));
    let r = f();
    let count = COUNT.with(|c| c.borrow_mut().take()).unwrap_or_default();
    (r, count)
}

/// Run the product `f` of `a·b`, counting it (and timing it) when counting.
pub(crate) fn record<T>(a: MatRef<'_, T>, b: MatRef<'_, T>, f: impl FnOnce()) {
    if !on() {
        return f();
    }
    let start = std::time::Instant::now();
    f();
    let elapsed = start.elapsed().as_secs_f64();
    COUNT.with(|c| {
        if let Some(count) = c.borrow_mut().as_mut() {
            let shape = Shape {
                m: a.nrows(),
                k: a.ncols(),
                n: b.ncols(),
                a_transposed: a.row_stride() != 1 && a.nrows() > 1,
                b_transposed: b.row_stride() != 1 && b.nrows() > 1,
            };
            count.flops += 2 * (shape.m * shape.k * shape.n) as u64;
            *count.shapes.entry(shape).or_insert(0) += 1;
            *count.seconds.entry(shape).or_insert(0.0) += elapsed;
        }
    });
}
