//! Ops that move numbers without changing them: transpose, split and
//! combine heads, concatenate, slice. Their backward moves the gradient back:
//! `y = P(x)` for a fixed rearrangement `P`, so `dx += Pᵀ(dy)` — each
//! gradient entry goes back to where its value came from.

use crate::{NodeId, Real, Var};

impl<'t, T: Real> Var<'t, T> {
    /// `selfᵀ`.
    pub fn transpose(self) -> Var<'t, T> {
        let a_id = self.id;
        let out = self.value().transpose().to_owned();
        self.tape.push(out, &[a_id], move |b, dout| {
            *b.grad(a_id) += dout.transpose();
        })
    }

    /// (B·S, h·D_h) → (B·h·S, D_h): row block `b·h + i` is head `i` of
    /// sequence `b`. The inverse of [`Var::combine_heads`].
    #[track_caller]
    pub fn split_heads(self, batch: usize, heads: usize) -> Var<'t, T> {
        let a_id = self.id;
        let (rows, d) = self.shape();
        assert!(
            rows % batch == 0 && d % heads == 0,
            "split_heads: {rows}×{d} into {batch} sequences of {heads} heads"
        );
        let (s, dh) = (rows / batch, d / heads);
        let out = {
            let x = self.value();
            let mut out = crate::pool::take(batch * heads * s, dh);
            for bi in 0..batch {
                for h in 0..heads {
                    let src = x.as_ref().submatrix(bi * s, h * dh, s, dh);
                    out.as_mut().submatrix_mut((bi * heads + h) * s, 0, s, dh).copy_from(src);
                }
            }
            out
        };
        self.tape.push(out, &[a_id], move |b, dout| {
            let g = b.grad(a_id);
            for bi in 0..batch {
                for h in 0..heads {
                    let src = dout.as_ref().submatrix((bi * heads + h) * s, 0, s, dh);
                    let mut dst = g.as_mut().submatrix_mut(bi * s, h * dh, s, dh);
                    dst += src;
                }
            }
        })
    }

    /// (B·h·S, D_h) → (B·S, h·D_h): heads side by side again.
    #[track_caller]
    pub fn combine_heads(self, batch: usize, heads: usize) -> Var<'t, T> {
        let a_id = self.id;
        let (rows, dh) = self.shape();
        assert!(
            rows % (batch * heads) == 0,
            "combine_heads: {rows} rows into {batch}×{heads} blocks"
        );
        let s = rows / (batch * heads);
        let out = {
            let x = self.value();
            let mut out = crate::pool::take(batch * s, heads * dh);
            for bi in 0..batch {
                for h in 0..heads {
                    let src = x.as_ref().submatrix((bi * heads + h) * s, 0, s, dh);
                    out.as_mut().submatrix_mut(bi * s, h * dh, s, dh).copy_from(src);
                }
            }
            out
        };
        self.tape.push(out, &[a_id], move |b, dout| {
            let g = b.grad(a_id);
            for bi in 0..batch {
                for h in 0..heads {
                    let src = dout.as_ref().submatrix(bi * s, h * dh, s, dh);
                    let mut dst = g.as_mut().submatrix_mut((bi * heads + h) * s, 0, s, dh);
                    dst += src;
                }
            }
        })
    }

    /// Rows `start..start + len`.
    #[track_caller]
    pub fn slice_rows(self, start: usize, len: usize) -> Var<'t, T> {
        let a_id = self.id;
        let (rows, cols) = self.shape();
        assert!(start + len <= rows, "slice_rows: {start}..{} of {rows} rows", start + len);
        let out = {
            let x = self.value();
            let mut out = crate::pool::take(len, cols);
            for j in 0..cols {
                out.col_as_slice_mut(j).copy_from_slice(&x.col_as_slice(j)[start..start + len]);
            }
            out
        };
        self.tape.push(out, &[a_id], move |b, dout| {
            let g = b.grad(a_id);
            for j in 0..cols {
                let dst = &mut g.col_as_slice_mut(j)[start..start + len];
                dst.iter_mut().zip(dout.col_as_slice(j)).for_each(|(d, &s)| *d += s);
            }
        })
    }

    /// Columns `start..start + len`.
    #[track_caller]
    pub fn slice_cols(self, start: usize, len: usize) -> Var<'t, T> {
        let a_id = self.id;
        let (rows, cols) = self.shape();
        assert!(start + len <= cols, "slice_cols: {start}..{} of {cols} columns", start + len);
        let out = {
            let x = self.value();
            let mut out = crate::pool::take(rows, len);
            for j in 0..len {
                out.col_as_slice_mut(j).copy_from_slice(x.col_as_slice(start + j));
            }
            out
        };
        self.tape.push(out, &[a_id], move |b, dout| {
            let mut dst = b.grad(a_id).as_mut().submatrix_mut(0, start, rows, len);
            dst += dout.as_ref();
        })
    }
}

/// Stack values on top of each other (same number of columns).
#[track_caller]
pub fn concat_rows<'t, T: Real>(parts: &[Var<'t, T>]) -> Var<'t, T> {
    assert!(!parts.is_empty(), "concat_rows: nothing to concatenate");
    let shapes: Vec<(usize, usize)> = parts.iter().map(|p| p.shape()).collect();
    let cols = shapes[0].1;
    assert!(shapes.iter().all(|s| s.1 == cols), "concat_rows: column counts differ: {shapes:?}");
    let rows: usize = shapes.iter().map(|s| s.0).sum();
    let mut out = crate::pool::take(rows, cols);
    let mut at = 0;
    for (p, &(r, _)) in parts.iter().zip(&shapes) {
        out.as_mut().submatrix_mut(at, 0, r, cols).copy_from(p.value().as_ref());
        at += r;
    }
    let ids: Vec<NodeId> = parts.iter().map(|p| p.id).collect();
    let tape = parts[0].tape;
    tape.push(out, &ids.clone(), move |b, dout| {
        let mut at = 0;
        for (&id, &(r, _)) in ids.iter().zip(&shapes) {
            if b.wants(id) {
                let g = b.grad(id);
                for j in 0..cols {
                    let (src, dst) = (&dout.col_as_slice(j)[at..at + r], g.col_as_slice_mut(j));
                    dst.iter_mut().zip(src).for_each(|(d, &s)| *d += s);
                }
            }
            at += r;
        }
    })
}

/// Put values side by side (same number of rows).
#[track_caller]
pub fn concat_cols<'t, T: Real>(parts: &[Var<'t, T>]) -> Var<'t, T> {
    assert!(!parts.is_empty(), "concat_cols: nothing to concatenate");
    let shapes: Vec<(usize, usize)> = parts.iter().map(|p| p.shape()).collect();
    let rows = shapes[0].0;
    assert!(shapes.iter().all(|s| s.0 == rows), "concat_cols: row counts differ: {shapes:?}");
    let cols: usize = shapes.iter().map(|s| s.1).sum();
    let mut out = crate::pool::take(rows, cols);
    let mut at = 0;
    for (p, &(_, c)) in parts.iter().zip(&shapes) {
        out.as_mut().submatrix_mut(0, at, rows, c).copy_from(p.value().as_ref());
        at += c;
    }
    let ids: Vec<NodeId> = parts.iter().map(|p| p.id).collect();
    let tape = parts[0].tape;
    tape.push(out, &ids.clone(), move |b, dout| {
        let mut at = 0;
        for (&id, &(_, c)) in ids.iter().zip(&shapes) {
            if b.wants(id) {
                let mut g = b.grad(id).as_mut();
                g += dout.as_ref().submatrix(0, at, rows, c);
            }
            at += c;
        }
    })
}
