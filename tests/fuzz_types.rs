//! A bounded, seeded fuzz test of the library types' constructors and ops on hostile arguments:
//! `SparseTensor` indices, dense shapes, starts, sizes and axes near the `i64` limits;
//! `RaggedTensor` row splits, row ids, row counts, `to_tensor` shapes, gather ids and axes; and
//! `MaskedTensor` shapes, axes, reshape and tile sizes, permutations and gather ids.
//! Every call must return a value or an error — never panic (caught and reported with the
//! case), never abort — with a peak heap of at most twice its input, plus its output, plus a
//! constant (measured by the counting allocator of this test binary, which therefore holds one
//! `#[test]`); and every value it returns must satisfy its type's invariants (rebuilt from its
//! components, which checks and validates them).
//!
//! The default run takes a few seconds; a longer one:
//!
//! ```text
//! EXTYPE_FUZZ_ITERS=200000 EXTYPE_FUZZ_SEED=7 cargo test --release -p extype --test fuzz_types
//! ```

use std::panic::{AssertUnwindSafe, catch_unwind};

use extype::batch;
use extype::ops;
use extype::types::{MaskedTensor, RaggedTensor, SparseTensor};
use extype::{ExtensionType, Tensor, TypeSpec, Value};
use ndarray::{Array1, Array2, ArrayD, Dimension, IxDyn};

#[path = "../shape/tests/support/fuzz.rs"]
mod fuzz;

use fuzz::{Rng, env_or};

#[path = "common/sparse_parts.rs"]
mod sparse_parts;

use sparse_parts::sparse_of_tf_parts;

#[path = "../core/tests/common/counting_alloc.rs"]
mod counting_alloc;

#[global_allocator]
static ALLOCATOR: counting_alloc::Counting = counting_alloc::Counting;

/// What any call may allocate beyond twice its input and its output.
const HEAP_SLACK: usize = 4 << 20;

/// Sizes: small ones, and ones whose products overflow or cannot be allocated (none that could:
/// a legitimate result of gigabytes is no finding, only a slow run).
const DIMS: [i64; 12] = [
    0,
    1,
    2,
    3,
    5,
    1 << 40,
    1 << 62,
    i64::MAX,
    i64::MAX - 1,
    -1,
    i64::MIN,
    1 << 44,
];

/// Indices, starts and sizes: small ones and the limits.
const EDGES: [i64; 11] = [
    0,
    1,
    2,
    -1,
    -2,
    i64::MIN,
    i64::MIN + 1,
    i64::MAX,
    i64::MAX - 1,
    1 << 40,
    1 << 62,
];

/// Axes: in range for small ranks, and far outside.
const AXES: [isize; 9] = [0, 1, 2, -1, -2, 3, -4, isize::MAX, isize::MIN];

fn bytes_of(t: &Tensor) -> usize {
    t.len() * t.dtype().size_of()
}

fn value_bytes(v: &Value) -> usize {
    match v {
        Value::Tensor(t) => bytes_of(t),
        Value::Extension(e) => e
            .component_views()
            .iter()
            .map(|c| c.shape().iter().product::<usize>() * c.dtype().size_of())
            .sum(),
    }
}

/// Rebuilding `v` from its components runs every check of the type (shapes, splits, indices
/// in bounds, the dense shape's bound): a returned value must pass them.
fn revalidate<T: ExtensionType + std::fmt::Debug>(case: &str, v: &T) {
    let spec = v.spec();
    if let Err(e) = spec.from_components(v.clone().into_components()) {
        panic!("{case}: returned a value that violates its type's invariants: {e}\n{v:?}");
    }
}

fn revalidate_value(case: &str, v: &Value) {
    if let Value::Extension(_) = v {
        if let Ok(s) = v.clone().downcast::<SparseTensor>() {
            revalidate(case, &s);
        } else if let Ok(r) = v.clone().downcast::<RaggedTensor>() {
            revalidate(case, &r);
        } else if let Ok(m) = v.clone().downcast::<MaskedTensor>() {
            revalidate(case, &m);
        }
    }
}

/// Runs one call: no panic, the heap bound, and a valid result.
fn check(case: &str, input: usize, call: impl FnOnce() -> extype::Result<Value>) {
    let heap = counting_alloc::measure(|| catch_unwind(AssertUnwindSafe(call)));
    let result = match heap.out {
        Ok(r) => r,
        Err(p) => {
            let text = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!("{case}: panicked: {text}");
        }
    };
    let output = result.as_ref().map_or(0, value_bytes);
    assert!(
        heap.peak <= 2 * input + output + HEAP_SLACK,
        "{case}: peak heap {} for an input of {input} bytes and an output of {output}",
        heap.peak
    );
    if let Ok(v) = &result {
        revalidate_value(case, v);
    }
}

fn ext<T: ExtensionType>(r: extype::Result<T>) -> extype::Result<Value> {
    r.map(Value::from_extension)
}

fn sparse_case(rng: &mut Rng) {
    let rank = rng.below(4);
    let shape: Vec<i64> = (0..rank)
        .map(|_| {
            if rng.chance(3) {
                rng.pick(&DIMS)
            } else {
                rng.below(6) as i64
            }
        })
        .collect();
    let nnz = rng.below(6);
    let mut idx = Vec::with_capacity(nnz * rank);
    for _ in 0..nnz {
        for &d in &shape {
            idx.push(if rng.chance(8) || d <= 0 {
                rng.pick(&EDGES)
            } else {
                (rng.next() % d as u64) as i64
            });
        }
    }
    let values: Vec<f32> = (0..nnz)
        .map(|i| {
            if rng.chance(10) {
                f32::NAN
            } else {
                i as f32 - 1.5
            }
        })
        .collect();
    let indices = Array2::from_shape_vec((nnz, rank), idx).unwrap();
    let case = format!("SparseTensor::new({indices:?}, dense_shape {shape:?})");
    let input = nnz * (rank * 8 + 4) + rank * 8;
    check(&case, input, || {
        ext(sparse_of_tf_parts(
            indices.clone(),
            Tensor::from(Array1::from(values.clone())),
            &shape,
        ))
    });
    let Ok(x) = sparse_of_tf_parts(indices, Tensor::from(Array1::from(values)), &shape) else {
        return;
    };
    let pick_vec = |rng: &mut Rng| -> Vec<i64> { (0..rank).map(|_| rng.pick(&EDGES)).collect() };
    let (start, size) = (pick_vec(rng), pick_vec(rng));
    check(&format!("{case}.slice({start:?}, {size:?})"), input, || {
        ext(x.slice(&start, &size))
    });
    let new_shape: Vec<i64> = (0..rng.below(4)).map(|_| rng.pick(&DIMS)).collect();
    check(&format!("{case}.reshape({new_shape:?})"), input, || {
        ext(x.reshape(&new_shape))
    });
    check(&format!("{case}.transpose()"), input, || {
        ext(x.transpose(None))
    });
    let axis = rng.pick(&AXES);
    check(&format!("{case} concat axis {axis}"), 2 * input, || {
        ext(SparseTensor::concat(&[&x, &x], axis, rng.chance(2)))
    });
    let axes: Vec<isize> = (0..rng.below(3)).map(|_| rng.pick(&AXES)).collect();
    let (keep, sparse_out) = (rng.chance(2), rng.chance(2));
    check(
        &format!("{case}.reduce_sum({axes:?}, {keep}, {sparse_out})"),
        input,
        || x.reduce_sum(Some(&axes), keep, sparse_out),
    );
    check(
        &format!("{case}.reduce_max(None, {keep}, {sparse_out})"),
        input,
        || x.reduce_max(None, keep, sparse_out),
    );
    check(&format!("{case}.reduce_mean({axes:?})"), input, || {
        x.reduce_mean(Some(&axes), keep).map(Value::from)
    });
    check(&format!("{case}.to_dense"), input, || {
        x.to_dense(&0.0f32, rng.chance(2)).map(Value::from)
    });
    check(&format!("{case} + itself"), 2 * input, || {
        ext(x.add(&x, 0.0))
    });
    if x.dense_shape().iter().product::<usize>() <= 4096 && !x.dense_shape().contains(&0) {
        let dense = Tensor::from(ArrayD::<f32>::ones(IxDyn(x.dense_shape())));
        check(&format!("{case} * dense"), input + bytes_of(&dense), || {
            ops::mul(&x, &dense)
        });
    }
    if rank == 2 {
        let k = x.dense_shape()[1];
        if k <= 64 {
            let b = Tensor::from(Array2::<f32>::ones((k, 2)));
            check(
                &format!("{case} @ ones[{k}, 2]"),
                input + bytes_of(&b),
                || {
                    extype::types::sparse::sparse_dense_matmul(&x, &b, false, false)
                        .map(Value::from)
                },
            );
        }
    }
    if rank >= 1 {
        check(&format!("unstack({case})"), input, || {
            batch::unstack(x.clone()).map(|items| {
                items.iter().for_each(|i| revalidate("unstack item", i));
                Value::from(Tensor::from(Array1::<u8>::zeros(0)))
            })
        });
    }
}

fn ragged_case(rng: &mut Rng) {
    let n = rng.below(8);
    let values = Array1::from_iter((0..n).map(|i| i as f32 * 0.5 - 1.0));
    let input = n * 4 + 64;
    // Row partitions: a valid one, or one with a hostile entry.
    let nrows = rng.below(4);
    let mut splits: Vec<i64> = (0..=nrows).map(|r| (r * n / nrows.max(1)) as i64).collect();
    if nrows == 0 {
        splits = vec![0];
    }
    if rng.chance(3) {
        let at = rng.below(splits.len());
        splits[at] = rng.pick(&EDGES);
    }
    let case = format!("from_row_splits({n} values, {splits:?})");
    check(&case, input, || {
        ext(RaggedTensor::from_row_splits(
            values.clone(),
            Array1::from(splits.clone()),
        ))
    });
    let rowids: Vec<i64> = (0..n)
        .map(|i| {
            if rng.chance(6) {
                rng.pick(&EDGES)
            } else {
                (i / 2) as i64
            }
        })
        .collect();
    let want_rows = if rng.chance(3) {
        rng.pick(&DIMS).max(0) as usize
    } else {
        n / 2 + 1
    };
    let case_ids = format!("from_value_rowids({rowids:?}, nrows {want_rows})");
    check(&case_ids, input, || {
        ext(RaggedTensor::from_value_rowids(
            values.clone(),
            Array1::from(rowids.clone()),
            want_rows,
        ))
    });
    let lengths: Vec<i64> = (0..rng.below(4))
        .map(|_| {
            if rng.chance(4) {
                rng.pick(&EDGES)
            } else {
                rng.below(3) as i64
            }
        })
        .collect();
    check(&format!("from_row_lengths({lengths:?})"), input, || {
        ext(RaggedTensor::from_row_lengths(
            values.clone(),
            Array1::from(lengths.clone()),
        ))
    });
    let Ok(r) = RaggedTensor::from_row_splits(values, Array1::from(splits)) else {
        return;
    };
    let size = |rng: &mut Rng| -> Option<usize> {
        match rng.below(4) {
            0 => None,
            1 => Some(rng.below(5)),
            _ => Some(rng.pick(&DIMS).max(0) as usize),
        }
    };
    let shape = [size(rng), size(rng)];
    check(&format!("{case}.to_tensor({shape:?})"), input, || {
        r.to_tensor(None, Some(&shape)).map(Value::from)
    });
    let axes: Vec<isize> = (0..rng.below(3)).map(|_| rng.pick(&AXES)).collect();
    let keep = rng.chance(2);
    check(
        &format!("reduce_sum({case}, {axes:?}, {keep})"),
        input,
        || ops::reduce_sum(&r, Some(&axes), keep),
    );
    check(
        &format!("reduce_mean({case}, {axes:?}, {keep})"),
        input,
        || ops::reduce_mean(&r, Some(&axes), keep),
    );
    check(
        &format!("reduce_max({case}, {axes:?}, {keep})"),
        input,
        || ops::reduce_max(&r, Some(&axes), keep),
    );
    let ids: Vec<i64> = (0..rng.below(4)).map(|_| rng.pick(&EDGES)).collect();
    check(&format!("{case}.gather({ids:?})"), input, || {
        ext(r.gather(&ids))
    });
    let axis = rng.pick(&AXES);
    check(&format!("concat({case}, axis {axis})"), 2 * input, || {
        ext(RaggedTensor::concat(&[&r, &r], axis))
    });
    check(&format!("{case} + itself"), 2 * input, || ops::add(&r, &r));
    check(&format!("unstack({case})"), input, || {
        batch::unstack(r.clone()).map(|items| {
            items.iter().for_each(|i| revalidate("unstack item", i));
            Value::from(Tensor::from(Array1::<u8>::zeros(0)))
        })
    });
}

/// Sizes for shape and tile arguments (`usize`): small ones and ones far beyond memory.
const USIZES: [usize; 8] = [0, 1, 2, 3, 6, 1 << 40, 1 << 62, usize::MAX];

fn masked_case(rng: &mut Rng) {
    let shape: Vec<usize> = (0..rng.below(4)).map(|_| rng.below(4)).collect();
    let n: usize = shape.iter().product();
    let values = ArrayD::from_shape_fn(IxDyn(&shape), |i| i.slice().iter().sum::<usize>() as f32);
    let mask_shape = if rng.chance(6) {
        vec![n + 1]
    } else {
        shape.clone()
    };
    let mask = ArrayD::from_shape_fn(IxDyn(&mask_shape), |i| {
        i.slice().iter().sum::<usize>() % 3 != 0
    });
    let case = format!("MaskedTensor {shape:?} (mask {mask_shape:?})");
    let input = n * 5 + 64;
    check(&case, input, || {
        ext(MaskedTensor::new(values.clone(), mask.clone()))
    });
    let Ok(m) = MaskedTensor::new(values, mask) else {
        return;
    };
    let axes: Vec<isize> = (0..rng.below(3)).map(|_| rng.pick(&AXES)).collect();
    let keep = rng.chance(2);
    check(&format!("reduce_sum({case}, {axes:?})"), input, || {
        ops::reduce_sum(&m, Some(&axes), keep)
    });
    check(&format!("reduce_max({case}, {axes:?})"), input, || {
        ops::reduce_max(&m, Some(&axes), keep)
    });
    check(&format!("reduce_mean({case}, None)"), input, || {
        ops::reduce_mean(&m, None, keep)
    });
    let new_shape: Vec<usize> = (0..rng.below(4)).map(|_| rng.pick(&USIZES)).collect();
    check(&format!("reshape({case}, {new_shape:?})"), input, || {
        ops::reshape(&m, &new_shape)
    });
    let perm: Vec<usize> = (0..rng.below(4)).map(|_| rng.pick(&USIZES)).collect();
    check(&format!("transpose({case}, {perm:?})"), input, || {
        ops::transpose(&m, Some(&perm))
    });
    let multiples: Vec<usize> = shape.iter().map(|_| rng.pick(&USIZES)).collect();
    check(&format!("tile({case}, {multiples:?})"), input, || {
        ops::tile(&m, &multiples)
    });
    let ids: Vec<i64> = (0..rng.below(4)).map(|_| rng.pick(&EDGES)).collect();
    let axis = rng.pick(&AXES);
    check(&format!("gather({case}, {ids:?}, {axis})"), input, || {
        ops::gather(&m, &ids, axis)
    });
    check(&format!("concat({case}, axis {axis})"), 2 * input, || {
        use extype::ops::AsOperand;
        ops::concat(&[m.as_operand(), m.as_operand()], axis)
    });
    check(&format!("{case} + itself"), 2 * input, || ops::add(&m, &m));
    if !shape.is_empty() {
        check(&format!("unstack({case})"), input, || {
            batch::unstack(m.clone()).map(|items| {
                items.iter().for_each(|i| revalidate("unstack item", i));
                Value::from(Tensor::from(Array1::<u8>::zeros(0)))
            })
        });
    }
}

/// `tile` and `gather` of the sparse and ragged types (handled, or declined with an error).
fn tile_and_gather_case(rng: &mut Rng) {
    let r = RaggedTensor::from_row_splits(
        Array1::from(vec![1.0f32, 2.0, 3.0]),
        Array1::from(vec![0i64, 2, 3]),
    )
    .expect("a valid ragged tensor");
    let s = SparseTensor::new(
        Array2::from_shape_vec((1, 2), vec![0i64, 1]).unwrap(),
        Array1::from(vec![1.0f32]),
        &[2, 2],
    )
    .expect("a valid sparse tensor");
    let multiples: Vec<usize> = (0..rng.below(3)).map(|_| rng.pick(&USIZES)).collect();
    let ids: Vec<i64> = (0..rng.below(4)).map(|_| rng.pick(&EDGES)).collect();
    let axis = rng.pick(&AXES);
    check(&format!("tile(ragged, {multiples:?})"), 64, || {
        ops::tile(&r, &multiples)
    });
    check(&format!("tile(sparse, {multiples:?})"), 64, || {
        ops::tile(&s, &multiples)
    });
    check(&format!("gather(ragged, {ids:?}, {axis})"), 64, || {
        ops::gather(&r, &ids, axis)
    });
    check(&format!("gather(sparse, {ids:?}, {axis})"), 64, || {
        ops::gather(&s, &ids, axis)
    });
}

#[test]
fn hostile_arguments_never_panic_and_results_stay_valid() {
    let iters = env_or("EXTYPE_FUZZ_ITERS", 3000) as usize;
    let mut rng = Rng(env_or("EXTYPE_FUZZ_SEED", 0x7e57_5afe));
    for _ in 0..iters {
        sparse_case(&mut rng);
        ragged_case(&mut rng);
        masked_case(&mut rng);
        tile_and_gather_case(&mut rng);
    }
}
