//! Reductions against scalar references on every layout, rank, tail length and special value.

mod common;

use common::*;
use extype_kernels::reduce::{axes, full, masked, segment};
use extype_kernels::{KernelError, simd};
use ndarray::{Array1, ArrayD, ArrayViewD, Axis, IxDyn};

const F32_EPS: f64 = f32::EPSILON as f64;

fn check_sum_f32(v: &ArrayViewD<'_, f32>, what: &str) {
    let got = full::sum(v) as f64;
    let want = ref_sum(v.iter().map(|&x| x as f64));
    let abs: f64 = v.iter().map(|&x| (x as f64).abs()).sum();
    // Documented first-order bound: u|s| + 70·u·Σ|x| (u = f32 epsilon), see the crate docs.
    let bound = F32_EPS * want.abs() + 70.0 * F32_EPS * abs;
    if want.is_nan() || want.is_infinite() {
        assert!(same_f64(got, want), "{what}: sum {got} vs {want}");
    } else {
        assert!(
            (got - want).abs() <= bound,
            "{what}: sum {got} vs {want} (bound {bound})"
        );
    }
}

#[test]
fn full_reductions_match_reference_on_every_layout() {
    let mut rng = Rng(1);
    for case in 0..120 {
        let shape = shape(&mut rng, 4, 9);
        let specials = case % 3 == 0;
        for layout in LAYOUTS {
            let made = make(layout, &shape, || rng.float(specials) as f32);
            let v = made.view();
            let what = format!("case {case} {layout:?} {shape:?}");
            check_sum_f32(&v, &what);
            let xs: Vec<f32> = v.iter().copied().collect();
            // max/min: NaN propagates, empty is an error.
            if xs.is_empty() {
                assert!(matches!(
                    full::max(&v),
                    Err(KernelError::EmptyReduction { .. })
                ));
                assert!(full::argmin(&v).is_err());
                assert!(full::mean(&v).is_nan());
            } else {
                let has_nan = xs.iter().any(|x| x.is_nan());
                let mx = xs
                    .iter()
                    .copied()
                    .filter(|x| !x.is_nan())
                    .fold(f32::NEG_INFINITY, f32::max);
                let mn = xs
                    .iter()
                    .copied()
                    .filter(|x| !x.is_nan())
                    .fold(f32::INFINITY, f32::min);
                let (gmax, gmin) = (full::max(&v).unwrap(), full::min(&v).unwrap());
                assert!(
                    if has_nan { gmax.is_nan() } else { gmax == mx },
                    "{what}: max {gmax} vs {mx}"
                );
                assert!(
                    if has_nan { gmin.is_nan() } else { gmin == mn },
                    "{what}: min {gmin} vs {mn}"
                );
                let first_nan = xs.iter().position(|x| x.is_nan());
                let amax = first_nan.unwrap_or_else(|| xs.iter().position(|&x| x == mx).unwrap());
                let amin = first_nan.unwrap_or_else(|| xs.iter().position(|&x| x == mn).unwrap());
                assert_eq!(full::argmax(&v).unwrap(), amax, "{what}: argmax");
                assert_eq!(full::argmin(&v).unwrap(), amin, "{what}: argmin");
            }
            assert_eq!(
                full::count_nonzero(&v),
                xs.iter().filter(|&&x| x != 0.0).count(),
                "{what}"
            );
            assert_eq!(full::any(&v), xs.iter().any(|&x| x != 0.0), "{what}");
            assert_eq!(full::all(&v), xs.iter().all(|&x| x != 0.0), "{what}");
            // Integers: exact, wrapping like NumPy.
            let mi = make(layout, &shape, || (rng.next_u64() as i32) >> 4);
            let vi = mi.view();
            let want: i64 = vi.iter().map(|&x| x as i64).fold(0i64, i64::wrapping_add);
            assert_eq!(full::sum(&vi), want, "{what}: i32 sum");
            let wantp = vi.iter().map(|&x| x as i64).fold(1i64, i64::wrapping_mul);
            assert_eq!(full::prod(&vi), wantp, "{what}: i32 prod");
            if !vi.is_empty() {
                assert_eq!(full::max(&vi).unwrap(), *vi.iter().max().unwrap());
                assert_eq!(full::min(&vi).unwrap(), *vi.iter().min().unwrap());
            }
            let mu = make(layout, &shape, || rng.next_u64() as u8);
            let vu = mu.view();
            assert_eq!(
                full::sum(&vu),
                vu.iter().map(|&x| x as u64).sum::<u64>(),
                "{what}: u8 sum"
            );
        }
    }
}

#[test]
fn every_tail_length_matches_on_every_isa() {
    let _guard = ISA_LOCK.lock().unwrap();
    let mut rng = Rng(2);
    // 0..=3×64 covers every tail of the 64 virtual lanes (and of every register width);
    // the larger lengths cross leaf boundaries (4096) with odd tails.
    let lens: Vec<usize> = (0..=192)
        .chain([4095, 4096, 4097, 3 * 4096 + 17, 9 * 4096 + 1])
        .collect();
    for &n in &lens {
        let xs: Vec<f32> = (0..n).map(|_| rng.float(n % 7 == 3) as f32).collect();
        let xd: Vec<f64> = (0..n).map(|_| rng.float(n % 5 == 2)).collect();
        let mask: Vec<bool> = (0..n).map(|_| rng.bool()).collect();
        let (a, ad, m) = (
            Array1::from(xs.clone()),
            Array1::from(xd),
            Array1::from(mask),
        );
        let mut results = Vec::new();
        // Bits, with every NaN mapped to one value: IEEE leaves NaN payload and sign
        // propagation unspecified (and LLVM commutes additions), so only "is NaN" is compared.
        let b32 = |x: f32| if x.is_nan() { u32::MAX } else { x.to_bits() };
        let b64 = |x: f64| if x.is_nan() { u64::MAX } else { x.to_bits() };
        for isa in simd::Isa::supported() {
            assert!(simd::force_isa(Some(isa)));
            results.push((
                isa,
                b32(full::sum(&a)),
                b64(full::sum(&ad)),
                full::max(&a).map(b32).ok(),
                full::min(&ad).map(b64).ok(),
                b32(masked::masked_sum(&a, &m).unwrap()),
                masked::masked_max(&ad, &m).map(b64).ok(),
                b32(full::prod(&a.mapv(|x| 1.0 + x / 64.0))),
            ));
        }
        simd::force_isa(None);
        for r in &results[1..] {
            let (isa, rest) = (r.0, (r.1, r.2, r.3, r.4, r.5, r.6, r.7));
            let first = &results[0];
            assert_eq!(
                rest,
                (
                    first.1, first.2, first.3, first.4, first.5, first.6, first.7
                ),
                "n={n}: {isa:?} differs from {:?}",
                first.0
            );
        }
        check_sum_f32(&a.view().into_dyn(), &format!("tail {n}"));
        let want_masked = ref_sum(
            xs.iter()
                .zip(m.iter())
                .filter(|(_, m)| **m)
                .map(|(&x, _)| x as f64),
        );
        let got = masked::masked_sum(&a, &m).unwrap() as f64;
        let abs: f64 = xs.iter().map(|x| (*x as f64).abs()).sum();
        assert!(
            close(got, want_masked, want_masked.abs() + 64.0 * abs, F32_EPS),
            "masked tail {n}: {got} vs {want_masked}"
        );
    }
}

#[test]
fn every_alignment_matches_on_every_isa() {
    // The AVX-512 path loads rows from the preceding 64-byte boundary and rotates its lanes
    // back; every start offset within a 64-byte line, with every tail, must give the bits of
    // the scalar reference (which never rotates). Values include ±0 (whose max/min tie is
    // decided by the fold order), NaN and ±inf.
    let _guard = ISA_LOCK.lock().unwrap();
    let mut rng = Rng(12);
    let lens: Vec<usize> = (0..=130)
        .chain([191, 192, 193, 4095, 4096, 4097, 2 * 4096 + 77])
        .collect();
    let max_len = *lens.iter().max().unwrap();
    let zeros = |rng: &mut Rng| if rng.bool() { 0.0 } else { -0.0 };
    let b32 = |x: f32| if x.is_nan() { u32::MAX } else { x.to_bits() };
    let b64 = |x: f64| if x.is_nan() { u64::MAX } else { x.to_bits() };
    for round in 0..3 {
        // Round 0: signed zeros only (ties everywhere); 1: plain values; 2: with specials.
        let buf32: Vec<f32> = (0..max_len + 16)
            .map(|_| {
                if round == 0 {
                    zeros(&mut rng) as f32
                } else {
                    rng.float(round == 2) as f32
                }
            })
            .collect();
        let buf64: Vec<f64> = (0..max_len + 8)
            .map(|_| {
                if round == 0 {
                    zeros(&mut rng)
                } else {
                    rng.float(round == 2)
                }
            })
            .collect();
        for &n in &lens {
            for off in 0..16 {
                let a = ndarray::ArrayView1::from(&buf32[off..off + n]);
                let ad = ndarray::ArrayView1::from(&buf64[off % 8..off % 8 + n]);
                let mut results = Vec::new();
                for isa in simd::Isa::supported() {
                    assert!(simd::force_isa(Some(isa)));
                    results.push((
                        isa,
                        (
                            b32(full::sum(&a)),
                            full::max(&a).map(b32).ok(),
                            full::min(&a).map(b32).ok(),
                            b64(full::sum(&ad)),
                            full::max(&ad).map(b64).ok(),
                            full::min(&ad).map(b64).ok(),
                            b64(full::prod(&ad.mapv(|x| 1.0 + x / 64.0))),
                            full::argmax(&a).ok(),
                        ),
                    ));
                }
                simd::force_isa(None);
                for r in &results[1..] {
                    assert_eq!(
                        r.1, results[0].1,
                        "round {round} n={n} offset {off}: {:?} differs from {:?}",
                        r.0, results[0].0
                    );
                }
            }
        }
    }
}

#[test]
fn argmax_finds_the_first_extreme_across_leaves() {
    // argmax/argmin find the leftmost leaf holding the extreme in one pass and scan only it:
    // check ties across leaves, ±0 ties, NaN, -inf-only data and a parallel-sized input.
    let scan = |xs: &[f32], is_max: bool| {
        if let Some(i) = xs.iter().position(|x| x.is_nan()) {
            return i;
        }
        let mut best = 0;
        for (i, &x) in xs.iter().enumerate() {
            if (is_max && x > xs[best]) || (!is_max && x < xs[best]) {
                best = i;
            }
        }
        best
    };
    let mut rng = Rng(13);
    for n in [1, 4095, 4096, 4097, 5 * 4096 + 3, (1 << 22) + 5] {
        let base: Vec<f32> = (0..n).map(|_| rng.float(false) as f32).collect();
        let mut cases: Vec<Vec<f32>> = vec![base.clone()];
        let mut tie = base.clone();
        for i in [n / 7, n / 3, n - 1] {
            tie[i] = 100.0;
            tie[n - 1 - i] = -100.0;
        }
        cases.push(tie);
        let mut zeros = vec![0.0f32; n];
        for i in (0..n).step_by(3) {
            zeros[i] = -0.0;
        }
        cases.push(zeros);
        let mut nan = base.clone();
        nan[n - 1] = f32::NAN;
        nan[n / 2] = f32::NAN;
        cases.push(nan);
        cases.push(vec![f32::NEG_INFINITY; n]);
        for xs in cases {
            let a = Array1::from(xs.clone());
            assert_eq!(full::argmax(&a).unwrap(), scan(&xs, true), "n={n}");
            assert_eq!(full::argmin(&a).unwrap(), scan(&xs, false), "n={n}");
        }
    }
}

#[test]
fn short_and_long_segments_match_on_every_isa() {
    // Segments shorter than `reduce::SHORT` take the 16-lane path, longer ones the leaf tree;
    // both must give the same bits on every instruction set, within the documented bound.
    let _guard = ISA_LOCK.lock().unwrap();
    let mut rng = Rng(14);
    let mut splits = vec![0i64];
    for len in (0..=300).chain([511, 4096, 4097, 5000]) {
        splits.push(splits.last().unwrap() + len as i64);
    }
    let n = *splits.last().unwrap() as usize;
    let xs: Vec<f32> = (0..n).map(|_| rng.float(false) as f32).collect();
    let xd: Vec<f64> = (0..n).map(|_| rng.float(false)).collect();
    let (a, ad) = (Array1::from(xs.clone()), Array1::from(xd.clone()));
    let bits = |v: ArrayD<f32>, w: ArrayD<f64>| {
        (
            v.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            w.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        )
    };
    let mut results = Vec::new();
    for isa in simd::Isa::supported() {
        assert!(simd::force_isa(Some(isa)));
        let s32 = segment::segment_sum(&a, &splits).unwrap();
        let s64 = segment::segment_sum(&ad, &splits).unwrap();
        results.push((isa, bits(s32, s64)));
    }
    simd::force_isa(None);
    for r in &results[1..] {
        assert_eq!(
            r.1, results[0].1,
            "{:?} differs from {:?}",
            r.0, results[0].0
        );
    }
    let got = segment::segment_sum(&a, &splits).unwrap();
    for (i, w) in splits.windows(2).enumerate() {
        let seg = &xs[w[0] as usize..w[1] as usize];
        let want = ref_sum(seg.iter().map(|&x| x as f64));
        let abs: f64 = seg.iter().map(|&x| (x as f64).abs()).sum();
        let g = got[[i]] as f64;
        assert!(
            (g - want).abs() <= F32_EPS * want.abs() + 70.0 * F32_EPS * abs,
            "segment {i} (len {}): {g} vs {want}",
            seg.len()
        );
    }
}

#[test]
fn grouped_short_segments_match_the_row_by_row_reference() {
    // Rows of 0..=40 values, a quarter empty, with NaN, ±inf and -0.0: on AVX-512, groups of 16
    // rows of at most 32 values are summed together (a group with a longer row goes row by
    // row). Every level and both chunkings (one chunk on one thread; several chunks on four
    // threads) must give the bits of the Scalar level on one thread, which sums row by row, and
    // each sum must be within the documented bound of the exact one.
    let _guard = ISA_LOCK.lock().unwrap();
    let mut rng = Rng(21);
    for (case, rows) in [0usize, 1, 15, 16, 17, 33, 40_000].into_iter().enumerate() {
        let mut splits = vec![0i64];
        for _ in 0..rows {
            let len = match rng.below(8) {
                0 | 1 => 0,
                2 => 33 + rng.below(8),
                _ => rng.below(33),
            };
            splits.push(splits.last().unwrap() + len as i64);
        }
        let n = *splits.last().unwrap() as usize;
        let xs: Vec<f32> = (0..n).map(|_| rng.float(case % 2 == 0) as f32).collect();
        let a = Array1::from(xs.clone());
        let bits = |v: ArrayD<f32>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let run = || {
            let sums = segment::segment_sum(&a, &splits).unwrap();
            let means = segment::segment_mean(&a, &splits).unwrap();
            (sums, means)
        };
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let four = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        assert!(simd::force_isa(Some(simd::Isa::Scalar)));
        let (want_sums, want_means) = one.install(run);
        for isa in simd::Isa::supported() {
            assert!(simd::force_isa(Some(isa)));
            // Split from 64 KiB: the 40 000-row case then runs in several chunks (only speed
            // depends on the threshold, so concurrent tests are unaffected).
            extype_kernels::parallel::set_parallel_min_bytes(64 << 10);
            let par = four.install(run);
            extype_kernels::parallel::set_parallel_min_bytes(
                extype_kernels::parallel::PAR_MIN_BYTES,
            );
            for (what, (s, m)) in [("serial", one.install(run)), ("parallel", par)] {
                let (gs, ws) = (bits(s), bits(want_sums.clone()));
                for (i, (g, w)) in gs.iter().zip(&ws).enumerate() {
                    let (g, w) = (f32::from_bits(*g), f32::from_bits(*w));
                    assert!(
                        (g.is_nan() && w.is_nan()) || g.to_bits() == w.to_bits(),
                        "case {case} {isa:?} {what} row {i}: sum {g} vs {w}"
                    );
                }
                for (i, (g, w)) in m.iter().zip(want_means.iter()).enumerate() {
                    assert!(
                        (g.is_nan() && w.is_nan()) || g.to_bits() == w.to_bits(),
                        "case {case} {isa:?} {what} row {i}: mean {g} vs {w}"
                    );
                }
            }
        }
        simd::force_isa(None);
        for (i, w) in splits.windows(2).enumerate() {
            let seg = &xs[w[0] as usize..w[1] as usize];
            let want = ref_sum(seg.iter().map(|&x| x as f64));
            let abs: f64 = seg.iter().map(|&x| (x as f64).abs()).sum();
            let g = want_sums[[i]] as f64;
            if want.is_nan() || want.is_infinite() {
                assert!(same_f64(g, want), "case {case} row {i}: {g} vs {want}");
            } else {
                assert!(
                    (g - want).abs() <= F32_EPS * want.abs() + 70.0 * F32_EPS * abs,
                    "case {case} row {i} (len {}): {g} vs {want}",
                    seg.len()
                );
            }
            if seg.is_empty() {
                assert!(want_means[[i]].is_nan(), "case {case} row {i}: empty mean");
            }
        }
    }
}

#[test]
fn faulty_splits_inside_groups_are_named_as_by_the_full_check() {
    // The flat sum and mean check each row in their pass over the values; a fault anywhere,
    // in a group of 16 short rows or not, gives the error of the full check (which the 2-D
    // path and max run first), naming the first faulty split.
    let mut rng = Rng(22);
    let mut good = vec![0i64];
    for _ in 0..100 {
        good.push(good.last().unwrap() + rng.below(20) as i64);
    }
    let n = *good.last().unwrap();
    let xs = Array1::from((0..n).map(|i| i as f32).collect::<Vec<_>>());
    let col = xs.clone().into_shape_with_order((n as usize, 1)).unwrap();
    // (index, value) pairs written over the good splits.
    let faults: [&[(usize, i64)]; 5] = [
        &[(40, good[39] - 1)],
        &[(50, n + 5)],
        &[(20, -3)],
        &[(99, good[98] - 1)],
        // A long row (no grouped form for its group), then a decreasing split.
        &[(17, good[16] + 40), (18, good[16] + 1)],
    ];
    for (k, fault) in faults.iter().enumerate() {
        let mut bad = good.clone();
        for &(i, v) in *fault {
            bad[i] = v;
        }
        let want = segment::segment_sum(&col, &bad).unwrap_err().to_string();
        assert!(want.contains("row_splits["), "fault {k}: {want}");
        let got = segment::segment_sum(&xs, &bad).unwrap_err().to_string();
        assert_eq!(got, want, "fault {k}");
        let got = segment::segment_mean(&xs, &bad).unwrap_err().to_string();
        assert_eq!(
            got,
            want.replace("segment_sum", "segment_mean"),
            "fault {k}"
        );
    }
    assert!(segment::segment_sum(&xs, &good).is_ok());
}

#[test]
fn axes_reductions_match_reference() {
    let mut rng = Rng(3);
    for case in 0..60 {
        let shape = shape(&mut rng, 4, 6);
        let ndim = shape.len();
        for layout in LAYOUTS {
            let made = make(layout, &shape, || rng.float(case % 4 == 0));
            let v = made.view();
            // Random axis subset, possibly negative.
            let mut axes: Vec<isize> = Vec::new();
            for a in 0..ndim {
                if rng.bool() {
                    axes.push(if rng.bool() {
                        a as isize - ndim as isize
                    } else {
                        a as isize
                    });
                }
            }
            let keep = rng.bool();
            let what = format!("case {case} {layout:?} {shape:?} axes {axes:?} keep {keep}");
            let got = axes::sum_axes(&v, &axes, keep).unwrap();
            let norm: Vec<usize> = axes
                .iter()
                .map(|&a| {
                    if a < 0 {
                        (a + ndim as isize) as usize
                    } else {
                        a as usize
                    }
                })
                .collect();
            let want = reference_axes(&v, &norm, keep, |xs| ref_sum(xs.iter().copied()));
            assert_eq!(got.shape(), want.shape(), "{what}");
            for (g, w) in got.iter().zip(want.iter()) {
                assert!(close(*g, *w, w.abs() + 1.0, 1e-12), "{what}: {g} vs {w}");
            }
            let count: usize = norm.iter().map(|&a| shape[a]).product();
            match axes::max_axes(&v, &axes, keep) {
                Ok(got) => {
                    let want = reference_axes(&v, &norm, keep, |xs| {
                        if xs.iter().any(|x| x.is_nan()) {
                            f64::NAN
                        } else {
                            xs.iter().copied().fold(f64::NEG_INFINITY, f64::max)
                        }
                    });
                    for (g, w) in got.iter().zip(want.iter()) {
                        assert!(same_f64(*g, *w), "{what}: max {g} vs {w}");
                    }
                }
                Err(e) => assert!(count == 0, "{what}: {e}"),
            }
            if count > 0 {
                let got = axes::argmax_axes(&v, &axes, keep).unwrap();
                let want = reference_axes(&v, &norm, keep, |xs| {
                    xs.iter().position(|x| x.is_nan()).unwrap_or_else(|| {
                        let m = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                        xs.iter().position(|&x| x == m).unwrap()
                    }) as f64
                });
                for (g, w) in got.iter().zip(want.iter()) {
                    assert_eq!(*g as f64, *w, "{what}: argmax");
                }
            }
            let got = axes::mean_axes(&v, &axes, keep).unwrap();
            let want = reference_axes(&v, &norm, keep, |xs| {
                ref_sum(xs.iter().copied()) / xs.len() as f64
            });
            for (g, w) in got.iter().zip(want.iter()) {
                assert!(
                    close(*g, *w, w.abs() + 1.0, 1e-12),
                    "{what}: mean {g} vs {w}"
                );
            }
            let got = axes::count_nonzero_axes(&v, &axes, keep).unwrap();
            let want = reference_axes(&v, &norm, keep, |xs| {
                xs.iter().filter(|&&x| x != 0.0).count() as f64
            });
            assert_eq!(got.mapv(|c| c as f64), want, "{what}: count_nonzero");
            let got = axes::any_axes(&v, &axes, keep).unwrap();
            let want = reference_axes(&v, &norm, keep, |xs| {
                xs.iter().any(|&x| x != 0.0) as u8 as f64
            });
            assert_eq!(got.mapv(|b| b as u8 as f64), want, "{what}: any");
            let got = axes::all_axes(&v, &axes, keep).unwrap();
            let want = reference_axes(&v, &norm, keep, |xs| {
                xs.iter().all(|&x| x != 0.0) as u8 as f64
            });
            assert_eq!(got.mapv(|b| b as u8 as f64), want, "{what}: all");
            let got = axes::prod_axes(&v, &axes, keep).unwrap();
            let want = reference_axes(&v, &norm, keep, |xs| xs.iter().product());
            for (g, w) in got.iter().zip(want.iter()) {
                assert!(close(*g, *w, w.abs(), 1e-12), "{what}: prod {g} vs {w}");
            }
            if count > 0 {
                let got = axes::min_axes(&v, &axes, keep).unwrap();
                let want = reference_axes(&v, &norm, keep, |xs| {
                    if xs.iter().any(|x| x.is_nan()) {
                        f64::NAN
                    } else {
                        xs.iter().copied().fold(f64::INFINITY, f64::min)
                    }
                });
                for (g, w) in got.iter().zip(want.iter()) {
                    assert!(same_f64(*g, *w), "{what}: min {g} vs {w}");
                }
                let got = axes::argmin_axes(&v, &axes, keep).unwrap();
                let want = reference_axes(&v, &norm, keep, |xs| {
                    xs.iter().position(|x| x.is_nan()).unwrap_or_else(|| {
                        let m = xs.iter().copied().fold(f64::INFINITY, f64::min);
                        xs.iter().position(|&x| x == m).unwrap()
                    }) as f64
                });
                assert_eq!(got.mapv(|i| i as f64), want, "{what}: argmin");
            }
            // Masked sum and max over the same axes with a random mask of the same layout kind.
            let mmask = make(layout, &shape, || rng.below(3) != 0);
            let m = mmask.view();
            let got = masked::masked_sum_axes(&v, &m, &axes, keep).unwrap();
            let zeroed = ndarray::Zip::from(&v)
                .and(&m)
                .map_collect(|&x, &k| if k { x } else { 0.0 });
            let want = reference_axes(&zeroed.view(), &norm, keep, |xs| {
                ref_sum(xs.iter().copied())
            });
            for (g, w) in got.iter().zip(want.iter()) {
                assert!(
                    close(*g, *w, w.abs() + 1.0, 1e-12),
                    "{what}: masked sum {g} vs {w}"
                );
            }
            let got = masked::masked_count_axes(&v, &m, &axes, keep).unwrap();
            let ones = m.mapv(|k| k as u8 as f64);
            let want = reference_axes(&ones.view(), &norm, keep, |xs| xs.iter().sum());
            assert_eq!(got.mapv(|c| c as f64), want, "{what}: masked count");
        }
    }
}

/// Reference reduction over `axes`: gather each output's elements in C order of the reduced axes.
fn reference_axes(
    v: &ArrayViewD<'_, f64>,
    axes: &[usize],
    keep: bool,
    f: impl Fn(&[f64]) -> f64,
) -> ArrayD<f64> {
    let ndim = v.ndim();
    let kept: Vec<usize> = (0..ndim).filter(|a| !axes.contains(a)).collect();
    let kept_shape: Vec<usize> = kept.iter().map(|&a| v.shape()[a]).collect();
    let mut out = ArrayD::from_shape_fn(IxDyn(&kept_shape), |idx| {
        let mut sub = v.view();
        for (k, &a) in kept.iter().enumerate().rev() {
            sub = sub.index_axis_move(Axis(a), idx[k]);
        }
        let xs: Vec<f64> = sub.iter().copied().collect();
        f(&xs)
    });
    if keep {
        for &a in axes {
            out.insert_axis_inplace(Axis(a));
        }
    }
    out
}

#[test]
fn masked_reductions_match_reference() {
    let mut rng = Rng(4);
    for case in 0..80 {
        let shape = shape(&mut rng, 3, 40);
        for layout in LAYOUTS {
            let made = make(layout, &shape, || rng.float(case % 3 == 0) as f32);
            let mmask = make(LAYOUTS[rng.below(5)], &shape, || rng.below(3) != 0);
            let (v, m) = (made.view(), mmask.view());
            let what = format!("case {case} {layout:?} {shape:?}");
            let sel: Vec<f64> = v
                .iter()
                .zip(m.iter())
                .filter(|(_, m)| **m)
                .map(|(&x, _)| x as f64)
                .collect();
            let want = ref_sum(sel.iter().copied());
            let got = masked::masked_sum(&v, &m).unwrap() as f64;
            let abs: f64 = sel.iter().map(|x| x.abs()).sum();
            assert!(
                close(got, want, want.abs() + 64.0 * abs, F32_EPS),
                "{what}: {got} vs {want}"
            );
            assert_eq!(masked::masked_count(&v, &m).unwrap(), sel.len());
            match masked::masked_max(&v, &m) {
                Ok(g) => {
                    assert!(!sel.is_empty(), "{what}: masked max of nothing");
                    let w = if sel.iter().any(|x| x.is_nan()) {
                        f64::NAN
                    } else {
                        sel.iter().copied().fold(f64::NEG_INFINITY, f64::max)
                    };
                    assert!(same_f64(g as f64, w), "{what}: masked max {g} vs {w}");
                }
                Err(_) => assert!(sel.is_empty(), "{what}"),
            }
            let mean = masked::masked_mean(&v, &m).unwrap() as f64;
            assert!(
                close(mean, want / sel.len() as f64, 1.0 + abs, F32_EPS * 8.0)
                    || sel.is_empty() && mean.is_nan(),
                "{what}: mean"
            );
        }
    }
    // A broadcast mask over rows, and a masked-off NaN that must be ignored.
    let v = ndarray::array![[1.0f32, f32::NAN, 3.0], [4.0, 5.0, 6.0]];
    let m = ndarray::array![true, false, true];
    assert_eq!(masked::masked_sum(&v, &m).unwrap(), 14.0);
    assert_eq!(masked::masked_max(&v, &m).unwrap(), 6.0);
    // Max/min count the mask only when the result is the identity: a selected ±inf equal to
    // the identity is a result, selecting nothing is an error (also past one leaf).
    for n in [3, 5000] {
        let mut x = vec![1.0f32; n];
        x[n - 2] = f32::NEG_INFINITY;
        x[n - 1] = f32::INFINITY;
        let mut sel = vec![false; n];
        sel[n - 2] = true;
        let (x, sel, none) = (
            Array1::from(x),
            Array1::from(sel),
            Array1::from(vec![false; n]),
        );
        assert_eq!(masked::masked_max(&x, &sel).unwrap(), f32::NEG_INFINITY);
        assert!(masked::masked_max(&x, &none).is_err());
        assert!(masked::masked_min(&x, &none).is_err());
        let only_inf = Array1::from((0..n).map(|i| i == n - 1).collect::<Vec<_>>());
        assert_eq!(masked::masked_min(&x, &only_inf).unwrap(), f32::INFINITY);
        let xi = x.mapv(|v| if v.is_finite() { 1i32 } else { i32::MIN });
        assert_eq!(masked::masked_max(&xi, &sel).unwrap(), i32::MIN);
        assert!(masked::masked_max(&xi, &none).is_err());
    }
    assert_eq!(
        masked::masked_sum_axes(&v, &m, &[1], false).unwrap(),
        ndarray::arr1(&[4.0f32, 10.0]).into_dyn()
    );
    assert!(matches!(
        masked::masked_sum(&v, &ndarray::array![true, false]),
        Err(KernelError::Shape { .. })
    ));
}

#[test]
fn segment_reductions_match_reference() {
    let mut rng = Rng(5);
    for case in 0..40 {
        let nseg = rng.below(6);
        let mut splits = vec![0i64];
        for _ in 0..nseg {
            let len = if rng.below(4) == 0 { 0 } else { rng.below(300) };
            splits.push(splits.last().unwrap() + len as i64);
        }
        let n = *splits.last().unwrap() as usize;
        let inner = rng.below(3);
        let shape: Vec<usize> = if inner == 0 { vec![n] } else { vec![n, inner] };
        for layout in [Layout::C, Layout::F, Layout::Stepped, Layout::Reversed] {
            let made = make(layout, &shape, || rng.float(case % 5 == 0));
            let v = made.view();
            let got = segment::segment_sum(&v, &splits).unwrap();
            let maxes = segment::segment_max(&v, &splits);
            for (s, w) in splits.windows(2).enumerate() {
                let rows =
                    v.slice_axis(Axis(0), ndarray::Slice::from(w[0] as usize..w[1] as usize));
                let want = reference_axes(&rows, &[0], false, |xs| ref_sum(xs.iter().copied()));
                for (g, w) in got.index_axis(Axis(0), s).iter().zip(want.iter()) {
                    assert!(
                        close(*g, *w, w.abs() + 1.0, 1e-12),
                        "case {case} {layout:?} seg {s}: {g} vs {w}"
                    );
                }
            }
            let any_empty = splits.windows(2).any(|w| w[0] == w[1]);
            assert_eq!(maxes.is_err(), any_empty, "case {case}");
        }
    }
    let v = Array1::from(vec![1.0f32, 2.0, 3.0]);
    for bad in [&[][..], &[1, 3], &[0, 2, 1, 3], &[0, 2], &[0, 4]] {
        assert!(
            matches!(
                segment::segment_sum(&v, bad),
                Err(KernelError::RowSplits { .. })
            ),
            "{bad:?}"
        );
    }
    assert_eq!(
        segment::segment_mean(&v, &[0, 0, 3])
            .unwrap()
            .as_slice()
            .unwrap()[1],
        2.0
    );
    assert!(segment::segment_mean(&v, &[0, 0, 3]).unwrap()[[0]].is_nan());
}

#[test]
fn reduction_errors_name_the_problem() {
    let a = ArrayD::<f32>::zeros(IxDyn(&[2, 3]));
    assert!(matches!(
        axes::sum_axes(&a, &[2], false),
        Err(KernelError::AxisOutOfRange {
            axis: 2,
            ndim: 2,
            ..
        })
    ));
    assert!(matches!(
        axes::sum_axes(&a, &[1, -1], false),
        Err(KernelError::DuplicateAxis { axis: 1, .. })
    ));
    let e = ArrayD::<f32>::zeros(IxDyn(&[0, 3]));
    assert!(axes::max_axes(&e, &[0], false).is_err());
    assert_eq!(axes::max_axes(&e, &[1], false).unwrap().shape(), &[0]);
    assert_eq!(full::sum(&e), 0.0);
    let msg = full::max(&e).unwrap_err().to_string();
    assert!(msg.contains("max"), "{msg}");
}

#[test]
fn serial_and_parallel_sums_are_bit_identical() {
    let mut rng = Rng(6);
    let n = (1 << 20) + 12345;
    let a = Array1::from((0..n).map(|_| rng.unit() as f32).collect::<Vec<_>>());
    let m = Array1::from((0..n).map(|_| rng.bool()).collect::<Vec<_>>());
    let b = Array1::from((0..n).map(|_| rng.unit() as f32).collect::<Vec<_>>());
    let half = Array1::from((0..n).map(|i| i >= n / 2).collect::<Vec<_>>());
    let splits: Vec<i64> = (0..=n as i64).step_by(1000).chain([n as i64]).collect();
    let run = || {
        (
            full::sum(&a),
            masked::masked_sum(&a, &m).unwrap(),
            full::max(&a).unwrap(),
            extype_kernels::elementwise::binary::add(&a, &b).unwrap(),
            segment::segment_sum(&a, &splits).unwrap(),
            extype_kernels::compact::boolean_mask(&a, &m).unwrap(),
            // Whole chunks selecting nothing, then everything.
            extype_kernels::compact::boolean_mask(&a, &half).unwrap(),
        )
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let serial = pool.install(run);
    // Split at 64 KiB so this 4 MiB input takes the parallel paths (the default threshold is
    // far larger); only speed depends on the threshold, so concurrent tests are unaffected.
    extype_kernels::parallel::set_parallel_min_bytes(64 << 10);
    let pool4 = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    let parallel = pool4.install(run);
    extype_kernels::parallel::set_parallel_min_bytes(extype_kernels::parallel::PAR_MIN_BYTES);
    assert_eq!(serial.3, parallel.3);
    assert_eq!(serial.4, parallel.4);
    assert_eq!(serial.5, parallel.5);
    assert_eq!(serial.6, parallel.6);
    let want: Vec<f32> = a
        .iter()
        .zip(m.iter())
        .filter(|(_, m)| **m)
        .map(|(&x, _)| x)
        .collect();
    assert_eq!(parallel.5.as_slice().unwrap(), &want[..]);
    assert_eq!(
        parallel.6.as_slice().unwrap(),
        &a.as_slice().unwrap()[n / 2..]
    );
    assert_eq!(serial.0.to_bits(), parallel.0.to_bits());
    assert_eq!(serial.1.to_bits(), parallel.1.to_bits());
    assert_eq!(serial.2, parallel.2);
}

#[test]
fn f32_sum_relative_error_is_below_1e7() {
    // 1 Mi by default (debug builds); the 64 Mi version is `f32_sum_accuracy_64mi` (ignored).
    sum_accuracy(1 << 20);
}

#[test]
#[ignore = "64 Mi elements: slow in debug builds; run with --release -- --ignored"]
fn f32_sum_accuracy_64mi() {
    sum_accuracy(64 << 20);
}

fn sum_accuracy(n: usize) {
    let mut rng = Rng(7);
    let xs: Vec<f32> = (0..n).map(|_| rng.unit() as f32).collect();
    let want = ref_sum(xs.iter().map(|&x| x as f64));
    let got = full::sum(&Array1::from(xs)) as f64;
    let rel = ((got - want) / want).abs();
    eprintln!("f32 sum of {n} uniform [0,1) values: relative error {rel:e}");
    assert!(rel <= 1e-7, "relative error {rel:e}");
}

#[test]
fn leading_axes_reductions_cross_row_blocks_and_column_tiles() {
    // 300 rows (several 64-row blocks, uneven tree) × 2500 columns (two 2048-column tiles).
    let mut rng = Rng(8);
    let a = ArrayD::from_shape_fn(IxDyn(&[300, 2500]), |_| rng.float(false));
    let got = axes::sum_axes(&a, &[0], false).unwrap();
    let want = reference_axes(&a.view(), &[0], false, |xs| ref_sum(xs.iter().copied()));
    for (g, w) in got.iter().zip(want.iter()) {
        assert!(close(*g, *w, w.abs() + 1.0, 1e-12), "{g} vs {w}");
    }
    let got = axes::max_axes(&a, &[0], true).unwrap();
    assert_eq!(got.shape(), &[1, 2500]);
    let want = reference_axes(&a.view(), &[0], true, |xs| {
        xs.iter().copied().fold(f64::NEG_INFINITY, f64::max)
    });
    assert_eq!(got, want);
    let b = ArrayD::from_shape_fn(IxDyn(&[70, 5, 9]), |_| rng.float(true) as f32);
    let got = axes::sum_axes(&b, &[0, 1], false).unwrap();
    let want = reference_axes(&b.mapv(|x| x as f64).view(), &[0, 1], false, |xs| {
        ref_sum(xs.iter().copied())
    });
    for (g, w) in got.iter().zip(want.iter()) {
        assert!(
            close(*g as f64, *w, w.abs() + 1.0, 1e-5) || (g.is_nan() && w.is_nan()),
            "{g} vs {w}"
        );
    }
}
