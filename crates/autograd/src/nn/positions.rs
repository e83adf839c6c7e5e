//! Positions: the paper's sinusoids, and a learned table with a fixed
//! length that refuses longer sequences.

use std::cell::RefCell;
use std::collections::HashMap;

use faer::Mat;

use crate::nn::layers::Embedding;
use crate::{Params, Real, Tape, Var};

/// `PE(p, 2i) = sin(p / 10000^{2i/d})`, `PE(p, 2i+1) = cos(p / 10000^{2i/d})`,
/// for positions `0..len`: a (len, d) matrix — `blocks`' encoding, rounded
/// to the tape's number type.
pub fn sinusoidal<T: Real>(len: usize, d: usize) -> Mat<T> {
    thread_local! {
        // every training step asks for the same table: compute it once
        // (len · d calls of `pow`), keep it for the thread
        static TABLES: RefCell<HashMap<(usize, usize), Mat<f64>>> = RefCell::default();
    }
    TABLES.with(|tables| {
        let mut tables = tables.borrow_mut();
        let pe = tables.entry((len, d)).or_insert_with(|| blocks::layers::sinusoidal(len, d));
        Mat::from_fn(len, d, |p, j| T::of(pe[(p, j)]))
    })
}

/// A learned vector per position, for positions `0..max_len`.
#[derive(Clone, Debug)]
pub struct LearnedPositions {
    pub table: Embedding,
    pub max_len: usize,
}

/// A sequence longer than a learned position table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooLong {
    pub len: usize,
    pub max_len: usize,
}

impl std::fmt::Display for TooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "a sequence of {} positions, but the learned position table has only {} rows: \
             positions {}.. were never trained and have no vector",
            self.len, self.max_len, self.max_len
        )
    }
}

impl std::error::Error for TooLong {}

impl LearnedPositions {
    pub fn new<T: Real>(
        params: &mut Params<T>,
        name: &str,
        max_len: usize,
        d: usize,
        rng: &mut impl rand::Rng,
    ) -> Self {
        LearnedPositions { table: Embedding::new(params, name, max_len, d, rng), max_len }
    }

    /// The vectors of positions `0..len`, repeated for `batch` sequences:
    /// (batch·len, d). A sequence longer than the table is an error, not a
    /// panic: the reader may ask for one.
    pub fn forward<'t, T: Real>(
        &self,
        tape: &'t Tape<T>,
        batch: usize,
        len: usize,
    ) -> Result<Var<'t, T>, TooLong> {
        if len > self.max_len {
            return Err(TooLong { len, max_len: self.max_len });
        }
        let ids: Vec<usize> = (0..batch).flat_map(|_| 0..len).collect();
        Ok(self.table.forward(tape, &ids))
    }
}
