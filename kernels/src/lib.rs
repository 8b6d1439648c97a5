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
//! * The hand-written AVX-512 sum in the benchmark (the read-bandwidth yardstick: 8 independent
//!   accumulators, no tree, no dispatch) bounds what the crate's sum can do: in the run under
//!   Measured the crate's sum reached 95% of its one-core speed at 1 Mi, 75% at 4 Ki (about 20 ns
//!   of per-call overhead), and 120% at 64 Mi, where it also splits across both cores. The dispatch
//!   layer and the fixed-order tree cost little beyond that overhead. The project's earlier
//!   measurements (quoted in the issue, not re-run here) found hand-written AVX-512 and `pulp`'s
//!   x86-v4 level equally fast, and `wide` (no runtime dispatch) 3× slower because a default build
//!   compiles it for SSE2. `pulp` would have worked, but it adds a dependency and a second dispatch
//!   abstraction for the ~10 operations the reductions need, which `std::arch` provides on stable
//!   Rust 1.95.
//! * Fixed costs of a reduction leaf, all keeping the fixed association order: the horizontal
//!   fold of every lane operation (add, mul, max, min) runs in registers on AVX-512 and AVX2
//!   (lane `j` with `j + width`, as the scalar reference); AVX-512 loads rows from the 64-byte
//!   boundary before the data (masked loads at both ends) and rotates the accumulator back with
//!   4 `vpermt2ps`, so no load splits a cache line whatever the alignment (4 Ki sum at offsets
//!   0, +1, +3 elements: 62–65 ns each; before, 64 ns aligned and 93–95 ns at +1 and +3); a
//!   max/min row is checked for NaN with one unordered compare per *pair* of registers and,
//!   without NaN, stepped with a plain `vmaxps` (exact then), else with the exact NaN step.
//!   Tested: every start offset 0..16 × every length 0..=130 and across leaves, ±0 ties, NaN,
//!   bit-identical on every level.
//! * aarch64: no NEON backend. This machine has only the x86-64 toolchain (no aarch64
//!   `rust-std`, no `rust-src` to build one), so a NEON backend could be neither compiled nor
//!   tested, and none is written. On non-x86 targets everything runs the scalar backend, whose
//!   elementwise loops LLVM can still vectorise for the target's baseline (NEON is part of the
//!   aarch64 baseline). Not tested on aarch64.
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
//! Segments shorter than [`reduce::SHORT`] = 256 elements (ragged rows) use a cheaper fixed
//! algorithm, also the same on every path: 16 lanes (element `i` to lane `i % 16`, each lane
//! sequential from `+0.0`, at most 16 terms), then a 4-level pairwise fold, in the element
//! type: `f32`: `|ŝ − s| ≤ u32·|s| + 19·u32·Σ|xᵢ|`; `f64`: `≤ 19·u64·Σ|xᵢ|`. (So the
//! segment sum of a short run can differ in the last bits from [`reduce::full::sum`] of the
//! same run; both are deterministic.)
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
//! "bias" broadcast (`[n, k] + [k]`) is one vectorised pass over repeated blocks (reached
//! without any broadcasting machinery when one standard-layout shape is a suffix of the
//! other's). `stack`/`concat` of standard-layout inputs along the leading axis are one `memcpy`
//! per input into the uninitialised output (no zero-fill, no dynamic-rank views, the shape
//! built without a heap allocation).
//!
//! ## Parallelism and large outputs
//!
//! [`parallel`]: reductions split perfect blocks of leaves in halves with `rayon::join`; maps,
//! copies and segment reductions split their output in chunks. Reductions split at fixed
//! boundaries, and maps, copies and segments compute each output independently of the chunking,
//! so results never depend on the thread count (tested bit-identical with 1 and 4 threads, with
//! the threshold lowered so a 4 MiB input splits). The threshold
//! ([`parallel::PAR_MIN_BYTES`], 4 MiB per task, so reductions split from 8 MiB) comes from the
//! benchmark's "parallel crossover" table (an `f32` sum, no split against one split): with the
//! second core mostly free one split gave 0.93× at 4 MiB, 1.25× at 8 MiB and 1.6× at 16–32 MiB;
//! with it busy (other engineers share the machine) 0.80×, 0.88× and 0.98×. Below 4 MiB it
//! always lost (0.1× at 256 KiB, 0.3–0.4× at 1 MiB): a `rayon::join` from outside the pool costs
//! ~13 µs here. Kernels that build an output (maps, copies) split from twice that, 16 MiB of
//! input and output touched: at 1 Mi elements one core beat two on the shared machine (add
//! 115–119 µs serial against 108–166 µs split; row-broadcast add 84 µs against 74–99 µs).
//!
//! Outputs of 8 MiB or more get `madvise(MADV_HUGEPAGE)` on their 2 MiB-aligned interior
//! before first touch (Linux; THP is in `madvise` mode here), and parallel chunks of an output
//! end at 2 MiB-aligned addresses, so each huge page is faulted (and zeroed by the kernel) by
//! one thread and filled right after. Faulting in a 256 MiB output in 4 KiB pages cost more
//! than the add itself (268 ms before, 71–100 ms after). Below 8 MiB the allocator usually
//! recycles heap memory (glibc's adaptive `mmap` threshold grows to 32 MiB) and the advice is
//! pure cost: about 30 µs a call at 4 MiB (1 Mi add 150 µs with it, 115–119 µs without).
//!
//! Streams whose loop does little per cache line prefetch ahead in software: masked reductions
//! (values 4 KiB and mask 1 KiB ahead: 64 Mi masked sum and max went from 18–24 ms to 8–13 ms
//! in back-to-back runs) and segment reductions (4 KiB ahead: 100-element segments at 64 Mi
//! went from 8 to 13 GB/s on one core, and to 36 GB/s with the output written directly). For
//! plain sums and max the hardware prefetcher suffices (a software prefetch made the 4 Ki sum
//! 10–15 ns slower and did not help at 64 Mi).
//!
//! ## Measured
//!
//! `cargo bench -p extype-kernels` (criterion, release; about 5 minutes), on the shared 2-core AMD
//! EPYC (AVX-512) development machine with two other engineers' jobs running, so absolute numbers
//! move by up to 2× between runs; every ratio below is between figures of the *same* run (the last
//! full run; after it only the axis-0 stack path and the AVX-512 max step, both noted below, and a
//! `memcpy` for the unmasked tail of a reduction leaf changed). "GB/s" counts input bytes (4 per
//! `f32`, +1 per mask byte; 8 for add, 9 for select). Yardsticks measured in each group: copy into
//! touched memory (`copy_from_slice`), allocate-and-copy (`to_vec`), and a plain hand-written
//! AVX-512 sum on one core and on all cores (rayon). "×ndarray" is the speed-up over the obvious
//! ndarray code: `a.sum()`, a `fold` max, a `Zip` masked fold, `&a + &b`, `mapv`, slices summed per
//! segment, `Zip::map_collect` select, a filtered iterator, `ndarray::stack`/`concatenate`.
//!
//! Yardsticks: 4 Ki: copy 144 GB/s, read 236 (1 core) / 175 (all); 1 Mi: copy 56.8, read
//! 90.7 / 103; 64 Mi: copy 18.0 (allocate-and-copy 2.0), read 33.1 / 43.4 GB/s.
//!
//! | kernel | 4 Ki | GB/s | ×ndarray | 1 Mi | GB/s | ×ndarray | 64 Mi | GB/s | ×ndarray |
//! |---|---|---|---|---|---|---|---|---|---|
//! | sum | 92.7 ns | 177 | 3.32 | 48.5 µs | 86.5 | 1.71 | 6.76 ms | 39.7 | 1.34 |
//! | max | 138 ns | 118 | 64.2 | 48.6 µs | 86.2 | 47.2 | 9.37 ms | 28.6 | 16.5 |
//! | masked sum | 113 ns | 182 | 9.97 | 57.3 µs | 91.5 | 68.5 | 8.52 ms | 39.4 | 27.6 |
//! | add | 298 ns | 110 | 1.30 | 126 µs | 66.4 | 1.14 | 23.5 ms | 22.9 | 5.53 |
//! | add (row broadcast `[n,1024]+[1024]`) | 405 ns | 40.5 | 1.02 | 100 µs | 41.8 | 0.93 | 19.9 ms | 13.5 | 6.22 |
//! | exp | 1.17 µs | 14.0 | 4.91 | 174 µs | 24.1 | 8.46 | 23.7 ms | 11.3 | 8.86 |
//! | abs | 150 ns | 109 | 2.09 | 55.1 µs | 76.1 | 1.65 | 23.9 ms | 11.2 | 5.48 |
//! | segment sum (100-element rows) | 1.03 µs | 16.0 | 1.03 | 223 µs | 18.8 | 1.20 | 21.6 ms | 12.4 | 0.84 |
//! | select | 540 ns | 68.2 | 1.13 | 86.0 µs | 110 | 2.01 | 36.7 ms | 16.5 | 4.21 |
//! | compaction (half kept) | 1.44 µs | 14.3 | 3.05 | 345 µs | 15.2 | 13.5 | 34.7 ms | 9.7 | 10.5 |
//! | stack (two halves) | 322 ns | 50.8 | 0.90 | 89.1 µs | 47.1 | 1.09 | 31.2 ms | 8.6 | 4.01 |
//! | concat (two halves) | 298 ns | 55.0 | 0.87 | 95.5 µs | 43.9 | 0.99 | 35.6 ms | 7.6 | 4.13 |
//!
//! Targets of the issue, against that run:
//! * reductions and masked reductions on 64 Mi ≥ 90% of the all-core read bandwidth: sum
//!   **met** (92%), masked sum **met** (91%), max **missed** (66%; 86% of one core). In a
//!   busier run the masked sum fell to 58% (perf: the masked-load loop stalls on memory).
//!   After that run the AVX-512 max/min step became one masked max (2 instructions instead of
//!   3); a filtered run then measured max at 86% of the all-core figure (sum: 97%).
//! * copies (stack, concat) ≥ 90% of memcpy: **missed**. Against a copy into already-touched
//!   memory: 83% and 77% at 1 Mi, 48% and 42% at 64 Mi (their outputs are fresh allocations;
//!   against allocate-and-copy, 64 Mi stack/concat are 4.3× and 3.8× faster), 35–38% at 4 Ki.
//! * compaction ≥ 8 GB/s: **met** (14.3, 15.2, 9.7 GB/s at 4 Ki, 1 Mi, 64 Mi).
//! * 4 Ki `f32` sum ≤ 70 ns: **missed** in that run: 92.7 ns, with the plain AVX-512 loop at
//!   69.4 ns. A later filtered run (`-- '^(4 Ki|64 Mi)/(segment sum|sum|copy.*|read.*)'`), with
//!   the core evidently clocked higher (plain loop 36.9 ns), measured 55.5 ns — so the target
//!   is met only when the machine is quiet. Alignment is not varied in the benchmark.
//! * masked sum in L1 ≥ 100 GB/s: **met** (182 GB/s at 4 Ki).
//! * never slower than ndarray: **missed** for 4 Ki stack and concat (0.90×, 0.87×: fixed per-call
//!   overhead of the dynamic-rank paths; after that run a direct path for stacking standard-layout
//!   inputs on axis 0 measured 279 ns, 1.08× ndarray, in a filtered run), the 1 Mi row-broadcast
//!   add (0.93×), the 1 Mi concat (0.99×) and the 64 Mi segment sum (0.84×: each 100-element
//!   segment pays a 64-lane leaf with a padded tail and a horizontal fold); everything else
//!   1.02–68× faster.
//! * `f32` sum relative error ≤ 1e-7 on 64 Mi random values: **met** (9.1e-9).
//!
//! Parallel crossover in that run (`f32` sum, no split vs one split): 0.12× at 256 KiB, 0.40×
//! at 1 MiB, 0.86× at 4 MiB, 0.85× at 8 MiB, 0.91× at 16 MiB, 1.05× at 32 MiB.
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
//! | sum | 16.3 | 3.08 | 1.88 |
//! | max | 8.10 | 0.81 | 0.87 |
//! | masked sum | 57.7 | 90.0 | 41.6 |
//! | add | 2.76 | 0.95 | 1.34 |
//! | add (row broadcast) | 3.54 | 1.60 | 1.55 |
//! | exp | 1.68 | 2.15 | 1.68 |
//! | abs | 4.61 | 1.69 | 1.05 |
//! | segment sum | 1.51 | 0.96 | 0.70 |
//! | select | 5.63 | 49.1 | 7.79 |
//! | compaction | 3.69 | 14.8 | 10.2 |
//! | stack | 7.24 | 0.91 | 0.82 |
//! | concat | 2.93 | 0.81 | 0.70 |
//!
//! NumPy's sum reached 21.2 GB/s and its max 33.0 GB/s at 64 Mi (the kernels: 39.7, 28.6);
//! its `v[m].sum()` 0.95 GB/s (the kernels' masked sum: 39.4). NumPy is ahead on max, on the
//! 64 Mi segment sum (`reduceat`, 0.70×: see above), and on stack/concat at 1 Mi and 64 Mi
//! (0.70–0.91×: NumPy's allocator hands back already-faulted, huge-paged memory for the
//! output); the kernels are ahead everywhere masks are involved and on small arrays.
//!
//! ## Not done yet
//!
//! * NEON backend for aarch64 (scalar backend there).
//! * Max and masked sum at DRAM speed on a busy machine (66–86% and 58–91% of the all-core
//!   read yardstick across runs), a cheaper path for short segments (100-element segments
//!   lose to ndarray and NumPy at 64 Mi), copies at memcpy speed into fresh outputs, lower
//!   fixed per-call overhead at 4 Ki (concat), and the 4 Ki sum ≤ 70 ns on a busy machine.
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
