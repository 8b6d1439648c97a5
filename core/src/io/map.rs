//! Memory-mapped reading: the header is parsed and checked at once, the tensor bytes stay in
//! the page cache and are viewed in place.

use std::path::Path;
use std::sync::Arc;

use memmap2::Mmap;

use super::bytes::shared_tensor;
use super::format::{Records, records};
use super::header::{self, Entry, Header};
use super::load::{self, Body, Plan, Target};
use crate::error::{IoError, Result};
use crate::registry::StoredSpec;
use crate::spec::{ExtensionType, Value};
use crate::tensor::{ExternalBytes, Tensor, TensorView, view_in_place};

/// A read-only map of a file, as bytes tensors view in place.
struct MappedFile(Mmap);

// SAFETY: the map is read-only and never remapped while this value lives, so `bytes` returns
// the same slice every time; its contents stay unchanged by `map`'s safety contract, which the
// caller of that `unsafe fn` upholds (nobody writes into or truncates the file while it is
// mapped), and a `MappedFile` is only made there.
unsafe impl ExternalBytes for MappedFile {
    fn bytes(&self) -> &[u8] {
        &self.0
    }
}

/// A safetensors file mapped into memory (see [`map`]).
///
/// Its tensors are viewed in the map, not copied: [`Mapped::tensor`] gives a
/// [`Tensor::External`] that holds the map, and [`Mapped::to_value`] / [`Mapped::to_type`] build
/// values whose tensors do the same. The file stays mapped while the `Mapped` or any such tensor
/// lives. A tensor whose bytes are not aligned for its dtype (possible only in files other
/// programs wrote: extype and Python's `safetensors` align every tensor) is copied instead, as
/// on a big-endian machine. A bool tensor's bytes are read once, to check each is 0 or 1.
///
/// A field of a derived type decides whether it can hold the map: a [`Tensor`] field does; an
/// ndarray `Array` or `ArcArray` field owns its buffer, so building one copies that tensor.
pub struct Mapped {
    file: String,
    map: Arc<dyn ExternalBytes>,
    header: Header,
    /// For an extype value file: its component paths, in component order.
    components: Option<Vec<String>>,
    /// For an extype value file of a known type (or a tensor): the value, planned when mapped.
    plan: Option<Plan>,
}

impl std::fmt::Debug for Mapped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mapped")
            .field("file", &self.file)
            .field("len", &self.len())
            .field("header", &self.header)
            .finish_non_exhaustive()
    }
}

/// Maps `path` into memory and checks its header: lengths, offsets, dtypes, and, for a file of a
/// registered type, each tensor's name, dtype and shape against the spec the file carries. The
/// cost is that of the header (no tensor byte is touched), whatever the file's size.
///
/// The type's validation and shape contracts run on a value, so they run when one is built
/// ([`Mapped::to_value`], [`Mapped::to_type`]).
///
/// # Safety
///
/// The file must not be modified or truncated — by this process or any other — while the
/// returned [`Mapped`] or any tensor or value made from it lives. The tensors read the mapped
/// bytes in place, checked once when made: bytes changed under them break Rust's aliasing rules
/// and can give invalid values (a `bool` holding 2 is undefined behaviour), and a truncated
/// file makes reading them fault (SIGBUS). This is the contract of memmap2's `Mmap::map`, on
/// which `map` is built; no check at map time can make it hold, since another process may write
/// the file later.
///
/// extype itself never writes a file in place: [`save`](super::save) and
/// [`ShardWriter`](super::ShardWriter) write a new file and rename it over the old one, which
/// leaves a mapped old file intact. When the file may be changed by others, use
/// [`load`](super::load) / [`load_as`](super::load_as) instead: the safe, copying read (one
/// read per tensor into its own buffer).
///
/// ```
/// use extype_core::{Tensor, io};
/// let dir = std::env::temp_dir().join(format!("extype-doc-map-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("t.safetensors");
/// io::save(&path, &Tensor::from(ndarray::array![1.0f64, 2.0, 3.0]))?;
/// // SAFETY: nothing writes to the file while it is mapped (only this example uses it).
/// let mapped = unsafe { io::map(&path)? };
/// let view = mapped.view("tensor")?; // no copy
/// assert_eq!(view.shape(), &[3]);
/// assert_eq!(mapped.to_value()?.into_tensor()?.shape(), &[3]);
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub unsafe fn map(path: impl AsRef<Path>) -> Result<Mapped> {
    let path = path.as_ref();
    let file = path.display().to_string();
    let (f, len) = load::open_file(path, &file)?;
    if len < 8 {
        // Checked before mapping: an empty file cannot be mapped on every platform.
        return Err(header::header_len(&file, &[], len).unwrap_err());
    }
    // SAFETY: the map is read-only and lives in the returned `Mapped` (and the tensors made from
    // it), which every view borrows or holds. That its bytes do not change or shrink while
    // mapped is `map`'s own safety contract, which the caller upholds.
    let map =
        unsafe { Mmap::map(&f) }.map_err(|e| IoError::at(&file, "", format!("cannot map: {e}")))?;
    let header = header::parse_bytes(&file, &map)?;
    let (components, plan) = match records(&file, &header.metadata, header.entries.len())? {
        Some(Records::Value(record)) => {
            let paths = record.components.iter().map(|c| c.to_string()).collect();
            let plan = load::plan(&file, &header, &Records::Value(record))?;
            // An anonymous value's spec tree is as large as its metadata: not kept beside it
            // (it is read again by `to_value`), so a map holds the file's metadata once.
            let keep = !plan
                .values
                .iter()
                .any(|t| matches!(t, Target::Stored(StoredSpec::Anonymous(_))));
            (Some(paths), keep.then_some(plan))
        }
        _ => (None, None),
    };
    Ok(Mapped {
        file,
        map: Arc::new(MappedFile(map)),
        header,
        components,
        plan,
    })
}

impl Mapped {
    /// The file's registered type name (`"Tensor"` for a tensor), or `None` for a file without
    /// extype metadata.
    pub fn type_name(&self) -> Option<&str> {
        self.components.as_ref()?;
        self.header.metadata.get("type").map(String::as_str)
    }

    /// The spec the file carries (versioned JSON; a tensor spec's text for a tensor).
    pub fn spec_json(&self) -> Option<&str> {
        self.components.as_ref()?;
        self.header.metadata.get("spec").map(String::as_str)
    }

    /// The tensor names: the component paths in component order for an extype value file, else
    /// the file's order.
    pub fn names(&self) -> Vec<&str> {
        match &self.components {
            Some(paths) => paths.iter().map(String::as_str).collect(),
            None => self.header.entries.iter().map(|e| e.name).collect(),
        }
    }

    /// The parsed header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The mapped file's size in bytes.
    pub fn len(&self) -> usize {
        self.map.bytes().len()
    }

    /// Whether the mapped file is empty (never: an empty file does not map).
    pub fn is_empty(&self) -> bool {
        self.map.bytes().is_empty()
    }

    fn entry(&self, name: &str) -> Result<Entry<'_>> {
        self.header.entry(name).ok_or_else(|| {
            IoError::at(
                &self.file,
                name,
                format!(
                    "no tensor of that name (tensors: [{}])",
                    self.names().join(", ")
                ),
            )
        })
    }

    fn bytes(&self, e: &Entry) -> &[u8] {
        let at = self.header.data_start as usize;
        &self.map.bytes()[at + e.start..at + e.end]
    }

    /// A zero-copy view of the tensor `name` in the map.
    ///
    /// Errors when the tensor's offset is not aligned for its dtype (possible only in files
    /// written by other programs: extype and Python's `safetensors` align every tensor), or on
    /// a big-endian machine; [`Mapped::tensor`] copies instead. A bool tensor's bytes are
    /// checked to be 0 or 1, which reads them.
    pub fn view(&self, name: &str) -> Result<TensorView<'_>> {
        let e = self.entry(name)?;
        let dtype = e
            .dtype
            .readable()
            .map_err(|m| IoError::at(&self.file, name, m))?;
        match view_in_place(self.bytes(&e), dtype, &e.shape) {
            Ok(Some(v)) => Ok(v),
            Ok(None) => Err(IoError::at(
                &self.file,
                name,
                format!(
                    "offset {} is not aligned for {}; use Mapped::tensor, which copies",
                    self.header.data_start as usize + e.start,
                    dtype
                ),
            )),
            Err(m) => Err(IoError::at(&self.file, name, m)),
        }
    }

    /// The tensor `name`, viewing the map in place (a [`Tensor::External`] holding the map; no
    /// copy), or copied into its own buffer when its bytes are not aligned for its dtype.
    pub fn tensor(&self, name: &str) -> Result<Tensor> {
        let e = self.entry(name)?;
        let dtype = e
            .dtype
            .readable()
            .map_err(|m| IoError::at(&self.file, name, m))?;
        let at = self.header.data_start as usize;
        shared_tensor(&self.map, at + e.start, e.byte_len(), dtype, &e.shape)
            .map_err(|m| IoError::at(&self.file, name, m))
    }

    /// The value the file holds, as [`load`](super::load) gives it (validation and contracts
    /// run), its tensors viewing the map.
    pub fn to_value(&self) -> Result<Value> {
        let Some(plan) = &self.plan else {
            return load::value_from(&self.file, &self.header, &mut Body::Mapped(&self.map));
        };
        let values = load::read_plan(
            &self.file,
            &self.header,
            &mut Body::Mapped(&self.map),
            plan.clone(),
        )?;
        load::one(&self.file, values)
    }

    /// The value as a `T`, as [`load_as`](super::load_as) gives it.
    pub fn to_type<T: ExtensionType>(&self) -> Result<T> {
        load::type_from::<T>(&self.file, &self.header, &mut Body::Mapped(&self.map))
    }

    /// The file's tensors as a `T` under `spec`, as
    /// [`load_components_as`](super::load_components_as) reads them.
    pub fn to_type_with<T: ExtensionType>(&self, spec: &T::Spec) -> Result<T> {
        load::components_into::<T>(&self.file, &self.header, &mut Body::Mapped(&self.map), spec)
    }
}
