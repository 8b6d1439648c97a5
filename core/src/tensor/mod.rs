//! Dtype-erased tensors: [`Tensor`] (shared, O(1) clone), its borrowed twin [`TensorView`], the
//! [`Element`] scalars they hold, [`TensorSpec`], the static type of one tensor, and
//! [`TensorLike`], what values and specs that behave like one tensor show (dtype and shape).
//!
//! Conversions from and to typed `ndarray` arrays move the data: `Array → Tensor` wraps the
//! buffer in an `Arc` without copying, and `Tensor → Array` unwraps it without copying when the
//! tensor is the only owner (it copies only when the data is shared, which the caller can check
//! first with [`Tensor::is_unique`] or avoid with [`Tensor::into_arc_array`]). A
//! [`Tensor::External`] views bytes it does not own (a memory-mapped file): reading it goes
//! through views, and turning it into an ndarray array copies.

mod convert;
mod display;
mod element;
mod external;
mod fill;
mod like;
mod rows;
mod spec;
mod view;

use ndarray::{ArcArray, IxDyn};

use crate::dtype::DType;

pub use display::{EDGE_ITEMS, PRINT_THRESHOLD, summarises, write_nested, write_nested_summarised};
pub use element::Element;
pub use external::{ExternalBytes, ExternalTensor};
pub(crate) use external::{bad_bool, checked_sizes, try_external, view_in_place};
pub use fill::Fill;
pub use like::TensorLike;
pub(crate) use like::fmt_head;
pub use spec::TensorSpec;
pub use view::TensorView;

/// Applies `$body` to the typed array inside any [`Tensor`] or [`TensorView`] variant.
macro_rules! each_variant {
    ($enum:ident, $value:expr, $a:ident => $body:expr) => {
        match $value {
            $enum::Bool($a) => $body,
            $enum::I8($a) => $body,
            $enum::I16($a) => $body,
            $enum::I32($a) => $body,
            $enum::I64($a) => $body,
            $enum::U8($a) => $body,
            $enum::U16($a) => $body,
            $enum::U32($a) => $body,
            $enum::U64($a) => $body,
            $enum::F32($a) => $body,
            $enum::F64($a) => $body,
            $enum::F16($a) => $body,
            $enum::BF16($a) => $body,
        }
    };
}
pub(crate) use each_variant;

/// Applies `$body` to the `ArcArray` inside a [`Tensor`] that is not [`Tensor::External`] (the
/// caller handles that variant first).
macro_rules! each_array {
    ($value:expr, $a:ident => $body:expr) => {
        match $value {
            Tensor::Bool($a) => $body,
            Tensor::I8($a) => $body,
            Tensor::I16($a) => $body,
            Tensor::I32($a) => $body,
            Tensor::I64($a) => $body,
            Tensor::U8($a) => $body,
            Tensor::U16($a) => $body,
            Tensor::U32($a) => $body,
            Tensor::U64($a) => $body,
            Tensor::F32($a) => $body,
            Tensor::F64($a) => $body,
            Tensor::F16($a) => $body,
            Tensor::BF16($a) => $body,
            Tensor::External(_) => unreachable!("handled by the caller"),
        }
    };
}
pub(crate) use each_array;

/// A dtype-erased n-d array with shared storage: clone is O(1).
///
/// One variant per dtype holds an ndarray `ArcArray`; [`Tensor::External`] views bytes owned
/// elsewhere (a memory-mapped file) in place.
///
/// ```
/// use extype_core::{DType, Tensor};
/// use ndarray::array;
///
/// let t = Tensor::from(array![[1.0f32, 2.0], [3.0, 4.0]]);
/// assert_eq!(t.dtype(), DType::F32);
/// assert_eq!(t.shape(), &[2, 2]);
/// let back: ndarray::Array2<f32> = t.into_array().unwrap(); // moved back, no copy
/// assert_eq!(back[[1, 0]], 3.0);
/// ```
#[derive(Clone)]
#[allow(missing_docs)] // one variant per DType, named like it
pub enum Tensor {
    Bool(ArcArray<bool, IxDyn>),
    I8(ArcArray<i8, IxDyn>),
    I16(ArcArray<i16, IxDyn>),
    I32(ArcArray<i32, IxDyn>),
    I64(ArcArray<i64, IxDyn>),
    U8(ArcArray<u8, IxDyn>),
    U16(ArcArray<u16, IxDyn>),
    U32(ArcArray<u32, IxDyn>),
    U64(ArcArray<u64, IxDyn>),
    F32(ArcArray<f32, IxDyn>),
    F64(ArcArray<f64, IxDyn>),
    F16(ArcArray<half::f16, IxDyn>),
    BF16(ArcArray<half::bf16, IxDyn>),
    /// Elements in bytes owned elsewhere, viewed in place (see [`Tensor::from_external`]).
    External(ExternalTensor),
}

/// Equal when the dtypes, shapes and elements are (as ndarray compares arrays), whatever holds
/// the elements.
impl PartialEq for Tensor {
    fn eq(&self, other: &Tensor) -> bool {
        self.view() == other.view()
    }
}

impl Tensor {
    /// The element type.
    #[inline]
    pub fn dtype(&self) -> DType {
        match self {
            Tensor::Bool(_) => DType::Bool,
            Tensor::I8(_) => DType::I8,
            Tensor::I16(_) => DType::I16,
            Tensor::I32(_) => DType::I32,
            Tensor::I64(_) => DType::I64,
            Tensor::U8(_) => DType::U8,
            Tensor::U16(_) => DType::U16,
            Tensor::U32(_) => DType::U32,
            Tensor::U64(_) => DType::U64,
            Tensor::F32(_) => DType::F32,
            Tensor::F64(_) => DType::F64,
            Tensor::F16(_) => DType::F16,
            Tensor::BF16(_) => DType::BF16,
            Tensor::External(e) => e.dtype(),
        }
    }

    /// The concrete shape.
    #[inline]
    pub fn shape(&self) -> &[usize] {
        match self {
            Tensor::External(e) => e.shape(),
            _ => each_array!(self, a => a.shape()),
        }
    }

    /// The number of axes.
    #[inline]
    pub fn ndim(&self) -> usize {
        self.shape().len()
    }

    /// The number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        match self {
            Tensor::External(e) => e.len(),
            _ => each_array!(self, a => a.len()),
        }
    }

    /// Whether the tensor has no elements (some axis has size 0).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A borrowed view.
    #[inline]
    pub fn view(&self) -> TensorView<'_> {
        match self {
            Tensor::External(e) => e.view(),
            _ => each_array!(self, a => Element::into_view(a.view())),
        }
    }

    /// Whether this tensor is the only owner of its data (so converting it to an `Array` moves).
    /// Never for a [`Tensor::External`], whose bytes an `Array` cannot take over.
    pub fn is_unique(&self) -> bool {
        match self {
            Tensor::External(_) => false,
            _ => each_array!(self, a => a.is_unique()),
        }
    }
}
