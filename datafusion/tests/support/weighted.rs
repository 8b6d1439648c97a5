//! The user type of the SQL tests, here and on a Ballista cluster (`ballista/tests/cluster.rs`
//! includes this file): weighted values (one shape), batchable by the default encoder,
//! tensor-like, with `#[dispatch]` handlers for every reduction (of the weighted values: a dense
//! result) and every unary elementwise op (on the values, the weights kept).

use extype::{ExtensionType, ReductionOp, Tensor, UnaryOp, dispatch, ops};

/// Weighted values.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "test.Weighted", tensor_like = values, batchable)]
pub struct Weighted {
    #[extype(shape = "*dims")]
    values: Tensor,
    #[extype(shape = "*dims")]
    weights: Tensor,
}

#[dispatch(reduction)]
fn weighted_reduce(op: &ReductionOp, x: &Weighted) -> extype::Result<Tensor> {
    op.apply_as(&ops::mul_as::<Tensor>(&x.values, &x.weights)?)
}

#[dispatch(unary_elementwise)]
fn weighted_unary(op: &UnaryOp, x: &Weighted) -> extype::Result<Weighted> {
    Weighted::try_new(op.apply_as(&x.values)?, x.weights.clone())
}
