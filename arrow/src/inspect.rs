//! What an Arrow IPC file or stream, or a Parquet file, holds: its columns (with their extension
//! types and, for extype's, the spec), its rows and its batches, from the file's metadata — what
//! `extype inspect` prints for them.

use std::path::Path;

use arrow_schema::SchemaRef;
use extype_core::SpecTree;
use extype_core::io::FileKind;
use extype_core::registry::registry;

use crate::error::Result;
use crate::files::{open, prefix, read_all};
use crate::ipc_read::{self, Format};
use crate::metadata::{EXTENSION_METADATA, EXTENSION_NAME};
use crate::validate::{ReadLimit, malformed};

/// What an Arrow IPC or Parquet file holds, as [`inspect`] reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArrowFileInfo {
    /// The format: [`FileKind::ArrowIpcFile`], [`FileKind::ArrowIpcStream`] or
    /// [`FileKind::Parquet`].
    pub kind: FileKind,
    /// The file's size in bytes.
    pub file_bytes: u64,
    /// The number of rows.
    pub rows: u64,
    /// The number of record batches (IPC) or row groups (Parquet).
    pub batches: usize,
    /// The top-level columns, in schema order.
    pub columns: Vec<ColumnInfo>,
}

/// One top-level column of a file, as [`inspect`] reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnInfo {
    /// The column's name.
    pub name: String,
    /// Its Arrow storage type, as Arrow prints it (`Float32`, `Struct(…)`).
    pub data_type: String,
    /// Whether it may hold nulls.
    pub nullable: bool,
    /// Its extension type (`ARROW:extension:name`: an extype registered name such as
    /// `extype.MaskedTensor`, or a canonical Arrow one such as `arrow.fixed_shape_tensor`).
    pub extension: Option<String>,
    /// For an extype extension column, the spec of its batch, compact as extype prints specs
    /// (fields in declaration order); what is wrong with it when it does not read as a spec.
    pub spec: Option<String>,
}

/// The longest spec JSON shown compactly; a longer one is summarised (as `extype inspect` does
/// for safetensors files).
const SHOWN_SPEC: usize = 64 << 10;

/// Reads the metadata of the Arrow IPC file or stream, or Parquet file, at `path` and reports
/// what it holds.
///
/// The format is told by the file's first bytes. A Parquet file's footer and page headers are
/// read and checked, no page is decoded; an IPC file or stream is read into memory and its
/// layout and each batch's metadata checked, no body is decoded. A file of another format is
/// an error saying what it is and which reader takes it (a safetensors file: `extype::io::load`).
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("extype-arrow-inspect-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// use extype_arrow::{inspect, to_record_batch, write_parquet};
/// use extype_core::{Tensor, Value};
///
/// let t = Tensor::from(ndarray::array![[1.0f32, 2.0], [3.0, 4.0]]);
/// let path = dir.join("t.parquet");
/// write_parquet(&path, &[to_record_batch(&[("t", &Value::from(t))])?])?;
/// let info = inspect(&path)?;
/// assert_eq!((info.rows, info.columns.len()), (2, 1));
/// assert_eq!(info.columns[0].extension.as_deref(), Some("arrow.fixed_shape_tensor"));
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn inspect(path: impl AsRef<Path>) -> Result<ArrowFileInfo> {
    let path = path.as_ref();
    let at = path.display().to_string();
    let file = open(path)?;
    let file_bytes = file
        .metadata()
        .map_err(|source| crate::error::Error::File {
            path: at.clone(),
            source,
        })?
        .len();
    let kind = FileKind::sniff(&prefix(&file, &at)?);
    let (kind, schema, rows, batches) = match kind {
        Some(FileKind::Parquet) => {
            let meta = crate::parquet_check::load(&file, file_bytes, &at, &ReadLimit::default())?;
            let parquet = meta.metadata();
            // `load` checked the row counts: each within the file's bound, never negative.
            let rows = u64::try_from(parquet.file_metadata().num_rows()).unwrap_or(0);
            let groups = parquet.num_row_groups();
            (FileKind::Parquet, meta.schema().clone(), rows, groups)
        }
        Some(kind @ (FileKind::ArrowIpcFile | FileKind::ArrowIpcStream)) => {
            let format = if kind == FileKind::ArrowIpcFile {
                Format::File
            } else {
                Format::Stream
            };
            let bytes = read_all(file, &at)?;
            let (schema, each) = ipc_read::summary(&bytes, format, &at)?;
            let rows = each.iter().fold(0u64, |sum, &r| sum.saturating_add(r));
            (kind, schema, rows, each.len())
        }
        Some(other) => {
            return Err(malformed(
                &at,
                format!("is {}, not an Arrow IPC or Parquet file", other.described()),
            ));
        }
        None => {
            return Err(malformed(
                &at,
                "not an Arrow IPC file or stream, nor a Parquet file: its first bytes are the \
                 magic of neither (`ARROW1`, the stream's continuation marker, `PAR1`)",
            ));
        }
    };
    Ok(ArrowFileInfo {
        kind,
        file_bytes,
        rows,
        batches,
        columns: columns(&schema),
    })
}

/// The report of each top-level field of `schema`.
fn columns(schema: &SchemaRef) -> Vec<ColumnInfo> {
    schema
        .fields()
        .iter()
        .map(|field| {
            let extension = field.metadata().get(EXTENSION_NAME).cloned();
            let spec = extension
                .as_deref()
                .filter(|name| !name.starts_with("arrow."))
                .and_then(|_| field.metadata().get(EXTENSION_METADATA))
                .map(|json| spec_text(json));
            ColumnInfo {
                name: field.name().clone(),
                data_type: field.data_type().to_string(),
                nullable: field.is_nullable(),
                extension,
                spec,
            }
        })
        .collect()
}

/// The spec document `json`, compact: as the registered type prints it when this program links
/// the type, else from the document (fields in the order it records).
fn spec_text(json: &str) -> String {
    if json.len() > SHOWN_SPEC {
        return format!("(a spec of {} bytes of JSON, not shown)", json.len());
    }
    match SpecTree::from_json(json) {
        Ok(tree) => registry()
            .deserialize_spec(&tree)
            .map_or_else(|_| tree.to_string(), |spec| spec.to_string()),
        Err(e) => format!("(not a spec: {e})"),
    }
}
