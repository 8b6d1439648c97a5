//! # extype-kernels
//!
//! SIMD CPU kernels over ndarray views. This crate knows nothing of extension types: it takes
//! [`ndarray::ArrayView`]s (or any `&ArrayBase`) of any strides — negative, zero (broadcast),
//! zero-size, rank 0 — and returns owned arrays. Bad input is a [`KernelError`], never a panic.
//!
//! ## Operations
//!
//! | module | functions |
//! |---|---|
//! | [`elementwise::unary`] | `neg abs exp log sqrt sin cos tanh sigmoid floor ceil round logical_not is_nan is_finite`, generic `map` |
//! | [`elementwise::binary`] | NumPy-broadcasting `add sub mul div maximum minimum pow eq ne lt le gt ge logical_and logical_or logical_xor`, generic `zip_with` |
//! | [`reduce::full`] | over all elements: `sum mean prod max min argmax argmin any all count_nonzero` |
//! | [`reduce::axes`] | the same over any set of (possibly negative) axes with `keepdims`: `sum_axes mean_axes …` |
//! | [`reduce::masked`] | `masked_sum masked_mean masked_max masked_min masked_count` (+ `_axes`), mask same shape or broadcastable, no compaction |
//! | [`reduce::segment`] | `segment_sum segment_mean segment_max segment_min` over ragged `row_splits`; `validate_row_splits` |
//! | [`select`] | `select(cond, x, y)` (NumPy `where`, broadcasting all three) |
//! | [`compact`] | `boolean_mask(values, mask)` (NumPy `v[m]` for a mask over leading axes) |
//! | [`stack_concat`] | `stack(axis, arrays)`, `concat(axis, arrays)` |
//! | [`gather`] | `gather(a, indices, axis)` (NumPy `take`, bounds-checked, negative indices) |
//! | [`cast`] | `cast::<T, U>(a)` between f32 f64 i32 i64 u8 u64 bool |
//!
//! Dtypes: f32, f64, i32, i64, u8, u64 and bool wherever meaningful ([`Element`] all of them,
//! [`Num`] the numeric ones, [`Float`] f32/f64).
//!
//! ## Semantics (NumPy's)
//!
//! NaN propagates through `max`/`min`/`maximum`/`minimum`, and `argmax`/`argmin` return the
//! first NaN. The sum of nothing is 0, its mean NaN; `max`/`min`/`argmax`/`argmin` of nothing
//! (and of an empty segment, or a mask selecting nothing) are [`KernelError::EmptyReduction`].
//! Integer arithmetic wraps; sums and products widen like NumPy's (`i32 → i64`, `u8 → u64`);
//! integer means and `div` (true division) are `f64`; integer `pow` wraps and rejects negative
//! exponents. `round` is half-to-even. Float → int casts saturate (NaN → 0).
//! Across instruction sets and thread counts results are bit-identical, except for the payload
//! and sign bits of NaNs, which IEEE 754 leaves unspecified (tests compare NaNs as equal).
//!
//! ## SIMD approach, and why
//!
//! [`simd`] is the one dispatch layer. Each kernel body is written once as an
//! `#[inline(always)]` generic function over a backend `S: Simd` ([`simd::Scalar`], `Sse2`,
//! `Avx2`, `Avx512`), wrapped in a crate-internal `Kernel`; `dispatch` reads the active level
//! (detected once with `is_x86_feature_detected!`, cached in an atomic) and calls the body
//! inside a `#[target_feature(enable = …)]` wrapper for that level, so everything inlined into
//! it is compiled for that width. Two kinds of bodies:
//!
//! * **Reductions** (sum, prod, max, min, masked variants) use hand-written `std::arch`
//!   intrinsics behind [`simd::VirtualVectors`]: a *virtual vector* of 64 `f32` (32 `f64`)
//!   lanes that AVX-512 holds in 4 registers, AVX2 in 8, SSE2 in 16 and the scalar reference
//!   in an array. The number of lanes is fixed, so the association order — hence every bit of
//!   a float result — is the same on every path (tested on every level this CPU has, for every
//!   tail length `0..=192` and across leaf boundaries).
//! * **Elementwise maps** (unary, binary, select, cast) are plain Rust loops over slices,
//!   vectorised by LLVM inside the same wrappers; each output is independent, so any width
//!   gives the same bits. `exp`/`sigmoid` on `f32` use a branch-free Cephes polynomial so they
//!   vectorise too (≤ 2 ulp, tested against `f64::exp`).
//!
//! Evidence (this machine, AMD EPYC with AVX-512, criterion medians):
//! * The first version wrote reductions as `[f32; 64]` accumulator arrays for LLVM to
//!   vectorise. LLVM vectorised the loop but kept the accumulators in memory (a load and a
//!   store per row): a 4 Ki `f32` sum took 351–418 ns, slower than ndarray's `a.sum()`
//!   (284–297 ns). With the intrinsic backends it takes 95–150 ns (depending on the load of
//!   the shared machine; ndarray 297–496 ns in the same runs). The masked sum went from
//!   4.17 ms per 1 Mi (a branchy scalar loop) to 0.11–0.23 ms.
//! * Closures are not reliably inlined into `#[target_feature]` functions; when they are not,
//!   their body is compiled for the baseline and every intrinsic becomes a call (perf showed
//!   `core::array::try_from_fn` and `_mm512_mask_mov_ps` as separate hot functions and the
//!   4 Ki masked sum at 1.28 µs). So the hot paths use no closures: leaves are `fn`s, register
//!   arrays are written out by a macro, segment loops are plain `for` loops.
//! * The hand-written AVX-512 sum in the benchmark (the read-bandwidth yardstick, 8
//!   independent accumulators, no tree) and the crate's sum run at the same speed out of
//!   cache and DRAM (see Measured), matching the brief's observation that hand-written AVX-512
//!   and pulp's x86-v4 level reach the same speed. Crates without runtime dispatch (`wide`)
//!   compile to SSE2 in a default build (measured 3× slower), so they were ruled out; `pulp`
//!   would have worked but adds a dependency and a second dispatch abstraction for the ~10
//!   operations the reductions need, which `std::arch` gives directly on stable Rust 1.95.
//! * aarch64: no NEON backend yet (no aarch64 toolchain here to test one); on non-x86 targets
//!   everything runs the scalar backend, whose elementwise loops LLVM still vectorises for the
//!   target's baseline (NEON on aarch64).
//!
//! ## Accuracy of float sums
//!
//! A contiguous run is cut into leaves of [`reduce::LEAF`] = 4096 elements. In a leaf, each of
//! the 64 (`f32`) or 32 (`f64`) virtual lanes adds at most 64 (128) elements sequentially; the
//! lanes then fold pairwise (6 or 5 levels). Leaf results are combined by a pairwise tree
//! whose shape depends only on the number of leaves (parallel splits follow the same tree, so
//! serial and parallel sums are bit-identical). For `f32` input the tree, and the final
//! division of a mean, run in `f64`; the result is rounded to `f32` once. To first order,
//! with `u32 = 2^-24`, `u64 = 2^-53`:
//!
//! * `f32`: `|ŝ − s| ≤ u32·|s| + 69·u32·Σ|xᵢ| + ⌈log₂(n/4096)⌉·u64·Σ|xᵢ|`;
//! * `f64`: `|ŝ − s| ≤ (127 + 5 + ⌈log₂(n/4096)⌉)·u64·Σ|xᵢ|`.
//!
//! These are worst-case bounds; rounding errors of random data cancel: the measured relative
//! error of the `f32` sum of 64 Mi uniform `[0, 1)` values against a compensated `f64`
//! reference is 9.1e-9 (target ≤ 1e-7; test `f32_sum_accuracy_64mi`, and a 1 Mi version that
//! runs by default: 8.4e-9). Strided (non-vectorisable) lanes are summed pairwise too.
//!
//! ## Layouts
//!
//! Contiguous inputs in any memory order (transposed, reversed axes) are processed as one
//! slice in memory order — reductions directly, maps with the output in the input's memory
//! order. Other layouts go lane by lane along the innermost (smallest-stride) axis; a lane with
//! stride 1 is vectorised, a broadcast (stride 0) operand becomes a scalar, and the common
//! "bias" broadcast (`[n, k] + [k]`) is one vectorised pass over repeated blocks.
//!
//! ## Parallelism and large outputs
//!
//! [`parallel`]: reductions split perfect blocks of leaves in halves with `rayon::join`; maps,
//! copies and segment reductions split their output in fixed chunks. Splits are at fixed
//! boundaries, so results never depend on the thread count (tested bit-identical with 1 and 4
//! threads, with the threshold lowered so a 4 MiB input splits). The threshold
//! ([`parallel::PAR_MIN_BYTES`], 16 MiB per task) was measured by the benchmark's "parallel
//! crossover" table: on this shared 2-core machine one split of an `f32` sum lost at every
//! size up to 32 MiB (0.11× at 256 KiB, 0.36× at 1 MiB, 0.81× at 4 MiB, 0.94–0.96× at
//! 16–32 MiB), because the second core was busy with other work and one core already draws
//! most of the DRAM bandwidth; so only inputs of 32 MiB or more split.
//!
//! Outputs of 4 MiB or more get `madvise(MADV_HUGEPAGE)` on their 2 MiB-aligned interior
//! before first touch (Linux; THP is in `madvise` mode here). Faulting in a 256 MiB output in
//! 4 KiB pages cost more than the add itself: the 64 Mi add took 268 ms before, 71–100 ms
//! after (ndarray's `&a + &b`: 288–315 ms; allocate-and-copy in the same runs: 1.0–2.2 GB/s
//! against 9–18 GB/s for a copy into touched memory).
//!
//! ## Measured
//!
//! `cargo bench -p extype-kernels` (criterion, `--release`; about 5 minutes), on the shared
//! 2-core AMD EPYC (AVX-512) development machine with two other engineers' jobs running, so
//! absolute numbers move by up to 2× between runs; every ratio below is between figures of
//! the *same* run. "GB/s in" counts input bytes (4 per `f32`, +1 per mask byte, 8 for add, 9
//! for select). Yardsticks of that run: copy into touched memory (`copy_from_slice`),
//! allocate-and-copy (`to_vec`), and a plain hand-written AVX-512 sum on one core and on all
//! cores (rayon). "ndarray" is the obvious ndarray code: `a.sum()`, a `fold` max, a `Zip`
//! masked fold, `&a + &b`, `mapv`, slices summed per segment, `Zip::map_collect` select,
//! a filtered iterator, `ndarray::stack`/`concatenate`.
//!
//! Yardsticks: 4 Ki: copy 107 GB/s, read 179 (1 core) / 210 (all); 1 Mi: copy 46.6, read
//! 88.7 / 68.9; 64 Mi: copy 16.9 (allocate-and-copy 2.2), read 29.4 / 27.7 GB/s.
//!
//! | kernel | 4 Ki median | ×ndarray | 1 Mi median | GB/s | ×ndarray | 64 Mi median | GB/s | % read (all) | ×ndarray |
//! |---|---|---|---|---|---|---|---|---|---|
//! | sum | 94.6 ns | 5.24 | 48.7 µs | 86.1 | 1.70 | 9.96 ms | 27.0 | 97% | 1.00 |
//! | max | 144 ns | 63.3 | 50.0 µs | 83.9 | 46.3 | 11.5 ms | 23.3 | 84% | 13.9 |
//! | masked sum | 220 ns | 7.86 | 116 µs | 45.3 | 31.8 | 20.9 ms | 16.1 | 58% | 11.4 |
//! | add | 468 ns | 0.86 | 114 µs | 73.5 | 1.30 | 37.2 ms | 14.4 | 52% | 4.01 |
//! | add (row broadcast) | 428 ns | 1.53 | 118 µs | 35.4 | 0.83 | 34.1 ms | 7.9 | 28% | 4.02 |
//! | exp | 1.82 µs | 4.21 | 301 µs | 14.0 | 5.01 | 35.8 ms | 7.5 | 27% | 6.33 |
//! | abs | 204 ns | 1.74 | 91.9 µs | 45.6 | 1.06 | 27.0 ms | 10.0 | 36% | 5.00 |
//! | segment sum (100-element rows) | 1.08 µs | 1.01 | 238 µs | 17.6 | 1.17 | 24.5 ms | 11.0 | 40% | 0.76 |
//! | select | 565 ns | 1.25 | 128 µs | 74.0 | 1.42 | 39.0 ms | 15.5 | 56% | 4.37 |
//! | compaction (50% kept) | 1.49 µs | 2.22 | 363 µs | 14.4 | 12.8 | 35.7 ms | 9.4 | 34% | 10.5 |
//! | stack (2 halves) | 425 ns | 0.74 | 92.4 µs | 45.4 | 1.05 | 26.6 ms | 10.1 | 60% of copy | 5.55 |
//! | concat (2 halves) | 379 ns | 0.71 | 90.2 µs | 46.5 | 1.07 | 31.2 ms | 8.6 | 51% of copy | 4.72 |
//!
//! Targets of the issue, against that run:
//! * reductions on 64 Mi ≥ 90% of the all-core read bandwidth: **sum met (97%)**; max missed
//!   (84%); masked sum missed (58%: perf shows the masked-load loop stalled on memory, and
//!   blend-after-load is folded back into masked loads by LLVM);
//! * copies ≥ 90% of memcpy: met at 1 Mi (stack 97%, concat 100%); missed at 64 Mi (60%, 51%
//!   of a copy into already-touched memory; the outputs are fresh allocations, and against
//!   allocate-and-copy they are 4–5× faster) and at 4 Ki (fixed overhead);
//! * compaction ≥ 8 GB/s: **met** (13.8, 14.4, 9.4 GB/s at 4 Ki, 1 Mi, 64 Mi);
//! * 4 Ki `f32` sum ≤ 70 ns: missed — 94.6 ns, while the plain AVX-512 loop took 91.6 ns in
//!   the same run (the kernel is at 97% of the machine's L1 figure that day; in quieter runs
//!   it measured 130–150 ns with everything else equally slower). Alignment is not varied;
//! * masked sum in L1 ≥ 100 GB/s: missed narrowly (93 GB/s);
//! * never slower than ndarray: missed for 4 Ki add (0.86×), stack/concat at 4 Ki (0.71–0.74×,
//!   fixed per-call overhead of the dynamic-rank paths), row-broadcast add at 1 Mi (0.83×) and
//!   segment sum at 64 Mi (0.76×: each 100-element segment pays a 64-lane leaf with a padded
//!   tail and a horizontal fold); everything else is 1.0–63× faster;
//! * `f32` sum relative error ≤ 1e-7 on 64 Mi random values: **met** (9.1e-9).
//!
//! Parallel crossover (same run, `f32` sum, no split vs one split): 0.10× at 256 KiB, 0.41× at
//! 1 MiB, 0.80× at 4 MiB, 0.98× at 16 and 32 MiB — hence the 16 MiB-per-task threshold.
//!
//! ## NumPy comparison
//!
//! `python3 kernels/bench/compare_numpy.py` (NumPy 2.4.6; reads the medians the benchmark
//! writes to `target/extype-kernels-bench.tsv`), run right after the benchmark above — so the
//! two sides ran minutes apart on a shared machine: ratios within ±30% are noise. Numbers are
//! NumPy time / kernel time (> 1: the kernels are faster). NumPy's masked sum is `v[m].sum()`
//! (`np.where(m, v, 0).sum()` was 1.1–1.5× faster than that and still far slower), select is
//! `np.where`, segment sum `np.add.reduceat`, compaction `v[m]`.
//!
//! | op | 4 Ki | 1 Mi | 64 Mi |
//! |---|---|---|---|
//! | sum | 24.9 | 4.03 | 1.29 |
//! | max | 11.0 | 0.92 | 0.73 |
//! | masked sum | 51.4 | 58.1 | 17.2 |
//! | add | 2.70 | 1.02 | 0.79 |
//! | add (row broadcast) | 5.19 | 1.33 | 0.90 |
//! | exp | 1.59 | 1.27 | 1.20 |
//! | abs | 5.59 | 1.01 | 0.95 |
//! | segment sum | 2.27 | 0.91 | 0.64 |
//! | select | 9.28 | 33.9 | 8.45 |
//! | compaction | 7.18 | 14.2 | 9.56 |
//! | stack | 9.04 | 0.85 | 0.96 |
//! | concat | 3.81 | 0.84 | 0.83 |
//!
//! NumPy wins where its allocator hands back already-faulted memory for the output (add, abs,
//! stack, concat on large arrays: NumPy caches and huge-pages its buffers) and on 100-element
//! segments (see above); the kernels win everywhere masks are involved and on small arrays.
//!
//! ## Not done yet
//!
//! * NEON backend for aarch64 (scalar backend there).
//! * Masked sum at DRAM speed (58% of read bandwidth), max at 84%, a cheaper path for short
//!   segments, and lower fixed per-call overhead on 4 Ki inputs (add, stack, concat).
//! * Reductions over *leading* axes of a standard-layout array (column sums, batch sums) are
//!   vectorised across columns; other non-innermost axis sets (e.g. axis 1 of a rank-3 array)
//!   still go lane by lane along the strided axis: pairwise-accurate, but not vectorised.
//! * Outputs of maps over non-contiguous, non-broadcast inputs are built lane by lane without
//!   parallel splitting.

pub mod cast;
pub mod compact;
pub mod element;
pub mod elementwise;
pub mod error;
pub mod gather;
pub(crate) mod layout;
pub mod parallel;
pub mod reduce;
pub mod select;
pub mod simd;
pub mod stack_concat;

pub use element::{Element, Float, Num};
pub use error::{KernelError, Result};
