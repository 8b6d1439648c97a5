//! Elementwise ops against scalar references on every layout, with broadcasting, special
//! values, every tail length and every instruction set.

mod common;

use common::*;
use extype_kernels::elementwise::{binary, unary};
use extype_kernels::{KernelError, simd};
use ndarray::{Array1, ArrayD, ArrayViewD, IxDyn};
use proptest::prelude::*;

fn ulps(a: f32, b: f32) -> u32 {
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() {
            0
        } else {
            u32::MAX
        };
    }
    if a == b {
        return 0;
    }
    let key = |x: f32| {
        let i = x.to_bits() as i32;
        if i < 0 {
            i32::MIN.wrapping_sub(i) as i64
        } else {
            i as i64
        }
    };
    (key(a) - key(b)).unsigned_abs().min(u32::MAX as u64) as u32
}

fn check_unary(v: &ArrayViewD<'_, f32>, what: &str) {
    let got = unary::exp(v);
    assert_eq!(got.shape(), v.shape());
    for (&g, &x) in got.iter().zip(v.iter()) {
        let want = (x as f64).exp() as f32;
        assert!(
            ulps(g, want) <= 2 || (want.abs() < 1e-37 && (g - want).abs() < 1e-44),
            "{what}: exp({x}) = {g}, want {want}"
        );
    }
    for (&g, &x) in unary::abs(v).iter().zip(v.iter()) {
        assert_eq!(g.to_bits(), x.abs().to_bits(), "{what}: abs");
    }
    for (&g, &x) in unary::neg(v).iter().zip(v.iter()) {
        assert_eq!(g.to_bits(), (-x).to_bits(), "{what}: neg");
    }
    for (&g, &x) in unary::sigmoid(v).iter().zip(v.iter()) {
        let want = (1.0 / (1.0 + (-(x as f64)).exp())) as f32;
        assert!(
            ulps(g, want) <= 4,
            "{what}: sigmoid({x}) = {g}, want {want}"
        );
    }
    for (&g, &x) in unary::round(v).iter().zip(v.iter()) {
        assert!(
            same_f64(g as f64, x.round_ties_even() as f64),
            "{what}: round"
        );
    }
    for (&g, &x) in unary::is_nan(v).iter().zip(v.iter()) {
        assert_eq!(g, x.is_nan());
    }
    for (&g, &x) in unary::is_finite(v).iter().zip(v.iter()) {
        assert_eq!(g, x.is_finite());
    }
    for (&g, &x) in unary::logical_not(v).iter().zip(v.iter()) {
        assert_eq!(g, x == 0.0);
    }
}

#[test]
fn unary_ops_match_reference_on_every_layout() {
    let mut rng = common::Rng(11);
    for case in 0..80 {
        let shape = shape(&mut rng, 4, 9);
        for layout in LAYOUTS {
            let made = make(layout, &shape, || (rng.float(case % 2 == 0) * 12.0) as f32);
            check_unary(&made.view(), &format!("case {case} {layout:?} {shape:?}"));
        }
    }
    // The whole f32 exp range, including overflow, underflow to subnormals and zero.
    let xs: Vec<f32> = (-2200..=2200)
        .map(|i| i as f32 * 0.05)
        .chain([88.72, 88.73, -87.5, -103.0, -104.5, -200.0])
        .collect();
    check_unary(&Array1::from(xs).into_dyn().view(), "exp range");
    // Other float ops and integer wrapping.
    let a = ndarray::array![[4.0f64, 2.25], [0.5, -1.0]];
    assert_eq!(unary::sqrt(&a)[[0, 1]], 1.5);
    assert!(unary::log(&a)[[1, 1]].is_nan());
    assert_eq!(unary::floor(&a)[[1, 0]], 0.0);
    assert_eq!(unary::ceil(&a)[[1, 0]], 1.0);
    assert_eq!(unary::sin(&a)[[0, 0]], 4.0f64.sin());
    assert_eq!(unary::cos(&a)[[0, 0]], 4.0f64.cos());
    assert_eq!(unary::tanh(&a)[[0, 0]], 4.0f64.tanh());
    let i = ndarray::array![i32::MIN, -3, 0, 7];
    assert_eq!(unary::abs(&i), ndarray::array![i32::MIN, 3, 0, 7]);
    assert_eq!(
        unary::neg(&ndarray::array![1u8, 0]),
        ndarray::array![255u8, 0]
    );
}

fn ref_binary(
    a: &ArrayViewD<'_, f32>,
    b: &ArrayViewD<'_, f32>,
    f: impl Fn(f32, f32) -> f32,
) -> ArrayD<f32> {
    let shape: Vec<usize> = {
        let n = a.ndim().max(b.ndim());
        (0..n)
            .map(|i| {
                let da = if i + a.ndim() >= n {
                    a.shape()[i + a.ndim() - n]
                } else {
                    1
                };
                let db = if i + b.ndim() >= n {
                    b.shape()[i + b.ndim() - n]
                } else {
                    1
                };
                if da == 1 { db } else { da }
            })
            .collect()
    };
    let (ab, bb) = (
        a.broadcast(IxDyn(&shape)).unwrap(),
        b.broadcast(IxDyn(&shape)).unwrap(),
    );
    let mut out = ArrayD::zeros(IxDyn(&shape));
    ndarray::Zip::from(&mut out)
        .and(&ab)
        .and(&bb)
        .for_each(|o, &x, &y| *o = f(x, y));
    out
}

fn assert_same(got: &ArrayD<f32>, want: &ArrayD<f32>, what: &str) {
    assert_eq!(got.shape(), want.shape(), "{what}");
    for (g, w) in got.iter().zip(want.iter()) {
        assert!(
            g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
            "{what}: {g} vs {w}"
        );
    }
}

/// Drops a random number of leading axes and sets random axes to 1, for broadcasting.
fn broadcast_partner(rng: &mut common::Rng, shape: &[usize]) -> Vec<usize> {
    let drop = rng.below(shape.len() + 1);
    shape[drop..]
        .iter()
        .map(|&d| if rng.below(3) == 0 { 1 } else { d })
        .collect()
}

#[test]
fn binary_ops_broadcast_like_numpy_on_every_layout() {
    let mut rng = common::Rng(12);
    for case in 0..80 {
        let shape_a = shape(&mut rng, 4, 7);
        let shape_b = broadcast_partner(&mut rng, &shape_a);
        let (shape_a, shape_b) = if rng.bool() {
            (shape_a, shape_b)
        } else {
            (shape_b, shape_a)
        };
        for layout in LAYOUTS {
            let ma = make(layout, &shape_a, || rng.float(case % 3 == 0) as f32);
            let mb = make(LAYOUTS[rng.below(5)], &shape_b, || {
                rng.float(case % 3 == 0) as f32
            });
            let (a, b) = (ma.view(), mb.view());
            let what = format!("case {case} {layout:?} {shape_a:?} {shape_b:?}");
            assert_same(
                &binary::add(&a, &b).unwrap(),
                &ref_binary(&a, &b, |x, y| x + y),
                &what,
            );
            assert_same(
                &binary::sub(&a, &b).unwrap(),
                &ref_binary(&a, &b, |x, y| x - y),
                &what,
            );
            assert_same(
                &binary::mul(&a, &b).unwrap(),
                &ref_binary(&a, &b, |x, y| x * y),
                &what,
            );
            assert_same(
                &binary::div(&a, &b).unwrap(),
                &ref_binary(&a, &b, |x, y| x / y),
                &what,
            );
            let nanmax = |x: f32, y: f32| {
                if x.is_nan() || y.is_nan() {
                    f32::NAN
                } else {
                    x.max(y)
                }
            };
            let got = binary::maximum(&a, &b).unwrap();
            let want = ref_binary(&a, &b, nanmax);
            for (g, w) in got.iter().zip(want.iter()) {
                assert!(same_f64(*g as f64, *w as f64), "{what}: maximum");
            }
            let lt = binary::lt(&a, &b).unwrap();
            let want = ref_binary(&a, &b, |x, y| (x < y) as u8 as f32);
            assert_eq!(lt.mapv(|b| b as u8 as f32), want, "{what}: lt");
            let eq = binary::eq(&a, &b).unwrap();
            let want = ref_binary(&a, &b, |x, y| (x == y) as u8 as f32);
            assert_eq!(eq.mapv(|b| b as u8 as f32), want, "{what}: eq");
            let xor = binary::logical_xor(&a, &b).unwrap();
            let want = ref_binary(&a, &b, |x, y| ((x != 0.0) ^ (y != 0.0)) as u8 as f32);
            assert_eq!(xor.mapv(|b| b as u8 as f32), want, "{what}: xor");
        }
    }
    let a = ArrayD::<f32>::zeros(IxDyn(&[2, 3]));
    let b = ArrayD::<f32>::zeros(IxDyn(&[2]));
    match binary::add(&a, &b) {
        Err(KernelError::Shape {
            op: "add",
            arg,
            expected,
            found,
        }) => {
            assert_eq!(
                (arg.as_str(), expected, found),
                ("argument 1", vec![2, 3], vec![2])
            );
        }
        other => panic!("expected a shape error, got {other:?}"),
    }
    // Integers wrap like NumPy.
    let x = ndarray::array![i32::MAX, 5];
    assert_eq!(
        binary::add(&x, &ndarray::array![1, 1])
            .unwrap()
            .into_dimensionality()
            .unwrap(),
        ndarray::array![i32::MIN, 6]
    );
    assert_eq!(
        binary::mul(&ndarray::array![200u8], &ndarray::array![2u8]).unwrap()[[0]],
        144
    );
    // Integer pow wraps; negative integer exponents are an error; true division gives f64.
    let p = binary::pow(
        &ndarray::array![3i32, 2, -2, 7],
        &ndarray::array![4i32, 31, 3, 0],
    )
    .unwrap();
    assert_eq!(p.as_slice().unwrap(), &[81, i32::MIN, -8, 1]);
    assert_eq!(
        binary::pow(&ndarray::array![3u8], &ndarray::array![5u8]).unwrap()[[0]],
        243u8
    );
    assert_eq!(
        binary::pow(&ndarray::array![2i64], &ndarray::array![64i64]).unwrap()[[0]],
        0
    );
    assert!(matches!(
        binary::pow(&ndarray::array![2i32], &ndarray::array![-1i32]),
        Err(KernelError::Argument { op: "pow", .. })
    ));
    assert_eq!(
        binary::pow(&ndarray::array![2.0f32], &ndarray::array![0.5f32]).unwrap()[[0]],
        2f32.sqrt()
    );
    assert_eq!(
        binary::div(&ndarray::array![7i32, -7], &ndarray::array![2i32, 0])
            .unwrap()
            .as_slice()
            .unwrap(),
        &[3.5, f64::NEG_INFINITY]
    );
}

#[test]
fn elementwise_results_do_not_depend_on_the_isa() {
    let _guard = ISA_LOCK.lock().unwrap();
    let mut rng = common::Rng(13);
    for n in (0..=192).chain([1000, 4097]) {
        let a = Array1::from(
            (0..n)
                .map(|_| (rng.float(true) * 11.0) as f32)
                .collect::<Vec<_>>(),
        );
        let b = Array1::from((0..n).map(|_| rng.float(true) as f32).collect::<Vec<_>>());
        let mut outs = Vec::new();
        for isa in simd::Isa::supported() {
            assert!(simd::force_isa(Some(isa)));
            // Every NaN compares equal (IEEE leaves NaN payload propagation unspecified).
            let bits = |x: ArrayD<f32>| {
                x.iter()
                    .map(|v| if v.is_nan() { u32::MAX } else { v.to_bits() })
                    .collect::<Vec<_>>()
            };
            outs.push((
                bits(unary::exp(&a).into_dyn()),
                bits(unary::sigmoid(&a).into_dyn()),
                bits(binary::add(&a, &b).unwrap()),
                bits(binary::maximum(&a, &b).unwrap()),
            ));
        }
        simd::force_isa(None);
        for o in &outs[1..] {
            assert!(o == &outs[0], "n={n}: ISA results differ");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn add_and_sum_agree_with_reference(seed in any::<u64>(), layout in 0usize..5, layout_b in 0usize..5) {
        let mut rng = common::Rng(seed);
        let shape_a = shape(&mut rng, 4, 12);
        let shape_b = broadcast_partner(&mut rng, &shape_a);
        let ma = make(LAYOUTS[layout], &shape_a, || rng.float(true) as f32);
        let mb = make(LAYOUTS[layout_b], &shape_b, || rng.float(true) as f32);
        let (a, b) = (ma.view(), mb.view());
        let got = binary::add(&a, &b).unwrap();
        let want = ref_binary(&a, &b, |x, y| x + y);
        prop_assert_eq!(got.shape(), want.shape());
        for (g, w) in got.iter().zip(want.iter()) {
            prop_assert!(g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()));
        }
        let s = extype_kernels::reduce::full::sum(&got) as f64;
        let r = ref_sum(got.iter().map(|&x| x as f64));
        let abs: f64 = got.iter().map(|&x| (x as f64).abs()).sum();
        prop_assert!(close(s, r, r.abs() + 64.0 * abs, f32::EPSILON as f64));
    }
}

/// The tests above compare levels only where the build has them: an optimised build compiles
/// every x86-64 level (SSE2 is x86-64's baseline, so it is always there), an unoptimised one
/// the portable level alone (`build.rs`). `cargo test --release -p extype-kernels` (in CI) is
/// the run that compares them; this checks that it does.
#[test]
fn an_optimised_build_has_every_level_the_cpu_has() {
    let optimised = !cfg!(debug_assertions);
    let levels = simd::Isa::supported();
    assert_eq!(levels[0], simd::Isa::Scalar);
    if cfg!(target_arch = "x86_64") && optimised {
        assert!(levels.contains(&simd::Isa::Sse2), "{levels:?}");
        assert_eq!(simd::active_isa(), *levels.last().unwrap());
    } else if !optimised {
        assert_eq!(levels, [simd::Isa::Scalar]);
        assert!(!simd::force_isa(Some(simd::Isa::Avx2)));
    }
}
