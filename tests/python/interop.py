"""Interop check, run by tests/python_interop.rs (see .ci/run).

    python interop.py FROM_EXTYPE TO_EXTYPE TO_EXTYPE_PT HALVES HALVES_FROM_EXTYPE
    python interop.py --halves HALVES

Opens FROM_EXTYPE (written by extype) with Python's safetensors (numpy flavour) and checks its
tensor names, dtypes, shapes, values and metadata; then writes TO_EXTYPE with
safetensors.numpy.save_file for extype to load, and TO_EXTYPE_PT as the torch flavour writes
files: the same layout (safetensors.torch.save_file serializes through the same function) with
the metadata {"format": "pt"} that PyTorch checkpoints carry. (torch itself is not installed:
its wheels from the package registry are gigabytes.) Exits non-zero with a message on any
mismatch. HALVES gets half-precision weights as model files hold them: a bf16 and an f16 tensor
beside an f32 one, of values that exercise rounding, the edges of the formats, NaN and ±inf
(f16 rounded by numpy from float64; bf16 rounded to nearest even from float32 here, with its
bits written through safetensors.serialize_file under "bfloat16", as the torch flavour writes
it: numpy has no bfloat16). `--halves` writes only that file (for the CLI's test).
HALVES_FROM_EXTYPE holds half-precision tensors extype wrote: the f16 one is read with numpy's
float16, the bf16 one from its bytes (widened to float32 by shifting its bits).
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
    ("f16", np.float16),
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


# The values of the half-precision tensors, as float64; tests/python_interop.rs lists the same.
HALF_F = [0.5, 1.5, -0.0, 1 / 3, 0.1, 65504.0, 65519.0, 65520.0, 1e5, -1e5, 2.0**-24, 1e-5,
          2.0**-26, float("inf"), float("-inf"), float("nan")]
HALF_B = [1.0, 2.0, -2.5, 1 / 3, 0.1, 3.0e38, 3.4e38, 1e-40, -1e-45, 2.0**-133,
          float("inf"), float("-inf"), float("nan")]


def bf16_bits(values):
    """bfloat16 bits of float32(values): round to nearest even; NaN as the quiet NaN 0x7FC0."""
    f = np.array(values, dtype=np.float32)
    b = f.view(np.uint32).astype(np.uint64)
    rounded = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    return np.where(np.isnan(f), 0x7FC0, rounded).astype("<u2")


def write_halves(path):
    """bf16 HALF_B (shape [13]), f16 HALF_F (shape [2, 8]), f32 [1.5, 2.5]."""
    with np.errstate(over="ignore"):  # 1e5 overflows float16 to inf, as intended
        f16_data = np.array(HALF_F, dtype=np.float64).astype("<f2").tobytes()
    tensors = {
        "half_b": {"dtype": "bfloat16", "shape": [len(HALF_B)], "data": bf16_bits(HALF_B).tobytes()},
        "half_f": {
            "dtype": "float16",
            "shape": [2, len(HALF_F) // 2],
            "data": f16_data,
        },
        "weight": {
            "dtype": "float32",
            "shape": [2],
            "data": np.array([1.5, 2.5], dtype="<f4").tobytes(),
        },
    }
    serialize_file(tensors, path, {"format": "pt"})


def check_extype_halves(path):
    """The half tensors of `extype_halves()` in tests/python_interop.rs, bit for bit."""
    with open(path, "rb") as f:
        raw = f.read()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8 : 8 + n])
    data = raw[8 + n :]

    def tensor(name, dtype):
        entry = header[name]
        begin, end = entry["data_offsets"]
        return entry, np.frombuffer(data[begin:end], dtype=dtype).reshape(entry["shape"])

    entry, bits = tensor("half_b", "<u2")
    if entry["dtype"] != "BF16":
        sys.exit(f"half_b: expected BF16, found {entry['dtype']}")
    b = (bits.astype(np.uint32) << 16).view(np.float32)
    want = np.array([1.0, -2.5, 0.333984375, np.inf, np.nan, 2.0**-133], dtype=np.float32)
    if not np.array_equal(b, want, equal_nan=True):
        sys.exit(f"half_b: {b} (bits {bits}), expected {want}")
    entry, f = tensor("half_f", "<f2")
    if entry["dtype"] != "F16" or f.shape != (1, 3):
        sys.exit(f"half_f: {entry}")
    want = np.array([[0.1, 65504.0, -0.0]], dtype=np.float16)
    if not (np.array_equal(f, want) and np.signbit(f[0, 2])):
        sys.exit(f"half_f: {f}, expected {want}")
    # numpy's own reader agrees for float16.
    with safe_open(path, framework="numpy") as st:
        if not np.array_equal(st.get_tensor("half_f"), want):
            sys.exit("half_f: safetensors' numpy reader disagrees")


def main(src, dst, dst_pt, halves, halves_from_extype):
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
    check_extype_halves(halves_from_extype)
    print(f"python: checked {src} ({len(tensors)} tensors), wrote {dst} and {dst_pt}")


if __name__ == "__main__":
    if sys.argv[1] == "--halves":
        write_halves(sys.argv[2])
    else:
        main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
