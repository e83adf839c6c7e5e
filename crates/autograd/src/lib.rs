//! # autograd — a small reverse-mode autograd on faer
//!
//! The book's "PyTorch side", small enough to read op by op:
//!
//! * [`Tape`] records a forward pass; each op (in [`ops`]) computes its value
//!   and, right beneath, the closure that computes its backward;
//!   [`Tape::backward`] is one reverse sweep over those closures.
//! * [`Params`] holds a model's parameters; a tape starts with a copy of
//!   them, and `backward` returns their gradients.
//! * [`nn`] holds the modules (Linear, Embedding, LayerNorm, multi-head
//!   attention, Transformer layers, GRU, …) — each a struct, a `new` that
//!   initialises it, and a `forward`.
//! * [`optim`] holds SGD, Adam and the learning-rate schedules.
//! * [`train`] holds the lectures' standard experiment (learning to reverse
//!   sequences), written once for every chapter that runs it.
//!
//! Values are 2-D: a batch of sequences is (B·S, D), one row per position.
//! It runs in `f64` (to check it against the `blocks` crate and finite
//! differences) and in `f32` (to train). Every printed number is the same on
//! every build, thread count and x86-64 CPU (see [`real`]).

pub mod back;
pub mod data;
pub mod flops;
pub mod nn;
pub mod ops;
pub mod optim;
pub mod params;
pub mod pool;
pub mod real;
pub mod tape;
pub mod train;

pub use back::Back;
pub use ops::attention::{Attended, Heads, Weights, attention};
pub use ops::dropout::dropout_mask;
pub use ops::fused::{attention_bands, fused_attention};
pub use ops::loss::Smoothing;
pub use ops::shape::{concat_cols, concat_rows};
pub use params::{Param, ParamId, Params};
pub use real::Real;
pub use tape::{Grads, Kernels, NodeId, Saved, Tape, Var};
