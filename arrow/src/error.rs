//! The crate's error: extype's, Arrow's and Parquet's, and the conversion errors of its own
//! (a column of the wrong storage type, bad extension metadata), each naming the field.

/// What can go wrong converting between extype values and Arrow data, or reading and writing
/// Arrow IPC and Parquet files.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An extype error: a spec that does not parse, components that do not fit their spec, a
    /// value that fails its validation or shape contract.
    #[error("{context}: {source}")]
    Extype {
        /// Where: the field (column) and what was being done.
        context: String,
        /// The extype error.
        #[source]
        source: Box<extype_core::Error>,
    },
    /// An Arrow array's storage type is not the one the field's extension needs.
    #[error("field `{field}`: expected {expected}, found {found}")]
    Storage {
        /// The field path (`column.values`).
        field: String,
        /// The storage type the extension needs.
        expected: String,
        /// The Arrow type found.
        found: String,
    },
    /// A field's extension metadata is malformed, or says something the data contradicts.
    #[error("field `{field}`: {message}")]
    Metadata {
        /// The field path.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// A value that cannot be put into an Arrow column (no component to read the batch size
    /// from, components of different batch sizes).
    #[error("{op}: {message}")]
    Value {
        /// The operation (`to_array`, `to_record_batch`).
        op: &'static str,
        /// What is wrong.
        message: String,
    },
    /// An error from the Arrow crates (building arrays, IPC).
    #[error("{context}: {source}")]
    Arrow {
        /// Where.
        context: String,
        /// Arrow's error.
        #[source]
        source: Box<arrow_schema::ArrowError>,
    },
    /// An error from the Parquet crate.
    #[error("{context}: {source}")]
    Parquet {
        /// Where.
        context: String,
        /// Parquet's error.
        #[source]
        source: Box<parquet::errors::ParquetError>,
    },
    /// A file (or stream) that is not a well-formed Arrow IPC or Parquet file, or that claims
    /// more than it holds: a length past its end, a row count beyond the reading bound, a type
    /// the reader does not take, a decoder that panicked on it.
    #[error("{path}: {message}")]
    Malformed {
        /// The file (or `IPC stream`), and the column or message where known.
        path: String,
        /// What is wrong: expected and found.
        message: String,
    },
    /// A file could not be opened or created.
    #[error("{path}: {source}")]
    File {
        /// The file.
        path: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// The crate's result.
pub type Result<T> = std::result::Result<T, Error>;

/// An extype error whose message already says where (the atomic file writes' temporary name
/// and rename, [`extype_core::io::write_atomically`]).
impl From<extype_core::Error> for Error {
    fn from(source: extype_core::Error) -> Error {
        Error::Extype {
            context: "writing a file".into(),
            source: Box::new(source),
        }
    }
}

pub(crate) fn extype(context: impl Into<String>) -> impl FnOnce(extype_core::Error) -> Error {
    let context = context.into();
    move |source| Error::Extype {
        context,
        source: Box::new(source),
    }
}

pub(crate) fn arrow(context: impl Into<String>) -> impl FnOnce(arrow_schema::ArrowError) -> Error {
    let context = context.into();
    move |source| Error::Arrow {
        context,
        source: Box::new(source),
    }
}

pub(crate) fn parquet(
    context: impl Into<String>,
) -> impl FnOnce(parquet::errors::ParquetError) -> Error {
    let context = context.into();
    move |source| Error::Parquet {
        context,
        source: Box::new(source),
    }
}
