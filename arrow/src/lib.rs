//! Batches of extype extension values as Apache Arrow extension arrays, so they travel to every
//! Arrow engine (DataFusion, Polars, DuckDB, Spark, pyarrow) and back.
//!
//! A batch of any batchable extension type (a value whose components have a leading batch
//! axis, as [`extype_core::batch::stack`] makes) is one Arrow column:
//!
//! - a **struct array**, one child per component field; nested types nest (a nested
//!   registered type's struct carries its own extension metadata); a ragged batch is nested
//!   lists instead (below);
//! - on a field whose metadata holds `ARROW:extension:name` (the registered name, such as
//!   `extype.MaskedTensor`) and `ARROW:extension:metadata` (the spec's versioned JSON, the same
//!   document [`extype_core::serial::spec_to_json`] writes); static fields live there;
//! - each component whose items have rank ≥ 1 is an **`arrow.fixed_shape_tensor`** child (a
//!   `FixedSizeList` of the item's elements, metadata `{"shape":[…]}` exactly as the Arrow
//!   specification writes it: absent keys, never `null`); items of rank 0 are plain arrays;
//! - a component declared as another's **validity** (`#[extype(validity_of = values)]`, such as
//!   `MaskedTensor`'s `mask`) is no child of its own: it is the **Arrow validity bitmap** of the
//!   values' elements (a fixed-size list's child values; a rank-0 component's array itself),
//!   and the values' child field says so with [`VALIDITY`] (`extype:validity` = `mask`). So an
//!   engine that knows nothing of extype sees a masked-out element as `NULL` and skips it
//!   (DuckDB's `list_avg`, `pyarrow.compute.mean`: the masked mean). The spec JSON is as
//!   always. The mask is packed in one pass, the values not copied (no bitmap when every
//!   element is valid); it must be `bool` of the values' shape (else a write error).
//!
//! Reading ([`from_array`], [`column()`]) rebuilds the batch through the registry, with the
//! checks every load has (dtypes and shapes against the spec, the shape contract, the type's
//! `validate`); a type not linked into the reading program loads as an anonymous value. An
//! array of the wrong storage type is an error naming the field and both types. Reading also
//! takes what other writers produce: `arrow.fixed_shape_tensor` with `dim_names` and a
//! `permutation` (arrow-rs's legacy `permutations` key too), nullable or non-null list
//! children; and [`from_columns_as`] builds a derived type from plain columns named by its
//! component paths (a pyarrow table of `pa.fixed_shape_tensor` columns; a declared mask
//! without a column comes from the values' null elements, all `true` where they have none).
//!
//! A validity bitmap reads back as the mask (`false` where null; none: all `true`), with
//! or without the type linked in; the values under null elements are kept exactly (IPC, in
//! memory), except in Parquet, which stores no value for a null element: those read back as
//! zero. Files of the earlier layout, the mask a `bool` child of its own, still load.
//!
//! Two masked batches still write the mask as a `bool` child of its own, which engines read
//! as data (extype reads both back exactly):
//! - **an anonymous value** (a masked column read by a program without its type linked in,
//!   then written again): which component is whose validity is a declaration of the Rust
//!   type, not part of the spec JSON, and an anonymous value has only the JSON (core's
//!   `AnonymousSpec` declares no validity). Carrying it would mean a new field of the spec
//!   document, read by every version; link the type in to write the bitmap.
//! - **a batch in the row layout** (a custom encoder's batch whose items do not stack and
//!   that declares no list layout, with a declared validity among its components): each
//!   component is an `arrow.variable_shape_tensor` of its own. No library type is such a
//!   batch (`MaskedTensor` stacks; `RaggedTensor` values are unmasked; `SparseTensor`
//!   declares no validity), so there is no engine-visible case to serve yet.
//!
//! **Ragged batches are nested lists.** A batch whose encoder declares a
//! [`ListLayout`](extype_core::batch::ListLayout) (`BatchEncoder::list_layout`: the component
//! holding the flat values and those holding each level's row splits, outermost first) — every
//! `RaggedTensor`, and a user type whose encoder says so — is no struct: the column is one
//! **`LargeList`** level per splits component, the splits its offsets, around the flat values (a
//! plain array; an `arrow.fixed_shape_tensor`, a `FixedSizeList`, for uniform inner
//! dimensions). A batch of `f32` ragged items of ragged rank 1 (a `RaggedTensor` of ragged rank
//! 2) is `large_list<large_list<float>>`, which engines compute on natively: pyarrow's
//! `list_flatten` and `list_value_length`, DuckDB's `list_sum` (`FLOAT[][]`), Polars' `list`
//! namespace, awkward's `var * var * float32`. The field keeps the extension name and spec JSON,
//! and [`LIST_LAYOUT`] names the components; static fields (a `RaggedTensor`'s uniform row
//! lengths) are in the spec, so the round trip is exact (values, splits, dtype, spec; a uniform
//! partition stays a list level, its spec saying uniform).
//!
//! `LargeList`, never `List`: extype's splits are `i64`, and `LargeList`'s `i64` offsets are their
//! buffer itself, so export copies neither splits nor values (standard layout; `bool` values are
//! packed to bits) and import views both, at any size; `List`'s `i32` offsets would copy every
//! level (narrowing) and need a second layout past 2³¹ values, for no engine that reads one and
//! not the other. Reading also takes `List` levels (pyarrow's default `list<list<float>>`: the
//! offsets widened, one copy) and offsets not from 0 (a sliced array: rebased, one copy); a
//! column holding part of a batch (a slice, a Parquet file read in batches) is the batch of
//! those items. It needs the type linked in (the layout is its encoder's); an error names the
//! field, expected and found: a level that is not a list, null rows, values of another dtype or
//! inner shape, a [`LIST_LAYOUT`] that is not the type's. Writing checks the splits (`i64`, from
//! 0, never decreasing, ending at the rows below).
//!
//! Other items of varying shape — a custom encoder's batch whose components do not stack along
//! one leading axis and whose encoder declares no list layout (a `SparseTensor` batch) — take
//! the **row layout**: the batch is unstacked and each component of the items is an
//! **`arrow.variable_shape_tensor`** child (a struct of `data`, a list of the item's elements,
//! and `shape`), one row per item; the field's metadata also holds the first item's spec
//! (`extype:item_spec`). Reading rebuilds each row as an item and stacks them with the type's
//! encoder (so the type must be linked in). A batch takes this layout exactly when its spec is
//! not that of a stack of its rows (`batch::rebatched_spec`: the spec of the same batch, and
//! every component of a batch of one more item one row longer, which a sparse batch's entries
//! are not even when they number as many as its items). Rows are copied both ways on export
//! (into one flat list), and viewed in place on import. A column of zero rows reads back as the
//! type's empty batch of the item spec (`batch::empty_batch`), and an empty batch writes its
//! spec unbatched (`batch::item_spec`) as the item spec. Files in which a ragged batch took the
//! row layout (before the list layout) still load.
//!
//! **Sparse batches** keep the row layout: a batch of `SparseTensor`s is the COO entries of all
//! its items in one list, whose items' entries the indices locate (no splits component: no list
//! layout to declare), and Arrow has no COO column type (its sparse tensor is an IPC message,
//! not an array). Engines see one row per item, a struct of three variable-shape tensors:
//! `indices` (`data`: the item's indices, row-major `[nnz, rank]`, `shape`: `[nnz, rank]`),
//! `values` (`data`: its stored values, `shape`: `[nnz]`) and `dense_shape` (`data`: its dense
//! shape). So DuckDB's `list_sum(s.values.data)` is each item's sum; pyarrow 26 reads each
//! child from an IPC file as its canonical `arrow.variable_shape_tensor` extension (from Parquet
//! as the plain struct) and reaches `values.data` as a list column; a dense view or an element
//! lookup needs extype (or a scatter of `values.data` at `indices.data`).
//!
//! Elements map to Arrow's primitive types of the same width (`f16` is `Float16`); Arrow has
//! no bfloat16 type, so a `bf16` component travels as its bits in `UInt16` children and the
//! spec in the field's metadata says `bf16` (other readers see unsigned 16-bit integers).
//!
//! ```
//! use extype::types::MaskedTensor;
//! use extype_arrow::{arrow_schema, column_as, to_record_batch};
//! use extype_core::{Value, batch};
//! use ndarray::array;
//!
//! let items = vec![
//!     MaskedTensor::new(array![1.0f32, 2.0].into_dyn(), array![true, false].into_dyn())?,
//!     MaskedTensor::new(array![3.0f32, 4.0].into_dyn(), array![false, true].into_dyn())?,
//! ];
//! let b = batch::stack(&items)?;
//! let rb = to_record_batch(&[("x", &Value::from_extension(b.clone()))])?;
//! let field = rb.schema().field(0).clone();
//! assert_eq!(field.metadata()["ARROW:extension:name"], "extype.MaskedTensor");
//! // The mask is the validity bitmap of the values' elements.
//! let children = match field.data_type() {
//!     arrow_schema::DataType::Struct(children) => children.clone(),
//!     other => panic!("{other}"),
//! };
//! assert_eq!(children.len(), 1);
//! assert_eq!(children[0].metadata()[extype_arrow::VALIDITY], "mask");
//! let back: MaskedTensor = column_as(&rb, "x")?;
//! assert_eq!(back, b);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Copies
//!
//! Export copies no tensor data when a component is in standard (row-major, contiguous)
//! layout: the Arrow buffer points into the tensor's memory and holds the tensor. Import views
//! an aligned Arrow buffer in place (an extype external tensor holding the buffer). A copy
//! happens, once, for: `bool` components (Arrow packs booleans into bits; extype keeps a byte
//! each), both ways; components not in standard layout, on export; Arrow buffers not aligned
//! for the element type, and `arrow.fixed_shape_tensor` columns with a non-identity
//! `permutation`, on import; and reading files (the IPC and Parquet readers read into memory
//! of their own; the tensors then view that memory). A field of an ndarray `Array`/`ArcArray`
//! type owns its buffer, so building it copies an external tensor: declare it as
//! `extype::Tensor` to keep the Arrow memory.
//!
//! # Files
//!
//! [`write_ipc_file`], [`read_ipc_file`], [`write_ipc_stream`], [`read_ipc_stream`],
//! [`write_parquet`], [`write_parquet_with`], [`read_parquet`]: record batches with their extension metadata, through
//! the Arrow project's `arrow-ipc` and `parquet` crates; [`ParquetFile`] reads a Parquet file a
//! row group at a time, for readers that stream (the DataFusion crate's dataset scan). [`inspect`] reports what a file holds
//! (columns, extension types and specs, rows, batches) from its metadata, as `extype inspect`
//! prints it. Each reader given a file of another format (told by its first bytes) says what
//! it is and which reader takes it: `is a safetensors file (read it with extype::io::load), not
//! a Parquet file`.
//!
//! Files may be hostile: the readers check what arrow-rs takes on trust before it decodes
//! anything (an IPC file's footer and every message's lengths, buffers and types; a Parquet
//! file's row counts, column chunks, page headers and stored Arrow schema), contain the panics
//! left, and validate the decoded arrays in full. A malformed file is an [`Error::Malformed`]
//! (or an Arrow or Parquet error) naming it; rows decoding to more than 64 times the file's
//! size (at least 4 MiB) are refused, so a count the file claims but does not hold is never
//! allocated. The writers check first: batches of one schema, extension columns that read back
//! as their types (so a value failing its validation is never written); a refused write leaves
//! the file as it was.
//!
//! # Arrow version
//!
//! Arrow 59, the version DataFusion's current release (55) builds on, so that a program using
//! both has one `arrow` in its build.

#![warn(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod columns;
mod error;
mod files;
mod inspect;
mod ipc_read;
mod lists;
mod metadata;
mod parquet_check;
mod parquet_columns;
mod parquet_lists;
mod parquet_pages;
mod parquet_read;
mod paths;
mod read;
mod tensor;
mod validate;
mod write;

pub use arrow_array;
pub use arrow_buffer;
pub use arrow_data;
pub use arrow_ipc;
pub use arrow_schema;
pub use columns::from_columns_as;
pub use error::{Error, Result};
pub use files::{
    ROW_GROUP_BYTES, read_ipc_file, read_ipc_stream, write_ipc_file, write_ipc_stream,
    write_parquet, write_parquet_with,
};
pub use inspect::{ArrowFileInfo, ColumnInfo, inspect};
pub use metadata::{
    EXTENSION_METADATA, EXTENSION_NAME, FIXED_SHAPE_TENSOR, FixedShapeTensor, LIST_LAYOUT,
    VALIDITY, VARIABLE_SHAPE_TENSOR,
};
pub use parquet;
pub use parquet_read::{ParquetFile, read_parquet, read_parquet_with_limit};
pub use read::{column, column_as, from_array, from_array_as, from_record_batch};
pub use tensor::{arrow_type, dtype_of};
pub use validate::{EXPANSION, FLOOR, ReadLimit};
#[doc(hidden)]
pub use write::to_row_array;
pub use write::{ITEM_SPEC, tensor_to_array, to_array, to_record_batch, value_to_array};
