#!/usr/bin/env python3
"""Times the operations of `cargo bench -p extype-kernels` in NumPy and prints ratios.

Not run in CI. Usage:

    pip install numpy
    cargo bench -p extype-kernels            # writes target/extype-kernels-bench.tsv
    python3 kernels/bench/compare_numpy.py [path/to/extype-kernels-bench.tsv]

Prints, per size, NumPy's median time and input bandwidth for each operation, and when the
Rust summary file exists, NumPy time / extype-kernels time (> 1 means the kernels are faster).
"""

import os
import sys
import time

import numpy as np

SIZES = [("4 Ki", 4 << 10), ("1 Mi", 1 << 20), ("64 Mi", 64 << 20)]
INPUT_BYTES = {"masked sum": 5, "masked max": 5, "compaction": 5, "add": 8, "select": 9}


def median_time(fn, budget=0.7, max_reps=200):
    fn()  # warm up (and fault in pages)
    times = []
    start = time.perf_counter()
    while len(times) < max_reps and (time.perf_counter() - start < budget or len(times) < 5):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2]


def ops(n):
    rng = np.random.default_rng(1)
    a = (rng.random(n, dtype=np.float32) - 0.5).astype(np.float32)
    b = (rng.random(n, dtype=np.float32) - 0.5).astype(np.float32)
    m = a > 0
    cols = min(1024, n)
    a2 = a.reshape(n // cols, cols)
    row = rng.random(cols, dtype=np.float32)
    splits = np.unique(np.concatenate([np.arange(0, n + 1, 100), [n]]))
    ha, hb = a[: n // 2], a[n // 2 :]
    return {
        "sum": lambda: a.sum(),
        "max": lambda: a.max(),
        "argmax": lambda: a.argmax(),
        "masked max": lambda: a[m].max(),
        "masked max (where)": lambda: np.where(m, a, -np.inf).max(),
        "masked sum": lambda: a[m].sum(),
        "masked sum (where)": lambda: np.where(m, a, 0).sum(),
        "add": lambda: a + b,
        "add (row broadcast)": lambda: a2 + row,
        "exp": lambda: np.exp(a),
        "abs": lambda: np.abs(a),
        "segment sum": lambda: np.add.reduceat(a, splits[:-1]) if n else None,
        "select": lambda: np.where(m, a, b),
        "compaction": lambda: a[m],
        "stack": lambda: np.stack([ha, hb]),
        "concat": lambda: np.concatenate([ha, hb]),
    }


def read_rust(path):
    table = {}
    if not path or not os.path.exists(path):
        return table
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 3 and parts[0] != "size":
                table[(parts[0], parts[1])] = float(parts[2])
    return table


def main():
    default = os.path.join(os.path.dirname(__file__), "..", "..", "target", "extype-kernels-bench.tsv")
    rust = read_rust(sys.argv[1] if len(sys.argv) > 1 else default)
    print(f"numpy {np.__version__}")
    for label, n in SIZES:
        budget = 2.0 if n >= 1 << 24 else 0.7
        print(f"\n== {label} f32 elements")
        print(f"{'op':<22} {'numpy median':>14} {'GB/s in':>9} {'numpy/kernels':>14}")
        for name, fn in ops(n).items():
            t = median_time(fn, budget=budget, max_reps=20 if n >= 1 << 24 else 200)
            gbs = INPUT_BYTES.get(name.split(" (")[0], 4) * n / t / 1e9
            ours = rust.get((label, name))
            ratio = f"{t / ours:13.2f}x" if ours else f"{'-':>14}"
            print(f"{name:<22} {t * 1e6:12.2f} µs {gbs:9.2f} {ratio}")


if __name__ == "__main__":
    main()
