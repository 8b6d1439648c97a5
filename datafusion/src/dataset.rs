//! Parquet files and Hive-partitioned directories of them as tables, scanned a row group at a
//! time with extype-arrow's reader ([`extype_arrow::ParquetFile`]): a ragged column's nested
//! lists decode straight from their pages, where DataFusion's own Parquet scan decodes them
//! level by level with arrow-rs's record reader (several times slower).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::array::{
    Array, ArrayRef, BooleanArray, RecordBatch, RecordBatchOptions, StringArray,
};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::catalog::Session;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DFSchema, DataFusionError, Result, plan_err};
use datafusion::datasource::{TableProvider, TableType};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchReceiverStreamBuilder;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
    SendableRecordBatchStream,
};
use datafusion::prelude::{ParquetReadOptions, SessionContext};
use extype_arrow::ParquetFile;
use extype_core::io::FileKind;

use crate::block_on;

/// A Parquet file, or a directory of them, as a DataFusion table: the table
/// [`register_parquet`](crate::register_parquet) registers.
///
/// The schema is the Arrow schema the first file stores (field metadata, so extension names
/// and specs, included), then one non-null string column per Hive partition key. A scan reads
/// the files as the query runs, one row group at a time on a blocking thread per output
/// partition (a file's row groups spread over the partitions when there are fewer files than
/// partitions), in batches of at most the session's batch size, the projected columns only;
/// filters on partition columns alone skip the files they exclude. Each file is checked as it
/// is opened, as [`extype_arrow::read_parquet`] checks it; a file whose schema differs from
/// the first one's is an error naming both.
#[derive(Debug, Clone)]
pub struct ParquetDataset {
    what: String,
    root: PathBuf,
    files: Vec<DatasetFile>,
    partition_keys: Vec<String>,
    file_schema: SchemaRef,
    schema: SchemaRef,
}

/// One file of a dataset and the values of its partition keys.
#[derive(Debug, Clone)]
struct DatasetFile {
    path: PathBuf,
    partition_values: Vec<String>,
}

impl ParquetDataset {
    /// The dataset at `path` (a Parquet file, or a directory whose files, in subdirectories
    /// too, names starting with `.` or `_` skipped, are Parquet files named `*.parquet`, under
    /// the same `key=value` partition directories), for the table `name` (which the errors
    /// name). Reads the footer of the first file for the schema and the first bytes of every
    /// file.
    ///
    /// Errors name the path: a missing path, an empty directory, a file that is not Parquet
    /// (by its first bytes: `is an Arrow IPC file`) or not named `*.parquet`, files under
    /// differing partition keys, a first file that does not check.
    pub fn open(name: &str, path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let what = format!("register_parquet: table `{name}`");
        let meta = std::fs::metadata(path).map_err(|e| {
            DataFusionError::Plan(format!(
                "{what}: {}: expected a Parquet file or a directory of them, found {e}",
                path.display()
            ))
        })?;
        let mut files = Vec::new();
        let mut keys: Option<Vec<String>> = None;
        if meta.is_dir() {
            let mut paths = Vec::new();
            dataset_files(path, &mut paths, &what)?;
            if paths.is_empty() {
                return plan_err!(
                    "{what}: {}: expected a directory of Parquet files, found none in it",
                    path.display()
                );
            }
            for file in paths {
                check_parquet(&file, &what)?;
                if file.extension().and_then(|e| e.to_str()) != Some("parquet") {
                    return plan_err!(
                        "{what}: {}: expected a Parquet file named *.parquet in a dataset, found {}",
                        file.display(),
                        file.file_name()
                            .map_or(String::new(), |n| n.to_string_lossy().into_owned())
                    );
                }
                let (file_keys, values) = partitions(path, &file);
                match &keys {
                    None => keys = Some(file_keys),
                    Some(first) if *first != file_keys => {
                        let first_file: &DatasetFile = &files[0];
                        return plan_err!(
                            "{what}: {}: expected the partition keys of {} ({}), found ({})",
                            file.display(),
                            first_file.path.display(),
                            first.join(", "),
                            file_keys.join(", ")
                        );
                    }
                    Some(_) => {}
                }
                files.push(DatasetFile {
                    path: file,
                    partition_values: values,
                });
            }
        } else {
            check_parquet(path, &what)?;
            files.push(DatasetFile {
                path: path.to_path_buf(),
                partition_values: Vec::new(),
            });
        }
        let partition_keys = keys.unwrap_or_default();
        let first = ParquetFile::open(&files[0].path)
            .map_err(|e| DataFusionError::Plan(format!("{what}: {e}")))?;
        let file_schema = first.schema();
        let mut fields: Vec<Arc<Field>> = file_schema.fields().iter().cloned().collect();
        for key in &partition_keys {
            if file_schema.field_with_name(key).is_ok() {
                return plan_err!(
                    "{what}: {}: the partition key `{key}` is also a column of its files; \
                     expected distinct names",
                    path.display()
                );
            }
            fields.push(Arc::new(Field::new(key, DataType::Utf8, false)));
        }
        let schema = Arc::new(Schema::new_with_metadata(
            fields,
            file_schema.metadata().clone(),
        ));
        Ok(ParquetDataset {
            what,
            root: path.to_path_buf(),
            files,
            partition_keys,
            file_schema,
            schema,
        })
    }

    /// The dataset's files, in the order scans read them.
    pub fn files(&self) -> impl Iterator<Item = &Path> {
        self.files.iter().map(|f| f.path.as_path())
    }

    /// The Hive partition keys (the string columns after the files' own).
    pub fn partition_keys(&self) -> &[String] {
        &self.partition_keys
    }

    /// Registers the same files as DataFusion's own Parquet table (a listing table, scanned
    /// by DataFusion's Parquet source) under `name` in `ctx`: for plans that travel to other
    /// processes, whose codecs know DataFusion's tables (a Ballista client's), not this one.
    pub fn register_listing(&self, ctx: &SessionContext, name: &str) -> Result<()> {
        let (url, extension) = if self.root.is_dir() {
            let mut url = self.root.to_string_lossy().into_owned();
            if !url.ends_with(std::path::MAIN_SEPARATOR) {
                url.push(std::path::MAIN_SEPARATOR);
            }
            (url, ".parquet".to_string())
        } else {
            let extension = self
                .root
                .extension()
                .map_or(String::new(), |e| format!(".{}", e.to_string_lossy()));
            (self.root.to_string_lossy().into_owned(), extension)
        };
        let options = ParquetReadOptions::default()
            .file_extension(&extension)
            .skip_metadata(false)
            .table_partition_cols(
                self.partition_keys
                    .iter()
                    .map(|k| (k.clone(), DataType::Utf8))
                    .collect(),
            );
        block_on(async {
            ctx.deregister_table(name)?;
            ctx.register_parquet(name, &url, options).await
        })?
    }

    /// The files that may hold rows passing `filters` (each on partition columns only), judged
    /// on their partition values: each filter planned once and evaluated over one row per file.
    fn files_passing(&self, state: &dyn Session, filters: &[Expr]) -> Result<Vec<DatasetFile>> {
        if filters.is_empty() {
            return Ok(self.files.clone());
        }
        let fields: Vec<Field> = self
            .partition_keys
            .iter()
            .map(|k| Field::new(k, DataType::Utf8, false))
            .collect();
        let schema = Arc::new(Schema::new(fields));
        let columns: Vec<ArrayRef> = (0..self.partition_keys.len())
            .map(|k| {
                let values = self.files.iter().map(|f| f.partition_values[k].as_str());
                Arc::new(StringArray::from_iter_values(values)) as ArrayRef
            })
            .collect();
        let rows = RecordBatch::try_new(schema.clone(), columns)?;
        let df_schema = DFSchema::try_from(schema.as_ref().clone())?;
        let mut keep = vec![true; self.files.len()];
        for filter in filters {
            let expr = state.create_physical_expr(filter.clone(), &df_schema)?;
            let value = expr.evaluate(&rows)?.into_array(rows.num_rows())?;
            let pass = value.as_any().downcast_ref::<BooleanArray>();
            for (i, k) in keep.iter_mut().enumerate() {
                *k &= pass.is_some_and(|b| b.is_valid(i) && b.value(i));
            }
        }
        Ok(self
            .files
            .iter()
            .zip(keep)
            .filter(|(_, k)| *k)
            .map(|(f, _)| f.clone())
            .collect())
    }

    /// Whether `filter` reads partition columns only (and at least one).
    fn on_partitions_only(&self, filter: &Expr) -> bool {
        let columns = filter.column_refs();
        !columns.is_empty()
            && columns
                .iter()
                .all(|c| self.partition_keys.contains(&c.name))
    }
}

#[async_trait]
impl TableProvider for ParquetDataset {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        // Inexact: DataFusion still filters the rows; the scan only skips files.
        Ok(filters
            .iter()
            .map(|f| {
                if self.on_partitions_only(f) {
                    TableProviderFilterPushDown::Inexact
                } else {
                    TableProviderFilterPushDown::Unsupported
                }
            })
            .collect())
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        _limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let projection: Vec<usize> = match projection {
            Some(p) => p.clone(),
            None => (0..self.schema.fields().len()).collect(),
        };
        let schema = Arc::new(self.schema.project(&projection)?);
        let pruning: Vec<Expr> = filters
            .iter()
            .filter(|f| self.on_partitions_only(f))
            .cloned()
            .collect();
        let files = self.files_passing(state, &pruning)?;
        // Work units: whole files, or every k-th row group of a file when the files are
        // fewer than the partitions, so that one large file still spreads.
        let target = state.config().target_partitions().max(1);
        let stride = if files.is_empty() {
            1
        } else {
            target.div_ceil(files.len())
        };
        let units: Vec<ScanUnit> = files
            .into_iter()
            .flat_map(|file| {
                (0..stride).map(move |first| ScanUnit {
                    file: file.clone(),
                    first,
                    stride,
                })
            })
            .collect();
        // Contiguous, balanced shares: every partition gets one unit at least (none when the
        // filters leave no file: one empty partition).
        let partitions = units.len().clamp(1, target);
        let groups: Vec<Vec<ScanUnit>> = (0..partitions)
            .map(|k| {
                units[k * units.len() / partitions..(k + 1) * units.len() / partitions].to_vec()
            })
            .collect();
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(schema.clone()),
            Partitioning::UnknownPartitioning(groups.len()),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        Ok(Arc::new(DatasetScan {
            what: self.what.clone(),
            file_schema: self.file_schema.clone(),
            schema,
            projection,
            groups,
            properties,
        }))
    }
}

/// Row groups `first`, `first + stride`, … of one file.
#[derive(Debug, Clone)]
struct ScanUnit {
    file: DatasetFile,
    first: usize,
    stride: usize,
}

/// The scan of a [`ParquetDataset`]: output partition `p` reads the units `groups[p]`.
#[derive(Debug)]
struct DatasetScan {
    what: String,
    file_schema: SchemaRef,
    /// The projected schema.
    schema: SchemaRef,
    /// Indices into the table's schema: the files' columns, then the partition keys.
    projection: Vec<usize>,
    groups: Vec<Vec<ScanUnit>>,
    properties: Arc<PlanProperties>,
}

impl DisplayAs for DatasetScan {
    fn fmt_as(&self, _: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let files: usize = self.groups.iter().map(Vec::len).sum();
        write!(
            f,
            "ExtypeParquetScan: {} work units in {} partitions, projection={:?}",
            files,
            self.groups.len(),
            self.projection
        )
    }
}

impl ExecutionPlan for DatasetScan {
    fn name(&self) -> &str {
        "ExtypeParquetScan"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        Vec::new()
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if children.is_empty() {
            Ok(self)
        } else {
            plan_err!(
                "ExtypeParquetScan: expected no children, found {}",
                children.len()
            )
        }
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let Some(units) = self.groups.get(partition).cloned() else {
            return plan_err!(
                "ExtypeParquetScan: expected a partition below {}, found {partition}",
                self.groups.len()
            );
        };
        let job = ScanJob {
            what: self.what.clone(),
            file_schema: self.file_schema.clone(),
            schema: self.schema.clone(),
            projection: self.projection.clone(),
            batch_size: context.session_config().batch_size().max(1),
        };
        // Two batches ahead: the next row group decodes while the query works on this one.
        let mut builder = RecordBatchReceiverStreamBuilder::new(self.schema.clone(), 2);
        let tx = builder.tx();
        builder.spawn_blocking(move || {
            for unit in &units {
                let sent = job.run(unit, &mut |batch| tx.blocking_send(Ok(batch)).is_ok())?;
                if !sent {
                    // The query stopped reading (a limit, an error elsewhere).
                    break;
                }
            }
            Ok(())
        });
        Ok(builder.build())
    }
}

/// What a partition's blocking task needs to read its units.
struct ScanJob {
    what: String,
    file_schema: SchemaRef,
    schema: SchemaRef,
    projection: Vec<usize>,
    batch_size: usize,
}

impl ScanJob {
    /// Reads `unit`, handing each batch to `send`; `false` once `send` refuses one.
    fn run(&self, unit: &ScanUnit, send: &mut dyn FnMut(RecordBatch) -> bool) -> Result<bool> {
        let path = &unit.file.path;
        let error = |e: extype_arrow::Error| {
            DataFusionError::Execution(format!("{}: scanning: {e}", self.what))
        };
        let file = ParquetFile::open(path).map_err(error)?;
        if file.schema().fields() != self.file_schema.fields() {
            return Err(DataFusionError::Execution(format!(
                "{}: {}: expected the schema of the dataset's first file, {:?}, found {:?}",
                self.what,
                path.display(),
                self.file_schema.fields(),
                file.schema().fields()
            )));
        }
        let width = self.file_schema.fields().len();
        let columns: Vec<usize> = self
            .projection
            .iter()
            .copied()
            .filter(|&c| c < width)
            .collect();
        for group in (unit.first..file.num_row_groups()).step_by(unit.stride) {
            let read = file.read_row_group(group, &columns).map_err(error)?;
            let mut offset = 0;
            while offset < read.num_rows() {
                let len = self.batch_size.min(read.num_rows() - offset);
                let part = read.slice(offset, len);
                offset += len;
                if !send(self.with_partition_values(part, &unit.file)?) {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// `batch` (the projected file columns) with the projected partition columns added, in
    /// the projection's order.
    fn with_partition_values(&self, batch: RecordBatch, file: &DatasetFile) -> Result<RecordBatch> {
        let width = self.file_schema.fields().len();
        let rows = batch.num_rows();
        let mut file_columns = batch.columns().iter();
        let mut columns = Vec::with_capacity(self.projection.len());
        for &c in &self.projection {
            if c < width {
                columns.push(file_columns.next().cloned().ok_or_else(|| {
                    DataFusionError::Internal("ExtypeParquetScan: a column short".into())
                })?);
            } else {
                let value = file.partition_values[c - width].as_str();
                columns.push(Arc::new(StringArray::from_iter_values(std::iter::repeat_n(
                    value, rows,
                ))) as ArrayRef);
            }
        }
        Ok(RecordBatch::try_new_with_options(
            self.schema.clone(),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )?)
    }
}

/// The files of the dataset directory `dir`, recursively, names starting with `.` or `_`
/// skipped, sorted.
fn dataset_files(dir: &Path, out: &mut Vec<PathBuf>, what: &str) -> Result<()> {
    let io = |p: &Path, e: std::io::Error| {
        DataFusionError::Plan(format!(
            "{what}: {}: reading the directory: {e}",
            p.display()
        ))
    };
    let mut entries = std::fs::read_dir(dir)
        .map_err(|e| io(dir, e))?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<Vec<_>>>()
        .map_err(|e| io(dir, e))?;
    entries.sort();
    for p in entries {
        let hidden = p
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.') || n.starts_with('_'));
        if hidden {
            continue;
        }
        if p.is_dir() {
            dataset_files(&p, out, what)?;
        } else {
            out.push(p);
        }
    }
    Ok(())
}

/// `path` is a Parquet file by its first bytes; otherwise an error saying what it is.
fn check_parquet(path: &Path, what: &str) -> Result<()> {
    match FileKind::of_file(path) {
        Ok(Some(FileKind::Parquet)) => Ok(()),
        Ok(Some(kind)) => plan_err!(
            "{what}: {}: {}",
            path.display(),
            kind.refused_as(FileKind::Parquet)
        ),
        Ok(None) => plan_err!(
            "{what}: {}: expected a Parquet file (PAR1 at both ends), found a file of no known format",
            path.display()
        ),
        Err(e) => plan_err!("{what}: {}: reading its first bytes: {e}", path.display()),
    }
}

/// The Hive partition keys of `file` under `root` and their values: each directory
/// `key=value` between them.
fn partitions(root: &Path, file: &Path) -> (Vec<String>, Vec<String>) {
    let Ok(rel) = file.strip_prefix(root) else {
        return (Vec::new(), Vec::new());
    };
    let mut dirs: Vec<_> = rel.components().collect();
    dirs.pop();
    dirs.iter()
        .filter_map(|c| {
            let (k, v) = c.as_os_str().to_str()?.split_once('=')?;
            Some((k.to_string(), v.to_string()))
        })
        .unzip()
}
