//! Hostile files, as a seeded test: files the library writes (a value, tensors of several dtypes
//! and ranks, a shard), mutated (bit flips, byte sets, splices, edits of the header length and of
//! numbers in the header, truncations), and crafted large headers (160k tensors; 8 MB specs).
//! Every read (`load`, `load_as`, `map` and everything a `Mapped` gives, `inspect`, shards) must
//! return a value or an [`Error::Io`](extype::Error::Io) naming the file — never panic — in time
//! linear in the header and with a peak heap of at most twice the file plus a constant (a header
//! of 160k tiny tensors included), measured by the counting allocator of this test binary,
//! which therefore holds one `#[test]`.
//!
//! The default run (1,000 mutated files, then the crafted ones) takes about 20 s in debug builds.
//! A longer run:
//!
//! ```text
//! EXTYPE_FUZZ_ITERS=100000 EXTYPE_FUZZ_SEED=7 cargo test --release -p extype-core --test fuzz_files
//! ```

extern crate extype_core as extype;

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::MaskedTensor;
use extype::io::{self, ShardReader, ShardWriter};
use extype::{Error, Tensor};
use ndarray::{ArrayD, IxDyn};

#[path = "../../shape/tests/support/fuzz.rs"]
mod fuzz;

use fuzz::{Rng, env_or};

#[path = "common/counting_alloc.rs"]
mod counting_alloc;

#[global_allocator]
static ALLOCATOR: counting_alloc::Counting = counting_alloc::Counting;

/// `f`'s result and the peak of heap bytes it added over what was live when it started.
fn peak_heap<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let heap = counting_alloc::measure(f);
    (heap.out, heap.peak)
}

/// What any read may allocate beyond twice the file's size.
const HEAP_SLACK: usize = 4 << 20;

/// A directory of its own under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir =
            std::env::temp_dir().join(format!("extype-fuzz-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes `bytes` as a new file at `path`, replacing any old one by a rename (a file mapped
/// earlier is never written in place).
fn put(path: &Path, bytes: &[u8]) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// A read's error must be an I/O error naming the file.
fn typed<T>(what: &str, file: &Path, r: extype::Result<T>) {
    if let Err(e) = r {
        let text = e.to_string();
        assert!(
            matches!(e, Error::Io(_)),
            "{what}: not an I/O error: {text}"
        );
        assert!(
            text.contains(&file.display().to_string()),
            "{what}: the error does not name the file: {text}"
        );
    }
}

/// Every reader over the file at `path`; panics are the test's failures, errors must be typed.
fn read_every_way(path: &Path) {
    typed("load", path, io::load(path));
    typed("load_as", path, io::load_as::<MaskedTensor>(path));
    typed("inspect", path, io::inspect(path));
    // SAFETY: the file is this test's own, replaced only by renames, never written in place.
    match unsafe { io::map(path) } {
        Ok(m) => {
            let names: Vec<String> = m.names().into_iter().map(String::from).collect();
            for name in &names {
                typed("Mapped::tensor", path, m.tensor(name));
                typed("Mapped::view", path, m.view(name).map(|v| v.to_tensor()));
            }
            typed("Mapped::to_value", path, m.to_value());
            typed("Mapped::to_type", path, m.to_type::<MaskedTensor>());
        }
        Err(e) => typed("map", path, Err::<(), _>(e)),
    }
}

fn read_shards(dir: &Path) {
    match ShardReader::open(dir, "s") {
        Ok(reader) => {
            for v in reader {
                typed("ShardReader", dir, v.map(drop));
            }
        }
        Err(e) => typed("ShardReader::open", dir, Err::<(), _>(e)),
    }
}

/// Writes one seed file.
type Saver = Box<dyn Fn(&Path) -> extype::Result<()>>;

/// The files the library writes, as bytes: a masked value, tensors of several dtypes and
/// ranks (bool included), and a shard of three values.
fn seeds(dir: &Path) -> Vec<Vec<u8>> {
    let masked = MaskedTensor {
        values: ArrayD::from_shape_vec(IxDyn(&[2, 3]), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap(),
        mask: ArrayD::from_shape_vec(IxDyn(&[2, 3]), vec![true, false, true, true, false, true])
            .unwrap(),
    };
    let values: Vec<Saver> = vec![
        Box::new(move |p| io::save(p, &masked)),
        Box::new(|p| {
            io::save(
                p,
                &Tensor::from(ndarray::array![[true, false], [false, true]]),
            )
        }),
        Box::new(|p| io::save(p, &Tensor::from(ndarray::array![1i64, -2, 3]))),
        Box::new(|p| io::save(p, &Tensor::from(ndarray::arr0(2.5f64)))),
        Box::new(|p| io::save(p, &Tensor::from(ndarray::Array2::<u16>::zeros((0, 3))))),
    ];
    let mut out = Vec::new();
    for (i, save) in values.iter().enumerate() {
        let p = dir.join(format!("seed{i}.safetensors"));
        save(&p).unwrap();
        out.push(std::fs::read(&p).unwrap());
    }
    let shards = dir.join("seed-shards");
    let mut w = ShardWriter::new(&shards, "s", 1 << 20).unwrap();
    w.append(&Tensor::from(ndarray::array![1.0f32, 2.0]))
        .unwrap();
    w.append(&Tensor::from(ndarray::array![true])).unwrap();
    w.append(&Tensor::from(ndarray::array![[7u8]])).unwrap();
    let written = w.finish().unwrap();
    out.push(std::fs::read(&written[0]).unwrap());
    out
}

/// One mutation of a file.
fn mutate(rng: &mut Rng, bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for _ in 0..1 + rng.below(3) {
        if out.is_empty() {
            break;
        }
        let header_end = out
            .get(..8)
            .map_or(0, |p| {
                (u64::from_le_bytes(p.try_into().unwrap()) as usize).saturating_add(8)
            })
            .min(out.len());
        match rng.below(8) {
            0 => {
                let i = rng.below(out.len());
                out[i] ^= 1 << rng.below(8);
            }
            1 => {
                let i = rng.below(out.len());
                out[i] = rng.pick(&[0, 1, 2, 0xff, b'"', b'[', b'{', b'0', b'9', b'-', b'\\']);
            }
            2 => {
                // Splice: a span of the file copied somewhere else (possibly over the header).
                let a = rng.below(out.len());
                let len = rng.below(40).min(out.len() - a);
                let span = out[a..a + len].to_vec();
                let at = rng.below(out.len());
                out.splice(at..at + rng.below(8).min(out.len() - at), span);
            }
            3 => out.truncate(rng.below(out.len())),
            4 => {
                // The header length field: off by a little, or wild.
                if out.len() >= 8 {
                    let n = u64::from_le_bytes(out[..8].try_into().unwrap());
                    let m = match rng.below(4) {
                        0 => n.wrapping_add(rng.below(16) as u64),
                        1 => n.wrapping_sub(rng.below(16) as u64),
                        2 => rng.next(),
                        _ => 100_000_000,
                    };
                    out[..8].copy_from_slice(&m.to_le_bytes());
                }
            }
            5 if header_end > 8 => {
                // A number in the header (offsets, shape dims) replaced.
                let i = 8 + rng.below(header_end - 8);
                if i < out.len() && out[i].is_ascii_digit() {
                    let mut j = i;
                    while j < out.len() && out[j].is_ascii_digit() {
                        j += 1;
                    }
                    let with = rng.pick(&[
                        "0",
                        "1",
                        "7",
                        "4294967296",
                        "9223372036854775807",
                        "9223372036854775808",
                        "18446744073709551615",
                        "18446744073709551616",
                    ]);
                    out.splice(i..j, with.bytes());
                }
            }
            6 if header_end > 8 => {
                // A JSON token inserted into the header (its length field left as it was).
                let i = 8 + rng.below(header_end - 8);
                let tok = rng.pick(&["\"", ",", "[", "]", "{", "}", "\\\"", "null", ":"]);
                out.splice(i..i, tok.bytes());
            }
            _ => {
                let i = rng.below(out.len());
                out.insert(i, rng.below(256) as u8);
            }
        }
    }
    out
}

fn mutated_files(iters: usize, seed: u64) {
    let dir = TempDir::new("mutated");
    let seeds = seeds(&dir.0);
    let mut rng = Rng(seed);
    let path = dir.0.join("m.safetensors");
    let shard_dir = dir.0.join("shards");
    std::fs::create_dir_all(&shard_dir).unwrap();
    let shard = shard_dir.join(io::shard_name("s", 0));
    for i in 0..iters {
        let base = &seeds[rng.below(seeds.len())];
        let bytes = mutate(&mut rng, base);
        let (target, is_shard) = if rng.chance(4) {
            (&shard, true)
        } else {
            (&path, false)
        };
        put(target, &bytes);
        let ((), peak) = peak_heap(|| {
            let run = catch_unwind(AssertUnwindSafe(|| {
                if is_shard {
                    read_shards(&shard_dir);
                } else {
                    read_every_way(target);
                }
            }));
            if run.is_err() {
                panic!(
                    "iteration {i} (seed {seed}) panicked on the file {:?}",
                    String::from_utf8_lossy(&bytes)
                );
            }
        });
        assert!(
            peak <= 2 * bytes.len() + HEAP_SLACK,
            "iteration {i} (seed {seed}): peak heap {peak} for a file of {} bytes",
            bytes.len()
        );
    }
}

/// A safetensors file of the given header JSON and data.
fn file_bytes(header: &str, data: &[u8]) -> Vec<u8> {
    let mut out = (header.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

/// A file of `n` one-byte tensors (`t0`, `t1`, …), of the type `Tensor` when `extype` (then
/// all but `tensor` are extra), else without metadata.
fn many_tensors(n: usize, extype: bool) -> Vec<u8> {
    let mut header = String::from("{");
    if extype {
        header.push_str(
            r#""__metadata__":{"format":"extype","format_version":"1","type":"Tensor","spec":"u8[1]","components":"[\"tensor\"]"},"#,
        );
        header.push_str(r#""tensor":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"#);
    }
    let skip = usize::from(extype);
    for i in 0..n {
        let at = i + skip;
        header.push_str(&format!(
            r#""t{i}":{{"dtype":"U8","shape":[1],"data_offsets":[{at},{}]}},"#,
            at + 1
        ));
    }
    header.pop();
    header.push('}');
    file_bytes(&header, &vec![0u8; n + skip])
}

/// The best of two timings of `f`.
/// The time bound of a guard against quadratic work (a linear pass takes well under a second
/// here, a quadratic one minutes): generous, so that a loaded machine never fails it.
const GUARD: Duration = Duration::from_secs(60);

fn timed(mut f: impl FnMut()) -> Duration {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap()
}

fn many_tensors_are_linear() {
    let dir = TempDir::new("many");
    let small = dir.0.join("small.safetensors");
    let large = dir.0.join("large.safetensors");
    let extra = dir.0.join("extra.safetensors");
    put(&small, &many_tensors(40_000, false));
    let large_bytes = many_tensors(160_000, false);
    put(&large, &large_bytes);
    put(&extra, &many_tensors(160_000, true));
    let read = |p: &Path| {
        let info = io::inspect(p).unwrap();
        assert!(info.tensors.len() >= 40_000);
        // SAFETY: the file is this test's own, not written while mapped.
        let m = unsafe { io::map(p) }.unwrap();
        assert_eq!(m.header().entry("t39999").map(|e| e.start), Some(39_999));
        let err = io::load(p).unwrap_err().to_string();
        assert!(err.contains("no extype metadata"), "{err}");
    };
    read(&small);
    read(&large);
    // Timed: the header parse and checks alone (what `map` does for a foreign file).
    let parse = |p: &Path| {
        // SAFETY: as above.
        let m = unsafe { io::map(p) }.unwrap();
        assert!(m.header().entries.len() >= 40_000);
    };
    let t_small = timed(|| parse(&small));
    let t_large = timed(|| parse(&large));
    eprintln!("header parse (map): 40k tensors {t_small:?}, 160k tensors {t_large:?}");
    // Guards against a quadratic or per-tensor-allocation parse, not speed claims (those are in
    // the benches): bounds far above a linear parse's time even on a loaded machine, far below
    // a quadratic one's (160k² steps: minutes).
    assert!(
        t_large < GUARD,
        "160k tensors: {t_large:?} (40k: {t_small:?})"
    );
    // Linear: 4× the tensors, about 4× the time (a quadratic check gives 16×); the best of
    // three runs each, with slack for a machine whose load changes between them.
    assert!(
        t_large < t_small * 10 + Duration::from_secs(1),
        "160k tensors: {t_large:?}, 40k: {t_small:?}: not linear"
    );
    // Every read of the header of 160k tiny tensors stays within twice the file: the parsed
    // entries (names and shapes in shared arenas) take less memory than their JSON text.
    let shards = dir.0.join("shards");
    std::fs::create_dir_all(&shards).unwrap();
    put(&shards.join(io::shard_name("s", 0)), &large_bytes);
    let peaks = [
        peak_heap(|| io::inspect(&large).map(drop)).1,
        // SAFETY: as above.
        peak_heap(|| unsafe { io::map(&large) }.map(drop)).1,
        peak_heap(|| io::load(&large).map(drop)).1,
        peak_heap(|| io::load_as::<MaskedTensor>(&large).map(drop)).1,
        peak_heap(|| read_shards(&shards)).1,
    ];
    let reads = ["inspect", "map", "load", "load_as", "ShardReader"];
    for (what, peak) in reads.into_iter().zip(peaks) {
        eprintln!(
            "160k tensors: {what}'s peak heap {peak} = {:.2}x the file ({} bytes)",
            peak as f64 / large_bytes.len() as f64,
            large_bytes.len()
        );
        assert!(
            peak <= 2 * large_bytes.len() + HEAP_SLACK,
            "160k tensors: {what}'s peak heap {peak} for a file of {} bytes",
            large_bytes.len()
        );
    }
    // A value file with 160k extra tensors: the extra one is named, fast.
    let t = Instant::now();
    for text in [
        io::load(&extra).unwrap_err().to_string(),
        // SAFETY: as above.
        unsafe { io::map(&extra) }.unwrap_err().to_string(),
    ] {
        assert!(text.contains("extra: not a component of Tensor"), "{text}");
    }
    assert!(t.elapsed() < GUARD, "{:?}", t.elapsed());
}

/// A header of 40k one-byte tensors of rank 64 (`[1, 1, …]`): two bytes of JSON per dimension,
/// which the parsed header must not store in eight (a header of shapes as `Vec<usize>` takes
/// four times the file).
fn high_rank_tensors_are_bounded() {
    let dir = TempDir::new("rank");
    let path = dir.0.join("rank.safetensors");
    let n = 40_000;
    let dims = format!("[{}1]", "1,".repeat(io::MAX_RANK - 1));
    let mut header = String::from("{");
    for i in 0..n {
        header.push_str(&format!(
            r#""t{i}":{{"dtype":"U8","shape":{dims},"data_offsets":[{i},{}]}},"#,
            i + 1
        ));
    }
    header.pop();
    header.push('}');
    let bytes = file_bytes(&header, &vec![0u8; n]);
    put(&path, &bytes);
    let shards = dir.0.join("shards");
    std::fs::create_dir_all(&shards).unwrap();
    put(&shards.join(io::shard_name("s", 0)), &bytes);
    let (info, inspect_peak) = peak_heap(|| io::inspect(&path));
    let info = info.unwrap();
    assert_eq!(info.tensors.len(), n);
    assert_eq!(info.tensors[n - 1].shape.to_vec(), vec![1; io::MAX_RANK]);
    let peaks = [
        // SAFETY: the file is this test's own, not written while mapped.
        peak_heap(|| unsafe { io::map(&path) }.map(|m| assert_eq!(m.names().len(), n))).1,
        peak_heap(|| io::load(&path).map(drop)).1,
        peak_heap(|| read_shards(&shards)).1,
        inspect_peak,
    ];
    for (what, peak) in ["map", "load", "ShardReader", "inspect"]
        .into_iter()
        .zip(peaks)
    {
        eprintln!(
            "40k tensors of rank 64: {what}'s peak heap {peak} = {:.2}x the file ({} bytes)",
            peak as f64 / bytes.len() as f64,
            bytes.len()
        );
        assert!(
            peak <= 2 * bytes.len() + HEAP_SLACK,
            "40k tensors of rank 64: {what}'s peak heap {peak} for a file of {} bytes",
            bytes.len()
        );
    }
}

/// A value file of the unregistered type `x.Big` whose spec's value is `value` (JSON).
fn big_spec(value: &str) -> Vec<u8> {
    let spec = format!(r#"{{"extype_spec":1,"spec":{{"spec":"x.Big","value":{value}}}}}"#);
    let metadata = serde_json::json!({
        "format": "extype",
        "format_version": "1",
        "type": "x.Big",
        "spec": spec,
        "components": "[\"a\"]",
    });
    let header = format!(
        r#"{{"__metadata__":{metadata},"a":{{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}}}"#
    );
    file_bytes(&header, &[1])
}

fn large_specs_are_bounded() {
    let dir = TempDir::new("specs");
    let path = dir.0.join("big.safetensors");
    let eight_mb = 8 << 20;
    let zeros = format!("[{}0]", "0,".repeat(eight_mb / 2));
    let nested = format!("[{}[]]", "[],".repeat(eight_mb / 3));
    let keys: String = (0..eight_mb / 16)
        .map(|i| format!(r#""k{i:09}":null,"#))
        .collect();
    let map = format!(r#"{{"map":{{{keys}"z":null}}}}"#);
    let shapes = format!(r#"{{"shape":"[{}1]"}}"#, "1,".repeat(eight_mb / 2));
    let long = "x".repeat(eight_mb / 4);
    let strings = format!(r#"["{long}","{long}","{long}"]"#);
    for (what, value, loads) in [
        ("a list of 4M zeros", zeros, false),
        ("2.8M nested lists", nested, false),
        ("a map of 500k keys", map, false),
        ("a shape of 4M dims", shapes, false),
        ("three 2 MB strings", strings, true),
    ] {
        let bytes = big_spec(&value);
        put(&path, &bytes);
        let limit = 2 * bytes.len() + HEAP_SLACK;
        let t = Instant::now();
        let (loaded, peak) = peak_heap(|| io::load(&path).map(drop));
        assert_eq!(loaded.is_ok(), loads, "{what}: {loaded:?}");
        if let Err(e) = loaded {
            let text = e.to_string();
            // A shape's dims are bounded by the largest rank before any budget.
            let why = if what.contains("shape") {
                "at most 254 dims"
            } else {
                "too large"
            };
            assert!(text.contains(why), "{what}: {text}");
        }
        eprintln!(
            "{what}: load's peak heap {peak} = {:.2}x the file",
            peak as f64 / bytes.len() as f64
        );
        assert!(
            peak <= limit,
            "{what}: load's peak heap {peak} for {} bytes",
            bytes.len()
        );
        let (mapped, peak) = peak_heap(|| {
            // SAFETY: the file is this test's own, replaced only by renames.
            let m = unsafe { io::map(&path) }?;
            m.to_value().map(drop)
        });
        assert_eq!(mapped.is_ok(), loads, "{what}: {mapped:?}");
        eprintln!(
            "{what}: map's peak heap {peak} = {:.2}x the file",
            peak as f64 / bytes.len() as f64
        );
        assert!(
            peak <= limit,
            "{what}: map's peak heap {peak} for {} bytes",
            bytes.len()
        );
        let (inspected, peak) = peak_heap(|| io::inspect(&path).map(drop));
        assert!(inspected.is_ok(), "{what}: {inspected:?}");
        eprintln!(
            "{what}: inspect's peak heap {peak} = {:.2}x the file",
            peak as f64 / bytes.len() as f64
        );
        assert!(
            peak <= limit,
            "{what}: inspect's peak heap {peak} for {} bytes",
            bytes.len()
        );
        assert!(t.elapsed() < GUARD, "{what}: {:?}", t.elapsed());
    }
}

/// An 80 MB spec of zeros used to ask for one 8 GiB allocation (and abort the process): now it
/// is refused within twice the file's size.
fn an_80_mb_spec_is_refused_within_the_file() {
    let dir = TempDir::new("spec80");
    let path = dir.0.join("big.safetensors");
    let bytes = big_spec(&format!("[{}0]", "0,".repeat(40 << 20)));
    put(&path, &bytes);
    let len = bytes.len();
    drop(bytes);
    let (loaded, peak) = peak_heap(|| io::load(&path).map(drop));
    let text = loaded.unwrap_err().to_string();
    assert!(text.contains("too large"), "{text}");
    assert!(
        peak <= 2 * len + HEAP_SLACK,
        "peak heap {peak} for {len} bytes"
    );
}

/// Small files bound their reads by a small constant too: a type name of 0.72 MB (inspect once
/// took 5 MB: the spec's tree and text beside the metadata) and a spec of 16 kB (map once took
/// 1.07 MB: the spec reader's slack was 1 MiB).
fn small_files_cost_a_small_constant() {
    const SMALL_SLACK: usize = 512 << 10;
    let dir = TempDir::new("small");
    let path = dir.0.join("small.safetensors");
    let tensor = r#"{"map":{"a":{"tensor_spec":{"dtype":"u8","shape":"[1]"}}}}"#;
    let long_name = "x".repeat(720_000);
    let spec = format!(r#"{{"extype_spec":1,"spec":{{"spec":"{long_name}","value":{tensor}}}}}"#);
    let metadata = serde_json::json!({
        "format": "extype",
        "format_version": "1",
        "type": long_name,
        "spec": spec,
        "components": "[\"a\"]",
    });
    let header = format!(
        r#"{{"__metadata__":{metadata},"a":{{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}}}"#
    );
    let named = file_bytes(&header, &[1]);
    let keys: String = (0..1000).map(|i| format!(r#""k{i:05}":null,"#)).collect();
    let sixteen_kb = big_spec(&format!(r#"{{"map":{{{keys}"a":{tensor}}}}}"#));
    for (what, bytes) in [("a 0.72 MB type name", named), ("a 16 kB spec", sixteen_kb)] {
        put(&path, &bytes);
        // The registry is built once per process: not part of a read.
        let _ = io::load(&path);
        let limit = 2 * bytes.len() + SMALL_SLACK;
        let peaks = [
            ("inspect", peak_heap(|| io::inspect(&path).map(drop)).1),
            // SAFETY: the file is this test's own, replaced only by renames.
            ("map", peak_heap(|| unsafe { io::map(&path) }.map(drop)).1),
            ("load", peak_heap(|| io::load(&path).map(drop)).1),
        ];
        for (read, peak) in peaks {
            assert!(
                peak <= limit,
                "{what}: {read}'s peak heap {peak} for a file of {} bytes",
                bytes.len()
            );
        }
    }
}

#[test]
fn hostile_files_never_panic_and_stay_linear_and_bounded() {
    let iters = env_or("EXTYPE_FUZZ_ITERS", 1000) as usize;
    let seed = env_or("EXTYPE_FUZZ_SEED", 0x5afe_7e45);
    mutated_files(iters, seed);
    many_tensors_are_linear();
    high_rank_tensors_are_bounded();
    large_specs_are_bounded();
    an_80_mb_spec_is_refused_within_the_file();
    small_files_cost_a_small_constant();
}
