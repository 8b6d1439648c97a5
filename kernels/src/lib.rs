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
//!   accumulators, no tree, no dispatch, unaligned loads) is the yardstick for the crate's sum: in
//!   the run under Measured the crate's sum reached 112% of its one-core speed at 4 Ki and 105% at
//!   1 Mi (it loads aligned rows; the plain loop splits cache lines on the benchmark's 16-byte
//!   aligned `Vec`), and 121% at 64 Mi, where it also splits across both cores. The dispatch
//!   layer and the fixed-order tree cost little beyond a fixed ~20 ns per call. The project's earlier
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
//! other's). `stack`/`concat` of standard-layout inputs along the leading axis (or an axis
//! preceded only by length-1 axes) are one `memcpy` per input into the uninitialised output (no
//! zero-fill, no dynamic-rank views, the shape built without a heap allocation, ranks 1 and 2
//! constructed at static rank and converted).
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
//! `cargo bench -p extype-kernels` (criterion, release; about 4 minutes), on the shared 2-core AMD
//! EPYC (AVX-512, Zen 5) development machine with another engineer's builds running (`uptime`
//! load 2.5–3.2 during the run), so absolute numbers move by up to 2× between runs; every ratio
//! below is between figures of the *same* run (one full run, 10:21–10:24 UTC on 2026-11-21;
//! figures quoted from filtered re-runs are marked). After that run only compaction changed
//! (see its target below) and some code was deduplicated without changing what it compiles to. "GB/s" counts input bytes (4 per `f32`, +1
//! per mask byte; 8 for add, 9 for select). Yardsticks measured in each group: copy into
//! touched memory (`copy_from_slice`, the bandwidth ceiling: "copy"), allocate-and-copy
//! (`to_vec`, what producing a *fresh* output of the same bytes costs: "fresh"), and a plain
//! hand-written AVX-512 sum on one core and on all cores (rayon: "read"). "×ndarray" is the
//! speed-up over the obvious ndarray code: `a.sum()`, a `fold` max, an indexed first-max loop, a
//! `Zip` masked fold, `&a + &b`, `mapv`, slices summed per segment, `Zip::map_collect` select, a
//! filtered iterator, `ndarray::stack`/`concatenate`.
//!
//! Yardsticks: 4 Ki: copy 104 GB/s, fresh 131, read 225 (1 core) / 174 (all); 1 Mi: copy 45.4,
//! fresh 41.8, read 93.2 / 64.0; 64 Mi: copy 13.1, fresh 2.1, read 24.4 / 28.1 GB/s.
//!
//! | kernel | 4 Ki | GB/s | ×ndarray | 1 Mi | GB/s | ×ndarray | 64 Mi | GB/s | ×ndarray |
//! |---|---|---|---|---|---|---|---|---|---|
//! | sum | 65.2 ns | 251 | 4.98 | 42.9 µs | 97.7 | 2.02 | 9.10 ms | 29.5 | 1.10 |
//! | sum, 64-byte aligned / +1 / +3 elements | 62.2 / 66.1 / 65.5 ns | 263–248 | 5.19–5.24 | 43.3 / 42.5 / 42.2 µs | 97–99 | 2.03–2.15 | | | |
//! | max | 86.0 ns | 191 | 107 | 58.8 µs | 71.4 | 41.0 | 9.17 ms | 29.3 | 16.9 |
//! | argmax | 351 ns | 46.7 | 16.5 | 48.9 µs | 85.8 | 27.9 | 11.6 ms | 23.2 | 9.22 |
//! | masked sum | 155 ns | 133 | 8.93 | 74.0 µs | 70.9 | 62.4 | 8.97 ms | 37.4 | 29.1 |
//! | masked max | 242 ns | 84.8 | 5.54 | 56.2 µs | 93.3 | 84.3 | 6.51 ms | 51.5 | 42.2 |
//! | add | 390 ns | 84.0 | 1.55 | 183 µs | 45.9 | 0.88 | 28.4 ms | 18.9 | 5.56 |
//! | add (row broadcast `[n,1024]+[1024]`) | 296 ns | 55.4 | 1.42 | 99.7 µs | 42.1 | 1.03 | 22.8 ms | 11.8 | 6.63 |
//! | exp | 1.25 µs | 13.1 | 8.53 | 325 µs | 12.9 | 4.93 | 30.5 ms | 8.79 | 7.67 |
//! | abs | 214 ns | 76.8 | 1.30 | 95.3 µs | 44.0 | 1.08 | 30.2 ms | 8.88 | 4.55 |
//! | segment sum (100-element rows) | 301 ns | 54.5 | 3.98 | 53.8 µs | 77.9 | 5.30 | 8.59 ms | 31.3 | 2.21 |
//! | select | 695 ns | 53.1 | 1.13 | 158 µs | 59.8 | 1.24 | 44.5 ms | 13.6 | 4.70 |
//! | compaction (half kept) | 2.60 µs | 7.87 | 3.32 | 377 µs | 13.9 | 13.2 | 35.9 ms | 9.34 | 10.5 |
//! | stack (two halves) | 224 ns | 73.2 | 1.43 | 84.2 µs | 49.8 | 1.12 | 31.9 ms | 8.41 | 5.98 |
//! | concat (two halves) | 289 ns | 56.8 | 0.93 | 78.6 µs | 53.4 | 1.20 | 33.9 ms | 7.93 | 3.91 |
//!
//! Targets of the issue (figures from that run unless marked; "re-runs": two filtered runs of
//! the same groups right after it, load 2.8–3.3):
//! * reductions and masked reductions on 64 Mi ≥ 90% of the all-core read bandwidth: **met**:
//!   sum 105%, max 104%, masked sum 133%, masked max 184%, segment sum 111%; argmax 83% in that
//!   run but 98% and 127% in the re-runs (sum 116%/160%, max 105%/139%, masked sum 104%/118%,
//!   masked max 107%/107%). What fixed max (66% before): the scalar horizontal fold per leaf
//!   (now in registers) and a compare-and-blend per register (now one compare per register pair,
//!   plain `vmaxps` without NaN). Masked reductions needed software prefetch (18–24 ms → 8–13
//!   ms), argmax a one-pass leaf search (it read the array twice), masked max/min no second
//!   pass over the mask for the count.
//! * copies (stack, concat) ≥ 90% of memcpy. The target is judged against **allocate-and-copy**
//!   ("fresh"): stack and concat must return a new array, so the fair memcpy is one that also
//!   produces a fresh output; copy into touched memory is reported as the ceiling. Against
//!   fresh: **met at 1 Mi and 64 Mi** (1 Mi: 119%, 128%; 64 Mi: 408%, 385%), **missed at 4 Ki**
//!   (56%, 43% in that run; 62–88% and 55–83% in the re-runs: `to_vec` of 16 KiB is one malloc
//!   and one `rep movsb`, the kernels pay about 60–90 ns more for the dynamic-rank `ArrayD` they
//!   return, two `memcpy` calls and argument checks). Against touched memory: 4 Ki 71%/55%
//!   (re-runs 78–105%, 69–98%), 1 Mi 110%/117%, 64 Mi 64%/61% (re-runs 53–86%). At 64 Mi the
//!   touched-memory figure is out of reach for a fresh output on this machine: a separate
//!   experiment measured, for 256 MiB, a copy into touched memory at 16.5–17.1 ms, the kernel
//!   faulting in and zeroing fresh huge pages alone at 14.5–16.9 ms, and fresh huge pages plus
//!   the copy at 24–31 ms on one core and 22–25 ms on two (one outlier of 360 ms), so at best
//!   ~75% of the touched copy; the kernels take that route (huge pages, both cores, chunks on huge-page
//!   boundaries), 26–34 ms across runs.
//!
//!   *Why 4 Ki stays short, measured after that run* (not in the table). The example
//!   `cargo run --release -p extype-kernels --example join_vs_copy` times the variants
//!   interleaved (201 rounds, every variant in turn), so the load hits them alike. At load 3.0,
//!   11:07 UTC, two runs each of this code and of the code before the last change, alternating:
//!   `to_vec` of 16 KiB 117–120 ns; the same bytes as two `memcpy`s into a fresh `Vec` 97–98% of
//!   its speed; `to_vec` *returned as an `ArrayD`* 83–85% (static rank, then `into_dyn`, the
//!   cheapest construction found) or 71–72% (`ArrayD::from_shape_vec`); allocation alone 15 ns.
//!   So any function returning an `ArrayD` spends 22–24 ns of a budget of 13 ns (90% of 118) on
//!   building the array: two inline `IxDyn`s moved through ndarray's constructors, where `perf`
//!   samples pile up on loads of bytes just stored (store-forwarding stalls, by the look of it).
//!   The kernels: stack 166–171 ns (69–71%), concat 170–172 ns (68–70%); before the last change
//!   175–176 ns (67–68%) and 180–183 ns (65–67%); ndarray 42–44% and 48–49%. (At load 5.1–5.2
//!   earlier, three runs: stack 69–72%, concat 68–74%, the old code within the same range.) The
//!   last change — one pass checking layouts and summing lengths instead of three, the shape
//!   passed on the stack, ranks 1–2 built at static rank (7–8 ns less per construction in
//!   isolation) — gains 5–10 ns; what remains above the `ArrayD` floor (~25 ns: argument
//!   checks, a second `memcpy`, the layout test per input) was not found to shrink further (a
//!   variant with one `as_slice` per input measured the same). At 1 Mi the same example puts
//!   stack and concat at 100–116% of `to_vec`, old and new code alike. The benchmark now also
//!   measures that floor ("copy (alloc+memcpy, ArrayD)", printed in each size's header). Five
//!   *filtered* criterion runs after the change (no full run: `-- '^(4 Ki|1 Mi)/(copy.*|read.*|stack|concat|ndarray: (stack|concat)|add|ndarray: add)$'`,
//!   two also with `64 Mi`; four at 10:58–11:01 UTC, load 5.2–5.9, the fifth at 11:05–11:06,
//!   load 3.3), stack/concat at 4 Ki against allocate-and-copy: 70%/68%, 69%/53%, 52%/47%,
//!   52%/56%, 85%/86%; against the `ArrayD` floor of the same run: 88%/86%, (floor an outlier),
//!   63%/57%, 65%/70%, 77%/78%. At 1 Mi: stack 121%, 96%, 105%, 97%, 87%, concat 117%, 128%,
//!   83%, 102%, 86% of allocate-and-copy (the same work: one 4 MiB allocation and `memcpy`s; the
//!   interleaved example's 100–116% is the steadier figure); at 64 Mi 417%/296% and 526%/381%
//!   (against touched memory 51%/36% and 67%/48%, under load). So still **missed at 4 Ki**; met
//!   at 64 Mi; at 1 Mi met in the interleaved measurement and in 7 of 10 criterion figures.
//! * compaction ≥ 8 GB/s: in that run 7.87 GB/s at 4 Ki (**missed**, noise: 13.6–13.9 GB/s in
//!   two filtered runs right after), 13.9 at 1 Mi, 9.34 at 64 Mi. After that run compaction
//!   became parallel for large inputs (counts per fixed chunk, prefix sums, each chunk compacts
//!   into its own part of the output; the count now runs inside the dispatch wrapper, where it
//!   vectorises) — not in the table. Filtered runs since: 4 Ki 13.9–14.0 GB/s, 1 Mi 12.8–15.2,
//!   64 Mi 13.5 GB/s at load 2.2 but 8.5 and 7.7 GB/s at load 5.2–5.4 (both cores busy). So:
//!   **met** at 4 Ki and 1 Mi, **met at 64 Mi except under heavy load**.
//! * 4 Ki `f32` sum ≤ 70 ns at any alignment: **met** in that run (62.2 ns at a 64-byte
//!   boundary, 66.1 ns at +1 element, 65.5 ns at +3, 65.2 ns for the benchmark's default `Vec`);
//!   in the re-runs 6 of 8 figures were ≤ 70 ns and two were not (78.5 ns aligned and 72.6 ns at
//!   +1, with the hand-written one-core AVX-512 loop at 72 ns on the default `Vec` in the same
//!   runs). Before: 64 ns aligned, 93–95 ns at +1 and +3 (split loads). What is left is the
//!   fixed association itself: each of the 4 accumulator registers adds 64 rows in sequence.
//! * masked sum in L1 ≥ 100 GB/s: **met** (133 GB/s at 4 Ki; two filtered runs of the 4 Ki
//!   masked group before it: 151 and 169 GB/s).
//! * never slower than ndarray: **met with two noisy exceptions**. In the full run every figure
//!   is ≥ 1.03× except the 4 Ki concat (0.93×) and the 1 Mi add (0.88×: 183 µs, against
//!   122–126 µs in the re-runs); in the re-runs those were 1.16–1.29× and 1.05–1.19×, and the
//!   cases missed before were 4 Ki stack 1.48–1.49×, concat 1.16–1.29×, 1 Mi row-broadcast add
//!   1.06–1.41×, 1 Mi concat 1.24×, 64 Mi segment sum 2.21× (full run; 2.61× in a filtered run).
//!   What changed: a direct `memcpy` path for stack/concat, the bias broadcast reached without
//!   broadcasting machinery, no `madvise` on 4 MiB outputs, maps split from 16 MiB, and short
//!   segments in 16 lanes with prefetch and no intermediate vectors. Re-measured in the five
//!   filtered runs above (load 3.3–5.9): 4 Ki concat 1.28×, 1.17×, 1.28×, 1.42×, 1.28×; 1 Mi add
//!   1.28×, 1.34×, 1.06×, 1.36×, 1.18× — the full run's 0.93× and 0.88× were noise. The same runs
//!   put 1 Mi stack at 1.19×, 0.85×, 1.12×, 0.99×, 1.07× and concat at 1.19×, 1.20×, 0.98×,
//!   1.26×, 1.07×: at 1 Mi both sides are one 4 MiB allocation and `memcpy`s of contiguous
//!   halves, so they tie within noise (the interleaved example: ndarray at 94–107% of `to_vec`,
//!   the kernels 100–116%) rather than the kernels being reliably faster (4 Ki stack 1.44–2.21×,
//!   64 Mi 3.0–5.2×).
//! * `f32` sum relative error ≤ 1e-7 on 64 Mi random values: **met** (9.1e-9; test
//!   `f32_sum_accuracy_64mi`, and a 1 Mi version that runs by default: 8.4e-9).
//!
//! Parallel crossover in that run (`f32` sum, no split vs one split): 0.12× at 256 KiB, 0.37×
//! at 1 MiB, 0.76× at 4 MiB, 0.85× at 8 MiB, 0.92× at 16 MiB, 1.02× at 32 MiB (the second core
//! was busy with another engineer's build).
//!
//! ## NumPy comparison
//!
//! `python3 kernels/bench/compare_numpy.py` (NumPy 2.4.6; reads the medians the benchmark
//! writes to `target/extype-kernels-bench.tsv`), run right after the full benchmark above (load
//! 3.3–3.8) — so the two sides ran minutes apart on a shared machine: ratios within ±30% are
//! noise. Numbers are NumPy time / kernel time (> 1: the kernels are faster). NumPy's masked
//! sum and max are `v[m].sum()`, `v[m].max()` (`np.where(m, v, 0).sum()` was 1.1–1.3× faster
//! than that and still far slower), select is `np.where`, segment sum `np.add.reduceat`,
//! compaction `v[m]`.
//!
//! | op | 4 Ki | 1 Mi | 64 Mi |
//! |---|---|---|---|
//! | sum | 24.1 | 3.57 | 3.15 |
//! | max | 13.4 | 0.69 | 1.73 |
//! | argmax | 1.37 | 1.04 | 1.75 |
//! | masked sum | 43.4 | 74.5 | 54.5 |
//! | masked max | 26.9 | 98.5 | 78.1 |
//! | add | 1.95 | 0.68 | 1.71 |
//! | add (row broadcast) | 4.91 | 1.68 | 2.32 |
//! | exp | 1.58 | 1.22 | 1.90 |
//! | abs | 3.42 | 0.96 | 1.26 |
//! | segment sum | 5.33 | 4.17 | 2.36 |
//! | select | 4.61 | 28.7 | 8.51 |
//! | compaction | 2.11 | 14.3 | 13.5 |
//! | stack | 10.6 | 1.12 | 1.05 |
//! | concat | 4.44 | 1.03 | 0.90 |
//!
//! NumPy's sum reached 9.4 GB/s and its max 16.9 GB/s at 64 Mi in that (busy) run (the kernels:
//! 29.5 and 29.3). NumPy is ahead on the 1 Mi max (0.69×: in L3 the kernels' max runs at 71 GB/s
//! against 98 GB/s for their sum — the NaN pair test and branch per row cost there) and on the
//! 1 Mi add (0.68×, against the kernels' noisy 183 µs of that run; 122–126 µs in the re-runs,
//! which would be ~1.0×); everything else is ≥ 0.9×, and far ahead where masks are involved and
//! on small arrays.
//!
//! ## Not done yet
//!
//! * NEON backend for aarch64 (scalar backend there): not buildable or testable on this machine
//!   (x86-64 toolchain only).
//! * stack/concat at 4 Ki at 90% of allocate-and-copy (47–88% across runs): allocate-and-copy
//!   merely returned as an `ArrayD` reaches 83–85% (see the copy target), so the target needs an
//!   output type other than ndarray's dynamic-rank array (or a cheaper constructor in ndarray);
//!   the kernels' own checks and second `memcpy` cost a further ~10–15 points.
//! * 64 Mi stack/concat at 90% of a copy into *touched* memory: not reachable with a fresh
//!   output here (kernel zeroing of fresh pages; see the targets above).
//! * The 4 Ki sum under load (up to 78 ns in re-runs): the fixed association (64 rows per
//!   accumulator register) bounds it; more accumulators would change the association (and every
//!   bit of the documented results), so it was not done here.
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
