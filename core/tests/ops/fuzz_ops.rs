//! A bounded, seeded fuzz test of the ops: random catalog ops over random dtypes, shapes
//! (zero-size, rank 0, huge zero-stride views, huge tile multiples and reshape targets) and
//! argument values (axes, permutations, indices, row splits, dtypes, arities). Every call must
//! return `Ok` or `Err` — never panic, never abort (an abort kills the test binary, which fails
//! it too). Spec inference (`ops::infer_spec`) and masked reductions run on the same inputs, and
//! when both the call and inference succeed, the inferred spec admits the computed tensor.
//!
//! The default run is short enough for CI in debug builds (a few seconds). A longer run is one
//! environment variable away:
//!
//! ```text
//! EXTYPE_FUZZ_ITERS=1000000 EXTYPE_FUZZ_SEED=7 cargo test --release -p extype-core --test ops fuzz_ops
//! ```
//!
//! `EXTYPE_FUZZ_ITERS` is the number of op calls (default 20,000), `EXTYPE_FUZZ_SEED` the seed
//! (default fixed, so CI is reproducible). A failure prints the seed, the iteration and the
//! call, so it can be replayed.
//!
//! Huge views are zero-stride (`ArrayView::broadcast` of one element): their logical size is
//! at least 2^40 elements, which no output of this machine can hold, so every op whose output
//! is as large as its input must refuse them with an error before allocating. Ops whose work
//! is proportional to the input's *logical* size while their output is small (reductions,
//! segment reductions, boolean masks) would run for hours on them; they get huge views only
//! when some axis is 0.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use extype::ops::{self, AsOperand, Op, OpArgs, OpKind, Operand, catalog};
use extype::value::ValueSpec;
use extype::{DType, Tensor, TensorSpec, TensorView};
use ndarray::{ArrayD, IxDyn};

use crate::fuzz;

use fuzz::{Rng, env_or};

/// A tensor of dtype `d` and shape `dims` with random small values (and, for floats, the odd
/// NaN or infinity).
fn random_tensor(rng: &mut Rng, d: DType, dims: &[usize]) -> Tensor {
    let n: usize = dims.iter().product();
    let raw: Vec<i64> = (0..n)
        .map(|_| match rng.below(10) {
            0 => i64::MIN,
            1 => i64::MAX,
            _ => rng.below(7) as i64 - 3,
        })
        .collect();
    let shape = IxDyn(dims);
    macro_rules! build {
        ($($var:ident => $t:ty),*) => {
            match d {
                DType::Bool => Tensor::from(ArrayD::from_shape_vec(shape, raw.iter().map(|&v| v > 0).collect()).unwrap()),
                DType::F32 => Tensor::from(ArrayD::from_shape_vec(shape, raw.iter().map(|&v| float(v) as f32).collect()).unwrap()),
                DType::F64 => Tensor::from(ArrayD::from_shape_vec(shape, raw.iter().map(|&v| float(v)).collect()).unwrap()),
                DType::F16 => Tensor::from(ArrayD::from_shape_vec(shape, raw.iter().map(|&v| extype::half::f16::from_f64(float(v))).collect()).unwrap()),
                DType::BF16 => Tensor::from(ArrayD::from_shape_vec(shape, raw.iter().map(|&v| extype::half::bf16::from_f64(float(v))).collect()).unwrap()),
                $(DType::$var => Tensor::from(ArrayD::from_shape_vec(shape, raw.iter().map(|&v| v as $t).collect::<Vec<$t>>()).unwrap()),)*
            }
        };
    }
    build!(I8 => i8, I16 => i16, I32 => i32, I64 => i64, U8 => u8, U16 => u16, U32 => u32, U64 => u64)
}

fn float(v: i64) -> f64 {
    match v {
        i64::MIN => f64::NAN,
        i64::MAX => f64::INFINITY,
        v => v as f64 * 0.75,
    }
}

/// A zero-stride view of `dims` over the single element of the rank-0 `one`.
fn broadcast<'a>(one: &'a Tensor, dims: &[usize]) -> Option<TensorView<'a>> {
    let dims = IxDyn(dims);
    macro_rules! view {
        ($($var:ident),*) => {
            match one {
                $(Tensor::$var(a) => a.broadcast(dims).map(TensorView::$var),)*
                // `random_tensor` makes array tensors only.
                Tensor::External(_) => None,
            }
        };
    }
    view!(
        Bool, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64, F16, BF16
    )
}

/// How a dense argument is viewed: as stored, with its axes reversed (a transpose, stored
/// with the reversed shape so the view has the intended one), or with axis 0 inverted
/// (negative strides).
#[derive(Clone, Copy, Debug)]
enum Layout {
    Standard,
    Transposed,
    Inverted,
}

/// One argument: an owned tensor in some layout, or a huge zero-stride view of `dims` over
/// `one`.
enum Input {
    Dense(Tensor, Layout, Vec<usize>),
    Huge { one: Tensor, dims: Vec<usize> },
}

impl Input {
    fn dims(&self) -> &[usize] {
        match self {
            Input::Dense(_, _, dims) => dims,
            Input::Huge { dims, .. } => dims,
        }
    }

    fn describe(&self) -> String {
        match self {
            Input::Dense(t, layout, dims) => format!("{}{dims:?} {layout:?}", t.dtype()),
            Input::Huge { one, dims } => format!("huge {}{dims:?}", one.dtype()),
        }
    }

    fn view(&self) -> TensorView<'_> {
        match self {
            Input::Dense(t, layout, _) => relayout(t.view(), *layout),
            Input::Huge { one, dims } => broadcast(one, dims).expect("huge dims fit isize"),
        }
    }
}

fn relayout(v: TensorView<'_>, layout: Layout) -> TensorView<'_> {
    macro_rules! each {
        ($($var:ident),*) => {
            match v {
                $(TensorView::$var(a) => TensorView::$var(match layout {
                    Layout::Standard => a,
                    Layout::Transposed => a.reversed_axes(),
                    Layout::Inverted => {
                        let mut a = a;
                        if a.ndim() > 0 {
                            a.invert_axis(ndarray::Axis(0));
                        }
                        a
                    }
                }),)*
            }
        };
    }
    each!(
        Bool, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64, F16, BF16
    )
}

/// Small dims, 0 and 1 often (zero-size and broadcasting).
fn small_dims(rng: &mut Rng) -> Vec<usize> {
    let rank = rng.pick(&[0, 1, 1, 2, 2, 3, 4]);
    (0..rank).map(|_| rng.pick(&[0, 1, 1, 2, 3, 4])).collect()
}

/// Dims of a huge view: at least 2^40 elements in all (or some axis 0), at most `isize::MAX`.
/// Every big dim is at least 2^40, so any output keeping one is refused (1 TiB even of bytes)
/// and any output dropping them all (a gather, a reduction) is small: no call allocates or
/// computes gigabytes for real. (`[2^31, 2^31]` views are in `named_cases_are_errors` and
/// `op_sizes.rs`.)
fn huge_dims(rng: &mut Rng) -> Vec<usize> {
    loop {
        let rank = 1 + rng.below(4);
        let dims: Vec<usize> = (0..rank)
            .map(|_| rng.pick(&[0, 1, 2, 3, 1 << 40, 1 << 62]))
            .collect();
        let nonzero = dims
            .iter()
            .filter(|&&d| d != 0)
            .try_fold(1usize, |acc, &d| acc.checked_mul(d));
        let Some(n) = nonzero.filter(|&n| n <= isize::MAX as usize) else {
            continue;
        };
        if dims.contains(&0) || n >= 1 << 40 {
            return dims;
        }
    }
}

/// Whether `op` does work proportional to its input's logical size while its output is small.
fn scans_input(op: &Op) -> bool {
    op.kind() == OpKind::Reduction
        || op.name().starts_with("segment_")
        || std::ptr::eq(op, &catalog::BOOLEAN_MASK)
        // Work proportional to `k`, however small the product.
        || std::ptr::eq(op, &catalog::MATMUL)
}

/// Dims broadcast-compatible with `base`: some axes set to 1, leading axes dropped.
fn compatible(rng: &mut Rng, base: &[usize]) -> Vec<usize> {
    let drop = rng
        .below(base.len() + 1)
        .min(if rng.chance(2) { 0 } else { base.len() });
    base[drop..]
        .iter()
        .map(|&d| if rng.chance(3) { 1 } else { d })
        .collect()
}

fn random_axis(rng: &mut Rng) -> isize {
    match rng.below(12) {
        0 => isize::MIN,
        1 => isize::MAX,
        _ => rng.below(11) as isize - 5,
    }
}

fn random_dims_arg(rng: &mut Rng, input: &[usize]) -> Vec<usize> {
    let n: usize = input.iter().product();
    match rng.below(6) {
        // The right element count, as a few factors.
        0 | 1 if n > 0 => {
            let mut out = vec![n];
            if rng.chance(2) {
                out.push(1);
            }
            out.reverse();
            out
        }
        // Huge targets and multiples: overflowing, beyond isize::MAX, or big and matching 0.
        2 => (0..1 + rng.below(4))
            .map(|_| rng.pick(&[0, 1, 2, 1 << 40, 1 << 62, isize::MAX as usize, usize::MAX]))
            .collect(),
        // One multiple (or dim) per axis of the input, small or huge.
        3 => input
            .iter()
            .map(|_| rng.pick(&[0, 1, 2, 3, 1 << 40, usize::MAX]))
            .collect(),
        _ => (0..rng.below(5)).map(|_| rng.below(5)).collect(),
    }
}

fn random_args(rng: &mut Rng, input: &[usize]) -> OpArgs {
    let mut args = OpArgs::none();
    if rng.chance(2) {
        let axes: Vec<isize> = (0..rng.below(4)).map(|_| random_axis(rng)).collect();
        args = OpArgs::axes(&axes);
    }
    args = args.keepdims(rng.chance(2)).with_axis(random_axis(rng));
    if !rng.chance(5) {
        args = args.with_shape(&random_dims_arg(rng, input));
    }
    if rng.chance(2) {
        args.perm = Some(match rng.below(3) {
            0 => (0..input.len()).rev().collect(),
            1 => (0..rng.below(5)).map(|_| rng.below(6)).collect(),
            _ => (0..input.len()).collect(),
        });
    }
    if !rng.chance(5) {
        let n = rng.below(6);
        let len = input.first().copied().unwrap_or(0) as i64;
        let indices: Vec<i64> = match rng.below(3) {
            // Row splits that are valid for axis 0.
            0 => {
                let mut s: Vec<i64> = (0..n).map(|_| rng.below(len as usize + 1) as i64).collect();
                s.push(0);
                s.push(len);
                s.sort_unstable();
                s
            }
            1 => (0..n)
                .map(|_| rng.pick(&[i64::MIN, -1, 0, 1, 2, i64::MAX]))
                .collect(),
            _ => (0..n).map(|_| rng.below(7) as i64 - 3).collect(),
        };
        args = args.with_indices(&indices);
    }
    if !rng.chance(4) {
        args = args.with_dtype(rng.pick(&DType::ALL));
    }
    args
}

/// The number of arguments to pass `op`: its arity mostly, sometimes one off.
fn arity(rng: &mut Rng, op: &Op) -> usize {
    let n = match op.arity() {
        ops::Arity::Exactly(n) => n,
        ops::Arity::AtLeast(n) => n + rng.below(3),
    };
    if rng.chance(40) {
        if rng.chance(2) {
            n + 1
        } else {
            n.saturating_sub(1)
        }
    } else {
        n
    }
}

/// Builds one case: the op, its inputs and its arguments.
fn case(rng: &mut Rng) -> (&'static Op, Vec<Input>, OpArgs) {
    let op = rng.pick(catalog::ALL);
    let d = rng.pick(&DType::ALL);
    let huge = rng.chance(4);
    let base = if huge {
        huge_dims(rng)
    } else {
        small_dims(rng)
    };
    // Scanning ops get huge views only when they are empty, and boolean masks (whose mask
    // would be scanned even then) never.
    let huge = huge
        && (!scans_input(op) || base.contains(&0))
        && !std::ptr::eq(op, &catalog::BOOLEAN_MASK);
    let n = arity(rng, op);
    let inputs = (0..n)
        .map(|i| {
            let role_bool = match op.operands() {
                ops::Operands::BoolAt(at, _) => at == i,
                _ => false,
            };
            let dtype = if role_bool && !rng.chance(10) {
                DType::Bool
            } else if rng.chance(15) {
                rng.pick(&DType::ALL)
            } else {
                d
            };
            let dims = if i == 0 || rng.chance(6) {
                base.clone()
            } else if std::ptr::eq(op, &catalog::BOOLEAN_MASK) {
                base[..rng.below(base.len() + 1)].to_vec()
            } else {
                compatible(rng, &base)
            };
            let big = huge && dims.iter().product::<usize>() != 1 && !rng.chance(8);
            if big || (huge && dims.iter().any(|&d| d >= 1 << 40)) {
                Input::Huge {
                    one: random_tensor(rng, dtype, &[]),
                    dims,
                }
            } else {
                // Bounded: huge-compatible dims of 1 or 0 only reach here.
                let dims: Vec<usize> = dims.iter().map(|&d| d.min(4)).collect();
                let layout = rng.pick(&[
                    Layout::Standard,
                    Layout::Standard,
                    Layout::Transposed,
                    Layout::Inverted,
                ]);
                let stored: Vec<usize> = match layout {
                    Layout::Transposed => dims.iter().rev().copied().collect(),
                    _ => dims.clone(),
                };
                Input::Dense(random_tensor(rng, dtype, &stored), layout, dims)
            }
        })
        .collect();
    let args = random_args(rng, &base);
    (op, inputs, args)
}

/// Runs the call, inference and (for reductions) the masked form: all must return.
fn run_case(op: &'static Op, inputs: &[Input], args: &OpArgs) -> bool {
    let views: Vec<TensorView<'_>> = inputs.iter().map(Input::view).collect();
    let operands: Vec<Operand<'_>> = views.iter().map(|v| v.as_operand()).collect();
    let out = ops::call(op, &operands, args);
    let ok = out.is_ok();
    let specs: Vec<ValueSpec> = views
        .iter()
        .map(|v| ValueSpec::Tensor(TensorSpec::from_view(v)))
        .collect();
    let refs: Vec<&ValueSpec> = specs.iter().collect();
    let inferred = ops::infer_spec(op, &refs, args);
    // What a call computes, its spec inference admits.
    if let (Ok(out), Ok(inferred)) = (&out, &inferred)
        && let (Ok(t), Some(spec)) = (out.as_tensor(), inferred.tensor_spec())
    {
        assert!(
            spec.admits(t),
            "inferred {spec}, computed {}",
            TensorSpec::from_tensor(t)
        );
    }
    same_on_external_tensors(op, inputs, args);
    if op.has_masked()
        && !inputs.is_empty()
        && !inputs.iter().any(|i| matches!(i, Input::Huge { .. }))
    {
        let mask = random_tensor(&mut Rng(views.len() as u64), DType::Bool, inputs[0].dims());
        let _ = ops::masked_reduce(op, &views[0], &mask, args);
    }
    ok
}

/// Bytes starting at an 8-aligned address (a `u64` buffer's), as external tensors need.
struct Aligned(Vec<u64>, usize);

// SAFETY: the buffer is never changed or moved after construction.
unsafe impl extype::ExternalBytes for Aligned {
    fn bytes(&self) -> &[u8] {
        // SAFETY: a `u64` buffer of `len` words is `8 × len ≥ self.1` initialized bytes.
        unsafe { std::slice::from_raw_parts(self.0.as_ptr().cast::<u8>(), self.1) }
    }
}

/// `t` (in standard layout) as a tensor viewing a copy of its bytes in place.
fn external(t: &Tensor) -> Tensor {
    macro_rules! bytes {
        ($($var:ident),*) => {
            match t.view() {
                $(TensorView::$var(a) => {
                    let s = a.as_slice().expect("standard layout");
                    // SAFETY: scalars are plain initialized bytes; `u8` has alignment 1.
                    unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<u8>(), size_of_val(s)) }.to_vec()
                })*
            }
        };
    }
    let bytes = bytes!(
        Bool, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64, F16, BF16
    );
    let mut words = vec![0u64; bytes.len().div_ceil(8)];
    // SAFETY: `words` holds at least `bytes.len()` bytes; any bytes are valid `u64`s.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), bytes.len()) }
        .copy_from_slice(&bytes);
    let owner = Arc::new(Aligned(words, bytes.len()));
    Tensor::from_external(owner, 0, t.dtype(), t.shape()).expect("aligned, exact bytes")
}

/// A call's outcome as text: the result's elements, or the error.
fn outcome(out: extype::Result<extype::Value>) -> String {
    match out {
        Ok(v) => match v.as_tensor() {
            Ok(t) => format!("{:?} {:?}", t.dtype(), t.view()),
            Err(_) => format!("{v}"),
        },
        Err(e) => format!("error: {e}"),
    }
}

/// When every argument is a plain tensor, the same call on tensors viewing external bytes
/// (`Tensor::External`, what a mapped file gives) has the same outcome.
fn same_on_external_tensors(op: &'static Op, inputs: &[Input], args: &OpArgs) {
    let held: Option<Vec<&Tensor>> = inputs
        .iter()
        .map(|i| match i {
            Input::Dense(t, Layout::Standard, _) => Some(t),
            _ => None,
        })
        .collect();
    let Some(held) = held else { return };
    let externals: Vec<Tensor> = held.iter().map(|t| external(t)).collect();
    let on_arrays: Vec<Operand<'_>> = held.iter().map(|t| t.as_operand()).collect();
    let on_external: Vec<Operand<'_>> = externals.iter().map(|t| t.as_operand()).collect();
    assert_eq!(
        outcome(ops::call(op, &on_arrays, args)),
        outcome(ops::call(op, &on_external, args)),
        "{op} on array tensors and on external tensors"
    );
}

/// A call that runs for a minute is a hang: report it (the seed and the call) and exit, rather
/// than let CI time out without saying which call it was.
fn watchdog(seed: u64) -> Arc<Mutex<(Instant, String)>> {
    let current = Arc::new(Mutex::new((Instant::now(), String::new())));
    let watched = Arc::clone(&current);
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(Duration::from_secs(1));
            let Ok(guard) = watched.lock() else { return };
            if guard.0.elapsed() > Duration::from_secs(60) {
                eprintln!(
                    "EXTYPE_FUZZ_SEED={seed} {}: still running after 60 s",
                    guard.1
                );
                std::process::exit(1);
            }
        }
    });
    current
}

#[test]
fn ops_never_panic() {
    let iters = env_or("EXTYPE_FUZZ_ITERS", 20_000);
    let seed = env_or("EXTYPE_FUZZ_SEED", 0x5eed_f0b5);
    let mut rng = Rng(seed);
    let (mut ok, mut huge) = (0, 0);
    let current = watchdog(seed);
    for i in 0..iters {
        let (op, inputs, args) = case(&mut rng);
        let described: Vec<String> = inputs.iter().map(Input::describe).collect();
        *current.lock().unwrap() = (
            Instant::now(),
            format!(
                "iteration {i}: {op} on ({}) with {args:?}",
                described.join(", ")
            ),
        );
        huge += usize::from(inputs.iter().any(|i| matches!(i, Input::Huge { .. })));
        let outcome = catch_unwind(AssertUnwindSafe(|| run_case(op, &inputs, &args)));
        ok += usize::from(matches!(outcome, Ok(true)));
        if outcome.is_err() {
            panic!(
                "EXTYPE_FUZZ_SEED={seed} iteration {i}: {op} panicked on ({}) with {args:?}",
                described.join(", ")
            );
        }
    }
    eprintln!("{iters} calls: {ok} returned a value, {huge} had a huge view");
    // Not vacuous: a fair share of the calls computes something.
    assert!(
        ok as u64 * 10 >= iters,
        "only {ok} of {iters} calls returned a value"
    );
}

/// The cases the issue names, always run.
#[test]
fn named_cases_are_errors() {
    let one = Tensor::from(ndarray::arr0(1.0f64).into_dyn());
    let big = broadcast(&one, &[1 << 31, 1 << 31]).unwrap();
    assert!(ops::add(&big, &big).is_err());
    assert!(ops::zeros_like(&big).is_err());
    let x = ndarray::array![1.0f64];
    assert!(ops::tile(&x, &[1 << 40]).is_err());
    assert!(ops::tile(&x, &[usize::MAX]).is_err());
    let empty = ndarray::Array1::<f64>::zeros(0);
    let t: Tensor = ops::tile_as(&empty, &[1 << 40]).unwrap();
    assert_eq!(t.shape(), &[0]);
}
