//! Every op front that returns a `Value` has a `*_as::<T>` twin returning the concrete type, with
//! the same result, and a clear error when the result is not a `T`.

use extype::ops::{self, AsOperand, catalog};
use extype::{Tensor, Value};
use ndarray::{ArrayD, IxDyn, array};

fn tensor(v: &Value) -> Tensor {
    v.as_tensor().expect("a dense result").clone()
}

#[test]
fn the_as_twins_return_what_the_value_forms_return() {
    let x = ArrayD::from_shape_fn(IxDyn(&[2, 3]), |i| (i[0] * 3 + i[1]) as f32);
    let y = array![10.0f32, 20.0, 30.0];

    let r = ops::reshape(&x, &[3, 2]).unwrap();
    assert_eq!(ops::reshape_as::<Tensor>(&x, &[3, 2]).unwrap(), tensor(&r));

    let t = ops::transpose(&x, None).unwrap();
    assert_eq!(ops::transpose_as::<Tensor>(&x, None).unwrap(), tensor(&t));
    let t = ops::transpose(&x, Some(&[1, 0])).unwrap();
    assert_eq!(
        ops::transpose_as::<Tensor>(&x, Some(&[1, 0])).unwrap(),
        tensor(&t)
    );

    let parts = [x.as_operand(), x.as_operand()];
    let c = ops::concat(&parts, 0).unwrap();
    assert_eq!(ops::concat_as::<Tensor>(&parts, 0).unwrap(), tensor(&c));
    assert_eq!(tensor(&c).shape(), &[4, 3]);

    let s = ops::stack(&parts, 0).unwrap();
    assert_eq!(ops::stack_as::<Tensor>(&parts, 0).unwrap(), tensor(&s));
    assert_eq!(tensor(&s).shape(), &[2, 2, 3]);

    let g = ops::gather(&y, &[2, 0, -1], 0).unwrap();
    let gathered: Tensor = ops::gather_as(&y, &[2, 0, -1], 0).unwrap();
    assert_eq!(gathered, tensor(&g));
    assert_eq!(
        gathered,
        Tensor::from(array![30.0f32, 10.0, 30.0].into_dyn())
    );

    let flat = array![1.0f32, 2.0, 3.0, 4.0];
    let seg = ops::segment_reduce(&catalog::SEGMENT_SUM, &flat, &[0, 1, 4]).unwrap();
    let summed: Tensor = ops::segment_reduce_as(&catalog::SEGMENT_SUM, &flat, &[0, 1, 4]).unwrap();
    assert_eq!(summed, tensor(&seg));
    assert_eq!(summed, Tensor::from(array![1.0f32, 9.0].into_dyn()));

    // The result as a `Value` too, and a result of another type is an error, not a panic.
    let as_value = ops::reshape_as::<Value>(&x, &[6]).unwrap();
    assert_eq!(tensor(&as_value), tensor(&ops::reshape(&x, &[6]).unwrap()));
    let err = ops::stack_as::<extype::AnonymousExtension>(&parts, 0).unwrap_err();
    assert!(err.to_string().contains("tensor"), "{err}");
}

#[test]
fn shared_row_splits_give_the_copied_ones_result_and_errors() {
    use extype::ops::{Indices, OpArgs};
    use ndarray::{ArcArray1, s};
    let flat = array![1.0f32, 2.0, 3.0, 4.0];
    let copied: Tensor =
        ops::segment_reduce_as(&catalog::SEGMENT_SUM, &flat, &[0, 1, 1, 4]).unwrap();
    let splits = ArcArray1::from(vec![0i64, 1, 1, 4]);
    let shared = Indices::from(splits.clone());
    // Shared, not copied; equal (and hashed) by value to copied indices.
    assert_eq!(shared.as_ptr(), splits.as_ptr());
    assert_eq!(shared, Indices::from(&[0i64, 1, 1, 4][..]));
    let hash = |i: &Indices| {
        use std::hash::{BuildHasher, RandomState};
        let state = RandomState::new();
        (state.hash_one(i), state.hash_one(&[0i64, 1, 1, 4][..]))
    };
    let (a, b) = hash(&shared);
    assert_eq!(a, b);
    let got: Tensor = ops::segment_reduce_shared_as(&catalog::SEGMENT_SUM, &flat, &shared).unwrap();
    assert_eq!(got, copied);
    // A strided array is copied into order (the slice a kernel reads is contiguous).
    let wide = ArcArray1::from(vec![0i64, 9, 1, 9, 1, 9, 4]);
    let stepped = Indices::from(wide.slice(s![..;2]).to_shared());
    assert_eq!(&*stepped, &[0, 1, 1, 4]);
    let args = OpArgs::none().with_shared_indices(stepped);
    let got: Tensor = ops::call_as(&catalog::SEGMENT_SUM, &[flat.as_operand()], &args).unwrap();
    assert_eq!(got, copied);
    // Bad splits: the same error as copied ones.
    let bad = Indices::from(vec![0i64, 3, 1, 4]);
    let want = ops::segment_reduce(&catalog::SEGMENT_SUM, &flat, &[0, 3, 1, 4]).unwrap_err();
    let err = ops::segment_reduce_shared(&catalog::SEGMENT_SUM, &flat, &bad).unwrap_err();
    assert_eq!(err.to_string(), want.to_string());
    assert!(
        err.to_string()
            .contains("row_splits[2] == 1 < row_splits[1] == 3"),
        "{err}"
    );
}
