//! [`OpArgs`]: the non-tensor arguments of an op (axes, keepdims, dtype, shape, …).
//!
//! They are not dispatched on (as in TensorFlow, `keepdims` is not checked for dispatch); group
//! handlers receive them bound into the op callable.

use std::cell::Cell;

use smallvec::SmallVec;

use crate::dtype::DType;
use extype_shape::Policy;

/// The non-tensor arguments of an op call. Each op reads the fields it needs and ignores the
/// rest; [`OpArgs::default`] means "all axes, no keepdims, axis 0".
///
/// ```
/// use extype_core::ops::OpArgs;
/// let args = OpArgs::axes(&[0, -1]).keepdims(true);
/// assert_eq!(args.axes.as_deref(), Some(&[0isize, -1][..]));
/// assert!(args.keepdims);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct OpArgs {
    /// Reductions: the axes to reduce (negative counts from the end); `None` = all axes.
    pub axes: Option<SmallVec<[isize; 4]>>,
    /// Reductions: keep reduced axes with size 1.
    pub keepdims: bool,
    /// `concat`, `stack`, `gather`: the axis (negative counts from the end).
    pub axis: isize,
    /// `cast`: the target dtype.
    pub dtype: Option<DType>,
    /// `reshape`: the new shape; `tile`: the multiples.
    pub shape: Option<Vec<usize>>,
    /// `transpose`: the permutation (`None` reverses the axes).
    pub perm: Option<Vec<usize>>,
    /// `gather`: the indices (negative counts from the end); segment reductions: `row_splits`.
    pub indices: Option<Vec<i64>>,
    /// Broadcasting ops: how unknown dims may broadcast ([`Policy::Numpy`] or
    /// [`Policy::Strict`]); `None` is the policy of the scope ([`scoped_policy`], NumPy's by
    /// default).
    pub policy: Option<Policy>,
}

thread_local! {
    static SCOPE_POLICY: Cell<Policy> = const { Cell::new(Policy::Numpy) };
}

/// The broadcasting policy of the current scope on this thread ([`Policy::Numpy`] outside any
/// [`scoped_policy`]).
pub fn current_policy() -> Policy {
    SCOPE_POLICY.with(Cell::get)
}

/// Runs `f` with `policy` as the broadcasting policy of every op call and spec inference on this
/// thread whose [`OpArgs::policy`] is `None`; the previous policy comes back afterwards (also when
/// `f` panics). Scopes nest.
///
/// The policy bites where a spec is partial: under [`Policy::Strict`] the checks that spec
/// inference returns ([`Inferred::checks`](crate::ops::Inferred)) refuse, at run time, a size 1
/// at an axis the spec did not say was 1, naming the argument and axis. A dense tensor handed to
/// an op carries its concrete shape as its spec (every 1 in it is said), so the dense default
/// broadcasts it as NumPy does under either policy.
///
/// ```
/// use extype_core::ops::{self, OpArgs, catalog};
/// use extype_core::shape::Policy;
/// use extype_core::{DType, TensorSpec, ValueSpec};
/// let x = ValueSpec::Tensor(TensorSpec::new("[?]".parse().unwrap(), DType::F32));
/// let y = ValueSpec::Tensor(TensorSpec::new("[5]".parse().unwrap(), DType::F32));
/// let checks = |args: &OpArgs| {
///     ops::infer_spec(&catalog::ADD, &[&x, &y], args).unwrap().checks.unwrap().to_string()
/// };
/// assert_eq!(checks(&OpArgs::none()), "argument 0 axis 0 ∈ {1, 5}");
/// ops::scoped_policy(Policy::Strict, || {
///     assert_eq!(ops::current_policy(), Policy::Strict);
///     assert_eq!(checks(&OpArgs::none()), "argument 0 axis 0 = 5");
///     // Per call, the argument wins over the scope.
///     assert_eq!(checks(&OpArgs::none().with_policy(Policy::Numpy)), "argument 0 axis 0 ∈ {1, 5}");
/// });
/// assert_eq!(ops::current_policy(), Policy::Numpy);
/// ```
pub fn scoped_policy<R>(policy: Policy, f: impl FnOnce() -> R) -> R {
    struct Restore(Policy);
    impl Drop for Restore {
        fn drop(&mut self) {
            SCOPE_POLICY.with(|p| p.set(self.0));
        }
    }
    let _restore = Restore(SCOPE_POLICY.with(|p| p.replace(policy)));
    f()
}

impl OpArgs {
    /// No extra arguments.
    pub fn none() -> OpArgs {
        OpArgs::default()
    }

    /// Reduce over `axes`.
    pub fn axes(axes: &[isize]) -> OpArgs {
        OpArgs {
            axes: Some(SmallVec::from_slice(axes)),
            ..OpArgs::default()
        }
    }

    /// Reduce over `axes` if given, over all axes if `None`.
    pub fn maybe_axes(axes: Option<&[isize]>) -> OpArgs {
        OpArgs {
            axes: axes.map(SmallVec::from_slice),
            ..OpArgs::default()
        }
    }

    /// Sets `keepdims`.
    pub fn keepdims(mut self, keepdims: bool) -> OpArgs {
        self.keepdims = keepdims;
        self
    }

    /// Sets `axis`.
    pub fn with_axis(mut self, axis: isize) -> OpArgs {
        self.axis = axis;
        self
    }

    /// Sets `dtype`.
    pub fn with_dtype(mut self, dtype: DType) -> OpArgs {
        self.dtype = Some(dtype);
        self
    }

    /// Sets `shape` (reshape target or tile multiples).
    pub fn with_shape(mut self, shape: &[usize]) -> OpArgs {
        self.shape = Some(shape.to_vec());
        self
    }

    /// Sets `perm`.
    pub fn with_perm(mut self, perm: &[usize]) -> OpArgs {
        self.perm = Some(perm.to_vec());
        self
    }

    /// Sets the broadcasting policy of this call (over the scope's).
    pub fn with_policy(mut self, policy: Policy) -> OpArgs {
        self.policy = Some(policy);
        self
    }

    /// The policy this call broadcasts under: its own, else the scope's ([`current_policy`]).
    pub fn effective_policy(&self) -> Policy {
        self.policy.unwrap_or_else(current_policy)
    }

    /// Sets `indices` (gather indices, or row splits of a segment reduction).
    pub fn with_indices(mut self, indices: &[i64]) -> OpArgs {
        self.indices = Some(indices.to_vec());
        self
    }
}
