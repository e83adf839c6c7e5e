//! One GRU step — Lecture 17 §9's baseline (PyTorch's gate order r, z, n).
//!
//! ```text
//! gh     = h·W_h + b_h                       (B, 3H)  the recurrent projection
//! gi     = x·W_i + b_i                       (B, 3H)  the input projection, computed
//!                                                     for every step at once
//! r_gate = σ(gi_r + gh_r)                    reset: how much of gh_n to let in
//! z_gate = σ(gi_z + gh_z)                    update: how much of h to keep
//! n_gate = tanh(gi_n + r_gate ⊙ gh_n)        the candidate state
//! h'     = (1 − z_gate) ⊙ n_gate + z_gate ⊙ h
//! ```
//! Written with the generic ops, each carrying its own backward, so the
//! gradient needs no code of its own. The fused kernel in `ops/fused/`
//! computes the same in one pass; the tests hold the two together.

use crate::{Real, Var};

impl<'t, T: Real> Var<'t, T> {
    // ANCHOR: gru_step
    /// One GRU step from state `self` (B, H), with this step's input
    /// projection `gi` (B, 3H) and the recurrent weights `w_h` (H, 3H),
    /// `b_h` (1, 3H). Returns the new state (B, H).
    #[track_caller]
    pub fn gru_step(self, gi: Var<'t, T>, w_h: Var<'t, T>, b_h: Var<'t, T>) -> Var<'t, T> {
        let (batch, hid) = self.shape();
        assert_eq!(gi.shape(), (batch, 3 * hid), "gru_step: h {batch}×{hid}, gi {:?}", gi.shape());
        let gh = self.linear(w_h, b_h); // (B, 3H)
        let gate = |v: Var<'t, T>, k: usize| v.slice_cols(k * hid, hid); // (B, H)
        let r_gate = gate(gi, 0).add(gate(gh, 0)).sigmoid();
        let z_gate = gate(gi, 1).add(gate(gh, 1)).sigmoid();
        let n_gate = gate(gi, 2).add(r_gate.mul(gate(gh, 2))).tanh();
        // h' = (1 − z) ⊙ n + z ⊙ h = n + z ⊙ (h − n)
        n_gate.add(z_gate.mul(self.sub(n_gate)))
    }
    // ANCHOR_END: gru_step
}
