//! A handler parameter `&[&T]` takes the remaining arguments of a variadic op's call (`concat`,
//! `stack`), each of exactly the extension type `T`, one or more of them: one handler serves a
//! call of any length, as TensorFlow's `tf.concat` of extension values does. An exact handler
//! of a fixed arity still wins for its own length; a `&[&T]` that is not last is refused when
//! the table is built. `&[OrDense<T>]` takes the remaining arguments when each is a `T` or
//! dense, in any mix (TensorFlow's `tf.stack([masked, dense])`), never a call of dense
//! arguments only.

use extype::dispatch::{Call, DispatchEntry, DispatchTable, Handled, ParamKind, Target};
use extype::ops::{self, AsOperand, OpArgs, catalog};
use extype::{ExtensionType, Operand, OrDense, Result, Tensor, Value, ValueSpec, dispatch};
use ndarray::IxDyn;

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.variadic.Tag")]
pub struct Tag {
    pub n: Tensor,
}

fn tag(n: i64) -> Tag {
    Tag {
        n: Tensor::from(ndarray::arr0(n).into_dyn()),
    }
}

fn number(t: &Tag) -> i64 {
    t.n.as_array::<i64, IxDyn>().unwrap()[[]]
}

/// The sum of the tags' numbers, times 100, plus how many there were.
#[dispatch(Concat)]
fn concat_tags(xs: &[&Tag], _args: &OpArgs) -> Result<Tag> {
    let sum: i64 = xs.iter().map(|t| number(t)).sum();
    Ok(tag(sum * 100 + xs.len() as i64))
}

/// A fixed dense first argument, then the tags: the dense value plus the count.
#[dispatch(Stack)]
fn stack_dense_then_tags(x: &Tensor, xs: &[&Tag]) -> Result<Tag> {
    let first = x.as_array::<i64, IxDyn>()?.iter().sum::<i64>();
    Ok(tag(first + xs.len() as i64))
}

/// A user type whose stack takes dense operands mixed in: each counts as its sum.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.variadic.Total", tensor_like = n)]
pub struct Total {
    pub n: Tensor,
}

fn total(n: i64) -> Total {
    Total {
        n: Tensor::from(ndarray::arr0(n).into_dyn()),
    }
}

/// The stack of totals and dense operands: the sum of everything, times 10, plus the number of
/// dense operands.
#[dispatch(Stack)]
fn stack_totals(xs: &[OrDense<Total>], _args: &OpArgs) -> Result<Total> {
    let mut sum = 0;
    let mut dense = 0;
    for x in xs {
        match x {
            OrDense::Ext(t) => sum += t.n.as_array::<i64, IxDyn>()?.iter().sum::<i64>(),
            OrDense::Dense(view) => {
                dense += 1;
                sum += view.clone().into_array::<i64, IxDyn>()?.iter().sum::<i64>();
            }
        }
    }
    Ok(total(sum * 10 + dense))
}

fn value_of(t: &Total) -> i64 {
    t.n.as_array::<i64, IxDyn>().unwrap()[[]]
}

#[test]
fn a_rest_of_or_dense_takes_dense_arguments_mixed_in() {
    let (a, b) = (total(1), total(2));
    let dense = Tensor::from(ndarray::array![3i64, 4].into_dyn());
    let s = |xs: &[Operand<'_>]| value_of(&ops::stack_as::<Total>(xs, 0).unwrap());
    // Any mix, any position, any length; arrays and scalars are dense operands too.
    assert_eq!(s(&[a.as_operand(), dense.as_operand()]), 81);
    assert_eq!(
        s(&[dense.as_operand(), a.as_operand(), b.as_operand()]),
        101
    );
    assert_eq!(s(&[a.as_operand(), b.as_operand()]), 30);
    assert_eq!(s(&[a.as_operand(), 5i64.as_operand()]), 61);
    let arr = ndarray::array![10i64];
    assert_eq!(
        s(&[arr.as_operand(), a.as_operand(), 1i64.as_operand()]),
        122
    );
    let many: Vec<Operand<'_>> = (0..20)
        .map(|_| dense.as_operand())
        .chain([a.as_operand()])
        .collect();
    assert_eq!(s(&many), 1410 + 20);
    // Dense arguments only: the dense default (a tensor), never the handler.
    let d = ops::stack(&[dense.as_operand(), dense.as_operand()], 0).unwrap();
    assert!(matches!(d, Value::Tensor(_)), "{d:?}");
    // Another extension type among them: no match.
    let err = ops::stack(&[a.as_operand(), tag(1).as_operand()], 0).unwrap_err();
    assert!(err.to_string().contains("stack"), "{err}");
    // Spec inference takes the same mixes (the default, component-wise).
    let specs = [
        ValueSpec::Extension(Box::new(a.spec())),
        ValueSpec::Tensor(extype::TensorSpec::from_tensor(&Tensor::from(
            ndarray::arr0(1i64).into_dyn(),
        ))),
    ];
    let inferred = ops::infer_spec(
        &catalog::STACK,
        &[&specs[0], &specs[1]],
        &OpArgs::none().with_axis(0),
    )
    .unwrap();
    assert!(
        matches!(inferred.spec, ValueSpec::Extension(_)),
        "{:?}",
        inferred.spec
    );
    // `explain` names the handler as written.
    let table = extype::dispatch::table().unwrap();
    let explained = table.explain(&catalog::STACK, &[dense.as_operand(), a.as_operand()]);
    assert!(
        explained[0].starts_with("stack_totals(&[OrDense<dispatch::dispatch_variadic::Total>])"),
        "{explained:?}"
    );
}

fn concat_of(tags: &[Tag]) -> Result<Tag> {
    let operands: Vec<Operand<'_>> = tags.iter().map(|t| t.as_operand()).collect();
    ops::concat_as(&operands, 0)
}

#[test]
fn one_handler_takes_calls_of_any_length() {
    assert_eq!(number(&concat_of(&[tag(7)]).unwrap()), 701);
    assert_eq!(number(&concat_of(&[tag(1), tag(2), tag(3)]).unwrap()), 603);
    // More arguments than any fixed-arity handler can take (`MAX_KEY`).
    let many: Vec<Tag> = (1..=20).map(tag).collect();
    assert_eq!(number(&concat_of(&many).unwrap()), 210 * 100 + 20);
    // The candidates a call would try, for any length.
    let table = extype::dispatch::table().unwrap();
    let three = [tag(1), tag(2), tag(3)];
    let operands: Vec<Operand<'_>> = three.iter().map(|t| t.as_operand()).collect();
    let explained = table.explain(&catalog::CONCAT, &operands);
    assert!(
        explained[0].starts_with("concat_tags(&[&dispatch::dispatch_variadic::Tag])"),
        "{explained:?}"
    );
}

#[test]
fn every_remaining_argument_must_be_of_the_type() {
    let t = tag(1);
    let dense = Tensor::from(ndarray::array![1i64].into_dyn());
    let err = ops::concat(&[t.as_operand(), dense.as_operand(), t.as_operand()], 0).unwrap_err();
    assert!(err.to_string().contains("concat"), "{err}");
    // A fixed prefix: the dense tensor first, then one or more tags.
    let out: Tag = ops::stack_as(&[dense.as_operand(), t.as_operand(), t.as_operand()], 0).unwrap();
    assert_eq!(number(&out), 3);
    // Tags only: the prefix does not match; no tag after the dense tensor: nothing remains.
    assert!(ops::stack(&[t.as_operand(), t.as_operand()], 0).is_err());
    assert!(ops::stack(&[dense.as_operand()], 0).is_ok_and(|v| matches!(v, Value::Tensor(_))));
}

fn h_fixed<'a>(_: &Call<'_>, _: &[Operand<'a>]) -> Result<Handled> {
    Ok(Handled::Done(Value::from_extension(tag(2))))
}

fn h_rest<'a>(_: &Call<'_>, args: &[Operand<'a>]) -> Result<Handled> {
    Ok(Handled::Done(Value::from_extension(tag(
        1000 + args.len() as i64
    ))))
}

const TWO: &[ParamKind] = &[ParamKind::extension::<Tag>(), ParamKind::extension::<Tag>()];
const REST: &[ParamKind] = &[ParamKind::rest::<Tag>()];
const REST_FIRST: &[ParamKind] = &[ParamKind::rest::<Tag>(), ParamKind::extension::<Tag>()];
const REST_DENSE: &[ParamKind] = &[ParamKind::rest_or_dense::<Tag>()];
const DENSE_REST_FIRST: &[ParamKind] = &[
    ParamKind::rest_or_dense::<Tag>(),
    ParamKind::extension::<Tag>(),
];

fn h_rest_dense<'a>(_: &Call<'_>, args: &[Operand<'a>]) -> Result<Handled> {
    Ok(Handled::Done(Value::from_extension(tag(
        2000 + args.len() as i64
    ))))
}

static FIXED: DispatchEntry = DispatchEntry::new(
    Target::Op(&catalog::CONCAT),
    TWO,
    h_fixed,
    None,
    "fixed_two",
    "src/a.rs",
    1,
);
static VARIADIC: DispatchEntry = DispatchEntry::new(
    Target::Op(&catalog::CONCAT),
    REST,
    h_rest,
    None,
    "variadic",
    "src/b.rs",
    2,
);
static NOT_LAST: DispatchEntry = DispatchEntry::new(
    Target::Op(&catalog::CONCAT),
    REST_FIRST,
    h_rest,
    None,
    "rest_first",
    "src/c.rs",
    3,
);
static IN_GROUP: DispatchEntry = DispatchEntry::new(
    Target::Group(extype::OpKind::UnaryElementwise),
    REST,
    h_rest,
    None,
    "unary_rest",
    "src/d.rs",
    4,
);

static VARIADIC_DENSE: DispatchEntry = DispatchEntry::new(
    Target::Op(&catalog::CONCAT),
    REST_DENSE,
    h_rest_dense,
    None,
    "variadic_dense",
    "src/a0.rs",
    1,
);
static DENSE_NOT_LAST: DispatchEntry = DispatchEntry::new(
    Target::Op(&catalog::CONCAT),
    DENSE_REST_FIRST,
    h_rest_dense,
    None,
    "dense_rest_first",
    "src/e.rs",
    5,
);

#[test]
fn a_rest_of_exactly_t_is_tried_before_a_rest_of_or_dense() {
    // Declared first in source order, the `&[OrDense<T>]` handler still comes second where
    // both match; it alone takes dense arguments mixed in, and neither takes dense ones only.
    let table = DispatchTable::build([&VARIADIC_DENSE, &VARIADIC]).unwrap();
    let t = tag(0);
    let dense = Tensor::from(ndarray::array![1i64].into_dyn());
    let call = |operands: &[Operand<'_>]| {
        table
            .call(&catalog::CONCAT, operands, &OpArgs::none().with_axis(0))
            .map(|v| number(&v.downcast::<Tag>().unwrap()))
    };
    assert_eq!(call(&[t.as_operand(), t.as_operand()]).unwrap(), 1002);
    assert_eq!(call(&[t.as_operand(), dense.as_operand()]).unwrap(), 2002);
    assert_eq!(
        call(&[dense.as_operand(), dense.as_operand(), t.as_operand()]).unwrap(),
        2003
    );
    let table = DispatchTable::build([&VARIADIC_DENSE]).unwrap();
    let v = table
        .call(
            &catalog::CONCAT,
            &[dense.as_operand(), dense.as_operand()],
            &OpArgs::none().with_axis(0),
        )
        .unwrap();
    assert!(matches!(v, Value::Tensor(_)), "{v:?}");
    let err = DispatchTable::build([&DENSE_NOT_LAST])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("dense_rest_first") && err.contains("must be the last dispatched parameter"),
        "{err}"
    );
}

#[test]
fn an_exact_handler_wins_for_its_own_length() {
    let table = DispatchTable::build([&VARIADIC, &FIXED]).unwrap();
    let t = tag(0);
    let call = |n: usize| {
        let operands: Vec<Operand<'_>> = (0..n).map(|_| t.as_operand()).collect();
        let v = table
            .call(&catalog::CONCAT, &operands, &OpArgs::none())
            .unwrap();
        number(&v.downcast::<Tag>().unwrap())
    };
    assert_eq!(call(2), 2);
    assert_eq!(call(1), 1001);
    assert_eq!(call(3), 1003);
}

#[test]
fn a_rest_parameter_must_be_last_and_not_in_a_group() {
    let err = DispatchTable::build([&NOT_LAST]).unwrap_err().to_string();
    assert!(
        err.contains("rest_first") && err.contains("must be the last dispatched parameter"),
        "{err}"
    );
    let err = DispatchTable::build([&IN_GROUP]).unwrap_err().to_string();
    assert!(
        err.contains("unary_rest") && err.contains("fixed number of arguments"),
        "{err}"
    );
}
