//! Ragged tensors as nested lists and back (TF's `tf.ragged.constant` and `to_list`):
//! [`Nested`], [`RaggedTensor::from_nested`], [`RaggedTensor::to_list`] and the
//! [`ragged!`](crate::ragged!) macro.

use super::{RaggedTensor, arg_error, i64_tensor, splits_of};
use crate::ndarray::{ArrayViewD, IxDyn};
use crate::{Element, Result, Tensor};

/// A nested list of scalars (TF's nested Python lists of `tf.ragged.constant` and
/// `RaggedTensor.to_list()`): a scalar, or a list of nested values.
///
/// ```
/// use extype::types::{Nested, RaggedTensor};
///
/// let list = Nested::List(vec![
///     Nested::List(vec![Nested::Leaf(1i64), Nested::Leaf(2)]),
///     Nested::List(vec![]),
/// ]);
/// let r = RaggedTensor::from_nested(&list)?;
/// assert_eq!(r.to_string(), "i64[2, ?] [[1, 2], []]");
/// assert_eq!(r.to_list::<i64>()?, list);
/// # Ok::<(), extype::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Nested<T> {
    /// A scalar.
    Leaf(T),
    /// A list of nested values.
    List(Vec<Nested<T>>),
}

impl<T> Nested<T> {
    /// The scalar, if this is one.
    pub fn as_leaf(&self) -> Option<&T> {
        match self {
            Nested::Leaf(x) => Some(x),
            Nested::List(_) => None,
        }
    }

    /// The items, if this is a list.
    pub fn as_list(&self) -> Option<&[Nested<T>]> {
        match self {
            Nested::List(items) => Some(items),
            Nested::Leaf(_) => None,
        }
    }
}

/// A scalar of [`ragged!`](crate::ragged!): what the macro wraps each leaf in (an [`Element`]).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`ragged!`: `{Self}` is not a scalar element of a ragged tensor",
    label = "expected a scalar (bool, integer or float) here",
    note = "every scalar of `ragged!` must sit at the same nesting depth: a list where the \
            others have a scalar means the nesting depths differ"
)]
pub trait RaggedLeaf {
    /// The element type (`Self`). An associated type, so that a leaf that is no element is
    /// reported by this trait's message, before its type is compared with the other leaves'.
    type Elem;
    /// `Nested::Leaf(self)`.
    fn into_leaf(self) -> Nested<Self::Elem>;
}

impl<T: Element> RaggedLeaf for T {
    type Elem = T;
    fn into_leaf(self) -> Nested<T> {
        Nested::Leaf(self)
    }
}

/// A ragged tensor from nested lists (TF's `tf.ragged.constant`), each list in square
/// brackets, nesting to any depth: the ragged rank is the nesting depth − 1, every dimension
/// but the outermost is ragged, and the dtype is the scalars' Rust type. Evaluates to
/// `Result<RaggedTensor>` ([`RaggedTensor::from_nested`]): an error when the scalars do not
/// all sit at the same depth, or when the depth is below 2. A list in the place of a scalar
/// among scalars (`[1, [2]]`) is a compile error saying so.
///
/// ```
/// use extype::ragged;
///
/// let r = ragged![[1.0f32, 2.0], [], [3.0]]?;
/// assert_eq!(r.to_string(), "f32[3, ?] [[1.0, 2.0], [], [3.0]]");
/// let r3 = ragged![[[1, 2], [3]], [[-4]]]?;
/// assert_eq!(r3.ragged_rank(), 2);
/// assert_eq!(r3.to_string(), "i32[2, ?, ?] [[[1, 2], [3]], [[-4]]]");
/// // Scalars at different depths are an error, as in TF.
/// let e = ragged![[1, 2], [[3]]].unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "from_nested: list: expected every scalar at the same nesting depth (2, as the first \
///      at [0, 0]), found a list at [1, 0] (depth 2)"
/// );
/// # Ok::<(), extype::Error>(())
/// ```
#[macro_export]
macro_rules! ragged {
    ($($rows:tt)*) => {
        $crate::types::RaggedTensor::from_nested(
            &$crate::types::Nested::List($crate::__ragged_items!($($rows)*))
        )
    };
}

/// The items of one list of [`ragged!`]: all lists, or all scalars.
#[doc(hidden)]
#[macro_export]
macro_rules! __ragged_items {
    () => {
        ::std::vec::Vec::new()
    };
    ($([$($list:tt)*]),+ $(,)?) => {
        ::std::vec![$($crate::types::Nested::List($crate::__ragged_items!($($list)*))),+]
    };
    ($($leaf:expr),+ $(,)?) => {
        ::std::vec![$($crate::types::ragged::RaggedLeaf::into_leaf($leaf)),+]
    };
}

/// The position of an item (`[1, 0]`) for errors.
fn at(path: &[usize]) -> String {
    format!("{path:?}")
}

/// The depth of the scalars, and the deepest list, below `node` (at `path`, `depth` lists
/// deep): an error at the first scalar or list not at the depth of the first scalar.
fn check_depth<T>(
    node: &Nested<T>,
    depth: usize,
    path: &mut Vec<usize>,
    first: &mut Option<(usize, Vec<usize>)>,
    deepest: &mut usize,
) -> Result<()> {
    let mismatch = |what: &str, first: &(usize, Vec<usize>), path: &[usize]| {
        arg_error(
            "from_nested",
            "list",
            format!(
                "every scalar at the same nesting depth ({}, as the first at {})",
                first.0,
                at(&first.1)
            ),
            format!("{what} at {} (depth {depth})", at(path)),
        )
    };
    match node {
        Nested::Leaf(_) => match first {
            None => {
                if *deepest >= depth {
                    // A list as deep as this scalar was seen before it.
                    return Err(arg_error(
                        "from_nested",
                        "list",
                        format!(
                            "every scalar deeper than every list (lists reach depth {deepest})"
                        ),
                        format!("a scalar at {} (depth {depth})", at(path)),
                    ));
                }
                *first = Some((depth, path.clone()));
            }
            Some(f) if f.0 != depth => return Err(mismatch("a scalar", f, path)),
            Some(_) => {}
        },
        Nested::List(items) => {
            if let Some(f) = first
                && depth >= f.0
            {
                return Err(mismatch("a list", f, path));
            }
            *deepest = (*deepest).max(depth);
            for (i, item) in items.iter().enumerate() {
                path.push(i);
                check_depth(item, depth + 1, path, first, deepest)?;
                path.pop();
            }
        }
    }
    Ok(())
}

impl RaggedTensor {
    /// A ragged tensor from nested lists (TF's `tf.ragged.constant(pylist)`): `list` is a list
    /// of rows; the ragged rank is the depth of its scalars − 1 (every dimension but the
    /// outermost is ragged; with no scalar at all, the depth of the deepest list), the values
    /// are the scalars in order; an empty list is a tensor of no rows and ragged rank 1.
    /// Errors (as TF raises): scalars at different depths, a list as deep as a scalar, scalars
    /// at depth 1 (a ragged tensor has rank at least 2; build a dense tensor instead).
    /// [`ragged!`](crate::ragged!) writes the lists for you.
    ///
    /// ```
    /// use extype::types::{Nested, RaggedTensor};
    /// let rows = Nested::List(vec![Nested::List(vec![]), Nested::List(vec![])]);
    /// let r = RaggedTensor::from_nested::<f32>(&rows)?;
    /// assert_eq!(r.to_string(), "f32[2, ?] [[], []]");
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn from_nested<T: Element>(list: &Nested<T>) -> Result<RaggedTensor> {
        const OP: &str = "from_nested";
        let Nested::List(rows) = list else {
            return Err(arg_error(OP, "list", "a list of rows", "a scalar"));
        };
        let (mut first, mut deepest) = (None, 0);
        check_depth(list, 0, &mut Vec::new(), &mut first, &mut deepest)?;
        // Lists are `depth` deep from the root's rows to the scalars; with no scalar, one level
        // below the deepest list, and at least 2 (an empty list is a tensor of no rows).
        let depth = match &first {
            Some((d, _)) => *d,
            None => (deepest + 1).max(2),
        };
        if depth < 2 {
            return Err(arg_error(
                OP,
                "list",
                "nested lists at least 2 deep (rows of scalars: a ragged tensor has rank at least \
                 2)",
                "scalars at depth 1 (a dense vector)",
            ));
        }
        let mut nested = Vec::with_capacity(depth - 1);
        let mut current: Vec<&Nested<T>> = rows.iter().collect();
        for _ in 0..depth - 1 {
            let mut splits = Vec::with_capacity(current.len() + 1);
            splits.push(0i64);
            let mut next = Vec::new();
            for node in current {
                // Checked above: every node above the scalars' depth is a list.
                if let Nested::List(items) = node {
                    next.extend(items.iter());
                }
                splits.push(next.len() as i64);
            }
            nested.push(i64_tensor(splits));
            current = next;
        }
        let values: Vec<T> = current
            .iter()
            .filter_map(|n| n.as_leaf().copied())
            .collect();
        let flat = Tensor::from(crate::ndarray::Array1::from(values).into_dyn());
        let uniform = vec![None; nested.len()];
        Ok(RaggedTensor::from_parts_unchecked(flat, nested, uniform))
    }

    /// The tensor as nested lists of its scalars (TF's `to_list()`): a list of rows, each
    /// ragged and inner dimension one more level of lists. `T` must be the values' dtype, else
    /// an error naming both.
    ///
    /// ```
    /// use extype::types::Nested::{Leaf, List};
    /// let r = extype::ragged![[1u8, 2], [], [3]]?;
    /// assert_eq!(
    ///     r.to_list::<u8>()?,
    ///     List(vec![List(vec![Leaf(1), Leaf(2)]), List(vec![]), List(vec![Leaf(3)])])
    /// );
    /// assert!(r.to_list::<f32>().is_err());
    /// # Ok::<(), extype::Error>(())
    /// ```
    pub fn to_list<T: Element>(&self) -> Result<Nested<T>> {
        if T::DTYPE != self.dtype() {
            return Err(arg_error(
                "to_list",
                "T",
                format!("the tensor's dtype {}", self.dtype()),
                T::DTYPE.to_string(),
            ));
        }
        let flat = self.flat_values.as_array::<T, IxDyn>()?;
        let mut items: Vec<Nested<T>> = flat.outer_iter().map(dense_nested).collect();
        for splits in self.nested_row_splits.iter().rev() {
            let s = splits_of(splits);
            let mut it = items.into_iter();
            items = s
                .windows(2)
                // Checked splits: non-decreasing.
                .map(|w| Nested::List(it.by_ref().take((w[1] - w[0]) as usize).collect()))
                .collect();
        }
        Ok(Nested::List(items))
    }
}

/// A dense view as nested lists (a scalar for rank 0).
fn dense_nested<T: Element>(view: ArrayViewD<'_, T>) -> Nested<T> {
    if view.ndim() == 0 {
        match view.iter().next() {
            Some(x) => Nested::Leaf(*x),
            None => Nested::List(Vec::new()),
        }
    } else {
        Nested::List(view.outer_iter().map(dense_nested).collect())
    }
}
