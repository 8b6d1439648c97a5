//! A shape-contract failure (`#[extype(shape = "…")]`) reads the same on every path that checks
//! it — construction (`try_new`, `validate`), rebuilding from components, refining a spec, and
//! loading a file (whose spec is refined statically, or whose tensors are checked concretely) —
//! and names the field, the axis of that field, the dim's name, the size expected, the field and
//! axis that bound it, and the size found.

use std::path::Path;

use crate::common::TempDir;
use extype::{DType, ExtensionType, Shape, Tensor, TensorSpec, TypeSpec};
use ndarray::{ArrayD, IxDyn};

/// `values` and `mask` share every axis.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.contract.Masked")]
pub struct Masked {
    #[extype(shape = "*dims")]
    pub values: ArrayD<f32>,
    #[extype(shape = "*dims")]
    pub mask: ArrayD<bool>,
}

/// The segment starts at axis 1 of `values` and axis 0 of `mask`.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.contract.Batched")]
pub struct Batched {
    #[extype(shape = "_ *dims")]
    pub values: ArrayD<f32>,
    #[extype(shape = "*dims")]
    pub mask: ArrayD<bool>,
}

/// A named dim across fields of different ranks.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.contract.Rows")]
pub struct Rows {
    #[extype(shape = "b _")]
    pub values: ArrayD<f32>,
    #[extype(shape = "b")]
    pub lengths: ArrayD<i64>,
}

/// The fields of `Masked` without a contract (its name has the same length, so that a file of
/// it can be relabelled in place).
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.contract.Loosed")]
pub struct Loosed {
    pub values: ArrayD<f32>,
    pub mask: ArrayD<bool>,
}

const MASKED: &str = "invalid value of tests.contract.Masked: shape contract {values: \"*dims\", \
                      mask: \"*dims\"}: field `mask` axis 1: expected *dims[1] = 3 (bound by \
                      field `values` axis 1), found 4";

const BATCHED: &str = "invalid value of tests.contract.Batched: shape contract {values: \"_ \
                       *dims\", mask: \"*dims\"}: field `mask` axis 1: expected *dims[1] = 3 \
                       (bound by field `values` axis 2), found 5";

const ROWS: &str = "invalid value of tests.contract.Rows: shape contract {values: \"b _\", \
                    lengths: \"b\"}: field `lengths` axis 0: expected b = 2 (bound by field \
                    `values` axis 0), found 3";

fn f32s(shape: &[usize]) -> ArrayD<f32> {
    ArrayD::zeros(IxDyn(shape))
}

fn bools(shape: &[usize]) -> ArrayD<bool> {
    ArrayD::from_elem(IxDyn(shape), true)
}

fn spec_of(shape: &str, dtype: DType) -> TensorSpec {
    TensorSpec::new(shape.parse().unwrap(), dtype)
}

#[test]
fn construction_names_the_axis_of_the_field() {
    let err = Masked::try_new(f32s(&[2, 3]), bools(&[2, 4])).unwrap_err();
    assert_eq!(err.to_string(), MASKED);
    let literal = Masked {
        values: f32s(&[2, 3]),
        mask: bools(&[2, 4]),
    };
    assert_eq!(literal.validate().unwrap_err().to_string(), MASKED);
    let err = Batched::try_new(f32s(&[4, 2, 3]), bools(&[2, 5])).unwrap_err();
    assert_eq!(err.to_string(), BATCHED);
    let err = Rows::try_new(f32s(&[2, 3]), ArrayD::zeros(IxDyn(&[3]))).unwrap_err();
    assert_eq!(err.to_string(), ROWS);
}

#[test]
fn rebuilding_from_components_says_the_same() {
    let loose = MaskedSpec {
        values: TensorSpec::new(Shape::unknown_rank(), DType::F32),
        mask: TensorSpec::new(Shape::unknown_rank(), DType::Bool),
    };
    let parts = vec![Tensor::from(f32s(&[2, 3])), Tensor::from(bools(&[2, 4]))];
    assert_eq!(
        loose.from_components(parts).unwrap_err().to_string(),
        MASKED
    );
    let loose = BatchedSpec {
        values: TensorSpec::new(Shape::unknown_rank(), DType::F32),
        mask: TensorSpec::new(Shape::unknown_rank(), DType::Bool),
    };
    let parts = vec![Tensor::from(f32s(&[4, 2, 3])), Tensor::from(bools(&[2, 5]))];
    assert_eq!(
        loose.from_components(parts).unwrap_err().to_string(),
        BATCHED
    );
}

#[test]
fn refining_a_spec_says_the_same() {
    let mut spec = MaskedSpec {
        values: spec_of("[2, 3]", DType::F32),
        mask: spec_of("[?, 4]", DType::Bool),
    };
    assert_eq!(spec.refine_shapes().unwrap_err().to_string(), MASKED);
    let mut spec = BatchedSpec {
        values: spec_of("[4, ?, 3]", DType::F32),
        mask: spec_of("[2, 5]", DType::Bool),
    };
    assert_eq!(spec.refine_shapes().unwrap_err().to_string(), BATCHED);
    let mut spec = RowsSpec {
        values: spec_of("[2, ?]", DType::F32),
        lengths: spec_of("[3]", DType::I64),
    };
    assert_eq!(spec.refine_shapes().unwrap_err().to_string(), ROWS);
}

/// Rewrites the JSON header of the safetensors file at `from` with `edit` into `to`.
fn relabel(from: &Path, to: &Path, edit: impl Fn(String) -> String) {
    let bytes = std::fs::read(from).unwrap();
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let header = edit(String::from_utf8(bytes[8..8 + n].to_vec()).unwrap());
    let mut out = (header.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&bytes[8 + n..]);
    std::fs::write(to, out).unwrap();
}

#[test]
fn loading_says_the_same() {
    let dir = TempDir::new("contract-load");
    // A value whose (absent) contract passes, saved, then relabelled as the type whose contract
    // fails: the file's spec is refined by the contract as it is read.
    let loose = dir.0.join("loose.safetensors");
    let value = Loosed {
        values: f32s(&[2, 3]),
        mask: bools(&[2, 4]),
    };
    extype::io::save(&loose, &value).unwrap();
    let relabelled = dir.0.join("masked.safetensors");
    relabel(&loose, &relabelled, |h| {
        h.replace("tests.contract.Loosed", "tests.contract.Masked")
    });
    let prefix = format!("{}: metadata spec: ", relabelled.display());
    let err = extype::io::load(&relabelled).unwrap_err().to_string();
    assert_eq!(err, format!("{prefix}{MASKED}"));
    let err = extype::io::load_as::<Masked>(&relabelled)
        .unwrap_err()
        .to_string();
    assert_eq!(err, format!("{prefix}{MASKED}"));
    // The same file with a spec that says nothing of the shapes: the contract is checked on the
    // tensors themselves, in the same words.
    let partial = dir.0.join("partial.safetensors");
    relabel(&loose, &partial, |h| {
        h.replace("tests.contract.Loosed", "tests.contract.Masked")
            .replace("[2, 3]", "[?, ?]")
            .replace("[2, 4]", "[?, ?]")
    });
    let err = extype::io::load(&partial).unwrap_err().to_string();
    assert!(err.ends_with(MASKED), "{err}");
    assert!(err.starts_with(&partial.display().to_string()), "{err}");
}
