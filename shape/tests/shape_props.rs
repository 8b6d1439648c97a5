//! Property tests of the `shape` module: the lattice laws of partial shapes (symbols included),
//! static broadcasting against concrete broadcasting, the text form, and parsers that never panic.
//!
//! Symbolic dims are drawn from two symbols, `$s` and `$t`; an *environment* gives each a size,
//! and a concrete instance of shapes with symbols is drawn under one environment (so every `$s`
//! has one size across all the shapes of a test case).

use extype_shape::{
    Bindings, Dim, Policy, Shape, ShapePattern, Sizes, Symbol, Symbols, Unifier, broadcast_shapes,
    broadcast_static,
};
use proptest::prelude::*;
use proptest::sample::select;

/// Sizes drawn from a small set so that random shapes often agree (and sometimes hold 0).
fn size() -> impl Strategy<Value = usize> {
    prop_oneof![3 => Just(1usize), 3 => Just(2usize), 1 => Just(0usize), 1 => Just(3usize)]
}

fn sym(name: &str) -> Symbol {
    Symbol::new(name).unwrap()
}

fn dim() -> impl Strategy<Value = Dim> {
    prop_oneof![
        4 => size().prop_map(Dim::Known),
        1 => Just(Dim::NotOne),
        2 => Just(Dim::Unknown),
        2 => (select(vec!["s", "t"]), any::<bool>())
            .prop_map(|(name, not_one)| Dim::Symbol { name: sym(name), not_one }),
    ]
}

/// The sizes of `$s` and `$t`.
type Env = (usize, usize);

fn env() -> impl Strategy<Value = Env> {
    (size(), size())
}

fn env_size(env: Env, name: Symbol) -> usize {
    if name.as_str() == "s" { env.0 } else { env.1 }
}

/// `shape` with its symbols replaced by their sizes in `env`; `None` when a `$n!1` has size 1.
fn subst(shape: &Shape, env: Env) -> Option<Shape> {
    let Some(dims) = shape.dims() else {
        return Some(Shape::unknown_rank());
    };
    dims.iter()
        .map(|&d| match d {
            Dim::Symbol { name, not_one } => {
                let n = env_size(env, name);
                (!(not_one && n == 1)).then_some(Dim::Known(n))
            }
            d => Some(d),
        })
        .collect::<Option<Vec<_>>>()
        .map(Shape::from_dims)
}

/// `shape` with the `!1` of each symbol whose size in `env` is 1 dropped, so `env` fits it.
fn fit(shape: Shape, env: Env) -> Shape {
    match shape.dims() {
        None => shape,
        Some(dims) => dims
            .iter()
            .map(|&d| match d {
                Dim::Symbol { name, .. } if env_size(env, name) == 1 => Dim::symbol(name),
                d => d,
            })
            .collect(),
    }
}

/// Whether `env` satisfies what `symbols` says.
fn env_satisfies(env: Env, symbols: &Symbols) -> bool {
    ["s", "t"].iter().all(|&name| {
        let n = env_size(env, sym(name));
        match symbols.resolve(Dim::symbol(sym(name))) {
            Dim::Known(k) => n == k,
            Dim::Symbol { name: to, not_one } => env_size(env, to) == n && !(not_one && n == 1),
            _ => true,
        }
    })
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        1 => Just(Shape::unknown_rank()),
        6 => prop::collection::vec(dim(), 0..5).prop_map(Shape::from_dims),
    ]
}

/// A concrete shape admitted by `shape` under `env`.
fn instance(shape: &Shape, env: Env) -> BoxedStrategy<Vec<usize>> {
    match shape.dims() {
        None => prop::collection::vec(size(), 0..5).boxed(),
        Some(dims) => dims
            .iter()
            .map(|d| match *d {
                Dim::Known(n) => Just(n).boxed(),
                Dim::NotOne => select(vec![0usize, 2, 3]).boxed(),
                Dim::Unknown => size().boxed(),
                Dim::Symbol { name, .. } => Just(env_size(env, name)).boxed(),
            })
            .collect::<Vec<_>>()
            .boxed(),
    }
}

/// A partial shape that `env` fits, and a concrete instance of it under `env`.
fn shape_with_instance(env: Env) -> impl Strategy<Value = (Shape, Vec<usize>)> {
    shape().prop_flat_map(move |s| {
        let s = fit(s, env);
        let inst = instance(&s, env);
        (Just(s), inst)
    })
}

/// 2 to 4 partial shapes with one concrete instance each, under one environment.
fn shapes_with_instances() -> impl Strategy<Value = Vec<(Shape, Vec<usize>)>> {
    env().prop_flat_map(|env| prop::collection::vec(shape_with_instance(env), 2..=4))
}

fn concrete_refs(pairs: &[(Shape, Vec<usize>)]) -> Vec<&[usize]> {
    pairs.iter().map(|(_, c)| c.as_slice()).collect()
}

/// Whether `trailing` admits the last axes of `out`.
fn ends_with(out: &[usize], trailing: &Shape) -> bool {
    let dims = trailing.dims().expect("trailing has known rank");
    out.len() >= dims.len()
        && dims
            .iter()
            .zip(&out[out.len() - dims.len()..])
            .all(|(d, &n)| d.admits(n))
}

/// Pattern text over few names (so that they repeat) with at most one variadic segment.
fn pattern_text() -> impl Strategy<Value = String> {
    let item = prop_oneof![
        2 => size().prop_map(|n| n.to_string()),
        1 => Just("_".to_string()),
        3 => select(vec!["a", "b"]).prop_map(str::to_string),
        2 => select(vec!["#a", "#b"]).prop_map(str::to_string),
    ];
    (
        prop::collection::vec(item, 0..5),
        prop_oneof![Just(None), Just(Some("...")), Just(Some("*s"))],
        any::<prop::sample::Index>(),
    )
        .prop_map(|(mut items, variadic, at)| {
            if let Some(v) = variadic {
                items.insert(at.index(items.len() + 1), v.to_string());
            }
            items.join(" ")
        })
}

/// Bindings made before matching: maybe `a`, maybe the segment `s`.
fn prior_bindings() -> impl Strategy<Value = Bindings> {
    (
        prop::option::of(size()),
        prop::option::of(prop::collection::vec(size(), 0..3)),
    )
        .prop_map(|(a, s)| {
            let mut b = Bindings::new();
            if let Some(a) = a {
                b.bind("a", a).unwrap();
            }
            if let Some(s) = s {
                b.bind_segment("s", &s).unwrap();
            }
            b
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// A name bound beforehand to a symbol (a chained refinement) checks the same as the name
    /// bound to the symbol's size: `verify_with` reads that size from the bindings.
    #[test]
    fn names_bound_to_symbols_agree_with_sizes(
        text in pattern_text(),
        (env, (partial, concrete)) in env().prop_flat_map(|env| (Just(env), shape_with_instance(env))),
    ) {
        let pattern: ShapePattern = text.parse().unwrap();
        let mut symbolic = Bindings::new();
        symbolic.bind_symbol("a", sym("s")).unwrap();
        let mut sized = Bindings::new();
        sized.bind("a", env.0).unwrap();
        let mut sizes = Bindings::new();
        sizes.bind("s", env.0).unwrap();
        let enforced = pattern.enforce_with(&concrete, &mut sized.clone());
        match pattern.refine_with(&partial, &symbolic) {
            Err(e) => prop_assert!(
                enforced.is_err(),
                "`{}` on {} with a = $s failed statically ({}) but {:?} matches with a = {}",
                text, partial, e, concrete, env.0
            ),
            Ok(refined) => {
                let verified = refined.verify_with(&concrete, &sizes);
                prop_assert_eq!(
                    verified.is_ok(), enforced.is_ok(),
                    "`{}` on {} (checks {:?}): verify {:?}, enforce {:?} on {:?} with $s = {}",
                    text, partial, refined.checks, verified, enforced, concrete, env.0
                );
                if enforced.is_ok() {
                    prop_assert!(refined.shape.admits(&concrete));
                }
            }
        }
    }

    /// Refining a partial shape, then checking a concrete shape it admits, agrees with enforcing
    /// the pattern on that concrete shape; a static failure means every instance fails.
    #[test]
    fn pattern_refine_agrees_with_enforce(
        text in pattern_text(),
        pair in env().prop_flat_map(shape_with_instance),
        prior in prior_bindings(),
    ) {
        let (partial, concrete) = pair;
        let pattern: ShapePattern = text.parse().unwrap();
        prop_assert_eq!(pattern.to_string().parse::<ShapePattern>().unwrap(), pattern.clone());
        let mut bindings = prior.clone();
        let enforced = pattern.enforce_with(&concrete, &mut bindings);
        match pattern.refine_with(&partial, &prior) {
            Err(e) => prop_assert!(
                enforced.is_err(),
                "`{}` on {} failed statically ({}) but {:?} matches", text, partial, e, concrete
            ),
            Ok(refined) => {
                let verified = refined.verify(&concrete);
                prop_assert_eq!(
                    verified.is_ok(), enforced.is_ok(),
                    "`{}` on {} with checks {:?}: verify {:?}, enforce {:?} on {:?}",
                    text, partial, refined.checks, verified, enforced, concrete
                );
                if enforced.is_ok() {
                    prop_assert!(refined.shape.admits(&concrete));
                    prop_assert!(refined.outline.admits(&concrete));
                    for (name, size) in refined.known.iter() {
                        prop_assert_eq!(bindings.get(name), Some(size));
                    }
                    // A symbol bound to a size has that size (the instance fixes the symbols).
                    for b in refined.symbols.iter() {
                        if let (Dim::Known(n), Some(dims)) = (b.to, partial.dims()) {
                            for (d, &c) in dims.iter().zip(&concrete) {
                                if d.as_symbol() == Some(b.symbol) {
                                    prop_assert_eq!(c, n);
                                }
                            }
                        }
                    }
                } else {
                    prop_assert_eq!(&bindings, &prior);
                }
                // Introducing symbols changes the static shape, not what passes.
                let symbolic = pattern.refine_symbolic(&partial, &prior).unwrap();
                prop_assert_eq!(symbolic.verify(&concrete).is_ok(), enforced.is_ok());
                if enforced.is_ok() {
                    prop_assert!(symbolic.shape.admits(&concrete));
                    prop_assert!(symbolic.outline.admits(&concrete));
                    prop_assert!(symbolic.shape.is_at_least_as_specific_as(&refined.shape)
                        || refined.shape.has_symbols() || symbolic.shape.has_symbols());
                }
            }
        }
    }

    /// Joint static refinement never rules out shapes that unify, and what it learns holds for
    /// them.
    #[test]
    fn joint_refinement_agrees_with_unify(
        inputs in env().prop_flat_map(|env| prop::collection::vec(
            (pattern_text(), shape_with_instance(env)),
            1..=3,
        ))
    ) {
        let mut unifier = Unifier::new();
        for (text, _) in &inputs {
            unifier = unifier.positional(text).unwrap();
        }
        let partials: Vec<&Shape> = inputs.iter().map(|(_, (s, _))| s).collect();
        let concrete: Vec<&[usize]> = inputs.iter().map(|(_, (_, c))| c.as_slice()).collect();
        let unified = unifier.unify(&concrete);
        match unifier.refine(&partials) {
            Err(e) => prop_assert!(unified.is_err(), "static error {} but {:?} unify", e, concrete),
            Ok(joint) => {
                if let Ok(bindings) = unified {
                    for (refined, c) in joint.shapes.iter().zip(&concrete) {
                        prop_assert!(refined.admits(c), "{} does not admit {:?}", refined, c);
                    }
                    for (name, size) in joint.known.iter() {
                        prop_assert_eq!(bindings.get(name), Some(size));
                    }
                    // Introduced symbols hold too: each names one size across all inputs.
                    let symbolic = unifier.refine_symbolic(&partials).unwrap();
                    let mut sizes: Vec<(String, usize)> = Vec::new();
                    for (refined, c) in symbolic.shapes.iter().zip(&concrete) {
                        prop_assert!(refined.admits(c), "{} does not admit {:?}", refined, c);
                        for (d, &n) in refined.dims().unwrap_or_default().iter().zip(*c) {
                            let Some(name) = d.as_symbol() else { continue };
                            match sizes.iter().find(|(s, _)| s == name.as_str()) {
                                Some((_, m)) => prop_assert_eq!(*m, n, "${} in {:?}", name, symbolic.shapes),
                                None => sizes.push((name.as_str().to_string(), n)),
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn pattern_parser_never_panics(text in "\\PC{0,24}") {
        if let Ok(p) = text.parse::<ShapePattern>() {
            prop_assert_eq!(p.to_string().parse::<ShapePattern>().unwrap(), p);
        }
    }

    #[test]
    fn pattern_parser_on_near_patterns(text in "[ab_#*.0-9 ,?]{0,16}") {
        match text.parse::<ShapePattern>() {
            Ok(p) => prop_assert_eq!(p.to_string().parse::<ShapePattern>().unwrap(), p),
            Err(e) => prop_assert!(e.to_string().contains("at position"), "{}", e),
        }
    }

    #[test]
    fn compatibility_is_reflexive_and_symmetric(a in shape(), b in shape()) {
        prop_assert!(a.is_compatible_with(&a));
        prop_assert_eq!(a.is_compatible_with(&b), b.is_compatible_with(&a));
        prop_assert_eq!(a.is_compatible_with(&b), a.merge_with(&b).is_ok());
    }

    #[test]
    fn merge_is_the_meet(a in shape(), b in shape()) {
        prop_assert_eq!(a.merge_with(&a).unwrap(), a.clone());
        match (a.merge_with(&b), b.merge_with(&a)) {
            (Ok(ab), Ok(ba)) => {
                prop_assert_eq!(&ab, &ba);
                prop_assert!(ab.is_compatible_with(&a) && ab.is_compatible_with(&b));
                // The meet is below both, once what it learnt of the symbols is applied to them.
                let mut symbols = Symbols::new();
                prop_assert_eq!(&a.merge_with_symbols(&b, &mut symbols).unwrap(), &ab);
                prop_assert!(ab.is_at_least_as_specific_as(&symbols.apply(&a)), "{} {}", ab, symbols);
                prop_assert!(ab.is_at_least_as_specific_as(&symbols.apply(&b)), "{} {}", ab, symbols);
                prop_assert_eq!(symbols.apply(&ab), ab.clone());
            }
            (Err(_), Err(_)) => {}
            (x, y) => prop_assert!(false, "merge not commutative: {:?} vs {:?}", x, y),
        }
    }

    /// Under any sizes of the symbols: the meet admits exactly what both admit (where those sizes
    /// agree with the bindings it made), a failed meet means nothing is admitted by both, and the
    /// join admits what either admits.
    #[test]
    fn lattice_with_symbols_under_every_environment(
        a in shape(), b in shape(), env in env(), c in prop::collection::vec(size(), 0..5)
    ) {
        let (Some(sa), Some(sb)) = (subst(&a, env), subst(&b, env)) else {
            return Ok(());
        };
        let both = sa.admits(&c) && sb.admits(&c);
        // Equal symbols within one shape take equal sizes: `subst` already forces that.
        let mut symbols = Symbols::new();
        match a.merge_with_symbols(&b, &mut symbols) {
            Err(e) => prop_assert!(!both, "{} ∧ {} failed ({}) but {:?} fits both", a, b, e, c),
            Ok(m) => {
                if env_satisfies(env, &symbols) {
                    let sm = subst(&m, env);
                    prop_assert!(sm.is_some(), "{} from {} ∧ {} under {:?}", m, a, b, env);
                    prop_assert_eq!(sm.unwrap().admits(&c), both, "{} ∧ {} = {} ({})", a, b, m, symbols);
                } else {
                    prop_assert!(!both, "{} ∧ {} bound {} against {:?}, but {:?} fits both",
                        a, b, symbols, env, c);
                }
            }
        }
        let j = a.most_specific_compatible(&b);
        let sj = subst(&j, env).unwrap();
        if sa.admits(&c) || sb.admits(&c) {
            prop_assert!(sj.admits(&c), "{} ∨ {} = {} must admit {:?} under {:?}", a, b, j, c, env);
        }
    }

    #[test]
    fn most_specific_compatible_is_the_join(a in shape(), b in shape(), c in shape()) {
        let ab = a.most_specific_compatible(&b);
        prop_assert_eq!(&ab, &b.most_specific_compatible(&a));
        prop_assert_eq!(a.most_specific_compatible(&a), a.clone());
        prop_assert_eq!(
            ab.most_specific_compatible(&c),
            a.most_specific_compatible(&b.most_specific_compatible(&c))
        );
        prop_assert!(ab.is_compatible_with(&a) && ab.is_compatible_with(&b));
        prop_assert!(a.is_at_least_as_specific_as(&ab) && b.is_at_least_as_specific_as(&ab));
    }

    #[test]
    fn join_admits_what_either_admits(
        pair in env().prop_flat_map(shape_with_instance), other in shape()
    ) {
        let (a, concrete) = pair;
        prop_assert!(a.admits(&concrete));
        prop_assert!(a.most_specific_compatible(&other).admits(&concrete));
        // With symbols, `admits` picks their sizes per shape; the shared-size law is
        // `lattice_with_symbols_under_every_environment`.
        if let (Ok(m), false) = (a.merge_with(&other), a.has_symbols() || other.has_symbols()) {
            prop_assert_eq!(m.admits(&concrete), other.admits(&concrete));
        }
    }

    /// The check set passes exactly when NumPy broadcasting succeeds, with the same output, which
    /// the static result admits.
    #[test]
    fn static_broadcast_agrees_with_numpy(pairs in shapes_with_instances()) {
        let statics: Vec<&Shape> = pairs.iter().map(|(s, _)| s).collect();
        let concrete = concrete_refs(&pairs);
        let numpy = broadcast_shapes(&concrete);
        match broadcast_static(&statics, Policy::Numpy) {
            Err(e) => prop_assert!(
                numpy.is_err(),
                "statically impossible ({}) but {:?} broadcasts", e, concrete
            ),
            Ok(out) => {
                let run = out.checks.run(&concrete);
                match (&run, &numpy) {
                    (Ok(r), Ok(n)) => {
                        prop_assert_eq!(r, n);
                        prop_assert!(out.shape.admits(r), "{} does not admit {:?}", out.shape, r);
                        prop_assert!(ends_with(r, &out.trailing));
                        if out.shape.rank().is_some() {
                            prop_assert_eq!(&out.shape, &out.trailing);
                        }
                    }
                    (Err(_), Err(_)) => {}
                    _ => prop_assert!(
                        false,
                        "checks {} gave {:?} but NumPy gave {:?} on {:?}",
                        out.checks, run, numpy, concrete
                    ),
                }
            }
        }
    }

    /// Strict: the checks pass exactly when NumPy broadcasting succeeds and no dim other than a
    /// static 1 is stretched (an input of unknown rank has no static 1s).
    #[test]
    fn strict_broadcast_stretches_only_static_ones(pairs in shapes_with_instances()) {
        let statics: Vec<&Shape> = pairs.iter().map(|(s, _)| s).collect();
        let concrete = concrete_refs(&pairs);
        let numpy = broadcast_shapes(&concrete);
        let expected: Option<Sizes> = numpy.as_ref().ok().filter(|out| {
            pairs.iter().all(|(s, c)| {
                c.iter().enumerate().all(|(axis, &n)| {
                    let out_n = out[out.len() - c.len() + axis];
                    n == out_n || s.dims().is_some_and(|d| d[axis] == Dim::Known(1))
                })
            })
        }).cloned();
        match broadcast_static(&statics, Policy::Strict) {
            Err(_) => prop_assert!(numpy.is_err()),
            Ok(out) => {
                let run = out.checks.run(&concrete).ok();
                prop_assert_eq!(&run, &expected, "checks {} on {:?}", out.checks, concrete);
                if let Some(r) = run {
                    prop_assert!(out.shape.admits(&r));
                    prop_assert!(ends_with(&r, &out.trailing));
                }
            }
        }
    }

    #[test]
    fn shape_text_round_trips(s in shape()) {
        let text = s.to_string();
        prop_assert_eq!(text.parse::<Shape>().unwrap(), s);
    }

    #[test]
    fn shape_parser_never_panics(text in "\\PC{0,24}") {
        let _ = text.parse::<Shape>();
        let _ = text.parse::<Dim>();
    }

    #[test]
    fn shape_parser_on_near_shapes(text in "[\\[\\]?!*, 0-9x$n]{0,16}") {
        if let Ok(s) = text.parse::<Shape>() {
            // Whatever parses prints back to text that parses to the same shape.
            prop_assert_eq!(s.to_string().parse::<Shape>().unwrap(), s);
        }
    }
}
