//! What a file holds, from its header alone: [`inspect`] (used by `extype inspect`).

use std::path::Path;

use super::format::{Records, TENSOR_TYPE, records};
use super::load;
use crate::dtype::DType;
use crate::error::Result;
use crate::registry::registry;
use crate::spec_tree::SpecTree;

/// One tensor of a file, as [`inspect`] reports it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TensorInfo {
    /// The tensor's name: its component's field path for a file extype wrote.
    pub path: String,
    /// The element type.
    #[serde(serialize_with = "dtype_name")]
    pub dtype: DType,
    /// The shape.
    pub shape: Vec<usize>,
    /// The size in bytes.
    pub bytes: usize,
    /// The absolute offset of its first byte in the file.
    pub offset: u64,
}

/// A file's contents as its header describes them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FileInfo {
    /// The registered type name (`"Tensor"` for a tensor), `None` for a file without extype
    /// metadata, one per value for a shard.
    pub types: Vec<String>,
    /// The spec of each value, compact (`f32[2, 3]`, `test.Masked { values: f32[2, 3], … }`).
    pub specs: Vec<String>,
    /// The tensors, in component order for an extype file, else in file order.
    pub tensors: Vec<TensorInfo>,
    /// The file's size in bytes.
    pub file_bytes: u64,
    /// The `__metadata__` map.
    pub metadata: std::collections::BTreeMap<String, String>,
}

fn dtype_name<S: serde::Serializer>(d: &DType, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(d.name())
}

/// The longest spec JSON [`inspect`] prints compactly (a longer one is summarized, so a report
/// costs no more memory than the file's metadata).
const SHOWN_SPEC: usize = 1 << 20;

/// Reads and checks the header of `path` and reports what it holds (no tensor byte is read).
pub fn inspect(path: impl AsRef<Path>) -> Result<FileInfo> {
    let path = path.as_ref();
    let file = path.display().to_string();
    let (_, header) = load::open(path)?;
    let file_bytes = header.data_start + header.entries.last().map_or(0, |e| e.end as u64);
    let mut info = FileInfo {
        types: Vec::new(),
        specs: Vec::new(),
        tensors: Vec::new(),
        file_bytes,
        metadata: std::collections::BTreeMap::new(),
    };
    // Each tensor's rank in component order (a tensor no component names goes last, in file
    // order): a position per entry, found by binary search, so linear up to a sort.
    let mut rank = vec![usize::MAX; header.entries.len()];
    if let Some(records) = records(&file, &header.metadata, header.entries.len())? {
        let (shard, list) = match &records {
            Records::Value(r) => (false, std::slice::from_ref(r)),
            Records::Shard(list) => (true, list.as_slice()),
        };
        let mut next = 0;
        let mut name = String::new();
        for (i, r) in list.iter().enumerate() {
            info.types.push(r.type_name.to_string());
            // A type registered in this program prints as its spec does (fields in declaration
            // order); another prints from the document (fields in key order).
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
                next += 1;
            }
        }
    }
    let mut entries: Vec<_> = header.entries.iter().zip(rank).collect();
    entries.sort_by_key(|(_, rank)| *rank);
    let entries = entries.into_iter().map(|(e, _)| e);
    info.tensors = entries
        .into_iter()
        .map(|e| TensorInfo {
            path: e.name.clone(),
            dtype: e.dtype,
            shape: e.shape.clone(),
            bytes: e.byte_len(),
            offset: header.data_start + e.start as u64,
        })
        .collect();
    info.metadata = header.metadata;
    Ok(info)
}
