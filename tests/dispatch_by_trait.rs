//! `#[dispatch]` reads a handler's parameters by trait (`HandlerParam`), as the derive reads
//! fields, and never by the name of their type: an alias of `Tensor` is a dense parameter, an
//! alias of `OpArgs` receives the extra arguments wherever it stands, an alias of `Value` is a
//! wildcard, and user extension types *named* `Value` or `Tensor` are matched exactly, like any
//! other extension type.

use extype::ops::{AsOperand, OpArgs};
use extype::{Error, Result, Tensor, dispatch};
use ndarray::array;

extype::declare_op!(
    /// Handled only by `aliased`, which takes `&T` with `type T = Tensor`.
    pub ALIASED: other(1) "tests.by_trait.aliased"
);

extype::declare_op!(
    /// Handled only by the handlers of the user types named `Value` and `Tensor`.
    pub NAMED: other(1) "tests.by_trait.named"
);

extype::declare_op!(
    /// Handled only by `wildcard`, which takes `&V` with `type V = extype::Value`.
    pub WILD: other(1) "tests.by_trait.wild"
);

/// Aliases: the macro cannot see through them; the trait does.
type T = Tensor;
type Args = OpArgs;
type V = extype::Value;

/// The extra arguments come first here (they are not dispatched on), the tensor second.
#[dispatch(op = ALIASED)]
fn aliased(args: &Args, x: &T) -> Result<T> {
    let shift = args.axis as f64;
    let x = x.as_array::<f64, ndarray::IxDyn>()?;
    Ok(Tensor::from(x.mapv(|v| v + shift)))
}

#[dispatch(op = WILD)]
fn wildcard(x: &V) -> Result<Tensor> {
    Ok(Tensor::from(ndarray::arr0(x.type_name().len() as i64)))
}

mod user {
    //! Extension types whose names are those of extype's own types; the handlers below write
    //! them as `&Value` and `&Tensor`.

    use extype::{ExtensionType, Result, dispatch};

    /// A user type named `Value`.
    #[derive(Clone, Debug, PartialEq, ExtensionType)]
    #[extype(name = "tests.by_trait.Value")]
    pub struct Value {
        pub x: extype::Tensor,
    }

    /// A user type named `Tensor`.
    #[derive(Clone, Debug, PartialEq, ExtensionType)]
    #[extype(name = "tests.by_trait.Tensor")]
    pub struct Tensor {
        pub x: extype::Tensor,
    }

    #[dispatch(op = super::NAMED)]
    fn on_value(v: &Value) -> Result<Value> {
        let _ = v;
        Ok(Value {
            x: extype::Tensor::from(ndarray::arr0(1i64)),
        })
    }

    #[dispatch(op = super::NAMED)]
    fn on_tensor(t: &Tensor) -> Result<Tensor> {
        let _ = t;
        Ok(Tensor {
            x: extype::Tensor::from(ndarray::arr0(2i64)),
        })
    }
}

fn scalar(t: &Tensor) -> i64 {
    let a = t.as_array::<i64, ndarray::IxDyn>().unwrap();
    a.iter().copied().next().unwrap()
}

#[test]
fn an_alias_of_tensor_is_a_dense_parameter() -> Result<()> {
    let x = Tensor::from(array![1.0f64, 2.0]);
    let y = ALIASED
        .call(&[x.as_operand()], &OpArgs::none().with_axis(10))?
        .into_tensor()?;
    assert_eq!(
        y.as_array::<f64, ndarray::IxDyn>()?
            .iter()
            .copied()
            .collect::<Vec<_>>(),
        vec![11.0, 12.0]
    );
    // An array view is dense too.
    let a = array![3.0f64];
    let y = ALIASED.apply1(&a)?.into_tensor()?;
    assert_eq!(
        y.as_array::<f64, ndarray::IxDyn>()?
            .iter()
            .copied()
            .collect::<Vec<_>>(),
        vec![3.0]
    );
    // A huge broadcast view: its copy is refused before it is allocated, by `&Tensor` and
    // `&Value` parameters alike.
    let one = ndarray::arr0(1.0f64);
    let huge = one.broadcast(ndarray::IxDyn(&[1 << 31, 1 << 31])).unwrap();
    for err in [
        ALIASED.apply1(&huge).unwrap_err(),
        WILD.apply1(&huge).unwrap_err(),
    ] {
        let msg = err.to_string();
        assert!(
            msg.contains("output of shape [2147483648, 2147483648] and dtype f64"),
            "{msg}"
        );
    }
    // An extension value is not: `&T` is no wildcard.
    let v = user::Value {
        x: Tensor::from(array![1.0f32]),
    };
    let err = ALIASED.apply1(&v).unwrap_err();
    assert!(matches!(err, Error::Dispatch(_)), "{err}");
    Ok(())
}

#[test]
fn an_alias_of_value_is_a_wildcard() -> Result<()> {
    let dense = WILD.apply1(&Tensor::from(array![1.0f32]))?.into_tensor()?;
    assert_eq!(scalar(&dense), "Tensor".len() as i64);
    let v = user::Tensor {
        x: Tensor::from(array![1.0f32]),
    };
    let ext = WILD.apply1(&v)?.into_tensor()?;
    assert!(scalar(&ext) > 0);
    Ok(())
}

#[test]
fn user_types_named_value_and_tensor_are_exact_types() -> Result<()> {
    let v = user::Value {
        x: Tensor::from(array![1.0f32]),
    };
    let out = NAMED.apply1(&v)?.downcast::<user::Value>()?;
    assert_eq!(scalar(&out.x), 1);

    let t = user::Tensor {
        x: Tensor::from(array![1.0f32]),
    };
    let out = NAMED.apply1(&t)?.downcast::<user::Tensor>()?;
    assert_eq!(scalar(&out.x), 2);

    // Neither handler is a wildcard (`Value`) nor dense (`Tensor`): a dense argument finds no
    // handler, and `NAMED` has no dense default.
    let err = NAMED.apply1(&Tensor::from(array![1.0f32])).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::Dispatch(_)), "{text}");
    assert!(text.contains("tests.by_trait.named"), "{text}");
    Ok(())
}
