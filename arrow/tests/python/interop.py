"""Interop of extype-arrow with pyarrow, DuckDB, Polars and awkward, run by `arrow/tests/python_interop.rs`.

    python interop.py check DIR   reads DIR/from_extype.arrow and DIR/from_extype.parquet (written
                                  by the Rust test) with pyarrow and DuckDB, and checks them
    python interop.py write DIR   writes DIR/from_python.arrow and DIR/from_python.parquet with
                                  pyarrow, for the Rust test to load
    python interop.py engines DIR checks DuckDB's and pyarrow's means over the masked readings
                                  in DIR/readings.{arrow,parquet} against DIR/expected.json
    python interop.py write_nulls DIR  writes DIR/nulls.{arrow,parquet}: a fixed_shape_tensor
                                  column with null elements
    python interop.py ragged DIR  checks pyarrow's, DuckDB's, Polars' and awkward's sums over the
                                  ragged batch in DIR/ragged.{arrow,parquet} (and pyarrow's
                                  and DuckDB's over the sparse one beside it) against
                                  DIR/expected_ragged.json, then writes DIR/ragged_py.*

`make_golden.py` writes the same files as `write` into golden/, committed in the repository.

The data, on both sides (n = 4 items):
- extype writes column `m`, a batch of `extype.MaskedTensor` of items of shape [3]:
  values[i, j] = i + j, mask[i, j] = (i + j) % 3 != 0, the mask as the validity bitmap of the
  values' elements (child `values`, metadata `extype:validity` = `mask`); and column `t`, a plain f64 tensor
  [4, 2, 2] of 0..16.
- pyarrow writes `values` (pa.fixed_shape_tensor float32 [2, 3], dim_names h, w) of
  arange(24) / 2, `mask` (pa.fixed_shape_tensor bool [2, 3]) of arange(24) % 4 != 0, `perm` (a
  transposed NumPy array: shape [3, 2], permutation [1, 0]) whose logical value is
  arange(24).reshape(4, 3, 2).transpose(0, 2, 1) as int32, and `masked`, a registered
  pa.ExtensionType named extype.MaskedTensor holding values and mask.
"""

import json
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

N = 4


class ExtypeMasked(pa.ExtensionType):
    """extype.MaskedTensor as pyarrow sees it: a struct of two fixed-shape tensors, with
    extype's spec JSON as the serialized metadata."""

    def __init__(self, storage_type, spec_json):
        self.spec_json = spec_json
        super().__init__(storage_type, "extype.MaskedTensor")

    def __arrow_ext_serialize__(self):
        return self.spec_json.encode()

    @classmethod
    def __arrow_ext_deserialize__(cls, storage_type, serialized):
        return cls(storage_type, serialized.decode())


def masked_spec_json(item_shape):
    """extype's spec document of a batch of N masked tensors of `item_shape`."""
    shape = "[" + ", ".join(str(d) for d in [N, *item_shape]) + "]"
    spec = {
        "extype_spec": 1,
        "spec": {
            "spec": "extype.MaskedTensor",
            "value": {
                "map": {
                    "mask": {"tensor_spec": {"dtype": "bool", "shape": shape}},
                    "values": {"tensor_spec": {"dtype": "f32", "shape": shape}},
                },
                "order": ["values", "mask"],
            },
        },
    }
    return json.dumps(spec, separators=(",", ":"))


def python_table():
    values_np = (np.arange(N * 6, dtype=np.float32) / 2).reshape(N, 2, 3)
    mask_np = (np.arange(N * 6) % 4 != 0).reshape(N, 2, 3)
    values_type = pa.fixed_shape_tensor(pa.float32(), [2, 3], dim_names=["h", "w"])
    values = pa.ExtensionArray.from_storage(
        values_type, pa.FixedSizeListArray.from_arrays(pa.array(values_np.ravel()), 6)
    )
    mask = pa.FixedShapeTensorArray.from_numpy_ndarray(mask_np)
    perm_np = np.arange(N * 6, dtype=np.int32).reshape(N, 3, 2).transpose(0, 2, 1)
    perm = pa.FixedShapeTensorArray.from_numpy_ndarray(perm_np)
    assert perm.type.permutation == [1, 0], perm.type
    assert perm.type.shape == [3, 2], perm.type
    storage = pa.StructArray.from_arrays(
        [pa.FixedShapeTensorArray.from_numpy_ndarray(values_np), mask], ["values", "mask"]
    )
    masked = pa.ExtensionArray.from_storage(
        ExtypeMasked(storage.type, masked_spec_json([2, 3])), storage
    )
    return pa.table({"values": values, "mask": mask, "perm": perm, "masked": masked})


def write(directory):
    try:
        pa.register_extension_type(ExtypeMasked(pa.struct([]), ""))
    except pa.ArrowKeyError:
        pass  # registered already
    table = python_table()
    with ipc.new_file(str(directory / "from_python.arrow"), table.schema) as w:
        w.write_table(table)
    pq.write_table(table, str(directory / "from_python.parquet"))


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


def check_masked_column(table, where):
    field = table.schema.field("m")
    meta = field.metadata or {}
    expect(meta.get(b"ARROW:extension:name") == b"extype.MaskedTensor", f"{where}: name {meta}")
    spec = json.loads(meta[b"ARROW:extension:metadata"])
    expect(spec["extype_spec"] == 1, f"{where}: spec {spec}")
    expect(spec["spec"]["spec"] == "extype.MaskedTensor", f"{where}: spec {spec}")
    storage = field.type
    expect(pa.types.is_struct(storage), f"{where}: storage {storage}")
    # The mask is the validity bitmap of the values' elements, not a child of its own.
    names = [storage.field(i).name for i in range(storage.num_fields)]
    expect(names == ["values"], f"{where}: children {names}")
    child_meta = storage.field(0).metadata or {}
    expect(child_meta.get(b"extype:validity") == b"mask", f"{where}: child metadata {child_meta}")
    col = table.column("m").combine_chunks()
    i = np.arange(N)[:, None]
    j = np.arange(3)[None, :]
    values, mask = (i + j).astype(np.float32), (i + j) % 3 != 0
    child = col.field("values")
    expect(
        isinstance(child.type, pa.FixedShapeTensorType),
        f"{where}: values is {child.type}, not a fixed_shape_tensor",
    )
    expect(child.type.shape == [3], f"{where}: values shape {child.type.shape}")
    elements = child.storage.flatten()
    valid = elements.is_valid().to_numpy(zero_copy_only=False).reshape(N, 3)
    expect((valid == mask).all(), f"{where}: validity {valid}")
    got = elements.to_numpy(zero_copy_only=False).reshape(N, 3)
    expect((got[mask] == values[mask]).all(), f"{where}: values {got}")


def check_tensor_column(table, where):
    col = table.column("t").combine_chunks()
    expect(isinstance(col.type, pa.FixedShapeTensorType), f"{where}: t is {col.type}")
    expect(col.type.shape == [2, 2], f"{where}: t shape {col.type.shape}")
    expect(col.type.dim_names is None and col.type.permutation in (None, [0, 1]), str(col.type))
    got = col.to_numpy_ndarray()
    expect((got == np.arange(16.0).reshape(4, 2, 2)).all(), f"{where}: t values {got}")


def check(directory):
    with ipc.open_file(str(directory / "from_extype.arrow")) as r:
        table = r.read_all()
    check_masked_column(table, "IPC file")
    check_tensor_column(table, "IPC file")
    table = pq.read_table(str(directory / "from_extype.parquet"))
    check_masked_column(table, "Parquet")
    check_tensor_column(table, "Parquet")

    import duckdb

    path = str(directory / "from_extype.parquet")
    rows = duckdb.sql(f"SELECT m.values AS v, t FROM read_parquet('{path}')").fetchall()
    expect(len(rows) == N, f"DuckDB: {len(rows)} rows")
    for i, (v, t) in enumerate(rows):
        want = [float(i + j) if (i + j) % 3 != 0 else None for j in range(3)]
        expect(list(v) == want, f"DuckDB: row {i} values {v}")
        expect(list(t) == [float(4 * i + j) for j in range(4)], f"DuckDB: row {i} t {t}")
    total = duckdb.sql(f"SELECT sum(list_sum(m.values)) FROM read_parquet('{path}')").fetchall()[0]
    want = sum(i + j for i in range(N) for j in range(3) if (i + j) % 3 != 0)
    expect(total[0] == want, f"DuckDB: sum {total}")
    print("pyarrow", pa.__version__, "and duckdb", duckdb.__version__, "read extype's files")


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= 1e-6 * max(1.0, abs(b))


def engines(directory):
    """Engines that know nothing of extype skip the masked readings: DuckDB's `list_avg` per
    row and `avg` over all (Parquet; and the IPC file through pyarrow), pyarrow's
    `compute.mean` over the elements, and Polars' `arr.mean` per row and `mean` over all, against extype's own masked `reduce_mean`, which the
    Rust test wrote to expected.json (a row with no valid reading: null)."""
    import duckdb
    import pyarrow.compute as pc

    expected = json.loads((directory / "expected.json").read_text())
    rows, total = expected["rows"], expected["total"]
    parquet = str(directory / "readings.parquet")
    with ipc.open_file(str(directory / "readings.arrow")) as r:
        arrow_table = r.read_all()  # noqa: F841 (DuckDB scans it by name)
    for where, source in [("Parquet", f"read_parquet('{parquet}')"), ("IPC", "arrow_table")]:
        got = [
            r[0]
            for r in duckdb.sql(f"SELECT list_avg(r.values) FROM {source}").fetchall()
        ]
        expect(len(got) == len(rows), f"DuckDB {where}: {got}")
        expect(all(close(g, w) for g, w in zip(got, rows)), f"DuckDB {where}: {got} != {rows}")
        all_avg = duckdb.sql(
            f"SELECT avg(x) FROM (SELECT unnest(r.values) AS x FROM {source})"
        ).fetchall()[0][0]
        expect(close(all_avg, total), f"DuckDB {where}: avg {all_avg} != {total}")
        print(f"duckdb {where}: list_avg {got}, avg {all_avg}")
    for where, table in [("Parquet", pq.read_table(parquet)), ("IPC", arrow_table)]:
        elements = table.column("r").combine_chunks().field("values").storage.flatten()
        mean = pc.mean(elements).as_py()
        expect(close(mean, total), f"pyarrow {where}: mean {mean} != {total}")
        print(f"pyarrow {where}: compute.mean {mean}")
    # Polars keeps the extension types (`ext[extype.MaskedTensor]`): `ext.storage()` reaches the
    # struct, then the fixed-size list of values, whose nulls its means skip.
    import polars as pl

    ipc_file = str(directory / "readings.arrow")
    for where, frame in [("Parquet", pl.read_parquet(parquet)), ("IPC", pl.read_ipc(ipc_file))]:
        values = pl.col("r").ext.storage().struct.field("values").ext.storage()
        got = frame.select(values.arr.mean()).to_series().to_list()
        expect(len(got) == len(rows), f"Polars {where}: {got}")
        expect(all(close(g, w) for g, w in zip(got, rows)), f"Polars {where}: {got} != {rows}")
        all_mean = frame.select(values.arr.explode().mean()).item()
        expect(close(all_mean, total), f"Polars {where}: mean {all_mean} != {total}")
        print(f"polars {where}: arr.mean {got}, mean {all_mean}")


RAGGED = [[[1.0, 2.0], []], [], [[3.0], [4.0, 5.0, 6.0]], [[0.5, 0.25, 0.125]]]


def ragged(directory):
    """A batch of `extype.RaggedTensor` (DIR/ragged.{arrow,parquet}, column `r`, the items of
    RAGGED) is nested lists every engine computes on natively: each inner row's sum and each
    item's sum, against extype's own `reduce_sum` in DIR/expected_ragged.json. pyarrow sees
    `large_list<large_list<float>>` with the extension metadata, DuckDB `FLOAT[][]`, Polars a
    list column (inside `ext[extype.RaggedTensor]`), awkward `var * var * float32`. Then writes
    the same data as pyarrow's own `list<list<float>>` (i32 offsets) with our column's metadata,
    DIR/ragged_py.{arrow,parquet}, for the Rust test to load."""
    import duckdb
    import polars as pl
    import pyarrow.compute as pc

    expected = json.loads((directory / "expected_ragged.json").read_text())
    rows, items = expected["rows"], expected["items"]
    parquet = str(directory / "ragged.parquet")
    ipc_file = str(directory / "ragged.arrow")
    with ipc.open_file(ipc_file) as r:
        arrow_table = r.read_all()
    parquet_table = pq.read_table(parquet)
    tables = [("Parquet", parquet_table), ("IPC", arrow_table)]

    def same(got, want, what):
        """Equal lists of numbers, or of lists of numbers (within `close`)."""

        def eq(g, w):
            if isinstance(w, list):
                return isinstance(g, list) and len(g) == len(w) and all(map(eq, g, w))
            return close(g, w)

        expect(eq(got, want), f"{what}: {got} != {want}")

    for where, table in tables:
        field = table.schema.field("r")
        expect(
            field.metadata[b"ARROW:extension:name"] == b"extype.RaggedTensor",
            f"pyarrow {where}: metadata {field.metadata}",
        )
        item = pa.field("item", pa.float32(), nullable=False)
        want_type = pa.large_list(pa.field("item", pa.large_list(item), nullable=False))
        expect(field.type == want_type, f"pyarrow {where}: type {field.type}")
        col = table.column("r")
        lengths = pc.list_value_length(col).to_pylist()
        expect(lengths == [len(r) for r in rows], f"pyarrow {where}: lengths {lengths}")
        inner = pc.list_flatten(col)
        row_lengths = pc.list_value_length(inner).to_pylist()
        expect(row_lengths == [len(r) for it in RAGGED for r in it], f"pyarrow {where}: {row_lengths}")
        values = pc.list_flatten(inner)
        total = pc.sum(values).as_py()
        expect(close(total, sum(items)), f"pyarrow {where}: sum {total}")
        # Each value's item: the item of its row (list_parent_indices at both levels).
        item_of_row = pc.list_parent_indices(col)
        item = pc.take(item_of_row, pc.list_parent_indices(inner))
        grouped = pa.table({"item": item, "v": values}).group_by("item").aggregate([("v", "sum")])
        by_item = dict(zip(grouped["item"].to_pylist(), grouped["v_sum"].to_pylist()))
        same([by_item.get(i, 0.0) for i in range(len(items))], items, f"pyarrow {where} item sums")
        print(f"pyarrow {where}: {field.type}, list_flatten sum {total}, item sums {by_item}")

    for where, source in [("Parquet", f"read_parquet('{parquet}')"), ("IPC", "arrow_table")]:
        kind = duckdb.sql(f"SELECT typeof(r) FROM {source} LIMIT 1").fetchall()[0][0]
        got_rows = [
            r[0]
            for r in duckdb.sql(
                f"SELECT list_transform(r, lambda x: coalesce(list_sum(x), 0)) FROM {source}"
            ).fetchall()
        ]
        same(got_rows, rows, f"DuckDB {where} row sums")
        got_items = [
            r[0]
            for r in duckdb.sql(f"SELECT coalesce(list_sum(flatten(r)), 0) FROM {source}").fetchall()
        ]
        same(got_items, items, f"DuckDB {where} item sums")
        print(f"duckdb {where}: {kind}, list_sum per row {got_rows}, per item {got_items}")

    for where, frame in [("Parquet", pl.read_parquet(parquet)), ("IPC", pl.read_ipc(ipc_file))]:
        dtype = frame.schema["r"]
        col = pl.col("r").ext.storage() if "ext" in str(dtype).lower() else pl.col("r")
        row_sums = col.list.eval(pl.element().list.sum())
        got_rows = frame.select(row_sums).to_series().to_list()
        same(got_rows, rows, f"Polars {where} row sums")
        got_items = frame.select(row_sums.list.sum()).to_series().to_list()
        same(got_items, items, f"Polars {where} item sums")
        kind = str(dtype).split(",")[0] + ", " + str(dtype).split(",")[1] + ")"
        print(f"polars {where}: {kind}, list.sum per row {got_rows}, per item {got_items}")

    import awkward as ak

    for where, array in [
        ("Parquet", ak.from_parquet(parquet)["r"]),
        ("IPC", ak.from_arrow(arrow_table["r"])),
    ]:
        kind = str(array.type)
        expect(kind.endswith("var * var * float32"), f"awkward {where}: type {kind}")
        got_rows = ak.sum(array, axis=-1).to_list()
        same(got_rows, rows, f"awkward {where} row sums")
        got_items = ak.sum(ak.flatten(array, axis=2), axis=1).to_list()
        same(got_items, items, f"awkward {where} item sums")
        print(f"awkward {ak.__version__} {where}: {kind}, sum per row {got_rows}")

    # The sparse column `s` (the row layout): a struct per item of `indices`, `values` and
    # `dense_shape`, each {data: list, shape: fixed_size_list<int32>}; each item's sum is the sum
    # of its stored values, DuckDB's `list_sum(s.values.data)`.
    want = expected["sparse"]
    for where, table in tables:
        kind = table.schema.field("s").type
        names = [kind.field(i).name for i in range(kind.num_fields)]
        expect(names == ["indices", "values", "dense_shape"], f"pyarrow {where}: sparse {kind}")
        values = table.column("s").combine_chunks().field("values")
        # pyarrow 26 reads `values` from the IPC file as its canonical
        # `arrow.variable_shape_tensor` extension (the storage is the struct), from Parquet as
        # the plain struct.
        storage = values.storage if isinstance(values, pa.ExtensionArray) else values
        data = storage.field("data")
        got = [sum(v) for v in data.to_pylist()]
        same(got, want, f"pyarrow {where} sparse sums")
        print(f"pyarrow {where}: sparse values as {values.type}")
    for where, source in [("Parquet", f"read_parquet('{parquet}')"), ("IPC", "arrow_table")]:
        got = [
            r[0]
            for r in duckdb.sql(
                f"SELECT coalesce(list_sum(s.values.data), 0) FROM {source}"
            ).fetchall()
        ]
        same(got, want, f"DuckDB {where} sparse sums")
        print(f"duckdb {where}: sparse list_sum(s.values.data) {got}")

    # pyarrow's own nested lists (i32 offsets), carrying our column's metadata.
    field = parquet_table.schema.field("r")
    data = pa.array(RAGGED, type=pa.list_(pa.list_(pa.float32())))
    schema = pa.schema([pa.field("r", data.type, nullable=False, metadata=field.metadata)])
    table = pa.Table.from_arrays([data], schema=schema)
    with ipc.new_file(str(directory / "ragged_py.arrow"), table.schema) as w:
        w.write_table(table)
    pq.write_table(table, str(directory / "ragged_py.parquet"))


def write_nulls(directory):
    """A plain table of one `pa.fixed_shape_tensor` column `values` (float32 [2, 3]) with null
    elements: arange(24) / 2 where arange(24) % 5 != 0, null elsewhere; for the Rust test to
    load as a MaskedTensor."""
    flat = np.arange(N * 6, dtype=np.float32) / 2
    nulls = np.arange(N * 6) % 5 == 0
    storage = pa.FixedSizeListArray.from_arrays(pa.array(flat, mask=nulls), 6)
    values = pa.ExtensionArray.from_storage(pa.fixed_shape_tensor(pa.float32(), [2, 3]), storage)
    table = pa.table({"values": values})
    with ipc.new_file(str(directory / "nulls.arrow"), table.schema) as w:
        w.write_table(table)
    pq.write_table(table, str(directory / "nulls.parquet"))


if __name__ == "__main__":
    command, directory = sys.argv[1], Path(sys.argv[2])
    commands = {
        "check": check,
        "write": write,
        "engines": engines,
        "write_nulls": write_nulls,
        "ragged": ragged,
    }
    commands[command](directory)
