//! Cross-entropy on logits, with an ignored class and label smoothing.
//!
//! For a row with logits `x` and target `t`, with `p = softmax(x)` and a
//! target distribution `q`, the loss is `−Σ_j q_j ln p_j`; the op returns
//! its mean over the rows whose target is not ignored. Its gradient on the
//! logits is `(p − q) / rows`, computed here in one step.
//!
//! Label smoothing moves `ε` of the target's probability elsewhere, in one
//! of two conventions that are easy to confuse:
//!
//! | [`Smoothing`] | `q_t` | `q_j`, `j ≠ t` | used by |
//! | --- | --- | --- | --- |
//! | `AllClasses(ε)` | `1 − ε + ε/V` | `ε/V` | PyTorch's `label_smoothing` |
//! | `OtherClasses(ε)` | `1 − ε` | `ε/(V − 1)` | the slides (the paper states only ε) |

use faer::Mat;

use super::softmax::log_sum_exp_rows;
use crate::{Real, Var};

/// How the target distribution is smoothed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Smoothing {
    /// One-hot targets.
    None,
    /// `ε` spread over all `V` classes, the target included (PyTorch).
    AllClasses(f64),
    /// `ε` spread over the other `V − 1` classes (the slides).
    OtherClasses(f64),
}

impl Smoothing {
    /// `(q_t, q_other)` for `v` classes.
    pub fn targets(self, v: usize) -> (f64, f64) {
        match self {
            Smoothing::None => (1.0, 0.0),
            Smoothing::AllClasses(e) => (1.0 - e + e / v as f64, e / v as f64),
            Smoothing::OtherClasses(e) => (1.0 - e, e / (v - 1) as f64),
        }
    }
}

impl<'t, T: Real> Var<'t, T> {
    /// Mean cross-entropy of these logits (one row per position) against
    /// `targets`; rows whose target is `ignore` do not count.
    #[track_caller]
    pub fn cross_entropy(
        self,
        targets: &[usize],
        ignore: Option<usize>,
        smoothing: Smoothing,
    ) -> Var<'t, T> {
        let a_id = self.id;
        let (rows, v) = self.shape();
        assert_eq!(
            targets.len(),
            rows,
            "cross_entropy: {rows} rows of logits, {} targets",
            targets.len()
        );
        let counted: Vec<bool> = targets.iter().map(|&t| Some(t) != ignore).collect();
        for (&t, &c) in targets.iter().zip(&counted) {
            assert!(!c || t < v, "cross_entropy: target {t} with only {v} classes");
        }
        let n = counted.iter().filter(|&&c| c).count();
        let (q_t, q_o) = smoothing.targets(v);
        let (q_t, q_o) = (T::of(q_t), T::of(q_o));
        let targets = targets.to_vec();
        let x = self.value();
        let lse = log_sum_exp_rows(&x);
        // What backward needs: p = softmax(x) = exp(x − lse), row by row.
        let mut p = crate::pool::take(rows, v);
        for j in 0..v {
            let col = p.col_as_slice_mut(j);
            for ((c, &e), &l) in col.iter_mut().zip(x.col_as_slice(j)).zip(&lse) {
                *c = e - l;
            }
            T::exp_slice(col);
        }
        // −Σ_j q_j (x_j − lse) = lse − q_o Σ_j x_j − (q_t − q_o) x_t, since Σ_j q_j = 1
        let mut row_sum = vec![T::zero(); rows];
        for j in 0..v {
            for (s, &e) in row_sum.iter_mut().zip(x.col_as_slice(j)) {
                *s += e;
            }
        }
        let mut total = T::zero();
        for i in (0..rows).filter(|&i| counted[i]) {
            total += lse[i] - q_o * row_sum[i] - (q_t - q_o) * x[(i, targets[i])];
        }
        drop(x);
        let loss = if n > 0 { total / T::of(n as f64) } else { T::zero() };
        // saved for backward: p, the softmax of every row
        self.tape.push_saving(Mat::from_fn(1, 1, |_, _| loss), &[a_id], p, move |b, dout, p| {
            if n == 0 {
                return;
            }
            let scale = dout[(0, 0)] / T::of(n as f64);
            let g = b.grad(a_id);
            for j in 0..v {
                let (pc, gc) = (p.col_as_slice(j), g.col_as_slice_mut(j));
                for i in (0..rows).filter(|&i| counted[i]) {
                    let q = if targets[i] == j { q_t } else { q_o };
                    gc[i] += scale * (pc[i] - q);
                }
            }
        })
    }
}
