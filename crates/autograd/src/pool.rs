//! Matrices reused from one training step to the next.
//!
//! A step allocates every activation and gradient anew, and at the sizes of
//! the book most of them are large enough for the system allocator to map
//! fresh pages each time — page faults and zeroing that cost more than the
//! arithmetic. A dropped [`Tape`](crate::Tape) (and its [`Grads`](crate::Grads))
//! hands its matrices back here; the next step takes them again by shape.
//! Nothing else changes: a matrix from the pool is either fully overwritten
//! ([`take`]) or zeroed ([`zeros`]) before use, so results are the same
//! bits with or without it.

use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::collections::HashMap;

use faer::Mat;

use crate::Real;

/// Free matrices of one number type, by shape.
#[derive(Default)]
struct Pool<T: Real> {
    free: HashMap<(usize, usize), Vec<Mat<T>>>,
}

/// At most this many spare matrices of one shape are kept.
const KEEP: usize = 256;

/// A matrix of this shape whose contents are stale: only for outputs the
/// caller overwrites completely.
pub fn take<T: Real>(rows: usize, cols: usize) -> Mat<T> {
    let reused = if off() {
        None
    } else {
        with_pool::<T, _>(|p| p.free.get_mut(&(rows, cols)).and_then(Vec::pop))
    };
    reused.unwrap_or_else(|| fresh(rows, cols))
}

/// A new matrix of zeros — its padding too. faer stores each column rounded
/// up to whole SIMD registers, and its kernels for fewer rows than a
/// register holds read and multiply the padding rows (dropping the result).
/// `Mat::zeros` leaves those rows as the allocator handed them back, and
/// leftovers that happen to be subnormal floats make such products many
/// times slower. Nothing here ever writes padding, so zero stays zero.
fn fresh<T: Real>(rows: usize, cols: usize) -> Mat<T> {
    let full = rows.next_multiple_of(16);
    let mut m = Mat::with_capacity(full, cols);
    m.resize_with(full, cols, |_, _| T::zero());
    m.resize_with(rows, cols, |_, _| T::zero());
    m
}

/// A matrix of zeros.
pub fn zeros<T: Real>(rows: usize, cols: usize) -> Mat<T> {
    let mut m = take(rows, cols);
    m.as_mut().fill(T::zero());
    m
}

/// Hand a matrix back.
pub fn give<T: Real>(m: Mat<T>) {
    if m.nrows() == 0 || m.ncols() == 0 || off() {
        return;
    }
    with_pool::<T, _>(|p| {
        let spare = p.free.entry((m.nrows(), m.ncols())).or_default();
        if spare.len() < KEEP {
            spare.push(m);
        }
    });
}

/// Drop every spare matrix of this thread. The pool keeps up to [`KEEP`]
/// of each shape it has seen, for as long as the thread lives: a thread
/// that goes on to other shapes (the next run of an experiment, say) can
/// hand the memory back first.
pub fn clear() {
    POOLS.with(|pools| pools.borrow_mut().clear());
}

/// Run `f` with the pool switched off on this thread: every matrix is
/// allocated anew and dropped when done — to show that the pool changes
/// nothing but speed.
pub fn without<R>(f: impl FnOnce() -> R) -> R {
    let before = OFF.with(|o| o.replace(true));
    let out = f();
    OFF.with(|o| o.set(before));
    out
}

fn off() -> bool {
    OFF.with(std::cell::Cell::get)
}

/// Run `f` on this thread's pool of `T` matrices (one pool per number type).
fn with_pool<T: Real, R>(f: impl FnOnce(&mut Pool<T>) -> R) -> R {
    POOLS.with(|pools| {
        let mut pools = pools.borrow_mut();
        let pool = pools.entry(TypeId::of::<T>()).or_insert_with(|| Box::new(Pool::<T>::default()));
        f(pool.downcast_mut().expect("a pool holds matrices of its own type"))
    })
}

thread_local! {
    static OFF: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    static POOLS: RefCell<HashMap<TypeId, Box<dyn Any>>> = RefCell::new(HashMap::new());
}
