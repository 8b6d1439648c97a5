//! Values as files: [safetensors](https://github.com/huggingface/safetensors), the tensor format
//! the Python and Rust ML worlds share.
//!
//! - [`save`] writes any extension value, [`Tensor`](crate::Tensor) or [`Value`](crate::Value)
//!   (a batch is a value too): one tensor per component, named by its field path (`values`,
//!   `items[1].mask`; a dense tensor is the one tensor `tensor`). `__metadata__` holds
//!   `format = "extype"`, `format_version = "1"`, `type` (the registered name, or `Tensor`),
//!   `spec` (the spec's versioned JSON, or a tensor spec's text such as `f32[2, 3]`) and
//!   `components` (the paths in component order, as JSON). Saves are atomic: a temporary file
//!   in the same directory, renamed over the target when complete. Every writer ([`save`],
//!   [`ShardWriter::append`]) validates the value first, as loading will (nested values, shape
//!   contract, the type's own `validate`): a value that breaks its type's rules is an error
//!   naming the type and what failed, and nothing of it is written.
//! - [`load`] reads a value by the registry (a type not linked in loads as an
//!   [`AnonymousExtension`](crate::AnonymousExtension), to [`reinterpret`](crate::Value::reinterpret)
//!   later); [`load_as`] reads a `T` (another type is an error naming both);
//!   [`load_components_inferred`] reads a `T` from a file without extype metadata (Python's
//!   `safetensors.numpy.save_file` or `safetensors.torch.save_file`), tensors named by field path,
//!   with every dtype and shape taken from the file (a spec built by
//!   [`TypeSpec::from_source`](crate::TypeSpec::from_source): nested types field by field, an
//!   `Option` `Some` when a tensor lies under its path, a `Vec` as long as the indices `[0]`,
//!   `[1]`, … found, a map with the keys found); static fields, which a file cannot say, take
//!   the values the caller gives by path ([`load_components_inferred_with`] and [`Statics`]),
//!   or that the type infers from the tensors' names ([`InferStatics`]: a ragged tensor's
//!   partitions);
//!   [`load_components_inferred_prefixed`] reads a `T` stored among other tensors (a model
//!   checkpoint), its tensors named `prefix.` + field path, the others left unread;
//!   [`load_components_as`] reads under a spec the caller gives. A missing or extra tensor, a
//!   static value missing or given for no static field is an error naming it. Loading checks
//!   what `from_components` checks: dtypes and ranks against the field types, shapes against
//!   the spec, validation and shape contracts.
//! - [`map`] maps the file and checks its header, in time independent of the file's size. The
//!   tensors and values it gives ([`Mapped::tensor`], [`Mapped::to_value`], [`Mapped::to_type`])
//!   view the map in place: each such tensor is a [`Tensor::External`](crate::Tensor::External)
//!   that holds the map, which stays mapped while any of them lives. [`Mapped::view`] borrows.
//!   `map` is an `unsafe fn`, as memmap2's `Mmap::map` is: the file must not be modified or
//!   truncated while mapped, which no check can ensure (another process may write it later, and
//!   a `bool` byte turned into 2 under a view is undefined behaviour). [`load`] is the safe read
//!   beside it: it copies every tensor into its own buffer. (The alternative, a safe `map` that
//!   copies bool tensors, would still hand out views of bytes that may change under them.)
//! - [`ShardWriter`] / [`ShardReader`]: a stream of values in numbered shard files of bounded
//!   size.
//! - [`inspect`]: what a file holds, from its header (the `extype inspect` command).
//!
//! ## Dtypes
//!
//! | extype | safetensors | numpy   |
//! |--------|-------------|---------|
//! | `bool` | `BOOL`      | `bool_` |
//! | `i8`   | `I8`        | `int8`  |
//! | `i16`  | `I16`       | `int16` |
//! | `i32`  | `I32`       | `int32` |
//! | `i64`  | `I64`       | `int64` |
//! | `u8`   | `U8`        | `uint8` |
//! | `u16`  | `U16`       | `uint16`|
//! | `u32`  | `U32`       | `uint32`|
//! | `u64`  | `U64`       | `uint64`|
//! | `f32`  | `F32`       | `float32`|
//! | `f64`  | `F64`       | `float64`|
//! | `f16`  | `F16`       | `float16`|
//! | `bf16` | `BF16`      | (`ml_dtypes.bfloat16`; torch `bfloat16`) |
//!
//! `f16` and `bf16` are `half::f16` / `half::bf16` (re-exported as `extype::half`), read and
//! written as their little-endian 16-bit patterns: a file of model weights loads, maps (views in
//! place) and saves as any other. NumPy has no bfloat16: Python writes one through
//! `safetensors.serialize_file` with `"dtype": "bfloat16"` (or torch), and reads it back with
//! `ml_dtypes` or as `uint16` bits.
//!
//! The safetensors dtypes without an extype dtype (the `F8`/`F6`/`F4` formats, `C64`:
//! [`ForeignDType`]) are listed, not read: a file holding them parses (its header is
//! checked as any other, sizes by the dtype's bits), [`inspect`] lists each such tensor with its
//! name, dtype ([`FileDType::Foreign`], printed `unsupported dtype F8_E4M3`), shape and size, and
//! [`Mapped::tensor`] reads the other tensors of the file; reading such a tensor's elements
//! ([`load`], [`map`]'s tensors and values, the component loads) is an error naming the tensor
//! and its dtype. Bytes are little-endian (converted on a
//! big-endian machine); a bool tensor's bytes must be 0 or 1.
//!
//! ## Alignment and copies
//!
//! Files are laid out by the `safetensors` crate's writer: the header is padded to a multiple of
//! 8 bytes and tensors are sorted by decreasing element size, so every tensor starts at an
//! offset that is a multiple of its element size (Python's `safetensors` does the same). A
//! [`Mapped`] tensor of such a file views the map. A file with a misaligned tensor (written by
//! hand or another tool) still loads: [`load`] reads every tensor into its own buffer anyway,
//! [`Mapped::tensor`] and the values of a [`Mapped`] copy that tensor (only that one), and
//! [`Mapped::view`] says it cannot borrow it.
//!
//! What copies from a map, and what does not:
//! - a field of type [`Tensor`](crate::Tensor), and every tensor of a [`Value`](crate::Value) or
//!   an anonymous value, holds the map: no copy;
//! - an ndarray `Array` or `ArcArray` field owns its buffer, so building it copies its tensor
//!   (declare the field as `Tensor` to keep it in the map);
//! - a bool tensor's bytes are read once (each must be 0 or 1 to be a Rust `bool`), not copied.
//!
//! ## Reading: why extype parses the header itself
//!
//! Writing goes through the `safetensors` crate (`serialize_to_file`). Reading parses the header
//! with extype's own code (`serde_json`, with the same checks as the crate's
//! `SafeTensors::read_metadata`): the crate's reader needs the whole file in memory, which a
//! copying load would pay for with a second copy of every byte, and its errors do not name the
//! tensor at fault. The fuzz test in `tests/io.rs` feeds mutated files to both readers and
//! requires the same verdicts and the same tensors.
//!
//! ## Untrusted files
//!
//! A file is untrusted input. A lying or oversized header length (over [`MAX_HEADER_LEN`]),
//! invalid JSON, an unknown dtype, offsets out of range, overlapping, leaving gaps or not
//! covering the data, a shape whose byte size does not match its offsets, a shape no array can
//! have (its non-zero dims over `isize::MAX` bytes, even with zero elements: one check for
//! [`load`] and [`map`]), metadata whose spec does not match the tensors or that lists a
//! component twice, a truncated or empty file or a directory: each is an
//! [`Error::Io`](crate::error::Error::Io) naming the file and the tensor, never a panic.
//!
//! Every reader is linear in the header (up to a sort): names are checked unique and looked up
//! through a sorted index. Memory is bounded by the file: the header is read into a buffer of
//! its checked length and parsed straight into compact tables (each tensor's name in one shared
//! string, its shape as varints in one shared buffer, taking no more bytes than the JSON
//! digits, its offsets and dtype in 32 bytes, a name index of 4 bytes; tables grow by an
//! eighth, not by doubling), so the parsed header is smaller than its JSON text even for very
//! many tiny tensors; metadata strings are unescaped once from the raw header (no further
//! copy), the spec is read in one pass straight into its tree within a budget of its own length
//! plus 1 MiB ([`SpecTree::from_json`](crate::SpecTree::from_json)), the component lists within
//! the file's tensor count, and each tensor into one buffer of its checked size. A read's peak
//! heap is at most twice the file plus a constant, [`inspect`]'s included (its report holds each
//! name once and each shape as varints, a [`TensorShape`]). `core/tests/fuzz_files.rs` holds every
//! reader to this on mutated files, truncations, a 160k-tensor header, a header of 40k
//! rank-64 tensors and 8 MB specs, with a counting allocator.

mod bytes;
mod format;
mod header;
mod inspect;
mod kind;
mod load;
mod map;
mod save;
mod shard;
mod source;

pub use format::{FORMAT, FORMAT_VERSION, SHARD_FORMAT, Save, TENSOR_NAME, TENSOR_TYPE};
pub use header::{
    Dims, Entries, EntriesIter, Entry, FileDType, ForeignDType, Header, MAX_HEADER_LEN, MAX_RANK,
    dtype_from_safetensors, file_dtype_from_safetensors, safetensors_name,
};
pub use inspect::{Compatibility, FileInfo, TensorInfo, TensorShape, check_compat, inspect};
pub use kind::FileKind;
pub use load::{
    load, load_as, load_components_as, load_components_inferred, load_components_inferred_prefixed,
    load_components_inferred_with,
};
pub use map::{Mapped, map};
pub use save::{save, write_atomically};
pub use shard::{ShardReader, ShardWriter, shard_name};
pub use source::{InferStatics, Statics};

/// Reads and checks the header of a whole safetensors file held in memory (for tests and tools
/// that compare readers); `file` names it in errors.
pub fn parse_header(file: &str, bytes: &[u8]) -> crate::error::Result<Header> {
    header::parse_bytes(file, bytes)
}
