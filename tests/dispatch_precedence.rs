//! The precedence rules of dispatch, each on its own: exact types → `&Value`/`&Operand`
//! wildcards (fewer first) → group handlers → the dense default; declining; duplicate keys and
//! misfit handlers at table build time; the no-match error; determinism across threads.

use extype::dispatch::{Call, DispatchEntry, DispatchTable, Handled, ParamKind, Target};
use extype::ops::{self, AsOperand, OpArgs, catalog};
use extype::{BinaryOp, ExtensionType, Operand, Result, Tensor, Value, dispatch};
use ndarray::array;

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.precedence.A")]
pub struct A {
    pub x: Tensor,
}

#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.precedence.B")]
pub struct B {
    pub x: Tensor,
}

fn probe_dense(_: &[Tensor], _: &OpArgs) -> Result<Tensor> {
    Ok(tag(6))
}

extype::declare_op!(
    /// A binary op only this test registers handlers for.
    pub PROBE: binary_elementwise "tests.probe", dense = probe_dense
);

extype::declare_op!(
    /// A unary op with no dense default.
    pub NO_DENSE: other(1) "tests.no_dense"
);

extype::declare_op!(
    /// An op of no arguments (nothing to dispatch on).
    pub NULLARY: other(0) "tests.nullary"
);

fn tag(n: i64) -> Tensor {
    Tensor::from(ndarray::arr0(n))
}

fn a() -> A {
    A {
        x: Tensor::from(array![1.0f32]),
    }
}

fn b() -> B {
    B {
        x: Tensor::from(array![2.0f32]),
    }
}

/// Rule 1: exact extension types.
#[dispatch(op = PROBE)]
fn exact(_x: &A, _y: &A) -> Result<Tensor> {
    Ok(tag(1))
}

/// Rule 1 with a dense position: `&Tensor` is the exact type of every dense argument.
#[dispatch(op = PROBE)]
fn a_tensor(_x: &A, _y: &Tensor) -> Result<Tensor> {
    Ok(tag(2))
}

/// Rule 2: one wildcard.
#[dispatch(op = PROBE)]
fn a_any(_x: &A, _y: &Value) -> Result<Tensor> {
    Ok(tag(3))
}

/// Rule 2: two wildcards (after one); declines unless `B` then a dense tensor.
#[dispatch(op = PROBE)]
fn any_any(x: &Operand, y: &Operand) -> Result<Option<Tensor>> {
    Ok((x.downcast_ref::<B>().is_some() && y.is_dense()).then(|| tag(4)))
}

/// Rule 3: a group handler (every binary elementwise op) for `B` with anything.
#[dispatch(binary_elementwise)]
fn group(op: &BinaryOp, x: &B, _y: &Value) -> Result<Option<Tensor>> {
    if op.op() == &PROBE {
        Ok(Some(tag(5)))
    } else {
        // For catalog ops: B's tensor with the dense op, to show the bound callable.
        Ok(Some(op.apply_as(&x.x, &x.x)?))
    }
}

/// A handler for an op of kind `other` taking the call's extra arguments.
#[dispatch(op = NO_DENSE)]
fn no_dense_a(args: &OpArgs, _x: &A) -> Result<Tensor> {
    Ok(tag(args.axis as i64))
}

fn probe(x: &impl AsOperand, y: &impl AsOperand) -> Result<i64> {
    let t = PROBE.apply2(x, y)?.into_tensor()?;
    Ok(t.as_array::<i64, ndarray::Ix0>()?[()])
}

#[test]
fn rule_1_exact_types_win() {
    assert_eq!(probe(&a(), &a()).unwrap(), 1);
}

#[test]
fn rule_1_exact_key_with_a_dense_position() {
    assert_eq!(probe(&a(), &array![1.0f32]).unwrap(), 2);
    assert_eq!(probe(&a(), &Tensor::from(array![1i32])).unwrap(), 2);
    assert_eq!(probe(&a(), &Value::from(tag(0))).unwrap(), 2);
}

#[test]
fn rule_2_fewer_wildcards_first() {
    // (A, B): a_any (one wildcard) before any_any (two).
    assert_eq!(probe(&a(), &b()).unwrap(), 3);
    // (B, dense): only any_any matches among the op's handlers.
    assert_eq!(probe(&b(), &array![1.0f32]).unwrap(), 4);
}

#[test]
fn rule_3_group_after_declines() {
    // (B, B): any_any declines, the group handler takes it.
    assert_eq!(probe(&b(), &b()).unwrap(), 5);
    // A catalog op on B reaches the same group handler, with the op bound.
    let out: Tensor = ops::mul_as(&b(), &b()).unwrap();
    assert_eq!(out, Tensor::from(array![4.0f32].into_dyn()));
}

#[test]
fn rule_4_dense_default() {
    // Dense arguments: any_any declines, the group handler does not match, the dense default runs.
    assert_eq!(probe(&array![1.0f32], &array![2.0f32]).unwrap(), 6);
    // Catalog ops on dense data run the kernels.
    let out: Tensor = ops::add_as(&array![1i64, 2], &array![10i64]).unwrap();
    assert_eq!(out, Tensor::from(array![11i64, 12].into_dyn()));
}

#[test]
fn explain_lists_candidates_in_precedence_order() {
    let table = extype::dispatch::table().unwrap();
    let names = |xs: &[Operand<'_>]| -> Vec<String> {
        table
            .explain(&PROBE, xs)
            .into_iter()
            .map(|s| s.split('(').next().unwrap_or_default().to_string())
            .collect()
    };
    let (x, y, d) = (a(), b(), array![1.0f32]);
    // Exact first, then wildcards (one before two), then groups, then the dense default.
    assert_eq!(
        names(&[x.as_operand(), x.as_operand()]),
        ["exact", "a_any", "any_any"]
    );
    assert_eq!(
        names(&[x.as_operand(), d.as_operand()]),
        ["a_tensor", "a_any", "any_any"]
    );
    assert_eq!(
        names(&[y.as_operand(), y.as_operand()]),
        ["any_any", "group"]
    );
    assert_eq!(
        names(&[d.as_operand(), d.as_operand()]),
        ["any_any", "dense default"]
    );
}

#[test]
fn no_match_names_op_arguments_and_candidates() {
    let err = probe(&array![1.0f32], &a()).unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with(
            "tests.probe: no handler for arguments (Tensor(f32[1]), tests.precedence.A); tried: \
             any_any(&Value, &Value) at tests/dispatch_precedence.rs:"
        ),
        "{text}"
    );
    assert!(
        text.ends_with(
            "(declined); dense default (not applicable: argument 1 is tests.precedence.A, not \
             a tensor)"
        ),
        "{text}"
    );
    // An op without a dense default, on dense data.
    let err = NO_DENSE.apply1(&array![1.0f32]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "tests.no_dense: no handler for arguments (Tensor(f32[1])); tried: dense default (none: \
         tests.no_dense has no dense default)"
    );
    let args = OpArgs::none().with_axis(7);
    let out = NO_DENSE.call(&[a().as_operand()], &args).unwrap();
    assert_eq!(out.into_tensor().unwrap(), tag(7));
}

#[test]
fn an_op_of_no_arguments_is_an_error_not_a_panic() {
    let err = NULLARY.call(&[], &OpArgs::none()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "tests.nullary: no handler for arguments (); tried: dense default (none: tests.nullary \
         has no dense default)"
    );
    let err = ops::infer_spec(&NULLARY, &[], &OpArgs::none()).unwrap_err();
    assert!(
        err.to_string().starts_with("tests.nullary: specs:"),
        "{err}"
    );
}

#[test]
fn spec_inference_follows_the_same_precedence() {
    use extype::{DType, TensorSpec, ValueSpec};
    let a_spec = Value::from_extension(a()).spec();
    let d = ValueSpec::Tensor(TensorSpec::new("[2]".parse().unwrap(), DType::F32));
    // No handler of PROBE registered an inference: the error lists them.
    let err = ops::infer_spec(&PROBE, &[&a_spec, &d], &OpArgs::none()).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains(
            "a_tensor(&dispatch_precedence::A, &Tensor) at tests/dispatch_precedence.rs:"
        ) && text.contains("(no spec inference; add `infer = …` to its #[dispatch])"),
        "{text}"
    );
    // Dense specs: the op's own rule (a user binary op broadcasts and keeps the dtype).
    let out = ops::infer_spec(&PROBE, &[&d, &d], &OpArgs::none()).unwrap();
    assert_eq!(out.spec, d);
}

#[test]
fn wrong_number_of_arguments() {
    let err = PROBE
        .call(
            &[a().as_operand(), a().as_operand(), a().as_operand()],
            &OpArgs::none(),
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tests.probe: expected 2 arguments, found 3"
    );
}

// ---- Tables built from hand-made entries -------------------------------------------------

fn h_one<'a>(_: &Call<'_>, _: &[Operand<'a>]) -> Result<Handled> {
    Ok(Handled::Done(Value::from(tag(1))))
}

fn h_decline<'a>(_: &Call<'_>, _: &[Operand<'a>]) -> Result<Handled> {
    Ok(Handled::Declined)
}

const AA: &[ParamKind] = &[ParamKind::extension::<A>(), ParamKind::extension::<A>()];
const A1: &[ParamKind] = &[ParamKind::extension::<A>()];

static FIRST: DispatchEntry = DispatchEntry::new(
    Target::Op(&catalog::ADD),
    AA,
    h_one,
    None,
    "first_add",
    "src/one.rs",
    10,
);
static SECOND: DispatchEntry = DispatchEntry::new(
    Target::Op(&catalog::ADD),
    AA,
    h_decline,
    None,
    "second_add",
    "src/two.rs",
    20,
);
static UNARY_ADD: DispatchEntry = DispatchEntry::new(
    Target::Op(&catalog::ADD),
    A1,
    h_one,
    None,
    "unary_add",
    "src/three.rs",
    30,
);
static GROUP_WRONG: DispatchEntry = DispatchEntry::new(
    Target::Group(extype::OpKind::Reduction),
    AA,
    h_one,
    None,
    "reduce_two",
    "src/four.rs",
    40,
);
static DECLINER: DispatchEntry = DispatchEntry::new(
    Target::Group(extype::OpKind::BinaryElementwise),
    AA,
    h_decline,
    None,
    "decliner",
    "src/five.rs",
    50,
);

#[test]
fn a_duplicate_key_breaks_only_the_calls_that_reach_it() {
    let expected = "two dispatch handlers for op add with arguments (&dispatch_precedence::A, \
                    &dispatch_precedence::A): first_add at src/one.rs:10 and second_add at \
                    src/two.rs:20";
    let table = DispatchTable::build([&SECOND, &FIRST]).unwrap();
    assert_eq!(table.check().unwrap_err().to_string(), expected);
    let err = table
        .call(
            &catalog::ADD,
            &[a().as_operand(), a().as_operand()],
            &OpArgs::none(),
        )
        .unwrap_err();
    assert_eq!(err.to_string(), expected);
    // The same op on dense arguments runs the dense default.
    let dense = array![1.0f32];
    let sum = table
        .call(
            &catalog::ADD,
            &[dense.as_operand(), dense.as_operand()],
            &OpArgs::none(),
        )
        .unwrap();
    assert_eq!(
        sum.as_tensor().unwrap(),
        &Tensor::from(array![2.0f32].into_dyn())
    );
}

#[test]
fn misfit_handlers_are_refused_at_build() {
    let err = DispatchTable::build([&UNARY_ADD]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "dispatch handler unary_add at src/three.rs:30 for op add: takes 1 argument but the op \
         takes 2 arguments"
    );
    let err = DispatchTable::build([&GROUP_WRONG]).unwrap_err();
    assert!(
        err.to_string()
            .ends_with("takes 2 arguments but a reduction handler takes 1 argument"),
        "{err}"
    );
}

#[test]
fn hand_built_table_applies_the_rules() {
    let table = DispatchTable::build([&FIRST, &DECLINER]).unwrap();
    assert_eq!(table.len(), 2);
    let (x, y) = (a(), a());
    let out = table
        .call(
            &catalog::ADD,
            &[x.as_operand(), y.as_operand()],
            &OpArgs::none(),
        )
        .unwrap();
    assert_eq!(out.into_tensor().unwrap(), tag(1));
    // MUL: only the declining group handler matches; then no dense default for A.
    let err = table
        .call(
            &catalog::MUL,
            &[x.as_operand(), y.as_operand()],
            &OpArgs::none(),
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "mul: no handler for arguments (tests.precedence.A, tests.precedence.A); tried: \
         decliner(&dispatch_precedence::A, &dispatch_precedence::A) at src/five.rs:50 \
         (declined); dense default (not applicable: argument 0 is tests.precedence.A, not a \
         tensor)"
    );
    // An empty table: only the dense default.
    let empty = DispatchTable::build([]).unwrap();
    assert!(empty.is_empty());
    let d = array![1.0f64];
    let out = empty
        .call(&catalog::NEG, &[d.as_operand()], &OpArgs::none())
        .unwrap();
    assert_eq!(
        out.into_tensor().unwrap(),
        Tensor::from(array![-1.0f64].into_dyn())
    );
}

#[test]
fn eight_threads_agree_with_one() {
    fn work(seed: i64) -> Vec<String> {
        let mut out = Vec::new();
        for i in 0..50 {
            let k = seed + i;
            let d = ndarray::Array1::from_iter((0..16).map(|j| (j * k) as f32));
            out.push(format!(
                "{:?}",
                ops::add(&d, &d).unwrap().into_tensor().unwrap()
            ));
            out.push(format!(
                "{:?}",
                ops::reduce_sum(&d, None, false)
                    .unwrap()
                    .into_tensor()
                    .unwrap()
            ));
            out.push(probe(&a(), &a()).unwrap().to_string());
            out.push(probe(&b(), &b()).unwrap().to_string());
            out.push(probe(&a(), &b()).unwrap().to_string());
            out.push(probe(&d, &d).unwrap().to_string());
            out.push(probe(&d, &a()).unwrap_err().to_string());
        }
        out
    }
    // Threads first, so that they also race to build the table.
    let threads: Vec<_> = (0..8)
        .map(|s| std::thread::spawn(move || work(s)))
        .collect();
    let parallel: Vec<Vec<String>> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let single: Vec<Vec<String>> = (0..8).map(work).collect();
    assert_eq!(single, parallel);
}

extype::declare_op!(
    /// An op of four arguments: sixteen exact keys over two types.
    pub QUAD: other(4) "tests.quad"
);

/// Returns `N`: which of the sixteen handlers ran.
fn h_tag<'a, const N: i64>(_: &Call<'_>, _: &[Operand<'a>]) -> Result<Handled> {
    Ok(Handled::Done(Value::from(tag(N))))
}

/// The parameter kinds of key `n`: bit `i` set means argument `i` is a `B`, else an `A`.
fn quad_kinds(n: usize) -> &'static [ParamKind] {
    let kinds: Vec<ParamKind> = (0..4)
        .map(|i| {
            if n >> i & 1 == 1 {
                ParamKind::extension::<B>()
            } else {
                ParamKind::extension::<A>()
            }
        })
        .collect();
    Box::leak(kinds.into_boxed_slice())
}

macro_rules! quad_entries {
    ($($n:literal)*) => {
        [$({
            let entry = DispatchEntry::new(
                Target::Op(&QUAD),
                quad_kinds($n),
                h_tag::<$n>,
                None,
                "quad",
                "src/quad.rs",
                $n,
            );
            &*Box::leak(Box::new(entry))
        }),*]
    };
}

#[test]
fn many_exact_handlers_of_one_op_each_find_their_key() {
    let entries: [&'static DispatchEntry; 16] =
        quad_entries!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    let (x, y) = (a(), b());
    let operands = |n: usize| -> Vec<Operand<'_>> {
        (0..4)
            .map(|i| {
                if n >> i & 1 == 1 {
                    y.as_operand()
                } else {
                    x.as_operand()
                }
            })
            .collect()
    };
    // A few exact handlers are compared in turn, many are hashed: both find the same ones.
    for count in [3, 8, 9, 16] {
        let table = DispatchTable::build(entries[..count].iter().copied()).unwrap();
        for n in 0..16 {
            let out = table.call(&QUAD, &operands(n), &OpArgs::none());
            if n < count {
                assert_eq!(
                    out.unwrap().into_tensor().unwrap(),
                    tag(n as i64),
                    "{count}, {n}"
                );
            } else {
                let err = out.unwrap_err().to_string();
                assert!(
                    err.starts_with("tests.quad: no handler for arguments"),
                    "{err}"
                );
            }
        }
    }
}

/// A type for the group handler without wildcards (which the table promotes to each op's exact
/// list): its precedence and its declining are unchanged.
#[derive(Clone, Debug, PartialEq, ExtensionType)]
#[extype(name = "tests.precedence.C")]
pub struct C {
    pub v: Tensor,
}

static C_GROUP_CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Every binary op on `(C, C)`; declines `sub`.
#[dispatch(binary_elementwise)]
fn c_group(op: &BinaryOp, _x: &C, _y: &C) -> Result<Option<Tensor>> {
    C_GROUP_CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    if op.op() == &catalog::SUB {
        return Ok(None);
    }
    Ok(Some(tag(30)))
}

/// `mul` on `C` and anything: an op's own wildcard handler precedes the group.
#[dispatch(Mul)]
fn c_mul_any(_x: &C, _y: &Operand) -> Result<Tensor> {
    Ok(tag(31))
}

#[test]
fn a_group_handler_without_wildcards_keeps_its_precedence() {
    let c = C { v: tag(0) };
    assert_eq!(probe(&c, &c).unwrap(), 30);
    assert_eq!(ops::add_as::<Tensor>(&c, &c).unwrap(), tag(30));
    assert_eq!(ops::mul_as::<Tensor>(&c, &c).unwrap(), tag(31));
    // Declining `sub`: tried once, then nothing else takes it.
    let before = C_GROUP_CALLS.load(std::sync::atomic::Ordering::Relaxed);
    let err = ops::sub(&c, &c).unwrap_err().to_string();
    assert_eq!(
        C_GROUP_CALLS.load(std::sync::atomic::Ordering::Relaxed) - before,
        1,
        "{err}"
    );
    assert_eq!(err.matches("c_group(").count(), 1, "{err}");
    let table = extype::dispatch::table().unwrap();
    let listed = table.explain(&catalog::MUL, &[c.as_operand(), c.as_operand()]);
    assert!(listed[0].starts_with("c_mul_any("), "{listed:?}");
    assert_eq!(
        listed.iter().filter(|l| l.starts_with("c_group(")).count(),
        1
    );
}
