"""Ragged interop check, run by tests/python_interop.rs (see .ci/run).

    python ragged_rows.py FILE

FILE is an `extype.RaggedTensor` saved by `extype::io`: its flat values and one row-splits
array per ragged dimension are plain tensors (`flat_values`, `nested_row_splits[0]`, …). This
script rebuilds the nested rows with NumPy from the file alone (no extype, no TensorFlow) and
prints them as JSON, with the registered type name from the metadata.
"""

import json
import sys

import numpy as np
from safetensors import safe_open
from safetensors.numpy import load_file


def rows(values, splits):
    return [values[splits[i] : splits[i + 1]] for i in range(len(splits) - 1)]


def main(path):
    tensors = load_file(path)
    with safe_open(path, framework="np") as f:
        meta = f.metadata() or {}
    flat = tensors["flat_values"]
    levels = []
    while f"nested_row_splits[{len(levels)}]" in tensors:
        levels.append(tensors[f"nested_row_splits[{len(levels)}]"])
    assert levels, "no row splits in the file"
    for s in levels:
        assert s.dtype == np.int64 and s.ndim == 1 and s[0] == 0, s
    # Innermost first: group the flat values into rows, then those rows into rows, ...
    nested = [v.tolist() for v in flat]
    for s in reversed(levels):
        nested = [nested[s[i] : s[i + 1]] for i in range(len(s) - 1)]
    print(json.dumps({"type": meta.get("type"), "rows": nested}))


if __name__ == "__main__":
    main(sys.argv[1])
