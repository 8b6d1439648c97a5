//! select, boolean-mask compaction, stack/concat, gather and cast against references.

mod common;

use common::*;
use extype_kernels::KernelError;
use extype_kernels::{cast, compact, gather, select, stack_concat};
use ndarray::{Array1, ArrayD, Axis, IxDyn, Zip};

#[test]
fn select_matches_reference_with_broadcasting() {
    let mut rng = Rng(21);
    for case in 0..60 {
        let shape = shape(&mut rng, 3, 9);
        let shape_c: Vec<usize> = shape
            .iter()
            .map(|&d| if rng.below(3) == 0 { 1 } else { d })
            .collect();
        for layout in LAYOUTS {
            let mc = make(LAYOUTS[rng.below(5)], &shape_c, || rng.bool());
            let mx = make(layout, &shape, || rng.float(true) as f32);
            let my = make(LAYOUTS[rng.below(5)], &shape, || rng.float(true) as f32);
            let (c, x, y) = (mc.view(), mx.view(), my.view());
            let got = select::select(&c, &x, &y).unwrap();
            let cb = c.broadcast(IxDyn(&shape)).unwrap();
            let mut want = ArrayD::<f32>::zeros(IxDyn(&shape));
            Zip::from(&mut want)
                .and(&cb)
                .and(&x)
                .and(&y)
                .for_each(|w, &c, &x, &y| *w = if c { x } else { y });
            assert_eq!(got.shape(), want.shape(), "case {case}");
            for (g, w) in got.iter().zip(want.iter()) {
                assert_eq!(g.to_bits(), w.to_bits(), "case {case} {layout:?}");
            }
        }
    }
    let bad = select::select(
        &ndarray::array![true, false, true],
        &ndarray::array![1.0f32, 2.0],
        &ndarray::array![0.0f32],
    );
    assert!(matches!(bad, Err(KernelError::Shape { .. })));
}

#[test]
fn boolean_mask_matches_reference() {
    let mut rng = Rng(22);
    for case in 0..60 {
        let shape = shape(&mut rng, 3, 70);
        let k = rng.below(shape.len() + 1);
        for layout in LAYOUTS {
            let mv = make(layout, &shape, || rng.next_u64() as i32);
            let mm = make(LAYOUTS[rng.below(5)], &shape[..k], || rng.bool());
            let (v, m) = (mv.view(), mm.view());
            let got = compact::boolean_mask(&v, &m).unwrap();
            let mut want = Vec::new();
            let inner: usize = shape[k..].iter().product();
            let flat: Vec<i32> = v.iter().copied().collect();
            for (i, &keep) in m.iter().enumerate() {
                if keep {
                    want.extend_from_slice(&flat[i * inner..(i + 1) * inner]);
                }
            }
            let mut want_shape = vec![m.iter().filter(|&&b| b).count()];
            want_shape.extend_from_slice(&shape[k..]);
            assert_eq!(got.shape(), &want_shape[..], "case {case} {layout:?}");
            assert_eq!(
                got.iter().copied().collect::<Vec<_>>(),
                want,
                "case {case} {layout:?}"
            );
        }
    }
    // Every tail length of the contiguous path.
    for n in 0..=200 {
        let v = Array1::from((0..n).map(|i| i as f32).collect::<Vec<_>>());
        let m = Array1::from((0..n).map(|i| i % 3 != 1).collect::<Vec<_>>());
        let got = compact::boolean_mask(&v, &m).unwrap();
        let want: Vec<f32> = (0..n).filter(|i| i % 3 != 1).map(|i| i as f32).collect();
        assert_eq!(got.as_slice().unwrap(), &want[..]);
    }
    let bad = compact::boolean_mask(
        &ndarray::array![[1, 2], [3, 4]],
        &ndarray::array![true, false, true],
    );
    assert!(matches!(bad, Err(KernelError::Shape { .. })));
}

#[test]
fn stack_concat_gather_match_reference() {
    let mut rng = Rng(23);
    for case in 0..40 {
        let shape = shape(&mut rng, 3, 6);
        let count = 1 + rng.below(4);
        let made: Vec<_> = (0..count)
            .map(|_| make(LAYOUTS[rng.below(5)], &shape, || rng.next_u64() as i64))
            .collect();
        let views: Vec<_> = made.iter().map(|m| m.view()).collect();
        for axis in 0..=shape.len() {
            let got = stack_concat::stack(axis as isize, &views).unwrap();
            let want = ndarray::stack(Axis(axis), &views).unwrap();
            assert_eq!(got, want, "case {case} stack axis {axis}");
        }
        if !shape.is_empty() {
            let axis = rng.below(shape.len());
            let got = stack_concat::concat(axis as isize, &views).unwrap();
            let want = ndarray::concatenate(Axis(axis), &views).unwrap();
            assert_eq!(got, want, "case {case} concat axis {axis}");
            let n = shape[axis] as i64;
            let idx: Vec<i64> = if n == 0 {
                vec![]
            } else {
                (0..7)
                    .map(|_| rng.below(2 * n as usize) as i64 - n)
                    .collect()
            };
            let got = gather::gather(&views[0], &idx, axis as isize).unwrap();
            let resolved: Vec<usize> = idx
                .iter()
                .map(|&i| if i < 0 { (i + n) as usize } else { i as usize })
                .collect();
            let want = views[0].select(Axis(axis), &resolved);
            assert_eq!(got, want, "case {case} gather axis {axis}");
            assert!(matches!(
                gather::gather(&views[0], &[n], axis as isize),
                Err(KernelError::IndexOutOfBounds { .. })
            ));
        }
    }
    let a = ArrayD::<f32>::zeros(IxDyn(&[2, 3]));
    let b = ArrayD::<f32>::zeros(IxDyn(&[2, 4]));
    assert!(stack_concat::stack(0, &[a.view(), b.view()]).is_err());
    assert_eq!(
        stack_concat::concat(1, &[a.view(), b.view()])
            .unwrap()
            .shape(),
        &[2, 7]
    );
    assert!(stack_concat::concat(0, &[a.view(), b.view()]).is_err());
    assert!(stack_concat::concat::<f32>(0, &[]).is_err());
    assert!(matches!(
        stack_concat::stack(3, &[a.view()]),
        Err(KernelError::AxisOutOfRange { .. })
    ));
    assert!(matches!(
        gather::gather(&a, &[0], 2),
        Err(KernelError::AxisOutOfRange { .. })
    ));
}

#[test]
fn casts_follow_documented_semantics() {
    let x = ndarray::array![[1.7f32, -2.5], [f32::NAN, 3e10]];
    assert_eq!(
        cast::cast::<f32, i32, _, _>(&x),
        ndarray::array![[1, -2], [0, i32::MAX]]
    );
    assert_eq!(
        cast::cast::<f32, bool, _, _>(&x),
        ndarray::array![[true, true], [true, true]]
    );
    assert_eq!(
        cast::cast::<i32, u8, _, _>(&ndarray::array![257, -1]),
        ndarray::array![1u8, 255]
    );
    assert_eq!(
        cast::cast::<bool, f64, _, _>(&ndarray::array![true, false]),
        ndarray::array![1.0, 0.0]
    );
    let t = ndarray::array![[1i64, 2], [3, 4]];
    assert_eq!(
        cast::cast::<i64, f32, _, _>(&t.t()),
        ndarray::array![[1.0f32, 3.0], [2.0, 4.0]]
    );
}

/// The direct-copy path of stack/concat (every input standard, joined where the inputs are
/// consecutive runs of the output) against ndarray: ranks 0–4, dimensions of length 0 and 1,
/// every axis, all-standard inputs and the same inputs with one non-contiguous view among them
/// (the general path); results must be standard layout.
#[test]
fn stack_concat_direct_path_matches_reference() {
    let shapes: &[&[usize]] = &[
        &[],
        &[5],
        &[0],
        &[1],
        &[2, 3],
        &[1, 4],
        &[3, 1],
        &[0, 3],
        &[1, 1, 3],
        &[2, 3, 4],
        &[1, 2, 0],
        &[1, 1, 2, 3],
        &[2, 1, 3, 2],
    ];
    let mut rng = Rng(41);
    for &shape in shapes {
        for count in 1..=3 {
            let made: Vec<_> = (0..count)
                .map(|_| make(Layout::C, shape, || rng.next_u64() as i64))
                .collect();
            let stepped = make(Layout::Stepped, shape, || rng.next_u64() as i64);
            let standard: Vec<_> = made.iter().map(|m| m.view()).collect();
            let mut mixed = standard.clone();
            mixed[count - 1] = stepped.view();
            for views in [&standard, &mixed] {
                for axis in 0..=shape.len() {
                    for a in [axis as isize, axis as isize - shape.len() as isize - 1] {
                        let got = stack_concat::stack(a, views).unwrap();
                        let want = ndarray::stack(Axis(axis), views).unwrap();
                        assert_eq!(got, want, "stack {shape:?} x{count} axis {a}");
                        assert!(got.is_standard_layout(), "stack {shape:?} axis {a}");
                    }
                }
                for axis in 0..shape.len() {
                    for a in [axis as isize, axis as isize - shape.len() as isize] {
                        let got = stack_concat::concat(a, views).unwrap();
                        let want = ndarray::concatenate(Axis(axis), views).unwrap();
                        assert_eq!(got, want, "concat {shape:?} x{count} axis {a}");
                        assert!(got.is_standard_layout(), "concat {shape:?} axis {a}");
                    }
                }
            }
        }
    }
    // Generic over the element type: bool and f32 through the same path.
    let t = ArrayD::from_shape_vec(IxDyn(&[2, 2]), vec![true, false, false, true]).unwrap();
    let got = stack_concat::stack(0, &[t.view(), t.view()]).unwrap();
    assert_eq!(got, ndarray::stack(Axis(0), &[t.view(), t.view()]).unwrap());
    let f = Array1::from(vec![1.5f32, -0.0, f32::NAN]).into_dyn();
    let got = stack_concat::concat(0, &[f.view(), f.view()]).unwrap();
    assert_eq!(got.len(), 6);
    assert!(got[[2]].is_nan() && got[[5]].is_nan() && got[[1]].to_bits() == (-0.0f32).to_bits());
    // Bad input stays an error on the direct path's shapes.
    let r0 = ArrayD::<f32>::zeros(IxDyn(&[]));
    assert!(stack_concat::concat(0, &[r0.view()]).is_err());
    assert!(stack_concat::stack(2, &[r0.view()]).is_err());
    assert!(stack_concat::stack(-2, &[r0.view()]).is_err());
}
