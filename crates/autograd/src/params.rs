//! The model's parameters: named matrices that persist across steps.

use faer::Mat;

use crate::Real;

/// A parameter's index in its [`Params`], and its node id on every tape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParamId(pub usize);

/// One parameter.
#[derive(Clone, Debug)]
pub struct Param<T: Real> {
    /// A dotted path, e.g. `encoder.0.attn.w_q`.
    pub name: String,
    pub value: Mat<T>,
}

/// Every parameter of a model, in the order the modules created them.
#[derive(Clone, Debug, Default)]
pub struct Params<T: Real> {
    params: Vec<Param<T>>,
}

impl<T: Real> Params<T> {
    pub fn new() -> Self {
        Params { params: Vec::new() }
    }

    /// Add a parameter.
    #[track_caller]
    pub fn add(&mut self, name: impl Into<String>, value: Mat<T>) -> ParamId {
        let name = name.into();
        assert!(self.params.iter().all(|p| p.name != name), "parameter {name} defined twice");
        self.params.push(Param { name, value });
        ParamId(self.params.len() - 1)
    }

    pub fn get(&self, p: ParamId) -> &Param<T> {
        &self.params[p.0]
    }

    pub fn get_mut(&mut self, p: ParamId) -> &mut Param<T> {
        &mut self.params[p.0]
    }

    /// A parameter by name.
    pub fn find(&self, name: &str) -> Option<ParamId> {
        self.params.iter().position(|p| p.name == name).map(ParamId)
    }

    pub fn iter(&self) -> impl Iterator<Item = (ParamId, &Param<T>)> {
        self.params.iter().enumerate().map(|(i, p)| (ParamId(i), p))
    }

    pub fn len(&self) -> usize {
        self.params.len()
    }

    pub fn is_empty(&self) -> bool {
        self.params.is_empty()
    }

    /// The number of scalars in all parameters.
    pub fn count(&self) -> usize {
        self.params.iter().map(|p| p.value.nrows() * p.value.ncols()).sum()
    }

    /// The same parameters in another number type (e.g. `f32` → `f64` for an
    /// exactness check).
    pub fn cast<U: Real>(&self) -> Params<U> {
        Params {
            params: self
                .params
                .iter()
                .map(|p| Param {
                    name: p.name.clone(),
                    value: Mat::from_fn(p.value.nrows(), p.value.ncols(), |i, j| {
                        U::of(p.value[(i, j)].f64())
                    }),
                })
                .collect(),
        }
    }
}
