//! `SparseTensor` against TensorFlow's own answers: `tests/python/sparse_tf_cases.py` ran 1430
//! random `tf.sparse` cases through TensorFlow 2.21 (see its docstring for what they cover) and
//! recorded what it returned; this test runs each through extype and compares, bits included
//! (NaN equal to NaN, `0.0` not equal to `-0.0`). Where TensorFlow raised, extype must return
//! an error. Every mismatch is listed, not only the first.

use std::collections::BTreeMap;

use extype::ndarray::{Array1, Array2, ArrayD, IxDyn};
use extype::ops;
use extype::types::{SparseTensor, sparse::sparse_dense_matmul};
use extype::{DType, Tensor};
use serde_json::Value as Json;

use crate::sparse_parts::sparse_of_tf_parts;

/// A JSON number, or one of "nan", "inf", "-inf", "-0".
fn number(v: &Json) -> f64 {
    match v {
        Json::String(s) => match s.as_str() {
            "nan" => f64::NAN,
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            "-0" => -0.0,
            other => panic!("not a number: {other}"),
        },
        _ => v.as_f64().expect("a number"),
    }
}

fn ints(v: &Json) -> Vec<i64> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|x| x.as_i64().expect("an integer"))
        .collect()
}

fn numbers(v: &Json) -> Vec<f64> {
    v.as_array().expect("an array").iter().map(number).collect()
}

/// One case's inputs and outputs, in its dtype.
struct Case<'a> {
    json: &'a Json,
    dtype: DType,
}

impl Case<'_> {
    fn cast(&self, t: Tensor) -> Tensor {
        ops::cast_as(&t, self.dtype).expect("the recorded values fit their dtype")
    }

    fn sparse(&self, v: &Json) -> extype::Result<SparseTensor> {
        let shape = ints(&v["shape"]);
        let rows: Vec<i64> = v["indices"]
            .as_array()
            .expect("indices")
            .iter()
            .flat_map(ints)
            .collect();
        let n = rows.len() / shape.len().max(1);
        let indices = Array2::from_shape_vec((n, shape.len()), rows).expect("rows of the rank");
        let values = self.cast(Tensor::from(Array1::from(numbers(&v["values"]))));
        sparse_of_tf_parts(indices, values, &shape)
    }

    fn dense(&self, v: &Json) -> Tensor {
        let shape: Vec<usize> = ints(&v["shape"]).iter().map(|&d| d as usize).collect();
        let values = numbers(&v["values"]);
        self.cast(Tensor::from(
            ArrayD::from_shape_vec(IxDyn(&shape), values).expect("the shape's elements"),
        ))
    }

    fn arg(&self, key: &str) -> &Json {
        &self.json[key]
    }
}

/// What an op returned.
enum Out {
    Sparse(Box<SparseTensor>),
    Dense(Tensor),
}

fn run(c: &Case<'_>) -> extype::Result<Out> {
    let a = || c.sparse(c.arg("a"));
    let bool_arg = |k: &str| c.arg(k).as_bool().expect("a bool");
    let axes: Option<Vec<isize>> = c.arg("axes").as_array().map(|v| {
        v.iter()
            .map(|x| x.as_i64().expect("an axis") as isize)
            .collect()
    });
    Ok(match c.arg("op").as_str().expect("an op") {
        "add" => Out::Sparse(Box::new(a()?.add(
            &c.sparse(c.arg("b"))?,
            c.arg("threshold").as_f64().expect("a threshold"),
        )?)),
        "add_dense" => Out::Dense(ops::add_as(&a()?, &c.dense(c.arg("d")))?),
        "mul_dense" => Out::Sparse(Box::new(ops::mul_as(&a()?, &c.dense(c.arg("d")))?)),
        op @ ("reduce_sum" | "reduce_max") => {
            let x = a()?;
            let (keepdims, sparse) = (bool_arg("keepdims"), bool_arg("sparse_out"));
            let v = if op == "reduce_sum" {
                x.reduce_sum(axes.as_deref(), keepdims, sparse)?
            } else {
                x.reduce_max(axes.as_deref(), keepdims, sparse)?
            };
            if sparse {
                Out::Sparse(Box::new(v.downcast::<SparseTensor>()?))
            } else {
                Out::Dense(v.into_tensor()?)
            }
        }
        "concat" => {
            let xs = c
                .arg("xs")
                .as_array()
                .expect("inputs")
                .iter()
                .map(|x| c.sparse(x))
                .collect::<extype::Result<Vec<_>>>()?;
            let refs: Vec<&SparseTensor> = xs.iter().collect();
            let axis = c.arg("axis").as_i64().expect("an axis") as isize;
            Out::Sparse(Box::new(SparseTensor::concat(
                &refs,
                axis,
                bool_arg("expand"),
            )?))
        }
        "slice" => Out::Sparse(Box::new(
            a()?.slice(&ints(c.arg("start")), &ints(c.arg("size")))?,
        )),
        "transpose" => {
            let perm: Vec<usize> = ints(c.arg("perm")).iter().map(|&p| p as usize).collect();
            Out::Sparse(Box::new(a()?.transpose(Some(&perm))?))
        }
        "reshape" => Out::Sparse(Box::new(a()?.reshape(&ints(c.arg("shape")))?)),
        "reorder" => Out::Sparse(Box::new(a()?.reorder()?)),
        "matmul" => Out::Dense(sparse_dense_matmul(
            &a()?,
            &c.dense(c.arg("d")),
            bool_arg("adj_a"),
            bool_arg("adj_b"),
        )?),
        other => panic!("unknown op {other}"),
    })
}

/// The same numbers, bits included (NaN equal to NaN; zeros by sign).
fn same(got: &[f64], want: &[f64]) -> bool {
    got.len() == want.len()
        && got.iter().zip(want).all(|(a, b)| {
            (a.is_nan() && b.is_nan()) || (a == b && a.is_sign_negative() == b.is_sign_negative())
        })
}

fn as_f64(t: &Tensor) -> Vec<f64> {
    let wide: Tensor = ops::cast_as(t, DType::F64).expect("a numeric tensor");
    wide.into_array::<f64, IxDyn>()
        .expect("f64")
        .iter()
        .copied()
        .collect()
}

/// Why `out` is not what TensorFlow returned, if it is not.
fn mismatch(out: extype::Result<Out>, expect: &Json) -> Option<String> {
    if expect.get("error").is_some() {
        return out
            .is_ok()
            .then(|| "TensorFlow raised; extype returned a value".into());
    }
    let out = match out {
        Ok(out) => out,
        Err(e) => return Some(format!("extype raised: {e}")),
    };
    match (out, expect.get("sparse"), expect.get("dense")) {
        (Out::Sparse(s), Some(want), _) => {
            let indices: Vec<i64> = s.indices_array().iter().copied().collect();
            let want_indices: Vec<i64> = want["indices"]
                .as_array()
                .expect("indices")
                .iter()
                .flat_map(ints)
                .collect();
            let shape: Vec<i64> = s.dense_shape().iter().map(|&d| d as i64).collect();
            let values = as_f64(s.values());
            let want_values = numbers(&want["values"]);
            (indices != want_indices
                || shape != ints(&want["shape"])
                || !same(&values, &want_values))
            .then(|| format!("got {s}; TensorFlow: {want}"))
        }
        (Out::Dense(t), _, Some(want)) => {
            let shape: Vec<i64> = t.shape().iter().map(|&d| d as i64).collect();
            let values = as_f64(&t);
            (shape != ints(&want["shape"]) || !same(&values, &numbers(&want["values"])))
                .then(|| format!("got {values:?} of shape {shape:?}; TensorFlow: {want}"))
        }
        _ => Some(format!("a result of the wrong kind; TensorFlow: {expect}")),
    }
}

#[test]
fn sparse_ops_give_tensorflow_s_answers() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/python/fixtures/sparse_tf_cases.json"
    );
    let text = std::fs::read_to_string(path).expect("the recorded cases");
    let doc: Json = serde_json::from_str(&text).expect("JSON");
    let cases = doc["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), 1430, "the recorded cases, all of them");
    let mut failures: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for json in cases {
        let dtype = match json["dtype"].as_str().expect("a dtype") {
            "float64" => DType::F64,
            "float32" => DType::F32,
            "int32" => DType::I32,
            "int64" => DType::I64,
            "float16" => DType::F16,
            "bfloat16" => DType::BF16,
            other => panic!("dtype {other}"),
        };
        let case = Case { json, dtype };
        if let Some(why) = mismatch(run(&case), &json["expect"]) {
            let op = json["op"].as_str().expect("an op").to_string();
            failures
                .entry(op)
                .or_default()
                .push(format!("{why}\n  case: {json}"));
        }
    }
    let report: Vec<String> = failures
        .iter()
        .map(|(op, f)| format!("{op}: {} cases, first:\n{}", f.len(), f[0]))
        .collect();
    assert!(failures.is_empty(), "{}", report.join("\n"));
}
