//! Reading Parquet files: whole ([`read_parquet`]: every row group and column decoded in
//! parallel, one record batch) or a row group at a time ([`ParquetFile`], for readers that
//! stream, such as a query engine's scan). Both check the file once before decoding, decode
//! nested lists of numbers straight from their pages where stored plainly, validate what
//! they decode and zero the elements under nulls.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, BooleanArray, FixedSizeListArray, RecordBatch, RecordBatchOptions,
    RecordBatchReader, StructArray, make_array,
};
use arrow_buffer::Buffer;
use arrow_data::ArrayData;
use arrow_schema::{DataType, Field, SchemaRef};
use extype_core::io::FileKind;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ParquetRecordBatchReaderBuilder};
use parquet::errors::ParquetError;

use crate::error::{Error, Result, arrow, parquet};
use crate::files::{open, prefix, refuse_other_kind};
use crate::metadata::VALIDITY;
use crate::parquet_columns::{leaf_count, read_lists};
use crate::validate::{ReadLimit, contain, validate_batch};

/// A Parquet file opened for reading a row group at a time, with the Arrow schema it stores
/// (the extension metadata of its fields kept).
///
/// Opening reads and checks the footer and every page header as [`read_parquet`] does (a
/// file is untrusted: offsets, sizes and row counts within the file and the [`ReadLimit`]);
/// [`ParquetFile::read_row_group`] then decodes one row group of the columns asked for. A
/// column of nested lists of numbers stored plainly (a ragged column as
/// [`write_parquet`](crate::write_parquet) writes it) decodes straight from its pages, the
/// others with arrow-rs's reader; each batch is validated, and elements under nulls are zero,
/// as [`read_parquet`] gives them.
///
/// ```
/// use extype_arrow::{ParquetFile, to_record_batch, write_parquet};
/// use extype_core::{Tensor, Value};
/// # let dir = std::env::temp_dir().join(format!("extype-doc-pf-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("x.parquet");
/// let x = Tensor::from(ndarray::array![[1.0f32, 2.0], [3.0, 4.0]].into_dyn());
/// write_parquet(&path, &[to_record_batch(&[("x", &Value::Tensor(x))])?])?;
/// let file = ParquetFile::open(&path)?;
/// assert_eq!(file.num_row_groups(), 1);
/// let batch = file.read_row_group(0, &[0])?;
/// assert_eq!(batch.num_rows(), 2);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
#[derive(Debug, Clone)]
pub struct ParquetFile {
    path: PathBuf,
    at: String,
    meta: ArrowReaderMetadata,
    /// The first Parquet leaf of each top-level column.
    first_leaf: Vec<usize>,
}

impl ParquetFile {
    /// Opens the Parquet file at `path` with the default [`ReadLimit`]. Errors name the file:
    /// a missing file, one that is not Parquet (saying what it is), a footer, schema or page
    /// header that does not check.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Self::open_with_limit(path, ReadLimit::default())
    }

    /// [`ParquetFile::open`] with a reading bound of its own (see
    /// [`read_parquet_with_limit`]).
    pub fn open_with_limit(path: impl AsRef<Path>, limit: ReadLimit) -> Result<Self> {
        let path = path.as_ref();
        let at = path.display().to_string();
        let file = open(path)?;
        refuse_other_kind(&prefix(&file, &at)?, FileKind::Parquet, &at)?;
        let file_len = file
            .metadata()
            .map_err(|source| Error::File {
                path: at.clone(),
                source,
            })?
            .len();
        let meta = crate::parquet_check::load(&file, file_len, &at, &limit)?;
        let mut first_leaf = Vec::new();
        let mut next = 0;
        for field in meta.schema().fields() {
            first_leaf.push(next);
            next += leaf_count(field.data_type());
        }
        Ok(ParquetFile {
            path: path.to_path_buf(),
            at,
            meta,
            first_leaf,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The Arrow schema the file stores, field metadata included.
    pub fn schema(&self) -> SchemaRef {
        self.meta.schema().clone()
    }

    /// The number of row groups.
    pub fn num_row_groups(&self) -> usize {
        self.meta.metadata().num_row_groups()
    }

    /// The rows of row group `group` (0 for a group the file does not have).
    pub fn row_group_rows(&self, group: usize) -> usize {
        self.meta
            .metadata()
            .row_groups()
            .get(group)
            .map_or(0, |g| usize::try_from(g.num_rows()).unwrap_or(0))
    }

    /// The rows of the whole file.
    pub fn num_rows(&self) -> usize {
        (0..self.num_row_groups())
            .map(|g| self.row_group_rows(g))
            .sum()
    }

    /// Row group `group` of the top-level columns `columns` (indices into
    /// [`ParquetFile::schema`], in the order wanted; none gives a batch of the group's rows and
    /// no column) as one record batch of the projected schema. Errors name the file, and the
    /// group or column asked for when the file has no such one.
    pub fn read_row_group(&self, group: usize, columns: &[usize]) -> Result<RecordBatch> {
        let schema = self.schema();
        let at = format!("{}: row group {group}", self.at);
        if group >= self.num_row_groups() {
            return Err(crate::validate::malformed(
                &self.at,
                format!(
                    "expected a row group below {}, found row group {group}",
                    self.num_row_groups()
                ),
            ));
        }
        if let Some(&c) = columns.iter().find(|&&c| c >= schema.fields().len()) {
            return Err(crate::validate::malformed(
                &self.at,
                format!(
                    "expected a column below {}, found column {c}",
                    schema.fields().len()
                ),
            ));
        }
        let projected = std::sync::Arc::new(schema.project(columns).map_err(arrow(&at))?);
        let rows = self.row_group_rows(group);
        let batch = contain(&at, "parquet's column decoders", || {
            self.decode(group, columns, rows, &at)
        })?;
        let batch = RecordBatch::try_new_with_options(
            projected,
            batch,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )
        .map_err(arrow(&at))?;
        if columns.is_empty() {
            return Ok(batch);
        }
        validate_batch(&at, &batch)?;
        zero_under_nulls(&batch, &at)
    }

    /// The arrays of `columns` in row group `group` (of `rows` rows), in that order.
    fn decode(
        &self,
        group: usize,
        columns: &[usize],
        rows: usize,
        at: &str,
    ) -> Result<Vec<ArrayRef>> {
        let schema = self.schema();
        let opener = || File::open(&self.path).map_err(|e| ParquetError::External(Box::new(e)));
        let mut arrays: Vec<Option<ArrayRef>> = vec![None; columns.len()];
        // Nested lists of numbers, one leaf each, straight from their pages where stored so.
        for (slot, &c) in arrays.iter_mut().zip(columns) {
            if leaf_count(schema.field(c).data_type()) == 1 {
                *slot = read_lists(
                    &opener,
                    &self.meta,
                    group,
                    self.first_leaf[c],
                    schema.field(c).data_type(),
                )
                .map_err(parquet(at))?;
            }
        }
        // The rest with one arrow-rs reader of their roots (which returns them in file order).
        let mut rest: Vec<usize> = columns
            .iter()
            .zip(&arrays)
            .filter(|(_, a)| a.is_none())
            .map(|(&c, _)| c)
            .collect();
        rest.sort_unstable();
        rest.dedup();
        if !rest.is_empty() {
            let mask = ProjectionMask::roots(
                self.meta.metadata().file_metadata().schema_descr(),
                rest.iter().copied(),
            );
            let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(
                open(&self.path)?,
                self.meta.clone(),
            )
            .with_projection(mask)
            .with_row_groups(vec![group])
            .with_batch_size(rows.max(1))
            .build()
            .map_err(parquet(at))?;
            let batches = reader
                .map(|b| b.map_err(arrow(at)))
                .collect::<Result<Vec<_>>>()?;
            let read_schema = std::sync::Arc::new(schema.project(&rest).map_err(arrow(at))?);
            let batch = match batches.as_slice() {
                [one] => one.clone(),
                _ => arrow_select::concat::concat_batches(&read_schema, &batches)
                    .map_err(arrow(at))?,
            };
            for (slot, &c) in arrays.iter_mut().zip(columns) {
                if slot.is_none() {
                    // `rest` is sorted and holds `c`.
                    let k = rest.partition_point(|&r| r < c);
                    *slot = Some(batch.column(k).clone());
                }
            }
        }
        Ok(arrays.into_iter().flatten().collect())
    }
}

/// Reads every record batch of a Parquet file, with the Arrow schema it stores (so the
/// extension metadata comes back): one record batch of all its rows (none without rows). The
/// children of struct columns and the row groups are decoded in parallel (a reader per child's
/// leaf columns in each row group, one thread per core at most) and the columns rebuilt from
/// them.
///
/// The metadata is checked before anything is decoded (row counts, every column chunk within
/// the file, every page header, the stored Arrow schema, the rows and pages within the reading
/// bound), the decoders' panics are contained, and the decoded arrays validated in full: a
/// malformed file is an error naming it.
pub fn read_parquet(path: impl AsRef<Path>) -> Result<Vec<RecordBatch>> {
    read_parquet_with_limit(path, ReadLimit::default())
}

/// [`read_parquet`] with a reading bound of its own: a file of highly repetitive data (a
/// constant column, dictionary and run-length encoded) decodes to far more than the default
/// [`ReadLimit`] allows for its size, and reads with a larger one.
///
/// ```no_run
/// use extype_arrow::{ReadLimit, read_parquet_with_limit};
/// let batches = read_parquet_with_limit("constant.parquet", ReadLimit::bytes(8 << 30))?;
/// # Ok::<(), extype_arrow::Error>(())
/// ```
pub fn read_parquet_with_limit(
    path: impl AsRef<Path>,
    limit: ReadLimit,
) -> Result<Vec<RecordBatch>> {
    let file = ParquetFile::open_with_limit(path, limit)?;
    let at = &file.at;
    let batches = contain(at, "parquet's column decoders", || {
        read_checked(open(&file.path)?, file.meta.clone(), &file.path, at)
    })?;
    for b in &batches {
        validate_batch(at, b)?;
    }
    batches.iter().map(|b| zero_under_nulls(b, at)).collect()
}

/// `batch` with the elements under the null slots of every validity bitmap ([`VALIDITY`])
/// set to zero (`false`): Parquet stores no value for a null element, and the decoder leaves
/// whatever its buffer held there; zero makes a read deterministic. One copy of such an array,
/// none of the others.
fn zero_under_nulls(batch: &RecordBatch, at: &str) -> Result<RecordBatch> {
    fn walk(field: &Field, array: &ArrayRef, at: &str) -> Result<ArrayRef> {
        if let (DataType::Struct(children), Some(s)) = (
            field.data_type(),
            array.as_any().downcast_ref::<StructArray>(),
        ) {
            let columns = children
                .iter()
                .zip(s.columns())
                .map(|(f, a)| walk(f, a, at))
                .collect::<Result<Vec<_>>>()?;
            let rebuilt = StructArray::try_new(children.clone(), columns, s.nulls().cloned())
                .map_err(arrow(at))?;
            return Ok(Arc::new(rebuilt));
        }
        if !field.metadata().contains_key(VALIDITY) {
            return Ok(array.clone());
        }
        match (
            field.data_type(),
            array.as_any().downcast_ref::<FixedSizeListArray>(),
        ) {
            (DataType::FixedSizeList(item, size), Some(list)) => {
                let values = zeroed(list.values(), at)?;
                // With the length: lists of size 0 do not tell it.
                let rebuilt = FixedSizeListArray::try_new_with_length(
                    item.clone(),
                    *size,
                    values,
                    list.nulls().cloned(),
                    list.len(),
                )
                .map_err(arrow(at))?;
                Ok(Arc::new(rebuilt))
            }
            _ => zeroed(array, at),
        }
    }
    let schema = batch.schema();
    let columns = schema
        .fields()
        .iter()
        .zip(batch.columns())
        .map(|(f, a)| walk(f, a, at))
        .collect::<Result<Vec<_>>>()?;
    RecordBatch::try_new(schema, columns).map_err(arrow(at))
}

/// `array` (numbers or booleans) with its null elements zero, copied; as it is without nulls.
fn zeroed(array: &ArrayRef, at: &str) -> Result<ArrayRef> {
    let Some(nulls) = array.nulls().filter(|n| n.null_count() > 0) else {
        return Ok(array.clone());
    };
    if let Some(bools) = array.as_any().downcast_ref::<BooleanArray>() {
        let kept = bools.values() & nulls.inner();
        return Ok(Arc::new(BooleanArray::new(kept, Some(nulls.clone()))));
    }
    let data = array.to_data();
    let Some(width) = data.data_type().primitive_width() else {
        return Ok(array.clone());
    };
    let (start, len) = (data.offset() * width, data.len() * width);
    let Some(bytes) = data
        .buffers()
        .first()
        .and_then(|b| b.as_slice().get(start..start + len))
    else {
        return Err(Error::Malformed {
            path: at.to_string(),
            message: format!(
                "a {} array whose values lie outside its buffer",
                data.data_type()
            ),
        });
    };
    let mut bytes = bytes.to_vec();
    for (i, valid) in nulls.iter().enumerate() {
        if !valid {
            bytes[i * width..(i + 1) * width].fill(0);
        }
    }
    let rebuilt = ArrayData::builder(data.data_type().clone())
        .len(data.len())
        .add_buffer(Buffer::from_vec(bytes))
        .nulls(Some(nulls.clone()))
        .build()
        .map_err(arrow(at))?;
    Ok(make_array(rebuilt))
}

/// [`read_parquet`] of a file whose metadata `meta` is checked.
fn read_checked(
    file: File,
    meta: ArrowReaderMetadata,
    path: &Path,
    at: &str,
) -> Result<Vec<RecordBatch>> {
    // Each struct child's leaf columns of each row group decoded on a thread of their own (one
    // projection each), the columns rebuilt from the pieces: the batch a single reader would
    // return.
    if let Some(batch) = crate::parquet_columns::read(crate::parquet_columns::cores(), &meta, path)
        .map_err(parquet(at))?
    {
        return Ok(vec![batch]);
    }
    // One record batch for the whole file (the reader's default is 1024 rows): a batch of
    // extension values comes back as written, not in pieces. Decoded in pieces and concatenated,
    // which is faster than one huge batch (`parquet_columns::CHUNK_VALUES`).
    let groups: Vec<usize> = (0..meta.metadata().num_row_groups()).collect();
    let leaves = meta.metadata().file_metadata().schema_descr().num_columns();
    let rows = crate::parquet_columns::batch_rows(&meta, &groups, 0..leaves);
    let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(file, meta)
        .with_batch_size(rows)
        .build()
        .map_err(parquet(at))?;
    let schema = reader.schema();
    let batches = reader
        .map(|b| b.map_err(arrow(at)))
        .collect::<Result<Vec<_>>>()?;
    if batches.len() <= 1 {
        return Ok(batches);
    }
    arrow_select::concat::concat_batches(&schema, &batches)
        .map(|b| vec![b])
        .map_err(arrow(at))
}
