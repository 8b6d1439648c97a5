//! A MaskedTensor: values plus a boolean mask of the same shape, as an extension type.
//! Run with `cargo run --example masked_tensor`.

use extype::{DType, ExtensionType, Shape, TensorSpec, TypeSpec};
use ndarray::{ArrayD, IxDyn, arr2};

/// Values with a mask saying which are present. Both fields share one shape contract: the named
/// segment `*dims` binds every axis of `values` and must match `mask` exactly.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "examples.MaskedTensor")]
pub struct MaskedTensor {
    #[extype(shape = "*dims")]
    pub values: ArrayD<f32>,
    #[extype(shape = "*dims")]
    pub mask: ArrayD<bool>,
}

fn main() -> extype::Result<()> {
    let m = MaskedTensor::try_new(
        arr2(&[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]).into_dyn(),
        arr2(&[[true, false, true], [false, true, true]]).into_dyn(),
    )?;
    println!("== A value and its spec");
    let spec = m.spec();
    println!("spec: {spec}");

    println!("\n== The shape contract is checked on construction");
    let err = MaskedTensor::try_new(
        ArrayD::zeros(IxDyn(&[2, 3])),
        ArrayD::from_elem(IxDyn(&[3, 2]), true),
    )
    .unwrap_err();
    println!("error: {err}");

    println!("\n== A partial spec written by hand, refined by the contract");
    let mut partial = MaskedTensorSpec {
        values: TensorSpec::new("[?, 3]".parse::<Shape>()?, DType::F32),
        mask: TensorSpec::new("[2, ?]".parse::<Shape>()?, DType::Bool),
    };
    println!("by hand:   {partial}");
    partial.refine_shapes()?;
    println!("refined:   {partial}");
    println!(
        "compatible with the value's spec: {}",
        partial.is_compatible_with(&spec)
    );

    println!("\n== Relaxation: the most specific spec compatible with both");
    let other = MaskedTensor::try_new(
        ArrayD::zeros(IxDyn(&[2, 5])),
        ArrayD::from_elem(IxDyn(&[2, 5]), true),
    )?;
    let relaxed = spec
        .most_specific_compatible(&other.spec())
        .expect("same dtypes and rank");
    println!("{spec}\n  ∨ {}\n  = {relaxed}", other.spec());

    println!("\n== Components: borrowed views, or moved tensors (no copies)");
    for (spec, view) in spec.component_specs().iter().zip(spec.to_components(&m)) {
        println!("component {spec}: {:?}", view.shape());
    }
    let components = m.clone().into_components();
    let rebuilt = spec.from_components(components)?;
    println!("rebuilt equals original: {}", rebuilt == m);

    println!("\n== The spec's JSON (stable, versioned, names the registered type)");
    println!("{}", extype::serial::spec_to_json(&spec)?);
    Ok(())
}
