//! `ndl describe` and `ndl convert` of the Arrow IPC variants: a stream
//! pyarrow wrote (`.arrows`) converts to the `.npy` NumPy reads with the
//! same values, and back to a stream pyarrow reads; Feather v1 is refused
//! by name.

use crate::common;

use common::cli::{convert, converted, describe, ok, refused};
use ndl_testkit::python::{python312, run_with};

#[test]
fn streams_convert_both_ways_and_feather_v1_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (stream, npy, back, v1) = (
        d.join("s.arrows"),
        d.join("s.npy"),
        d.join("back.arrows"),
        d.join("old.feather"),
    );
    let path = |p: &std::path::Path| p.to_str().unwrap().to_string();
    run_with(
        &python312(),
        r#"
import sys, pyarrow as pa, pyarrow.ipc as ipc, pyarrow.feather as feather
t = pa.table({"id": pa.array(range(7), pa.uint32()),
              "t": pa.array([i / 4 for i in range(7)], pa.float64())})
with ipc.new_stream(sys.argv[1], t.schema) as w:
    w.write_table(t.slice(0, 3))
    w.write_table(t.slice(3))
feather.write_feather(t, sys.argv[2], version=1)
"#,
        &[&path(&stream), &path(&v1)],
    );
    let described = ok(describe(&stream, "datashape", &[]), "describe a stream");
    assert_eq!(described, "7 * {id: uint32, t: float64}\n");
    converted(convert(&stream, &npy, &[]), "stream to npy");
    converted(convert(&npy, &back, &[]), "npy to stream");
    run_with(
        &python312(),
        r#"
import sys, numpy as np, pyarrow.ipc as ipc
a = np.load(sys.argv[1])
assert a["id"].tolist() == list(range(7)), a
assert a["t"].tolist() == [i / 4 for i in range(7)], a
t = ipc.open_stream(sys.argv[2]).read_all()
assert t.column("id").to_pylist() == list(range(7)), t
"#,
        &[&path(&npy), &path(&back)],
    );
    refused(&convert(&v1, &d.join("v1.npy"), &[]), &v1, &["Feather v1"]);
}

/// `ndl convert SRC DEST` of a source that holds a bad value (issue #27):
/// the error names the source and the record in it, not the Parquet or
/// Arrow IPC destination, which is never published.
#[test]
fn a_bad_value_in_the_source_is_named_against_the_source_not_the_destination() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (bool_npy, text_npy) = (d.join("bool.npy"), d.join("text.npy"));
    run_with(
        &python312(),
        r#"
import sys, numpy as np
a = np.zeros(5, dtype=[("id", "<u4"), ("ok", "?")])
a.view(np.uint8).reshape(5, -1)[3, 4] = 2
np.save(sys.argv[1], a)
t = np.zeros(5, dtype=[("id", "<u4"), ("name", "<U2")])
t.view(np.uint32).reshape(5, -1)[2, 1] = 0x110000
np.save(sys.argv[2], t)
"#,
        &[bool_npy.to_str().unwrap(), text_npy.to_str().unwrap()],
    );
    for (src, words) in [
        (&bool_npy, ["record 3", "`ok`"]),
        (&text_npy, ["record 2", "`name`"]),
    ] {
        for name in ["out.parquet", "out.arrow"] {
            let dest = d.join(name);
            let run = convert(src, &dest, &[]);
            refused(&run, src, &words);
            assert!(!run.stderr.contains(name), "{}", run.stderr);
            assert!(!dest.exists(), "{name} was published");
        }
    }
}

/// A source the destination refuses for what it holds (a 2-D array, where a
/// table holds 1-D arrays of records): the error names both.
#[test]
fn a_source_a_table_cannot_hold_is_named_with_the_destination() {
    let dir = tempfile::tempdir().unwrap();
    let npy = dir.path().join("grid.npy");
    run_with(
        &python312(),
        "import sys, numpy as np\nnp.save(sys.argv[1], np.zeros((2, 3)))",
        &[npy.to_str().unwrap()],
    );
    for name in ["out.parquet", "out.arrow"] {
        let dest = dir.path().join(name);
        let run = convert(&npy, &dest, &[]);
        refused(&run, &dest, &["shape [2, 3]", "one-dimensional"]);
        assert!(run.stderr.contains(npy.to_str().unwrap()), "{}", run.stderr);
    }
}

/// A Parquet source whose row group is damaged, converted to two formats:
/// both errors name the source.
#[test]
fn a_damaged_parquet_source_is_named_whatever_the_destination() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (npy, parquet) = (d.join("r.npy"), d.join("r.parquet"));
    run_with(
        &python312(),
        r#"
import sys, numpy as np
np.save(sys.argv[1], np.arange(1000, dtype="<f8"))
"#,
        &[npy.to_str().unwrap()],
    );
    converted(convert(&npy, &parquet, &[]), "npy to parquet");
    let mut bytes = std::fs::read(&parquet).unwrap();
    // Past the 4-byte magic, inside the one column chunk's first page.
    for b in &mut bytes[8..64] {
        *b ^= 0x5A;
    }
    std::fs::write(&parquet, &bytes).unwrap();
    for name in ["out.npy", "out.arrow"] {
        let dest = d.join(name);
        let run = convert(&parquet, &dest, &[]);
        refused(&run, &parquet, &[]);
        assert!(!run.stderr.contains(name), "{}", run.stderr);
        assert!(!dest.exists(), "{name} was published");
    }
}

/// argv: directory. Two pyarrow tables with schema metadata (`source`, a
/// number `version`) and field metadata (`units`, `description`): one of
/// numbers (`plain.parquet`), one with a string column (`named.parquet`).
const ANNOTATED: &str = r#"
import sys, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1]
depth = pa.field('depth', pa.float64(), metadata={'units': 'm', 'description': 'below the surface'})
meta = {'source': 'sensor-7', 'version': '3', 'missing': 'NaN', 'pandas': '{}', '_secret': 'x'}
pq.write_table(pa.table({'depth': [1.5, 2.5]}, schema=pa.schema([depth], metadata=meta)), d + '/plain.parquet')
name = pa.field('name', pa.string(), metadata={'description': 'station'})
t = pa.table({'depth': [1.5, 2.5], 'name': ['a', 'bc']}, schema=pa.schema([depth, name], metadata=meta))
pq.write_table(t, d + '/named.parquet')
"#;

/// argv: paths. Each file's metadata as its own reader gives it: the
/// file's `source` and `version`, the depth's `units` and description.
const SHOW_ANNOTATED: &str = r#"
import sys, numpy as np, pyarrow.parquet as pq, xarray as xr
for p in sys.argv[1:]:
    if p.endswith('.parquet'):
        s = pq.read_schema(p)
        m, f = s.metadata, s.field('depth').metadata
        print(m[b'source'].decode(), m[b'version'].decode(), f[b'units'].decode(), f[b'description'].decode(), m[b'missing'].decode())
        if 'name' in s.names:
            print(s.field('name').metadata[b'description'].decode())
    else:
        ds = xr.open_zarr(p, consolidated=False) if p.endswith('.zarr') else xr.open_dataset(p)
        a = ds['depth'].attrs
        kept = isinstance(ds.attrs['version'], (int, np.integer)) and np.isnan(ds.attrs['missing'])
        print(ds.attrs['source'], ds.attrs['version'], a['units'], a['long_name'], 'NaN' if kept else '?', sorted(set(ds.attrs) - {'ndl_datatype'}))
        if 'name' in ds:
            print(ds['name'].attrs['long_name'])
"#;

/// A Parquet file's schema metadata becomes the attributes of the `.nc`,
/// `.h5` or Zarr group its table is copied to, and its fields' `units` and
/// `description` the variables' `units` and `long_name`; back in Parquet,
/// they are its metadata again. All of it was dropped.
#[test]
fn parquet_metadata_becomes_attributes_and_comes_back() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    run_with(&python312(), ANNOTATED, &[d.to_str().unwrap()]);
    let mut shown = Vec::new();
    for stem in ["plain", "named"] {
        let src = d.join(format!("{stem}.parquet"));
        for ext in ["nc", "zarr"] {
            let table = d.join(format!("{stem}.{ext}"));
            converted(
                convert(&src, &table, &["--layout", "columns"]),
                &format!("{stem}.{ext}"),
            );
            let back = d.join(format!("{stem}_{ext}.parquet"));
            converted(
                convert(&table, &back, &[]),
                &format!("{stem}_{ext}.parquet"),
            );
            shown.extend([table, back]);
        }
    }
    let args: Vec<&str> = shown.iter().map(|p| p.to_str().unwrap()).collect();
    let got = run_with(&python312(), SHOW_ANNOTATED, &args);
    // As a table: its attributes, a number and NaN of their types, the
    // tools' own left behind.
    let table = "sensor-7 3 m below the surface NaN ['missing', 'source', 'version']\n";
    let back = "sensor-7 3 m below the surface NaN\n";
    let plain = [table, back].concat().repeat(2);
    let named = [table, "station\n", back, "station\n"].concat().repeat(2);
    assert_eq!(got, [plain, named].concat(), "{got}");
}

/// xarray's tables (one of numbers, one with strings) give Parquet their
/// global attributes alike: the one of numbers lost its title.
#[test]
fn an_xarray_tables_title_reaches_parquet_with_strings_or_without() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (numbers, strings) = (d.join("n.nc"), d.join("s.nc"));
    run_with(
        &python312(),
        "import sys, numpy as np, xarray as xr\n\
         xr.Dataset({'a': ('t', np.arange(3.)), 'b': ('t', np.arange(3))}, attrs={'title': 'T'}).to_netcdf(sys.argv[1])\n\
         xr.Dataset({'a': ('t', np.arange(3.)), 's': ('t', np.array(['x', 'y', 'z'], object))}, attrs={'title': 'T'}).to_netcdf(sys.argv[2])\n",
        &[numbers.to_str().unwrap(), strings.to_str().unwrap()],
    );
    let mut outs = Vec::new();
    for src in [&numbers, &strings] {
        let out = src.with_extension("parquet");
        let run = convert(src, &out, &[]);
        assert_eq!(run.code, Some(0), "{run:#?}");
        outs.push(out);
    }
    let got = run_with(
        &python312(),
        "import sys, pyarrow.parquet as pq\n\
         for p in sys.argv[1:]:\n\
         \x20   print(pq.read_schema(p).metadata.get(b'title'))\n",
        &[outs[0].to_str().unwrap(), outs[1].to_str().unwrap()],
    );
    assert_eq!(got, "b'T'\nb'T'\n", "{got}");
}

/// A file named as one of its columns of a type HDF5 names (a time, an
/// enum) converts to `.h5`: the records' type `when_t` and the column's
/// `when_t` clashed ("H5Tcommit2 failed").
#[test]
fn a_file_named_as_its_time_column_converts_to_hdf5() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("when.parquet");
    run_with(
        &python312(),
        "import sys, pandas as pd\n\
         pd.DataFrame({'when': pd.to_datetime(['2020-01-01', '2021-06-30']), 'x': [1.5, 2.5]})\\\n\
         \x20   .to_parquet(sys.argv[1])\n",
        &[src.to_str().unwrap()],
    );
    let h5 = dir.path().join("when.h5");
    converted(convert(&src, &h5, &[]), "when.parquet to when.h5");
    let got = run_with(
        &python312(),
        "import sys, h5py\n\
         with h5py.File(sys.argv[1]) as f:\n\
         \x20   print(f['when']['x'].tolist(), len(f['when']['when']))\n",
        &[h5.to_str().unwrap()],
    );
    assert_eq!(got, "[1.5, 2.5] 2\n", "{got}");
}
