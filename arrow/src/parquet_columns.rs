//! Parquet leaf columns encoded and decoded in parallel (arrow-rs's `ArrowColumnWriter` and
//! per-leaf `ProjectionMask`s), with the same file layout as `ArrowWriter` and the same
//! batches as one `ParquetRecordBatchReader`.
//!
//! A column splits into *units* through its struct levels only: a struct's children are
//! independent in Parquet (each leaf's levels depend on its own path from the root alone), so
//! each child subtree is written by its own writers and read by its own projection, and the
//! struct is rebuilt from the pieces on read. Lists, maps and the like stay whole (their
//! children share repetition). A batch of `MaskedTensor` items is one struct column of two
//! units, `values` and `mask`, each an `arrow.fixed_shape_tensor` leaf.

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch, StructArray};
use arrow_schema::{DataType, Field, FieldRef, Fields, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use parquet::arrow::arrow_writer::{ArrowColumnChunk, ArrowColumnWriter, compute_leaves};
use parquet::errors::{ParquetError, Result as PResult};
use parquet::file::properties::WriterProperties;

/// The number of Parquet leaf columns `data_type` is stored as (the Arrow writer's mapping).
fn leaf_count(data_type: &DataType) -> usize {
    match data_type {
        DataType::Struct(fields) => fields.iter().map(|f| leaf_count(f.data_type())).sum(),
        DataType::List(c)
        | DataType::LargeList(c)
        | DataType::FixedSizeList(c, _)
        | DataType::ListView(c)
        | DataType::LargeListView(c)
        | DataType::Map(c, _) => leaf_count(c.data_type()),
        DataType::Dictionary(_, v) => leaf_count(v),
        DataType::RunEndEncoded(_, v) => leaf_count(v.data_type()),
        _ => 1,
    }
}

/// One unit of parallel work: the subtree at `path` (a top-level column index, then struct
/// child indices), stored as `leaves` consecutive Parquet leaf columns.
#[derive(Debug, Clone)]
struct Unit {
    path: Vec<usize>,
    leaves: usize,
}

/// The units of `schema`, in leaf order: struct columns split into their children (recursively).
fn units(schema: &SchemaRef) -> Vec<Unit> {
    fn split(field: &Field, path: Vec<usize>, out: &mut Vec<Unit>) {
        match field.data_type() {
            DataType::Struct(children) if children.len() > 1 => {
                for (i, c) in children.iter().enumerate() {
                    let mut p = path.clone();
                    p.push(i);
                    split(c, p, out);
                }
            }
            t => out.push(Unit {
                path,
                leaves: leaf_count(t),
            }),
        }
    }
    let mut out = Vec::new();
    for (i, f) in schema.fields().iter().enumerate() {
        split(f, vec![i], &mut out);
    }
    out
}

/// The column of `batch` at `path`'s first index, pruned to the one struct child named at every
/// further step: the field and array whose Parquet leaves are exactly the unit's, with the same
/// definition and repetition levels as in the whole column (the struct's nulls kept).
fn project(batch: &RecordBatch, path: &[usize]) -> (FieldRef, ArrayRef) {
    fn down(field: &FieldRef, array: &ArrayRef, rest: &[usize]) -> (FieldRef, ArrayRef) {
        let Some((&i, rest)) = rest.split_first() else {
            return (field.clone(), array.clone());
        };
        let (DataType::Struct(children), Some(s)) = (
            field.data_type(),
            array.as_any().downcast_ref::<StructArray>(),
        ) else {
            unreachable!("units split struct columns only")
        };
        let (child_field, child) = down(&children[i], s.column(i), rest);
        let fields = Fields::from(vec![child_field]);
        let pruned = StructArray::new(fields.clone(), vec![child], s.nulls().cloned());
        let field = Arc::new(field.as_ref().clone().with_data_type(DataType::Struct(fields)));
        (field, Arc::new(pruned))
    }
    let schema = batch.schema();
    down(&schema.fields()[path[0]], batch.column(path[0]), &path[1..])
}

/// How many threads to use for `units` units of work.
fn threads(units: usize) -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(units)
        .max(1)
}

/// Runs `work` on every item of `items` on up to [`threads`] scoped threads (contiguous shares),
/// returning the results in order, the first error if any.
fn parallel<T: Send, R: Send>(
    items: Vec<T>,
    work: impl Fn(T) -> PResult<R> + Sync,
) -> PResult<Vec<R>> {
    let n = threads(items.len());
    if n <= 1 {
        return items.into_iter().map(work).collect();
    }
    let share = items.len().div_ceil(n);
    let mut groups: Vec<Vec<T>> = Vec::new();
    let mut items = items.into_iter().peekable();
    while items.peek().is_some() {
        groups.push(items.by_ref().take(share).collect());
    }
    let work = &work;
    let results: Vec<PResult<Vec<R>>> = std::thread::scope(|s| {
        let handles: Vec<_> = groups
            .into_iter()
            .map(|g| s.spawn(move || g.into_iter().map(work).collect::<PResult<Vec<R>>>()))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(ParquetError::General(
                        "a Parquet column encoding thread panicked".into(),
                    ))
                })
            })
            .collect()
    });
    let mut out = Vec::new();
    for r in results {
        out.extend(r?);
    }
    Ok(out)
}

/// Writes `batches` to `out` as `ArrowWriter` would with `props` (the same row groups, pages and
/// metadata), each unit's leaf columns encoded on its own thread. Falls back to `ArrowWriter`
/// itself for a row-group byte limit or content-defined chunking (whose row groups and pages
/// depend on the encoding as it goes).
pub(crate) fn write<W: Write + Send>(
    out: W,
    schema: SchemaRef,
    batches: &[RecordBatch],
    props: WriterProperties,
) -> PResult<W> {
    let sequential = props.max_row_group_bytes().is_some()
        || props.content_defined_chunking().is_some();
    let max_rows = props.max_row_group_row_count().unwrap_or(usize::MAX).max(1);
    let writer = ArrowWriter::try_new(out, schema.clone(), Some(props))?;
    let units = units(&schema);
    if sequential || units.len() < 2 || threads(units.len()) < 2 {
        let mut writer = writer;
        for b in batches {
            writer.write(b)?;
        }
        return writer.into_inner();
    }
    let (mut file, factory) = writer.into_serialized_writer()?;
    let mut row_group: Option<Vec<ArrowColumnWriter>> = None;
    let mut rows = 0usize;
    for b in batches {
        if b.schema().fields() != schema.fields() {
            return Err(ParquetError::ArrowError(format!(
                "record batch schema {} does not match the file's schema {}",
                b.schema(),
                schema
            )));
        }
        let mut start = 0;
        while start < b.num_rows() {
            let take = (max_rows - rows).min(b.num_rows() - start);
            let piece = b.slice(start, take);
            let writers = match row_group.take() {
                Some(w) => w,
                None => factory.create_column_writers(file.flushed_row_groups().len())?,
            };
            row_group = Some(write_piece(&piece, &units, writers)?);
            rows += take;
            start += take;
            if rows == max_rows {
                let writers = row_group.take().unwrap_or_default();
                close_row_group(&mut file, &units, writers)?;
                rows = 0;
            }
        }
    }
    if let Some(writers) = row_group {
        close_row_group(&mut file, &units, writers)?;
    }
    file.into_inner()
}

/// Splits `writers` into each unit's consecutive share.
fn shares<T>(units: &[Unit], writers: Vec<T>) -> PResult<Vec<(Unit, Vec<T>)>> {
    let total: usize = units.iter().map(|u| u.leaves).sum();
    if total != writers.len() {
        return Err(ParquetError::General(format!(
            "the schema's {} Parquet leaf columns were counted as {total}",
            writers.len()
        )));
    }
    let mut writers = writers.into_iter();
    Ok(units
        .iter()
        .map(|u| (u.clone(), writers.by_ref().take(u.leaves).collect()))
        .collect())
}

/// Encodes `piece` into the row group's column `writers`, each unit on its own thread.
fn write_piece(
    piece: &RecordBatch,
    units: &[Unit],
    writers: Vec<ArrowColumnWriter>,
) -> PResult<Vec<ArrowColumnWriter>> {
    let done = parallel(shares(units, writers)?, |(unit, mut writers)| {
        let (field, array) = project(piece, &unit.path);
        let leaves = compute_leaves(&field, &array)?;
        if leaves.len() != writers.len() {
            return Err(ParquetError::General(format!(
                "column `{}`: {} leaves computed, {} writers",
                field.name(),
                leaves.len(),
                writers.len()
            )));
        }
        for (w, leaf) in writers.iter_mut().zip(&leaves) {
            w.write(leaf)?;
        }
        Ok(writers)
    })?;
    Ok(done.into_iter().flatten().collect())
}

/// Closes the row group's column writers (in parallel: the last pages are encoded on close) and
/// appends their chunks to `file` in order.
fn close_row_group<W: Write + Send>(
    file: &mut parquet::file::writer::SerializedFileWriter<W>,
    units: &[Unit],
    writers: Vec<ArrowColumnWriter>,
) -> PResult<()> {
    let chunks: Vec<Vec<ArrowColumnChunk>> = parallel(shares(units, writers)?, |(_, writers)| {
        writers.into_iter().map(ArrowColumnWriter::close).collect()
    })?;
    let mut rg = file.next_row_group()?;
    for chunk in chunks.into_iter().flatten() {
        chunk.append_to_row_group(&mut rg)?;
    }
    rg.close()?;
    Ok(())
}

/// Reads the whole of `file` as one record batch per unit projection, in parallel, and rebuilds
/// the columns: `None` when the file does not split (one unit, no rows, or a projection of a
/// shape not foreseen), for the caller to read it in one go.
///
/// Each thread opens `path` for itself: a cloned `File` would share one file offset, which the
/// readers' seeks would race on.
pub(crate) fn read(path: &Path) -> PResult<Option<RecordBatch>> {
    let open = || File::open(path).map_err(|e| ParquetError::External(Box::new(e)));
    let meta = ArrowReaderMetadata::load(&open()?, ArrowReaderOptions::default())?;
    let schema = meta.schema().clone();
    let rows = usize::try_from(meta.metadata().file_metadata().num_rows()).unwrap_or(0);
    let units = units(&schema);
    let leaves = meta.metadata().file_metadata().schema_descr().num_columns();
    if rows == 0
        || units.len() < 2
        || threads(units.len()) < 2
        || units.iter().map(|u| u.leaves).sum::<usize>() != leaves
    {
        return Ok(None);
    }
    let mut first = 0;
    let jobs: Vec<(Unit, std::ops::Range<usize>)> = units
        .iter()
        .map(|u| {
            first += u.leaves;
            (u.clone(), first - u.leaves..first)
        })
        .collect();
    let pieces = parallel(jobs, |(unit, range)| {
        let mask = ProjectionMask::leaves(meta.metadata().file_metadata().schema_descr(), range);
        let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(
            open()?,
            meta.clone(),
        )
        .with_projection(mask)
        .with_batch_size(rows)
        .build()?;
        let mut batches = reader.collect::<Result<Vec<_>, _>>()?;
        match (batches.pop(), batches.is_empty()) {
            (Some(b), true) if b.num_columns() == 1 && b.num_rows() == rows => {
                Ok(Some((unit, b.column(0).clone())))
            }
            _ => Ok(None),
        }
    })?;
    let Some(pieces) = pieces.into_iter().collect::<Option<Vec<_>>>() else {
        return Ok(None);
    };
    let mut columns = Vec::with_capacity(schema.fields().len());
    for (i, field) in schema.fields().iter().enumerate() {
        let mine: Vec<(&[usize], &ArrayRef)> = pieces
            .iter()
            .filter(|(u, _)| u.path[0] == i)
            .map(|(u, a)| (&u.path[1..], a))
            .collect();
        match rebuild(field, &mine) {
            Some(a) => columns.push(a),
            None => return Ok(None),
        }
    }
    Ok(RecordBatch::try_new(schema, columns).ok())
}

/// The array of `field` from its units' projected arrays (`path` relative to `field`; each
/// projected struct level keeps the one child on its path); `None` if they do not fit.
fn rebuild(field: &Field, pieces: &[(&[usize], &ArrayRef)]) -> Option<ArrayRef> {
    if let [(path, array)] = pieces
        && path.is_empty()
    {
        return (array.data_type() == field.data_type()).then(|| (*array).clone());
    }
    let DataType::Struct(children) = field.data_type() else {
        return None;
    };
    let mut nulls = None;
    let mut columns = Vec::with_capacity(children.len());
    for (i, child) in children.iter().enumerate() {
        let mut mine = Vec::new();
        for (path, array) in pieces {
            if path.first() != Some(&i) {
                continue;
            }
            let s = array.as_any().downcast_ref::<StructArray>()?;
            if s.num_columns() != 1 {
                return None;
            }
            nulls.get_or_insert_with(|| s.nulls().cloned());
            mine.push((&path[1..], s.column(0)));
        }
        columns.push(rebuild(child, &mine)?);
    }
    StructArray::try_new(children.clone(), columns, nulls.flatten())
        .ok()
        .map(|s| Arc::new(s) as ArrayRef)
}
