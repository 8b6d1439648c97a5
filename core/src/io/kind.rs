//! What a file is, from its first bytes: every reader that refuses a file of another format says
//! which format it is (and which reader takes it) instead of a length or a footer that makes no
//! sense, and `extype inspect` picks its report by it.

use std::io::Read;
use std::path::Path;

/// The formats a file is recognised as by its first bytes ([`FileKind::sniff`]): the three extype
/// reads and writes, and four it names when one is given where another was asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FileKind {
    /// A safetensors file: an 8-byte little-endian header length (a plausible one: at least 2,
    /// under 4 GiB; the readers hold it to [`MAX_HEADER_LEN`](super::MAX_HEADER_LEN)) and a JSON
    /// header starting with `{`.
    Safetensors,
    /// An Arrow IPC file (`ARROW1` at both ends).
    ArrowIpcFile,
    /// An Arrow IPC stream (the continuation marker `0xFFFFFFFF`, then its first message's
    /// positive length).
    ArrowIpcStream,
    /// A Parquet file (`PAR1` at both ends).
    Parquet,
    /// A NumPy `.npy` file.
    Npy,
    /// A zip archive (NumPy's `.npz` and PyTorch's checkpoints are zip archives).
    Zip,
    /// An HDF5 file.
    Hdf5,
}

impl FileKind {
    /// The number of leading bytes [`FileKind::sniff`] reads.
    pub const PREFIX_LEN: usize = 9;

    /// The kind of a file whose first bytes are `prefix` (up to [`FileKind::PREFIX_LEN`] of them
    /// are read; a shorter prefix is a shorter file), or `None` when no known format starts so.
    ///
    /// ```
    /// use extype_core::io::FileKind;
    /// assert_eq!(FileKind::sniff(b"PAR1\x15\x04"), Some(FileKind::Parquet));
    /// assert_eq!(FileKind::sniff(b"\x0b\0\0\0\0\0\0\0{\"a\":1}  "), Some(FileKind::Safetensors));
    /// assert_eq!(FileKind::sniff(b"hello"), None);
    /// ```
    pub fn sniff(prefix: &[u8]) -> Option<FileKind> {
        const MAGIC: [(&[u8], FileKind); 5] = [
            (b"PAR1", FileKind::Parquet),
            (b"ARROW1", FileKind::ArrowIpcFile),
            (b"\x93NUMPY", FileKind::Npy),
            (b"PK\x03\x04", FileKind::Zip),
            (b"\x89HDF", FileKind::Hdf5),
        ];
        if let Some(&(_, kind)) = MAGIC.iter().find(|(magic, _)| prefix.starts_with(magic)) {
            return Some(kind);
        }
        // The continuation marker, then a message length that is positive as an `i32`.
        if prefix.len() >= 8 && prefix[..4] == [0xff; 4] && prefix[7] < 0x80 {
            return Some(FileKind::ArrowIpcStream);
        }
        if let (Some(len), Some(b'{')) = (prefix.get(..8), prefix.get(8)) {
            let n = u64::from_le_bytes(len.try_into().expect("eight bytes"));
            if (2..1 << 32).contains(&n) {
                return Some(FileKind::Safetensors);
            }
        }
        None
    }

    /// The kind of the file at `path`, from its first bytes (an I/O error when it cannot be
    /// read).
    pub fn of_file(path: impl AsRef<Path>) -> std::io::Result<Option<FileKind>> {
        let mut prefix = Vec::with_capacity(Self::PREFIX_LEN);
        std::fs::File::open(path)?
            .take(Self::PREFIX_LEN as u64)
            .read_to_end(&mut prefix)?;
        Ok(FileKind::sniff(&prefix))
    }

    /// The kind with its article, as a sentence names it: `"a Parquet file"`.
    pub const fn name(self) -> &'static str {
        match self {
            FileKind::Safetensors => "a safetensors file",
            FileKind::ArrowIpcFile => "an Arrow IPC file",
            FileKind::ArrowIpcStream => "an Arrow IPC stream",
            FileKind::Parquet => "a Parquet file",
            FileKind::Npy => "a NumPy .npy file",
            FileKind::Zip => "a zip archive (a NumPy .npz or a PyTorch checkpoint?)",
            FileKind::Hdf5 => "an HDF5 file",
        }
    }

    /// The extype function that reads this kind, if one does.
    pub const fn reader(self) -> Option<&'static str> {
        match self {
            FileKind::Safetensors => Some("extype::io::load"),
            FileKind::ArrowIpcFile => Some("extype_arrow::read_ipc_file"),
            FileKind::ArrowIpcStream => Some("extype_arrow::read_ipc_stream"),
            FileKind::Parquet => Some("extype_arrow::read_parquet"),
            FileKind::Npy | FileKind::Zip | FileKind::Hdf5 => None,
        }
    }

    /// The kind named with the reader that takes it: `"a Parquet file (read it with
    /// extype_arrow::read_parquet)"`.
    pub fn described(self) -> String {
        match self.reader() {
            Some(reader) => format!("{} (read it with {reader})", self.name()),
            None => self.name().to_string(),
        }
    }

    /// The refusal of a reader of `expected` given a file of this kind: `"is a Parquet file
    /// (read it with extype_arrow::read_parquet), not a safetensors file"`.
    pub fn refused_as(self, expected: FileKind) -> String {
        format!("is {}, not {}", self.described(), expected.name())
    }
}

impl std::fmt::Display for FileKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_is_told_by_its_first_bytes_and_nothing_else_is() {
        let safetensors = {
            let mut b = 11u64.to_le_bytes().to_vec();
            b.extend_from_slice(b"{\"a\": 1}   ");
            b
        };
        for (bytes, kind) in [
            (&b"PAR1\x15\x04\x15\x10"[..], FileKind::Parquet),
            (&b"ARROW1\0\0"[..], FileKind::ArrowIpcFile),
            (
                &b"\xff\xff\xff\xff\x10\x01\0\0"[..],
                FileKind::ArrowIpcStream,
            ),
            (&b"\x93NUMPY\x01\0"[..], FileKind::Npy),
            (&b"PK\x03\x04\x14\0"[..], FileKind::Zip),
            (&b"\x89HDF\r\n\x1a\n"[..], FileKind::Hdf5),
            (&safetensors[..], FileKind::Safetensors),
        ] {
            assert_eq!(FileKind::sniff(bytes), Some(kind), "{bytes:?}");
        }
        // A length over the limit, a header not starting with `{`, a negative stream length,
        // too few bytes: nothing known.
        let huge = {
            let mut b = (1u64 << 32).to_le_bytes().to_vec();
            b.push(b'{');
            b
        };
        let not_json = {
            let mut b = 11u64.to_le_bytes().to_vec();
            b.push(b'[');
            b
        };
        for bytes in [
            &huge[..],
            &not_json[..],
            &b"\xff\xff\xff\xff\0\0\0\x80"[..],
            &b"\xff\xff\xff"[..],
            &b""[..],
            &b"PAR"[..],
            &safetensors[..8],
        ] {
            assert_eq!(FileKind::sniff(bytes), None, "{bytes:?}");
        }
    }

    #[test]
    fn a_refusal_names_both_kinds_and_the_reader() {
        assert_eq!(
            FileKind::Parquet.refused_as(FileKind::Safetensors),
            "is a Parquet file (read it with extype_arrow::read_parquet), not a safetensors file"
        );
        assert_eq!(
            FileKind::Npy.refused_as(FileKind::ArrowIpcFile),
            "is a NumPy .npy file, not an Arrow IPC file"
        );
    }
}
