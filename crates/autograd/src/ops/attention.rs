//! Multi-head scaled dot-product attention — Lecture 17 §3 and §5.
//!
//! Inputs are (B·S, D): B sequences of S positions, the `h` heads side by
//! side in the columns (`d_h = D/h` each). For every sequence `b` and head
//! `i`, with `s = 1/√d_h` (or 1 with the scale off):
//!
//! ```text
//! scores  = Q_bi · K_biᵀ · s                 (S_q, S_k)
//! probs   = softmax_rows(scores, keep_b)     (S_q, S_k), 1 = may look
//! context = probs · V_bi                     (S_q, d_h)
//! ```
//! This op is that, written with the generic ops, each of which carries its
//! own backward: split the heads apart into a stack of (S, d_h) blocks,
//! a batched product, a scale, a masked softmax, a batched product, and the
//! heads put side by side again. The fused kernel in `ops/fused/` computes
//! the same without the copies; the tests hold the two together.

use faer::Mat;

use crate::{NodeId, Real, Tape, Var};

/// How a (B·S, D) value divides into sequences and heads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Heads {
    /// Sequences in the batch, B.
    pub batch: usize,
    /// Heads, h.
    pub heads: usize,
}

/// What attention returns: the context (B·S_q, D) and the weights.
#[derive(Clone, Copy)]
pub struct Attended<'t, T: Real> {
    pub context: Var<'t, T>,
    pub weights: Weights,
}

/// The attention weights of every sequence and head, wherever the op that
/// made them keeps them: read them with [`Weights::all`] or [`Weights::head`].
#[derive(Clone, Copy, Debug)]
pub struct Weights {
    node: NodeId,
    shape: Heads,
    layout: Layout,
}

/// How a weights node is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Layout {
    /// (B·h·S_q, S_k): row block `b·h + i` is sequence `b`, head `i`.
    Rows,
    /// (S_q, B·h·S_k): column block `b·h + i` is sequence `b`, head `i`.
    Bands,
}

impl Weights {
    pub(crate) fn new(node: NodeId, shape: Heads, layout: Layout) -> Self {
        Weights { node, shape, layout }
    }

    /// The (S_q, S_k) weights of sequence `b`, head `i`: row = query, column = key.
    #[track_caller]
    pub fn head<T: Real>(&self, tape: &Tape<T>, b: usize, i: usize) -> Mat<T> {
        let Heads { batch, heads } = self.shape;
        assert!(b < batch && i < heads, "weights: no sequence {b}, head {i} in {batch}×{heads}");
        let w = tape.value(self.node);
        let n = b * heads + i;
        match self.layout {
            Layout::Rows => {
                let sq = w.nrows() / (batch * heads);
                w.as_ref().submatrix(n * sq, 0, sq, w.ncols()).to_owned()
            }
            Layout::Bands => {
                let sk = w.ncols() / (batch * heads);
                w.as_ref().submatrix(0, n * sk, w.nrows(), sk).to_owned()
            }
        }
    }

    /// Every head's weights stacked, (B·h·S_q, S_k), as [`Weights::head`] gives them.
    pub fn all<T: Real>(&self, tape: &Tape<T>) -> Mat<T> {
        let Heads { batch, heads } = self.shape;
        let blocks: Vec<Mat<T>> =
            (0..batch * heads).map(|n| self.head(tape, n / heads, n % heads)).collect();
        let (sq, sk) = (blocks[0].nrows(), blocks[0].ncols());
        Mat::from_fn(batch * heads * sq, sk, |r, c| blocks[r / sq][(r % sq, c)])
    }

    /// The shape of the matrix the op stored them in (the fused kernel's
    /// layout differs from [`Weights::all`]'s).
    pub fn stored_shape<T: Real>(&self, tape: &Tape<T>) -> (usize, usize) {
        let w = tape.value(self.node);
        (w.nrows(), w.ncols())
    }
}

/// `softmax(Q·Kᵀ·s, keep)·V` for every sequence and head.
///
/// `q` is (B·S_q, D), `k` and `v` are (B·S_k, D); `keep` (optional) is
/// (B·S_q, S_k), 1 = may look, shared by all heads of a sequence. A query
/// whose every key is dropped gets zero weights and a zero context.
// ANCHOR: attention_op
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
    let ((nq, d), nk) = (q.shape(), k.shape().0);
    assert!(
        k.shape().1 == d && v.shape() == k.shape() && d.is_multiple_of(heads),
        "attention: q {:?}, k {:?}, v {:?} do not fit {heads} heads",
        q.shape(),
        k.shape(),
        v.shape()
    );
    let (sq, sk, d_h) = (nq / batch, nk / batch, d / heads);
    let q_h = q.split_heads(batch, heads); // (B·h·S_q, d_h)
    let k_h = k.split_heads(batch, heads); // (B·h·S_k, d_h)
    let v_h = v.split_heads(batch, heads); // (B·h·S_k, d_h)
    let mut scores = q_h.bmm(k_h, batch * heads, true); // (B·h·S_q, S_k)
    if scaled {
        scores = scores.scale(1.0 / (d_h as f64).sqrt());
    }
    // one mask per sequence, repeated for each of its heads
    let keep_h = keep.map(|m| {
        assert_eq!((m.nrows(), m.ncols()), (nq, sk), "attention: keep-mask shape");
        Mat::from_fn(batch * heads * sq, sk, |r, j| m[((r / (heads * sq)) * sq + r % sq, j)])
    });
    let probs = scores.softmax_rows(keep_h.as_ref()); // (B·h·S_q, S_k)
    let context = probs.bmm(v_h, batch * heads, false).combine_heads(batch, heads); // (B·S_q, D)
    Attended { context, weights: Weights::new(probs.id(), shape, Layout::Rows) }
}
// ANCHOR_END: attention_op
