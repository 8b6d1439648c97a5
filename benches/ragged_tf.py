"""The work of benches/ragged.rs in TensorFlow, for the second column of BENCHMARKS.md
("RaggedTensor"). Not run in CI (TensorFlow is not a dependency of the project):

    python benches/ragged_tf.py        # a Python with tensorflow and numpy

Prints the median of several runs of each case, eager mode, CPU.
"""

import time

import numpy as np
import tensorflow as tf

ROWS = 1 << 20
VALUES = 1 << 24


def lengths(rows, total, seed):
    rng = np.random.default_rng(seed)
    out = rng.integers(0, 32, rows, dtype=np.int64)
    diff = total - int(out.sum())
    # Spread the difference over the rows (keeping lengths >= 0), as the Rust bench does.
    i = 0
    step = 1 if diff > 0 else -1
    while diff != 0:
        if step > 0 or out[i % rows] > 0:
            out[i % rows] += step
            diff -= step
        i += 1
    return out


def median(f, rounds):
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    times.sort()
    return times[len(times) // 2]


def main():
    vals = (np.arange(VALUES) % 1000).astype(np.float32) * 0.001
    lens = lengths(ROWS, VALUES, 1)
    rt = tf.RaggedTensor.from_row_lengths(vals, lens)
    t = median(lambda: tf.reduce_sum(rt, axis=1).numpy(), 11)
    print(f"row sums of 1 Mi rows / 16 Mi f32: tf.reduce_sum(axis=1) {t * 1e3:.2f} ms")

    t = median(lambda: tf.RaggedTensor.from_row_lengths(vals, lens), 11)
    print(f"build from 16 Mi values + 1 Mi row lengths: from_row_lengths {t * 1e3:.2f} ms")
    t = median(lambda: vals.copy(), 11)
    print(f"  (numpy copy of the values {t * 1e3:.2f} ms)")

    small = tf.RaggedTensor.from_row_lengths(
        np.array([1, 2, 3, 4, 5, 6], np.float32), np.array([3, 0, 2, 1], np.int64)
    )
    calls = 1000

    def many(f):
        def run():
            for _ in range(calls):
                f()

        return run

    t = median(many(lambda: small + small), 21) / calls
    print(f"one op on a 4-row tensor: a + a {t * 1e6:.1f} us", end="")
    t = median(many(lambda: small * 2.0), 21) / calls
    print(f", a * 2.0 {t * 1e6:.1f} us", end="")
    t = median(many(lambda: tf.reduce_sum(small, axis=1)), 21) / calls
    print(f", reduce_sum axis 1 {t * 1e6:.1f} us")

    items = [
        tf.RaggedTensor.from_row_lengths(
            (np.arange(256) % 1000).astype(np.float32) * 0.001, lengths(16, 256, k + 7)
        )
        for k in range(1024)
    ]
    t = median(lambda: tf.stack(items, axis=0), 11)
    print(f"stack of 1024 ragged tensors (16 rows, 256 f32 each): tf.stack {t * 1e3:.2f} ms", end="")
    ds = tf.data.Dataset.from_tensor_slices(tf.stack(items, axis=0))

    def batch_once():
        for b in ds.ragged_batch(1024):
            b.flat_values.numpy()

    t = median(batch_once, 5)
    print(f", tf.data ragged_batch(1024) {t * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
