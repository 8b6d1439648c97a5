//! `matmul`: matrix products of the last two axes, the leading axes broadcast (NumPy's and
//! TensorFlow's `matmul`). Floats run on ndarray's `general_mat_mul` (the `matrixmultiply`
//! crate's blocked, SIMD kernels); integers on a loop that wraps on overflow as TensorFlow's
//! integer matmul does (ndarray's generic product would panic on overflow in debug builds).

use ndarray::{Array2, ArrayD, ArrayView2, ArrayViewD, ArrayViewMut2, Axis, Ix2, IxDyn, linalg};

use crate::error::{KernelError, Result};
use crate::layout::check_output;

const OP: &str = "matmul";

/// An element type `matmul` takes: `f32`, `f64` (ndarray / matrixmultiply) and `i32`, `i64`
/// (wrapping).
pub trait MatmulScalar: Copy + Send + Sync + 'static {
    /// `c = a @ b` for matrices (`c` has `a.rows × b.cols` elements, overwritten).
    fn gemm(a: &ArrayView2<'_, Self>, b: &ArrayView2<'_, Self>, c: &mut ArrayViewMut2<'_, Self>);
    /// The additive identity.
    fn zero() -> Self;
}

macro_rules! float_gemm {
    ($($t:ty),*) => {$(
        impl MatmulScalar for $t {
            fn gemm(a: &ArrayView2<'_, $t>, b: &ArrayView2<'_, $t>, c: &mut ArrayViewMut2<'_, $t>) {
                linalg::general_mat_mul(1.0, a, b, 0.0, c);
            }
            fn zero() -> $t {
                0.0
            }
        }
    )*};
}
float_gemm!(f32, f64);

macro_rules! int_gemm {
    ($($t:ty),*) => {$(
        impl MatmulScalar for $t {
            fn gemm(a: &ArrayView2<'_, $t>, b: &ArrayView2<'_, $t>, c: &mut ArrayViewMut2<'_, $t>) {
                // i-k-j order: each row of `c` accumulates rows of `b`, read contiguously.
                c.fill(0);
                for (a_row, mut c_row) in a.outer_iter().zip(c.outer_iter_mut()) {
                    for (&x, b_row) in a_row.iter().zip(b.outer_iter()) {
                        if x == 0 {
                            continue;
                        }
                        c_row.zip_mut_with(&b_row, |c, &y| *c = c.wrapping_add(x.wrapping_mul(y)));
                    }
                }
            }
            fn zero() -> $t {
                0
            }
        }
    )*};
}
int_gemm!(i32, i64);

/// The broadcast of two batch shapes (NumPy rules), or `None`.
fn broadcast(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let n = a.len().max(b.len());
    (0..n)
        .map(|i| {
            let x = if i + a.len() >= n {
                a[i + a.len() - n]
            } else {
                1
            };
            let y = if i + b.len() >= n {
                b[i + b.len() - n]
            } else {
                1
            };
            match (x, y) {
                (x, y) if x == y => Some(x),
                (1, y) => Some(y),
                (x, 1) => Some(x),
                _ => None,
            }
        })
        .collect()
}

/// `a @ b` over the last two axes (`[.., n, k] @ [.., k, m] → [.., n, m]`), the leading axes
/// broadcast. Both arguments need rank ≥ 2; a `k` that differs, or leading axes that do not
/// broadcast, is an error naming both shapes. The output size is checked before allocating.
pub fn matmul<T: MatmulScalar>(a: &ArrayViewD<'_, T>, b: &ArrayViewD<'_, T>) -> Result<ArrayD<T>> {
    for (arg, x) in [("argument 0", a), ("argument 1", b)] {
        if x.ndim() < 2 {
            return Err(KernelError::Argument {
                op: OP,
                arg,
                expected: "rank >= 2 (a matrix or a batch of them)".into(),
                found: format!("shape {:?}", x.shape()),
            });
        }
    }
    let (ra, rb) = (a.ndim(), b.ndim());
    let (n, k) = (a.shape()[ra - 2], a.shape()[ra - 1]);
    let (k2, m) = (b.shape()[rb - 2], b.shape()[rb - 1]);
    if k != k2 {
        return Err(KernelError::Argument {
            op: OP,
            arg: "argument 1",
            expected: format!(
                "axis -2 of size {k} (axis -1 of argument 0, shape {:?}: [.., n, k] @ [.., k, m])",
                a.shape()
            ),
            found: format!("size {k2} (shape {:?})", b.shape()),
        });
    }
    let Some(batch) = broadcast(&a.shape()[..ra - 2], &b.shape()[..rb - 2]) else {
        return Err(KernelError::Shape {
            op: OP,
            arg: "argument 1's leading axes".into(),
            expected: a.shape()[..ra - 2].to_vec(),
            found: b.shape()[..rb - 2].to_vec(),
        });
    };
    let mut out_shape = batch.clone();
    out_shape.extend([n, m]);
    check_output::<T>(OP, &out_shape)?;
    let mut a_shape = batch.clone();
    a_shape.extend([n, k]);
    let mut b_shape = batch.clone();
    b_shape.extend([k, m]);
    // Broadcast views (stride 0 on broadcast axes): nothing is copied.
    let (Some(a), Some(b)) = (a.broadcast(IxDyn(&a_shape)), b.broadcast(IxDyn(&b_shape))) else {
        unreachable!("the shapes broadcast to `batch` (checked above)")
    };
    let count: usize = batch.iter().product();
    let mut out = ArrayD::<T>::from_elem(IxDyn(&out_shape), T::zero());
    if count == 0 || n == 0 || m == 0 {
        return Ok(out);
    }
    let mut out3 = out
        .view_mut()
        .into_shape_with_order((count, n, m))
        .expect("a fresh standard-layout array");
    let mut at = vec![0usize; batch.len()];
    for i in 0..count {
        // The views of item `i` (its batch index in row-major order): no copy.
        let (mut x, mut y) = (a.view(), b.view());
        for &j in &at {
            x = x.index_axis_move(Axis(0), j);
            y = y.index_axis_move(Axis(0), j);
        }
        let x = x
            .into_dimensionality::<Ix2>()
            .expect("rank 2 after the batch axes");
        let y = y
            .into_dimensionality::<Ix2>()
            .expect("rank 2 after the batch axes");
        T::gemm(&x, &y, &mut out3.index_axis_mut(Axis(0), i));
        for (axis, j) in at.iter_mut().enumerate().rev() {
            *j += 1;
            if *j < batch[axis] {
                break;
            }
            *j = 0;
        }
    }
    Ok(out)
}

/// The reference: the textbook triple loop on one matrix pair (tests).
pub fn matmul_reference<T: MatmulScalar + std::ops::Add<Output = T> + std::ops::Mul<Output = T>>(
    a: &ArrayView2<'_, T>,
    b: &ArrayView2<'_, T>,
) -> Array2<T> {
    let (n, k, m) = (a.nrows(), a.ncols(), b.ncols());
    Array2::from_shape_fn((n, m), |(i, j)| {
        (0..k).fold(T::zero(), |s, l| s + a[[i, l]] * b[[l, j]])
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array, array};

    #[test]
    fn rank_2_against_the_reference() {
        let a = Array::from_shape_fn((5, 7), |(i, j)| (i * 7 + j) as f64 * 0.5 - 3.0);
        let b = Array::from_shape_fn((7, 3), |(i, j)| (i as f64 - j as f64) * 0.25);
        let c = matmul(&a.view().into_dyn(), &b.view().into_dyn()).unwrap();
        assert_eq!(c, matmul_reference(&a.view(), &b.view()).into_dyn());
        let ai = a.mapv(|x| (x * 2.0) as i64);
        let bi = b.mapv(|x| (x * 4.0) as i64);
        let ci = matmul(&ai.view().into_dyn(), &bi.view().into_dyn()).unwrap();
        assert_eq!(ci, matmul_reference(&ai.view(), &bi.view()).into_dyn());
    }

    #[test]
    fn batched_broadcast_and_transposed_views() {
        let a = Array::from_shape_fn((2, 1, 3, 4), |(p, q, i, j)| (p + q + i * j) as f32);
        let b = Array::from_shape_fn((3, 5, 4), |(q, i, j)| (q * 2 + i + j) as f32 - 4.0);
        let bt = b.view().permuted_axes([0, 2, 1]); // [3, 4, 5], not standard layout
        let c = matmul(&a.view().into_dyn(), &bt.into_dyn()).unwrap();
        assert_eq!(c.shape(), &[2, 3, 3, 5]);
        for p in 0..2 {
            for q in 0..3 {
                let x = a.slice(ndarray::s![p, 0, .., ..]);
                let y = bt.index_axis(Axis(0), q);
                let want = matmul_reference(&x, &y);
                assert_eq!(c.slice(ndarray::s![p, q, .., ..]), want);
            }
        }
    }

    #[test]
    fn errors_and_edges() {
        let a = ArrayD::<f32>::zeros(IxDyn(&[2, 3]));
        let b = ArrayD::<f32>::zeros(IxDyn(&[4, 2]));
        let e = matmul(&a.view(), &b.view()).unwrap_err().to_string();
        assert_eq!(
            e,
            "matmul: argument 1: expected axis -2 of size 3 (axis -1 of argument 0, shape [2, 3]: \
             [.., n, k] @ [.., k, m]), found size 4 (shape [4, 2])"
        );
        let v = ArrayD::<f32>::zeros(IxDyn(&[3]));
        assert!(
            matmul(&v.view(), &a.view())
                .unwrap_err()
                .to_string()
                .contains("rank >= 2")
        );
        let e = matmul(
            &ArrayD::<f32>::zeros(IxDyn(&[2, 2, 3])).view(),
            &ArrayD::<f32>::zeros(IxDyn(&[3, 3, 1])).view(),
        );
        assert!(e.unwrap_err().to_string().contains("does not broadcast"));
        // k = 0: zeros.
        let z = matmul(
            &ArrayD::<i32>::zeros(IxDyn(&[2, 0])).view(),
            &ArrayD::<i32>::zeros(IxDyn(&[0, 3])).view(),
        )
        .unwrap();
        assert_eq!(z, ArrayD::<i32>::zeros(IxDyn(&[2, 3])));
        // Integer overflow wraps (TF's int matmul), never panics.
        let big = array![[i32::MAX, i32::MAX]].into_dyn();
        let ones = array![[2], [0]].into_dyn();
        assert_eq!(
            matmul(&big.view(), &ones.view()).unwrap(),
            array![[-2]].into_dyn()
        );
    }
}
