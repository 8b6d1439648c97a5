//! Ops on `f16` and `bf16` tensors: every elementwise op and reduction of the catalog that takes
//! them gives what the same op computes on the inputs converted to `f32`, rounded to the half
//! dtype once (bool and index results as they are), on random values with NaN, ±inf, zeros,
//! subnormals and values near the formats' overflow; results keep the half dtype, as NumPy's and
//! TensorFlow's do for half inputs. Mixed precision is refused (cast first), as TensorFlow does
//! (`tf.float16 + tf.float32` is an InvalidArgumentError) and as extype does for every other pair.

use extype::half::{bf16, f16};
use extype::ops::{self, AsOperand, OpArgs, catalog};
use extype::{DType, Op, OpKind, Tensor, TensorView};
use ndarray::{ArrayD, IxDyn, array};

/// SplitMix64.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
    /// A value for a half tensor: mostly in [-4, 4), sometimes special or extreme.
    fn value(&mut self) -> f32 {
        match self.next() % 24 {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => f32::NEG_INFINITY,
            3 => 0.0,
            4 => -0.0,
            5 => 60000.0 * (self.unit() * 2.0 - 1.0),
            6 => 1e-6 * self.unit(), // subnormal in f16
            _ => self.unit() * 8.0 - 4.0,
        }
    }
}

/// A tensor of `dtype` (f16 or bf16) and `shape`, values from `rng`.
fn half_tensor(rng: &mut Rng, dtype: DType, shape: &[usize]) -> Tensor {
    let xs = ArrayD::from_shape_simple_fn(IxDyn(shape), || rng.value());
    ops::cast_as::<Tensor>(&xs, dtype).unwrap()
}

fn cast(x: &Tensor, dtype: DType) -> Tensor {
    ops::cast_as::<Tensor>(x, dtype).unwrap()
}

/// Equal dtypes and shapes, elements equal bit for bit (any NaN equal to any NaN).
fn same(got: &Tensor, want: &Tensor) -> bool {
    if got.dtype() != want.dtype() || got.shape() != want.shape() {
        return false;
    }
    if !got.dtype().is_float() {
        return got == want;
    }
    let (g, w) = (cast(got, DType::F64), cast(want, DType::F64));
    let (TensorView::F64(g), TensorView::F64(w)) = (g.view(), w.view()) else {
        unreachable!()
    };
    g.iter()
        .zip(w.iter())
        .all(|(a, b)| (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits())
}

/// `op` on the half tensors `xs`, and on them converted to `f32` with a float result rounded
/// back: the same.
fn check(op: &'static Op, xs: &[Tensor], args: &OpArgs) {
    let dtype = xs[0].dtype();
    let got = op
        .call(&xs.iter().map(|x| x.as_operand()).collect::<Vec<_>>(), args)
        .map(|v| v.into_tensor().unwrap());
    let wide: Vec<Tensor> = xs.iter().map(|x| cast(x, DType::F32)).collect();
    let want = op
        .call(
            &wide.iter().map(|x| x.as_operand()).collect::<Vec<_>>(),
            args,
        )
        .map(|v| v.into_tensor().unwrap())
        .map(|r| {
            if r.dtype() == DType::F32 {
                cast(&r, dtype)
            } else {
                r
            }
        });
    match (got, want) {
        (Ok(got), Ok(want)) => {
            assert!(same(&got, &want), "{op} on {dtype}: {got} vs {want}");
            if want.dtype() == dtype {
                assert_eq!(got.dtype(), dtype, "{op}: the result keeps the half dtype");
            }
        }
        // The same refusal (an empty max, ...), named the same way.
        (Err(g), Err(w)) => assert_eq!(g.to_string(), w.to_string(), "{op} on {dtype}"),
        (g, w) => panic!("{op} on {dtype}: {g:?} vs {w:?}"),
    }
}

#[test]
fn every_elementwise_op_and_reduction_computes_in_f32_and_rounds_once() {
    let mut rng = Rng(27);
    let mut ran = 0;
    for dtype in [DType::F16, DType::BF16] {
        for op in catalog::ALL.iter().copied() {
            if !op.dtypes().contains(dtype) {
                continue;
            }
            for round in 0..6 {
                let shape: &[usize] =
                    [&[3, 4][..], &[2, 0, 3], &[], &[5, 1, 3], &[70], &[2, 3]][round];
                let x = half_tensor(&mut rng, dtype, shape);
                match op.kind() {
                    OpKind::UnaryElementwise if op.name() != "shape" => {
                        check(op, &[x], &OpArgs::none())
                    }
                    OpKind::BinaryElementwise if op.name() != "boolean_mask" => {
                        // Broadcasting a trailing row, and same shapes.
                        let y = half_tensor(&mut rng, dtype, &shape[shape.len().min(1)..]);
                        check(op, &[x.clone(), y], &OpArgs::none());
                        let y = half_tensor(&mut rng, dtype, shape);
                        check(op, &[x, y], &OpArgs::none());
                    }
                    OpKind::Reduction => {
                        check(op, std::slice::from_ref(&x), &OpArgs::none());
                        if !shape.is_empty() {
                            check(
                                op,
                                std::slice::from_ref(&x),
                                &OpArgs::axes(&[-1]).keepdims(true),
                            );
                            check(op, &[x], &OpArgs::axes(&[0]));
                        }
                    }
                    _ => continue,
                }
                ran += 1;
            }
        }
    }
    // Every unary, binary and reduction op of both dtypes ran (a set that lost the half
    // dtypes would run none).
    assert!(ran > 2 * 6 * 40, "{ran}");
}

#[test]
fn masked_and_segment_reductions_on_half_values() {
    let mut rng = Rng(5);
    for dtype in [DType::F16, DType::BF16] {
        let x = half_tensor(&mut rng, dtype, &[4, 6]);
        let mask = ArrayD::from_shape_fn(IxDyn(&[4, 6]), |i| (i[0] + i[1]) % 3 != 0);
        for op in [
            &catalog::REDUCE_SUM,
            &catalog::REDUCE_MEAN,
            &catalog::REDUCE_MAX,
            &catalog::REDUCE_MIN,
        ] {
            let args = OpArgs::axes(&[1]);
            let got = ops::masked_reduce(op, &x, &mask, &args).unwrap();
            let wide = ops::masked_reduce(op, &cast(&x, DType::F32), &mask, &args).unwrap();
            assert!(same(&got, &cast(&wide, dtype)), "masked {op} on {dtype}");
        }
        let splits = [0i64, 1, 1, 4];
        for op in [&catalog::SEGMENT_SUM, &catalog::SEGMENT_MEAN] {
            let args = OpArgs::none().with_indices(&splits);
            check(op, std::slice::from_ref(&x), &args);
        }
    }
}

#[test]
fn known_values_follow_numpy() {
    // NumPy: float16 [65504, 65504].sum() is inf (the f32 sum 131008 rounds to inf); .mean() is
    // 65504 (NumPy computes a float16 mean in float32; TensorFlow's overflows to inf).
    let big = array![f16::MAX, f16::MAX];
    let sum: ArrayD<f16> = ops::reduce_sum_as(&big, None, false).unwrap();
    assert_eq!(sum[[]], f16::INFINITY);
    let mean: ArrayD<f16> = ops::reduce_mean_as(&big, None, false).unwrap();
    assert_eq!(mean[[]], f16::MAX);
    // bf16 1 + 2^-8 is a tie between 1 and 1 + 2^-7: to even, 1 (TensorFlow gives the same);
    // 1 + 3·2^-8 rounds up to 1 + 2^-6.
    let s: ArrayD<bf16> = ops::add_as(
        &array![bf16::ONE, bf16::ONE],
        &array![
            bf16::from_f32(2f32.powi(-8)),
            bf16::from_f32(3.0 * 2f32.powi(-8))
        ],
    )
    .unwrap();
    assert_eq!(s, array![bf16::ONE, bf16::from_f32(1.015625)].into_dyn());
    // Comparisons and argmax give bool and i64.
    let x = array![f16::from_f32(0.5), f16::NAN, f16::from_f32(2.0)];
    let lt: ArrayD<bool> = ops::less_as(&x, &array![f16::ONE]).unwrap();
    assert_eq!(lt, array![true, false, false].into_dyn());
    let am: ArrayD<i64> = ops::argmax_as(&x, None, false).unwrap();
    assert_eq!(am[[]], 1, "NaN is the first maximum, as NumPy");
}

#[test]
fn mixed_precision_is_refused_cast_first() {
    let h = array![f16::ONE];
    let err = ops::add(&h, &array![1.0f32]).unwrap_err().to_string();
    assert_eq!(
        err,
        "add: argument 1: expected dtype f16 (the dtype of argument 0; cast first), found dtype f32"
    );
    let err = ops::add(&array![bf16::ONE], &h).unwrap_err().to_string();
    assert!(
        err.contains("expected dtype bf16") && err.contains("found dtype f16"),
        "{err}"
    );
    // Cast first: then it adds.
    let wide: ArrayD<f32> = ops::cast_as(&h, DType::F32).unwrap();
    let sum: ArrayD<f32> = ops::add_as(&wide, &array![1.0f32]).unwrap();
    assert_eq!(sum, array![2.0f32].into_dyn());
}

#[test]
fn data_moving_ops_keep_the_bits() {
    // NaN payloads and -0 survive where/gather/concat/reshape/boolean_mask (the kernels move
    // half floats as they are, never through f32).
    let odd_nan = f16::from_bits(0x7d01); // a signalling NaN: f32 would quiet it
    let x = array![odd_nan, f16::NEG_ZERO, f16::ONE];
    let g: ArrayD<f16> = ops::gather_as(&x, &[1, 0], 0).unwrap();
    assert_eq!(g[[1]].to_bits(), 0x7d01);
    assert_eq!(g[[0]].to_bits(), 0x8000);
    let parts = [x.as_operand(), x.as_operand()];
    let c: ArrayD<f16> = ops::concat_as(&parts, 0).unwrap();
    assert_eq!(c[[3]].to_bits(), 0x7d01);
    let w: ArrayD<f16> = ops::where_as(&array![true, false, true], &x, &array![f16::ZERO]).unwrap();
    assert_eq!(w[[0]].to_bits(), 0x7d01);
    let m: ArrayD<f16> = ops::boolean_mask_as(&x, &array![true, false, false]).unwrap();
    assert_eq!(m[[0]].to_bits(), 0x7d01);
    let nan: ArrayD<bool> = ops::is_nan_as(&x).unwrap();
    assert_eq!(nan, array![true, false, false].into_dyn());
}

#[test]
fn cast_goes_between_any_two_dtypes() {
    // 0, 1, 2 and 3 in every dtype (bool: false, true, true, true), cast to every dtype: the
    // same numbers, whichever way.
    let small = array![0.0f32, 1.0, 2.0, 3.0];
    for from in DType::ALL {
        let x = cast(&Tensor::from(small.clone()), from);
        assert_eq!(x.dtype(), from);
        for to in DType::ALL {
            let y = cast(&x, to);
            assert_eq!(y.dtype(), to, "{from} -> {to}");
            let want = if from == DType::Bool || to == DType::Bool {
                array![0.0f64, 1.0, 1.0, 1.0]
            } else {
                array![0.0f64, 1.0, 2.0, 3.0]
            };
            let got: ArrayD<f64> = ops::cast_as(&y, DType::F64).unwrap();
            assert_eq!(got, want.into_dyn(), "{from} -> {to}");
        }
    }
    // Saturating from half floats, wrapping between integers, as for the other dtypes.
    let big = array![f16::MAX, f16::NEG_INFINITY, f16::NAN];
    let i8s: ArrayD<i8> = ops::cast_as(&big, DType::I8).unwrap();
    assert_eq!(i8s, array![127i8, -128, 0].into_dyn());
    let u16s: ArrayD<u16> = ops::cast_as(&array![70000i64, -1], DType::U16).unwrap();
    assert_eq!(u16s, array![(70000 - 65536) as u16, u16::MAX].into_dyn());
}
