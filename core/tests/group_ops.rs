//! The op callables of group handlers on dense operands, measured by a counting global allocator
//! (its own test binary: the allocator is global, so every test here takes one lock):
//! `apply_as::<ArrayD<f32>>` allocates the output once (the result tensor's buffer moves into
//! the array), arrays come out of results without a copy when unique, scalars are borrowed
//! rank-0 operands, and `apply_masked` / `apply_other_as` take arrays.

extern crate extype_core as extype;

use std::sync::Mutex;

use extype::dispatch::{BinaryOp, Call, ReductionOp, UnaryOp};
use extype::ops::{self, AsOperand, FromValue, OpArgs, catalog};
use extype::{DType, Tensor, TensorView, Value};
use ndarray::{ArcArray, Array1, ArrayD, Ix1, Ix2, IxDyn, array};

#[path = "common/counting_alloc.rs"]
mod counting_alloc;

#[global_allocator]
static ALLOCATOR: counting_alloc::Counting = counting_alloc::Counting;

/// Held by every test: measurements see no other test's allocations.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn lock() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn apply_as_an_array_allocates_the_output_once() {
    let _g = lock();
    let n = 1 << 20;
    let x = ArrayD::from_elem(IxDyn(&[n]), -1.5f32);
    let args = OpArgs::none();
    let call = Call {
        op: &catalog::ABS,
        args: &args,
    };
    let op = UnaryOp::new(&call);
    let heap = counting_alloc::measure(|| op.apply_as::<ArrayD<f32>>(&x).unwrap());
    assert_eq!(heap.out[[n - 1]], 1.5);
    let out = n * size_of::<f32>();
    assert!(
        heap.total >= out && heap.total < out + 4096,
        "one output buffer of {out} bytes, no copy into or out of a Tensor; allocated {}",
        heap.total
    );
    // A binary op with a scalar operand: the scalar is borrowed, the output allocated once.
    let call = Call {
        op: &catalog::MUL,
        args: &args,
    };
    let op = BinaryOp::new(&call);
    let heap = counting_alloc::measure(|| op.apply_as::<ArrayD<f32>>(&x, &2.0f32).unwrap());
    assert_eq!(heap.out[[0]], -3.0);
    assert!(heap.total < out + 4096, "allocated {}", heap.total);
}

#[test]
fn arrays_move_out_of_unique_results() {
    let _g = lock();
    let t = Tensor::from(array![[1.0f32, 2.0], [3.0, 4.0]]);
    let ptr = t.as_arc_array::<f32>().unwrap().as_ptr();
    // Unique: the buffer moves.
    let a = ndarray::Array2::<f32>::from_value(Value::Tensor(t)).unwrap();
    assert_eq!(a.as_ptr(), ptr);
    assert_eq!(a[[1, 0]], 3.0);
    // Shared: an owned array copies, a shared one does not.
    let t = Tensor::from(array![1i64, 2, 3]);
    let keep = t.clone();
    let ptr = keep.as_arc_array::<i64>().unwrap().as_ptr();
    let owned = Array1::<i64>::from_value(Value::Tensor(t.clone())).unwrap();
    assert_ne!(owned.as_ptr(), ptr);
    let shared = ArcArray::<i64, Ix1>::from_value(Value::Tensor(t)).unwrap();
    assert_eq!(shared.as_ptr(), ptr);
    // An op's result is unique.
    let y: ArrayD<f64> = ops::neg_as(&array![1.0f64, 2.0]).unwrap();
    assert_eq!(y, array![-1.0f64, -2.0].into_dyn());
}

#[test]
fn arrays_of_the_wrong_dtype_or_rank_are_errors() {
    let _g = lock();
    let bools = || Value::Tensor(Tensor::from(array![true, false]));
    let err = ArrayD::<f32>::from_value(bools()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "into_array: expected dtype f32, found bool"
    );
    let err = ArcArray::<u8, IxDyn>::from_value(bools()).unwrap_err();
    assert_eq!(err.to_string(), "into_array: expected dtype u8, found bool");
    let err = ndarray::Array2::<bool>::from_value(bools()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "into_array: expected rank 2, found shape [2]"
    );
    let err = ArcArray::<bool, Ix2>::from_value(bools()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "into_array: expected rank 2, found shape [2]"
    );
}

#[test]
fn scalars_are_borrowed_rank_0_operands() {
    let _g = lock();
    let s = 2.5f64;
    // The counter is process-wide and the test harness's own thread may allocate meanwhile: the
    // fewest bytes of three measurements (an allocation of the operand would be in each).
    let heap = (0..3)
        .map(|_| counting_alloc::measure(|| s.as_operand().as_view().unwrap()))
        .min_by_key(|h| h.total)
        .unwrap();
    assert_eq!(heap.total, 0, "no allocation");
    match heap.out {
        TensorView::F64(v) => {
            assert_eq!(v.ndim(), 0);
            assert!(std::ptr::eq(v.as_ptr(), &s), "a view of the scalar itself");
        }
        other => panic!("expected an f64 view, found {}", other.dtype()),
    }
    // Every element type.
    let dtypes = [
        true.as_operand().as_view().unwrap().dtype(),
        1i8.as_operand().as_view().unwrap().dtype(),
        1i16.as_operand().as_view().unwrap().dtype(),
        1i32.as_operand().as_view().unwrap().dtype(),
        1i64.as_operand().as_view().unwrap().dtype(),
        1u8.as_operand().as_view().unwrap().dtype(),
        1u16.as_operand().as_view().unwrap().dtype(),
        1u32.as_operand().as_view().unwrap().dtype(),
        1u64.as_operand().as_view().unwrap().dtype(),
        1f32.as_operand().as_view().unwrap().dtype(),
        1f64.as_operand().as_view().unwrap().dtype(),
        extype::half::f16::ONE
            .as_operand()
            .as_view()
            .unwrap()
            .dtype(),
        extype::half::bf16::ONE
            .as_operand()
            .as_view()
            .unwrap()
            .dtype(),
    ];
    assert_eq!(dtypes, DType::ALL);
    let y: Tensor = ops::maximum_as(&array![1u8, 7], &5u8).unwrap();
    assert_eq!(y, Tensor::from(array![5u8, 7].into_dyn()));
}

#[test]
fn reduction_ops_take_arrays() {
    let _g = lock();
    let args = OpArgs::axes(&[1]);
    let call = Call {
        op: &catalog::REDUCE_SUM,
        args: &args,
    };
    let op = ReductionOp::new(&call);
    let v = array![[1.0f32, 2.0], [3.0, 4.0]];
    let m = array![[true, false], [true, true]];
    let sum = op.apply_masked(&v, &m).unwrap();
    assert_eq!(sum, Tensor::from(array![1.0f32, 7.0].into_dyn()));
    let any: ArrayD<bool> = op.apply_other_as(&catalog::REDUCE_ANY, &m).unwrap();
    assert_eq!(any, array![true, true].into_dyn());
    let all: Tensor = op.apply_other_as(&catalog::REDUCE_ALL, &m).unwrap();
    assert_eq!(all, Tensor::from(array![false, true].into_dyn()));
    let plain: ArrayD<f32> = op.apply_as(&v).unwrap();
    assert_eq!(plain, array![3.0f32, 7.0].into_dyn());
    // A mask that is not bool is named.
    let err = op.apply_masked(&v, &v).unwrap_err();
    assert_eq!(
        err.to_string(),
        "reduce_sum: argument 1: expected dtype bool (the mask), found dtype f32"
    );
}

extype::declare_op!(
    /// A unary op with no dense default (every call needs a handler).
    pub NO_DENSE: unary_elementwise "tests.group_ops.no_dense"
);

#[test]
fn a_group_op_without_a_dense_default_says_so() {
    let _g = lock();
    // Dense operands run the dense default directly (never a handler, which could be the one
    // applying the op); an op without one says so.
    let args = OpArgs::none();
    let call = Call {
        op: &NO_DENSE,
        args: &args,
    };
    let err = UnaryOp::new(&call).apply(&array![1.0f32]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "tests.group_ops.no_dense: no handler for arguments (Tensor(f32[1])); tried: dense \
         default (none: tests.group_ops.no_dense has no dense default)"
    );
}
