"""Interop check, run by tests/python_interop.rs (see .ci/run).

    python interop.py FROM_EXTYPE TO_EXTYPE TO_EXTYPE_PT HALVES

Opens FROM_EXTYPE (written by extype) with Python's safetensors (numpy flavour) and checks its
tensor names, dtypes, shapes, values and metadata; then writes TO_EXTYPE with
safetensors.numpy.save_file for extype to load, and TO_EXTYPE_PT as the torch flavour writes
files: the same layout (safetensors.torch.save_file serializes through the same function) with
the metadata {"format": "pt"} that PyTorch checkpoints carry. (torch itself is not installed:
its wheels from the package registry are gigabytes.) Exits non-zero with a message on any
mismatch. HALVES gets half-precision weights as model files hold them: a bf16 and an f16 tensor
beside an f32 one (bf16 through safetensors.serialize_file, as the torch flavour writes it:
numpy has no bfloat16).
"""

import json
import sys

import numpy as np
from safetensors import safe_open, serialize_file
from safetensors.numpy import load_file, save_file

# Field name -> numpy dtype, in the field order of `Interop` in tests/python_interop.rs.
FIELDS = [
    ("b", np.bool_),
    ("i8", np.int8),
    ("i16", np.int16),
    ("i32", np.int32),
    ("i64", np.int64),
    ("u8", np.uint8),
    ("u16", np.uint16),
    ("u32", np.uint32),
    ("u64", np.uint64),
    ("f32", np.float32),
    ("f64", np.float64),
]
SHAPE = (2, 3)


def extype_values(dtype):
    """What extype wrote: i for element i (bool: i is even)."""
    i = np.arange(6).reshape(SHAPE)
    return (i % 2 == 0) if dtype is np.bool_ else i.astype(dtype)


def python_values(dtype):
    """What Python writes: 3 i + 1 (bool: i is odd)."""
    i = np.arange(6).reshape(SHAPE)
    return (i % 2 == 1) if dtype is np.bool_ else (3 * i + 1).astype(dtype)


def write_halves(path):
    """bf16 [1.0, 2.0], f16 [[0.5, 1.5]], f32 [1.5, 2.5]."""
    bf16 = (np.array([1.0, 2.0], dtype=np.float32).view(np.uint32) >> 16).astype("<u2")
    tensors = {
        "half_b": {"dtype": "bfloat16", "shape": [2], "data": bf16.tobytes()},
        "half_f": {
            "dtype": "float16",
            "shape": [1, 2],
            "data": np.array([[0.5, 1.5]], dtype="<f2").tobytes(),
        },
        "weight": {
            "dtype": "float32",
            "shape": [2],
            "data": np.array([1.5, 2.5], dtype="<f4").tobytes(),
        },
    }
    serialize_file(tensors, path, {"format": "pt"})


def main(src, dst, dst_pt, halves):
    tensors = load_file(src)
    expected = {name for name, _ in FIELDS} | {"nested.values", "nested.mask"}
    if set(tensors) != expected:
        sys.exit(f"names: expected {sorted(expected)}, found {sorted(tensors)}")
    for name, dtype in FIELDS:
        t = tensors[name]
        if t.dtype != np.dtype(dtype) or t.shape != SHAPE:
            sys.exit(f"{name}: expected {np.dtype(dtype)}{SHAPE}, found {t.dtype}{t.shape}")
        if not np.array_equal(t, extype_values(dtype)):
            sys.exit(f"{name}: values differ: {t}")
    if tensors["nested.values"].dtype != np.float32 or tensors["nested.mask"].dtype != np.bool_:
        sys.exit("nested: wrong dtypes")
    with safe_open(src, framework="numpy") as f:
        meta = f.metadata()
    if meta.get("format") != "extype" or meta.get("type") != "tests.python.Interop":
        sys.exit(f"metadata: {meta}")
    json.loads(meta["spec"])  # the spec is JSON
    out = {name: python_values(dtype) for name, dtype in FIELDS}
    out["nested.values"] = np.array([[1.5, 2.5]], dtype=np.float32)
    out["nested.mask"] = np.array([[True, False]])
    save_file(out, dst)
    save_file(out, dst_pt, metadata={"format": "pt"})
    write_halves(halves)
    print(f"python: checked {src} ({len(tensors)} tensors), wrote {dst} and {dst_pt}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4])
