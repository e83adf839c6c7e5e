//! Multi-head scaled dot-product attention as one op — the fused kernel.
//!
//! The plain op (`ops/attention.rs`) splits the heads into copies, runs one
//! batched product for the scores, a softmax, another batched product, and
//! combines the heads again: five ops, four copies of Q, K, V or the
//! context. This kernel does the same maths without a copy: for each
//! sequence `b` and head `i`, inputs are (B·S, D) with the `h` heads side
//! by side in the columns, and
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
//! Each (b, i) block is read and written in place, as a view into the
//! (B·S, D) matrices: rows `b·S ..`, columns `i·d_h ..`; Q, K and V may be
//! column bands of one projection (self-attention projects all three in
//! one product). Only P, which the op owns, is laid out compactly, as
//! (S_q, B·h·S_k). Gradient bands are overwritten where fresh and added to
//! where written already (`Bands`), which saves zeroing the (B·S, 3D)
//! gradient of a fused projection. The tests hold it to the plain op.

use faer::{Accum, Mat, MatMut, MatRef};

use crate::ops::attention::{Attended, Heads, Layout, Weights};
use crate::ops::matmul::{mm, mm_scaled};
use crate::ops::softmax::{softmax_backward, softmax_in_place};
use crate::{NodeId, Real, Var};

/// Block `(b, i)` of a (B·S, ·) matrix whose heads start at column `c0`:
/// rows `b·S .. (b+1)·S`, columns `c0 + i·d_h ..`, as a view.
fn block<T: Real>(
    m: &Mat<T>,
    c0: usize,
    s: usize,
    dh: usize,
    (b, i): (usize, usize),
) -> MatRef<'_, T> {
    m.as_ref().submatrix(b * s, c0 + i * dh, s, dh)
}

/// The same block, to write.
fn block_mut<T: Real>(
    m: &mut Mat<T>,
    c0: usize,
    s: usize,
    dh: usize,
    (b, i): (usize, usize),
) -> MatMut<'_, T> {
    m.as_mut().submatrix_mut(b * s, c0 + i * dh, s, dh)
}

/// Writing one input's gradient band by band: Q, K and V may be bands of
/// one node (a fused projection), or one node twice (K = V), so each band
/// is overwritten the first time the node's gradient is fresh and added to
/// after that; at the end, a fresh gradient's columns no band covered are
/// zeroed.
struct Bands {
    /// Per node: whether its gradient was fresh, and which columns hold a sum.
    nodes: Vec<(NodeId, bool, Vec<bool>)>,
}

impl Bands {
    /// The gradient of `id` and how to write its columns `c0 .. c0 + d`.
    fn slot<'a, T: Real>(
        &mut self,
        b: &'a mut crate::Back<'_, T>,
        id: NodeId,
        c0: usize,
        d: usize,
    ) -> (&'a mut Mat<T>, Accum) {
        let (g, how) = b.grad_slot(id);
        let k = match self.nodes.iter().position(|n| n.0 == id) {
            Some(k) => k,
            None => {
                self.nodes.push((id, how == Accum::Replace, vec![how == Accum::Add; g.ncols()]));
                self.nodes.len() - 1
            }
        };
        let band = &mut self.nodes[k].2[c0..c0 + d];
        let how = if band.iter().all(|&w| !w) {
            Accum::Replace
        } else {
            // partly written (bands that overlap): zero the rest, then add
            for (j, _) in band.iter().enumerate().filter(|(_, w)| !**w) {
                g.col_as_slice_mut(c0 + j).fill(T::zero());
            }
            Accum::Add
        };
        band.fill(true);
        (g, how)
    }

    /// Zero what no band wrote.
    fn finish<T: Real>(self, b: &mut crate::Back<'_, T>) {
        for (id, fresh, written) in self.nodes {
            if fresh {
                let g = b.grad(id);
                for (j, _) in written.iter().enumerate().filter(|(_, w)| !**w) {
                    g.col_as_slice_mut(j).fill(T::zero());
                }
            }
        }
    }
}

/// `softmax(Q·Kᵀ·s, keep)·V` for every sequence and head at once — the
/// plain [`crate::ops::attention::attention`], fused.
///
/// `q` is (B·S_q, D), `k` and `v` are (B·S_k, D); `keep` (optional) is
/// (B·S_q, S_k), 1 = may look, shared by all heads of a sequence. A query
/// whose every key is dropped gets zero weights and a zero context.
#[track_caller]
pub fn fused_attention<'t, T: Real>(
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

/// [`fused_attention`] with Q, K and V read from column bands `c0 .. c0 + d` of
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
    // block n = b·h + i: sequence b, head i; its columns of P
    let bi = move |n: usize| (n / heads, n % heads);
    let p_cols = move |n: usize| n * sk..(n + 1) * sk;

    let mut p = crate::pool::take(sq, blocks * sk); // (S_q, B·h·S_k)
    let mut context = crate::pool::take(nq, d);
    {
        let (qv, kv, vv) = (q.value(), k.value(), v.value());
        // One block at a time, start to end: its scores, weights and
        // context are computed while the block is still in the L1 cache.
        for n in 0..blocks {
            let dst = p.as_mut().submatrix_mut(0, p_cols(n).start, sq, sk);
            let (qb, kb) = (block(&qv, q0, sq, dh, bi(n)), block(&kv, k0, sk, dh, bi(n)));
            mm_scaled(dst, Accum::Replace, qb, kb.transpose(), s);
            softmax_in_place(&mut p, p_cols(n), keep.map(|m| (m, bi(n).0 * sq)));
            let pb = p.as_ref().submatrix(0, p_cols(n).start, sq, sk);
            let vb = block(&vv, v0, sk, dh, bi(n));
            mm(block_mut(&mut context, 0, sq, dh, bi(n)), Accum::Replace, pb, vb);
        }
    }

    let tape = q.tape();
    let p_id = tape.input(p).id();
    let (q_id, k_id, v_id) = (q.id(), k.id(), v.id());
    let context = tape.push(context, &[q_id, k_id, v_id], move |bk, dout| {
        let p = bk.value(p_id);
        let (qv, kv, vv) = (bk.value(q_id), bk.value(k_id), bk.value(v_id));
        // How each gradient band is written, decided for all three before
        // any is written. Bands of one node that coincide or are disjoint
        // then see, per entry, the writes in the same order (Q's, K's, V's)
        // as if each band were written whole in turn. Bands that overlap in
        // part would not (block (b, 0) of K can land on Q's head 1, written
        // later), so then every gradient starts from zero and is added to.
        let inputs = [(q_id, q0), (k_id, k0), (v_id, v0)];
        let partial = inputs.iter().enumerate().any(|(x, &(a, a0))| {
            inputs[x + 1..].iter().any(|&(b, b0)| a == b && a0 != b0 && a0.abs_diff(b0) < d)
        });
        let mut bands = Bands { nodes: Vec::new() };
        let mut how = |id: NodeId, c0: usize| {
            bk.wants(id).then(|| {
                if partial {
                    bk.grad(id); // zeros, if nothing was written yet
                    Accum::Add
                } else {
                    bands.slot(bk, id, c0, d).1
                }
            })
        };
        let (q_how, k_how, v_how) = (how(q_id, q0), how(k_id, k0), how(v_id, v0));
        // One block's dP and dS at a time: (S_q, S_k) each, in L1.
        let mut dp = crate::pool::take(sq, sk);
        let mut ds = crate::pool::take(sq, sk);
        for n in 0..blocks {
            let pb = p.as_ref().submatrix(0, p_cols(n).start, sq, sk);
            let db = block(dout, 0, sq, dh, bi(n));
            // dP = dC·Vᵀ
            mm(dp.as_mut(), Accum::Replace, db, block(vv, v0, sk, dh, bi(n)).transpose());
            // dS = P ⊙ (dP − rowsum(dP ⊙ P))
            softmax_backward((&mut ds, Accum::Replace), (p, p_cols(n).start), &dp, 0..sk);
            if let Some(how) = q_how {
                // dQ = dS·K·s
                let kb = block(kv, k0, sk, dh, bi(n));
                mm_scaled(block_mut(bk.grad(q_id), q0, sq, dh, bi(n)), how, ds.as_ref(), kb, s);
            }
            if let Some(how) = k_how {
                // dK = dSᵀ·Q·s
                let (g, qb) = (bk.grad(k_id), block(qv, q0, sq, dh, bi(n)));
                mm_scaled(block_mut(g, k0, sk, dh, bi(n)), how, ds.transpose(), qb, s);
            }
            if let Some(how) = v_how {
                // dV = Pᵀ·dC
                mm(block_mut(bk.grad(v_id), v0, sk, dh, bi(n)), how, pb.transpose(), db);
            }
        }
        bands.finish(bk);
        crate::pool::give(dp);
        crate::pool::give(ds);
    });
    Attended { context, weights: Weights::new(p_id, shape, Layout::Bands) }
}
