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
//!   (284–297 ns). With the intrinsic backends it takes 91–150 ns (depending on the load of
//!   the shared machine; ndarray 297–496 ns in the same runs). The masked sum went from
//!   4.17 ms per 1 Mi (a branchy scalar loop) to 0.05–0.23 ms.
//! * Closures are not reliably inlined into `#[target_feature]` functions; when they are not,
//!   their body is compiled for the baseline and every intrinsic becomes a call (perf showed
//!   `core::array::try_from_fn` and `_mm512_mask_mov_ps` as separate hot functions and the
//!   4 Ki masked sum at 1.28 µs). So the hot paths use no closures: leaves are `fn`s, register
//!   arrays are written out by a macro, segment loops are plain `for` loops.
//! * The hand-written AVX-512 sum in the benchmark (the read-bandwidth yardstick: 8
//!   independent accumulators, no tree, no dispatch) and the crate's sum are within 3–16% of
//!   each other from L1 to DRAM (see Measured), so the dispatch layer and the fixed-order tree
//!   cost little. The project's earlier measurements (quoted in the issue, not re-run here)
//!   found hand-written AVX-512 and `pulp`'s x86-v4 level equally fast, and `wide` (no
//!   runtime dispatch) 3× slower because a default build compiles it for SSE2. `pulp` would
//!   have worked, but it adds a dependency and a second dispatch abstraction for the ~10
//!   operations the reductions need, which `std::arch` provides on stable Rust 1.95.
//! * aarch64: no NEON backend yet (no aarch64 toolchain here to test one); on non-x86 targets
//!   everything runs the scalar backend, whose elementwise loops LLVM can still vectorise for
//!   the target's baseline (NEON is part of the aarch64 baseline). Not tested on aarch64.
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
//! ([`parallel::PAR_MIN_BYTES`], 4 MiB per task, so inputs split from 8 MiB) comes from the
//! benchmark's "parallel crossover" table (an `f32` sum, no split against one split): with the
//! second core mostly free one split gave 0.93× at 4 MiB, 1.25× at 8 MiB and 1.6× at 16–32 MiB;
//! with it busy (two other engineers share the machine) 0.80×, 0.88× and 0.98×. Below 4 MiB it
//! always lost (0.1× at 256 KiB, 0.3–0.4× at 1 MiB): a `rayon::join` from outside the pool
//! costs ~13 µs here.
//!
//! Outputs of 4 MiB or more get `madvise(MADV_HUGEPAGE)` on their 2 MiB-aligned interior
//! before first touch (Linux; THP is in `madvise` mode here). Faulting in a 256 MiB output in
//! 4 KiB pages cost more than the add itself: the 64 Mi add took 268 ms before, 71–100 ms
//! after (ndarray's `&a + &b`: 288–315 ms; allocate-and-copy in the same runs: 1.0–2.2 GB/s
//! against 9–18 GB/s for a copy into touched memory).
//!
//! ## Measured
//!
//! `cargo bench -p extype-kernels` (criterion, release; about 5 minutes), on the shared 2-core
//! AMD EPYC (AVX-512) development machine with two other engineers' jobs running, so absolute
//! numbers move by up to 2× between runs; every ratio below is between figures of the *same*
//! run (the last full run before this commit; the parallel threshold was 16 MiB per task then,
//! which changes nothing below 32 MiB inputs). "GB/s" counts input bytes (4 per `f32`, +1 per
//! mask byte; 8 for add, 9 for select). Yardsticks of that run: copy into touched memory
//! (`copy_from_slice`), allocate-and-copy (`to_vec`), and a plain hand-written AVX-512 sum on
//! one core and on all cores (rayon). "×ndarray" is the speed-up over the obvious ndarray code:
//! `a.sum()`, a `fold` max, a `Zip` masked fold, `&a + &b`, `mapv`, slices summed per
//! segment, `Zip::map_collect` select, a filtered iterator, `ndarray::stack`/`concatenate`.
//!
//! Yardsticks: 4 Ki: copy 145 GB/s, read 213 (1 core) / 181 (all); 1 Mi: copy 57.8, read
//! 104 / 110; 64 Mi: copy 17.8 (allocate-and-copy 2.3), read 31.6 / 24.9 GB/s.
//!
//! | kernel | 4 Ki | GB/s | ×ndarray | 1 Mi | GB/s | ×ndarray | 64 Mi | GB/s | ×ndarray |
//! |---|---|---|---|---|---|---|---|---|---|
//! | sum | 91.0 ns | 180 | 3.34 | 41.6 µs | 101 | 1.89 | 9.54 ms | 28.2 | 1.04 |
//! | max | 137 ns | 119 | 64.3 | 46.9 µs | 89.4 | 46.8 | 9.85 ms | 27.2 | 14.9 |
//! | masked sum | 113 ns | 181 | 10.0 | 54.5 µs | 96.2 | 72.0 | 15.0 ms | 22.4 | 15.8 |
//! | add | 373 ns | 87.8 | 1.09 | 121 µs | 69.2 | 1.04 | 31.2 ms | 17.2 | 4.47 |
//! | add (row broadcast `[n,1024]+[1024]`) | 496 ns | 33.1 | 0.81 | 81.0 µs | 51.8 | 1.13 | 29.1 ms | 9.2 | 4.64 |
//! | exp | 1.17 µs | 14.0 | 5.21 | 289 µs | 14.5 | 5.09 | 35.2 ms | 7.6 | 6.82 |
//! | abs | 167 ns | 98.3 | 1.91 | 86.8 µs | 48.3 | 1.06 | 25.5 ms | 10.5 | 5.79 |
//! | segment sum (100-element rows) | 1.04 µs | 15.7 | 1.03 | 220 µs | 19.1 | 1.21 | 27.9 ms | 9.6 | 0.65 |
//! | select | 544 ns | 67.8 | 1.14 | 130 µs | 72.5 | 1.64 | 36.7 ms | 16.4 | 4.40 |
//! | compaction (half kept) | 1.45 µs | 14.1 | 3.16 | 383 µs | 13.7 | 12.3 | 34.4 ms | 9.7 | 10.6 |
//! | stack (two halves) | 366 ns | 44.8 | 0.80 | 85.6 µs | 49.0 | 1.14 | 26.6 ms | 10.1 | 5.28 |
//! | concat (two halves) | 281 ns | 58.4 | 0.93 | 88.0 µs | 47.7 | 1.06 | 34.9 ms | 7.7 | 4.06 |
//!
//! Fractions of the yardsticks (same run): at 64 Mi, sum 113% and max 109% of the all-core
//! read figure (89% and 86% of one core's — the all-core figure was the lower one that run),
//! masked sum 90% (71%); stack 57% and concat 43% of a copy into touched memory (4.4× and
//! 3.3× allocate-and-copy); at 4 Ki sum 99% and masked sum 100% of the all-core read figure.
//!
//! Targets of the issue, against that run:
//! * reductions and masked reductions on 64 Mi ≥ 90% of the all-core read bandwidth: **met**
//!   in that run (sum 113%, max 109%, masked sum 90%); against the one-core figure, which was
//!   higher that run, 89%, 86%, 71%. In busier runs the masked sum fell to 58% (perf: the
//!   masked-load loop stalls on memory).
//! * copies (stack, concat) ≥ 90% of memcpy: met at 1 Mi against allocate-and-copy (both
//!   ~100%), missed against a copy into already-touched memory (85% at 1 Mi; 57% and 43% at
//!   64 Mi, where the outputs are fresh allocations); missed at 4 Ki (fixed per-call overhead).
//! * compaction ≥ 8 GB/s: **met** (14.1, 13.7, 9.7 GB/s at 4 Ki, 1 Mi, 64 Mi).
//! * 4 Ki `f32` sum ≤ 70 ns: **missed**: 91.0 ns, while the plain AVX-512 loop took 76.9 ns
//!   in the same run (the kernel is at 84% of it; alignment is not varied in the benchmark).
//! * masked sum in L1 ≥ 100 GB/s: **met** (181 GB/s at 4 Ki).
//! * never slower than ndarray: missed for the 4 Ki row-broadcast add (0.81×), 4 Ki stack and
//!   concat (0.80×, 0.93×: fixed per-call overhead of the dynamic-rank paths) and the 64 Mi
//!   segment sum (0.65×: each 100-element segment pays a 64-lane leaf with a padded tail and a
//!   horizontal fold); everything else 1.03–72× faster.
//! * `f32` sum relative error ≤ 1e-7 on 64 Mi random values: **met** (9.1e-9).
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
//! | sum | 16.4 | 3.47 | 1.24 |
//! | max | 8.02 | 0.96 | 0.88 |
//! | masked sum | 57.4 | 95.8 | 23.6 |
//! | add | 2.17 | 1.02 | 1.17 |
//! | add (row broadcast) | 2.85 | 1.98 | 1.14 |
//! | exp | 1.65 | 1.29 | 1.13 |
//! | abs | 4.14 | 1.04 | 0.99 |
//! | segment sum | 1.43 | 0.98 | 0.55 |
//! | select | 5.49 | 33.1 | 8.15 |
//! | compaction | 3.67 | 14.1 | 9.96 |
//! | stack | 6.32 | 1.23 | 0.93 |
//! | concat | 3.00 | 1.08 | 0.69 |
//!
//! NumPy's sum reached 22.7 GB/s and its max 30.8 GB/s at 64 Mi (the kernels: 28.2, 27.2);
//! its `v[m].sum()` 0.95 GB/s (the kernels' masked sum: 22.4). NumPy is ahead on the 64 Mi
//! segment sum (`reduceat`, 0.55×: see above), on concat (0.69×: NumPy's allocator hands back
//! already-faulted, huge-paged memory for the output) and, within noise, on max and abs; the
//! kernels are ahead everywhere masks are involved and on small arrays (fixed overhead).
//!
//! ## Not done yet
//!
//! * NEON backend for aarch64 (scalar backend there).
//! * A masked sum that holds DRAM speed on a busy machine (58–90% of the read yardstick across
//!   runs), a cheaper path for short segments (100-element segments lose to ndarray and NumPy
//!   at 64 Mi), lower fixed per-call overhead at 4 Ki (row-broadcast add, stack, concat), and
//!   the 4 Ki sum ≤ 70 ns target.
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
