#![forbid(unsafe_code)]
// A hand-written `BatchField` impl cannot hand the stacking of derived structs another type's
// stacker (which would read each `Mine` as a `Tensor`): `stacker` is not overridable outside
// extype.
use extype::batch::BatchField;
use extype::batch::FieldStacker;
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
    fn stacker<'a>(
        _: &'a Self,
        n: usize,
        path: &FieldPath<'_>,
    ) -> extype::Result<Box<dyn FieldStacker<'a> + 'a>> {
        let first: &'static Tensor = Box::leak(Box::new(Tensor::from(ArrayD::<f32>::zeros(vec![2]))));
        <Tensor as BatchField>::stacker(first, n, path)
    }
}

#[derive(Clone, Debug, ExtensionType)]
#[extype(batchable)]
pub struct Holder {
    pub a: ArrayD<f32>,
    pub mine: Mine,
}

fn main() {}
