"""SparseTensor interop check, run by tests/sparse_python.rs (see .ci/run).

    python sparse.py RANK2_FILE RANK3_FILE

Reads SparseTensors that extype saved, from the files alone: the safetensors layout is parsed
by hand (an 8-byte little-endian header length, the JSON header, then the raw bytes), so only
NumPy is needed; the rank-2 value is also built as a scipy.sparse.coo_array when SciPy is
installed. Checks the dense forms against the values the Rust test wrote and exits non-zero with
a message on any mismatch.
"""

import json
import struct
import sys

import numpy as np

DTYPES = {"F32": np.float32, "F64": np.float64, "I64": np.int64, "I32": np.int32}


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    meta = header.pop("__metadata__", {})
    body = data[8 + n :]
    tensors = {}
    for name, info in header.items():
        start, end = info["data_offsets"]
        arr = np.frombuffer(body[start:end], dtype=DTYPES[info["dtype"]])
        tensors[name] = arr.reshape(info["shape"])
    return tensors, meta


def dense(tensors):
    out = np.zeros(tuple(tensors["dense_shape"]), dtype=tensors["values"].dtype)
    out[tuple(tensors["indices"].T)] = tensors["values"]
    return out


def check(cond, message):
    if not cond:
        sys.exit(message)


def main():
    rank2, rank3 = sys.argv[1], sys.argv[2]
    t, meta = read(rank2)
    check("extype.SparseTensor" in json.dumps(meta), f"metadata names the type: {meta}")
    check(sorted(t) == ["dense_shape", "indices", "values"], f"tensor names: {sorted(t)}")
    want = np.array([[0.0, 1.5, 0.0, 0.0], [0.0, 0.0, 0.0, -2.0], [4.0, 0.0, 0.0, 0.0]], np.float32)
    check(np.array_equal(dense(t), want), f"rank 2 by numpy: {dense(t)}")
    try:
        from scipy.sparse import coo_array
    except ImportError:
        print("scipy not installed: coo_array check skipped")
    else:
        coo = coo_array((t["values"], tuple(t["indices"].T)), shape=tuple(t["dense_shape"]))
        check(np.array_equal(coo.toarray(), want), f"rank 2 by scipy: {coo.toarray()}")
        check(coo.nnz == 3, f"scipy nnz: {coo.nnz}")
    t, _ = read(rank3)
    want = np.zeros((2, 3, 4), np.int64)
    want[0, 1, 2] = 7
    want[1, 2, 3] = -1
    check(np.array_equal(dense(t), want), f"rank 3 by numpy: {dense(t)}")
    print("sparse interop ok")


main()
