//! SQL over batches of extype extension values with [Apache DataFusion](https://datafusion.apache.org).
//!
//! - [`register_batches`] registers record batches whose columns are batches of extension
//!   values (as [`extype_arrow::to_record_batch`] makes them: struct columns whose fields carry
//!   `ARROW:extension:name` and `ARROW:extension:metadata`) as a table. SQL reads their
//!   components with struct field access (`m['values']`, `get_field(m, 'values')`) and array
//!   functions on the tensor children (`m['values'][1]`; a masked-out element is `NULL`, the
//!   mask being the values' validity), filters and aggregates on them, and a
//!   query that selects the extension column itself (`SELECT m FROM t WHERE …`) keeps its
//!   extension metadata on the output field.
//! - [`register_udfs`] registers one scalar UDF per extype op of [`udf_ops`] (every catalog
//!   reduction, such as `extype_reduce_mean`, and every unary elementwise op, such as
//!   `extype_abs`): the column becomes an extype batch ([`extype_arrow::from_array`]), the op
//!   is dispatched on it by its type (the registered type of the field's
//!   `ARROW:extension:name`, or a dense tensor for `arrow.fixed_shape_tensor`), reductions over
//!   the item axes (every axis but the leading batch axis), and the result goes back to Arrow
//!   ([`extype_arrow::value_to_array`]). The return field is computed at planning time by the
//!   same path on an empty batch, so it carries the result's extension metadata when the result
//!   is an extension value (a masked mean of an `extype.MaskedTensor` column is an
//!   `extype.MaskedTensor` column of one element per row).
//!
//! Errors — a column that is not of extension values, an extension name no type of this
//! program registers, an op the type has no handler for — are DataFusion planning errors
//! naming the function, the argument and what was found.
//!
//! - [`register_parquet`] registers a Parquet file, or a directory of them (Hive-style
//!   `key=value` partitions as string columns), as [`extype_arrow::write_parquet`] writes them,
//!   as a table ([`ParquetDataset`]) that keeps its fields' extension metadata and is scanned
//!   as queries run, a row group at a time with extype-arrow's reader.
//!
//! [`sql`] runs a query to its record batches without an async runtime of the caller's
//! ([`block_on`] any other DataFusion future), and the crate re-exports [`datafusion`], so a
//! program needs neither `tokio` nor `datafusion` among its own dependencies.
//!
//! ```
//! use extype::types::MaskedTensor;
//! use extype_core::{Tensor, Value, batch};
//! use extype_datafusion::datafusion::prelude::SessionContext;
//! use extype_datafusion::{register_batches, register_udfs, sql};
//! use ndarray::array;
//!
//! let items = vec![
//!     MaskedTensor::new(array![1.0f32, 2.0, 9.0].into_dyn(), array![true, true, false].into_dyn())?,
//!     MaskedTensor::new(array![4.0f32, 5.0, 6.0].into_dyn(), array![true, true, true].into_dyn())?,
//! ];
//! let rb = extype_arrow::to_record_batch(&[("m", &Value::from_extension(batch::stack(&items)?))])?;
//! let ctx = SessionContext::new();
//! register_batches(&ctx, "t", &[rb])?;
//! register_udfs(&ctx);
//! let out = sql(&ctx, "SELECT extype_reduce_mean(m) AS mean FROM t")?;
//! let mean: MaskedTensor = extype_arrow::column_as(&out[0], "mean")?;
//! assert_eq!(mean.values(), &Tensor::from(array![1.5f32, 5.0].into_dyn()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

use std::fmt;
use std::future::Future;
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::Arc;

mod dataset;

pub use dataset::ParquetDataset;

/// The DataFusion this crate builds on (55, on the arrow extype-arrow uses), for programs that
/// use it through this crate only.
pub use datafusion;

use datafusion::arrow::array::{ArrayRef, new_empty_array};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::{DataFusionError, Result, exec_err, internal_err, plan_err};
use datafusion::datasource::MemTable;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};
use datafusion::prelude::SessionContext;
use extype_arrow::{EXTENSION_NAME, FIXED_SHAPE_TENSOR};
use extype_core::ops::{self, OpArgs, catalog};
use extype_core::{AsOperand, Op, OpKind, Value, registry};

/// Runs `future` to completion on a current-thread tokio runtime made for the call, from
/// synchronous code: a DataFusion future (`ctx.sql(q)`, `df.collect()`) without a runtime of
/// the caller's. Called from inside a tokio runtime (where blocking would stall it), an error:
/// there, `.await` the future instead.
///
/// ```
/// use extype_datafusion::{block_on, datafusion::prelude::SessionContext};
/// let ctx = SessionContext::new();
/// let df = block_on(ctx.sql("SELECT 1 + 1 AS two"))??;
/// assert_eq!(block_on(df.collect())??[0].num_rows(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn block_on<F: Future>(future: F) -> Result<F::Output> {
    if tokio::runtime::Handle::try_current().is_ok() {
        return exec_err!(
            "block_on: called inside a tokio runtime, which blocking would stall; expected a \
             call from synchronous code (inside a runtime, `.await` the future)"
        );
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|e| DataFusionError::External(Box::new(e)))?;
    Ok(rt.block_on(future))
}

/// Runs the SQL query `query` on `ctx` and collects its record batches, from synchronous code
/// ([`block_on`]): planning and execution errors are DataFusion's, as `ctx.sql(query)` and
/// `collect` give them.
pub fn sql(ctx: &SessionContext, query: &str) -> Result<Vec<RecordBatch>> {
    block_on(async { ctx.sql(query).await?.collect().await })?
}

/// Registers the Parquet file or dataset at `path` as the table `name` of `ctx` (replacing a
/// table of that name), a [`ParquetDataset`]: its fields keep their extension metadata, so the
/// extype UDFs and [`extype_arrow::column_as`] read its extension columns. The table is scanned
/// as queries run, a row group at a time (no file is read into memory whole), with
/// extype-arrow's reader, which decodes a ragged column's nested lists straight from its pages.
///
/// `path` is a Parquet file, or a directory whose files (in subdirectories too; names starting
/// with `.` or `_`, such as `_SUCCESS`, skipped) are Parquet files of one schema, named
/// `*.parquet`. Subdirectories named `key=value` (Hive-style partitioning, the same keys in the
/// same order above every file) add one string column per key; a filter on those columns alone
/// skips the files it excludes.
///
/// Errors name the path: a missing path, an empty directory, a file that is not Parquet (by its
/// first bytes: `is an Arrow IPC file`) or not named `*.parquet`, files under differing
/// partition keys, a first file that does not check; a file of another schema than the first
/// is an error of the query that scans it, naming both.
pub fn register_parquet(ctx: &SessionContext, name: &str, path: impl AsRef<Path>) -> Result<()> {
    let dataset = ParquetDataset::open(name, path)?;
    ctx.deregister_table(name)?;
    ctx.register_table(name, Arc::new(dataset))?;
    Ok(())
}

/// Registers `batches` (record batches of one schema, columns of extension values among them)
/// as the in-memory table `name` of `ctx`, replacing a table of that name. The schema, field
/// metadata included, is the first batch's; an empty slice or batches of differing schemas are
/// an error.
pub fn register_batches(ctx: &SessionContext, name: &str, batches: &[RecordBatch]) -> Result<()> {
    let Some(first) = batches.first() else {
        return plan_err!("register_batches: table `{name}`: expected at least one record batch");
    };
    let table = MemTable::try_new(first.schema(), vec![batches.to_vec()])?;
    ctx.register_table(name, Arc::new(table))?;
    Ok(())
}

/// The extype ops [`register_udfs`] makes UDFs of: every catalog op of kind
/// [`OpKind::Reduction`] (over the item axes) or [`OpKind::UnaryElementwise`].
pub fn udf_ops() -> impl Iterator<Item = &'static Op> {
    catalog::ALL
        .iter()
        .copied()
        .filter(|op| matches!(op.kind(), OpKind::Reduction | OpKind::UnaryElementwise))
}

/// The UDF of every op of [`udf_ops`] ([`ExtypeOpUdf`], named `extype_<op>`).
pub fn udfs() -> Vec<ScalarUDF> {
    udf_ops()
        .filter_map(|op| ExtypeOpUdf::new(op).ok())
        .map(ScalarUDF::new_from_impl)
        .collect()
}

/// Registers every UDF of [`udfs`] with `ctx` (`extype_reduce_mean`, `extype_reduce_sum`,
/// `extype_abs`, …).
pub fn register_udfs(ctx: &SessionContext) {
    for udf in udfs() {
        ctx.register_udf(udf);
    }
}

/// A scalar UDF applying one extype op to a column of extension values (or of
/// `arrow.fixed_shape_tensor` tensors) row by row: reductions over each row's item axes, unary
/// elementwise ops on the whole batch. See the [crate docs](crate).
pub struct ExtypeOpUdf {
    op: &'static Op,
    name: String,
    signature: Signature,
}

impl ExtypeOpUdf {
    /// The UDF `extype_<op>` of `op`, which must be a reduction or a unary elementwise op.
    pub fn new(op: &'static Op) -> Result<Self> {
        if !matches!(op.kind(), OpKind::Reduction | OpKind::UnaryElementwise) {
            return plan_err!(
                "extype UDF: op `{}` is of kind {:?}; expected a reduction or a unary elementwise op",
                op.name(),
                op.kind()
            );
        }
        Ok(Self {
            op,
            name: format!("extype_{}", op.name()),
            signature: Signature::any(1, Volatility::Immutable),
        })
    }

    /// The extype op this UDF applies.
    pub fn op(&self) -> &'static Op {
        self.op
    }

    /// `field`'s extension name, checked: a type registered in this program, or
    /// `arrow.fixed_shape_tensor`.
    fn check_field(&self, field: &Field) -> Result<()> {
        let found = || format!("field `{}` of type {}", field.name(), field.data_type());
        let Some(ext) = field.metadata().get(EXTENSION_NAME) else {
            return plan_err!(
                "{}: argument 0: expected a column of extension values (a field with {EXTENSION_NAME}), found {} without extension metadata",
                self.name,
                found()
            );
        };
        if ext == FIXED_SHAPE_TENSOR {
            return Ok(());
        }
        match registry().resolve(ext) {
            Ok(Some(_)) => Ok(()),
            Ok(None) => plan_err!(
                "{}: argument 0: unknown extension name `{ext}` on {} (registered in this program: {})",
                self.name,
                found(),
                registry().names().join(", ")
            ),
            Err(e) => plan_err!("{}: argument 0: {} ({ext}): {e}", self.name, found()),
        }
    }

    /// The op on a batch: reductions over every axis but the leading one.
    fn apply(&self, value: &Value) -> extype_core::Result<Value> {
        let args = match self.op.kind() {
            OpKind::Reduction => {
                let rank = ops::rank(value)?;
                let axes: Vec<isize> = (1..rank as isize).collect();
                OpArgs::axes(&axes)
            }
            _ => OpArgs::none(),
        };
        ops::call(self.op, &[value.as_operand()], &args)
    }

    /// The column as a batch, the op, the result as a column.
    fn run(&self, field: &Field, array: &ArrayRef, when: Phase) -> Result<(Field, ArrayRef)> {
        let err = |what: &str, e: &dyn fmt::Display| {
            let msg = format!(
                "{}: argument 0 (field `{}` of type {}): {what}: {e}",
                self.name,
                field.name(),
                field.data_type()
            );
            match when {
                Phase::Plan => DataFusionError::Plan(msg),
                Phase::Execute => DataFusionError::Execution(msg),
            }
        };
        let value = extype_arrow::from_array(field, array.as_ref())
            .map_err(|e| err("reading the column", &e))?;
        if when == Phase::Plan && !ops::supported(&value).is_ok_and(|ops| ops.contains(&self.op)) {
            return plan_err!(
                "{}: argument 0 (field `{}`): no handler of `{}` for {}",
                self.name,
                field.name(),
                self.op.name(),
                value.type_name()
            );
        }
        let result = self.apply(&value).map_err(|e| err(self.op.name(), &e))?;
        extype_arrow::value_to_array(&result, &self.name).map_err(|e| err("writing the result", &e))
    }
}

/// Where an error arises: planning (the return field) or execution.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Plan,
    Execute,
}

impl fmt::Debug for ExtypeOpUdf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExtypeOpUdf")
            .field("name", &self.name)
            .finish()
    }
}

impl PartialEq for ExtypeOpUdf {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for ExtypeOpUdf {}

impl Hash for ExtypeOpUdf {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state);
    }
}

impl ScalarUDFImpl for ExtypeOpUdf {
    fn name(&self) -> &str {
        &self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        internal_err!(
            "{}: the return type comes from return_field_from_args",
            self.name
        )
    }

    /// The op run on an empty batch of the argument's field: the result's field, with its
    /// extension metadata.
    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let [field] = args.arg_fields else {
            return plan_err!(
                "{}: expected 1 argument, found {}",
                self.name,
                args.arg_fields.len()
            );
        };
        self.check_field(field)?;
        let empty = new_empty_array(field.data_type());
        let (out, _) = self.run(field, &empty, Phase::Plan)?;
        Ok(Arc::new(out))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let (Some(array), Some(field)) = (arrays.first(), args.arg_fields.first()) else {
            return exec_err!("{}: expected 1 argument, found none", self.name);
        };
        let (_, out) = self.run(field, array, Phase::Execute)?;
        if out.data_type() != args.return_field.data_type() {
            return exec_err!(
                "{}: the result's type {} differs from the planned {}",
                self.name,
                out.data_type(),
                args.return_field.data_type()
            );
        }
        Ok(ColumnarValue::Array(out))
    }
}
