//! Watching a computation: an [`Observer`] attached to this thread with
//! [`observe`] hears of every matrix product (its shape and wall time) and
//! every op (its name, and the time of its forward and of its backward),
//! what ops keep for backward and which activations backward reads.
//! The tape and the products only report; what is kept is the observer's
//! business. [`Count`] is the one the benchmark attaches (FLOPs, shapes,
//! time per op); a chapter can attach its own, e.g. to count the primitive
//! ops of one layer on a plain tape.

use std::any::Any;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::time::Instant;

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

impl Shape {
    /// `2·m·k·n`.
    pub fn flops(&self) -> u64 {
        2 * (self.m * self.k * self.n) as u64
    }
}

/// Something that wants to hear what a computation does. Every method has
/// an empty default: implement only what you count.
pub trait Observer: Any {
    /// A matrix product was computed, taking `seconds`.
    fn product(&mut self, _shape: Shape, _seconds: f64) {}
    /// An op was recorded; its forward took `seconds` (the time since the
    /// previous op was recorded).
    fn op(&mut self, _name: &str, _seconds: f64) {}
    /// An op's backward ran, taking `seconds`.
    fn op_backward(&mut self, _name: &str, _seconds: f64) {}
    /// An op that will run backward kept `numbers` values of its own
    /// ([`crate::Saved`]) beside the tape's nodes.
    fn saved(&mut self, _numbers: usize) {}
    /// A backward read the value of activation node `node`, a `rows`×`cols`
    /// matrix: the tape had to keep it. Parameters are not reported.
    fn read(&mut self, _node: usize, _rows: usize, _cols: usize) {}
}

struct Watch {
    observer: Box<dyn Observer>,
    last: Option<Instant>,
}

thread_local! {
    static WATCH: RefCell<Option<Watch>> = const { RefCell::new(None) };
}

/// Run `f` with `observer` attached to this thread; hand both back.
pub fn observe<O: Observer, R>(observer: O, f: impl FnOnce() -> R) -> (R, O) {
    let watch = Watch { observer: Box::new(observer), last: None };
    let before = WATCH.with(|w| w.borrow_mut().replace(watch));
    let r = f();
    let watch = WATCH.with(|w| std::mem::replace(&mut *w.borrow_mut(), before));
    let observer: Box<dyn Any> = watch.expect("the observer is still attached").observer;
    (r, *observer.downcast::<O>().expect("the observer that was attached"))
}

/// Whether an observer is attached to this thread.
pub(crate) fn on() -> bool {
    WATCH.with(|w| w.borrow().is_some())
}

fn tell(f: impl FnOnce(&mut Watch)) {
    WATCH.with(|w| {
        if let Some(watch) = w.borrow_mut().as_mut() {
            f(watch)
        }
    })
}

/// The op a backward closure belongs to, from its type's name:
/// `autograd::ops::norm::<impl …>::layer_norm::{{closure}}` → `layer_norm`.
pub(crate) fn op_name(closure_type: &str) -> String {
    let path = closure_type.trim_end_matches("::{{closure}}");
    path.rsplit("::").next().unwrap_or(path).to_string()
}

/// The tape recorded an op (whose backward closure has this type name):
/// its name, when an observer is attached.
pub(crate) fn recorded(closure_type: &str) -> Option<String> {
    if !on() {
        return None;
    }
    let name = op_name(closure_type);
    tell(|w| {
        let now = Instant::now();
        let forward = w.last.map_or(0.0, |t| (now - t).as_secs_f64());
        w.observer.op(&name, forward);
        w.last = Some(now);
    });
    Some(name)
}

/// Run the backward `f` of op `name`, timing it when an observer is attached.
pub(crate) fn backward(name: Option<&str>, f: impl FnOnce()) {
    let Some(name) = name.filter(|_| on()) else { return f() };
    let start = Instant::now();
    f();
    let seconds = start.elapsed().as_secs_f64();
    tell(|w| w.observer.op_backward(name, seconds));
}

/// An op kept `numbers` values for its backward.
pub(crate) fn saved(numbers: usize) {
    if on() {
        tell(|w| w.observer.saved(numbers));
    }
}

/// A backward read activation `node`'s value.
pub(crate) fn read(node: usize, rows: usize, cols: usize) {
    if on() {
        tell(|w| w.observer.read(node, rows, cols));
    }
}

/// Run the product `f` of `a·b`, timing it when an observer is attached.
pub(crate) fn record<T>(a: MatRef<'_, T>, b: MatRef<'_, T>, f: impl FnOnce()) {
    if !on() {
        return f();
    }
    let start = Instant::now();
    f();
    let seconds = start.elapsed().as_secs_f64();
    let shape = Shape {
        m: a.nrows(),
        k: a.ncols(),
        n: b.ncols(),
        a_transposed: a.row_stride() != 1 && a.nrows() > 1,
        b_transposed: b.row_stride() != 1 && b.nrows() > 1,
    };
    tell(|w| w.observer.product(shape, seconds));
}

/// The benchmark's observer: FLOPs, shapes, and time per shape and per op.
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

impl Observer for Count {
    fn product(&mut self, shape: Shape, seconds: f64) {
        self.flops += shape.flops();
        *self.shapes.entry(shape).or_insert(0) += 1;
        *self.seconds.entry(shape).or_insert(0.0) += seconds;
    }
    fn op(&mut self, name: &str, seconds: f64) {
        let e = self.ops.entry(name.to_string()).or_insert((0, 0.0, 0.0));
        e.0 += 1;
        e.1 += seconds;
    }
    fn op_backward(&mut self, name: &str, seconds: f64) {
        self.ops.entry(name.to_string()).or_insert((0, 0.0, 0.0)).2 += seconds;
    }
}

/// Run `f`, counting the products it computes on this thread.
pub fn counting<R>(f: impl FnOnce() -> R) -> (R, Count) {
    observe(Count::default(), f)
}
