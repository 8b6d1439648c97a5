#![forbid(unsafe_code)]
// A hand-written `BatchField` impl has no batch table to override: the derive computes the table
// of each field's own type, so `Mine` cannot pass `Tensor`'s off as its own.
use extype::batch::BatchField;
use extype::batch::BatchOps;
use extype::ndarray::ArrayD;
use extype::{ExtensionType, Field, FieldPath, Tensor};

#[derive(Clone, Debug, ExtensionType)]
pub struct Mine {
    pub label: String,
}

impl BatchField for Mine {
    fn batched_spec(spec: &<Self as Field>::Spec, _: Option<usize>) -> <Self as Field>::Spec {
        spec.clone()
    }
    fn unbatched_spec(
        spec: &<Self as Field>::Spec,
        _: &FieldPath<'_>,
    ) -> extype::Result<<Self as Field>::Spec> {
        Ok(spec.clone())
    }
    fn batch_len(&self, _: &FieldPath<'_>) -> extype::Result<Option<usize>> {
        Ok(None)
    }
    fn stack(items: &[&Self], _: &FieldPath<'_>) -> extype::Result<Self> {
        Ok(items[0].clone())
    }
    fn unstack(self, n: usize, _: &FieldPath<'_>) -> extype::Result<Vec<Self>> {
        Ok(vec![self; n])
    }
    const BATCH_OPS: &'static BatchOps = BatchOps::of::<Tensor>();
}

#[derive(Clone, Debug, ExtensionType)]
#[extype(batchable)]
pub struct Holder {
    pub a: ArrayD<f32>,
    pub mine: Mine,
}

fn main() {}
