//! Property tests of `extype::types::MaskedTensor` against the same op on the dense form:
//! a reduction equals the dense reduction of `where(mask, v, identity)` where some element was
//! valid (and its mask is `count > 0`); elementwise ops equal the dense op on the values, with
//! the masks ANDed. Random shapes (rank 0 to 3, zero-size dims), axes (negative too),
//! `keepdims`, and values with NaN and ±inf.

use extype::ndarray::{ArrayD, IxDyn};
use extype::ops::{self, AsOperand, OpArgs, catalog};
use extype::types::MaskedTensor;
use extype::{Op, Result, Tensor};
use proptest::prelude::*;

fn shape() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0usize..4, 0..=3)
}

fn value() -> impl Strategy<Value = f64> {
    prop_oneof![
        8 => -100.0f64..100.0,
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NEG_INFINITY),
    ]
}

/// A masked tensor of `shape` (f64 values with NaN and ±inf, random mask).
fn masked(shape: Vec<usize>) -> impl Strategy<Value = MaskedTensor> {
    let n: usize = shape.iter().product();
    (
        prop::collection::vec(value(), n),
        prop::collection::vec(any::<bool>(), n),
    )
        .prop_map(move |(v, m)| {
            let values = ArrayD::from_shape_vec(IxDyn(&shape), v).unwrap();
            let mask = ArrayD::from_shape_vec(IxDyn(&shape), m).unwrap();
            MaskedTensor::new(values, mask).unwrap()
        })
}

/// A masked tensor and axes to reduce (`None`: all; negative axes too), and keepdims.
fn reduction_case() -> impl Strategy<Value = (MaskedTensor, Option<Vec<isize>>, bool)> {
    shape().prop_flat_map(|shape| {
        let rank = shape.len();
        let axes = prop::option::of(
            prop::collection::btree_set(0..rank.max(1), 0..=rank).prop_flat_map(move |set| {
                let axes: Vec<usize> = set.into_iter().filter(|&a| a < rank).collect();
                let n = axes.len();
                (Just(axes), prop::collection::vec(any::<bool>(), n)).prop_map(
                    move |(axes, negative)| {
                        axes.iter()
                            .zip(negative)
                            .map(|(&a, neg)| {
                                if neg {
                                    a as isize - rank as isize
                                } else {
                                    a as isize
                                }
                            })
                            .collect::<Vec<isize>>()
                    },
                )
            }),
        );
        (masked(shape), axes, any::<bool>())
    })
}

fn f64s(t: &Tensor) -> Vec<f64> {
    ops::cast_as::<Tensor>(t, extype::DType::F64)
        .unwrap()
        .as_array::<f64, IxDyn>()
        .unwrap()
        .iter()
        .copied()
        .collect()
}

fn bools(t: &Tensor) -> Vec<bool> {
    t.as_array::<bool, IxDyn>()
        .unwrap()
        .iter()
        .copied()
        .collect()
}

/// Equal, NaN equal to NaN, with a relative tolerance for summation order.
fn close(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// Same shape and dtype, and equal elements (NaN equal to NaN).
fn same(a: &Tensor, b: &Tensor) -> bool {
    a.shape() == b.shape()
        && a.dtype() == b.dtype()
        && f64s(a).iter().zip(f64s(b)).all(|(x, y)| close(*x, y))
}

fn reduce(op: &'static Op, x: &impl AsOperand, args: &OpArgs) -> Result<extype::Value> {
    ops::call(op, &[x.as_operand()], args)
}

/// The identity each reduction fills masked-out elements with (f64 values).
fn identity(op: &Op) -> f64 {
    if *op == catalog::REDUCE_MAX || *op == catalog::ARGMAX {
        f64::NEG_INFINITY
    } else if *op == catalog::REDUCE_MIN || *op == catalog::ARGMIN {
        f64::INFINITY
    } else if *op == catalog::REDUCE_PROD || *op == catalog::REDUCE_ALL {
        1.0
    } else {
        0.0
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn reductions_equal_the_dense_op_on_the_filled_values(
        (x, axes, keepdims) in reduction_case(),
    ) {
        let args = OpArgs::maybe_axes(axes.as_deref()).keepdims(keepdims);
        let valid: Tensor = ops::reduce_any_as(x.mask(), axes.as_deref(), keepdims).unwrap();
        for op in [
            &catalog::REDUCE_SUM, &catalog::REDUCE_MEAN, &catalog::REDUCE_MAX, &catalog::REDUCE_MIN,
            &catalog::REDUCE_PROD, &catalog::REDUCE_ANY, &catalog::REDUCE_ALL,
            &catalog::COUNT_NONZERO, &catalog::ARGMAX, &catalog::ARGMIN,
        ] {
            let got: MaskedTensor = extype::ops::FromValue::from_value(reduce(op, &x, &args).unwrap()).unwrap();
            prop_assert_eq!(got.mask(), &valid, "{} mask", op.name());
            let fill = Tensor::from(extype::ndarray::arr0(identity(op)).into_dyn());
            let filled: Tensor = ops::where_as(x.mask(), x.values(), &fill).unwrap();
            // The reference: the dense op on the filled values (the mean: their sum over the
            // count). Dense max/min/argmax raise over an empty extent, where the masked result
            // is the identity under a false mask.
            let reference = if *op == catalog::REDUCE_MEAN {
                let sum: Tensor = reduce(&catalog::REDUCE_SUM, &filled, &args).unwrap().into_tensor().unwrap();
                let count = f64s(&x.count(axes.as_deref(), keepdims).unwrap());
                Some(f64s(&sum).iter().zip(count).map(|(s, c)| s / c).collect::<Vec<f64>>())
            } else {
                reduce(op, &filled, &args).ok().map(|v| f64s(v.as_tensor().unwrap()))
            };
            let got_values = f64s(got.values());
            let valid = bools(&valid);
            match reference {
                Some(reference) => {
                    prop_assert_eq!(reference.len(), got_values.len());
                    for (i, (r, g)) in reference.iter().zip(&got_values).enumerate() {
                        let is_arg = *op == catalog::ARGMAX || *op == catalog::ARGMIN;
                        if is_arg && !valid[i] {
                            continue; // no valid element: index under a false mask
                        }
                        if is_arg {
                            // Ties with the fill (a valid ±inf) pick the first valid element;
                            // elsewhere the dense op's index.
                            let extreme = f64s(&reduce(
                                if *op == catalog::ARGMAX { &catalog::REDUCE_MAX } else { &catalog::REDUCE_MIN },
                                &filled, &args).unwrap().into_tensor().unwrap());
                            if extreme[i] == identity(op) {
                                continue;
                            }
                        }
                        prop_assert!(close(*r, *g), "{} at {}: dense {} masked {}", op.name(), i, r, g);
                    }
                }
                None => {
                    // The dense op refused an empty extent: every result is masked out.
                    prop_assert!(valid.iter().all(|v| !v), "{}", op.name());
                }
            }
        }
    }

    #[test]
    fn binary_ops_equal_the_dense_op_with_anded_masks(
        (a, b) in shape().prop_flat_map(|s| {
            // The second operand: the same shape with some dims 1 (it broadcasts).
            let ones = prop::collection::vec(any::<bool>(), s.len());
            (Just(s), ones)
        }).prop_flat_map(|(s, ones)| {
            let t: Vec<usize> = s.iter().zip(&ones).map(|(&d, &one)| if one { 1 } else { d }).collect();
            (masked(s), masked(t))
        }),
    ) {
        for op in [&catalog::ADD, &catalog::MUL, &catalog::MAXIMUM, &catalog::LESS, &catalog::EQUAL] {
            let got: MaskedTensor = ops::call_as(op, &[a.as_operand(), b.as_operand()], &OpArgs::none()).unwrap();
            let dense: Tensor = ops::call_as(op, &[a.values().as_operand(), b.values().as_operand()], &OpArgs::none()).unwrap();
            prop_assert!(same(got.values(), &dense), "{}", op.name());
            let mask: Tensor = ops::logical_and_as(a.mask(), b.mask()).unwrap();
            prop_assert_eq!(got.mask(), &mask);
            // A dense operand is valid everywhere.
            let got: MaskedTensor = ops::call_as(op, &[b.values().as_operand(), a.as_operand()], &OpArgs::none()).unwrap();
            let dense: Tensor = ops::call_as(op, &[b.values().as_operand(), a.values().as_operand()], &OpArgs::none()).unwrap();
            prop_assert!(same(got.values(), &dense), "{}", op.name());
            let broadcast = a.mask().as_array::<bool, IxDyn>().unwrap()
                .broadcast(IxDyn(dense.shape())).unwrap().to_owned();
            prop_assert_eq!(got.mask(), &Tensor::from(broadcast));
        }
    }

    #[test]
    fn unary_ops_equal_the_dense_op_and_keep_the_mask(x in shape().prop_flat_map(masked)) {
        for op in [&catalog::NEG, &catalog::EXP, &catalog::ABS, &catalog::IS_NAN, &catalog::SQRT] {
            let got: MaskedTensor = ops::call_as(op, &[x.as_operand()], &OpArgs::none()).unwrap();
            let dense: Tensor = ops::call_as(op, &[x.values().as_operand()], &OpArgs::none()).unwrap();
            prop_assert_eq!(bools(got.mask()), bools(x.mask()));
            let (g, d) = (f64s(got.values()), f64s(&dense));
            prop_assert!(g.iter().zip(&d).all(|(a, b)| close(*a, *b)), "{}", op.name());
        }
    }
}
