//! Property tests of `extype::types::RaggedTensor` against the same op on the padded dense
//! form: a reduction equals the dense reduction of the padded values (padded with the
//! reduction's identity) where some value was reduced, and TF's empty-row value elsewhere;
//! elementwise ops equal the dense op on the padded values, read where the rows have values.
//! Random ragged rank-1 tensors (0–5 rows of 0–5 values, an optional inner axis of 0–2),
//! f64 values with NaN and ±inf, every axis (negative too) and `keepdims`.

use extype::ndarray::{ArrayD, IxDyn};
use extype::ops::{self, AsOperand, OpArgs, catalog};
use extype::types::RaggedTensor;
use extype::{Op, Tensor, Value, ValueSpec};
use proptest::prelude::*;

fn value() -> impl Strategy<Value = f64> {
    prop_oneof![
        8 => -100.0f64..100.0,
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NEG_INFINITY),
    ]
}

/// A ragged tensor: row lengths, an optional inner axis, f64 values.
fn ragged() -> impl Strategy<Value = RaggedTensor> {
    (
        prop::collection::vec(0usize..5, 0..5),
        prop::option::of(0usize..3),
    )
        .prop_flat_map(|(lengths, inner)| {
            let nvals: usize = lengths.iter().sum();
            let n = nvals * inner.unwrap_or(1);
            prop::collection::vec(value(), n).prop_map(move |v| {
                let mut shape = vec![nvals];
                shape.extend(inner);
                let values = ArrayD::from_shape_vec(IxDyn(&shape), v).unwrap();
                let lengths: Vec<i64> = lengths.iter().map(|&l| l as i64).collect();
                RaggedTensor::from_row_lengths(values, ndarray::Array1::from(lengths)).unwrap()
            })
        })
}

fn f64s(t: &Tensor) -> Vec<f64> {
    t.as_array::<f64, IxDyn>()
        .unwrap()
        .iter()
        .copied()
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// The op, its padding identity, and TF's value for an extent with no value.
fn cases() -> Vec<(&'static Op, f64, f64)> {
    vec![
        (&catalog::REDUCE_SUM, 0.0, 0.0),
        (&catalog::REDUCE_PROD, 1.0, 1.0),
        (&catalog::REDUCE_MAX, f64::NEG_INFINITY, f64::MIN),
        (&catalog::REDUCE_MIN, f64::INFINITY, f64::MAX),
        (&catalog::REDUCE_MEAN, 0.0, f64::NAN),
    ]
}

/// The expected reduction from the padded form: the dense op of the values padded with the
/// identity (the mean: padded sum over padded count), TF's empty value where the count is 0
/// (over all axes, the dense op's: −inf for max, +inf for min).
fn expected(
    op: &'static Op,
    pad: f64,
    empty: f64,
    x: &RaggedTensor,
    axes: Option<&[isize]>,
    keep: bool,
) -> Tensor {
    let args = OpArgs::maybe_axes(axes).keepdims(keep);
    let padded = x
        .to_tensor(Some(&Tensor::from(ndarray::arr0(pad).into_dyn())), None)
        .unwrap();
    let ones: RaggedTensor = ops::ones_like_as(x).unwrap();
    let count = ops::call_as::<Tensor>(
        &catalog::REDUCE_SUM,
        &[ones.to_tensor(None, None).unwrap().as_operand()],
        &args,
    )
    .unwrap();
    let reduced = if op == &catalog::REDUCE_MEAN {
        let total: Tensor =
            ops::call_as(&catalog::REDUCE_SUM, &[padded.as_operand()], &args).unwrap();
        ops::div_as::<Tensor>(&total, &count).unwrap()
    } else if padded.is_empty() {
        ops::call_as(&catalog::REDUCE_SUM, &[padded.as_operand()], &args).unwrap()
    } else {
        ops::call_as(op, &[padded.as_operand()], &args).unwrap()
    };
    // TF: over all axes, or uniform (inner) axes only, an empty extent's max is the dense
    // op's −inf; over a ragged axis, the lowest finite value.
    let all_axes = axes.is_none_or(|a| a.len() == x.rank())
        || axes.is_some_and(|a| x.rank() == 3 && a.iter().all(|&ax| ax == 2 || ax == -1));
    let empty = if all_axes && (op == &catalog::REDUCE_MAX || op == &catalog::REDUCE_MIN) {
        pad
    } else {
        empty
    };
    let out: Vec<f64> = f64s(&reduced)
        .iter()
        .zip(f64s(&count))
        .map(|(&v, c)| if c == 0.0 { empty } else { v })
        .collect();
    Tensor::from(ArrayD::from_shape_vec(IxDyn(reduced.shape()), out).unwrap())
}

/// TF's max (or min) of a ragged-rank-1 tensor, modelled axis by axis, the highest first, as
/// `tf.reduce_max` of a RaggedTensor runs: a ragged axis (and axis 0 while the ragged axis
/// remains) folds `acc = if v < acc { acc } else { v }` from the lowest finite value in order;
/// a dense axis propagates NaN (−inf when empty); no axes: the dense op on the flat values.
/// The values in row-major order of the result.
fn tf_extreme(max: bool, x: &RaggedTensor, axes: Option<&[isize]>) -> Vec<f64> {
    let (bound, pad) = if max {
        (f64::MIN, f64::NEG_INFINITY)
    } else {
        (f64::MAX, f64::INFINITY)
    };
    let step = |acc: f64, v: f64| {
        let keep = if max { v < acc } else { v > acc };
        if keep { acc } else { v }
    };
    let dense = |vs: &mut dyn Iterator<Item = f64>| {
        vs.fold(pad, |acc, v| {
            if acc.is_nan() || v.is_nan() {
                f64::NAN
            } else if max {
                acc.max(v)
            } else {
                acc.min(v)
            }
        })
    };
    let flat = f64s(x.flat_values());
    let Some(axes) = axes else {
        return vec![dense(&mut flat.iter().copied())];
    };
    let rank = x.rank() as isize;
    let mut width = x.flat_values().shape().get(1).copied().unwrap_or(1);
    // rows[r][k] = the k-th value of row r: its inner elements.
    let splits: Vec<i64> = f64s(&ops::cast_as(x.row_splits(), extype::DType::F64).unwrap())
        .iter()
        .map(|&s| s as i64)
        .collect();
    let mut rows: Vec<Vec<Vec<f64>>> = splits
        .windows(2)
        .map(|w| {
            (w[0] as usize..w[1] as usize)
                .map(|j| flat[j * width..(j + 1) * width].to_vec())
                .collect()
        })
        .collect();
    let mut norm: Vec<isize> = axes
        .iter()
        .map(|&a| if a < 0 { a + rank } else { a })
        .collect();
    norm.sort_unstable_by(|a, b| b.cmp(a));
    norm.dedup();
    // Once the ragged axis is reduced: dense[r] = row r's inner elements.
    let mut dense_rows: Option<Vec<Vec<f64>>> = None;
    for a in norm {
        match a {
            2 => {
                for row in &mut rows {
                    for v in row.iter_mut() {
                        *v = vec![dense(&mut v.iter().copied())];
                    }
                }
                width = 1;
            }
            1 => {
                let fold_row = |row: &Vec<Vec<f64>>| -> Vec<f64> {
                    (0..width)
                        .map(|i| row.iter().fold(bound, |acc, v| step(acc, v[i])))
                        .collect()
                };
                dense_rows = Some(rows.iter().map(fold_row).collect());
            }
            _ => {
                return match &dense_rows {
                    Some(d) => (0..width)
                        .map(|i| dense(&mut d.iter().map(|r| r[i])))
                        .collect(),
                    None => {
                        let longest = rows.iter().map(|r| r.len()).max().unwrap_or(0);
                        (0..longest)
                            .flat_map(|k| {
                                let rows = &rows;
                                (0..width).map(move |i| {
                                    rows.iter()
                                        .filter_map(|r| r.get(k))
                                        .fold(bound, |acc, v| step(acc, v[i]))
                                })
                            })
                            .collect()
                    }
                };
            }
        }
    }
    match dense_rows {
        Some(d) => d.concat(),
        None => rows.concat().concat(),
    }
}

fn axes_for(rank: usize) -> impl Strategy<Value = (Option<Vec<isize>>, bool)> {
    let sets: Vec<Option<Vec<isize>>> = if rank == 2 {
        vec![
            None,
            Some(vec![1]),
            Some(vec![-1]),
            Some(vec![0]),
            Some(vec![-2]),
            Some(vec![0, 1]),
        ]
    } else {
        vec![
            None,
            Some(vec![1]),
            Some(vec![-2]),
            Some(vec![0]),
            Some(vec![2]),
            Some(vec![1, 2]),
            Some(vec![0, 2]),
            Some(vec![0, 1]),
            Some(vec![-1, -3]),
        ]
    };
    (prop::sample::select(sets), any::<bool>())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn reductions_equal_the_padded_dense_reduction(
        (x, (axes, keep)) in ragged().prop_flat_map(|x| { let rank = x.rank(); (Just(x), axes_for(rank)) })
    ) {
        for (op, pad, empty) in cases() {
            let args = OpArgs::maybe_axes(axes.as_deref()).keepdims(keep);
            let got = ops::call(op, &[x.as_operand()], &args)
                .unwrap_or_else(|e| panic!("{} {axes:?} of {x}: {e}", op.name()));
            // Spec inference agrees with the result's spec.
            let spec = ValueSpec::Extension(Box::new(extype::ExtensionType::spec(&x)));
            let inferred = ops::infer_spec(op, &[&spec], &args).unwrap();
            prop_assert!(
                inferred.spec.is_compatible_with(&got.spec()),
                "{} {axes:?} keep={keep} of {x}: inferred {} for {}", op.name(), inferred.spec, got.spec()
            );
            // A ragged result (inner axes only) is compared where its rows have values.
            let (got, mask) = match got {
                Value::Tensor(t) => (t, None),
                ext => {
                    let r = ext.downcast::<RaggedTensor>().unwrap();
                    let ones: RaggedTensor = ops::ones_like_as(&r).unwrap();
                    (r.to_tensor(None, None).unwrap(), Some(f64s(&ones.to_tensor(None, None).unwrap())))
                }
            };
            let want = expected(op, pad, empty, &x, axes.as_deref(), keep);
            prop_assert_eq!(got.shape(), want.shape(), "{} {:?} keep={} of {}", op.name(), axes, keep, x);
            let g = f64s(&got);
            let mask = mask.unwrap_or_else(|| vec![1.0; g.len()]);
            let is_max = op == &catalog::REDUCE_MAX;
            if is_max || op == &catalog::REDUCE_MIN {
                // Max and min against TF's axis-by-axis model, on the values present.
                let w = tf_extreme(is_max, &x, axes.as_deref());
                let g: Vec<f64> = g.iter().zip(&mask).filter(|(_, m)| **m != 0.0).map(|(v, _)| *v).collect();
                prop_assert!(
                    g.len() == w.len() && g.iter().zip(&w).all(|(a, b)| close(*a, *b)),
                    "{} {axes:?} keep={keep} of {x}: {g:?} vs TF's {w:?}", op.name()
                );
                continue;
            }
            let w = f64s(&want);
            prop_assert!(
                g.iter().zip(&w).zip(&mask).all(|((a, b), m)| *m == 0.0 || close(*a, *b)),
                "{} {axes:?} keep={keep} of {x}: {g:?} vs {w:?}", op.name()
            );
        }
    }

    #[test]
    fn elementwise_ops_equal_the_padded_dense_op(x in ragged(), s in -3.0f64..3.0) {
        let mask: RaggedTensor = ops::ones_like_as(&x).unwrap();
        let mask = f64s(&mask.to_tensor(None, None).unwrap());
        let padded = x.to_tensor(None, None).unwrap();
        let check = |got: RaggedTensor, want: Tensor| {
            let g = f64s(&got.to_tensor(None, None).unwrap());
            let w = f64s(&want);
            g.len() == w.len() && g.iter().zip(&w).zip(&mask).all(|((a, b), m)| *m == 0.0 || close(*a, *b))
        };
        // ragged ∘ ragged (same partition), ragged ∘ scalar, ragged ∘ per-row dense.
        prop_assert!(check(ops::mul_as(&x, &x).unwrap(), ops::mul_as(&padded, &padded).unwrap()));
        let scalar = Tensor::from(ndarray::arr0(s).into_dyn());
        prop_assert!(check(ops::sub_as(&x, &scalar).unwrap(), ops::sub_as(&padded, &scalar).unwrap()));
        let mut row_shape = vec![x.nrows(), 1];
        row_shape.extend(&x.flat_values().shape()[1..]);
        let rows = Tensor::from(ArrayD::from_shape_fn(IxDyn(&row_shape), |i| i[0] as f64 + s));
        prop_assert!(check(ops::add_as(&x, &rows).unwrap(), ops::add_as(&padded, &rows).unwrap()));
        prop_assert!(check(ops::neg_as(&x).unwrap(), ops::neg_as(&padded).unwrap()));
    }
}

/// A ragged tensor of ragged rank 2: 0–3 rows of 0–3 rows of 0–3 values (f64, NaN and ±inf).
fn ragged2() -> impl Strategy<Value = RaggedTensor> {
    prop::collection::vec(prop::collection::vec(0usize..4, 0..4), 0..4).prop_flat_map(|rows| {
        let nvals: usize = rows.iter().flatten().sum();
        prop::collection::vec(value(), nvals).prop_map(move |v| {
            let mut outer = vec![0i64];
            let mut inner = vec![0i64];
            for row in &rows {
                outer.push(outer[outer.len() - 1] + row.len() as i64);
                for &len in row {
                    inner.push(inner[inner.len() - 1] + len as i64);
                }
            }
            RaggedTensor::from_nested_row_splits(
                ndarray::Array1::from(v),
                vec![
                    Tensor::from(ndarray::Array1::from(outer)),
                    Tensor::from(ndarray::Array1::from(inner)),
                ],
            )
            .unwrap()
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Ragged rank 2, every set of axes: sum, prod and mean equal the padded dense reduction
    /// where some value was reduced (max and min differ from the padded form only where TF's
    /// one-axis-at-a-time order lets an empty row's lowest finite value meet a −inf).
    #[test]
    fn ragged_rank_2_reductions_equal_the_padded_dense_reduction(
        x in ragged2(),
        axes in prop::sample::select(vec![
            vec![0isize], vec![1], vec![2], vec![-1], vec![0, 1], vec![0, 2], vec![1, 2], vec![-3, -1],
        ]),
    ) {
        for (op, pad, empty) in cases().into_iter().filter(|(op, _, _)| {
            *op == &catalog::REDUCE_SUM || *op == &catalog::REDUCE_PROD || *op == &catalog::REDUCE_MEAN
        }) {
            let args = OpArgs::axes(&axes);
            let got = ops::call(op, &[x.as_operand()], &args)
                .unwrap_or_else(|e| panic!("{} {axes:?} of {x}: {e}", op.name()));
            let (got, mask) = match got {
                Value::Tensor(t) => (t, None),
                ext => {
                    let r = ext.downcast::<RaggedTensor>().unwrap();
                    let ones: RaggedTensor = ops::ones_like_as(&r).unwrap();
                    (r.to_tensor(None, None).unwrap(), Some(f64s(&ones.to_tensor(None, None).unwrap())))
                }
            };
            let want = expected(op, pad, empty, &x, Some(&axes), false);
            // The ragged result's bounding box may be smaller than the padded one's (a longest
            // row that holds no value): compare over the result's own cells.
            let w = ops::call_as::<Tensor>(
                &catalog::RESHAPE,
                &[want.as_operand()],
                &OpArgs::none().with_shape(want.shape()),
            )
            .unwrap();
            if got.shape() != w.shape() {
                prop_assert!(mask.is_some(), "{} {axes:?} of {x}: {:?} vs {:?}", op.name(), got.shape(), w.shape());
                continue;
            }
            let (g, w) = (f64s(&got), f64s(&w));
            let mask = mask.unwrap_or_else(|| vec![1.0; g.len()]);
            prop_assert!(
                g.iter().zip(&w).zip(&mask).all(|((a, b), m)| *m == 0.0 || close(*a, *b)),
                "{} {axes:?} of {x}: {g:?} vs {w:?}", op.name()
            );
        }
    }
}

/// TF's fold of one position's values (`unsorted_segment_max`/`_min`): from the lowest /
/// highest finite value, `acc = if v < acc { acc } else { v }` (max; mirrored for min).
fn tf_fold(max: bool, values: impl Iterator<Item = f64>) -> f64 {
    let start = if max { f64::MIN } else { f64::MAX };
    values.fold(start, |acc, v| {
        let keep = if max { v < acc } else { v > acc };
        if keep { acc } else { v }
    })
}

/// Rows of rows of values combined position by position (`out[k][m]` folds `rows[j][k][m]`
/// over `j` in order), as TF's ragged reduction over the outer of two ragged axes.
fn fold_positions(max: bool, rows: &[&Vec<Vec<f64>>]) -> Vec<Vec<f64>> {
    let longest = rows.iter().map(|r| r.len()).max().unwrap_or(0);
    (0..longest)
        .map(|k| {
            let cells: Vec<&Vec<f64>> = rows.iter().filter_map(|r| r.get(k)).collect();
            let width = cells.iter().map(|c| c.len()).max().unwrap_or(0);
            (0..width)
                .map(|m| tf_fold(max, cells.iter().filter_map(|c| c.get(m).copied())))
                .collect()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Ragged rank 2, max and min over axis 0 and axis 1: TF's fold at each position, rows in
    /// order (NaN kept only when no later value replaces it, −inf alone giving the lowest
    /// finite value).
    #[test]
    fn ragged_rank_2_max_and_min_over_outer_axes_fold_as_tf(x in ragged2(), axis in 0isize..2) {
        let flat = f64s(x.flat_values());
        let splits: Vec<Vec<usize>> = x
            .nested_row_splits()
            .iter()
            .map(|s| f64s(&ops::cast_as(s, extype::DType::F64).unwrap()).iter().map(|&v| v as usize).collect())
            .collect();
        let nested: Vec<Vec<Vec<f64>>> = splits[0]
            .windows(2)
            .map(|o| {
                (o[0]..o[1])
                    .map(|r| flat[splits[1][r]..splits[1][r + 1]].to_vec())
                    .collect()
            })
            .collect();
        for (op, max) in [(&catalog::REDUCE_MAX, true), (&catalog::REDUCE_MIN, false)] {
            let want: Vec<Vec<f64>> = if axis == 0 {
                fold_positions(max, &nested.iter().collect::<Vec<_>>())
            } else {
                nested.iter().map(|row| {
                    let cells: Vec<&Vec<f64>> = row.iter().collect();
                    let width = cells.iter().map(|c| c.len()).max().unwrap_or(0);
                    (0..width)
                        .map(|m| tf_fold(max, cells.iter().filter_map(|c| c.get(m).copied())))
                        .collect()
                }).collect()
            };
            let got = ops::call(op, &[x.as_operand()], &OpArgs::axes(&[axis])).unwrap();
            let r = got.downcast::<RaggedTensor>().unwrap();
            let got_splits: Vec<usize> = f64s(&ops::cast_as(r.row_splits(), extype::DType::F64).unwrap())
                .iter()
                .map(|&v| v as usize)
                .collect();
            let got_rows: Vec<Vec<f64>> = got_splits
                .windows(2)
                .map(|w| f64s(r.flat_values())[w[0]..w[1]].to_vec())
                .collect();
            prop_assert_eq!(got_rows.len(), want.len(), "{} {} of {}", op.name(), axis, x);
            for (g, w) in got_rows.iter().zip(&want) {
                prop_assert!(
                    g.len() == w.len() && g.iter().zip(w).all(|(a, b)| close(*a, *b)),
                    "{} {} of {}: {:?} vs {:?}", op.name(), axis, x, got_rows, want
                );
            }
        }
    }
}

/// Python's `range(n)[start:stop]` (the rows TF's `rt[start:stop]` takes).
fn python_slice(n: usize, start: i64, stop: i64) -> Vec<usize> {
    let n = n as i64;
    let bound = |b: i64| if b < 0 { (b + n).max(0) } else { b.min(n) };
    (bound(start)..bound(stop)).map(|i| i as usize).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Rows, slices and nested lists agree with each other at ragged rank 1 (with an optional
    /// inner axis) and 2: `rows()` is `row(i)` for every `i` (and `row(i - nrows)`), each row
    /// holds the values its splits say, `slice_rows(a, b)` has the rows Python's slice takes,
    /// and `from_nested(to_list())` gives the tensor back (its lists, when an inner axis
    /// becomes one more ragged level). Compared as text: the values hold NaN.
    #[test]
    fn rows_slices_and_lists_agree(
        x in prop_oneof![ragged(), ragged2()],
        start in -7i64..7,
        stop in -7i64..7,
    ) {
        let n = x.nrows();
        let rows: Vec<String> = x.rows().map(|r| r.to_string()).collect();
        prop_assert_eq!(rows.len(), n);
        for (i, row) in rows.iter().enumerate() {
            prop_assert_eq!(&x.row(i as i64).unwrap().to_string(), row);
            prop_assert_eq!(&x.row(i as i64 - n as i64).unwrap().to_string(), row);
        }
        prop_assert!(x.row(n as i64).is_err());
        if x.ragged_rank() == 1 {
            let splits: Vec<i64> = x.row_splits().as_array::<i64, IxDyn>().unwrap().iter().copied().collect();
            let flat = x.flat_values();
            for (i, row) in x.unstack_rows().unwrap().iter().enumerate() {
                let (a, b) = (splits[i] as usize, splits[i + 1] as usize);
                let want = extype::batch::slice_rows(flat, a, b).unwrap();
                prop_assert_eq!(row.to_string(), want.to_string());
            }
        }
        let sliced = x.slice_rows(start, stop);
        let got: Vec<String> = sliced.rows().map(|r| r.to_string()).collect();
        let want: Vec<String> = python_slice(n, start, stop).into_iter().map(|i| rows[i].clone()).collect();
        prop_assert_eq!(got, want);
        let list = x.to_list::<f64>().unwrap();
        let back = RaggedTensor::from_nested(&list).unwrap();
        prop_assert_eq!(format!("{:?}", back.to_list::<f64>().unwrap()), format!("{:?}", list));
        if x.flat_values().ndim() == 1 && back.ragged_rank() == x.ragged_rank() {
            prop_assert_eq!(back.to_string(), x.to_string());
        }
    }
}
