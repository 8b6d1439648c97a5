//! What versions cost a load, measured in one run (files in `target/versioning-bench`, page
//! cache warm, each figure the best of `EXTYPE_VERSIONING_BENCH_RUNS` rounds, default 21, the
//! cases alternating so that load hits them alike):
//!
//! - **a current file**: `io::load_as` of a version-3 type (old names, a field alias, defaults
//!   and migrations declared) beside the same load of an unversioned type of the same layout,
//!   at 1 Ki and 16 Mi elements (`EXTYPE_VERSIONING_BENCH_MI`): the unversioned ÷ versioned
//!   ratio (of the bests, and the median of each round's), 1.0 when versions cost a current
//!   load nothing (≥ 0.98 is the bar), and the one step versions add to it, timed alone;
//! - **a migrated file**: the same type's version-2 file (its values under the old field name,
//!   no mask, a migration to run) beside the current file: a rename moves no data, the
//!   migration touches a static field, and the default is one pass writing the mask, timed
//!   alone beside it (`ArrayD::from_elem`).
//!
//! `cargo bench --bench versioning`.

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use extype::versioning::Stored;
use extype::{ExtensionType, field::Static};
use ndarray::{ArrayD, IxDyn};

fn all_valid(old: &Stored) -> extype::Result<ArrayD<bool>> {
    Ok(ArrayD::from_elem(old.tensor("values")?.shape(), true))
}

fn double_rate(old: &mut Stored) -> extype::Result<()> {
    let Static(rate) = old.get::<Static<u32>>("rate")?;
    old.set("rate", Static(rate * 2))
}

/// Version 3: renamed, with a field alias, a default and a migration.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(
    name = "bench.Signal",
    version = 3,
    aliases = ["bench.OldSignal"],
    migrate(from = 2, with = double_rate)
)]
pub struct Signal {
    #[extype(shape = "n", alias = "data")]
    pub values: ArrayD<f32>,
    #[extype(shape = "n", default = all_valid)]
    pub mask: ArrayD<bool>,
    #[extype(static)]
    pub rate: u32,
}

/// The same layout, unversioned.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "bench.Plain")]
pub struct Plain {
    #[extype(shape = "n")]
    pub values: ArrayD<f32>,
    #[extype(shape = "n")]
    pub mask: ArrayD<bool>,
    #[extype(static)]
    pub rate: u32,
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn timed<T>(f: impl FnOnce() -> T) -> Duration {
    let t = Instant::now();
    std::hint::black_box(f());
    t.elapsed()
}

/// The version-2 file of `signal`: its values under the old name `data`, no mask, version 2 in
/// the spec document (written beside the current file, from its metadata).
fn write_version_2(current: &Path, path: &Path, signal: &Signal) {
    let bytes = std::fs::read(current).unwrap();
    let (_, meta) = safetensors::SafeTensors::read_metadata(&bytes).unwrap();
    let mut info: HashMap<String, String> = meta.metadata().clone().unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&info["spec"]).unwrap();
    let spec = &mut doc["spec"];
    spec["version"] = 2.into();
    let value = &mut spec["value"];
    let map = value["map"].as_object_mut().unwrap();
    map.remove("mask");
    let values = map.remove("values").unwrap();
    map.insert("data".into(), values);
    value["order"] = serde_json::json!(["data", "rate"]);
    info.insert("spec".into(), doc.to_string());
    info.insert("components".into(), r#"["data"]"#.into());
    let data = signal.values.as_slice().unwrap();
    // SAFETY: f32 is plain initialised bytes.
    let raw = unsafe {
        std::slice::from_raw_parts(data.as_ptr().cast::<u8>(), std::mem::size_of_val(data))
    };
    let view = safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![data.len()], raw)
        .unwrap();
    safetensors::serialize_to_file([("data", view)], Some(info), path).unwrap();
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs this too: keep that one small.
    let testing = !std::env::args().any(|a| a == "--bench");
    let (mi, runs) = if testing {
        (1, 1)
    } else {
        (
            env("EXTYPE_VERSIONING_BENCH_MI", 16),
            env("EXTYPE_VERSIONING_BENCH_RUNS", 21),
        )
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/versioning-bench");
    std::fs::create_dir_all(&dir).unwrap();
    println!(
        "versioning bench: best of {runs} runs, in {}",
        dir.display()
    );
    for n in [1 << 10, mi << 20] {
        let values = ArrayD::from_shape_fn(IxDyn(&[n]), |i| i[0] as f32);
        let mask = ArrayD::from_shape_fn(IxDyn(&[n]), |i| i[0] % 3 != 0);
        let signal = Signal::try_new(values.clone(), mask.clone(), 50).unwrap();
        let plain = Plain::try_new(values, mask, 50).unwrap();
        let (current, unversioned, old) = (
            dir.join("current.safetensors"),
            dir.join("plain.safetensors"),
            dir.join("version_2.safetensors"),
        );
        extype::io::save(&current, &signal).unwrap();
        extype::io::save(&unversioned, &plain).unwrap();
        write_version_2(&current, &old, &signal);
        let migrated: Signal = extype::io::load_as(&old).unwrap();
        assert_eq!((migrated.rate, migrated.values.len()), (100, n));
        assert!(migrated.mask.iter().all(|&m| m));

        // Small files take many loads per sample, so the clock's grain does not show.
        let reps = if n <= 1 << 10 { 2000 } else { 1 };
        let repeat = |f: &dyn Fn()| {
            timed(|| {
                for _ in 0..reps {
                    f()
                }
            }) / reps
        };
        let mut best = [Duration::MAX; 4];
        let mut ratios = Vec::with_capacity(runs);
        for _ in 0..runs {
            let times = [
                repeat(&|| {
                    std::hint::black_box(extype::io::load_as::<Plain>(&unversioned).unwrap());
                }),
                repeat(&|| {
                    std::hint::black_box(extype::io::load_as::<Signal>(&current).unwrap());
                }),
                repeat(&|| {
                    std::hint::black_box(extype::io::load_as::<Signal>(&old).unwrap());
                }),
                repeat(&|| {
                    std::hint::black_box(ArrayD::from_elem(IxDyn(&[n]), true));
                }),
            ];
            ratios.push(times[0].as_secs_f64() / times[1].as_secs_f64());
            for (b, t) in best.iter_mut().zip(times) {
                *b = (*b).min(t);
            }
        }
        ratios.sort_by(f64::total_cmp);
        let [plain_t, current_t, migrated_t, fill_t] = best.map(|d| d.as_secs_f64() * 1e6);
        println!(
            "{n:>9} elements: unversioned load {plain_t:>10.2} µs   version-3 load \
             {current_t:>10.2} µs   ratio of the bests {:.3}, median of the rounds' ratios \
             {:.3} ({:.3}–{:.3})",
            plain_t / current_t,
            ratios[ratios.len() / 2],
            ratios[0],
            ratios[ratios.len() - 1]
        );
        println!(
            "{n:>9} elements: version-2 file  {migrated_t:>10.2} µs   (current {current_t:.2} \
             µs; the mask's default alone {fill_t:.2} µs)   migrated ÷ (current + default) \
             {:.3}",
            migrated_t / (current_t + fill_t)
        );
        // The one step a current load adds: is the stored spec current (the version, the
        // name, the fields, and no nested value outdated)?
        let tree = extype::TypeSpec::serialize(&signal.spec());
        let reg = extype::registry::registry();
        let checks = 100_000u32;
        let check = (0..runs)
            .map(|_| {
                timed(|| {
                    for _ in 0..checks {
                        let up = reg.upgrade_of("bench.Signal", std::hint::black_box(&tree));
                        assert!(up.unwrap().is_none());
                    }
                }) / checks
            })
            .min()
            .unwrap();
        println!(
            "{n:>9} elements: the current-version check alone {:.0} ns ({:.4} of the version-3 \
             load)",
            check.as_secs_f64() * 1e9,
            check.as_secs_f64() * 1e6 / current_t
        );
        for p in [&current, &unversioned, &old] {
            let _ = std::fs::remove_file(p);
        }
    }
}
