"""Writes the golden files in golden/ with pyarrow: from_python.arrow and from_python.parquet
(see interop.py for their content). `arrow/tests/python_interop.rs` loads them on every run, so
the check does not depend on today's pyarrow alone.

    target/pyenv/bin/python arrow/tests/python/make_golden.py
"""

from pathlib import Path

import pyarrow as pa

import interop

out = Path(__file__).parent / "golden"
out.mkdir(exist_ok=True)
interop.write(out)
(out / "WRITTEN_BY").write_text(f"pyarrow {pa.__version__}\n")
print(out)
