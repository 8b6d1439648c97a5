//! Rows of any tensor, every dtype (the kernels' `gather` and `concat` take fewer): rows taken
//! by index, rows appended, a tensor broadcast to a shape. What the library types build their
//! values from; a size an argument claims is checked, then allocated fallibly (an error, never
//! an abort).

use ndarray::{ArrayD, Axis, IxDyn};

use super::Tensor;
use super::external::checked_sizes;
use crate::error::{Error, Result};

/// A vector with room for `len` elements, or the error of `op` naming `arg` and `shape`.
fn reserved<T>(op: &str, arg: &str, shape: &[usize], len: usize) -> Result<Vec<T>> {
    let mut out = Vec::new();
    out.try_reserve_exact(len).map_err(|_| {
        Error::argument(
            op,
            arg,
            "a result that fits in memory",
            format!("shape {shape:?}"),
        )
    })?;
    Ok(out)
}

impl Tensor {
    /// Rows `ids` of axis 0, in order (a row may repeat): a new tensor of `ids.len()` rows. An
    /// id outside `0..rows` is an error naming it; a rank-0 tensor has no rows.
    ///
    /// ```
    /// use extype_core::Tensor;
    /// let t = Tensor::from(ndarray::array![[1u8, 2], [3, 4], [5, 6]]);
    /// let picked = t.take_rows(&[2, 0, 2]).unwrap();
    /// assert_eq!(picked, Tensor::from(ndarray::array![[5u8, 6], [1, 2], [5, 6]]));
    /// assert!(t.take_rows(&[3]).is_err());
    /// ```
    pub fn take_rows(&self, ids: &[i64]) -> Result<Tensor> {
        const OP: &str = "take_rows";
        let n = self.shape().first().copied().unwrap_or(0);
        if let Some(bad) = ids.iter().find(|&&i| i < 0 || i as u64 >= n as u64) {
            return Err(Error::argument(
                OP,
                "indices",
                format!("row indices within 0..{n}"),
                bad.to_string(),
            ));
        }
        let mut shape = self.shape().to_vec();
        let row: usize = shape.iter().skip(1).product();
        if shape.is_empty() {
            shape.push(0);
        }
        shape[0] = ids.len();
        // `ids` may repeat rows far beyond the input (padding): the size is checked first.
        let (len, _) = checked_sizes(self.dtype(), &shape)
            .map_err(|e| Error::argument(OP, "indices", "a result that can exist", e))?;
        crate::with_element!(self.dtype(), T => {
            let a = self.as_array::<T, IxDyn>()?;
            let a = a.as_standard_layout();
            let flat = a.as_slice().expect("standard layout");
            let mut out: Vec<T> = reserved(OP, "indices", &shape, len)?;
            for &i in ids {
                // In range: `i < n` (checked above), so the row lies inside `flat`.
                out.extend_from_slice(&flat[i as usize * row..(i as usize + 1) * row]);
            }
            Ok(Tensor::from(
                ArrayD::from_shape_vec(IxDyn(&shape), out).expect("the shape's elements"),
            ))
        })
    }

    /// This tensor with the rows of `more` appended (axis 0): the same dtype and row shape.
    ///
    /// ```
    /// use extype_core::Tensor;
    /// let t = Tensor::from(ndarray::array![[1i16, 2]]);
    /// let more = Tensor::from(ndarray::array![[3i16, 4], [5, 6]]);
    /// assert_eq!(t.append_rows(&more).unwrap().shape(), &[3, 2]);
    /// ```
    pub fn append_rows(&self, more: &Tensor) -> Result<Tensor> {
        const OP: &str = "append_rows";
        if self.dtype() != more.dtype() || self.shape().get(1..) != more.shape().get(1..) {
            return Err(Error::argument(
                OP,
                "rows",
                format!(
                    "rows of dtype {} and shape {:?}",
                    self.dtype(),
                    self.shape().get(1..)
                ),
                format!("dtype {} shape {:?}", more.dtype(), more.shape()),
            ));
        }
        crate::with_element!(self.dtype(), T => {
            let (a, b) = (self.as_array::<T, IxDyn>()?, more.as_array::<T, IxDyn>()?);
            let joined = ndarray::concatenate(Axis(0), &[a, b])
                .map_err(|e| Error::argument(OP, "rows", "rows that join", e.to_string()))?;
            Ok(Tensor::from(joined))
        })
    }

    /// This tensor broadcast to `shape` (NumPy's rules): a new tensor, or this one when it has
    /// that shape already.
    ///
    /// ```
    /// use extype_core::Tensor;
    /// let t = Tensor::from(ndarray::arr0(7i32).into_dyn());
    /// assert_eq!(t.broadcast_to(&[2]).unwrap(), Tensor::from(ndarray::array![7i32, 7]));
    /// assert!(Tensor::from(ndarray::array![1i32, 2]).broadcast_to(&[3]).is_err());
    /// ```
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Tensor> {
        const OP: &str = "broadcast_to";
        if self.shape() == shape {
            return Ok(self.clone());
        }
        crate::with_element!(self.dtype(), T => {
            let a = self.as_array::<T, IxDyn>()?;
            let Some(b) = a.broadcast(IxDyn(shape)) else {
                return Err(Error::argument(
                    OP,
                    "tensor",
                    format!("a tensor that broadcasts to {shape:?}"),
                    format!("shape {:?}", self.shape()),
                ));
            };
            // A shape from an op's arguments: its size is checked, then allocated fallibly.
            let (len, _) = checked_sizes(self.dtype(), shape)
                .map_err(|e| Error::argument(OP, "shape", "a result that can exist", e))?;
            let mut out: Vec<T> = reserved(OP, "shape", shape, len)?;
            out.extend(b.iter().copied());
            Ok(Tensor::from(
                ArrayD::from_shape_vec(IxDyn(shape), out).expect("the shape's elements"),
            ))
        })
    }
}
