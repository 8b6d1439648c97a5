//! Files: `io::save`, the copying `io::load_as` and `io::map` of a masked value (f32 values and
//! a bool mask of N elements each; N = 64 Mi by default, 320 MiB of data), each beside the raw
//! file operation on the same bytes in the same directory, measured in the same run:
//!
//! - save ÷ `File::create` + `write_all` of the same bytes (a ratio ≥ 0.9 is the bar);
//! - copying load ÷ `File::open` + `read_to_end` of the same file (≥ 0.9);
//! - `map` (header parse and checks), at full size and at 1/1024 of it (≤ 100 µs, flat);
//! - `map` + the f32 tensor out of it (a tensor viewing the map: flat too), and `map` + the bool
//!   tensor (its bytes are scanned once for values other than 0 and 1: GB/s).
//!
//! `cargo bench -p extype-core --bench io`; `EXTYPE_IO_BENCH_MI=16` for 16 Mi elements (80 MiB);
//! `EXTYPE_IO_BENCH_DIR` for the directory (default: `target/io-bench`). Each figure is the best
//! of `EXTYPE_IO_BENCH_RUNS` (default 5) runs, with the page cache warm for reads.

extern crate extype_core as extype;

#[path = "../tests/common/masked.rs"]
#[allow(dead_code)]
mod masked;

use std::io::{Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use extype::io;
use masked::MaskedTensor;
use ndarray::{ArrayD, IxDyn};

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn best(runs: usize, mut f: impl FnMut() -> Duration) -> Duration {
    (0..runs).map(|_| f()).min().unwrap()
}

fn value(n: usize) -> MaskedTensor {
    MaskedTensor {
        values: ArrayD::from_shape_fn(IxDyn(&[n]), |i| i[0] as f32),
        mask: ArrayD::from_shape_fn(IxDyn(&[n]), |i| i[0] % 3 == 0),
    }
}

fn raw_bytes(v: &MaskedTensor) -> (&[u8], &[u8]) {
    let values = v.values.as_slice().unwrap();
    let mask = v.mask.as_slice().unwrap();
    // SAFETY: f32 and bool slices are plain initialized bytes.
    unsafe {
        (
            std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), size_of_val(values)),
            std::slice::from_raw_parts(mask.as_ptr().cast::<u8>(), size_of_val(mask)),
        )
    }
}

fn time_save(path: &Path, v: &MaskedTensor) -> Duration {
    let _ = std::fs::remove_file(path);
    let t = Instant::now();
    io::save(path, v).unwrap();
    t.elapsed()
}

fn time_raw_write(path: &Path, v: &MaskedTensor) -> Duration {
    let _ = std::fs::remove_file(path);
    let (a, b) = raw_bytes(v);
    let t = Instant::now();
    let mut f = std::fs::File::create(path).unwrap();
    f.write_all(a).unwrap();
    f.write_all(b).unwrap();
    drop(f);
    t.elapsed()
}

fn time_map(path: &Path, runs: usize) -> Duration {
    best(runs * 20, || {
        let t = Instant::now();
        // SAFETY: the bench's files are not written while mapped.
        let m = unsafe { io::map(path) }.unwrap();
        let e = t.elapsed();
        std::hint::black_box(&m);
        e
    })
}

fn time_map_tensor(path: &Path, name: &str, runs: usize) -> Duration {
    best(runs * 20, || {
        let t = Instant::now();
        // SAFETY: the bench's files are not written while mapped.
        let tensor = unsafe { io::map(path) }.unwrap().tensor(name).unwrap();
        let e = t.elapsed();
        assert!(matches!(tensor, extype::Tensor::External(_)));
        std::hint::black_box(&tensor);
        e
    })
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs this too: keep that one small.
    let testing = !std::env::args().any(|a| a == "--bench");
    let mi = if testing {
        1
    } else {
        env("EXTYPE_IO_BENCH_MI", 64)
    };
    let runs = if testing {
        1
    } else {
        env("EXTYPE_IO_BENCH_RUNS", 5)
    };
    let n = mi << 20;
    let dir = std::env::var("EXTYPE_IO_BENCH_DIR")
        .map(Into::into)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/io-bench"));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("masked.safetensors");
    let raw = dir.join("masked.raw");
    let small = dir.join("small.safetensors");
    let v = value(n);
    let bytes = n * 5;
    println!(
        "io bench: masked value of {mi} Mi f32 + {mi} Mi bool ({} MiB) in {}",
        bytes >> 20,
        dir.display()
    );

    // Alternate the two so that both see the same state of the machine.
    let (mut save, mut write) = (Duration::MAX, Duration::MAX);
    for _ in 0..runs {
        save = save.min(time_save(&file, &v));
        write = write.min(time_raw_write(&raw, &v));
    }
    let gb = |d: Duration| bytes as f64 / d.as_secs_f64() / 1e9;
    println!(
        "save        {:>9.2} ms ({:.2} GB/s)   raw write_all {:>9.2} ms ({:.2} GB/s)   ratio {:.3}",
        save.as_secs_f64() * 1e3,
        gb(save),
        write.as_secs_f64() * 1e3,
        gb(write),
        write.as_secs_f64() / save.as_secs_f64()
    );

    let (mut load, mut read) = (Duration::MAX, Duration::MAX);
    let file_len = std::fs::metadata(&file).unwrap().len() as usize;
    for _ in 0..runs {
        let t = Instant::now();
        let back: MaskedTensor = io::load_as(&file).unwrap();
        load = load.min(t.elapsed());
        assert_eq!(back.values.len(), n);
        drop(back);
        let t = Instant::now();
        let mut buf = Vec::with_capacity(file_len);
        std::fs::File::open(&file)
            .unwrap()
            .read_to_end(&mut buf)
            .unwrap();
        read = read.min(t.elapsed());
        assert_eq!(buf.len(), file_len);
    }
    let gbf = |d: Duration| file_len as f64 / d.as_secs_f64() / 1e9;
    println!(
        "load        {:>9.2} ms ({:.2} GB/s)   raw read      {:>9.2} ms ({:.2} GB/s)   ratio {:.3}",
        load.as_secs_f64() * 1e3,
        gbf(load),
        read.as_secs_f64() * 1e3,
        gbf(read),
        read.as_secs_f64() / load.as_secs_f64()
    );

    io::save(&small, &value((n / 1024).max(1))).unwrap();
    let map_big = time_map(&file, runs);
    let map_small = time_map(&small, runs);
    println!(
        "map         {:>9.2} µs ({} MiB file)   {:>9.2} µs ({} KiB file)",
        map_big.as_secs_f64() * 1e6,
        file_len >> 20,
        map_small.as_secs_f64() * 1e6,
        std::fs::metadata(&small).unwrap().len() >> 10
    );
    let f32_big = time_map_tensor(&file, "values", runs);
    let f32_small = time_map_tensor(&small, "values", runs);
    println!(
        "map+f32     {:>9.2} µs ({} MiB tensor)   {:>9.2} µs ({} KiB tensor)",
        f32_big.as_secs_f64() * 1e6,
        (n * 4) >> 20,
        f32_small.as_secs_f64() * 1e6,
        ((n / 1024).max(1) * 4) >> 10
    );
    let bool_big = time_map_tensor(&file, "mask", runs);
    println!(
        "map+bool    {:>9.2} µs ({} MiB tensor, {:.2} GB/s scanned)",
        bool_big.as_secs_f64() * 1e6,
        n >> 20,
        n as f64 / bool_big.as_secs_f64() / 1e9
    );
    for p in [&file, &raw, &small] {
        let _ = std::fs::remove_file(p);
    }
}
