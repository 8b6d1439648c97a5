"""Writes tests/python/fixtures/masked_from_python.safetensors, the file `cargo run --example files`
reads: a masked tensor saved by Python's safetensors (numpy flavour), no extype metadata.

    target/pyenv/bin/python tests/python/make_fixture.py
"""

import pathlib

import numpy as np
from safetensors.numpy import save_file

out = pathlib.Path(__file__).parent / "fixtures" / "masked_from_python.safetensors"
save_file(
    {
        "values": np.array([[0.5, 1.5, 2.5], [3.5, 4.5, 5.5]], dtype=np.float32),
        "mask": np.array([[True, False, True], [True, True, False]]),
    },
    str(out),
    metadata={"written_by": "python safetensors.numpy"},
)
print(out)
