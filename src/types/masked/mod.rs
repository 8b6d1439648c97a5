//! [`MaskedTensor`]: a tensor of values with a boolean mask of the same shape (`true` = valid),
//! registered as `extype.MaskedTensor`.
//!
//! Every op follows TensorFlow's ops applied to `(values, mask)` (the MaskedTensor of TF's
//! extension-type guide, completed for every op of the catalog):
//!
//! - **Unary elementwise** ops (`neg`, `exp`, `is_nan`, `zeros_like`, `ones_like`, …) apply
//!   to the values and keep the mask.
//!   A masked-out element never raises and never reaches a valid one (elementwise ops do not
//!   move data between elements).
//! - **Binary elementwise** ops and comparisons broadcast (NumPy rules) and AND the masks; a
//!   dense tensor, an ndarray array or a scalar operand is valid everywhere. `where(cond, x, y)`
//!   picks values and masks (a masked condition also masks the result where it is invalid).
//! - **Reductions** over all axes, one, several or negative axes, with `keepdims`: `reduce_sum`
//!   is the sum of `where(mask, v, 0)`; `reduce_mean` is that sum over [`count`](MaskedTensor::count)
//!   (NaN where the count is 0; integer values give `f64`); `reduce_max` / `reduce_min` reduce
//!   `where(mask, v, -inf / +inf)` (for integers the dtype's lowest / highest value, for bools
//!   `false` / `true`); `reduce_prod` fills with 1, `reduce_any` with `false`, `reduce_all` with
//!   `true`, `count_nonzero` with 0; `argmax` / `argmin` give the index of the first maximum /
//!   minimum among the valid elements (flat over the reduced axes, as for dense tensors). The
//!   result is a MaskedTensor whose mask is `count > 0`. A NaN or infinity under a false mask
//!   never reaches a result.
//! - `cast` acts on the values and keeps the mask; `reshape`,
//!   `transpose`, `tile` and `gather` act on values and mask alike. `stack` and `concat` of
//!   MaskedTensors join values and masks alike; a dense operand mixed in counts as valid
//!   everywhere (the guide's `masked_stack` over `Union[MaskedTensor, tf.Tensor]`).
//! - **`matmul`** of a MaskedTensor with a MaskedTensor or a dense operand, on either side:
//!   the values of the guide's `masked_matmul` (`matmul(a.with_default(0), b.with_default(0))`,
//!   bit for bit), and a mask by the rule of the reductions: valid where at least one term of
//!   the contraction has both factors valid (`matmul(a.mask, b.mask) > 0`). The guide returns
//!   the values alone, as a dense tensor: `result.values()` is that tensor.
//!
//! Deliberate differences from TensorFlow (which has no MaskedTensor type of its own, only the
//! guide's example): a reduction over an empty extent gives the fill value under a false mask
//! instead of raising (dense `reduce_max` of an empty extent raises, as TF's does for integers),
//! and `argmax`/`argmin` of a row with no valid element give the index 0 under a false mask;
//! `matmul` returns a MaskedTensor (the guide's `masked_matmul` returns its values as a dense
//! tensor).

mod display;
mod elementwise;
mod matmul;
mod reduce;
mod reshape;

pub use elementwise::{masked_binary, masked_unary, masked_where};

use crate::error::DispatchError;
use crate::ndarray::{ArrayD, IxDyn};
use crate::ops::{self, AsOperand};
use crate::{DType, Error, ExtensionType, Result, Tensor, TensorSpec};

/// A tensor of values with a boolean mask of the same shape: `true` where a value is valid.
///
/// Built with the public derive and `#[dispatch]`, like any user type: batchable (the default
/// encoder), saved and loaded by `extype::io` as `extype.MaskedTensor`, tensor-like (its dtype and
/// shape are its values'), with operators (`&a + &b`, `&a * 2.0`, `1.0 - &a`, `-&a`, each a
/// `Result<MaskedTensor>`) and spec inference for every op (`ops::infer_spec`, component-wise:
/// the values' spec by the op's rule, the mask's shape alike). The [module docs](self) list the
/// semantics of every op.
///
/// ```
/// use extype::types::MaskedTensor;
/// use extype::ops;
/// use ndarray::array;
///
/// let x = MaskedTensor::new(array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]], array![[true, false, true], [true, true, false]])?;
/// assert_eq!(x.to_string(), "f32[2, 3] [[1.0, _, 3.0], [4.0, 5.0, _]]");
/// let y: MaskedTensor = ops::add_as(&x, &array![10.0f32, 20.0, 30.0])?;
/// assert_eq!(y.to_string(), "f32[2, 3] [[11.0, _, 33.0], [14.0, 25.0, _]]");
/// let sum: MaskedTensor = ops::reduce_sum_as(&x, Some(&[1]), false)?;
/// assert_eq!(sum.to_string(), "f32[2] [4.0, 9.0]");
/// let mean: MaskedTensor = ops::reduce_mean_as(&x, Some(&[0]), false)?;
/// assert_eq!(mean.to_string(), "f32[3] [2.5, 5.0, 3.0]");
/// // Operators return a MaskedTensor; scalars take the values' dtype.
/// let z = (&(&x * 2.0)? - &y)?;
/// assert_eq!(z.to_string(), "f32[2, 3] [[-9.0, _, -27.0], [-6.0, -15.0, _]]");
/// # Ok::<(), extype::Error>(())
/// ```
#[crate::dispatch(operators)]
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "extype.MaskedTensor", validate = check_mask, tensor_like = values, batchable)]
pub struct MaskedTensor {
    /// The values (any dtype).
    #[extype(shape = "*dims")]
    values: Tensor,
    /// Where the values are valid (bool, the values' shape): the values' validity, so Arrow
    /// export writes it as their validity bitmap.
    #[extype(shape = "*dims", validity_of = values)]
    mask: Tensor,
}

/// The mask is `bool` (the shape contract makes its shape the values').
fn check_mask(m: &MaskedTensor) -> Result<()> {
    match m.mask.dtype() {
        DType::Bool => Ok(()),
        other => Err(Error::invalid(format!(
            "the mask must have dtype bool, found {other}"
        ))),
    }
}

impl MaskedTensor {
    /// A masked tensor from its values (any dtype) and its mask (`bool`, the values' shape;
    /// `true` = valid). Errors name the field and what was expected and found.
    ///
    /// ```
    /// use extype::types::MaskedTensor;
    /// let err = MaskedTensor::new(ndarray::array![1.0f32, 2.0], ndarray::array![true]).unwrap_err();
    /// assert!(err.to_string().contains("mask"), "{err}");
    /// let err = MaskedTensor::new(ndarray::array![1.0f32], ndarray::array![1u8]).unwrap_err();
    /// assert!(err.to_string().contains("the mask must have dtype bool, found u8"), "{err}");
    /// ```
    pub fn new(values: impl Into<Tensor>, mask: impl Into<Tensor>) -> Result<Self> {
        MaskedTensor::try_new(values.into(), mask.into())
    }

    /// Every value valid.
    pub fn from_dense(values: impl Into<Tensor>) -> Self {
        let values = values.into();
        let mask = Tensor::from(ArrayD::from_elem(IxDyn(values.shape()), true));
        MaskedTensor { values, mask }
    }

    /// Parts already known to fit: the mask is bool and has the values' shape.
    pub(crate) fn from_parts_unchecked(values: Tensor, mask: Tensor) -> Self {
        debug_assert_eq!(mask.dtype(), DType::Bool);
        debug_assert_eq!(values.shape(), mask.shape());
        MaskedTensor { values, mask }
    }

    /// The values, masked-out ones included (whatever they hold).
    pub fn values(&self) -> &Tensor {
        &self.values
    }

    /// The mask (`bool`, the values' shape; `true` = valid).
    pub fn mask(&self) -> &Tensor {
        &self.mask
    }

    /// The values and the mask, moved out.
    pub fn into_parts(self) -> (Tensor, Tensor) {
        (self.values, self.mask)
    }

    /// The values' dtype.
    pub fn dtype(&self) -> DType {
        self.values.dtype()
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        self.values.shape()
    }

    /// A dense tensor: the values where valid, `fill` elsewhere (`where(mask, values, fill)`;
    /// `fill` is a tensor, array or scalar of the values' dtype that broadcasts to their shape).
    ///
    /// ```
    /// use extype::types::MaskedTensor;
    /// use extype::Tensor;
    /// let m = MaskedTensor::new(ndarray::array![1i32, 2, 3], ndarray::array![true, false, true])?;
    /// assert_eq!(m.to_dense(&ndarray::arr0(0i32))?, Tensor::from(ndarray::array![1i32, 0, 3]));
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn to_dense(&self, fill: &impl AsOperand) -> Result<Tensor> {
        ops::where_as(&self.mask, &self.values, fill)
    }

    /// The same mask, with the masked-out values replaced by `fill` (e.g. to clear NaNs under
    /// the mask before handing the values on).
    pub fn filled(&self, fill: &impl AsOperand) -> Result<MaskedTensor> {
        let values = self.to_dense(fill)?;
        if values.shape() != self.shape() {
            return Err(DispatchError::Argument {
                op: "filled".into(),
                arg: "fill".into(),
                expected: format!(
                    "a fill that broadcasts to the values' shape {:?}",
                    self.shape()
                ),
                found: format!("one that broadcasts them to {:?}", values.shape()),
            }
            .into());
        }
        Ok(MaskedTensor::from_parts_unchecked(
            values,
            self.mask.clone(),
        ))
    }

    /// The number of valid elements over `axes` (`None`: all), as `i64`.
    ///
    /// ```
    /// use extype::types::MaskedTensor;
    /// use extype::Tensor;
    /// let m = MaskedTensor::new(ndarray::array![[1.0f64, 2.0], [3.0, 4.0]], ndarray::array![[true, false], [false, false]])?;
    /// assert_eq!(m.count(Some(&[1]), false)?, Tensor::from(ndarray::array![1i64, 0]));
    /// assert_eq!(m.count(None, true)?, Tensor::from(ndarray::array![[1i64]]));
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn count(&self, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor> {
        ops::count_nonzero_as(&self.mask, axes, keepdims)
    }
}

impl MaskedTensorSpec {
    /// The spec of masked tensors whose values have spec `values` (the mask: bool, same shape).
    pub fn new(values: TensorSpec) -> Self {
        let mask = TensorSpec::new(values.shape.clone(), DType::Bool);
        MaskedTensorSpec { values, mask }
    }

    /// The values' spec.
    pub fn values(&self) -> &TensorSpec {
        &self.values
    }

    /// The mask's spec.
    pub fn mask(&self) -> &TensorSpec {
        &self.mask
    }
}

/// The mask `mask` (bool) broadcast to `shape`: shared when it already has that shape.
pub(crate) fn broadcast_mask(mask: &Tensor, shape: &[usize]) -> Result<Tensor> {
    if mask.shape() == shape {
        return Ok(mask.clone());
    }
    let view = mask.as_array::<bool, IxDyn>()?;
    match view.broadcast(IxDyn(shape)) {
        Some(b) => Ok(Tensor::from(b.to_owned())),
        None => Err(DispatchError::Argument {
            op: "broadcast_mask".into(),
            arg: "mask".into(),
            expected: format!("a mask that broadcasts to {shape:?}"),
            found: format!("shape {:?}", mask.shape()),
        }
        .into()),
    }
}
