//! Half-precision floats in derived types: `ndarray` arrays of `half::f16` / `half::bf16` as
//! tensor fields, `f16`/`bf16` static fields, batching, spec JSON, files, the library's
//! `MaskedTensor` over `f16` values, and half scalars as weakly typed operands.

use extype::half::{bf16, f16};
use extype::serial::{spec_from_json, spec_to_json};
use extype::types::MaskedTensor;
use extype::{DType, ExtensionType, Tensor, TypeSpec, batch, io, ops};
use ndarray::{Array2, ArrayD, IxDyn, array};

/// Half-precision weights with a static scale of the same precision.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.half.Quantized", batchable)]
pub struct Quantized {
    pub weights: ArrayD<bf16>,
    pub bias: ArrayD<f16>,
    pub scale: f16,
}

fn quantized(k: f32) -> Quantized {
    Quantized {
        weights: array![[bf16::from_f32(k), bf16::from_f32(-0.5)]].into_dyn(),
        bias: array![f16::from_f32(0.25 * k)].into_dyn(),
        scale: f16::from_f32(0.1),
    }
}

#[test]
fn half_fields_have_half_specs_and_round_trip() {
    let q = quantized(1.0);
    let spec = q.spec();
    assert_eq!(spec.weights.dtype, DType::BF16);
    assert_eq!(spec.bias.dtype, DType::F16);
    assert_eq!(spec.scale, q.spec().scale);
    let text = spec.to_string();
    assert!(
        text.contains("bf16[1, 2]") && text.contains("f16[1]"),
        "{text}"
    );
    // JSON: the static f16 round trips exactly (0.1 is not an f16: its nearest one is kept).
    let json = spec_to_json(&spec).unwrap();
    assert_eq!(spec_from_json::<QuantizedSpec>(&json).unwrap(), spec);
    // Components and back.
    let back = spec.from_components(q.clone().into_components()).unwrap();
    assert_eq!(back, q);
    // A different static scale is another spec.
    let mut other = quantized(1.0);
    other.scale = f16::from_f32(0.2);
    assert!(!spec.is_compatible_with(&other.spec()));
}

#[test]
fn half_values_batch_and_save() {
    let items = vec![quantized(1.0), quantized(2.0), quantized(3.0)];
    let stacked = batch::stack(&items).unwrap();
    assert_eq!(stacked.weights.shape(), &[3, 1, 2]);
    assert_eq!(stacked.scale, f16::from_f32(0.1));
    assert_eq!(batch::unstack(stacked.clone()).unwrap(), items);
    // A static scale that differs does not stack.
    let mut odd = quantized(4.0);
    odd.scale = f16::ONE;
    let err = batch::stack(&[quantized(1.0), odd])
        .unwrap_err()
        .to_string();
    assert!(err.contains("scale"), "{err}");

    let dir = std::env::temp_dir().join(format!("extype-half-fields-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("q.safetensors");
    io::save(&path, &stacked).unwrap();
    assert_eq!(io::load_as::<Quantized>(&path).unwrap(), stacked);
    let info = io::inspect(&path).unwrap();
    let dtypes: Vec<String> = info.tensors.iter().map(|t| t.dtype.to_string()).collect();
    assert!(dtypes.contains(&"bf16".to_string()) && dtypes.contains(&"f16".to_string()));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn masked_tensors_of_half_values_and_half_scalars() {
    let values = Array2::from_shape_vec((2, 2), vec![1.0f32, 2.0, 3.0, 65504.0])
        .unwrap()
        .mapv(f16::from_f32);
    let m = MaskedTensor::new(values, array![[true, false], [true, true]]).unwrap();
    // Weakly typed scalars of every float type, half ones too, take the values' dtype.
    let doubled = &m * f16::from_f32(2.0);
    let doubled = doubled.unwrap();
    assert_eq!(doubled.dtype(), DType::F16);
    let d: ArrayD<f16> = doubled.values().clone().into_array().unwrap();
    assert_eq!(d[[0, 0]], f16::from_f32(2.0));
    assert_eq!(d[[1, 1]], f16::INFINITY, "65504 * 2 overflows f16");
    let plus = (&m + 0.5).unwrap();
    let p: ArrayD<f16> = plus.values().clone().into_array().unwrap();
    assert_eq!(p[[1, 0]], f16::from_f32(3.5));
    // A float scalar beyond f16's range is an error naming it, not a silent inf.
    let err = (&m + 1e6).unwrap_err().to_string();
    assert!(err.contains("1000000") && err.contains("f16"), "{err}");
    // Masked reductions on half values: the sum of the valid values, in f16.
    let s: MaskedTensor = ops::reduce_sum_as(&m, Some(&[1]), false).unwrap();
    let v: ArrayD<f16> = s.values().clone().into_array().unwrap();
    assert_eq!(v, array![f16::ONE, f16::from_f32(65507.0)].into_dyn());
    // Half scalars as dense operands.
    let y: Tensor = ops::mul_as(
        &array![bf16::ONE, bf16::from_f32(3.0)],
        &bf16::from_f32(0.5),
    )
    .unwrap();
    assert_eq!(
        y,
        Tensor::from(array![bf16::from_f32(0.5), bf16::from_f32(1.5)])
    );
    let zeros = ArrayD::<bf16>::from_elem(IxDyn(&[0, 2]), bf16::ZERO);
    let e: ArrayD<bf16> = ops::reduce_sum_as(&zeros, Some(&[0]), false).unwrap();
    assert_eq!(e, array![bf16::ZERO, bf16::ZERO].into_dyn());
}
