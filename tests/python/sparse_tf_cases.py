"""TensorFlow's answers for random `tf.sparse` cases, replayed by tests/sparse_tf_cases.rs.

    python tests/python/sparse_tf_cases.py > tests/python/fixtures/sparse_tf_cases.json

Needs TensorFlow (the file checked in was made with TensorFlow 2.21, CPU); not run in CI, which
replays the file. Each case names an op, its inputs (indices, values, dense shape; dense
operands), its arguments, and what TensorFlow returned: a SparseTensor, a dense tensor, or that
it raised. Non-finite floats and -0.0 are strings ("nan", "inf", "-inf", "-0").

The cases: ranks 1 to 3, dims 0 to 4, up to 14 entries (canonical, or in any order with repeated
indices), values with NaN, ±inf and both zeros, in f64, f32, i32 and i64 (`add`, `add_dense`,
`mul_dense`, `reduce_sum`, `reduce_max`, `concat`, `slice`, `transpose`, `reshape`,
`sparse_dense_matmul`); sums and products of random floats whose rounding depends on the order
(`reduce_sum`, `sparse_dense_matmul`); up to 48 entries with many repeated indices, where
TensorFlow's unstable sort decides their order (`reorder`, `transpose`, reductions, `concat`);
and f16 / bf16 products and reductions, whose rounding TensorFlow does its own way.
"""

import json
import math
import random

import numpy as np
import tensorflow as tf

R = random.Random(2026)
FLOATS = [-2.0, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0, math.nan, math.inf, -math.inf]
INTS = [-2, -1, 0, 1, 3, 100, 2**31 - 1]
CASES = []


def enc(x):
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0 and math.copysign(1, x) < 0:
        return "-0"
    return x


def out(x):
    if isinstance(x, tf.SparseTensor):
        return {"sparse": {"indices": x.indices.numpy().tolist(),
                           "values": [enc(v) for v in x.values.numpy().ravel()],
                           "shape": [int(d) for d in x.dense_shape.numpy()]}}
    a = x.numpy()
    return {"dense": {"shape": list(a.shape), "values": [enc(v) for v in a.ravel()]}}


def record(case, f):
    try:
        case["expect"] = out(f())
    except (tf.errors.InvalidArgumentError, ValueError) as e:
        case["expect"] = {"error": type(e).__name__}
    CASES.append(case)


class Maker:
    """Random operands of one dtype."""

    def __init__(self, dtype, pool):
        self.dtype, self.pool = dtype, pool

    def sparse(self, shape, canonical, most=14):
        n = int(np.prod(shape)) if shape else 1
        k = 0 if n == 0 else R.randint(0, min(R.choice([6, most]), n if canonical else most))
        offs = sorted(R.sample(range(n), k)) if canonical else [R.randrange(n) for _ in range(k)]
        idx = [[int(v) for v in np.unravel_index(o, shape)] for o in offs]
        return idx, [R.choice(self.pool) for _ in range(k)], shape

    def tf_sparse(self, s):
        idx, vals, shape = s
        return tf.SparseTensor(np.array(idx, np.int64).reshape(len(idx), len(shape)),
                               np.array(vals, self.dtype), shape)

    def dense(self, shape):
        n = int(np.prod(shape)) if shape else 1
        return np.array([R.choice(self.pool) for _ in range(n)], self.dtype).reshape(shape)

    def case(self, op, **kw):
        c = {"op": op, "dtype": np.dtype(self.dtype).name}
        for k, v in kw.items():
            if isinstance(v, tuple):
                c[k] = {"indices": v[0], "values": [enc(x) for x in v[1]], "shape": v[2]}
            elif isinstance(v, np.ndarray):
                c[k] = {"shape": list(v.shape), "values": [enc(x) for x in v.ravel()]}
            else:
                c[k] = v
        return c


def shape(lo=1, hi=3):
    return [R.randint(0, 4) for _ in range(R.randint(lo, hi))]


def general(m):
    s = shape()
    a, b = m.sparse(s, R.random() < 0.6), m.sparse(s, R.random() < 0.6)
    th = R.choice([0.0, 0.0, 0.5, 1.5]) if m.dtype in (np.float32, np.float64) else R.choice([0, 0, 1, 2])
    record(m.case("add", a=a, b=b, threshold=th),
           lambda: tf.sparse.add(m.tf_sparse(a), m.tf_sparse(b), threshold=th))
    d = m.dense(s)
    record(m.case("add_dense", a=a, d=d), lambda: tf.sparse.add(m.tf_sparse(a), tf.constant(d)))
    k = R.randint(0, len(s))
    ds = [1 if R.random() < 0.4 else x for x in s[len(s) - k:]]
    if R.random() < 0.1:
        ds = [x + 1 for x in ds] or [2]
    d = m.dense(ds)
    record(m.case("mul_dense", a=a, d=d), lambda: m.tf_sparse(a) * tf.constant(d))
    r = len(s)
    for op, f in [("reduce_sum", tf.sparse.reduce_sum), ("reduce_max", tf.sparse.reduce_max)]:
        axes = None
        if R.random() >= 0.2:
            axes = sorted({R.choice([x, x - r]) for x in R.sample(range(r), R.randint(0, r))})
        kd, sp = R.random() < 0.5, R.random() < 0.5
        record(m.case(op, a=a, axes=axes, keepdims=kd, sparse_out=sp),
               lambda: f(m.tf_sparse(a), axis=axes, keepdims=kd, output_is_sparse=sp))
    ax = R.randrange(r)
    xs = []
    for _ in range(R.randint(1, 3)):
        s2 = list(s)
        s2[ax] = R.randint(0, 3)
        if R.random() < 0.3 and r > 1:
            s2[R.choice([i for i in range(r) if i != ax])] = R.randint(0, 4)
        xs.append(m.sparse(s2, R.random() < 0.7))
    ex, axj = R.random() < 0.5, R.choice([ax, ax - r])
    record(m.case("concat", axis=axj, expand=ex) | {"xs": [m.case("", x=x)["x"] for x in xs]},
           lambda: tf.sparse.concat(axj, [m.tf_sparse(x) for x in xs], expand_nonconcat_dims=ex))
    st, sz = [R.randint(0, x + 1) for x in s], [R.randint(0, x + 1) for x in s]
    record(m.case("slice", a=a, start=st, size=sz), lambda: tf.sparse.slice(m.tf_sparse(a), st, sz))
    perm = list(range(r))
    R.shuffle(perm)
    record(m.case("transpose", a=a, perm=perm), lambda: tf.sparse.transpose(m.tf_sparse(a), perm))
    n = int(np.prod(s))
    if n:
        first = R.choice([x for x in range(1, n + 1) if n % x == 0])
        ns = [first, n // first]
        if R.random() < 0.5:
            ns[R.randrange(2)] = -1
    else:
        ns = [0, R.randint(0, 3)]
    if R.random() < 0.1:
        ns = [n + 1]
    record(m.case("reshape", a=a, shape=ns), lambda: tf.sparse.reshape(m.tf_sparse(a), ns))
    if m.dtype == np.int64:
        return  # TensorFlow registers no int64 CPU kernel for SparseTensorDenseMatMul.
    rows, inner, cols = R.randint(0, 4), R.randint(0, 4), R.randint(0, 4)
    aa, ab = R.random() < 0.5, R.random() < 0.5
    sa = [inner, rows] if aa else [rows, inner]
    mat = m.sparse(sa, R.random() < 0.6)
    bd = m.dense([cols, inner] if ab else [inner, cols])
    if R.random() < 0.1:
        bd = m.dense([inner + 1, cols])
    record(m.case("matmul", a=mat, d=bd, adj_a=aa, adj_b=ab),
           lambda: tf.sparse.sparse_dense_matmul(m.tf_sparse(mat), tf.constant(bd),
                                                 adjoint_a=aa, adjoint_b=ab))


def rounding():
    dt = R.choice([np.float32, np.float64])
    m = Maker(dt, [])
    rows, inner, cols = R.randint(1, 5), R.randint(1, 24), R.randint(1, 4)
    aa, ab = R.random() < 0.5, R.random() < 0.5
    sa = [inner, rows] if aa else [rows, inner]
    nnz = R.randint(0, sa[0] * sa[1])
    offs = [R.randrange(sa[0] * sa[1]) for _ in range(nnz)]
    if R.random() < 0.5:
        offs.sort()
    a = ([[o // sa[1], o % sa[1]] for o in offs], [R.uniform(-1, 1) * 10 ** R.randint(-4, 4) for _ in offs], sa)
    a = (a[0], [float(v) for v in np.array(a[1], dt)], sa)
    bd = np.array([[R.uniform(-1, 1) for _ in range(inner if ab else cols)]
                   for _ in range(cols if ab else inner)], dt)
    record(m.case("matmul", a=a, d=bd, adj_a=aa, adj_b=ab),
           lambda: tf.sparse.sparse_dense_matmul(m.tf_sparse(a), bd, adjoint_a=aa, adjoint_b=ab))
    for axes in ([0], [1], None):
        record(m.case("reduce_sum", a=a, axes=axes, keepdims=False, sparse_out=False),
               lambda: tf.sparse.reduce_sum(m.tf_sparse(a), axis=axes))


def repeated():
    dt = R.choice([np.float32, np.float64])
    m = Maker(dt, [])
    r = R.randint(1, 3)
    s = [R.randint(1, 4) for _ in range(r)]
    n = R.randint(0, 48)
    vals = [R.uniform(-1, 1) * 10 ** R.randint(-4, 4) for _ in range(n)]
    for i in R.sample(range(n), min(n, 3)) if R.random() < 0.3 else []:
        vals[i] = R.choice([math.nan, math.inf, -0.0, 0.0])
    a = ([[R.randrange(d) for d in s] for _ in range(n)], [float(v) for v in np.array(vals, dt)], s)
    record(m.case("reorder", a=a), lambda: tf.sparse.reorder(m.tf_sparse(a)))
    perm = list(range(r))
    R.shuffle(perm)
    record(m.case("transpose", a=a, perm=perm), lambda: tf.sparse.transpose(m.tf_sparse(a), perm))
    axes = sorted(R.sample(range(r), R.randint(1, r)))
    for op, f in [("reduce_sum", tf.sparse.reduce_sum), ("reduce_max", tf.sparse.reduce_max)]:
        sp = R.random() < 0.5
        record(m.case(op, a=a, axes=axes, keepdims=False, sparse_out=sp),
               lambda: f(m.tf_sparse(a), axis=axes, output_is_sparse=sp))
    ax = R.randrange(r)
    s2 = list(s)
    s2[ax] = R.randint(1, 3)
    n2 = R.randint(0, 30)
    b = ([[R.randrange(d) for d in s2] for _ in range(n2)], [float(v) for v in np.array([R.uniform(-1, 1) for _ in range(n2)], dt)], s2)
    record(m.case("concat", axis=ax, expand=False) | {"xs": [m.case("", x=a)["x"], m.case("", x=b)["x"]]},
           lambda: tf.sparse.concat(ax, [m.tf_sparse(a), m.tf_sparse(b)]))


def halves():
    dt = R.choice([np.float16, tf.bfloat16.as_numpy_dtype])
    m = Maker(dt, [])
    rows, inner, cols = R.randint(1, 4), R.randint(1, 12), R.choice([1, 3, 33])
    aa, ab = R.random() < 0.5, R.random() < 0.5
    sa = [inner, rows] if aa else [rows, inner]
    offs = [R.randrange(sa[0] * sa[1]) for _ in range(R.randint(1, sa[0] * sa[1]))]
    vals = [R.uniform(-4, 4) * 10 ** R.randint(-1, 2) for _ in offs]
    if R.random() < 0.3:
        vals[R.randrange(len(vals))] = R.choice([math.nan, -0.0, 0.0])
    a = ([[o // sa[1], o % sa[1]] for o in offs], [float(v) for v in np.array(vals, dt)], sa)
    bd = np.array([[R.uniform(-4, 4) for _ in range(inner if ab else cols)]
                   for _ in range(cols if ab else inner)], dt)
    record(m.case("matmul", a=a, d=bd, adj_a=aa, adj_b=ab),
           lambda: tf.sparse.sparse_dense_matmul(m.tf_sparse(a), bd, adjoint_a=aa, adjoint_b=ab))
    for op, f in [("reduce_sum", tf.sparse.reduce_sum), ("reduce_max", tf.sparse.reduce_max)]:
        axes = R.choice([[0], [1], None])
        record(m.case(op, a=a, axes=axes, keepdims=False, sparse_out=False),
               lambda: f(m.tf_sparse(a), axis=axes))


def main():
    for _ in range(100):
        dt = R.choice([np.float64, np.float32, np.int32, np.int64])
        general(Maker(dt, FLOATS if dt in (np.float64, np.float32) else INTS))
    for _ in range(24):
        rounding()
    for _ in range(48):
        repeated()
    for _ in range(40):
        halves()
    print(json.dumps({"tensorflow": tf.__version__, "cases": CASES}, separators=(",", ":")))


main()
