//! Writing: one value (or a shard of values) as a safetensors file, atomically.
//!
//! The bytes are laid out by the `safetensors` crate (`serialize_to_file`): tensors sorted by
//! decreasing alignment, then by name, after a header padded to a multiple of 8 bytes, so every
//! tensor starts at a file offset that is a multiple of its element size. The file is written
//! under a temporary name in the target's directory and renamed over the target only once
//! complete: a failed save leaves the previous file, if any, as it was.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use safetensors::Dtype;

use super::bytes::view_bytes;
use super::format::Save;
use super::header::safetensors_name;
use crate::dtype::DType;
use crate::error::{IoError, Result};
use crate::tensor::TensorView;

/// A tensor as the `safetensors` crate's writer sees it.
struct Out<'a> {
    dtype: DType,
    shape: Vec<usize>,
    bytes: Cow<'a, [u8]>,
}

fn st_dtype(d: DType) -> Dtype {
    match d {
        DType::Bool => Dtype::BOOL,
        DType::I8 => Dtype::I8,
        DType::I16 => Dtype::I16,
        DType::I32 => Dtype::I32,
        DType::I64 => Dtype::I64,
        DType::U8 => Dtype::U8,
        DType::U16 => Dtype::U16,
        DType::U32 => Dtype::U32,
        DType::U64 => Dtype::U64,
        DType::F32 => Dtype::F32,
        DType::F64 => Dtype::F64,
        DType::F16 => Dtype::F16,
        DType::BF16 => Dtype::BF16,
    }
}

impl safetensors::View for &Out<'_> {
    fn dtype(&self) -> Dtype {
        st_dtype(self.dtype)
    }
    fn shape(&self) -> &[usize] {
        &self.shape
    }
    fn data(&self) -> Cow<'_, [u8]> {
        Cow::Borrowed(&self.bytes)
    }
    fn data_len(&self) -> usize {
        self.bytes.len()
    }
}

/// Writes `tensors` (name, view) and `metadata` to `path` through a temporary file and a rename.
pub(crate) fn write_file(
    path: &Path,
    metadata: BTreeMap<String, String>,
    tensors: Vec<(String, TensorView<'_>)>,
) -> Result<()> {
    let file = path.display();
    debug_assert!(
        tensors
            .iter()
            .all(|(_, v)| !safetensors_name(v.dtype()).is_empty())
    );
    let outs: Vec<(String, Out<'_>)> = tensors
        .iter()
        .map(|(name, v)| {
            (
                name.clone(),
                Out {
                    dtype: v.dtype(),
                    shape: v.shape().to_vec(),
                    bytes: view_bytes(v),
                },
            )
        })
        .collect();
    let meta: HashMap<String, String> = metadata.into_iter().collect();
    write_atomically(path, |temp| {
        safetensors::serialize_to_file(outs.iter().map(|(n, o)| (n.as_str(), o)), Some(meta), temp)
            .map_err(|e| {
                IoError::at(
                    &file,
                    "",
                    format!("cannot write (through {}): {e}", temp.display()),
                )
            })
    })
}

/// Writes a file atomically: `write` writes the whole content to a temporary path beside
/// `path` (the same directory, so the rename stays on one file system), which is renamed over
/// `path` once `write` succeeded. On any failure the temporary file is removed and a file
/// already at `path` stays as it was. Every writer of extype files goes through here (safetensors
/// saves, and the Arrow IPC and Parquet files of `extype-arrow`). Not synced to disk.
///
/// ```
/// use extype_core::io::write_atomically;
/// let dir = std::env::temp_dir().join(format!("extype-doc-atomic-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("notes.txt");
/// std::fs::write(&path, "old")?;
/// let failed: Result<(), extype_core::Error> = write_atomically(&path, |temp| {
///     std::fs::write(temp, "half a file").unwrap();
///     Err(extype_core::Error::invalid("the writer failed"))
/// });
/// assert!(failed.is_err());
/// assert_eq!(std::fs::read_to_string(&path)?, "old"); // the previous file is intact
/// write_atomically(&path, |temp| {
///     std::fs::write(temp, "new").map_err(|e| extype_core::Error::invalid(e.to_string()))
/// })?;
/// assert_eq!(std::fs::read_to_string(&path)?, "new");
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_atomically<T, E: From<crate::error::Error>>(
    path: &Path,
    write: impl FnOnce(&Path) -> std::result::Result<T, E>,
) -> std::result::Result<T, E> {
    let temp = temp_path(path)?;
    let result = write(&temp).and_then(|value| {
        std::fs::rename(&temp, path).map_err(|e| {
            E::from(IoError::at(
                path.display(),
                "",
                format!(
                    "cannot rename the written file {} over it: {e}",
                    temp.display()
                ),
            ))
        })?;
        Ok(value)
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

/// A fresh name beside `path`: `.NAME.PID.N.tmp` in the same directory (so the rename stays on
/// one file system and is atomic).
fn temp_path(path: &Path) -> Result<PathBuf> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let Some(name) = path.file_name() else {
        return Err(IoError::at(
            path.display(),
            "",
            "not a file path (no file name)",
        ));
    };
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let temp = format!(".{}.{}.{n}.tmp", name.to_string_lossy(), std::process::id());
    Ok(path.with_file_name(temp))
}

/// Saves a value (any extension value, a [`Tensor`](crate::Tensor) or a [`Value`](crate::Value))
/// to `path` as a safetensors file: one tensor per component, named by its field path, and the
/// format, type name, spec JSON and component order in `__metadata__` (see [the module
/// docs](super)).
///
/// The value is validated first, as loading it will be (nested values, shape contract, the
/// type's own `validate`): a value that breaks its type's rules (built with a struct literal,
/// say) is an error naming the type and what failed, and nothing is written (a file already at
/// `path` stays as it was). The cost is the validation's: the contract's checks are per field,
/// not per element.
///
/// The write is atomic: a temporary file in the same directory, renamed over `path` when
/// complete. It is not synced to disk (call `File::sync_all` on the result when the file must
/// survive a power loss).
///
/// ```
/// use extype_core::{Tensor, io};
/// let dir = std::env::temp_dir().join(format!("extype-doc-save-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("t.safetensors");
/// io::save(&path, &Tensor::from(ndarray::array![[1.0f32, 2.0], [3.0, 4.0]]))?;
/// let back = io::load(&path)?.into_tensor()?;
/// assert_eq!(back.shape(), &[2, 2]);
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn save(path: impl AsRef<Path>, value: &(impl Save + ?Sized)) -> Result<()> {
    let path = path.as_ref();
    value
        .__validate()
        .map_err(|e| IoError::at(path.display(), "", format!("not written: {e}")))?;
    let (record, views) = value.__record()?;
    let metadata = record.file_metadata()?;
    let tensors = record
        .components
        .iter()
        .map(|c| c.to_string())
        .zip(views)
        .collect();
    write_file(path, metadata, tensors)
}
