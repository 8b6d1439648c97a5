//! Batchable extension types for the batching tests, example-style, and the benches
//! (`benches/batching.rs` includes this file): a masked tensor with the default encoder, a
//! record with every kind of field, and a ragged tensor with a custom encoder.
#![allow(dead_code)]

use std::collections::BTreeMap;

use extype::batch::{BatchEncoder, concat_rows_counted, slice_rows};
use extype::error::BatchError;
use extype::ndarray::{ArcArray, ArcArray1, ArrayD, IxDyn};
use extype::{Dim, ExtensionType, Shape, Tensor, TensorSpec};

/// Values with a mask of the same shape; the default encoder (both gain a leading axis).
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "test.BatchMasked", validate = check_masked, batchable)]
pub struct Masked {
    /// The values.
    pub values: ArrayD<f32>,
    /// `true` where a value is present.
    pub mask: ArcArray<bool, IxDyn>,
}

/// Values and mask have one shape.
pub fn check_masked(m: &Masked) -> extype::Result<()> {
    if m.values.shape() == m.mask.shape() {
        Ok(())
    } else {
        Err(extype::Error::invalid(format!(
            "values shape {:?} differs from mask shape {:?}",
            m.values.shape(),
            m.mask.shape()
        )))
    }
}

impl Masked {
    /// A masked vector: `values` with the mask `v >= 0`.
    pub fn new(values: Vec<f32>) -> Masked {
        let mask: Vec<bool> = values.iter().map(|v| *v >= 0.0).collect();
        Masked {
            values: ArrayD::from_shape_vec(IxDyn(&[values.len()]), values).unwrap(),
            mask: ArcArray::from_shape_vec(IxDyn(&[mask.len()]), mask).unwrap(),
        }
    }
}

impl Masked {
    /// The sum of the present values, as a rank-0 tensor (what the tests and the example map
    /// over a batch).
    pub fn present_sum(&self) -> Tensor {
        let s: f32 = (self.values.iter().zip(self.mask.iter()))
            .filter(|(_, k)| **k)
            .map(|(v, _)| v)
            .sum();
        Tensor::from(extype::ndarray::arr0(s))
    }
}

/// A masked tensor with shared (`Tensor`) fields: unstacking a batch of it copies nothing.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "test.BatchSharedMasked", batchable)]
pub struct SharedMasked {
    /// The values.
    pub values: Tensor,
    /// `true` where a value is present.
    pub mask: Tensor,
}

impl SharedMasked {
    /// A masked vector: `values` with the mask `v >= 0`.
    pub fn new(values: Vec<f32>) -> SharedMasked {
        let mask: Vec<bool> = values.iter().map(|v| *v >= 0.0).collect();
        SharedMasked {
            values: Tensor::from(extype::ndarray::Array1::from(values)),
            mask: Tensor::from(extype::ndarray::Array1::from(mask)),
        }
    }
}

/// A record with a field of every kind the default encoder handles.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "test.BatchRecord", batchable)]
pub struct Record {
    /// A nested batchable type.
    pub inner: Masked,
    /// A static shape: gains the batch dimension.
    pub frame: Shape,
    /// A static label: equal across a batch.
    pub label: String,
    /// All `Some` or all `None`.
    pub weight: Option<Tensor>,
    /// One length across a batch.
    pub parts: Vec<Tensor>,
    /// One key set across a batch.
    pub attrs: BTreeMap<String, Tensor>,
    /// A tuple.
    pub pair: (Tensor, i32),
}

/// A ragged tensor: `values` holds the flat values (rows on axis 0); `row_splits[0]` splits the
/// outermost dimension into rows, `row_splits[k + 1]` splits the rows of level `k`. With no
/// row splits it is a plain (dense) tensor: one ragged *row*. Batched with [`RaggedEncoder`]:
/// a batch of ragged tensors of ragged rank `r` is one ragged tensor of ragged rank `r + 1`.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "test.BatchRagged", validate = check_ragged, batchable = RaggedEncoder)]
pub struct Ragged {
    /// The flat values.
    pub values: Tensor,
    /// Row boundaries, outermost first; each starts at 0, never decreases and ends at the
    /// number of rows of the next level (the values' leading axis for the last).
    pub row_splits: Vec<ArcArray1<i64>>,
}

/// Each level of row splits starts at 0, never decreases, and ends at the next level's rows.
pub fn check_ragged(r: &Ragged) -> extype::Result<()> {
    for (k, splits) in r.row_splits.iter().enumerate() {
        let next_rows = match r.row_splits.get(k + 1) {
            Some(next) => next.len().saturating_sub(1),
            None => r.values.shape().first().copied().unwrap_or(0),
        };
        if splits.first() != Some(&0) || splits.windows(2).into_iter().any(|w| w[0] > w[1]) {
            return Err(extype::Error::invalid(format!(
                "row_splits[{k}] must start at 0 and never decrease"
            )));
        }
        if splits.last().map(|&l| l as usize) != Some(next_rows) {
            return Err(extype::Error::invalid(format!(
                "row_splits[{k}] ends at {:?} but the next level has {next_rows} rows",
                splits.last()
            )));
        }
    }
    Ok(())
}

impl Ragged {
    /// One ragged row (ragged rank 0) of f32 values.
    pub fn row(values: Vec<f32>) -> Ragged {
        Ragged {
            values: Tensor::from(extype::ndarray::Array1::from(values)),
            row_splits: Vec::new(),
        }
    }

    /// The number of rows at the outermost level (the values' rows at ragged rank 0).
    pub fn nrows(&self) -> usize {
        match self.row_splits.first() {
            Some(s) => s.len() - 1,
            None => self.values.shape().first().copied().unwrap_or(0),
        }
    }
}

/// The custom encoder of [`Ragged`]: stacking concatenates the values and every level of row
/// splits (shifted) and puts a new outermost level in front; unstacking slices back (the values
/// of each item view the batch's buffer).
pub struct RaggedEncoder;

fn unknown_rows(spec: &TensorSpec) -> TensorSpec {
    match spec.shape.dims() {
        Some([_, rest @ ..]) => TensorSpec::new(
            Shape::from_dims(std::iter::once(Dim::Unknown).chain(rest.iter().copied())),
            spec.dtype,
        ),
        _ => spec.clone(),
    }
}

fn no_ragged_axis() -> extype::Error {
    BatchError::NoBatchAxis {
        op: "unstack",
        path: "row_splits".into(),
        found: "no row splits (ragged rank 0)".into(),
    }
    .into()
}

impl BatchEncoder<Ragged> for RaggedEncoder {
    fn batched_spec(spec: &RaggedSpec, n: Option<usize>) -> RaggedSpec {
        let outer = Shape::from_dims([n.map_or(Dim::Unknown, |n| Dim::Known(n + 1))]);
        let mut row_splits = vec![TensorSpec::new(outer, extype::DType::I64)];
        row_splits.extend(spec.row_splits.iter().map(unknown_rows));
        RaggedSpec {
            values: unknown_rows(&spec.values),
            row_splits,
        }
    }

    fn unbatched_spec(spec: &RaggedSpec) -> extype::Result<RaggedSpec> {
        if spec.row_splits.is_empty() {
            return Err(no_ragged_axis());
        }
        Ok(RaggedSpec {
            values: unknown_rows(&spec.values),
            row_splits: spec.row_splits[1..].iter().map(unknown_rows).collect(),
        })
    }

    fn batch_len(batch: &Ragged) -> extype::Result<usize> {
        match batch.row_splits.first() {
            Some(s) => Ok(s.len() - 1),
            None => Err(no_ragged_axis()),
        }
    }

    fn stack(items: &[&Ragged]) -> extype::Result<Ragged> {
        let rank = items.first().map_or(0, |r| r.row_splits.len());
        // Level 0 of the batch: where each item starts; level k + 1: the items' level k, shifted.
        let mut levels: Vec<Vec<i64>> = vec![Vec::with_capacity(items.len() + 1); rank + 1];
        let mut offsets = vec![0i64; rank + 1];
        for level in &mut levels {
            level.push(0);
        }
        let mut values: Vec<&Tensor> = Vec::with_capacity(items.len());
        for (i, r) in items.iter().enumerate() {
            if r.row_splits.len() != rank {
                return Err(BatchError::Structure {
                    op: "stack",
                    path: "row_splits".into(),
                    index: i,
                    first: format!("ragged rank {rank}"),
                    found: format!("ragged rank {}", r.row_splits.len()),
                    rule: "ragged tensors stack only with ragged tensors of the same ragged rank",
                }
                .into());
            }
            offsets[0] += r.nrows() as i64;
            levels[0].push(offsets[0]);
            for (k, splits) in r.row_splits.iter().enumerate() {
                let base = offsets[k + 1];
                levels[k + 1].extend(splits.iter().skip(1).map(|s| s + base));
                offsets[k + 1] = base + splits.last().copied().unwrap_or(0);
            }
            values.push(&r.values);
        }
        // The values hold as many rows as the innermost level of row splits counts (an item
        // whose splits do not count its values makes this an error).
        let rows = usize::try_from(offsets[rank]).unwrap_or(usize::MAX);
        Ok(Ragged {
            values: concat_rows_counted(&values, rows, "values")?,
            row_splits: levels.into_iter().map(ArcArray1::from).collect(),
        })
    }

    fn unstack(batch: Ragged) -> extype::Result<Vec<Ragged>> {
        let Some(outer) = batch.row_splits.first() else {
            return Err(no_ragged_axis());
        };
        let n = outer.len() - 1;
        let mut items = Vec::with_capacity(n);
        for i in 0..n {
            // The range of rows at each level below, rebased to start at 0.
            let (mut start, mut end) = (outer[i] as usize, outer[i + 1] as usize);
            let mut row_splits = Vec::with_capacity(batch.row_splits.len() - 1);
            for splits in &batch.row_splits[1..] {
                let part = splits.slice(extype::ndarray::s![start..=end]);
                let base = part[0];
                row_splits.push(part.mapv(|s| s - base).into_shared());
                (start, end) = (splits[start] as usize, splits[end] as usize);
            }
            items.push(Ragged {
                values: slice_rows(&batch.values, start, end)?,
                row_splits,
            });
        }
        Ok(items)
    }
}
