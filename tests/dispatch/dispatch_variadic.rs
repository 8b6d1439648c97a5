//! A handler parameter `&[&T]` takes the remaining arguments of a variadic op's call (`concat`,
//! `stack`), each of exactly the extension type `T`, one or more of them: one handler serves a
//! call of any length, as TensorFlow's `tf.concat` of extension values does. An exact handler
//! of a fixed arity still wins for its own length; a `&[&T]` that is not last is refused when
//! the table is built.

use extype::dispatch::{Call, DispatchEntry, DispatchTable, Handled, ParamKind, Target};
use extype::ops::{self, AsOperand, OpArgs, catalog};
use extype::{ExtensionType, Operand, Result, Tensor, Value, dispatch};
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
