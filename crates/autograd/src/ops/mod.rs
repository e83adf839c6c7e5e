//! The ops. Each file holds a few related ops; each op is a method that
//! computes its forward value and records, right beneath it, the closure
//! that computes its backward. These are the plain ops, the ones to read;
//! `fused/` holds the kernels that do the work of several of them at once.

pub mod attention;
pub mod dropout;
pub mod elementwise;
pub mod embedding;
pub mod fused;
pub mod gru;
pub mod loss;
pub mod matmul;
pub mod norm;
pub mod reduce;
pub mod shape;
pub mod softmax;

use faer::Mat;

use crate::Real;

/// `f` of every element.
pub(crate) fn map<T: Real>(a: &Mat<T>, f: impl Fn(T) -> T) -> Mat<T> {
    let mut out = crate::pool::take(a.nrows(), a.ncols());
    for j in 0..a.ncols() {
        let (src, dst) = (a.col_as_slice(j), out.col_as_slice_mut(j));
        for (d, &s) in dst.iter_mut().zip(src) {
            *d = f(s);
        }
    }
    out
}

/// `f` of every pair of elements.
pub(crate) fn zip_map<T: Real>(a: &Mat<T>, b: &Mat<T>, f: impl Fn(T, T) -> T) -> Mat<T> {
    let mut out = crate::pool::take(a.nrows(), a.ncols());
    for j in 0..a.ncols() {
        let (x, y, dst) = (a.col_as_slice(j), b.col_as_slice(j), out.col_as_slice_mut(j));
        for ((d, &s), &t) in dst.iter_mut().zip(x).zip(y) {
            *d = f(s, t);
        }
    }
    out
}

/// `acc += f(a, b)` element by element.
pub(crate) fn accumulate<T: Real>(acc: &mut Mat<T>, a: &Mat<T>, b: &Mat<T>, f: impl Fn(T, T) -> T) {
    for j in 0..acc.ncols() {
        let (x, y) = (a.col_as_slice(j), b.col_as_slice(j));
        for ((d, &s), &t) in acc.col_as_slice_mut(j).iter_mut().zip(x).zip(y) {
            *d += f(s, t);
        }
    }
}

/// `acc += a`.
pub(crate) fn add_into<T: Real>(acc: &mut Mat<T>, a: &Mat<T>) {
    for j in 0..acc.ncols() {
        let src = a.col_as_slice(j);
        for (d, &s) in acc.col_as_slice_mut(j).iter_mut().zip(src) {
            *d += s;
        }
    }
}

/// The sum of a slice in a fixed order that the compiler can vectorise:
/// eight running sums over interleaved elements, combined pairwise, then the
/// leftover tail. (A plain left-to-right sum is one long dependency chain.)
pub fn sum<T: Real>(xs: &[T]) -> T {
    let mut acc = [T::zero(); 8];
    let chunks = xs.chunks_exact(8);
    let tail = chunks.remainder();
    for c in chunks {
        for k in 0..8 {
            acc[k] += c[k];
        }
    }
    let mut s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    for &x in tail {
        s += x;
    }
    s
}

#[track_caller]
pub(crate) fn same_shape<T: Real>(op: &str, a: &Mat<T>, b: &Mat<T>) {
    assert!(
        a.nrows() == b.nrows() && a.ncols() == b.ncols(),
        "{op}: shapes {}×{} and {}×{} differ",
        a.nrows(),
        a.ncols(),
        b.nrows(),
        b.ncols()
    );
}
