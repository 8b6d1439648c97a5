//! [`OpArgs`]: the non-tensor arguments of an op (axes, keepdims, dtype, shape, …).
//!
//! They are not dispatched on (as in TensorFlow, `keepdims` is not checked for dispatch); group
//! handlers receive them bound into the op callable.

use std::cell::Cell;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

use ndarray::{ArcArray1, Array1};
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
    /// [`Indices`] are shared: an op's arguments can carry a value's row splits without
    /// copying them ([`OpArgs::with_shared_indices`]).
    pub indices: Option<Indices>,
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

    /// Sets `indices` (gather indices, or row splits of a segment reduction), copying them; see
    /// [`OpArgs::with_shared_indices`] to share an array instead.
    pub fn with_indices(mut self, indices: &[i64]) -> OpArgs {
        self.indices = Some(Indices::from(indices));
        self
    }

    /// Sets `indices` without copying them: the [`Indices`] share their buffer (e.g. a ragged
    /// tensor's row splits, as an `ArcArray1<i64>`).
    ///
    /// ```
    /// use extype_core::ops::{Indices, OpArgs};
    /// let splits = ndarray::ArcArray1::from(vec![0i64, 2, 5]);
    /// let args = OpArgs::none().with_shared_indices(Indices::from(splits.clone()));
    /// assert_eq!(args.indices.as_deref(), Some(&[0i64, 2, 5][..]));
    /// // The same buffer, not a copy.
    /// assert_eq!(args.indices.as_deref().unwrap().as_ptr(), splits.as_ptr());
    /// ```
    pub fn with_shared_indices(mut self, indices: Indices) -> OpArgs {
        self.indices = Some(indices);
        self
    }
}

/// Integer indices of an op call ([`OpArgs::indices`]): a shared, immutable, contiguous `i64`
/// buffer, read as a slice (`Deref<Target = [i64]>`). Cloning shares the buffer (O(1)); equality
/// and hashing compare the values.
///
/// Built from a slice or `&Vec` (copied), a `Vec` (moved) or an `ArcArray1<i64>` (shared when
/// it is contiguous in order, copied otherwise).
///
/// ```
/// use extype_core::ops::Indices;
/// let a = Indices::from(&[0i64, 3, 4][..]);
/// let b = Indices::from(vec![0i64, 3, 4]);
/// assert_eq!(a, b);
/// assert_eq!(&*a, &[0, 3, 4]);
/// assert_eq!(b.len(), 3);
/// ```
#[derive(Clone)]
pub struct Indices(
    // Invariant: in standard layout (`as_slice` is `Some`), so `Deref` never copies.
    ArcArray1<i64>,
);

impl Indices {
    /// The shared array (contiguous, in order).
    pub fn as_array(&self) -> &ArcArray1<i64> {
        &self.0
    }
}

impl Deref for Indices {
    type Target = [i64];
    #[inline]
    fn deref(&self) -> &[i64] {
        // Every constructor makes the array contiguous in order (the invariant), so the slice
        // always exists; the empty fallback is unreachable.
        self.0.as_slice().unwrap_or(&[])
    }
}

impl From<ArcArray1<i64>> for Indices {
    fn from(a: ArcArray1<i64>) -> Indices {
        if a.as_slice().is_some() {
            Indices(a)
        } else {
            Indices(a.as_standard_layout().into_owned().into_shared())
        }
    }
}

impl From<Vec<i64>> for Indices {
    fn from(v: Vec<i64>) -> Indices {
        Indices(Array1::from(v).into_shared())
    }
}

impl From<&[i64]> for Indices {
    fn from(v: &[i64]) -> Indices {
        Indices::from(v.to_vec())
    }
}

impl From<&Vec<i64>> for Indices {
    fn from(v: &Vec<i64>) -> Indices {
        Indices::from(v.as_slice())
    }
}

impl fmt::Debug for Indices {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl PartialEq for Indices {
    fn eq(&self, other: &Indices) -> bool {
        **self == **other
    }
}

impl Eq for Indices {}

impl Hash for Indices {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (**self).hash(state)
    }
}
