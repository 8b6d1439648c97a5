//! Tests of the op model as a whole, above every file of it: each catalog entry through the
//! dense default and spec inference (they must agree), and spec inference of the catalog and of
//! user ops.

/// The dense default: every catalog op on every dtype, against its inference and dtype set.
mod dense {
    use ndarray::{ArrayD, IxDyn, array};

    use crate::dtype::DType;
    use crate::error::Result;
    use crate::op_model::args::OpArgs;
    use crate::op_model::catalog::*;
    use crate::op_model::dense::{run, run_masked, run_unchecked};
    use crate::op_model::dense_args::DenseArgs;
    use crate::op_model::infer;
    use crate::op_model::rules::{DTypeSet, Operands};
    use crate::spec::TensorSpec;
    use crate::spec::value::Value;
    use crate::tensor::{Tensor, TensorView};

    fn t(x: impl Into<Tensor>) -> Tensor {
        x.into()
    }

    fn run1(op: &Op, x: &Tensor, args: &OpArgs) -> Result<Tensor> {
        run(op, &[x.view()], args)
    }

    #[test]
    fn elementwise_and_binary() {
        let x = t(array![1.0f32, -2.0, 4.0]);
        assert_eq!(
            run1(&NEG, &x, &OpArgs::none()).unwrap(),
            t(array![-1.0f32, 2.0, -4.0].into_dyn())
        );
        let y = t(array![[1.0f32], [2.0]]);
        let s = run(&ADD, &[x.view(), y.view()], &OpArgs::none()).unwrap();
        assert_eq!(s.shape(), &[2, 3]);
        let c = run(&LESS, &[x.view(), y.view()], &OpArgs::none()).unwrap();
        assert_eq!(c.dtype(), DType::Bool);
        let i = t(array![1i32, 2, 3]);
        let err = run(&ADD, &[x.view(), i.view()], &OpArgs::none()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "add: argument 1: expected dtype f32 (the dtype of argument 0; cast first), found dtype i32"
        );
        let err = run1(&EXP, &i, &OpArgs::none()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "exp: argument 0: expected a float dtype (f16, bf16, f32, f64), found dtype i32"
        );
        let small = t(array![1i8]);
        assert!(
            run1(&NEG, &small, &OpArgs::none())
                .unwrap_err()
                .to_string()
                .contains("found dtype i8")
        );
        let bad = t(array![1.0f32, 2.0]);
        let err = run(&ADD, &[x.view(), bad.view()], &OpArgs::none()).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.starts_with("add:") && msg.contains("broadcast") && msg.contains("[2]"),
            "names the op, the problem and the shape: {msg}"
        );
    }

    #[test]
    fn reductions() {
        let x = t(array![[1i32, 2, 3], [4, 5, 6]]);
        let s = run1(&REDUCE_SUM, &x, &OpArgs::none()).unwrap();
        assert_eq!(s, t(ArrayD::from_elem(IxDyn(&[]), 21i64)));
        let s = run1(&REDUCE_SUM, &x, &OpArgs::axes(&[1]).keepdims(true)).unwrap();
        assert_eq!(s, t(array![[6i64], [15]].into_dyn()));
        let m = run1(&REDUCE_MEAN, &x, &OpArgs::axes(&[0])).unwrap();
        assert_eq!(m, t(array![2.5f64, 3.5, 4.5].into_dyn()));
        let a = run1(&ARGMAX, &x, &OpArgs::axes(&[1])).unwrap();
        assert_eq!(a, t(array![2i64, 2].into_dyn()));
        let err = run1(&REDUCE_SUM, &x, &OpArgs::axes(&[2])).unwrap_err();
        assert!(
            err.to_string()
                .contains("axes: expected an axis in -2..2 (rank 2), found 2"),
            "{err}"
        );
        let mask = t(array![[true, false, true], [false, false, true]]);
        let ms = run_masked(&REDUCE_SUM, &x.view(), &mask.view(), &OpArgs::axes(&[1])).unwrap();
        assert_eq!(ms, t(array![4i64, 6].into_dyn()));
    }

    #[test]
    fn other_ops() {
        let x = t(array![[1.0f64, 2.0, 3.0], [4.0, 5.0, 6.0]]);
        let shape = run1(&SHAPE, &x, &OpArgs::none()).unwrap();
        assert_eq!(shape, t(array![2i64, 3].into_dyn()));
        let r = run1(&RESHAPE, &x, &OpArgs::none().with_shape(&[3, 2])).unwrap();
        assert_eq!(
            r,
            t(array![[1.0f64, 2.0], [3.0, 4.0], [5.0, 6.0]].into_dyn())
        );
        assert!(run1(&RESHAPE, &x, &OpArgs::none().with_shape(&[4])).is_err());
        let tr = run1(&TRANSPOSE, &x, &OpArgs::none()).unwrap();
        assert_eq!(
            tr,
            t(array![[1.0f64, 4.0], [2.0, 5.0], [3.0, 6.0]].into_dyn())
        );
        let tl = run1(&TILE, &t(array![1u8, 2]), &OpArgs::none().with_shape(&[2])).unwrap();
        assert_eq!(tl, t(array![1u8, 2, 1, 2].into_dyn()));
        let g = run1(&GATHER, &x, &OpArgs::none().with_indices(&[1, 0, -1])).unwrap();
        assert_eq!(g.shape(), &[3, 3]);
        let c = run(&CONCAT, &[x.view(), x.view()], &OpArgs::none()).unwrap();
        assert_eq!(c.shape(), &[4, 3]);
        let s = run(&STACK, &[x.view(), x.view()], &OpArgs::none().with_axis(-1)).unwrap();
        assert_eq!(s.shape(), &[2, 3, 2]);
        let cond = t(array![true, false, true]);
        let w = run(
            &WHERE,
            &[cond.view(), x.view(), t(array![0.0f64]).view()],
            &OpArgs::none(),
        )
        .unwrap();
        assert_eq!(w, t(array![[1.0f64, 0.0, 3.0], [4.0, 0.0, 6.0]].into_dyn()));
        let ci = run1(&CAST, &x, &OpArgs::none().with_dtype(DType::I32)).unwrap();
        assert_eq!(ci.dtype(), DType::I32);
        let z = run1(&ONES_LIKE, &t(array![1u16, 2]), &OpArgs::none()).unwrap();
        assert_eq!(z, t(array![1u16, 1].into_dyn()));
        // TF's `ones_like(x, dtype=…)` / `zeros_like(x, dtype=…)`.
        let z = run1(
            &ONES_LIKE,
            &t(array![1u16, 2]),
            &OpArgs::none().with_dtype(DType::F64),
        );
        assert_eq!(z.unwrap(), t(array![1.0f64, 1.0].into_dyn()));
        let z = run1(
            &ZEROS_LIKE,
            &t(array![1.5f32]),
            &OpArgs::none().with_dtype(DType::Bool),
        );
        assert_eq!(z.unwrap(), t(array![false].into_dyn()));
        let seg = run1(
            &SEGMENT_SUM,
            &t(array![1.0f32, 2.0, 3.0]),
            &OpArgs::none().with_indices(&[0, 2, 2, 3]),
        )
        .unwrap();
        assert_eq!(seg, t(array![3.0f32, 0.0, 3.0].into_dyn()));
        let err = run(&CONCAT, &[], &OpArgs::none()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "concat: expected at least 1 argument, found 0"
        );
    }

    /// A tensor of dtype `d` and shape `[2, 3]`, all ones (a valid input of every op).
    fn ones(d: DType) -> Tensor {
        let shape = IxDyn(&[2, 3]);
        macro_rules! of {
            ($($var:ident => $t:ty = $one:expr;)*) => {
                match d { $(DType::$var => t(ArrayD::<$t>::from_elem(shape, $one)),)* }
            };
        }
        of! {
            Bool => bool = true; I8 => i8 = 1; I16 => i16 = 1; I32 => i32 = 1; I64 => i64 = 1;
            U8 => u8 = 1; U16 => u16 = 1; U32 => u32 = 1; U64 => u64 = 1;
            F32 => f32 = 1.0; F64 => f64 = 1.0;
            F16 => half::f16 = half::f16::ONE; BF16 => half::bf16 = half::bf16::ONE;
        }
    }

    /// Extra arguments every catalog op accepts on `[2, 3]` inputs: reduce axis 1; reshape to
    /// (or tile by) `[3, 2]`; gather indices / row splits `[0, 1, 2]`; axis 1; cast to `i64`.
    fn universal_args() -> OpArgs {
        OpArgs::axes(&[1])
            .with_axis(1)
            .with_shape(&[3, 2])
            .with_indices(&[0, 1, 2])
            .with_dtype(DType::I64)
    }

    /// The inputs of `op` whose data arguments are `x`: as many as its arity asks (two more for
    /// variadic ops), a `bool` tensor in the role position its entry names.
    fn inputs(op: &Op, x: &Tensor) -> Vec<Tensor> {
        let n = match op.arity() {
            crate::op_model::catalog::Arity::Exactly(n) => n,
            crate::op_model::catalog::Arity::AtLeast(n) => n + 2,
        };
        (0..n)
            .map(|i| match op.operands() {
                Operands::BoolAt(at, _) if at == i => ones(DType::Bool),
                // `matmul`'s second matrix: `[3, 2]`, so that `[2, 3] @ [3, 2]` multiplies.
                _ if i == 1 && std::ptr::eq(op, &MATMUL) => {
                    run1(&RESHAPE, x, &OpArgs::none().with_shape(&[3, 2])).unwrap()
                }
                _ => x.clone(),
            })
            .collect()
    }

    fn spec_of(xs: &[Tensor]) -> Vec<TensorSpec> {
        xs.iter().map(TensorSpec::from_tensor).collect()
    }

    /// Every catalog op has a dense kernel; for every dtype of its set the kernel runs and its
    /// spec inference admits what it computes; every dtype outside the set is refused, by the call
    /// and by inference, with the same words: the entry's set.
    #[test]
    fn every_catalog_op_runs_and_agrees_with_inference() {
        let args = universal_args();
        for op in ALL.iter().copied() {
            assert!(op.is_builtin() && op.has_dense(), "{op}");
            let data = match op.operands() {
                Operands::Same => 0,
                Operands::BoolAt(at, _) => usize::from(at == 0),
            };
            for d in DType::ALL {
                let xs = inputs(op, &ones(d));
                let views: Vec<TensorView<'_>> = xs.iter().map(Tensor::view).collect();
                let specs = spec_of(&xs);
                let refs: Vec<&TensorSpec> = specs.iter().collect();
                let computed = run(op, &views, &args);
                let tensors: Vec<&Tensor> = xs.iter().collect();
                let on_tensors = run_unchecked(op, DenseArgs::Tensors(&tensors), &args)
                    .and_then(Value::into_tensor);
                assert_eq!(
                    computed.as_ref().map_err(ToString::to_string),
                    on_tensors.as_ref().map_err(ToString::to_string),
                    "{op} on {d}: the kernel on tensors and on views"
                );
                let inferred = infer::dense(op, &refs, &args);
                if op.dtypes().contains(d) {
                    let out = computed.unwrap_or_else(|e| panic!("{op} on {d}: {e}"));
                    let inferred = inferred.unwrap_or_else(|e| panic!("{op} on {d}: {e}"));
                    let spec = inferred.tensor_spec().unwrap();
                    assert!(
                        spec.admits(&out),
                        "{op} on {d}: inferred {spec}, computed {}",
                        TensorSpec::from_tensor(&out)
                    );
                    let want = op.result_dtype(d, &args).unwrap();
                    assert_eq!(out.dtype(), want, "{op} on {d}: the result-dtype rule");
                } else {
                    let want = format!(
                        "{op}: argument {data}: expected {}, found dtype {d}",
                        op.dtypes()
                    );
                    assert_eq!(computed.unwrap_err().to_string(), want);
                    assert_eq!(inferred.unwrap_err().to_string(), want);
                }
            }
        }
    }

    /// Mixed dtypes: the first argument that differs is named, by calls and inference alike.
    #[test]
    fn mixed_dtypes_are_refused_alike() {
        let args = universal_args();
        let (f, i) = (ones(DType::F32), ones(DType::I32));
        for op in ALL.iter().copied() {
            let mut xs = inputs(op, &f);
            let Some(last) = (0..xs.len())
                .rev()
                .find(|&j| !matches!(op.operands(), Operands::BoolAt(at, _) if at == j))
            else {
                continue;
            };
            let first = match op.operands() {
                Operands::BoolAt(0, _) => 1,
                _ => 0,
            };
            if last == first {
                continue;
            }
            xs[last] = i.clone();
            let views: Vec<TensorView<'_>> = xs.iter().map(Tensor::view).collect();
            let specs = spec_of(&xs);
            let refs: Vec<&TensorSpec> = specs.iter().collect();
            let want = format!(
                "{op}: argument {last}: expected dtype f32 (the dtype of argument {first}; cast \
                 first), found dtype i32"
            );
            assert_eq!(run(op, &views, &args).unwrap_err().to_string(), want);
            let tensors: Vec<&Tensor> = xs.iter().collect();
            let on_tensors = run_unchecked(op, DenseArgs::Tensors(&tensors), &args);
            assert_eq!(on_tensors.unwrap_err().to_string(), want);
            assert_eq!(
                infer::dense(op, &refs, &args).unwrap_err().to_string(),
                want
            );
        }
        // A role argument that is not bool.
        let err = run(&WHERE, &[f.view(), f.view(), f.view()], &args).unwrap_err();
        assert_eq!(
            err.to_string(),
            "where: argument 0: expected dtype bool (the condition), found dtype f32"
        );
    }

    /// The arity is checked once, with the same words for calls and inference.
    #[test]
    fn arity_errors_agree() {
        let x = ones(DType::F32);
        let spec = TensorSpec::from_tensor(&x);
        for op in ALL.iter().copied() {
            let n = match op.arity() {
                crate::op_model::catalog::Arity::Exactly(n) => n + 1,
                crate::op_model::catalog::Arity::AtLeast(n) => n - 1,
            };
            let views = vec![x.view(); n];
            let specs = vec![&spec; n];
            let call = run(op, &views, &OpArgs::none()).unwrap_err().to_string();
            let inferred = infer::dense(op, &specs, &OpArgs::none())
                .unwrap_err()
                .to_string();
            assert_eq!(call, inferred);
            assert_eq!(
                call,
                format!("{op}: expected {}, found {n}", op.arity().arguments())
            );
        }
    }

    /// Masked kernels are data: the ops that have one run it, the others say which do.
    #[test]
    fn masked_kernels() {
        let x = ones(DType::F64);
        let mask = ones(DType::Bool);
        let with: Vec<&str> = ALL
            .iter()
            .filter(|o| o.has_masked())
            .map(|o| o.name())
            .collect();
        assert_eq!(
            with,
            ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min"]
        );
        for op in ALL.iter().copied() {
            let out = run_masked(op, &x.view(), &mask.view(), &OpArgs::axes(&[1]));
            if op.has_masked() {
                assert_eq!(out.unwrap().shape(), &[2]);
            } else {
                assert_eq!(
                    out.unwrap_err().to_string(),
                    format!(
                        "{op}: mask: expected a reduction with a masked kernel (reduce_sum, \
                         reduce_mean, reduce_max, reduce_min), found {op} (no masked form)"
                    )
                );
            }
        }
        let err = run_masked(&REDUCE_SUM, &x.view(), &x.view(), &OpArgs::none()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "reduce_sum: argument 1: expected dtype bool (the mask), found dtype f64"
        );
        let i8s = ones(DType::I8);
        let err = run_masked(&REDUCE_MAX, &i8s.view(), &mask.view(), &OpArgs::none()).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "reduce_max: argument 0: expected {}, found dtype i8",
                DTypeSet::NUMERIC
            )
        );
    }
}

/// Spec inference of catalog and user ops.
mod infer {
    use crate::dtype::DType;
    use crate::op_model::args::OpArgs;
    use crate::op_model::catalog::*;
    use crate::op_model::infer::*;
    use crate::spec::TensorSpec;

    fn spec(s: &str, d: DType) -> TensorSpec {
        TensorSpec::new(s.parse().unwrap(), d)
    }

    fn one(op: &Op, x: &TensorSpec, args: &OpArgs) -> String {
        dense(op, &[x], args)
            .map(|i| i.tensor_spec().unwrap().to_string())
            .unwrap_or_else(|e| format!("error: {e}"))
    }

    #[test]
    fn elementwise() {
        let x = spec("[?, 3]", DType::F32);
        assert_eq!(one(&EXP, &x, &OpArgs::none()), "f32[?, 3]");
        assert_eq!(one(&IS_NAN, &x, &OpArgs::none()), "bool[?, 3]");
        assert_eq!(
            one(&EXP, &spec("[2]", DType::I32), &OpArgs::none()),
            "error: exp: argument 0: expected a float dtype (f16, bf16, f32, f64), found dtype i32"
        );
        let y = spec("[!1, 1]", DType::F32);
        let r = dense(&LESS, &[&x, &y], &OpArgs::none()).unwrap();
        assert_eq!(r.tensor_spec().unwrap().to_string(), "bool[!1, 3]");
        assert!(!r.checks.unwrap().is_trivial());
        let z = spec("[4]", DType::F32);
        let err = dense(&ADD, &[&x, &z], &OpArgs::none()).unwrap_err();
        assert!(
            err.to_string().contains("must be equal or one must be 1"),
            "{err}"
        );
    }

    #[test]
    fn reductions_and_others() {
        let x = spec("[2, ?, 5]", DType::I32);
        assert_eq!(one(&REDUCE_SUM, &x, &OpArgs::none()), "i64[]");
        assert_eq!(
            one(&REDUCE_MEAN, &x, &OpArgs::axes(&[-1]).keepdims(true)),
            "f64[2, ?, 1]"
        );
        assert_eq!(one(&ARGMAX, &x, &OpArgs::axes(&[1])), "i64[2, 5]");
        assert!(
            one(&REDUCE_MAX, &x, &OpArgs::axes(&[3])).starts_with(
                "error: reduce_max: axes: expected an axis in -3..3 (rank 3), found 3"
            )
        );
        assert_eq!(one(&SHAPE, &x, &OpArgs::none()), "i64[3]");
        assert_eq!(one(&TRANSPOSE, &x, &OpArgs::none()), "i32[5, ?, 2]");
        assert_eq!(
            one(&TILE, &x, &OpArgs::none().with_shape(&[2, 2, 1])),
            "i32[4, ?, 5]"
        );
        assert_eq!(
            one(
                &GATHER,
                &x,
                &OpArgs::none().with_indices(&[0, 0, 1]).with_axis(2)
            ),
            "i32[2, ?, 3]"
        );
        assert_eq!(
            one(
                &RESHAPE,
                &spec("[2, 3]", DType::F32),
                &OpArgs::none().with_shape(&[6])
            ),
            "f32[6]"
        );
        assert!(
            one(
                &RESHAPE,
                &spec("[2, 3]", DType::F32),
                &OpArgs::none().with_shape(&[5])
            )
            .starts_with("error")
        );
        let a = spec("[2, 3]", DType::F32);
        let b = spec("[?, 3]", DType::F32);
        let c = dense(&CONCAT, &[&a, &b], &OpArgs::none()).unwrap();
        assert_eq!(c.tensor_spec().unwrap().to_string(), "f32[?, 3]");
        let s = dense(&STACK, &[&a, &b], &OpArgs::none().with_axis(1)).unwrap();
        assert_eq!(s.tensor_spec().unwrap().to_string(), "f32[2, 2, 3]");
        let seg = one(
            &SEGMENT_SUM,
            &spec("[?]", DType::U8),
            &OpArgs::none().with_indices(&[0, 1, 4]),
        );
        assert_eq!(seg, "u64[2]");
    }

    crate::declare_op!(CONV1D: other(2) "test.conv1d",
        shapes = ["b c_in n", "c_out c_in k"] -> "b, c_out, n - k + 1", batch = "b");
    crate::declare_op!(ANY_OUT: other(1) "test.any_out", shapes = ["n"] -> "n, _");
    crate::declare_op!(UNBOUND_OUT: other(1) "test.unbound_out", shapes = ["n"] -> "n, m");
    crate::declare_op!(NO_BATCH_OUT: other(1) "test.no_batch_out",
        shapes = ["b n"] -> "n", batch = "b");
    crate::declare_op!(BAD_PATTERN: other(1) "test.bad_pattern", shapes = ["n ?"] -> "n");

    // stannum's D1ConvDC, statically: `n - k + 1` from partial inputs, no hand-written `infer`.
    #[test]
    fn contract_ops_infer_from_partial_inputs() {
        let conv = |x: &str, w: &str| {
            dense(
                &CONV1D,
                &[&spec(x, DType::F32), &spec(w, DType::F32)],
                &OpArgs::none(),
            )
            .map(|i| i.tensor_spec().unwrap().to_string())
            .unwrap_or_else(|e| format!("error: {e}"))
        };
        assert_eq!(conv("[8, 3, 100]", "[16, 3, 5]"), "f32[8, 16, 96]");
        assert_eq!(conv("[?, 3, 100]", "[16, ?, 5]"), "f32[$b, 16, 96]");
        assert_eq!(conv("[8, 3, ?]", "[16, 3, 5]"), "f32[8, 16, ?]");
        assert_eq!(conv("*", "*"), "f32[$b, $c_out, ?]");
        assert_eq!(
            conv("[8, 3, 100]", "[16, 4, 5]"),
            "error: unify: argument 1 axis 1: expected c_in = 3 (bound by argument 0 axis 1), \
             found 4"
        );
        assert_eq!(conv("[8, 3, 4]", "[16, 3, 5]"), "f32[8, 16, 0]");
        assert_eq!(
            conv("[8, 3, 3]", "[16, 3, 5]"),
            "error: cannot compute the shape of output `test.conv1d`: `n - k + 1` is -1 \
             (negative) for n = 3, k = 5"
        );
        // Fully defined mode names what is unknown.
        let x = spec("[?, 3, ?]", DType::F32);
        let w = spec("[16, 3, 5]", DType::F32);
        let err = dense(&CONV1D, &[&x, &w], &OpArgs::none())
            .unwrap()
            .fully_defined(&CONV1D)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "cannot compute the shape of output `test.conv1d`: not fully defined: axis 0 is $b, \
             axis 2 is ?"
        );
    }

    // The declaration rules, as errors of the op's inference.
    #[test]
    fn contract_declaration_rules() {
        let x = spec("[4]", DType::F32);
        let err =
            |op: &Op, x: &TensorSpec| dense(op, &[x], &OpArgs::none()).unwrap_err().to_string();
        assert_eq!(
            err(&ANY_OUT, &x),
            "invalid shape of output `test.any_out` ([n, _]): an output cannot use the any-dim \
             `_`; write a size or a name bound by an input"
        );
        assert_eq!(
            err(&UNBOUND_OUT, &x),
            "invalid shape of output `test.unbound_out` ([n, m]): no input binds the name `m`"
        );
        let bx = spec("[2, 4]", DType::F32);
        assert!(
            err(&NO_BATCH_OUT, &bx).contains("the output must lead with the batch dim `b`"),
            "{}",
            err(&NO_BATCH_OUT, &bx)
        );
        assert!(err(&BAD_PATTERN, &x).starts_with("cannot parse shape pattern"));
        // The error is the same on every use (the contract is built once).
        assert_eq!(err(&ANY_OUT, &x), err(&ANY_OUT, &x));
    }

    // PyTensor's rule: under Strict an unknown dim never broadcasts at run time.
    #[test]
    fn strict_policy_per_call_and_per_scope() {
        use crate::op_model::args::scoped_policy;
        use extype_shape::Policy;
        let x = spec("[?, 3]", DType::F32);
        let y = spec("[4, 3]", DType::F32);
        let numpy = dense(&ADD, &[&x, &y], &OpArgs::none()).unwrap();
        let checks = numpy.checks.unwrap();
        assert_eq!(checks.policy(), Policy::Numpy);
        assert!(checks.run(&[&[1, 3], &[4, 3]]).is_ok());
        let strict_args = OpArgs::none().with_policy(Policy::Strict);
        let strict = dense(&ADD, &[&x, &y], &strict_args).unwrap();
        let checks = strict.checks.unwrap();
        assert_eq!(checks.to_string(), "argument 0 axis 0 = 4");
        // A runtime 1 the spec did not say is an error naming the argument and axis.
        let err = checks.run(&[&[1, 3], &[4, 3]]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "broadcast: argument 0 axis 0: expected 4, found 1"
        );
        // A static 1 still broadcasts.
        let one = spec("[1, 3]", DType::F32);
        let out = dense(&ADD, &[&one, &y], &strict_args).unwrap();
        assert!(out.checks.unwrap().run(&[&[1, 3], &[4, 3]]).is_ok());
        // Per scope, and the call's own policy wins over the scope's.
        scoped_policy(Policy::Strict, || {
            let c = dense(&ADD, &[&x, &y], &OpArgs::none())
                .unwrap()
                .checks
                .unwrap();
            assert_eq!(c.policy(), Policy::Strict);
            let numpy_args = OpArgs::none().with_policy(Policy::Numpy);
            let c = dense(&ADD, &[&x, &y], &numpy_args).unwrap().checks.unwrap();
            assert_eq!(c.policy(), Policy::Numpy);
            // Nested scopes restore the outer one.
            scoped_policy(Policy::Numpy, || {
                assert_eq!(crate::op_model::args::current_policy(), Policy::Numpy);
            });
            assert_eq!(crate::op_model::args::current_policy(), Policy::Strict);
        });
        assert_eq!(crate::op_model::args::current_policy(), Policy::Numpy);
        // A panic inside the scope restores it too.
        let caught = std::panic::catch_unwind(|| scoped_policy(Policy::Strict, || panic!("boom")));
        assert!(caught.is_err());
        assert_eq!(crate::op_model::args::current_policy(), Policy::Numpy);
    }
}
