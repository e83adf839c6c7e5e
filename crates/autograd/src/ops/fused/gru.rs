//! One GRU step as one op — the fused kernel (PyTorch's gate order r, z, n).
//!
//! The plain step (`ops/gru.rs`) is eleven small ops, each with its own
//! output and gradient matrices. This kernel computes the gates in one pass
//! over the columns, reads this step's rows of the input projection in
//! place (the projections of all steps are one product), and writes its
//! gradient straight into those rows. Same formulas:
//!
//! ```text
//! r  = σ(gi_r + gh_r)            gh = h·W_h + b_h   (B, 3H)
//! z  = σ(gi_z + gh_z)            gi = x·W_i + b_i   (B, 3H)
//! n  = tanh(gi_n + r ⊙ gh_n)
//! h' = (1 − z) ⊙ n + z ⊙ h
//! ```
//! Saved for backward (owned by the tape): r, z, n and gh (for gh_n). Backward, from dh':
//! ```text
//! dn = dh' ⊙ (1 − z)             dz = dh' ⊙ (h − n)       dh = dh' ⊙ z
//! dâ_n = dn ⊙ (1 − n²)           dâ_z = dz ⊙ z(1 − z)     dâ_r = (dâ_n ⊙ gh_n) ⊙ r(1 − r)
//! dgi = [dâ_r, dâ_z, dâ_n]       dgh = [dâ_r, dâ_z, dâ_n ⊙ r]
//! dh += dgh·W_hᵀ                 dW_h += hᵀ·dgh            db_h += Σ_rows dgh
//! ```
//! A fresh gradient is overwritten rather than zeroed and added to. The
//! tests hold it to the plain step.

use faer::Accum;

use crate::ops::elementwise::sigmoid;
use crate::ops::matmul::mm;
use crate::{Real, Var};

impl<'t, T: Real> Var<'t, T> {
    /// [`Var::gru_step`], fused: from state `self` (B, H), with this
    /// step's input projection `gi` (B, 3H) and the recurrent weights `w_h`
    /// (H, 3H), `b_h` (1, 3H). Returns the new state (B, H).
    #[track_caller]
    pub fn gru_step_fused(self, gi: Var<'t, T>, w_h: Var<'t, T>, b_h: Var<'t, T>) -> Var<'t, T> {
        let batch = self.shape().0;
        assert_eq!(gi.shape().0, batch, "gru_step: h has {batch} rows, gi {:?}", gi.shape());
        self.gru_step_at(gi, 0, w_h, b_h)
    }

    /// [`Var::gru_step_fused`] reading this step's input projection from rows
    /// `row0 .. row0 + B` of `gi_all` (the projections of every step, as
    /// [`crate::nn::Gru`] computes them in one product) — no slice is copied
    /// out, and the backward writes straight into that band of its gradient.
    #[track_caller]
    pub fn gru_step_at(
        self,
        gi_all: Var<'t, T>,
        row0: usize,
        w_h: Var<'t, T>,
        b_h: Var<'t, T>,
    ) -> Var<'t, T> {
        let (h_id, gi_id, w_id, b_id) = (self.id, gi_all.id, w_h.id, b_h.id);
        let (batch, hid) = self.shape();
        let rows = row0..row0 + batch;
        assert!(
            gi_all.shape().0 >= rows.end
                && gi_all.shape().1 == 3 * hid
                && w_h.shape() == (hid, 3 * hid)
                && b_h.shape() == (1, 3 * hid),
            "gru_step: h {batch}×{hid}, gi rows {rows:?} of {:?}, W_h {:?}, b_h {:?}",
            gi_all.shape(),
            w_h.shape(),
            b_h.shape()
        );
        // Saved for backward: r, z, n (B, H) each, and gh (B, 3H) for gh_n.
        let (mut r, mut z, mut n) = (
            crate::pool::take(batch, hid),
            crate::pool::take(batch, hid),
            crate::pool::take(batch, hid),
        );
        let mut gh = crate::pool::take(batch, 3 * hid);
        let out = {
            let (h, gi, w, b) = (self.value(), gi_all.value(), w_h.value(), b_h.value());
            mm(gh.as_mut(), Accum::Replace, h.as_ref(), w.as_ref());
            let mut out = crate::pool::take(batch, hid);
            let gi_col = |k: usize| &gi.col_as_slice(k)[rows.clone()];
            for j in 0..hid {
                // gh = h·W_h + b_h, the bias added to each column just before use
                for k in [j, hid + j, 2 * hid + j] {
                    let bk = b[(0, k)];
                    gh.col_as_slice_mut(k).iter_mut().for_each(|v| *v += bk);
                }
                let (gir, giz, gin) = (gi_col(j), gi_col(hid + j), gi_col(2 * hid + j));
                let (ghr, ghz, ghn) =
                    (gh.col_as_slice(j), gh.col_as_slice(hid + j), gh.col_as_slice(2 * hid + j));
                let (rc, zc, nc) =
                    (r.col_as_slice_mut(j), z.col_as_slice_mut(j), n.col_as_slice_mut(j));
                let (hc, oc) = (h.col_as_slice(j), out.col_as_slice_mut(j));
                // one pass per gate over equal-length slices: no bounds
                // checks left, so each loop vectorises
                for ((r, &a), &g) in rc.iter_mut().zip(gir).zip(ghr) {
                    *r = sigmoid(a + g);
                }
                for ((z, &a), &g) in zc.iter_mut().zip(giz).zip(ghz) {
                    *z = sigmoid(a + g);
                }
                for (((n, &a), &g), &r) in nc.iter_mut().zip(gin).zip(ghn).zip(rc.iter()) {
                    *n = (a + r * g).tanh();
                }
                for (((o, &n), &z), &h) in oc.iter_mut().zip(nc.iter()).zip(zc.iter()).zip(hc) {
                    *o = (T::one() - z) * n + z * h;
                }
            }
            out
        };
        let whole = row0 == 0 && gi_all.shape().0 == batch;
        let saved = [r, z, n, gh];
        self.tape.push_saving(out, &[h_id, gi_id, w_id, b_id], saved, move |b, dout, saved| {
            let (h, w) = (b.value(h_id), b.value(w_id));
            let [r, z, n, gh] = saved;
            let one = T::one();
            let mut dgh = crate::pool::take(batch, 3 * hid); // [dâ_r, dâ_z, dâ_n ⊙ r]
            let mut da_n = vec![T::zero(); batch];
            // dgi = [dâ_r, dâ_z, dâ_n] goes straight into this step's rows of
            // gi's gradient (only `Replace` when gi is this step's alone)
            let mut dgi = b
                .wants(gi_id)
                .then(|| if whole { b.grad_slot(gi_id) } else { (b.grad(gi_id), Accum::Add) });
            for j in 0..hid {
                let (rc, zc, nc) = (r.col_as_slice(j), z.col_as_slice(j), n.col_as_slice(j));
                let (ghn, hc, dc) =
                    (gh.col_as_slice(2 * hid + j), h.col_as_slice(j), dout.col_as_slice(j));
                for i in 0..batch {
                    da_n[i] = dc[i] * (one - zc[i]) * (one - nc[i] * nc[i]);
                }
                let da_z = dgh.col_as_slice_mut(hid + j);
                for i in 0..batch {
                    da_z[i] = dc[i] * (hc[i] - nc[i]) * zc[i] * (one - zc[i]);
                }
                let da_r = dgh.col_as_slice_mut(j);
                for i in 0..batch {
                    da_r[i] = da_n[i] * ghn[i] * rc[i] * (one - rc[i]);
                }
                let dn = dgh.col_as_slice_mut(2 * hid + j);
                for i in 0..batch {
                    dn[i] = da_n[i] * rc[i];
                }
                if let Some((g, how)) = dgi.as_mut() {
                    for (k, src) in [
                        (j, dgh.col_as_slice(j)),
                        (hid + j, dgh.col_as_slice(hid + j)),
                        (2 * hid + j, &da_n[..]),
                    ] {
                        let dst = &mut g.col_as_slice_mut(k)[rows.clone()];
                        match how {
                            Accum::Replace => dst.copy_from_slice(src),
                            Accum::Add => dst.iter_mut().zip(src).for_each(|(d, &s)| *d += s),
                        }
                    }
                }
            }
            if b.wants(h_id) {
                // the direct path h' = … + z ⊙ h, then the path through gh
                crate::ops::accumulate(b.grad(h_id), dout, z, |d, zv| d * zv);
                mm(b.grad(h_id).as_mut(), Accum::Add, dgh.as_ref(), w.transpose());
            }
            if b.wants(w_id) {
                let (g, acc) = b.grad_slot(w_id);
                mm(g.as_mut(), acc, h.transpose(), dgh.as_ref());
            }
            if b.wants(b_id) {
                let g = b.grad(b_id);
                for j in 0..3 * hid {
                    g[(0, j)] += crate::ops::sum(dgh.col_as_slice(j));
                }
            }
            crate::pool::give(dgh);
        })
    }
}
