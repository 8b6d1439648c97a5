//! Stack/concat of two halves of an `f32` array (as in the benchmark; 4 Ki elements unless a
//! count is given) against allocate-and-copy of the same bytes, measured interleaved: each of
//! 201 rounds times every variant in turn (1000 calls each at 4 Ki, fewer for larger arrays), so
//! load on the shared machine hits all variants alike. Prints medians and each variant's speed
//! as a percentage of `to_vec`'s.
//!
//! `cargo run --release -p extype-kernels --example join_vs_copy [-- ELEMENTS]`

use std::hint::black_box;
use std::time::Instant;

use extype_kernels::stack_concat;
use ndarray::{Array1, ArrayD, Axis, IxDyn, s};

type Variant<'a> = (&'static str, Box<dyn FnMut() + 'a>);

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .map_or(4096, |a| a.parse().expect("an element count"));
    let calls = (4_000_000 / n).clamp(1, 1000);
    let a = Array1::from((0..n).map(|i| i as f32).collect::<Vec<_>>());
    let (ha, hb) = (a.slice(s![..n / 2]), a.slice(s![n / 2..]));
    let halves = [ha.into_dyn(), hb.into_dyn()];
    let all = a.as_slice().unwrap();
    let (s1, s2) = (ha.to_slice().unwrap(), hb.to_slice().unwrap());
    let two_copies = || {
        let mut v: Vec<f32> = Vec::with_capacity(n);
        // SAFETY: `s1` and `s2` fill exactly the `n` elements of `v`'s fresh capacity.
        unsafe {
            std::ptr::copy_nonoverlapping(black_box(s1).as_ptr(), v.as_mut_ptr(), s1.len());
            let rest = v.as_mut_ptr().add(s1.len());
            std::ptr::copy_nonoverlapping(black_box(s2).as_ptr(), rest, s2.len());
            v.set_len(n);
        }
        v
    };
    let mut variants: Vec<Variant<'_>> = vec![
        (
            "to_vec",
            Box::new(|| drop(black_box(black_box(all).to_vec()))),
        ),
        (
            "Vec, two memcpy",
            Box::new(|| drop(black_box(two_copies()))),
        ),
        (
            "to_vec -> Array1 -> into_dyn",
            Box::new(|| {
                drop(black_box(
                    Array1::from_vec(black_box(all).to_vec()).into_dyn(),
                ))
            }),
        ),
        (
            "to_vec -> ArrayD::from_shape_vec",
            Box::new(|| {
                let v = black_box(all).to_vec();
                drop(black_box(ArrayD::from_shape_vec(IxDyn(&[n]), v).unwrap()))
            }),
        ),
        (
            "alloc only (no copy)",
            Box::new(|| drop(black_box(Vec::<f32>::with_capacity(black_box(n))))),
        ),
        (
            "stack",
            Box::new(|| {
                drop(black_box(
                    stack_concat::stack(0, black_box(&halves)).unwrap(),
                ))
            }),
        ),
        (
            "concat",
            Box::new(|| {
                drop(black_box(
                    stack_concat::concat(0, black_box(&halves)).unwrap(),
                ))
            }),
        ),
        (
            "ndarray: stack",
            Box::new(|| drop(black_box(ndarray::stack(Axis(0), &[ha, hb]).unwrap()))),
        ),
        (
            "ndarray: concatenate",
            Box::new(|| drop(black_box(ndarray::concatenate(Axis(0), &[ha, hb]).unwrap()))),
        ),
    ];
    let mut times = vec![Vec::new(); variants.len()];
    for _ in 0..201 {
        for ((_, f), t) in variants.iter_mut().zip(&mut times) {
            let start = Instant::now();
            for _ in 0..calls {
                f();
            }
            t.push(start.elapsed().as_secs_f64() / calls as f64 * 1e9);
        }
    }
    let medians: Vec<f64> = times
        .iter_mut()
        .map(|t| {
            t.sort_by(f64::total_cmp);
            t[t.len() / 2]
        })
        .collect();
    println!("{n} f32 elements, {calls} calls per round");
    for ((name, _), m) in variants.iter().zip(&medians) {
        println!(
            "{name:<34} {m:8.1} ns  {:5.0}% of to_vec",
            100.0 * medians[0] / m
        );
    }
}
