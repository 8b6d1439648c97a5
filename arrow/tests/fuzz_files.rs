//! Hostile files, as a seeded test: the IPC files, IPC streams and Parquet files extype writes
//! (masked, dense and bool tensors, a ragged batch as nested lists and in the row layout, a
//! sparse batch, items of
//! zero elements), mutated (bit flips, byte sets, splices, truncations, little-endian numbers
//! replaced by huge ones), and crafted ones (a zero-width `arrow.fixed_shape_tensor` column of
//! 2^40 rows, huge buffer and body lengths, huge Parquet row counts). Every reader reads every
//! file: each must return batches or an `extype_arrow::Error` naming the file (reading the
//! columns: naming the column), never panic, in bounded time, with a peak heap of at most twice
//! the file plus a constant, measured by the counting allocator of this test binary (which
//! therefore holds one `#[test]`); every column read is rebuilt from its components, so that
//! what reads satisfies its type's invariants.
//!
//! The default run (5,000 mutated files, then the crafted ones) takes 10 to 20 s in a debug build.
//! A longer run:
//!
//! ```text
//! EXTYPE_FUZZ_ITERS=100000 EXTYPE_FUZZ_SEED=7 cargo test --release -p extype-arrow --test fuzz_files
//! ```

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::time::{Duration, Instant};

use extype::Value;
use extype_arrow::arrow_array::RecordBatch;
use extype_arrow::*;

#[path = "../../shape/tests/support/fuzz.rs"]
mod fuzz;

#[path = "../../core/tests/common/counting_alloc.rs"]
mod counting_alloc;

#[path = "support/hostile.rs"]
mod hostile;

use fuzz::{Rng, env_or};
use hostile::{
    FORMATS, Format, bytes_of, done, parquet_footer_replace, replace_le, scratch_dir, seed_batches,
};

#[global_allocator]
static ALLOCATOR: counting_alloc::Counting = counting_alloc::Counting;

/// What any read may allocate beyond twice the file's size.
const HEAP_SLACK: usize = 8 << 20;

/// What any read of these small files may take (a debug build, a loaded machine).
const TIME_LIMIT: Duration = Duration::from_secs(20);

/// Writes `bytes` as a new file at `path`, replacing any old one by a rename.
fn put(path: &Path, bytes: &[u8]) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// Each column of `batch` read as a value: an error must name the column; a value must rebuild
/// from its components (its spec's checks, the shape contract and the type's validation again).
fn check_columns(what: &str, batch: &RecordBatch) {
    let schema = batch.schema();
    for (field, column) in schema.fields().iter().zip(batch.columns()) {
        match from_array(field, column.as_ref()) {
            Ok(Value::Extension(e)) => {
                if let Err(err) = e.any_spec().dyn_from_components(e.clone_components()) {
                    panic!(
                        "{what}: column `{}` read as a {} that does not rebuild: {err}",
                        field.name(),
                        e.name()
                    );
                }
            }
            Ok(Value::Tensor(t)) => assert_eq!(t.shape().first(), Some(&column.len()), "{what}"),
            Err(e) => {
                let text = e.to_string();
                assert!(
                    text.contains(field.name().as_str()),
                    "{what}: the error does not name the column `{}`: {text}",
                    field.name()
                );
            }
        }
    }
}

/// A read's result: an error names the file (`at`); batches have their columns read.
fn typed(what: &str, at: &str, r: extype_arrow::Result<Vec<RecordBatch>>) {
    match r {
        Ok(batches) => {
            for b in &batches {
                check_columns(what, b);
            }
        }
        Err(e) => {
            let text = e.to_string();
            assert!(
                text.contains(at),
                "{what}: the error does not name the file {at}: {text}"
            );
        }
    }
}

/// Every reader over the file `bytes` (also at `path`); panics are the test's failures.
fn read_every_way(path: &Path, bytes: &[u8]) {
    let at = path.display().to_string();
    typed("read_ipc_file", &at, read_ipc_file(path));
    typed("read_ipc_stream", "IPC stream", read_ipc_stream(bytes));
    typed("read_parquet", &at, read_parquet(path));
}

/// Reads the file every way under the counting allocator, failing on a panic, a peak heap
/// above twice the file plus [`HEAP_SLACK`], or a read slower than [`TIME_LIMIT`].
///
/// A failing file is kept as `extype-arrow-fuzz-failure.bin` in the system temp dir, to replay.
fn read_bounded(label: &str, path: &Path, bytes: &[u8]) {
    put(path, bytes);
    let start = Instant::now();
    let heap =
        counting_alloc::measure(|| catch_unwind(AssertUnwindSafe(|| read_every_way(path, bytes))));
    let took = start.elapsed();
    let failure = if heap.out.is_err() {
        Some("a panic escaped the readers (or an assertion on what they returned failed)".into())
    } else if heap.peak > 2 * bytes.len() + HEAP_SLACK {
        Some(format!("peak heap {}", heap.peak))
    } else if took >= TIME_LIMIT {
        Some(format!("the reads took {took:?}"))
    } else {
        None
    };
    if let Some(failure) = failure {
        let kept = std::env::temp_dir().join("extype-arrow-fuzz-failure.bin");
        std::fs::write(&kept, bytes).unwrap();
        panic!(
            "{label}: {failure} on a file of {} bytes (kept as {})",
            bytes.len(),
            kept.display()
        );
    }
}

/// Huge values a length or count may be replaced by.
const HUGE: [u64; 6] = [
    1 << 31,
    1 << 40,
    (1 << 53) + 3,
    i64::MAX as u64,
    u64::MAX,
    0x8000_0000_0000_0000,
];

/// One mutation of a file.
fn mutate(rng: &mut Rng, bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for _ in 0..1 + rng.below(3) {
        if out.is_empty() {
            break;
        }
        match rng.below(7) {
            0 | 1 => {
                let i = rng.below(out.len());
                out[i] ^= 1 << rng.below(8);
            }
            2 => {
                let i = rng.below(out.len());
                out[i] = rng.pick(&[0, 1, 2, 3, 0x7f, 0x80, 0xff]);
            }
            3 => {
                let a = rng.below(out.len());
                let len = rng.below(40).min(out.len() - a);
                let span = out[a..a + len].to_vec();
                let at = rng.below(out.len());
                out.splice(at..at + rng.below(8).min(out.len() - at), span);
            }
            4 => out.truncate(rng.below(out.len())),
            5 => {
                // An aligned little-endian i64 or i32 (lengths, offsets, counts) made huge.
                let wide = rng.chance(2);
                let width = if wide { 8 } else { 4 };
                if out.len() >= width {
                    let i = rng.below(out.len() / width) * width;
                    let v = rng.pick(&HUGE);
                    if wide {
                        out[i..i + 8].copy_from_slice(&v.to_le_bytes());
                    } else {
                        out[i..i + 4].copy_from_slice(&(v as u32).to_le_bytes());
                    }
                }
            }
            _ => {
                let i = rng.below(out.len());
                out.insert(i, rng.below(256) as u8);
            }
        }
    }
    out
}

/// The seed files: every seed batch in every format.
fn seeds(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for (name, rb) in seed_batches() {
        for format in FORMATS {
            let bytes = bytes_of(format, std::slice::from_ref(&rb), dir);
            out.push((format!("{name} as {format:?}"), bytes));
        }
    }
    out
}

fn mutated_files(iters: usize, seed: u64) {
    let dir = scratch_dir("fuzz-mutated");
    let seeds = seeds(&dir);
    let path = dir.join("m.bin");
    for (label, bytes) in &seeds {
        read_bounded(&format!("the seed {label}"), &path, bytes);
    }
    let mut rng = Rng(seed);
    for i in 0..iters {
        let (label, base) = &seeds[rng.below(seeds.len())];
        let bytes = mutate(&mut rng, base);
        read_bounded(
            &format!("iteration {i} (seed {seed}, a mutation of {label})"),
            &path,
            &bytes,
        );
    }
    done(&dir);
}

/// Zero-width rows: a column of items of shape `[0]` and `[3, 0]` whose row count (70,001 in
/// the file written) is replaced by 2^40: every reader refuses it, naming the column and the
/// bound, without allocating for the rows.
fn zero_width_rows() {
    let dir = scratch_dir("fuzz-zero");
    let rows = 70_001usize;
    let rb = to_record_batch(&[
        (
            "col_zero",
            &Value::from_extension(hostile::masked(rows, &[0])),
        ),
        (
            "col_zero2",
            &Value::from_extension(hostile::masked(rows, &[3, 0])),
        ),
    ])
    .unwrap();
    let path = dir.join("z.bin");
    for format in FORMATS {
        let written = bytes_of(format, std::slice::from_ref(&rb), &dir);
        let (bytes, count) = match format {
            Format::Parquet => parquet_footer_replace(&written, rows as i64, 1 << 40),
            _ => {
                let mut b = written.clone();
                let n = replace_le(
                    &mut b,
                    &(rows as u64).to_le_bytes(),
                    &(1u64 << 40).to_le_bytes(),
                );
                (b, n)
            }
        };
        assert!(count > 0, "{format:?}: no row count to replace");
        read_bounded(
            &format!("2^40 zero-width rows as {format:?}"),
            &path,
            &bytes,
        );
        let err = match format {
            Format::IpcFile => read_ipc_file(&path).unwrap_err(),
            Format::IpcStream => read_ipc_stream(bytes.as_slice()).unwrap_err(),
            Format::Parquet => read_parquet(&path).unwrap_err(),
        }
        .to_string();
        assert!(
            err.contains("col_zero") && err.contains("bound") && err.contains("1099511627776"),
            "{format:?}: {err}"
        );
    }
    done(&dir);
}

/// Crafted lengths: every little-endian i64 equal to a buffer length, body length or row count
/// of the seed IPC files and every varint of the Parquet footers replaced by huge values.
fn huge_lengths() {
    let dir = scratch_dir("fuzz-huge");
    let path = dir.join("h.bin");
    for (label, bytes) in seeds(&dir) {
        // Numbers a small file's metadata holds: lengths and counts.
        for v in [4u64, 8, 16, 24, 48, 96, 192] {
            for huge in [1 << 31, 1 << 40, i64::MAX as u64, u64::MAX] {
                let crafted = if label.ends_with("Parquet") {
                    parquet_footer_replace(&bytes, v as i64, huge as i64).0
                } else {
                    let mut b = bytes.clone();
                    if replace_le(&mut b, &v.to_le_bytes(), &huge.to_le_bytes()) == 0 {
                        continue;
                    }
                    b
                };
                read_bounded(&format!("{label} with {v} made {huge}"), &path, &crafted);
            }
        }
    }
    done(&dir);
}

/// A Snappy page whose header claims 2^31 - 1 uncompressed bytes (parquet allocated them
/// before decompressing): refused, within the heap bound.
fn claimed_page_sizes() {
    use extype_arrow::parquet::basic::Compression;
    use extype_arrow::parquet::file::properties::WriterProperties;
    let dir = scratch_dir("fuzz-pages");
    let path = dir.join("p.parquet");
    let ints = Value::Tensor(extype::Tensor::from(extype::ndarray::Array1::from_iter(
        0..1000i32,
    )));
    let rb = to_record_batch(&[("col_ints", &ints)]).unwrap();
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .build();
    write_parquet_with(&path, &[rb], props).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    // The first page header at byte 4 (a dictionary page): field 1 (the page type, one byte),
    // then field 2 (the uncompressed size).
    assert_eq!((bytes[4], bytes[6]), (0x15, 0x15));
    let old_len = bytes[7..].iter().position(|b| b & 0x80 == 0).unwrap() + 1;
    let claimed = hostile::varint(i64::from(i32::MAX));
    let mut crafted = bytes[..7].to_vec();
    crafted.extend_from_slice(&claimed);
    crafted.extend_from_slice(&bytes[7 + old_len..]);
    // The column chunk grew by as many bytes: its compressed size in the footer too.
    let grown = (claimed.len() - old_len) as i64;
    let meta = extype_arrow::parquet::file::metadata::ParquetMetaDataReader::new()
        .parse_and_finish(&std::fs::File::open(&path).unwrap())
        .unwrap();
    let size = meta.row_group(0).column(0).compressed_size();
    let (crafted, n) = parquet_footer_replace(&crafted, size, size + grown);
    assert!(n > 0);
    read_bounded("a page claiming 2 GiB", &path, &crafted);
    let err = read_parquet(&path).unwrap_err().to_string();
    assert!(err.contains("uncompressed bytes"), "{err}");
    done(&dir);
}

#[test]
fn hostile_files_are_errors_within_bounds() {
    // Panics (the readers contain upstream ones; this test's own failures) print their message
    // and place only: a backtrace's symbol tables would count against the heap bound.
    std::panic::set_hook(Box::new(|info| eprintln!("{info}")));
    let iters = env_or("EXTYPE_FUZZ_ITERS", 5_000) as usize;
    let seed = env_or("EXTYPE_FUZZ_SEED", 0x00A5_2035);
    mutated_files(iters, seed);
    zero_width_rows();
    huge_lengths();
    claimed_page_sizes();
}
