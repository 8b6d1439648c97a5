//! Parquet leaf columns encoded and decoded in parallel (arrow-rs's `ArrowColumnWriter` and
//! per-leaf `ProjectionMask`s), with the same file layout as `ArrowWriter` and the same
//! batches as one `ParquetRecordBatchReader`.
//!
//! A column splits into *units* through its struct levels only: a struct's children are
//! independent in Parquet (each leaf's levels depend on its own path from the root alone), so
//! each child subtree is written by its own writers and read by its own projection, and the
//! struct is rebuilt from the pieces on read. Lists, maps and the like stay whole (their
//! children share repetition). Nullable children need nothing of their own: a validity bitmap
//! (a `MaskedTensor`'s mask, written as its values' validity) is the leaf's definition levels,
//! which arrow-rs's writers and readers carry. A batch of `MaskedTensor` items is one struct
//! column of one unit, `values` (an `arrow.fixed_shape_tensor` leaf with null elements where
//! the mask is false); a record batch of several such columns splits by column.
//!
//! Reading also splits by row group: a job is one unit of one row group, so a column that is a
//! single leaf (a ragged column's nested lists) decodes on several threads when the file has
//! several row groups, as `write_parquet` writes a large batch (`files::ROW_GROUP_BYTES`).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch, StructArray};
use arrow_schema::{DataType, Field, FieldRef, Fields, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ParquetRecordBatchReaderBuilder};
use parquet::arrow::arrow_writer::{ArrowColumnChunk, ArrowColumnWriter, compute_leaves};
use parquet::errors::{ParquetError, Result as PResult};
use parquet::file::properties::WriterProperties;

/// The number of Parquet leaf columns `data_type` is stored as (the Arrow writer's mapping).
pub(crate) fn leaf_count(data_type: &DataType) -> usize {
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
        let field = Arc::new(
            field
                .as_ref()
                .clone()
                .with_data_type(DataType::Struct(fields)),
        );
        (field, Arc::new(pruned))
    }
    let schema = batch.schema();
    down(&schema.fields()[path[0]], batch.column(path[0]), &path[1..])
}

/// The threads the public functions use: one per core.
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs `work` on every item of `items` on up to `threads` scoped threads (contiguous shares),
/// returning the results in order, the first error if any.
fn parallel<T: Send, R: Send>(
    threads: usize,
    items: Vec<T>,
    work: impl Fn(T) -> PResult<R> + Sync,
) -> PResult<Vec<R>> {
    let n = threads.min(items.len());
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
                        "a Parquet column encoding or decoding thread panicked".into(),
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

/// Writes `batches` to `out` as `ArrowWriter` would with `props` (the same row groups and
/// metadata; the same pages whenever the writer's batch size divides [`CHUNK_ROWS`] times the
/// values per row, as for fixed-shape tensors), on `threads` threads: each unit's leaf columns
/// encoded on a thread of their own, and when there are fewer units than threads (a ragged
/// column is one leaf), as many row groups as threads encoded at once, appended in order.
/// Falls back to `ArrowWriter` itself for a row-group byte limit or content-defined chunking
/// (whose row groups and pages depend on the encoding as it goes).
pub(crate) fn write<W: Write + Send>(
    threads: usize,
    out: W,
    schema: SchemaRef,
    batches: &[RecordBatch],
    props: WriterProperties,
) -> PResult<W> {
    let sequential =
        props.max_row_group_bytes().is_some() || props.content_defined_chunking().is_some();
    let max_rows = props.max_row_group_row_count().unwrap_or(usize::MAX).max(1);
    let writer = ArrowWriter::try_new(out, schema.clone(), Some(props))?;
    let units = units(&schema);
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    if sequential || threads < 2 || rows == 0 || units.len() < 2 && rows <= max_rows {
        let mut writer = writer;
        for b in batches {
            writer.write(b)?;
        }
        return writer.into_inner();
    }
    for b in batches {
        if b.schema().fields() != schema.fields() {
            return Err(ParquetError::ArrowError(format!(
                "record batch schema {} does not match the file's schema {}",
                b.schema(),
                schema
            )));
        }
    }
    // The row groups: each the slices of the batches its rows come from (no copy).
    let mut groups: Vec<Vec<RecordBatch>> = vec![Vec::new()];
    let mut in_group = 0usize;
    for b in batches {
        let mut start = 0;
        while start < b.num_rows() {
            if in_group == max_rows {
                groups.push(Vec::new());
                in_group = 0;
            }
            let take = (max_rows - in_group).min(b.num_rows() - start);
            if let Some(group) = groups.last_mut() {
                group.push(b.slice(start, take));
            }
            in_group += take;
            start += take;
        }
    }
    // Units on threads of their own, or row groups at once when units are fewer than threads.
    let (wave, inner) = if units.len() >= threads {
        (1, threads)
    } else {
        (threads, 1)
    };
    let (mut file, factory) = writer.into_serialized_writer()?;
    for wave_groups in groups.chunks(wave) {
        let first = file.flushed_row_groups().len();
        let mut jobs = Vec::with_capacity(wave_groups.len());
        for (i, pieces) in wave_groups.iter().enumerate() {
            jobs.push((pieces, factory.create_column_writers(first + i)?));
        }
        let encoded = parallel(wave_groups.len(), jobs, |(pieces, mut writers)| {
            for piece in pieces {
                writers = write_piece(inner, piece, &units, writers)?;
            }
            close_writers(inner, &units, writers)
        })?;
        for chunks in encoded {
            let mut rg = file.next_row_group()?;
            for chunk in chunks {
                chunk.append_to_row_group(&mut rg)?;
            }
            rg.close()?;
        }
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

/// Rows handed to the column writers at a time, and decoded by a reader at a time. Writing: the
/// writers allocate levels and an 8-byte value index per element for each call, so chunks keep
/// those in cache and bound them (a 1 Mi-row batch of 8-element lists would need 64 MiB of
/// index per leaf). A multiple of 1024 rows, so that the writers' mini-batches (and pages) fall
/// where they do for one call whenever a row holds a whole number of values. Reading: the
/// pieces are concatenated, and reading a 1 Mi-row batch of 8-element lists in one go took
/// about 1.7x as long as in pieces (its level buffers and fresh output pages cost more than the
/// copy; BENCHMARKS.md, "Arrow").
pub(crate) const CHUNK_ROWS: usize = 1 << 16;

/// Encodes `piece` into the row group's column `writers`, each unit on its own thread, in
/// chunks of [`CHUNK_ROWS`] rows.
fn write_piece(
    threads: usize,
    piece: &RecordBatch,
    units: &[Unit],
    writers: Vec<ArrowColumnWriter>,
) -> PResult<Vec<ArrowColumnWriter>> {
    let done = parallel(threads, shares(units, writers)?, |(unit, mut writers)| {
        let (field, array) = project(piece, &unit.path);
        let mut start = 0;
        while start < array.len() {
            let len = CHUNK_ROWS.min(array.len() - start);
            let leaves = compute_leaves(&field, &array.slice(start, len))?;
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
            start += len;
        }
        Ok(writers)
    })?;
    Ok(done.into_iter().flatten().collect())
}

/// Closes the row group's column writers (in parallel by unit: the last pages are encoded on
/// close): their chunks, in order.
fn close_writers(
    threads: usize,
    units: &[Unit],
    writers: Vec<ArrowColumnWriter>,
) -> PResult<Vec<ArrowColumnChunk>> {
    let chunks: Vec<Vec<ArrowColumnChunk>> =
        parallel(threads, shares(units, writers)?, |(_, writers)| {
            writers.into_iter().map(ArrowColumnWriter::close).collect()
        })?;
    Ok(chunks.into_iter().flatten().collect())
}

/// Leaf values (levels: one per element, null or not) a reader decodes at a time, from which
/// [`batch_rows`] derives the rows of its batches. Counted in values, not rows: a row of a
/// ragged column holds a hundred values where a masked tensor's holds eight. Small batches
/// keep the decoder's level buffers and output in cache: 64 Ki ragged rows (7 Mi values)
/// decoded in 1024-row batches (~110 Ki values) took half the time of one batch, in 512-row
/// batches less again, in 128-row batches more (per-batch costs), a loaded run; the pieces
/// are concatenated once (BENCHMARKS.md, "Arrow").
pub(crate) const CHUNK_VALUES: usize = 1 << 16;

/// The rows per record batch for reading `leaves` (Parquet leaf column indices) of the row
/// groups `row_groups` of `meta`: [`CHUNK_VALUES`] values at the densest of those leaves,
/// at least 256 rows (per-batch costs) and at most [`CHUNK_ROWS`].
pub(crate) fn batch_rows(
    meta: &ArrowReaderMetadata,
    row_groups: &[usize],
    leaves: std::ops::Range<usize>,
) -> usize {
    let groups = meta.metadata().row_groups();
    let mut per_row = 1usize;
    for &g in row_groups {
        let Some(group) = groups.get(g) else { continue };
        let rows = usize::try_from(group.num_rows()).unwrap_or(0).max(1);
        for leaf in leaves.clone() {
            if let Some(chunk) = group.columns().get(leaf) {
                let values = usize::try_from(chunk.num_values()).unwrap_or(0);
                per_row = per_row.max(values.div_ceil(rows));
            }
        }
    }
    (CHUNK_VALUES / per_row).clamp(256, CHUNK_ROWS)
}

/// Reads the whole of the file at `path`, whose metadata is `meta`, as one record batch, in
/// parallel over units and over row groups: each job reads one unit's leaves (a projection) of
/// one row group, and the pieces are concatenated in row group order and the structs rebuilt.
/// A column that is one Parquet leaf (a ragged column's nested lists) thus decodes on several
/// threads when the file has several row groups (as [`crate::write_parquet`] writes a large
/// batch). `None` when the file does not split (no rows, one unit in one row group, one
/// thread, or a projection of a shape not foreseen), for the caller to read it in one go.
/// `threads` threads at most.
///
/// Each job opens `path` for itself: a cloned `File` would share one file offset, which the
/// readers' seeks would race on.
pub(crate) fn read(
    threads: usize,
    meta: &ArrowReaderMetadata,
    path: &Path,
) -> PResult<Option<RecordBatch>> {
    let open = || File::open(path).map_err(|e| ParquetError::External(Box::new(e)));
    let schema = meta.schema().clone();
    let rows = usize::try_from(meta.metadata().file_metadata().num_rows()).unwrap_or(0);
    let units = units(&schema);
    let leaves = meta.metadata().file_metadata().schema_descr().num_columns();
    // Row groups without rows add nothing but a job.
    let groups: Vec<usize> = (0..meta.metadata().num_row_groups())
        .filter(|&g| meta.metadata().row_group(g).num_rows() > 0)
        .collect();
    // A unit that is one column of nested lists of numbers decodes straight from its pages
    // (`parquet_lists`) when its chunks are stored as that path reads them, which is worth
    // taking even for one job on one thread.
    let direct = |u: &Unit| {
        u.path.len() == 1
            && u.leaves == 1
            && crate::parquet_lists::list_levels(schema.field(u.path[0]).data_type()).is_some()
    };
    if rows == 0
        || (units.len() * groups.len() < 2 || threads < 2) && !units.iter().any(direct)
        || units.iter().map(|u| u.leaves).sum::<usize>() != leaves
    {
        return Ok(None);
    }
    let mut first = 0;
    let mut jobs: Vec<(usize, usize, std::ops::Range<usize>)> = Vec::new();
    for (k, u) in units.iter().enumerate() {
        first += u.leaves;
        for &g in &groups {
            jobs.push((k, g, first - u.leaves..first));
        }
    }
    let pieces = parallel(threads, jobs, |(k, g, range)| {
        if direct(&units[k])
            && let Some(column) = read_lists(
                &open,
                meta,
                g,
                range.start,
                schema.field(units[k].path[0]).data_type(),
            )?
        {
            return Ok((k, Some(vec![column])));
        }
        let mask = ProjectionMask::leaves(
            meta.metadata().file_metadata().schema_descr(),
            range.clone(),
        );
        let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(open()?, meta.clone())
            .with_projection(mask)
            .with_row_groups(vec![g])
            .with_batch_size(batch_rows(meta, &[g], range))
            .build()?;
        let mut columns = Vec::new();
        for b in reader {
            let b = b?;
            if b.num_columns() != 1 {
                // Not the projection foreseen: the caller reads the file in one go.
                return Ok((k, None));
            }
            columns.push(b.column(0).clone());
        }
        Ok((k, Some(columns)))
    })?;
    // Each unit's pieces, in row group order (the jobs' order), as one array of all the rows.
    let mut parts: Vec<Vec<ArrayRef>> = vec![Vec::new(); units.len()];
    for (k, columns) in pieces {
        let Some(columns) = columns else {
            return Ok(None);
        };
        parts[k].extend(columns);
    }
    let mut unit_columns = Vec::with_capacity(units.len());
    for (unit, parts) in units.iter().zip(parts) {
        let column = match parts.as_slice() {
            [] => return Ok(None),
            [one] => one.clone(),
            _ => {
                let parts: Vec<&dyn Array> = parts.iter().map(|a| a.as_ref()).collect();
                arrow_select::concat::concat(&parts)?
            }
        };
        if column.len() != rows {
            return Ok(None);
        }
        unit_columns.push((unit, column));
    }
    let mut columns = Vec::with_capacity(schema.fields().len());
    for (i, field) in schema.fields().iter().enumerate() {
        let mine: Vec<(&[usize], &ArrayRef)> = unit_columns
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

/// A top-level column of type `data_type` that is one Parquet leaf, the leaf `leaf`, in row
/// group `group`, decoded from its chunk's pages by `parquet_lists`: `None` when it is not
/// nested lists of numbers or its chunk is not stored as that path reads it (compressed,
/// dictionary encoded, …), for arrow-rs's reader to read.
pub(crate) fn read_lists(
    open: &impl Fn() -> PResult<File>,
    meta: &ArrowReaderMetadata,
    group: usize,
    leaf: usize,
    data_type: &DataType,
) -> PResult<Option<ArrayRef>> {
    let row_group = meta.metadata().row_group(group);
    let column = row_group.column(leaf);
    let levels = crate::parquet_lists::list_levels(data_type).and_then(|n| i16::try_from(n).ok());
    let descr = column.column_descr();
    // Every level non-null (the top-level field too): as many definition levels as lists.
    if column.compression() != parquet::basic::Compression::UNCOMPRESSED
        || levels.is_none()
        || Some(descr.max_def_level()) != levels
        || Some(descr.max_rep_level()) != levels
    {
        return Ok(None);
    }
    let (start, len) = column.byte_range();
    let (Ok(len), Ok(rows), Ok(entries)) = (
        usize::try_from(len),
        usize::try_from(row_group.num_rows()),
        usize::try_from(column.num_values()),
    ) else {
        return Ok(None);
    };
    // The chunk lies within the file and its pages within the reading bound: the file's
    // checks (`parquet_check`) came first.
    let mut chunk = vec![0u8; len];
    let mut file = open()?;
    file.seek(SeekFrom::Start(start))
        .and_then(|_| file.read_exact(&mut chunk))
        .map_err(|e| ParquetError::External(Box::new(e)))?;
    Ok(crate::parquet_lists::decode(
        &chunk, data_type, rows, entries,
    ))
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

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::builder::{Float32Builder, Int32Builder, ListBuilder};
    use arrow_array::{BooleanArray, FixedSizeListArray, Float32Array, Int64Array};
    use arrow_buffer::NullBuffer;
    use arrow_schema::Schema;
    use parquet::arrow::arrow_reader::ArrowReaderOptions;

    /// The metadata of the Parquet file at `path`.
    fn meta(path: &Path) -> ArrowReaderMetadata {
        ArrowReaderMetadata::load(&File::open(path).unwrap(), ArrowReaderOptions::default())
            .unwrap()
    }

    /// A column of a test batch.
    type Column = (FieldRef, ArrayRef);

    /// Pseudo-random numbers (an LCG).
    fn lcg(seed: u64) -> impl FnMut() -> u64 {
        let mut x = seed;
        move || {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            x >> 33
        }
    }

    /// A `MaskedTensor`-like column: a non-null struct of two fixed-size lists (f32, bool) of
    /// `width`, values with NaN and ±inf.
    fn masked(rows: usize, width: usize, seed: u64) -> (FieldRef, ArrayRef) {
        let mut r = lcg(seed);
        let values = Float32Array::from_iter_values((0..rows * width).map(|_| match r() % 50 {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => f32::NEG_INFINITY,
            k => k as f32 * 0.25,
        }));
        let mask = BooleanArray::from_iter((0..rows * width).map(|_| Some(!r().is_multiple_of(3))));
        let w = i32::try_from(width).unwrap();
        let v_item = Arc::new(Field::new("item", DataType::Float32, false));
        let m_item = Arc::new(Field::new("item", DataType::Boolean, false));
        let v = FixedSizeListArray::try_new_with_length(v_item, w, Arc::new(values), None, rows);
        let m = FixedSizeListArray::try_new_with_length(m_item, w, Arc::new(mask), None, rows);
        let (v, m) = (v.unwrap(), m.unwrap());
        let fields = Fields::from(vec![
            Field::new("values", v.data_type().clone(), false),
            Field::new("mask", m.data_type().clone(), false),
        ]);
        let s = StructArray::new(fields.clone(), vec![Arc::new(v), Arc::new(m)], None);
        (
            Arc::new(Field::new("m", DataType::Struct(fields), false)),
            Arc::new(s),
        )
    }

    /// Nested and nullable: a nullable struct of (a nullable struct of a list of f32 and an
    /// i32, an i64), rows with empty lists and nulls at every level.
    fn nested(rows: usize, seed: u64) -> (FieldRef, ArrayRef) {
        let mut r = lcg(seed);
        let mut list = ListBuilder::new(Float32Builder::new());
        let mut ints = Int32Builder::new();
        for _ in 0..rows {
            match r() % 4 {
                0 => list.append_null(),
                1 => list.append(true),
                _ => {
                    for _ in 0..r() % 5 {
                        list.values()
                            .append_option((!r().is_multiple_of(7)).then(|| r() as f32));
                    }
                    list.append(true);
                }
            }
            ints.append_option((!r().is_multiple_of(5)).then(|| r() as i32));
        }
        let list = list.finish();
        let ints = ints.finish();
        let inner_fields = Fields::from(vec![
            Field::new("l", list.data_type().clone(), true),
            Field::new("i", DataType::Int32, true),
        ]);
        let inner_nulls = NullBuffer::from_iter((0..rows).map(|_| !r().is_multiple_of(6)));
        let inner = StructArray::new(
            inner_fields.clone(),
            vec![Arc::new(list), Arc::new(ints)],
            Some(inner_nulls),
        );
        let longs =
            Int64Array::from_iter((0..rows).map(|_| (!r().is_multiple_of(4)).then(|| r() as i64)));
        let fields = Fields::from(vec![
            Field::new("inner", DataType::Struct(inner_fields), true),
            Field::new("n", DataType::Int64, true),
        ]);
        let nulls = NullBuffer::from_iter((0..rows).map(|_| !r().is_multiple_of(7)));
        let s = StructArray::new(
            fields.clone(),
            vec![Arc::new(inner), Arc::new(longs)],
            Some(nulls),
        );
        (
            Arc::new(Field::new("s", DataType::Struct(fields), true)),
            Arc::new(s),
        )
    }

    /// A ragged column: `large_list<large_list<f32>>`, one Parquet leaf, rows of 0-7 lists
    /// of 0-9 values, some lists empty.
    /// Nested non-null lists, `levels` deep, of `f32` (or `i64` when `wide`), as extype writes a
    /// ragged column: empty rows and empty lists at every level.
    fn lists(rows: usize, levels: usize, wide: bool, seed: u64) -> (FieldRef, ArrayRef) {
        let mut r = lcg(seed);
        let (mut field, mut array): (Field, ArrayRef) = if wide {
            let v: Vec<i64> = (0..rows * 40).map(|_| r() as i64).collect();
            (
                Field::new("item", DataType::Int64, false),
                Arc::new(Int64Array::from(v)),
            )
        } else {
            let v: Vec<f32> = (0..rows * 40).map(|_| r() as f32 * 0.25).collect();
            (
                Field::new("item", DataType::Float32, false),
                Arc::new(arrow_array::Float32Array::from(v)),
            )
        };
        // From the values out: each level's lists cut the level below into random lengths,
        // zero included; the outermost has `rows` lists.
        let mut len = array.len();
        for level in (0..levels).rev() {
            let lists = if level == 0 { rows } else { len / 2 + 1 };
            let mut cuts: Vec<i64> = (0..lists - 1)
                .map(|_| (r() % (len as u64 + 1)) as i64)
                .collect();
            cuts.push(0);
            cuts.push(len as i64);
            cuts.sort_unstable();
            let list = arrow_array::LargeListArray::try_new(
                Arc::new(field),
                arrow_buffer::OffsetBuffer::new(cuts.into()),
                array,
                None,
            )
            .unwrap();
            len = list.len();
            field = Field::new("item", list.data_type().clone(), false);
            array = Arc::new(list);
        }
        (Arc::new(field.with_name("l")), array)
    }

    #[test]
    fn nested_lists_decode_from_their_pages_as_the_single_reader_reads_them() {
        let dir = std::env::temp_dir().join(format!("extype-arrow-lists-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let small_pages = |row_group: Option<usize>| {
            WriterProperties::builder()
                .set_dictionary_enabled(false)
                .set_max_row_group_row_count(row_group)
                .set_data_page_size_limit(512)
                .set_write_batch_size(64)
                .build()
        };
        let cases = [
            (lists(3000, 2, false, 1), props(Some(700)), true),
            (lists(2000, 1, true, 2), small_pages(None), true),
            (lists(1500, 3, false, 3), small_pages(Some(400)), true),
            (lists(1, 2, false, 4), props(None), true),
            // Dictionary-encoded values: left to arrow-rs's reader.
            (
                lists(1000, 2, false, 5),
                WriterProperties::builder().build(),
                false,
            ),
            // A nullable level (the builder's): left to it too.
            (ragged(1000, 6), props(Some(300)), false),
        ];
        for (i, (column, props, direct)) in cases.into_iter().enumerate() {
            let n = column.1.len();
            let batches = batches(std::slice::from_ref(&column), &[n]);
            let path = dir.join(format!("{i}.parquet"));
            std::fs::write(&path, with_arrow_writer(&batches, props)).unwrap();
            let meta = meta(&path);
            // The direct path, job by job.
            let schema = meta.schema().clone();
            for g in 0..meta.metadata().num_row_groups() {
                let open = || File::open(&path).map_err(|e| ParquetError::External(Box::new(e)));
                let got = read_lists(&open, &meta, g, 0, schema.field(0).data_type()).unwrap();
                assert_eq!(got.is_some(), direct, "case {i}, row group {g}");
            }
            for threads in [1, 2] {
                let got = read(threads, &meta, &path).unwrap();
                if direct || threads > 1 && meta.metadata().num_row_groups() > 1 {
                    assert_eq!(
                        got.expect("read"),
                        batches[0],
                        "case {i}, {threads} threads"
                    );
                }
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn ragged(rows: usize, seed: u64) -> (FieldRef, ArrayRef) {
        use arrow_array::builder::LargeListBuilder;
        let mut r = lcg(seed);
        let mut b = LargeListBuilder::new(LargeListBuilder::new(Float32Builder::new()));
        for _ in 0..rows {
            for _ in 0..r() % 8 {
                for _ in 0..r() % 10 {
                    b.values().values().append_value(r() as f32 * 0.5);
                }
                b.values().append(true);
            }
            b.append(true);
        }
        let a = b.finish();
        (
            Arc::new(Field::new("r", a.data_type().clone(), true)),
            Arc::new(a),
        )
    }

    fn batches(columns: &[(FieldRef, ArrayRef)], pieces: &[usize]) -> Vec<RecordBatch> {
        let schema = Arc::new(Schema::new(
            columns.iter().map(|(f, _)| f.clone()).collect::<Vec<_>>(),
        ));
        let whole = RecordBatch::try_new(
            schema,
            columns.iter().map(|(_, a)| a.clone()).collect::<Vec<_>>(),
        )
        .unwrap();
        let mut start = 0;
        pieces
            .iter()
            .map(|&n| {
                start += n;
                whole.slice(start - n, n)
            })
            .collect()
    }

    fn with_arrow_writer(batches: &[RecordBatch], props: WriterProperties) -> Vec<u8> {
        let mut w = ArrowWriter::try_new(Vec::new(), batches[0].schema(), Some(props)).unwrap();
        for b in batches {
            w.write(b).unwrap();
        }
        w.into_inner().unwrap()
    }

    fn props(row_group: Option<usize>) -> WriterProperties {
        WriterProperties::builder()
            .set_dictionary_enabled(false)
            .set_max_row_group_row_count(row_group)
            .build()
    }

    #[test]
    fn parallel_writes_the_bytes_arrow_writer_writes() {
        let cases: Vec<(Vec<Column>, Vec<usize>, Option<usize>)> = vec![
            // Above CHUNK_ROWS: chunked encoding, same pages.
            (vec![masked(70_000, 4, 1)], vec![70_000], None),
            (
                vec![masked(3000, 8, 2)],
                vec![1000, 0, 1500, 500],
                Some(700),
            ),
            (vec![masked(10, 0, 3)], vec![10], None),
            (
                vec![nested(2000, 4), masked(2000, 3, 5)],
                vec![1, 999, 1000],
                Some(512),
            ),
            (vec![nested(0, 6)], vec![0], None),
            // One unit in several row groups: row groups encoded at once.
            (vec![ragged(3000, 7)], vec![1000, 0, 2000], Some(700)),
            (vec![lists(2000, 2, false, 8)], vec![2000], Some(600)),
            (vec![lists(1500, 3, true, 9)], vec![700, 800], Some(1500)),
        ];
        for (i, (columns, pieces, row_group)) in cases.into_iter().enumerate() {
            let batches = batches(&columns, &pieces);
            let expected = with_arrow_writer(&batches, props(row_group));
            for threads in [1, 2, 3] {
                let got = write(
                    threads,
                    Vec::new(),
                    batches[0].schema(),
                    &batches,
                    props(row_group),
                )
                .unwrap();
                assert!(got == expected, "case {i}, {threads} threads: other bytes");
            }
        }
    }

    #[test]
    fn parallel_read_rebuilds_the_batch_a_single_reader_reads() {
        let dir = std::env::temp_dir().join(format!("extype-arrow-pq-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cases: Vec<(Vec<Column>, Option<usize>)> = vec![
            (vec![masked(5000, 8, 7)], Some(2048)),
            (vec![nested(3000, 8), masked(3000, 2, 9)], None),
            (vec![nested(1, 10)], None),
            // Above CHUNK_ROWS: decoded in pieces, concatenated.
            (
                vec![masked(70_000, 2, 12), nested(70_000, 13)],
                Some(30_000),
            ),
            // One unit (a single leaf, or a struct of one child): split by row groups alone.
            (vec![ragged(5000, 14)], Some(1024)),
            (vec![masked(9000, 3, 15)], Some(2000)),
        ];
        for (i, (columns, row_group)) in cases.into_iter().enumerate() {
            let n = columns[0].1.len();
            let batches = batches(&columns, &[n]);
            let path = dir.join(format!("{i}.parquet"));
            std::fs::write(&path, with_arrow_writer(&batches, props(row_group))).unwrap();
            let single = ParquetRecordBatchReaderBuilder::try_new(File::open(&path).unwrap())
                .unwrap()
                .with_batch_size(n)
                .build()
                .unwrap()
                .collect::<Result<Vec<_>, _>>()
                .unwrap();
            assert_eq!(single, batches, "case {i}: the single reader");
            for threads in [2, 3] {
                let got = read(threads, &meta(&path), &path)
                    .unwrap()
                    .expect("the file splits");
                assert_eq!(got, batches[0], "case {i}, {threads} threads");
            }
            assert!(
                read(1, &meta(&path), &path).unwrap().is_none(),
                "one thread: not split"
            );
        }
        // No rows, or one unit: left to the single reader.
        for (i, columns) in [
            vec![masked(0, 8, 11)],
            vec![(
                Arc::new(Field::new("x", DataType::Int64, true)) as FieldRef,
                Arc::new(Int64Array::from(vec![Some(1), None])) as ArrayRef,
            )],
        ]
        .into_iter()
        .enumerate()
        {
            let n = columns[0].1.len();
            let path = dir.join(format!("none{i}.parquet"));
            std::fs::write(
                &path,
                with_arrow_writer(&batches(&columns, &[n]), props(None)),
            )
            .unwrap();
            assert!(
                read(2, &meta(&path), &path).unwrap().is_none(),
                "case none{i}"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
