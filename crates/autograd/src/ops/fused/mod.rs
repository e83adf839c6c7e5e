//! The fused kernels: the ops a training step spends its time in, each
//! written as one op that does the work of several plain ones.
//!
//! | kernel | does the work of | file |
//! | --- | --- | --- |
//! | [`Var::add_layer_norm`](crate::Var::add_layer_norm) | `x.add(y).layer_norm(…)` | `norm.rs` |
//! | [`attention_bands`] | [`crate::ops::attention::attention`] | `attention.rs` |
//! | [`Var::gru_step_at`](crate::Var::gru_step_at) | [`Var::gru_step`](crate::Var::gru_step) | `gru.rs` |
//!
//! Each file's header says what it saves and why it is faster; each kernel
//! is tested against its plain op (values and gradients, `f64`, ≤ 1e−12).
//! A tape made with [`Kernels::Plain`](crate::Kernels) runs every module
//! on the plain ops instead.

pub mod attention;
pub mod gru;
pub mod norm;

pub use attention::{attention_bands, fused_attention};
