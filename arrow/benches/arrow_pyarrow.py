"""pyarrow on the data of `cargo bench -p extype-arrow --bench arrow` (not run in CI):
a struct column of 1 Mi masked items of 8 f32 (values (k % 1000) * 0.5, mask k % 3 != 0 for
element k), as pa.fixed_shape_tensor children. Times Parquet write and read (with extype's
settings, uncompressed with pyarrow's other defaults, and pyarrow's defaults), and an IPC file
write, medians of a few rounds. Then the bench's ragged batch (64 Ki items, item i of i % 16
rows, row k of (i + 7k) % 32 values, value v (v % 1000) * 0.5) as
large_list<large_list<float>>, written and read with extype's settings.

pyarrow's settings: `pq.write_table` (Arrow C++'s writer encodes the columns on the calling
thread: pyarrow exposes no thread option for writing) and `pq.read_table` with its defaults
(`use_threads=True`, `pre_buffer=True`; Arrow C++ parallelizes over top-level columns, and the
batch is one struct column).

    /path/to/python arrow/benches/arrow_pyarrow.py
"""

import os
import statistics
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

ITEMS, WIDTH = 1 << 20, 8
k = np.arange(ITEMS * WIDTH)
values = ((k % 1000) * 0.5).astype(np.float32).reshape(ITEMS, WIDTH)
mask = (k % 3 != 0).reshape(ITEMS, WIDTH)
storage = pa.StructArray.from_arrays(
    [
        pa.FixedShapeTensorArray.from_numpy_ndarray(values),
        pa.FixedShapeTensorArray.from_numpy_ndarray(mask),
    ],
    ["values", "mask"],
)
table = pa.table({"m": storage})
values_bytes = values.nbytes
all_bytes = values.nbytes + mask.nbytes


def median_ms(f, rounds):
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "b.parquet")
    settings = {
        "extype's settings: uncompressed, no dictionary, no statistics": dict(
            compression="none", use_dictionary=False, write_statistics=False
        ),
        "uncompressed": dict(compression="none"),
        "pyarrow's defaults (Snappy)": dict(),
    }
    for name, kwargs in settings.items():
        w = median_ms(lambda: pq.write_table(table, path, **kwargs), 5)
        r = median_ms(lambda: pq.read_table(path), 5)
        size = os.path.getsize(path) / (1 << 20)
        print(
            f"pyarrow {pa.__version__} Parquet ({name}): write {w:.1f} ms "
            f"({values_bytes / w / 1e6:.2f} GB/s of values, {all_bytes / w / 1e6:.2f} GB/s of "
            f"values and mask bytes), read {r:.1f} ms ({values_bytes / r / 1e6:.2f} GB/s, "
            f"{all_bytes / r / 1e6:.2f} GB/s); file {size:.1f} MiB"
        )
    path = os.path.join(d, "b.arrow")

    def write_ipc():
        with ipc.new_file(path, table.schema) as w:
            w.write_table(table)

    w = median_ms(write_ipc, 11)
    print(f"pyarrow IPC file write: {w:.1f} ms")

# The ragged batch of the bench's `ragged` case, built from its offsets (no Python loop over
# values).
outer, inner = [0], [0]
for i in range(1 << 16):
    for r in range(i % 16):
        inner.append(inner[-1] + (i + 7 * r) % 32)
    outer.append(len(inner) - 1)
flat = ((np.arange(inner[-1]) % 1000) * 0.5).astype(np.float32)
item = pa.field("item", pa.float32(), nullable=False)
rows = pa.LargeListArray.from_arrays(pa.array(inner, pa.int64()), pa.array(flat), type=pa.large_list(item))
row_field = pa.field("item", rows.type, nullable=False)
items = pa.LargeListArray.from_arrays(pa.array(outer, pa.int64()), rows, type=pa.large_list(row_field))
ragged = pa.table({"r": items})
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "r.parquet")
    kwargs = dict(compression="none", use_dictionary=False, write_statistics=False)
    w = median_ms(lambda: pq.write_table(ragged, path, **kwargs), 5)
    r = median_ms(lambda: pq.read_table(path), 5)
    size = os.path.getsize(path) / (1 << 20)
    print(
        f"pyarrow ragged ({len(flat) / (1 << 20):.1f} Mi f32, extype's settings): write "
        f"{w:.1f} ms, read {r:.1f} ms; file {size:.1f} MiB"
    )
