//! What an op's backward closure is handed: the forward values, and the
//! gradients to add to. `grad` gives a gradient that starts at zero;
//! `grad_slot` lets a fused kernel that writes a whole gradient overwrite a
//! fresh one instead of zeroing it first (the plain ops always add).

use faer::{Accum, Mat};

use crate::Real;
use crate::tape::NodeId;

/// What an op's backward receives: the values of every node, and mutable
/// gradients to accumulate into.
pub struct Back<'a, T: Real> {
    pub(crate) current: usize, // the node being differentiated
    pub(crate) values: &'a [Mat<T>],
    pub(crate) grads: &'a mut [Option<Mat<T>>],
    pub(crate) needs: &'a [bool],
    /// Nodes below this are parameters (not activations).
    pub(crate) params: usize,
}

impl<'a, T: Real> Back<'a, T> {
    /// The forward value of node `id` (it outlives the borrow of `self`, so
    /// it can be read while a gradient is being written).
    pub fn value(&self, id: NodeId) -> &'a Mat<T> {
        self.reads(id.0)
    }

    /// The forward value of the op being differentiated (its output).
    pub fn output(&self) -> &'a Mat<T> {
        self.reads(self.current)
    }

    /// Node `i`'s value, telling an observer that backward needed it (when
    /// it is an activation, not a parameter).
    fn reads(&self, i: usize) -> &'a Mat<T> {
        let m = &self.values[i];
        if i >= self.params {
            crate::flops::read(i, m.nrows(), m.ncols());
        }
        m
    }

    /// Whether node `id` leads back to a parameter (else its gradient is
    /// never used and need not be computed).
    pub fn wants(&self, id: NodeId) -> bool {
        self.needs[id.0]
    }

    /// The gradient of node `id`, zero until something is added to it.
    pub fn grad(&mut self, id: NodeId) -> &mut Mat<T> {
        let (r, c) = (self.values[id.0].nrows(), self.values[id.0].ncols());
        self.grads[id.0].get_or_insert_with(|| crate::pool::zeros(r, c))
    }

    /// The gradient of node `id` for an op that writes all of it: `Add` if it
    /// already holds a sum to add to, `Replace` if nothing was written yet
    /// (its contents are then stale and must be overwritten, which saves
    /// zeroing a matrix only to add to it).
    pub fn grad_slot(&mut self, id: NodeId) -> (&mut Mat<T>, Accum) {
        let (r, c) = (self.values[id.0].nrows(), self.values[id.0].ncols());
        let fresh = self.grads[id.0].is_none();
        let g = self.grads[id.0].get_or_insert_with(|| crate::pool::take(r, c));
        (g, if fresh { Accum::Replace } else { Accum::Add })
    }
}

impl<T: Real> Back<'_, T> {
    /// [`Back::grad_slot`] of two different nodes at once, for an op that
    /// writes the same gradient to both of its inputs in one pass.
    pub fn grad_slot_pair(&mut self, a: NodeId, b: NodeId) -> [(&mut Mat<T>, Accum); 2] {
        assert_ne!(a, b, "grad_slot_pair: one node twice");
        let how = |g: &Option<Mat<T>>| if g.is_none() { Accum::Replace } else { Accum::Add };
        let (how_a, how_b) = (how(&self.grads[a.0]), how(&self.grads[b.0]));
        for id in [a, b] {
            let (r, c) = (self.values[id.0].nrows(), self.values[id.0].ncols());
            self.grads[id.0].get_or_insert_with(|| crate::pool::take(r, c));
        }
        let (lo, hi) = (a.0.min(b.0), a.0.max(b.0));
        let (left, right) = self.grads.split_at_mut(hi);
        let (g_lo, g_hi) = (left[lo].as_mut().unwrap(), right[0].as_mut().unwrap());
        if a < b { [(g_lo, how_a), (g_hi, how_b)] } else { [(g_hi, how_a), (g_lo, how_b)] }
    }
}
