//! Reductions to a single number: sum and mean.
//!
//! ```text
//! y = Σ_ij x_ij          dx_ij += dy
//! y = Σ_ij x_ij / (n·m)  dx_ij += dy / (n·m)
//! ```
//!
//! Each column is summed with [`super::sum`] (a fixed, vectorisable order),
//! then the column sums left to right.

use faer::Mat;

use crate::{Real, Var};

impl<'t, T: Real> Var<'t, T> {
    /// The sum of every element, as a 1×1 value.
    pub fn sum(self) -> Var<'t, T> {
        let a_id = self.id;
        let total = {
            let a = self.value();
            (0..a.ncols()).map(|j| super::sum(a.col_as_slice(j))).sum::<T>()
        };
        self.tape.push(Mat::from_fn(1, 1, |_, _| total), &[a_id], move |b, dout| {
            let d = dout[(0, 0)];
            let g = b.grad(a_id);
            for j in 0..g.ncols() {
                for x in g.col_as_slice_mut(j) {
                    *x += d;
                }
            }
        })
    }

    /// The mean of every element, as a 1×1 value.
    pub fn mean(self) -> Var<'t, T> {
        let (r, c) = self.shape();
        self.sum().scale(1.0 / (r * c) as f64)
    }
}
