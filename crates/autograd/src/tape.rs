//! The tape: every value computed in a forward pass, and how to go back.
//!
//! Each op computes its output, then records one node: the output matrix,
//! the ids of its inputs, and a closure — written right beneath the forward
//! in the op's own file — that turns the gradient of the output into
//! gradients of the inputs. `backward` walks the nodes in reverse and calls
//! those closures. Gradients always accumulate (`+=`), so a value used twice
//! receives the sum of both uses.
//!
//! The model's parameters are copied onto the tape when it is made, as its
//! first nodes (node id = [`ParamId`]), so modules reach them by id and the
//! gradients come back indexed the same way.

use std::cell::{Ref, RefCell};

use faer::Mat;

use crate::Real;
use crate::back::Back;
use crate::params::{ParamId, Params};

/// What an op keeps for its backward (beyond its inputs and output, which
/// the tape holds anyway): a named struct of the op's own, `()` for none,
/// or matrices. The tape owns it; when the tape is dropped, its matrices go
/// back to the pool.
pub trait Saved<T: Real>: 'static {
    /// Hand every matrix back to the pool.
    fn give_back(self);
    /// How many numbers it holds (what it costs in memory until backward).
    fn numbers(&self) -> usize;
}

impl<T: Real> Saved<T> for () {
    fn give_back(self) {}
    fn numbers(&self) -> usize {
        0
    }
}

impl<T: Real> Saved<T> for Mat<T> {
    fn give_back(self) {
        crate::pool::give(self);
    }
    fn numbers(&self) -> usize {
        self.nrows() * self.ncols()
    }
}

impl<T: Real, const N: usize> Saved<T> for [Mat<T>; N] {
    fn give_back(self) {
        self.into_iter().for_each(crate::pool::give);
    }
    fn numbers(&self) -> usize {
        self.iter().map(|m| m.nrows() * m.ncols()).sum()
    }
}

/// One recorded op: what it saved and how it goes back.
trait Node<T: Real> {
    fn backward(&self, b: &mut Back<'_, T>, dout: &Mat<T>);
    fn give_back(self: Box<Self>);
}

struct Op<S, F> {
    saved: S,
    backward: F,
}

impl<T: Real, S: Saved<T>, F: Fn(&mut Back<'_, T>, &Mat<T>, &S)> Node<T> for Op<S, F> {
    fn backward(&self, b: &mut Back<'_, T>, dout: &Mat<T>) {
        (self.backward)(b, dout, &self.saved)
    }
    fn give_back(self: Box<Self>) {
        self.saved.give_back();
    }
}

struct Inner<T: Real> {
    values: Vec<Mat<T>>,
    backs: Vec<Option<Box<dyn Node<T>>>>,
    needs: Vec<bool>,
    /// Only while an observer is attached ([`crate::flops::observe`]):
    /// each node's op name, to report its backward.
    names: Vec<String>,
}

/// Which code the modules run on a tape: the fused kernels (the default,
/// for training) or the plain ops they are tested against (for reading,
/// counting and timing the difference). Both give the same numbers to
/// rounding; see `ops/fused/`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Kernels {
    #[default]
    Fused,
    Plain,
}

/// A forward pass being recorded.
pub struct Tape<T: Real> {
    inner: RefCell<Inner<T>>,
    n_params: usize,
    kernels: Kernels,
}

/// Which node of a tape a value is: its position in recording order (the
/// parameters come first, in the order of [`Params`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub(crate) usize);

/// A value on a tape: a matrix, by id. Cheap to copy.
#[derive(Clone, Copy)]
pub struct Var<'t, T: Real> {
    pub(crate) tape: &'t Tape<T>,
    pub(crate) id: NodeId,
}

/// The gradients of the loss with respect to every parameter.
pub struct Grads<T: Real> {
    grads: Vec<Option<Mat<T>>>,
}

impl<T: Real> Grads<T> {
    /// The gradient of parameter `p` (`None` if the loss does not use it).
    pub fn get(&self, p: ParamId) -> Option<&Mat<T>> {
        self.grads[p.0].as_ref()
    }
}

impl<T: Real> Drop for Tape<T> {
    fn drop(&mut self) {
        let inner = self.inner.get_mut();
        for m in inner.values.drain(..) {
            crate::pool::give(m);
        }
        for node in inner.backs.drain(..).flatten() {
            node.give_back();
        }
    }
}

impl<T: Real> Drop for Grads<T> {
    fn drop(&mut self) {
        for m in self.grads.drain(..).flatten() {
            crate::pool::give(m);
        }
    }
}

impl<T: Real> Tape<T> {
    /// A fresh tape holding a copy of every parameter; modules use the
    /// fused kernels.
    pub fn new(params: &Params<T>) -> Self {
        Self::with_kernels(params, Kernels::Fused)
    }

    /// A fresh tape whose modules use `kernels`.
    pub fn with_kernels(params: &Params<T>, kernels: Kernels) -> Self {
        let values: Vec<Mat<T>> = params
            .iter()
            .map(|(_, p)| {
                let mut m = crate::pool::take(p.value.nrows(), p.value.ncols());
                m.copy_from(&p.value);
                m
            })
            .collect();
        let n = values.len();
        Tape {
            inner: RefCell::new(Inner {
                values,
                backs: (0..n).map(|_| None).collect(),
                needs: vec![true; n],
                names: Vec::new(),
            }),
            n_params: n,
            kernels,
        }
    }

    /// The code this tape's modules run.
    pub fn kernels(&self) -> Kernels {
        self.kernels
    }

    /// Whether modules use the fused kernels.
    pub fn fused(&self) -> bool {
        self.kernels == Kernels::Fused
    }

    /// The node of parameter `p`.
    pub fn param(&self, p: ParamId) -> Var<'_, T> {
        assert!(p.0 < self.n_params, "parameter {} is not on this tape", p.0);
        Var { tape: self, id: NodeId(p.0) }
    }

    /// A constant input (no gradient flows into it).
    pub fn input(&self, value: Mat<T>) -> Var<'_, T> {
        let mut inner = self.inner.borrow_mut();
        inner.values.push(value);
        inner.backs.push(None);
        inner.needs.push(false);
        Var { tape: self, id: NodeId(inner.values.len() - 1) }
    }

    /// Record an op's output. `backward(back, dout)` must add the gradient of
    /// each input to `back.grad(input)`; it is dropped unused when no input
    /// leads to a parameter.
    pub fn push(
        &self,
        value: Mat<T>,
        inputs: &[NodeId],
        backward: impl Fn(&mut Back<'_, T>, &Mat<T>) + 'static,
    ) -> Var<'_, T> {
        let name = std::any::type_name_of_val(&backward);
        self.record(value, inputs, (), move |b, dout, _: &()| backward(b, dout), name)
    }

    /// [`Tape::push`] for an op that keeps `saved` for its backward, which
    /// receives it as `backward(back, dout, &saved)`. The tape owns it (and
    /// gives its matrices back to the pool at once if no backward will run).
    pub fn push_saving<S: Saved<T>>(
        &self,
        value: Mat<T>,
        inputs: &[NodeId],
        saved: S,
        backward: impl Fn(&mut Back<'_, T>, &Mat<T>, &S) + 'static,
    ) -> Var<'_, T> {
        let name = std::any::type_name_of_val(&backward);
        self.record(value, inputs, saved, backward, name)
    }

    /// Both pushes; `closure` names the op's backward for an observer.
    fn record<S: Saved<T>>(
        &self,
        value: Mat<T>,
        inputs: &[NodeId],
        saved: S,
        backward: impl Fn(&mut Back<'_, T>, &Mat<T>, &S) + 'static,
        closure: &str,
    ) -> Var<'_, T> {
        let mut inner = self.inner.borrow_mut();
        if let Some(name) = crate::flops::recorded(closure) {
            let len = inner.values.len();
            inner.names.resize(len, String::new());
            inner.names.push(name);
        }
        let needs = inputs.iter().any(|&i| inner.needs[i.0]);
        inner.values.push(value);
        let node: Option<Box<dyn Node<T>>> = if needs {
            crate::flops::saved(saved.numbers());
            Some(Box::new(Op { saved, backward }))
        } else {
            saved.give_back();
            None
        };
        inner.backs.push(node);
        inner.needs.push(needs);
        Var { tape: self, id: NodeId(inner.values.len() - 1) }
    }

    /// The value of node `id`.
    pub fn value(&self, id: NodeId) -> Ref<'_, Mat<T>> {
        Ref::map(self.inner.borrow(), |inner| &inner.values[id.0])
    }

    /// How many nodes the tape holds.
    pub fn len(&self) -> usize {
        self.inner.borrow().values.len()
    }

    /// Whether the tape holds no node at all (no parameters either).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    // ANCHOR: tape_backward
    /// Back-propagate from a 1×1 `loss`: the gradient of the loss with
    /// respect to every parameter.
    #[track_caller]
    pub fn backward(&self, loss: Var<'_, T>) -> Grads<T> {
        let mut inner = self.inner.borrow_mut();
        let Inner { values, backs, needs, names, .. } = &mut *inner;
        let shape = (values[loss.id.0].nrows(), values[loss.id.0].ncols());
        assert_eq!(shape, (1, 1), "backward: the loss must be 1×1, not {shape:?}");
        let mut grads: Vec<Option<Mat<T>>> = (0..values.len()).map(|_| None).collect();
        grads[loss.id.0] = Some(Mat::from_fn(1, 1, |_, _| T::one()));
        for id in (self.n_params..=loss.id.0).rev() {
            let (Some(back), Some(dout)) = (&backs[id], grads[id].take()) else {
                continue;
            };
            let mut ctx =
                Back { current: id, values, grads: &mut grads, needs, params: self.n_params };
            crate::flops::backward(names.get(id).map(String::as_str), || {
                back.backward(&mut ctx, &dout)
            });
            crate::pool::give(dout);
        }
        for g in grads.drain(self.n_params..).flatten() {
            crate::pool::give(g);
        }
        Grads { grads }
    }
    // ANCHOR_END: tape_backward
}

impl<'t, T: Real> Var<'t, T> {
    /// The tape this value lives on.
    pub fn tape(&self) -> &'t Tape<T> {
        self.tape
    }

    /// Its node id.
    pub fn id(&self) -> NodeId {
        self.id
    }

    /// Its value. This borrows the tape: let the borrow end (one statement,
    /// or `.clone()` it) before recording the next op, or that op panics.
    pub fn value(&self) -> Ref<'t, Mat<T>> {
        self.tape.value(self.id)
    }

    /// (rows, columns).
    pub fn shape(&self) -> (usize, usize) {
        let v = self.value();
        (v.nrows(), v.ncols())
    }

    /// The single number of a 1×1 value.
    #[track_caller]
    pub fn scalar(&self) -> T {
        let v = self.value();
        assert_eq!((v.nrows(), v.ncols()), (1, 1), "scalar: value is not 1×1");
        v[(0, 0)]
    }
}
