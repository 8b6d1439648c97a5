//! `ops::shape` of a [`RaggedTensor`]: a [`RaggedShape`] (TF's `tf.shape(rt)`, a
//! `DynamicRaggedShape`), whose static shape is TF's `rt.shape` (`[nrows, None, …]`).

use std::fmt;

use super::{RaggedTensor, arg_error, i64_tensor, splits_of};
use crate::dispatch;
use crate::dispatch::Call;
use crate::{DType, Dim, ExtensionType, Result, Shape, Tensor, TensorLike, TensorSpec, ValueSpec};

/// The shape of a ragged tensor, what `ops::shape` returns for one (TF's `tf.shape(rt)`, a
/// `tf.experimental.DynamicRaggedShape`): the row lengths of each ragged dimension and the
/// shape of the flat values (TF's `inner_shape`). A dense shape (`i64[rank]`) cannot hold a
/// ragged dimension, which has no single size; the bounding shape would state sizes most rows
/// do not have. [`static_shape`](Self::static_shape) is TF's static shape `rt.shape`:
/// `[nrows, ?, …, inner…]`, every ragged dimension unknown (`?`, TF's `None`) unless uniform.
/// Registered as `extype.RaggedShape`.
///
/// ```
/// use extype::types::RaggedShape;
/// use extype::{ops, Tensor};
/// use ndarray::array;
///
/// let r = extype::ragged![[1.0f32, 2.0, 3.0], [], [4.0]]?;
/// let shape: RaggedShape = ops::shape_as(&r)?;
/// assert_eq!(shape.static_shape().to_string(), "[3, ?]");
/// assert_eq!(shape.static_lengths(), [Some(3), None]);
/// assert_eq!(shape.to_string(), "[3, (3, 0, 1)]");
/// assert_eq!(shape.nested_row_lengths()[0], Tensor::from(array![3i64, 0, 1].into_dyn()));
/// # Ok::<(), extype::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "extype.RaggedShape", validate = check_shape)]
pub struct RaggedShape {
    /// The row lengths (`i64`, rank 1) of each ragged dimension, outermost first.
    nested_row_lengths: Vec<Tensor>,
    /// Per ragged dimension, its length when uniform (TF's `uniform_row_length`).
    uniform_row_lengths: Vec<Option<i64>>,
    /// The shape of the flat values (`i64`, rank 1; TF's `inner_shape`).
    inner_shape: Tensor,
}

/// The partition checks of a [`RaggedShape`]: one level's lengths count the rows of the
/// next, the last level's the flat values' rows; lengths non-negative; uniform levels uniform.
fn check_shape(s: &RaggedShape) -> Result<()> {
    const OP: &str = "RaggedShape";
    let i64_vector = |what: &str, t: &Tensor| {
        if t.dtype() != DType::I64 || t.ndim() != 1 {
            return Err(arg_error(
                OP,
                what,
                "an i64 vector",
                format!("{}{:?}", t.dtype(), t.shape()),
            ));
        }
        Ok(splits_of(t).into_owned())
    };
    let inner = i64_vector("inner_shape", &s.inner_shape)?;
    if inner.is_empty() || inner.iter().any(|&d| d < 0) {
        return Err(arg_error(
            OP,
            "inner_shape",
            "the flat values' shape (rank at least 1, sizes non-negative)",
            format!("{inner:?}"),
        ));
    }
    if s.nested_row_lengths.is_empty() || s.uniform_row_lengths.len() != s.nested_row_lengths.len()
    {
        return Err(arg_error(
            OP,
            "nested_row_lengths",
            "at least one ragged dimension, and one uniform length (or none) per ragged dimension",
            format!(
                "{} ragged dimensions, {} uniform lengths",
                s.nested_row_lengths.len(),
                s.uniform_row_lengths.len()
            ),
        ));
    }
    let levels = s.nested_row_lengths.len();
    for (level, (t, uniform)) in s
        .nested_row_lengths
        .iter()
        .zip(&s.uniform_row_lengths)
        .enumerate()
    {
        let what = format!("nested_row_lengths[{level}]");
        let lengths = i64_vector(&what, t)?;
        if let Some(i) = lengths
            .iter()
            .position(|&l| l < 0 || uniform.is_some_and(|u| l != u))
        {
            return Err(arg_error(
                OP,
                &what,
                match uniform {
                    Some(u) => format!("uniform row lengths {u}"),
                    None => "non-negative row lengths".to_string(),
                },
                format!("{what}[{i}] = {}", lengths[i]),
            ));
        }
        let below = match s.nested_row_lengths.get(level + 1) {
            Some(next) => next.len() as i128,
            None => inner[0] as i128,
        };
        let total: i128 = lengths.iter().map(|&l| l as i128).sum();
        if total != below {
            return Err(arg_error(
                OP,
                &what,
                format!(
                    "row lengths summing to the rows below ({below}, {})",
                    if level + 1 < levels {
                        "the length of the next level"
                    } else {
                        "inner_shape[0]"
                    }
                ),
                format!("a sum of {total}"),
            ));
        }
    }
    Ok(())
}

impl RaggedShape {
    /// The number of rows (axis 0).
    pub fn nrows(&self) -> usize {
        self.nested_row_lengths[0].len()
    }

    /// The number of ragged dimensions.
    pub fn ragged_rank(&self) -> usize {
        self.nested_row_lengths.len()
    }

    /// The rank: 1 + the ragged rank + the flat values' inner axes.
    pub fn rank(&self) -> usize {
        self.ragged_rank() + self.inner_shape.len()
    }

    /// The row lengths of each ragged dimension (`i64`, rank 1), outermost first.
    pub fn nested_row_lengths(&self) -> &[Tensor] {
        &self.nested_row_lengths
    }

    /// Per ragged dimension, its length when uniform.
    pub fn uniform_row_lengths(&self) -> &[Option<i64>] {
        &self.uniform_row_lengths
    }

    /// The shape of the flat values (TF's `inner_shape`): their number of rows, then the
    /// uniform inner axes.
    pub fn inner_shape(&self) -> Vec<usize> {
        // Checked non-negative on construction.
        splits_of(&self.inner_shape)
            .iter()
            .map(|&d| d as usize)
            .collect()
    }

    /// The size of each axis, `None` for a ragged one (TF's
    /// `DynamicRaggedShape.static_lengths()`): `[nrows, None, …, inner…]`.
    pub fn static_lengths(&self) -> Vec<Option<usize>> {
        let mut out = vec![Some(self.nrows())];
        // Checked non-negative on construction.
        out.extend(
            self.uniform_row_lengths
                .iter()
                .map(|u| u.map(|l| l as usize)),
        );
        out.extend(self.inner_shape().into_iter().skip(1).map(Some));
        out
    }

    /// The partial shape (TF's static shape `rt.shape`): `[nrows, ?, …, inner…]`, a ragged
    /// dimension unknown unless uniform; the same as `TensorLike::shape` of the ragged tensor.
    pub fn static_shape(&self) -> Shape {
        Shape::from_dims(self.static_lengths().into_iter().map(|d| match d {
            Some(n) => Dim::Known(n),
            None => Dim::Unknown,
        }))
    }
}

/// Each axis's size, a ragged one as its row lengths in parentheses (long lists cut):
/// `[3, (3, 0, 1)]`.
impl fmt::Display for RaggedShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = vec![self.nrows().to_string()];
        for (t, uniform) in self
            .nested_row_lengths
            .iter()
            .zip(&self.uniform_row_lengths)
        {
            parts.push(match uniform {
                Some(u) => u.to_string(),
                None => {
                    let list = super::short_list(&splits_of(t));
                    format!("({})", &list[1..list.len() - 1])
                }
            });
        }
        parts.extend(self.inner_shape().iter().skip(1).map(usize::to_string));
        write!(f, "[{}]", parts.join(", "))
    }
}

impl RaggedTensor {
    /// The shape of this tensor as a value ([`RaggedShape`]; what `ops::shape` returns, TF's
    /// `tf.shape(rt)`). Its static shape is `TensorLike::shape(&self)`.
    pub fn ragged_shape(&self) -> RaggedShape {
        let nested_row_lengths = (0..self.ragged_rank())
            .map(|level| {
                self.nested_row_lengths(level)
                    .unwrap_or_else(|_| i64_tensor(Vec::new()))
            })
            .collect();
        let inner: Vec<i64> = self.flat_values.shape().iter().map(|&d| d as i64).collect();
        RaggedShape {
            nested_row_lengths,
            uniform_row_lengths: self.uniform_row_lengths.clone(),
            inner_shape: i64_tensor(inner),
        }
    }
}

/// `shape` of a ragged tensor (TF's `tf.shape(rt)`): a [`RaggedShape`].
#[dispatch(Shape, infer = infer_shape)]
fn ragged_shape_op(x: &RaggedTensor) -> Result<RaggedShape> {
    Ok(x.ragged_shape())
}

/// The spec of `shape` of a ragged spec: the outer row lengths' length is `nrows`, the inner
/// shape's the flat values' rank.
fn infer_shape(_: &Call<'_>, specs: &[&ValueSpec]) -> Result<Option<ValueSpec>> {
    let Some(x) = specs.first().and_then(|s| super::infer::ragged(s)) else {
        return Ok(None);
    };
    let nrows = TensorLike::shape(x)
        .dims()
        .and_then(|d| d.first().copied())
        .unwrap_or(Dim::Unknown);
    let lengths = |d: Dim| TensorSpec::new(Shape::from_dims([d]), DType::I64);
    let mut nested_row_lengths = vec![lengths(nrows)];
    nested_row_lengths.extend((1..x.ragged_rank()).map(|_| lengths(Dim::Unknown)));
    let inner_rank = match x.flat_values().shape.rank() {
        Some(r) => Dim::Known(r),
        None => Dim::Unknown,
    };
    let spec = RaggedShapeSpec {
        nested_row_lengths,
        uniform_row_lengths: x.uniform_row_lengths.clone(),
        inner_shape: lengths(inner_rank),
    };
    Ok(Some(ValueSpec::Extension(Box::new(spec))))
}
