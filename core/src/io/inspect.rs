//! What a file holds, from its header alone: [`inspect`] (used by `extype inspect`).

use std::path::Path;

use super::format::{Records, TENSOR_TYPE, records};
use super::header::{FileDType, grow, read_varint, write_varint};
use super::load;
use crate::error::{IoError, Result};
use crate::registry::registry;
use crate::spec_tree::SpecTree;

/// One tensor of a file, as [`inspect`] reports it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TensorInfo {
    /// The tensor's name: its component's field path for a file extype wrote.
    pub path: Box<str>,
    /// The element type (serialized as `"f32"`; a dtype extype lists but does not read by its
    /// safetensors name, `"F8_E4M3"`).
    pub dtype: FileDType,
    /// The shape.
    pub shape: TensorShape,
    /// The size in bytes.
    pub bytes: usize,
    /// The absolute offset of its first byte in the file.
    pub offset: u64,
}

/// A tensor's shape as [`inspect`] reports it, stored compactly: its dimensions as LEB128
/// varints (one byte for a dimension under 128), so a report is no larger than the JSON that
/// wrote it, even for tensors of very high rank. It prints (`Display`, `Debug`) and serializes
/// as a list of numbers: `[2, 3]`.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct TensorShape {
    /// One varint per dimension, outermost first (the encoding is canonical, so equal shapes
    /// have equal bytes).
    varints: Box<[u8]>,
}

impl TensorShape {
    /// The number of dimensions.
    pub fn rank(&self) -> usize {
        self.varints.iter().filter(|&&b| b < 0x80).count()
    }

    /// The dimensions, outermost first.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        let mut rest = &self.varints[..];
        std::iter::from_fn(move || {
            if rest.is_empty() {
                return None;
            }
            let (d, used) = read_varint(rest);
            rest = &rest[used..];
            Some(d)
        })
    }

    /// The dimensions as a `Vec`.
    pub fn to_vec(&self) -> Vec<usize> {
        self.iter().collect()
    }
}

impl From<&[usize]> for TensorShape {
    fn from(dims: &[usize]) -> Self {
        let mut varints = Vec::with_capacity(dims.len());
        for &d in dims {
            write_varint(&mut varints, d);
        }
        TensorShape {
            varints: varints.into_boxed_slice(),
        }
    }
}

impl std::fmt::Display for TensorShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[")?;
        for (i, d) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("]")
    }
}

impl std::fmt::Debug for TensorShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl serde::Serialize for TensorShape {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

/// A file's contents as its header describes them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FileInfo {
    /// The registered type name (`"Tensor"` for a tensor), `None` for a file without extype
    /// metadata, one per value for a shard.
    pub types: Vec<String>,
    /// The spec of each value, compact (`f32[2, 3]`, `test.Masked { values: f32[2, 3], … }`).
    pub specs: Vec<String>,
    /// The version of each value's type that wrote it (`#[extype(version = N)]`, read from its
    /// spec document; 1 for a tensor, an unversioned type or a document without a version).
    pub versions: Vec<u32>,
    /// The tensors, in component order for an extype file, else in file order.
    pub tensors: Vec<TensorInfo>,
    /// The file's size in bytes.
    pub file_bytes: u64,
    /// The `__metadata__` map.
    pub metadata: std::collections::BTreeMap<String, String>,
}

/// The longest spec JSON [`inspect`] prints compactly (a longer one is summarized, so a report
/// costs no more memory than the file's metadata: printing a spec builds its tree and its text,
/// each about its size).
const SHOWN_SPEC: usize = 64 << 10;

impl FileInfo {
    /// The type version of a file holding one value (`None` for a shard or a file without
    /// extype metadata).
    pub fn type_version(&self) -> Option<u32> {
        match self.versions.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }
}

/// The version a stored spec document records (1 when it records none, or cannot be read).
fn stored_version(type_name: &str, spec: &str) -> u32 {
    if type_name == TENSOR_TYPE || spec.len() > SHOWN_SPEC {
        return 1;
    }
    match SpecTree::from_json(spec) {
        Ok(SpecTree::Spec(ref named)) => named.version,
        _ => 1,
    }
}

/// Whether a value file loads into this program's types ([`check_compat`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Compatibility {
    /// The type name the file stores.
    pub type_name: String,
    /// The version of the type that wrote it (1 when the file records none).
    pub stored_version: u32,
    /// The registered name and version of the type this program reads it as (`None` when the
    /// name is not linked into this program: it loads as an anonymous value).
    pub current: Option<(String, u32)>,
    /// Why it does not load (`None` when it loads).
    pub error: Option<String>,
}

impl Compatibility {
    /// Whether the file loads as a value of a type of this program.
    pub fn loads(&self) -> bool {
        self.error.is_none() && self.current.is_some()
    }
}

impl std::fmt::Display for Compatibility {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let stored = format!("{} version {}", self.type_name, self.stored_version);
        match (&self.current, &self.error) {
            (_, Some(error)) => write!(f, "{stored}: does not load: {error}"),
            (None, None) => write!(
                f,
                "{stored}: not a type of this program (it loads as an anonymous value)"
            ),
            (Some((name, version)), None)
                if name == &self.type_name && *version == self.stored_version =>
            {
                write!(f, "{stored}: loads (the current version)")
            }
            (Some((name, version)), None) => {
                write!(f, "{stored}: loads, upgraded to {name} version {version}")
            }
        }
    }
}

/// Whether the value file at `path` loads into this program's types: its stored type name and
/// version, the registered type and version it is read as (through old names, `aliases`), and,
/// when it does not load (a newer version, a field missing without a default, a failed
/// migration or validation), the error. The file is loaded as [`load`](super::load) does, so the
/// answer is the load's. An error only when the file is no extype value file (or unreadable).
///
/// ```
/// use extype_core::{Tensor, io};
/// # let dir = std::env::temp_dir().join(format!("extype-doc-compat-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("t.safetensors");
/// io::save(&path, &Tensor::from(ndarray::array![1i64, 2]))?;
/// let compat = io::check_compat(&path)?;
/// assert!(compat.loads(), "{compat}");
/// assert_eq!(compat.stored_version, 1);
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn check_compat(path: impl AsRef<Path>) -> Result<Compatibility> {
    let path = path.as_ref();
    let file = path.display().to_string();
    let (_, header) = load::open(path)?;
    let Records::Value(record) = load::single_record(&file, &header, "an extype value")? else {
        return Err(IoError::at(&file, "", "expected an extype value"));
    };
    let type_name = record.type_name.to_string();
    let stored_version = stored_version(&type_name, &record.spec);
    let current = if type_name == TENSOR_TYPE {
        Some((TENSOR_TYPE.to_string(), 1))
    } else {
        match registry().resolve(&type_name) {
            Ok(Some(entry)) => Some((entry.name.to_string(), entry.version())),
            Ok(None) => None,
            Err(e) => {
                return Ok(Compatibility {
                    type_name,
                    stored_version,
                    current: None,
                    error: Some(e.to_string()),
                });
            }
        }
    };
    drop(record);
    let error = super::load(path).err().map(|e| e.to_string());
    Ok(Compatibility {
        type_name,
        stored_version,
        current,
        error,
    })
}

/// Reads and checks the header of `path` and reports what it holds (no tensor byte is read).
pub fn inspect(path: impl AsRef<Path>) -> Result<FileInfo> {
    let path = path.as_ref();
    let file = path.display().to_string();
    let (_, mut header) = load::open(path)?;
    let file_bytes = header.data_start + header.entries.last().map_or(0, |e| e.end as u64);
    let mut info = FileInfo {
        types: Vec::new(),
        specs: Vec::new(),
        versions: Vec::new(),
        tensors: Vec::new(),
        file_bytes,
        metadata: std::collections::BTreeMap::new(),
    };
    // Each tensor's rank in component order (a tensor no component names goes last, in file
    // order): a position per entry, found by binary search, so linear up to a sort.
    let n = header.entries.len();
    let mut rank = vec![u32::MAX; n];
    if let Some(records) = records(&file, &header.metadata, header.entries.len())? {
        let (shard, list) = match &records {
            Records::Value(r) => (false, std::slice::from_ref(r)),
            Records::Shard(list) => (true, list.as_slice()),
        };
        let mut next = 0u32;
        let mut name = String::new();
        for (i, r) in list.iter().enumerate() {
            info.types.push(r.type_name.to_string());
            // A type registered in this program prints as its spec does (fields in declaration
            // order); another prints from the document, in the order it records (declaration
            // order; key order in documents written before the order was recorded).
            info.versions.push(stored_version(&r.type_name, &r.spec));
            let compact = if r.spec.len() > SHOWN_SPEC {
                format!("(a spec of {} bytes of JSON, not shown)", r.spec.len())
            } else if r.type_name == TENSOR_TYPE {
                r.spec.to_string()
            } else {
                match SpecTree::from_json(&r.spec) {
                    Ok(tree) => registry()
                        .deserialize_spec(&tree)
                        .map_or_else(|_| tree.to_string(), |spec| spec.to_string()),
                    Err(_) => r.spec.to_string(),
                }
            };
            info.specs.push(compact);
            for c in &r.components {
                name.clear();
                if shard {
                    name.push_str(&format!("{i}/"));
                }
                name.push_str(c);
                if let Some(at) = header.index(&name) {
                    rank[at] = rank[at].min(next);
                }
                next = next.saturating_add(1);
            }
        }
    }
    header.drop_index();
    // `order[k]` is the file position of the `k`-th tensor reported.
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_unstable_by_key(|&i| (rank[i as usize], i));
    drop(rank);
    // The reports are made last tensor first, each from the header's storage as it is freed
    // (a report is larger than its entry: both at once would cost more than the file).
    let entries = &mut header.entries;
    let mut reports: Vec<TensorInfo> = Vec::new();
    while let Some(slot) = entries.slots.pop() {
        let e = entries.view(&slot);
        grow(&mut reports, 1);
        reports.push(TensorInfo {
            path: e.name.into(),
            dtype: e.dtype,
            shape: TensorShape::from(e.shape.as_slice()),
            bytes: e.byte_len(),
            offset: header.data_start + e.start as u64,
        });
        if entries.slots.len() < entries.slots.capacity() / 2 {
            entries.slots.shrink_to_fit();
        }
    }
    // `reports[j]` is the tensor at file position `n - 1 - j`.
    order.iter_mut().for_each(|o| *o = (n - 1) as u32 - *o);
    permute(&mut reports, &mut order);
    info.tensors = reports;
    info.metadata = std::mem::take(&mut header.metadata);
    Ok(info)
}

/// Rearranges `items` in place so that `items[k]` becomes the old `items[from[k]]` (`from` a
/// permutation, its top bits free; they are used as marks), in linear time.
fn permute<T>(items: &mut [T], from: &mut [u32]) {
    const DONE: u32 = 1 << 31;
    for start in 0..from.len() {
        if from[start] & DONE != 0 {
            continue;
        }
        let mut k = start;
        loop {
            let src = from[k] as usize;
            from[k] |= DONE;
            if src == start {
                break;
            }
            items.swap(k, src);
            k = src;
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn permute_moves_each_item_from_its_source() {
        let mut items = vec!['a', 'b', 'c', 'd', 'e'];
        let mut from = vec![3, 0, 4, 1, 2];
        super::permute(&mut items, &mut from);
        assert_eq!(items, ['d', 'a', 'e', 'b', 'c']);
    }

    #[test]
    fn tensor_shape_keeps_its_dimensions_and_prints_as_a_list() {
        use super::TensorShape;
        let dims = [2, 0, 127, 128, 300, usize::MAX];
        let shape = TensorShape::from(&dims[..]);
        assert_eq!(shape.rank(), 6);
        assert_eq!(shape.to_vec(), dims);
        assert_eq!(shape.iter().collect::<Vec<_>>(), dims);
        let list = format!("{dims:?}");
        assert_eq!(shape.to_string(), list);
        assert_eq!(format!("{shape:?}"), list);
        assert_eq!(
            serde_json::to_string(&shape).unwrap(),
            list.replace(' ', "")
        );
        assert_eq!(shape, TensorShape::from(&dims[..]));
        assert_ne!(shape, TensorShape::from(&dims[..5]));
        let scalar = TensorShape::from(&[][..]);
        assert_eq!((scalar.rank(), scalar.to_string()), (0, "[]".to_string()));
    }
}
