//! `ndl convert` of records with strings, lists and options (hdf5): a
//! compound dataset h5py writes with `string_dtype()` and `vlen_dtype()`
//! members, a nested compound and plain numbers becomes another `.h5`
//! that h5py reads back equal, with the same kinds of members, in bounded
//! memory (several blocks); a damaged variable-length length is refused
//! by name.

use crate::common;

use common::cli::{convert, converted, refused};
use common::{python312, run_with};

use std::path::Path;

/// argv: write|check, path, n, [dataset]. `write` makes `n` records in the
/// dataset `trades` (and a plain dataset `meta` beside it with a fourth
/// argument); `check` asserts the file's dataset (`dataset`, or its only
/// one) holds them, with h5py's variable-length kinds.
const RECORDS_PY: &str = r#"
import sys
import h5py, numpy as np
mode, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
s = h5py.string_dtype()
inner = np.dtype([("code", s), ("id", "<u2")])
dt = np.dtype([("id", "<i8"), ("name", s), ("levels", h5py.vlen_dtype(np.float32)),
               ("venue", inner), ("x", "<f8")])
words = ["", "é", "日本語", "plain ascii", "Ωmega ✓"]

def make(i):
    return (i - 5, words[i % 5] * (i % 3), np.arange(i % 4, dtype=np.float32) / 2,
            (words[(i + 1) % 5] + str(i % 7), i % 65536), i * 0.25)

def text(v):
    return v.decode("utf-8") if isinstance(v, bytes) else v

if mode == "write":
    a = np.empty(n, dt)
    for i in range(n):
        a[i] = make(i)
    with h5py.File(path, "w") as f:
        f.create_dataset("trades", data=a, chunks=(4096,), maxshape=(None,))
        if len(sys.argv) > 4:
            f.create_dataset("meta", data=np.arange(3))
    sys.exit(0)

with h5py.File(path, "r") as f:
    names = [sys.argv[4]] if len(sys.argv) > 4 else list(f)
    assert len(names) == 1, names
    ds = f[names[0]]
    assert ds.shape == (n,), ds.shape
    fields = ds.dtype.fields
    assert h5py.check_string_dtype(fields["name"][0]).encoding == "utf-8", fields
    assert h5py.check_vlen_dtype(fields["levels"][0]) == np.float32, fields
    venue = fields["venue"][0].fields
    assert h5py.check_string_dtype(venue["code"][0]).encoding == "utf-8", venue
    assert fields["id"][0] == np.int64 and fields["x"][0] == np.float64, fields
    a = ds[...]
for i in range(n):
    r, want = a[i], make(i)
    assert r["id"] == want[0], (i, r)
    assert text(r["name"]) == want[1], (i, r)
    assert r["levels"].dtype == np.float32 and r["levels"].tolist() == want[2].tolist(), (i, r)
    assert text(r["venue"]["code"]) == want[3][0] and r["venue"]["id"] == want[3][1], (i, r)
    assert r["x"] == want[4], (i, r)
print("ok", n)
"#;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// 150 000 records of 56 bytes in memory are three blocks of at
/// most 65 536.
const MANY: &str = "150000";

#[test]
fn h5py_variable_records_convert_to_h5_that_h5py_reads_back_equal() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("trades.h5");
    let dst = dir.path().join("copy.h5");
    run_with(&python312(), RECORDS_PY, &["write", s(&src), MANY]);
    converted(convert(&src, &dst, &[]), "h5py's records");
    let out = run_with(&python312(), RECORDS_PY, &["check", s(&dst), MANY]);
    assert_eq!(out.trim(), format!("ok {MANY}"));
    // And again from our own file, compressed.
    let again = dir.path().join("again.h5");
    converted(convert(&dst, &again, &["--codec", "gzip"]), "our records");
    let out = run_with(&python312(), RECORDS_PY, &["check", s(&again), MANY]);
    assert_eq!(out.trim(), format!("ok {MANY}"));
}

#[test]
fn the_member_asked_for_converts_beside_other_datasets() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("two.h5");
    run_with(&python312(), RECORDS_PY, &["write", s(&src), "11", "meta"]);
    // The whole file converts, the records among its datasets.
    let whole = dir.path().join("whole.h5");
    converted(convert(&src, &whole, &[]), "the whole file");
    let out = run_with(
        &python312(),
        RECORDS_PY,
        &["check", s(&whole), "11", "trades"],
    );
    assert_eq!(out.trim(), "ok 11");
    let dst = dir.path().join("out.h5");
    converted(convert(&src, &dst, &["--member", "trades"]), "--member");
    // The dataset keeps its name, as the plain path's do.
    let out = run_with(
        &python312(),
        RECORDS_PY,
        &["check", s(&dst), "11", "trades"],
    );
    assert_eq!(out.trim(), "ok 11");
}

/// argv: path. Three records `(id, levels)`, contiguous, whose second id
/// marks where its `levels` length is stored (the 4 bytes after it).
const CONTIGUOUS_PY: &str = r#"
import sys
import h5py, numpy as np
dt = np.dtype([("id", "<u8"), ("levels", h5py.vlen_dtype(np.float32))])
a = np.empty(3, dt)
for i in range(3):
    a[i] = (0x0123456789abcdef + i, np.arange(i + 1, dtype=np.float32))
with h5py.File(sys.argv[1], "w") as f:
    f.create_dataset("data", data=a)
"#;

#[test]
fn a_damaged_length_is_refused_naming_record_and_member() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("damaged.h5");
    run_with(&python312(), CONTIGUOUS_PY, &[s(&src)]);
    let mut bytes = std::fs::read(&src).unwrap();
    let mark = 0x0123_4567_89ab_cdef_u64.wrapping_add(1).to_le_bytes();
    let at = bytes.windows(8).position(|w| w == mark).unwrap();
    // 2³²-1 floats would be 16 GiB.
    bytes[at + 8..at + 12].copy_from_slice(&u32::MAX.to_le_bytes());
    std::fs::write(&src, bytes).unwrap();
    let dst = dir.path().join("out.h5");
    let run = convert(&src, &dst, &[]);
    refused(
        &run,
        &src,
        &[
            "`/data`",
            "record 1",
            "`levels`",
            "more than the whole file",
        ],
    );
    assert!(!dst.exists());
}

/// A dataset of sequences alone (h5py's `vlen_dtype()`, no compound) is
/// records of one list column, `value`: it goes to Parquet and netCDF-4
/// as pyarrow and netCDF4-python read them, and `.npy` refuses it by name.
#[test]
fn a_dataset_of_sequences_converts_as_one_list_column() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (h5, parquet, nc) = (d.join("v.h5"), d.join("v.parquet"), d.join("v.nc"));
    run_with(
        &python312(),
        r#"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    v = f.create_dataset("lengths", (4,), dtype=h5py.vlen_dtype(np.float64))
    for i, row in enumerate([[1.5], [], [2.0, 3.0, -1.0], [0.25]]):
        v[i] = np.array(row)
    f["other"] = np.arange(3)
"#,
        &[s(&h5)],
    );
    let member = ["--member", "lengths"];
    converted(convert(&h5, &parquet, &member), "h5 to parquet");
    converted(convert(&h5, &nc, &member), "h5 to nc");
    let npy = d.join("v.npy");
    refused(
        &convert(&h5, &npy, &member),
        &npy,
        &["column `value`", "variable-length lists"],
    );
    run_with(
        &python312(),
        r#"
import sys, pyarrow.parquet as pq, netCDF4
rows = [[1.5], [], [2.0, 3.0, -1.0], [0.25]]
assert pq.read_table(sys.argv[1]).to_pylist() == [{"value": r} for r in rows]
with netCDF4.Dataset(sys.argv[2]) as f:
    counts, flat = f["value_count"][:].tolist(), f["value"][:].tolist()
    assert f["value_count"].sample_dimension == "value_sample"
    assert [flat[sum(counts[:i]):sum(counts[:i + 1])] for i in range(4)] == rows
"#,
        &[s(&parquet), s(&nc)],
    );
}

/// A compound whose strings h5py stores ASCII (`string_dtype('ascii')`,
/// as PyTables and older tools write text) converts: HDF5 converts no
/// variable-length string of one character set to the other, and the
/// read failed with "unknown library error".
#[test]
fn ascii_variable_length_strings_in_a_compound_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("a.h5");
    run_with(
        &python312(),
        "import sys, h5py, numpy as np\n\
         t = np.dtype([('name', h5py.string_dtype('ascii')), ('tags', h5py.vlen_dtype(h5py.string_dtype('ascii'))), ('x', '<f8')])\n\
         r = np.empty(2, t)\n\
         r[0] = (b'a', np.array([b'p', b'q'], object), 1.0)\n\
         r[1] = (b'bc', np.array([], object), 2.0)\n\
         with h5py.File(sys.argv[1], 'w') as f:\n\
         \x20   f.create_dataset('r', data=r)\n",
        &[s(&src)],
    );
    let parquet = dir.path().join("a.parquet");
    converted(convert(&src, &parquet, &[]), "a.h5 to a.parquet");
    let h5 = dir.path().join("b.h5");
    converted(convert(&src, &h5, &[]), "a.h5 to b.h5");
    let got = run_with(
        &python312(),
        "import sys, h5py, pyarrow.parquet as pq\n\
         print(pq.read_table(sys.argv[1]).to_pylist())\n\
         with h5py.File(sys.argv[2]) as f:\n\
         \x20   print([(n.decode(), [t.decode() for t in g], x) for n, g, x in f['r'][:].tolist()])\n",
        &[s(&parquet), s(&h5)],
    );
    assert_eq!(
        got,
        "[{'name': 'a', 'tags': ['p', 'q'], 'x': 1.0}, {'name': 'bc', 'tags': [], 'x': 2.0}]\n\
         [('a', ['p', 'q'], 1.0), ('bc', [], 2.0)]\n",
        "{got}"
    );
}

/// A table of netCDF variables whose strings h5py stores ASCII (a
/// dimension scale and variables along it) converts: the strings were
/// read as UTF-8, which HDF5 does not convert them to ("unknown library
/// error").
#[test]
fn ascii_strings_in_a_table_of_variables_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("t.nc");
    run_with(
        &python312(),
        "import sys, h5py, numpy as np\n\
         with h5py.File(sys.argv[1], 'w') as f:\n\
         \x20   f['obs'] = np.arange(3, dtype='i4')\n\
         \x20   f['obs'].make_scale('obs')\n\
         \x20   f.create_dataset('name', data=np.array([b'a', b'bc', b''], object), dtype=h5py.string_dtype('ascii'))\n\
         \x20   f['x'] = np.array([1.5, 2.5, 3.5])\n\
         \x20   for v in ('name', 'x'):\n\
         \x20       f[v].dims[0].attach_scale(f['obs'])\n",
        &[s(&src)],
    );
    let parquet = dir.path().join("t.parquet");
    converted(convert(&src, &parquet, &[]), "t.nc to t.parquet");
    let got = run_with(
        &python312(),
        "import sys, pyarrow.parquet as pq\nprint(pq.read_table(sys.argv[1]).column('name').to_pylist())",
        &[s(&parquet)],
    );
    assert_eq!(got, "['a', 'bc', '']\n", "{got}");
}
