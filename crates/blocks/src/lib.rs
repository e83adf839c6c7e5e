//! # blocks — the Transformer's parts, forward only, in `f64`
//!
//! This crate is the book's "from scratch" side: each building block of the
//! Transformer written as the smallest code that implements its formula, on
//! [`faer`] matrices, row convention (row *i* of `X` is word *i*, `Q = X·W^Q`).
//! Everything is `f64`, so two implementations of the same thing can be
//! compared to the last bits.
//!
//! Numerics contract: every reduction runs in a fixed order, matrix products
//! use [`faer::Par::Seq`], and `exp` comes from the `libm` crate, so results
//! are bit-identical across builds, thread counts and x86-64 CPUs.

pub mod attention;
pub mod examples;
pub mod init;
pub mod layers;
pub mod mat;
pub mod softmax;

pub use attention::{Attention, scaled_dot_product_attention};
pub use mat::{argmax, mat, matmul, matmul_t, max_diff, worse};
pub use softmax::{softmax_rows, softmax_rows_masked};
