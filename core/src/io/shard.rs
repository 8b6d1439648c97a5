//! Streams of values in numbered shard files of bounded size (the role of TFRecord files in
//! tf.data): [`ShardWriter`] appends, [`ShardReader`] iterates them back in order.
//!
//! A shard is a safetensors file `PREFIX-00000.safetensors`, `PREFIX-00001…`, holding several
//! values: value `i`'s components are the tensors `i/PATH`, and `__metadata__` holds
//! `format = "extype-shard"` and `records`, a JSON list of each value's type, spec and component
//! paths.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::format::{FORMAT_VERSION, Records, SHARD_FORMAT, Save, records};
use super::load::{self, Body};
use super::save::write_file;
use crate::error::{IoError, Result};
use crate::spec::Value;

/// Appends values (or batches, which are values) to numbered shard files of at most about
/// `max_bytes` of tensor data each; a value larger than the bound gets a shard of its own.
///
/// ```
/// use extype_core::{Tensor, io::{ShardReader, ShardWriter}};
/// let dir = std::env::temp_dir().join(format!("extype-doc-shards-{}", std::process::id()));
/// let mut writer = ShardWriter::new(&dir, "train", 64)?;
/// for i in 0..10 {
///     writer.append(&Tensor::from(ndarray::Array1::from_elem(4, i as f32)))?; // 16 bytes each
/// }
/// let shards = writer.finish()?;
/// assert_eq!(shards.len(), 3); // 4 + 4 + 2 values
/// let back: Vec<_> = ShardReader::open(&dir, "train")?.collect::<Result<_, _>>()?;
/// assert_eq!(back.len(), 10);
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct ShardWriter {
    dir: PathBuf,
    prefix: String,
    max_bytes: usize,
    pending: Vec<Value>,
    pending_bytes: usize,
    /// Values appended so far (all shards).
    appended: usize,
    written: Vec<PathBuf>,
}

/// The file name of shard `index`.
pub fn shard_name(prefix: &str, index: usize) -> String {
    format!("{prefix}-{index:05}.safetensors")
}

fn value_bytes(v: &Value) -> usize {
    match v {
        Value::Tensor(t) => t.len() * t.dtype().size_of(),
        Value::Extension(e) => e
            .component_views()
            .iter()
            .map(|c| c.shape().iter().product::<usize>() * c.dtype().size_of())
            .sum(),
    }
}

impl ShardWriter {
    /// A writer of `dir/PREFIX-NNNNN.safetensors` (the directory is created if needed).
    pub fn new(dir: impl AsRef<Path>, prefix: &str, max_bytes: usize) -> Result<ShardWriter> {
        let dir = dir.as_ref().to_path_buf();
        std::fs::create_dir_all(&dir).map_err(|e| {
            IoError::at(
                dir.display(),
                "",
                format!("cannot create the directory: {e}"),
            )
        })?;
        Ok(ShardWriter {
            dir,
            prefix: prefix.to_string(),
            max_bytes,
            pending: Vec::new(),
            pending_bytes: 0,
            appended: 0,
            written: Vec::new(),
        })
    }

    /// Appends a value (an extension value, a tensor or a [`Value`]; O(1), the tensors are
    /// shared until written). Writes the current shard first when the value would overflow it.
    ///
    /// The value is validated first, as [`save`](super::save) does: an invalid value is an
    /// error naming the type and what failed, and is not appended (the values appended before
    /// it are kept and written as usual).
    pub fn append(&mut self, value: &(impl Save + ?Sized)) -> Result<()> {
        if let Err(e) = value.__validate() {
            let shard = self.dir.join(shard_name(&self.prefix, self.written.len()));
            return Err(IoError::at(
                shard.display(),
                "",
                format!("value {} of the stream not appended: {e}", self.appended),
            ));
        }
        let value = value.to_value();
        let bytes = value_bytes(&value);
        if !self.pending.is_empty() && self.pending_bytes + bytes > self.max_bytes {
            self.flush()?;
        }
        self.pending.push(value);
        self.pending_bytes += bytes;
        self.appended += 1;
        Ok(())
    }

    /// Writes the pending values as the next shard (nothing when none are pending).
    pub fn flush(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let path = self.dir.join(shard_name(&self.prefix, self.written.len()));
        let mut list = Vec::with_capacity(self.pending.len());
        let mut tensors = Vec::new();
        for (i, v) in self.pending.iter().enumerate() {
            let (record, views) = v.__record()?;
            for (p, view) in record.components.iter().zip(views) {
                tensors.push((format!("{i}/{p}"), view));
            }
            list.push(record.to_json());
        }
        let mut metadata = BTreeMap::new();
        metadata.insert("format".to_string(), SHARD_FORMAT.to_string());
        metadata.insert("format_version".to_string(), FORMAT_VERSION.to_string());
        metadata.insert(
            "records".to_string(),
            serde_json::Value::from(list).to_string(),
        );
        write_file(&path, metadata, tensors)?;
        self.pending.clear();
        self.pending_bytes = 0;
        self.written.push(path);
        Ok(())
    }

    /// Writes the last shard and returns every shard's path, in order.
    pub fn finish(mut self) -> Result<Vec<PathBuf>> {
        self.flush()?;
        Ok(std::mem::take(&mut self.written))
    }
}

/// Iterates the values of `dir/PREFIX-NNNNN.safetensors` in order (shard by shard, value by
/// value); each shard is read whole when reached. Numbering must run from 0 without a gap.
#[derive(Debug)]
pub struct ShardReader {
    shards: Vec<PathBuf>,
    next_shard: usize,
    current: std::vec::IntoIter<Value>,
    failed: bool,
}

impl ShardReader {
    /// The shards `dir/PREFIX-NNNNN.safetensors`; errors when there is none or one is missing.
    pub fn open(dir: impl AsRef<Path>, prefix: &str) -> Result<ShardReader> {
        let dir = dir.as_ref();
        let listing = std::fs::read_dir(dir).map_err(|e| {
            IoError::at(dir.display(), "", format!("cannot list the directory: {e}"))
        })?;
        let mut numbers = Vec::new();
        for item in listing {
            let item = item.map_err(|e| IoError::at(dir.display(), "", e.to_string()))?;
            let name = item.file_name().to_string_lossy().into_owned();
            let Some(rest) = name.strip_prefix(prefix).and_then(|r| r.strip_prefix('-')) else {
                continue;
            };
            if let Some(n) = rest.strip_suffix(".safetensors")
                && n.len() == 5
                && let Ok(n) = n.parse::<usize>()
            {
                numbers.push(n);
            }
        }
        numbers.sort_unstable();
        if numbers.is_empty() {
            return Err(IoError::at(
                dir.display(),
                "",
                format!("no shard {} in the directory", shard_name(prefix, 0)),
            ));
        }
        if let Some(missing) = numbers
            .iter()
            .enumerate()
            .find(|(i, n)| *i != **n)
            .map(|(i, _)| i)
        {
            return Err(IoError::at(
                dir.join(shard_name(prefix, missing)).display(),
                "",
                "shard missing: the numbering has a gap",
            ));
        }
        Ok(ShardReader {
            shards: numbers
                .iter()
                .map(|&n| dir.join(shard_name(prefix, n)))
                .collect(),
            next_shard: 0,
            current: Vec::new().into_iter(),
            failed: false,
        })
    }

    /// The shard files, in order.
    pub fn shards(&self) -> &[PathBuf] {
        &self.shards
    }

    fn read_shard(path: &Path) -> Result<Vec<Value>> {
        let file = path.display().to_string();
        let (mut f, header) = load::open(path)?;
        let Some(records @ Records::Shard(_)) =
            records(&file, &header.metadata, header.entries.len())?
        else {
            return Err(IoError::at(
                &file,
                "",
                "is not an extype shard (metadata format)",
            ));
        };
        let plan = load::plan(&file, &header, &records)?;
        drop(records);
        load::read_plan(&file, &header, &mut Body::File(&mut f), plan)
    }
}

impl Iterator for ShardReader {
    type Item = Result<Value>;

    fn next(&mut self) -> Option<Result<Value>> {
        loop {
            if let Some(v) = self.current.next() {
                return Some(Ok(v));
            }
            if self.failed || self.next_shard == self.shards.len() {
                return None;
            }
            let path = &self.shards[self.next_shard];
            self.next_shard += 1;
            match Self::read_shard(path) {
                Ok(values) => self.current = values.into_iter(),
                Err(e) => {
                    self.failed = true;
                    return Some(Err(e));
                }
            }
        }
    }
}
