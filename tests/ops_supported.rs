//! `ops::supported` is honest: every op it lists for a value runs on a sample of it, every op it
//! does not list fails with the "no handler" error (`common::supported::check_supported`), for a
//! masked type with group handlers, a `where` handler, `tensor_like` and `batchable`, and for
//! dense tensors; specs list the same ops.

mod common;

use std::borrow::Cow;

use common::supported::check_supported;
use extype::ops::{self, catalog};
use extype::{
    BinaryOp, DType, ExtensionType, Op, Operand, ReductionOp, Result, Tensor, TensorSpec, UnaryOp,
    Value, ValueSpec, dispatch,
};
use ndarray::{ArrayD, IxDyn, array};

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "test_supported.Masked", tensor_like = values, batchable)]
pub struct Masked {
    #[extype(shape = "*dims")]
    pub values: Tensor,
    #[extype(shape = "*dims")]
    pub mask: Tensor,
}

/// No handler, not tensor-like, not batchable: only wildcard handlers reach it.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "test_supported.Plain")]
pub struct Plain {
    pub a: Tensor,
}

fn parts<'a>(x: &Operand<'a>) -> Option<(Cow<'a, Tensor>, Option<&'a Tensor>)> {
    if let Some(m) = x.downcast_ref::<Masked>() {
        return Some((Cow::Borrowed(&m.values), Some(&m.mask)));
    }
    x.to_tensor().map(|t| (t, None))
}

#[dispatch(unary_elementwise)]
fn masked_unary(op: &UnaryOp, x: &Masked) -> Result<Masked> {
    Ok(Masked {
        values: op.apply_as(&x.values)?,
        mask: x.mask.clone(),
    })
}

/// Wildcards: a dense operand on either side; declines when no Masked is involved (so it is
/// listed for every type, and declines at run time for the others).
#[dispatch(binary_elementwise)]
fn masked_binary(op: &BinaryOp, x: &Operand, y: &Operand) -> Result<Option<Masked>> {
    let (Some((xv, xm)), Some((yv, ym))) = (parts(x), parts(y)) else {
        return Ok(None);
    };
    if xm.is_none() && ym.is_none() {
        return Ok(None);
    }
    let values = op.apply_as::<Tensor>(&*xv, &*yv)?;
    let ones = Tensor::from(ArrayD::from_elem(IxDyn(values.shape()), true));
    let mask = ops::logical_and_as::<Tensor>(
        &ops::logical_and_as::<Tensor>(xm.unwrap_or(&ones), ym.unwrap_or(&ones))?,
        &ones,
    )?;
    Ok(Some(Masked { values, mask }))
}

#[dispatch(reduction)]
fn masked_reduction(op: &ReductionOp, x: &Masked) -> Result<Masked> {
    let zeros = ops::zeros_like_as::<Tensor>(&x.values)?;
    let filled = ops::where_as::<Tensor>(&x.mask, &x.values, &zeros)?;
    Ok(Masked {
        values: op.apply_as(&filled)?,
        mask: op.apply_other_as(&catalog::REDUCE_ANY, &x.mask)?,
    })
}

#[dispatch(Where)]
fn masked_where(cond: &Tensor, x: &Masked, y: &Masked) -> Result<Masked> {
    Ok(Masked {
        values: ops::where_as(cond, &x.values, &y.values)?,
        mask: ops::where_as(cond, &x.mask, &y.mask)?,
    })
}

fn sample() -> Masked {
    Masked::try_new(
        Tensor::from(array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]].into_dyn()),
        Tensor::from(array![[true, false, true], [true, true, false]].into_dyn()),
    )
    .unwrap()
}

fn names(ops: &[&'static Op]) -> Vec<&'static str> {
    ops.iter().map(|op| op.name()).collect()
}

fn of_kind(kind: extype::OpKind) -> impl Iterator<Item = &'static str> {
    catalog::ALL
        .iter()
        .filter(move |op| op.kind() == kind)
        .map(|op| op.name())
}

#[test]
fn a_masked_value_lists_its_groups_where_and_fallbacks_and_each_runs() {
    let listed = check_supported(&Value::from_extension(sample()));
    let mut want: Vec<&str> = of_kind(extype::OpKind::UnaryElementwise)
        .chain(of_kind(extype::OpKind::BinaryElementwise))
        .chain(of_kind(extype::OpKind::Reduction))
        .collect();
    // `shape`: the tensor-like fallback; `concat`/`stack`: batchable; `where`: its handler.
    want.extend(["shape", "concat", "stack", "where"]);
    let order = |n: &&str| catalog::ALL.iter().position(|op| op.name() == *n);
    want.sort_by_key(order);
    // Then the user op of `mod user` (it has an exact handler for Masked).
    want.push("test_supported.double");
    assert_eq!(names(&listed), want);
    // Listed in catalog order (`zeros_like` and `ones_like` with the unary group, as TF's
    // `dispatch_for_unary_elementwise_apis` serves them); not listed: no handler (checked above
    // for every one).
    for name in [
        "reshape",
        "transpose",
        "tile",
        "gather",
        "cast",
        "boolean_mask",
    ] {
        assert!(!names(&listed).contains(&name), "{name}");
    }
}

#[test]
fn specs_list_what_values_do() {
    let m = sample();
    let by_value = ops::supported(&m).unwrap();
    // The spec itself (any TypeSpec), and as a ValueSpec.
    assert_eq!(
        names(&ops::supported_for_spec(&m.spec()).unwrap()),
        names(&by_value)
    );
    let spec = ValueSpec::Extension(Box::new(m.spec()));
    assert_eq!(
        names(&ops::supported_for_spec(&spec).unwrap()),
        names(&by_value)
    );
}

#[test]
fn dense_values_list_every_op_that_takes_their_dtype() {
    let f32s = Tensor::from(array![[1.0f32, 2.0], [3.0, 4.0]].into_dyn());
    let listed = check_supported(&Value::Tensor(f32s));
    assert_eq!(names(&listed), names(catalog::ALL));
    // i64: the float-only ops are not listed (and fail on the dtype).
    let i64s = Tensor::from(array![[1i64, 2], [3, 4]].into_dyn());
    let listed = check_supported(&Value::Tensor(i64s));
    let floats_only: Vec<&str> = catalog::ALL
        .iter()
        .filter(|op| !op.dtypes().contains(DType::I64))
        .map(|op| op.name())
        .collect();
    assert!(floats_only.contains(&"exp") && floats_only.contains(&"div"));
    assert_eq!(
        names(&listed),
        names(catalog::ALL)
            .into_iter()
            .filter(|n| !floats_only.contains(n))
            .collect::<Vec<_>>()
    );
    // A tensor spec lists the same, without data; an array too.
    let spec: TensorSpec = "i64[?, 2]".parse().unwrap();
    assert_eq!(
        names(&ops::supported_for_spec(&spec).unwrap()),
        names(&listed)
    );
    assert_eq!(
        names(&ops::supported(&array![1i64]).unwrap()),
        names(&listed)
    );
}

#[test]
fn a_type_without_handlers_lists_only_what_wildcards_serve() {
    let p = Plain {
        a: Tensor::from(array![1.0f32].into_dyn()),
    };
    // The binary group handler takes `&Operand` twice: it matches every type (and declines
    // this one at run time, which the docs of `ops::supported` say).
    let listed = ops::supported(&p).unwrap();
    assert_eq!(
        names(&listed),
        of_kind(extype::OpKind::BinaryElementwise).collect::<Vec<_>>()
    );
    let err = ops::add(&p, &p).unwrap_err().to_string();
    assert!(err.starts_with("add: no handler for arguments"), "{err}");
}

/// A user-declared op the table has a handler for is listed after the catalog.
mod user {
    use super::*;

    extype::declare_op!(pub DOUBLE: unary_elementwise "test_supported.double");

    #[dispatch(op = DOUBLE)]
    fn masked_double(x: &Masked) -> Result<Masked> {
        Ok(Masked {
            values: ops::add_as(&x.values, &x.values)?,
            mask: x.mask.clone(),
        })
    }

    #[test]
    fn user_ops_come_after_the_catalog() {
        let listed = ops::supported(&sample()).unwrap();
        assert_eq!(
            listed.last().map(|op| op.name()),
            Some("test_supported.double")
        );
        let dense = ops::supported(&array![1.0f32]).unwrap();
        assert!(!names(&dense).contains(&"test_supported.double"));
        // And it runs (as `check_supported` checks for every listed op).
        let m = sample();
        let out: Masked = ops::call_as(
            &DOUBLE,
            &[Operand::value(&Value::from_extension(m))],
            &extype::OpArgs::none(),
        )
        .unwrap();
        assert_eq!(
            out.values,
            Tensor::from(array![[2.0f32, 4.0, 6.0], [8.0, 10.0, 12.0]].into_dyn())
        );
    }
}

/// The enumeration itself, on a table built from explicit entries: mixed positions, groups,
/// conflicting keys, and fallbacks that do not apply.
mod table {
    use super::*;
    use extype::dispatch::{Call, DispatchEntry, DispatchTable, Handled, ParamKind, Target};
    use std::any::TypeId;

    fn declines(_: &Call<'_>, _: &[Operand<'_>]) -> Result<Handled> {
        Ok(Handled::Declined)
    }

    const PLAIN: ParamKind = ParamKind::extension::<Plain>();
    static WHERE_MIXED: DispatchEntry = DispatchEntry::new(
        Target::Op(&catalog::WHERE),
        &[ParamKind::Tensor, PLAIN, PLAIN],
        declines,
        None,
        "where_mixed",
        file!(),
        line!(),
    );
    static REDUCE_ANY_TYPE: DispatchEntry = DispatchEntry::new(
        Target::Group(extype::OpKind::Reduction),
        &[ParamKind::Any],
        declines,
        None,
        "reduce_any_type",
        file!(),
        line!(),
    );
    static NEG_ONE: DispatchEntry = DispatchEntry::new(
        Target::Op(&catalog::NEG),
        &[PLAIN],
        declines,
        None,
        "neg_one",
        file!(),
        line!(),
    );
    static NEG_TWO: DispatchEntry = DispatchEntry::new(
        Target::Op(&catalog::NEG),
        &[PLAIN],
        declines,
        None,
        "neg_two",
        file!(),
        line!(),
    );
    static ABS_PLAIN: DispatchEntry = DispatchEntry::new(
        Target::Op(&catalog::ABS),
        &[PLAIN],
        declines,
        None,
        "abs_plain",
        file!(),
        line!(),
    );

    static FROM_A_DEPENDENCY: DispatchEntry = DispatchEntry::new(
        Target::Op(&catalog::ABS),
        &[PLAIN],
        declines,
        None,
        "abs_elsewhere",
        // What `file!()` gives in a crate built from cargo's registry: an absolute path.
        "/home/me/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/mylib-0.2.0/src/ops/abs.rs",
        7,
    );

    #[test]
    fn locations_in_messages_are_crate_relative() {
        // Errors and conflict reports name a handler by `location()` / `describe()`: the file
        // relative to its crate, not the user's home directory and cargo's cache layout.
        assert_eq!(FROM_A_DEPENDENCY.location(), "src/ops/abs.rs:7");
        let described = FROM_A_DEPENDENCY.describe();
        assert!(described.ends_with(" at src/ops/abs.rs:7"), "{described}");
        assert!(!described.contains("/home/"), "{described}");
        let table = DispatchTable::build([&ABS_PLAIN, &FROM_A_DEPENDENCY]).unwrap();
        let text: Vec<String> = table.conflicts().iter().map(|e| e.to_string()).collect();
        let text = text.join("\n");
        assert!(
            text.contains("src/ops/abs.rs:7") && !text.contains("/home/"),
            "{text}"
        );
        // A workspace's own files are given relative already, and kept.
        assert!(ABS_PLAIN.location().starts_with("tests/ops_supported.rs:"));
    }

    #[test]
    fn positions_groups_conflicts_and_fallbacks() {
        let table = DispatchTable::build([
            &WHERE_MIXED,
            &REDUCE_ANY_TYPE,
            &NEG_ONE,
            &NEG_TWO,
            &ABS_PLAIN,
        ])
        .unwrap();
        let listed = names(&table.supported(TypeId::of::<Plain>(), None));
        let mut want = vec!["abs"];
        want.extend(of_kind(extype::OpKind::Reduction));
        want.push("where");
        // `neg`: its key has two handlers, so a call fails; `shape`, `stack`, `concat`: Plain
        // is neither tensor-like nor batchable.
        assert_eq!(listed, want);
        // Masked (tensor-like, batchable): the wildcard reduction group and the fallbacks.
        let m = sample();
        let like = Value::from_extension(m);
        let listed = names(&table.supported(TypeId::of::<Masked>(), like.tensor_like()));
        let mut want: Vec<&str> = of_kind(extype::OpKind::Reduction).collect();
        want.extend(["shape", "concat", "stack"]);
        want.sort_by_key(|n| catalog::ALL.iter().position(|op| op.name() == *n));
        assert_eq!(listed, want);
    }
}

#[test]
fn an_anonymous_value_of_a_registered_type_lists_what_its_type_does() {
    use extype::{AnonymousExtension, TypeSpec};
    let m = sample();
    let anonymous =
        AnonymousExtension::new(m.spec().serialize(), m.clone().into_components()).unwrap();
    let by_type = names(&ops::supported(&m).unwrap());
    assert_eq!(names(&ops::supported(&anonymous).unwrap()), by_type);
    // Its spec too, and each listed op runs on it (a call rebuilds it as a Masked).
    assert_eq!(
        names(&ops::supported_for_spec(&anonymous.spec()).unwrap()),
        by_type
    );
    assert!(ops::reduce_sum(&anonymous, None, false).is_ok());
    // Of a type not linked in: only what wildcard handlers serve.
    let spec = extype::SpecTree::spec("test_supported.NotLinked", extype::SpecTree::None);
    let unknown = AnonymousExtension::new(spec, vec![]).unwrap();
    assert_eq!(
        names(&ops::supported(&unknown).unwrap()),
        of_kind(extype::OpKind::BinaryElementwise).collect::<Vec<_>>()
    );
}
