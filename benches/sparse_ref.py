"""The work of benches/sparse.rs in SciPy and TensorFlow, on the same data (not run in CI).

    python benches/sparse_ref.py

Under glibc's defaults SciPy's add recycles its output memory (its arrays are below glibc's
largest adaptive mmap threshold); `GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072` makes every
call take fresh pages, as extype's 32 MiB index array does by default (see benches/sparse.rs).

Prints the median of 11 runs of each case, for whichever of scipy and tensorflow is installed.
The data is generated as benches/sparse.rs does: entry k of a tensor sits at row-major offset
(k * P + 12345) mod N (N the dense size), value k % 997 + 1, sorted by offset.
"""

import statistics
import time

import numpy as np

NNZ = 1 << 20
P_A = 2654435761
P_B = 2246822519


def entries(rows, cols, p):
    k = np.arange(NNZ, dtype=np.uint64)
    off = (k * np.uint64(p) + np.uint64(12345)) % np.uint64(rows * cols)
    val = (k % np.uint64(997) + np.uint64(1)).astype(np.float32)
    order = np.argsort(off, kind="stable")
    off, val = off[order], val[order]
    return (off // np.uint64(cols)).astype(np.int64), (off % np.uint64(cols)).astype(np.int64), val


def median_ms(f, rounds=11):
    f()
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        f()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def main():
    ra, ca, va = entries(65536, 65536, P_A)
    rb, cb, vb = entries(65536, 65536, P_B)
    rm, cm, vm = entries(100_000, 100_000, P_A)
    rs, cs, vs = entries(4096, 4096, P_A)
    dense = ((np.arange(100_000 * 64) % 101) * 0.01).astype(np.float32).reshape(100_000, 64)
    rows = []
    try:
        import scipy
        from scipy.sparse import coo_array
    except ImportError:
        print("scipy not installed: skipped")
    else:
        a = coo_array((va, (ra, ca)), shape=(65536, 65536)).tocsr()
        b = coo_array((vb, (rb, cb)), shape=(65536, 65536)).tocsr()
        m = coo_array((vm, (rm, cm)), shape=(100_000, 100_000)).tocsr()
        s = coo_array((vs, (rs, cs)), shape=(4096, 4096))
        rows.append((f"scipy {scipy.__version__} (CSR; COO for to_dense)",
                     median_ms(lambda: a + b), median_ms(lambda: m @ dense), median_ms(lambda: s.toarray())))
    try:
        import tensorflow as tf
    except ImportError:
        print("tensorflow not installed: skipped")
    else:
        def st(r, c, v, shape):
            return tf.SparseTensor(np.stack([r, c], 1), v, shape)
        a, b = st(ra, ca, va, [65536, 65536]), st(rb, cb, vb, [65536, 65536])
        m, s = st(rm, cm, vm, [100_000, 100_000]), st(rs, cs, vs, [4096, 4096])
        d = tf.constant(dense)
        rows.append((f"tensorflow {tf.__version__} (cpu, eager)",
                     median_ms(lambda: tf.sparse.add(a, b)),
                     median_ms(lambda: tf.sparse.sparse_dense_matmul(m, d)),
                     median_ms(lambda: tf.sparse.to_dense(s))))
    print("| library | add 1 Mi + 1 Mi | sparse_dense_matmul | to_dense |")
    print("|---|---|---|---|")
    for name, x, y, z in rows:
        print(f"| {name} | {x:.1f} ms | {y:.1f} ms | {z:.1f} ms |")


main()
