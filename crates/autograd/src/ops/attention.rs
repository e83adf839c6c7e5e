//! Multi-head scaled dot-product attention in one op — the fast path.
//!
//! Inputs are (B·S, D) with the `h` heads side by side in the columns. For
//! each sequence `b` and head `i`:
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
//! Each (b, i) block is small (S × d_h), and a small block cut out of a
//! tall matrix has its columns far apart in memory, which made these
//! products three times slower than on compact blocks. So the op first
//! lays Q, K, V out as (S, B·D) — block (b, i) is columns `(b·h + i)·d_h ..`,
//! each column contiguous — and keeps P the same way: (S_q, B·h·S_k).
//! The slow, composed reference — split heads, batched products, softmax,
//! combine — is [`attention_reference`]; the tests hold one to the other.

use faer::{Accum, Mat, MatRef};

use super::matmul::{mm, mm_scaled};
use super::softmax::{softmax_backward, softmax_in_place};
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
/// weights, shape (S_q, B·h·S_k): sequence `b`, head `i` is the band of
/// columns `(b·h + i)·S_k .. (b·h + i + 1)·S_k`. See [`head_weights`].
#[derive(Clone, Copy)]
pub struct Attended<'t, T: Real> {
    pub context: Var<'t, T>,
    pub weights: usize,
}

/// The (S_q, S_k) weights of sequence `b`, head `i`, from an [`Attended`]'s
/// weights node.
pub fn head_weights<T: Real>(weights: &Mat<T>, shape: Heads, b: usize, i: usize) -> Mat<T> {
    let sk = weights.ncols() / (shape.batch * shape.heads);
    let c0 = (b * shape.heads + i) * sk;
    weights.as_ref().submatrix(0, c0, weights.nrows(), sk).to_owned()
}

/// Columns `c0 .. c0 + cols` (first `rows` rows) of `m`: one block.
fn band<T: Real>(m: &Mat<T>, c0: usize, rows: usize, cols: usize) -> MatRef<'_, T> {
    m.as_ref().submatrix(0, c0, rows, cols)
}

/// Columns `c0 .. c0 + d` of a (B·S, ·) matrix → (S, B·d): sequence `b`
/// becomes columns `b·d ..`.
fn compact<T: Real>(x: &Mat<T>, c0: usize, d: usize, batch: usize) -> Mat<T> {
    let s = x.nrows() / batch;
    let mut out = crate::pool::take(s, batch * d);
    for b in 0..batch {
        for j in 0..d {
            let src = &x.col_as_slice(c0 + j)[b * s..(b + 1) * s];
            out.col_as_slice_mut(b * d + j).copy_from_slice(src);
        }
    }
    out
}

/// The (B·S, ·) layout of compact (S, B·d) gradients, into columns
/// `c0 .. c0 + d` of the gradient of the node each came from. `parts` are
/// (node, c0, compact gradient); several may share a node (a fused Q/K/V
/// projection, or K and V the same value). A column already holding a sum is
/// added to, a fresh one overwritten; a fresh column no part covers is zeroed.
fn uncompact_into<T: Real>(
    b: &mut crate::Back<'_, T>,
    parts: &[(usize, usize, &Mat<T>)],
    batch: usize,
) {
    for (n, &(id, _, _)) in parts.iter().enumerate() {
        if parts[..n].iter().any(|p| p.0 == id) || !b.wants(id) {
            continue; // done with an earlier part, or not needed
        }
        let (g, how) = b.grad_slot(id);
        let mut written = vec![how == Accum::Add; g.ncols()];
        for &(_, c0, xc) in parts[n..].iter().filter(|p| p.0 == id) {
            let (s, d) = (xc.nrows(), xc.ncols() / batch);
            for j in 0..d {
                let dst = g.col_as_slice_mut(c0 + j);
                for bi in 0..batch {
                    let (src, out) = (xc.col_as_slice(bi * d + j), &mut dst[bi * s..(bi + 1) * s]);
                    if written[c0 + j] {
                        out.iter_mut().zip(src).for_each(|(o, &v)| *o += v);
                    } else {
                        out.copy_from_slice(src);
                    }
                }
                written[c0 + j] = true;
            }
        }
        for j in 0..g.ncols() {
            if !written[j] {
                g.col_as_slice_mut(j).fill(T::zero());
            }
        }
    }
}

/// `dst = ` the (B·S, D) layout of a compact (S, B·D) matrix.
fn uncompact<T: Real>(dst: &mut Mat<T>, xc: &Mat<T>, batch: usize) {
    let (s, d) = (xc.nrows(), xc.ncols() / batch);
    for b in 0..batch {
        for j in 0..d {
            let src = xc.col_as_slice(b * d + j);
            dst.col_as_slice_mut(j)[b * s..(b + 1) * s].copy_from_slice(src);
        }
    }
}

/// `softmax(Q·Kᵀ·s, keep)·V` for every sequence and head at once.
///
/// `q` is (B·S_q, D), `k` and `v` are (B·S_k, D); `keep` (optional) is
/// (B·S_q, S_k), 1 = may look, shared by all heads of a sequence. A query
/// whose every key is dropped gets zero weights and a zero context.
#[track_caller]
pub fn attention<'t, T: Real>(
    q: Var<'t, T>,
    k: Var<'t, T>,
    v: Var<'t, T>,
    shape: Heads,
    keep: Option<&Mat<T>>,
    scaled: bool,
) -> Attended<'t, T> {
    let d = q.shape().1;
    attention_bands((q, 0), (k, 0), (v, 0), d, shape, keep, scaled)
}

/// [`attention`] with Q, K and V read from column bands `c0 .. c0 + d` of
/// their values: `q = (value, c0)`. A self-attention layer projects Q, K, V
/// in one product, (B·S, 3D), and passes its three bands; the gradients go
/// back into the same bands.
#[track_caller]
pub fn attention_bands<'t, T: Real>(
    (q, q0): (Var<'t, T>, usize),
    (k, k0): (Var<'t, T>, usize),
    (v, v0): (Var<'t, T>, usize),
    d: usize,
    shape: Heads,
    keep: Option<&Mat<T>>,
    scaled: bool,
) -> Attended<'t, T> {
    let Heads { batch, heads } = shape;
    let ((nq, cq), (nk, ck), (nv, cv)) = (q.shape(), k.shape(), v.shape());
    assert!(
        q0 + d <= cq
            && k0 + d <= ck
            && v0 + d <= cv
            && nk == nv
            && d.is_multiple_of(heads)
            && nq.is_multiple_of(batch)
            && nk.is_multiple_of(batch),
        "attention: q {nq}×{cq}, k {nk}×{ck}, v {nv}×{cv} (bands at {q0}, {k0}, {v0} of width \
         {d}) do not fit {batch} sequences of {heads} heads"
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
    let blocks = batch * heads;
    // block n = b·h + i: its columns in the compact Q/K/V and in P
    let qkv_cols = move |n: usize| n * dh;
    let p_cols = move |n: usize| n * sk..(n + 1) * sk;

    let (qc, kc, vc) = (
        compact(&q.value(), q0, d, batch),
        compact(&k.value(), k0, d, batch),
        compact(&v.value(), v0, d, batch),
    );
    let mut p = crate::pool::take(sq, blocks * sk); // (S_q, B·h·S_k)
    let mut cc = crate::pool::take(sq, batch * d); // (S_q, B·D)
    // One kind of product at a time over all blocks: a tiny kernel called
    // back to back runs faster than the same kernels interleaved.
    for n in 0..blocks {
        let dst = p.as_mut().submatrix_mut(0, p_cols(n).start, sq, sk);
        mm_scaled(
            dst,
            Accum::Replace,
            band(&qc, qkv_cols(n), sq, dh),
            band(&kc, qkv_cols(n), sk, dh).transpose(),
            s,
        );
    }
    for n in 0..blocks {
        softmax_in_place(&mut p, p_cols(n), keep.map(|m| (m, (n / heads) * sq)));
    }
    for n in 0..blocks {
        let pb = p.as_ref().submatrix(0, p_cols(n).start, sq, sk);
        mm(
            cc.as_mut().submatrix_mut(0, qkv_cols(n), sq, dh),
            Accum::Replace,
            pb,
            band(&vc, qkv_cols(n), sk, dh),
        );
    }
    let mut context = crate::pool::take(nq, d);
    uncompact(&mut context, &cc, batch);
    crate::pool::give(cc);

    let tape = q.tape();
    let p_id = tape.input(p).id();
    // the compact Q, K, V are kept for backward as constant nodes, so that
    // they go back to the pool with the tape
    let [qc_id, kc_id, vc_id] = [qc, kc, vc].map(|m| tape.input(m).id());
    let (q_id, k_id, v_id) = (q.id(), k.id(), v.id());
    let context = tape.push(context, &[q_id, k_id, v_id], move |bk, dout| {
        let p = bk.value(p_id);
        let (qc, kc, vc) = (bk.value(qc_id), bk.value(kc_id), bk.value(vc_id));
        let dc = compact(dout, 0, d, batch); // (S_q, B·D)
        let mut dq = crate::pool::take(sq, batch * d);
        let mut dkc = crate::pool::take(sk, batch * d);
        let mut dvc = crate::pool::take(sk, batch * d);
        let mut dp = crate::pool::take(sq, blocks * sk); // laid out like P
        let mut ds = crate::pool::take(sq, blocks * sk);
        for n in 0..blocks {
            // dP = dC·Vᵀ
            let dst = dp.as_mut().submatrix_mut(0, p_cols(n).start, sq, sk);
            mm(
                dst,
                Accum::Replace,
                band(&dc, qkv_cols(n), sq, dh),
                band(vc, qkv_cols(n), sk, dh).transpose(),
            );
        }
        for n in 0..blocks {
            // dV = Pᵀ·dC
            let dst = dvc.as_mut().submatrix_mut(0, qkv_cols(n), sk, dh);
            mm(
                dst,
                Accum::Replace,
                band(p, p_cols(n).start, sq, sk).transpose(),
                band(&dc, qkv_cols(n), sq, dh),
            );
        }
        for n in 0..blocks {
            // dS = P ⊙ (dP − rowsum(dP ⊙ P))
            softmax_backward((&mut ds, Accum::Replace), p, &dp, p_cols(n));
        }
        for n in 0..blocks {
            // dQ = dS·K·s
            let dst = dq.as_mut().submatrix_mut(0, qkv_cols(n), sq, dh);
            mm_scaled(
                dst,
                Accum::Replace,
                band(&ds, p_cols(n).start, sq, sk),
                band(kc, qkv_cols(n), sk, dh),
                s,
            );
        }
        for n in 0..blocks {
            // dK = dSᵀ·Q·s
            let dst = dkc.as_mut().submatrix_mut(0, qkv_cols(n), sk, dh);
            mm_scaled(
                dst,
                Accum::Replace,
                band(&ds, p_cols(n).start, sq, sk).transpose(),
                band(qc, qkv_cols(n), sq, dh),
                s,
            );
        }
        uncompact_into(bk, &[(q_id, q0, &dq), (k_id, k0, &dkc), (v_id, v0, &dvc)], batch);
        for m in [dc, dq, dkc, dvc, dp, ds] {
            crate::pool::give(m);
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
