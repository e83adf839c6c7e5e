//! The ops. Each file holds a few related ops; each op is a method that
//! computes its forward value and records, right beneath it, the closure
//! that computes its backward.

pub mod attention;
pub mod dropout;
pub mod elementwise;
pub mod embedding;
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
    let mut out = Mat::zeros(a.nrows(), a.ncols());
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
    let mut out = Mat::zeros(a.nrows(), a.ncols());
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
        let dst = acc.col_as_slice_mut(j);
        for ((d, &s), &t) in dst.iter_mut().zip(x).zip(y) {
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
