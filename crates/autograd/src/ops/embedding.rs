//! Embedding lookup: gather rows of a table; backward scatters the
//! gradient rows back, adding where an id repeats.
//!
//! ```text
//! y_r = E[id_r]          dE[id_r] += dy_r   (for every row r)
//! ```

use crate::{Real, Var};

impl<'t, T: Real> Var<'t, T> {
    /// Rows `ids` of this (V, D) table, as an (ids.len(), D) value.
    #[track_caller]
    pub fn gather_rows(self, ids: &[usize]) -> Var<'t, T> {
        let t_id = self.id;
        let (v, d) = self.shape();
        if let Some(&bad) = ids.iter().find(|&&i| i >= v) {
            panic!("gather_rows: id {bad} in a table of {v} rows");
        }
        let ids = ids.to_vec();
        let out = {
            let table = self.value();
            let mut out = crate::pool::take(ids.len(), d);
            for j in 0..d {
                let (src, dst) = (table.col_as_slice(j), out.col_as_slice_mut(j));
                for (o, &id) in dst.iter_mut().zip(&ids) {
                    *o = src[id];
                }
            }
            out
        };
        self.tape.push(out, &[t_id], move |b, dout| {
            let g = b.grad(t_id);
            for j in 0..d {
                let (src, dst) = (dout.col_as_slice(j), g.col_as_slice_mut(j));
                for (n, &id) in ids.iter().enumerate() {
                    dst[id] += src[n];
                }
            }
        })
    }
}
