//! Multi-head scaled dot-product attention in one op — the fast path.
//!
//! Inputs are (B·S, D) with the `h` heads side by side in the columns, so
//! head `i` of sequence `b` is a free sub-matrix view; nothing is copied to
//! split or combine heads. For each (b, i):
//!
//! ```text
//! S  = Q_bi · K_biᵀ · s          s = 1/√d_h, or 1 with the scale off
//! P  = softmax_rows(S, keep_b)   saved: it is also what a reader inspects
//! C  = P · V_bi
//! ```
//! Backward, with `dC` the incoming gradient:
//! ```text
//! dP = dC · V_biᵀ      dV_bi += Pᵀ · dC
//! dS = P ⊙ (dP − rowsum(dP ⊙ P)) · s
//! dQ_bi += dS · K_bi   dK_bi += dSᵀ · Q_bi
//! ```
//! The slow, composed reference — split heads, batched products, softmax,
//! combine — is [`attention_reference`]; the tests hold one to the other.

use faer::{Accum, Mat};

use super::matmul::mm;
use super::softmax::{KeepMask, softmax_backward, softmax_in_place};
use crate::{Real, Var};

/// How a (B·S, D) value divides into sequences and heads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Heads {
    /// Sequences in the batch, B.
    pub batch: usize,
    /// Heads, h.
    pub heads: usize,
}

/// The output of [`attention`]: the context, and the node holding the
/// weights, shape (B·h·S_q, S_k), block `b·h + i` for sequence `b`, head `i`.
#[derive(Clone, Copy)]
pub struct Attended<'t, T: Real> {
    pub context: Var<'t, T>,
    pub weights: usize,
}

/// `softmax(Q·Kᵀ·s, keep)·V` for every sequence and head at once.
///
/// `q` is (B·S_q, D), `k` and `v` are (B·S_k, D); `keep` (optional) is
/// (B·S_q, S_k), 1 = may look, shared by all heads of a sequence.
#[track_caller]
pub fn attention<'t, T: Real>(
    q: Var<'t, T>,
    k: Var<'t, T>,
    v: Var<'t, T>,
    shape: Heads,
    keep: Option<&Mat<T>>,
    scaled: bool,
) -> Attended<'t, T> {
    let Heads { batch, heads } = shape;
    let ((nq, d), (nk, dk), (nv, dv)) = (q.shape(), k.shape(), v.shape());
    assert!(
        d == dk && d == dv && nk == nv && d % heads == 0 && nq % batch == 0 && nk % batch == 0,
        "attention: q {nq}×{d}, k {nk}×{dk}, v {nv}×{dv} do not fit {batch} sequences of {heads} heads"
    );
    let (sq, sk, dh) = (nq / batch, nk / batch, d / heads);
    if let Some(m) = keep {
        assert!(
            m.nrows() == nq && m.ncols() == sk,
            "attention: the keep-mask is {}×{}, expected {nq}×{sk}",
            m.nrows(),
            m.ncols()
        );
    }
    let s = if scaled { T::one() / T::of(dh as f64).sqrt() } else { T::one() };
    let block = move |b: usize, i: usize| (b * heads + i) * sq;

    let probs = {
        let (qv, kv) = (q.value(), k.value());
        let mut p = Mat::zeros(batch * heads * sq, sk); // (B·h·S_q, S_k)
        for b in 0..batch {
            for i in 0..heads {
                let qb = qv.as_ref().submatrix(b * sq, i * dh, sq, dh);
                let kb = kv.as_ref().submatrix(b * sk, i * dh, sk, dh);
                let dst = p.as_mut().submatrix_mut(block(b, i), 0, sq, sk);
                faer::linalg::matmul::matmul(
                    dst,
                    Accum::Replace,
                    qb,
                    kb.transpose(),
                    s,
                    faer::Par::Seq,
                );
            }
        }
        // probs row r belongs to sequence r / (h·S_q), query r % S_q
        let mask_row = move |r: usize| (r / (heads * sq)) * sq + r % sq;
        softmax_in_place(&mut p, keep.map(|mask| KeepMask { mask, row_of: &mask_row }));
        p
    };
    let context = {
        let (pv, vv) = (&probs, v.value());
        let mut c = Mat::zeros(nq, d); // (B·S_q, D)
        for b in 0..batch {
            for i in 0..heads {
                let pb = pv.as_ref().submatrix(block(b, i), 0, sq, sk);
                let vb = vv.as_ref().submatrix(b * sk, i * dh, sk, dh);
                mm(c.as_mut().submatrix_mut(b * sq, i * dh, sq, dh), Accum::Replace, pb, vb);
            }
        }
        c
    };
    let tape = q.tape();
    let p_id = tape.input(probs).id();
    let (q_id, k_id, v_id) = (q.id(), k.id(), v.id());
    let context = tape.push(context, &[q_id, k_id, v_id], move |bk, dout| {
        let (p, qv, kv, vv) = (bk.value(p_id), bk.value(q_id), bk.value(k_id), bk.value(v_id));
        // dP for every block, then the softmax backward over all rows at once
        let mut dp = Mat::zeros(p.nrows(), sk);
        for b in 0..batch {
            for i in 0..heads {
                let dc = dout.as_ref().submatrix(b * sq, i * dh, sq, dh);
                let vb = vv.as_ref().submatrix(b * sk, i * dh, sk, dh);
                mm(
                    dp.as_mut().submatrix_mut(block(b, i), 0, sq, sk),
                    Accum::Replace,
                    dc,
                    vb.transpose(),
                );
                if bk.wants(v_id) {
                    let pb = p.as_ref().submatrix(block(b, i), 0, sq, sk);
                    let g = bk.grad(v_id);
                    mm(
                        g.as_mut().submatrix_mut(b * sk, i * dh, sk, dh),
                        Accum::Add,
                        pb.transpose(),
                        dc,
                    );
                }
            }
        }
        let mut ds = Mat::zeros(p.nrows(), sk);
        softmax_backward(&mut ds, p, &dp);
        for b in 0..batch {
            for i in 0..heads {
                let dsb = ds.as_ref().submatrix(block(b, i), 0, sq, sk);
                if bk.wants(q_id) {
                    let kb = kv.as_ref().submatrix(b * sk, i * dh, sk, dh);
                    let g = bk.grad(q_id).as_mut().submatrix_mut(b * sq, i * dh, sq, dh);
                    faer::linalg::matmul::matmul(g, Accum::Add, dsb, kb, s, faer::Par::Seq);
                }
                if bk.wants(k_id) {
                    let qb = qv.as_ref().submatrix(b * sq, i * dh, sq, dh);
                    let g = bk.grad(k_id).as_mut().submatrix_mut(b * sk, i * dh, sk, dh);
                    faer::linalg::matmul::matmul(
                        g,
                        Accum::Add,
                        dsb.transpose(),
                        qb,
                        s,
                        faer::Par::Seq,
                    );
                }
            }
        }
    });
    Attended { context, weights: p_id }
}

/// The same attention composed from the generic ops (split heads, batched
/// products, a masked softmax, combine heads): slower, and the reference
/// [`attention`] is tested against.
pub fn attention_reference<'t, T: Real>(
    q: Var<'t, T>,
    k: Var<'t, T>,
    v: Var<'t, T>,
    shape: Heads,
    keep: Option<&Mat<T>>,
    scaled: bool,
) -> Var<'t, T> {
    let Heads { batch, heads } = shape;
    let (sq, d) = (q.shape().0 / batch, q.shape().1);
    let sk = k.shape().0 / batch;
    let dh = d / heads;
    let (qh, kh, vh) =
        (q.split_heads(batch, heads), k.split_heads(batch, heads), v.split_heads(batch, heads));
    let mut scores = qh.bmm(kh, batch * heads, true); // (B·h·S_q, S_k)
    if scaled {
        scores = scores.scale(1.0 / (dh as f64).sqrt());
    }
    let keep_all = keep.map(|m| {
        Mat::from_fn(batch * heads * sq, sk, |r, j| m[((r / (heads * sq)) * sq + r % sq, j)])
    });
    let probs = scores.softmax_rows(keep_all.as_ref());
    probs.bmm(vh, batch * heads, false).combine_heads(batch, heads)
}
