//! The library types against hostile arguments and data (issue "Sound and safe against hostile
//! input, round two"): sizes and indices near the `i64` limits, shapes whose element count
//! cannot exist, and batch sizes far beyond memory. Each case was once undefined behaviour, a
//! wrong success, a panic or an abort; each must now be a clear error naming the op and the
//! argument (or a correct value), in debug and release builds alike.

use extype::batch;
use extype::io;
use extype::types::{RaggedTensor, SparseTensor, SparseTensorSpec};
use extype::{DType, Shape, Tensor};
use ndarray::{Array1, Array2, array};

const BIG: i64 = 1 << 62;

fn empty_sparse(dense_shape: &[i64]) -> extype::Result<SparseTensor> {
    let dims: Vec<usize> = dense_shape.iter().map(|&d| d as usize).collect();
    SparseTensor::new(
        Array2::<i64>::zeros((0, dense_shape.len())),
        Array1::<f32>::zeros(0),
        &dims,
    )
}

fn err_text<T: std::fmt::Debug>(r: extype::Result<T>) -> String {
    r.expect_err("expected an error").to_string()
}

#[test]
fn sparse_slice_keeps_indices_in_bounds_near_the_i64_limits() {
    // Once: the start wrapped, the result held index -9223372036854775807 in a dense shape [0],
    // and `sparse * dense` then read outside the dense operand. TF's rule: the output size is
    // the overlap of start..start + size with the input; a negative start shifts the indices.
    let st = SparseTensor::new(array![[0i64], [3]], array![1.0f32, 2.0], &[5]).unwrap();
    let s = st.slice(&[i64::MIN], &[1]).unwrap();
    assert_eq!((s.dense_shape(), s.nnz()), (&[1usize][..], 0));
    // start + size = 1: index 0 is kept, shifted to 2^63 - 2, inside a dense size 2^63 - 1.
    let s = st.slice(&[i64::MIN + 2], &[i64::MAX]).unwrap();
    assert_eq!(s.dense_shape(), &[i64::MAX as usize]);
    assert_eq!(s.indices_array(), array![[i64::MAX - 1]]);
    let s = st.slice(&[-1], &[3]).unwrap();
    assert_eq!(s.indices_array(), array![[1i64]]);
    // A rank-2 slice whose negative starts make the result's size overflow: an error.
    let m = SparseTensor::new(array![[0i64, 0]], array![1.0f32], &[2, 2]).unwrap();
    let e = err_text(m.slice(&[i64::MIN, i64::MIN], &[i64::MAX, i64::MAX]));
    assert!(e.contains("sparse slice") && e.contains("2^63 - 1"), "{e}");
    // Sizes near the limit: the overlap with the input, exact.
    let s = st.slice(&[1], &[i64::MAX]).unwrap();
    assert_eq!(s.dense_shape(), &[4]);
    assert_eq!(s.indices_array(), array![[2i64]]);
    let s = st.slice(&[i64::MAX], &[i64::MAX]).unwrap();
    assert_eq!((s.dense_shape(), s.nnz()), (&[0usize][..], 0));
    // The product with a dense operand reads only in-bounds elements.
    let d = Tensor::from(array![10.0f32, 20.0, 30.0, 40.0]);
    let p: SparseTensor = extype::ops::mul_as(&s_mul_input(&st), &d).unwrap();
    // Entry 3 (value 2.0) is entry 2 of the slice: 2.0 * d[2].
    assert_eq!(p.values(), &Tensor::from(array![60.0f32]));
}

fn s_mul_input(st: &SparseTensor) -> SparseTensor {
    st.slice(&[1], &[4]).unwrap()
}

#[test]
fn sparse_dense_shapes_whose_element_count_cannot_exist_are_refused() {
    // TF's TensorShape bound: 2^63 - 1 elements ("Encountered overflow when multiplying").
    let e = err_text(empty_sparse(&[BIG, BIG]));
    assert!(e.contains("2^63 - 1") && e.contains("dense_shape"), "{e}");
    let e = err_text(empty_sparse(&[BIG, 3]));
    assert!(e.contains("2^63 - 1"), "{e}");
    // Zero sizes do not hide an overflowing product of the others (no ndarray has that shape).
    let e = err_text(empty_sparse(&[1, 2, 0, BIG]));
    assert!(e.contains("2^63 - 1"), "{e}");
    assert!(empty_sparse(&[BIG, 1]).is_ok());
    let e = err_text(SparseTensor::empty(DType::F32, &[1 << 62, 4]));
    assert!(e.contains("2^63 - 1"), "{e}");
}

#[test]
fn sparse_ops_check_the_shapes_they_build() {
    let a = empty_sparse(&[BIG]).unwrap();
    let e = err_text(SparseTensor::concat(&[&a, &a], 0, false));
    assert!(e.contains("sparse concat") && e.contains("2^63 - 1"), "{e}");
    let e = err_text(a.reshape(&[BIG, BIG, 16]));
    assert!(
        e.contains("sparse reshape") && e.contains("2^63 - 1"),
        "{e}"
    );
    let small = SparseTensor::new(array![[1i64]], array![1.0f32], &[4]).unwrap();
    let e = err_text(small.reshape(&[1 << 32, 1 << 32, 16]));
    assert!(e.contains("sparse reshape"), "{e}");
    // Stacking items whose batch shape overflows.
    let wide = empty_sparse(&[BIG]).unwrap();
    let e = err_text(batch::stack(&[wide.clone(), wide.clone()]));
    assert!(e.contains("2^63 - 1"), "{e}");
    // The mean of a large but valid shape is finite.
    let x = SparseTensor::new(array![[0i64, 0]], array![4.0f64], &[BIG as usize, 1]).unwrap();
    let m = x.reduce_mean(None, false).unwrap();
    let v = m.as_array::<f64, ndarray::IxDyn>().unwrap()[[]];
    assert!(v.is_finite() && v > 0.0, "{v}");
}

#[test]
fn sparse_results_beyond_memory_are_errors_not_aborts() {
    // A dense output of 2^40 x 3 elements.
    let a = SparseTensor::new(array![[0i64, 0]], array![1.0f32], &[1 << 40, 3]).unwrap();
    let b = Tensor::from(ndarray::Array2::<f32>::ones((3, 3)));
    let e = err_text(extype::types::sparse::sparse_dense_matmul(
        &a, &b, false, false,
    ));
    assert!(e.contains("sparse_dense_matmul"), "{e}");
    let e = err_text(a.to_dense(&0.0f32, false));
    assert!(e.contains("to_dense"), "{e}");
    // Unstacking 2^40 items.
    let batch = SparseTensor::new(array![[0i64, 1]], array![1.0f32], &[1 << 40, 2]).unwrap();
    let e = err_text(batch::unstack(batch));
    assert!(e.contains("unstack"), "{e}");
}

#[test]
fn sparse_files_with_impossible_dense_shapes_do_not_load() {
    let dir = std::env::temp_dir().join(format!("extype-hostile-types-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("sparse.safetensors");
    // Written as Python's safetensors would: plain tensors named by field path.
    let indices = [0i64, 0];
    let values = [1.0f32];
    let shape = [BIG, 3];
    let bytes = |v: &[i64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let (ib, vb, sb) = (
        bytes(&indices),
        values
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect::<Vec<u8>>(),
        bytes(&shape),
    );
    let views = [
        (
            "indices",
            safetensors::tensor::TensorView::new(safetensors::Dtype::I64, vec![1, 2], &ib).unwrap(),
        ),
        (
            "values",
            safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![1], &vb).unwrap(),
        ),
        (
            "dense_shape",
            safetensors::tensor::TensorView::new(safetensors::Dtype::I64, vec![2], &sb).unwrap(),
        ),
    ];
    safetensors::serialize_to_file(views, None, &path).unwrap();
    let spec = SparseTensorSpec::new(Shape::unknown(2), DType::F32);
    let e = err_text(io::load_components_as::<SparseTensor>(&path, &spec));
    assert!(e.contains("2^63 - 1") && e.contains("dense_shape"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ragged_to_tensor_checks_the_size_before_allocating() {
    let r = RaggedTensor::from_row_splits(array![1.0f32, 2.0, 3.0], array![0i64, 2, 3]).unwrap();
    // 2^61 x 2^3 f32 cells (16 EiB), and 2^40 x 2^20 (4 EiB): errors, at once.
    for shape in [
        [Some(1usize << 61), Some(8)],
        [Some(1 << 40), Some(1 << 20)],
        [Some(1 << 34), None],
    ] {
        let e = err_text(r.to_tensor(None, Some(&shape)));
        assert!(e.contains("to_tensor") && e.contains("shape"), "{e}");
    }
    // An empty result of a huge padded shape is made directly.
    let t = r.to_tensor(None, Some(&[Some(0), Some(1 << 40)])).unwrap();
    assert_eq!(t.shape(), &[0, 1 << 40]);
}

#[test]
fn ragged_axis0_reduction_of_many_short_rows_matches_the_padded_form() {
    // 2^14 rows, one of 256 values: the padded form would hold 2^22 cells for 256 values.
    let n = 1 << 14;
    let values = Array1::from_iter((0..256).map(|i| i as f32 * 0.25 - 3.0));
    let rowids = Array1::from_iter((0..256).map(|i| if i < 200 { 5i64 } else { 9000 }));
    let r = RaggedTensor::from_value_rowids(values, rowids, n).unwrap();
    let sum: Tensor = extype::ops::reduce_sum_as(&r, Some(&[0]), false).unwrap();
    let padded = r.to_tensor(None, None).unwrap();
    let want: Tensor = extype::ops::reduce_sum_as(&padded, Some(&[0]), false).unwrap();
    assert_eq!(sum, want);
    let mean: Tensor = extype::ops::reduce_mean_as(&r, Some(&[0]), true).unwrap();
    assert_eq!(mean.shape(), &[1, 200]);
    let m = mean.as_array::<f32, ndarray::IxDyn>().unwrap();
    // Position 0 holds row 5's first value and row 9000's first value.
    assert_eq!(m[[0, 0]], (-3.0 + (200.0 * 0.25 - 3.0)) / 2.0);
}

/// Two fields of one dtype and shape: a file that swaps their tensors' names would load each
/// tensor as the other field if names were not checked.
#[derive(Clone, Debug, PartialEq, extype::ExtensionType)]
#[extype(name = "test.hostile.Pair")]
struct Pair {
    a: ndarray::ArrayD<f32>,
    b: ndarray::ArrayD<f32>,
}

#[test]
fn loads_read_each_component_from_the_tensor_named_by_its_field_path() {
    let dir = std::env::temp_dir().join(format!("extype-hostile-names-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (good, swapped) = (
        dir.join("good.safetensors"),
        dir.join("swapped.safetensors"),
    );
    let pair = Pair {
        a: array![1.0f32, 2.0].into_dyn(),
        b: array![3.0f32, 4.0].into_dyn(),
    };
    io::save(&good, &pair).unwrap();
    // The same bytes under swapped names, the component list reordered to match: a reader by
    // name (Python's safetensors) sees a = [3, 4], b = [1, 2].
    let bytes = std::fs::read(&good).unwrap();
    let (_, meta) = safetensors::SafeTensors::read_metadata(&bytes).unwrap();
    let mut meta = meta.metadata().clone().unwrap();
    meta.insert("components".into(), r#"["b","a"]"#.into());
    let file = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let (a, b) = (file.tensor("a").unwrap(), file.tensor("b").unwrap());
    let views = [("a", b), ("b", a)];
    safetensors::serialize_to_file(views, Some(meta), &swapped).unwrap();
    for e in [
        io::load(&swapped).map(drop).unwrap_err().to_string(),
        io::load_as::<Pair>(&swapped)
            .map(drop)
            .unwrap_err()
            .to_string(),
    ] {
        assert!(
            e.contains("component 0 of test.hostile.Pair is the field \"a\""),
            "{e}"
        );
    }
    assert_eq!(io::load_as::<Pair>(&good).unwrap(), pair);
    std::fs::remove_dir_all(&dir).unwrap();
}
