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
//! | [`cast`] | `cast::<T, U>(a)` between any two of bool i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 |
//! | [`spmm`] | `sparse_dense_matmul(a, b)`: a sparse matrix (entries grouped by output row) times a dense one, rows in registers, prefetched, rows split across threads |
//! | [`matmul`] | `matmul(a, b)` over the last two axes, leading axes broadcast (f32 f64: ndarray / matrixmultiply; i32 i64: wrapping) |
//! | [`sparse_merge`] | `add(dense_shape, a, b, threshold, canonical)`: the sum of two COO entry lists (TensorFlow's `SparseAdd`), branch-free, row-major offsets as keys, halves on two cores; `add_reference`, the plain merge |
//! | [`filled`] | `filled(op, n, fill)`: `n` copies of a scalar, allocated fallibly, zeroed by the allocator for a zero fill |
//! | [`buckets`] | `group(keys, buckets)`: a counting sort, positions grouped by a small integer key |
//! | [`tf_order`] | TensorFlow's order of operations where results show it: Eigen's vectorised sum and maximum (`eigen_fold`), the segment max/min of floats (`segment_extreme`), libstdc++'s `std::sort` (`std_sort`) |
//! | [`axis`] | `normalize`, `selected`, `reduced_shape`: the one rule for (negative) axes, reduced axes and keepdims shapes, shared with core's op model |
//!
//! Dtypes: f32, f64, i32, i64, u8, u64 and bool wherever meaningful ([`Scalar`] all of them,
//! [`Num`] the numeric ones, [`Float`] f32/f64). The half-precision floats `half::f16` and
//! `half::bf16` are [`Scalar`]s: every kernel bounded by [`Scalar`] takes them (select,
//! compaction, gather, stack/concat, `eq ne logical_*`, `is_nan is_finite logical_not`,
//! `any all count_nonzero`, cast); arithmetic and ordering on them is the caller's, in `f32`.
//! i8, i16, u16 and u32 are [`Scalar`]s for [`cast`] (and the other [`Scalar`] kernels).
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
//! `#[inline(always)]` generic function over a backend `S: Simd` (`Scalar`, `Sse2`, `Avx2`,
//! `Avx512`), wrapped in a `Kernel`; `dispatch` reads the active level (detected once with
//! `is_x86_feature_detected!`, cached in an atomic) and calls the body inside a
//! `#[target_feature(enable = …)]` wrapper for that level, so everything inlined into it is
//! compiled for that width. The backends, `Simd` and `Kernel` are crate-private: a backend's
//! safe vector methods execute its instructions unchecked, so only the dispatcher, after the
//! feature check, may pick one; safe code outside the crate sees only [`simd::Isa`]. Two kinds
//! of bodies (only an optimised build of this crate compiles the x86-64 levels: at
//! `opt-level = 0` none would be vectorised, and the four copies of every kernel were half of
//! a debug build's code, so the dispatcher runs the portable level there; see `build.rs`):
//!
//! * **Reductions** (sum, prod, max, min, masked variants) use hand-written `std::arch`
//!   intrinsics behind a crate-private `VirtualVectors` trait: a *virtual vector* of 64 `f32`
//!   (32 `f64`) lanes that AVX-512 holds in 4 registers, AVX2 in 8, SSE2 in 16 and the scalar
//!   reference in an array. The number of lanes is fixed, so the association order — hence
//!   every bit of a float result — is the same on every path (tested on every level this CPU
//!   has, for every tail length `0..=192` and across leaf boundaries, by
//!   `cargo test --release -p extype-kernels`).
//! * **Elementwise maps** (unary, binary, select, cast) are plain Rust loops over slices,
//!   vectorised by LLVM inside the same wrappers; each output is independent, so any width
//!   gives the same bits. `exp`/`sigmoid` on `f32` use a branch-free Cephes polynomial so they
//!   vectorise too (≤ 2 ulp, tested against `f64::exp`).
//!
//! Hand-written intrinsics rather than LLVM's auto-vectorised accumulator arrays (which kept the
//! accumulators in memory), closures (not reliably inlined into `#[target_feature]` functions)
//! or a SIMD crate (`pulp`: one more dependency and dispatch abstraction for the ~10 operations
//! the reductions need; `wide`: no runtime dispatch); for the measurements that decided it, see
//! BENCHMARKS.md in the repository ("Measurements behind the kernels' design and constants").
//!
//! aarch64 has no NEON backend: this machine has only the x86-64 toolchain (no aarch64
//! `rust-std`, no `rust-src` to build one), so one could be neither compiled nor tested. On
//! non-x86 targets everything runs the scalar backend, whose elementwise loops LLVM can still
//! vectorise for the target's baseline (NEON is part of the aarch64 baseline). Not tested on
//! aarch64.
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
//! These are worst-case bounds; rounding errors of random data cancel: the relative error of the
//! `f32` sum of 64 Mi uniform `[0, 1)` values against a compensated `f64` reference stays within
//! 1e-7 (test `f32_sum_accuracy_64mi`, and a 1 Mi version that runs by default; for the measured
//! error, see BENCHMARKS.md in the repository). Strided (non-vectorisable) lanes are summed
//! pairwise too.
//!
//! ## Layouts
//!
//! Contiguous inputs in any memory order (transposed, reversed axes) are processed as one
//! slice in memory order — reductions directly, maps with the output in the input's memory
//! order. Other layouts go lane by lane along the innermost (smallest-stride) axis; a lane with
//! stride 1 is vectorised, a broadcast (stride 0) operand becomes a scalar, and the common
//! "bias" broadcast (`[n, k] + [k]`) is one vectorised pass over repeated blocks (reached
//! without any broadcasting machinery when one standard-layout shape is a suffix of the
//! other's). `stack`/`concat` of standard-layout inputs along the leading axis (or an axis
//! preceded only by length-1 axes) are one `memcpy` per input into the uninitialised output (no
//! zero-fill, no dynamic-rank views, the shape built without a heap allocation, ranks 1 and 2
//! constructed at static rank and converted).
//!
//! ## Parallelism and large outputs
//!
//! [`parallel`]: reductions split perfect blocks of leaves in halves (`rayon::join`); maps,
//! copies and segment reductions split their output in chunks. Kernels reach rayon through two
//! type-erased functions, so its machinery is compiled once rather than per kernel instance. Reductions split at fixed
//! boundaries, and maps, copies and segments compute each output independently of the chunking,
//! so results never depend on the thread count (tested bit-identical with 1 and 4 threads, with
//! the threshold lowered so a 4 MiB input splits). The threshold
//! ([`parallel::PAR_MIN_BYTES`], 4 MiB per task, so reductions split from 8 MiB) is where one
//! split started to pay in the benchmarks' "parallel crossover" measurement; kernels that build an
//! output split from twice that. Outputs of 8 MiB or more get `madvise(MADV_HUGEPAGE)` before
//! first touch (Linux), with parallel chunks ending on 2 MiB boundaries, and streams that do
//! little per cache line (masked and segment reductions) prefetch ahead in software. For the
//! measurements behind each choice, see BENCHMARKS.md in the repository.
//!
//! ## Performance
//!
//! `cargo bench -p extype-kernels --bench kernels` (criterion; every ratio between figures of the
//! same run). In short, for `f32`: reductions and masked reductions on large arrays run at or
//! above the all-core read bandwidth, the sum of a small array takes the same time at any
//! alignment, elementwise ops and copies of large arrays are faster than the obvious ndarray
//! code, and everything else is at least ndarray's speed within noise. Missed: stack/concat of
//! small arrays against allocate-and-copy (a dynamic-rank `ArrayD` alone costs much of the
//! budget) and compaction of large arrays under heavy load. For the figures, the targets met
//! and missed, the NumPy comparison (`python3 kernels/bench/compare_numpy.py`) and what is not
//! done yet, see BENCHMARKS.md in the repository.

#![deny(clippy::undocumented_unsafe_blocks)]

pub mod axis;
pub mod buckets;
pub mod cast;
pub mod compact;
pub mod elementwise;
pub mod error;
pub mod filled;
pub mod gather;
pub(crate) mod layout;
pub mod matmul;
pub mod parallel;
pub mod reduce;
pub mod scalar;
pub mod scatter;
pub mod select;
pub mod simd;
pub mod sparse_merge;
pub mod spmm;
pub mod stack_concat;
pub mod tf_order;

pub use error::{KernelError, Result};
pub use scalar::{Float, Num, Scalar};
