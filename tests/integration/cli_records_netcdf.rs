//! `ndl convert` of records with strings, lists and options (netcdf):
//! what netCDF4-python writes as a table with a `string` variable, a CF
//! contiguous ragged array and a masked integer comes back from the
//! converted file, as netCDF4-python and xarray read it, value for value
//! and mask for mask.

use crate::common;

use std::path::Path;

use common::cli::{convert, converted, refused};
use ndl_testkit::netcdf::ncdump;
use ndl_testkit::python::{python312, run_with};

/// argv: path, total. Writes five stations: `name` (NC_STRING, with
/// non-ASCII and empty values), `temp` (a ragged array along `obs`,
/// counted by `row_size`, with empty rows), `qty` (int with a
/// `_FillValue`, two masked). `total` is the length of `obs`: 6 agrees
/// with the counts.
const WRITE: &str = r#"
import sys, netCDF4, numpy as np
path, total = sys.argv[1], int(sys.argv[2])
rows = [[1.5, 2.5], [], [3.5], [4.5, 5.5, 6.5], []]
with netCDF4.Dataset(path, 'w') as ds:
    ds.createDimension('station', 5)
    ds.createDimension('obs', total)
    name = ds.createVariable('name', str, ('station',))
    for i, v in enumerate(['α', '', 'Zürich ✓', '日本語', '']):
        name[i] = v
    count = ds.createVariable('row_size', 'i4', ('station',))
    count.sample_dimension = 'obs'
    count[:] = [len(r) for r in rows]
    temp = ds.createVariable('temp', 'f4', ('obs',))
    temp.units = 'K'
    flat = [x for r in rows for x in r]
    temp[:] = (flat + [0.0] * total)[:total]
    qty = ds.createVariable('qty', 'i4', ('station',), fill_value=-999)
    qty[:] = np.ma.masked_array([10, 0, 30, 40, 0], mask=[0, 1, 0, 0, 1])
"#;

/// argv: path. netCDF4-python and xarray read the stations back: the
/// same strings, rows (by the count variable naming the sample
/// dimension) and masks.
const READ: &str = r#"
import sys, netCDF4, numpy as np, xarray as xr
path = sys.argv[1]
names = ['α', '', 'Zürich ✓', '日本語', '']
rows = [[1.5, 2.5], [], [3.5], [4.5, 5.5, 6.5], []]
with netCDF4.Dataset(path) as ds:
    assert list(ds['name'][:]) == names, list(ds['name'][:])
    counts = [v for v in ds.variables.values() if 'sample_dimension' in v.ncattrs()]
    assert len(counts) == 1, counts
    sample = counts[0].sample_dimension
    data = [v for v in ds.variables.values() if v.dimensions == (sample,)]
    assert len(data) == 1 and data[0].name == 'temp', data
    assert data[0].units == 'K'
    c, flat = counts[0][:].tolist(), data[0][:].tolist()
    got = [flat[sum(c[:i]):sum(c[:i + 1])] for i in range(len(c))]
    assert got == rows, got
    q = ds['qty'][:]
    assert q.mask.tolist() == [False, True, False, False, True], q
    assert q.compressed().tolist() == [10, 30, 40], q
    assert ds['qty']._FillValue == -999
x = xr.open_dataset(path)
assert [str(v) for v in x['name'].values] == names, x['name'].values
q = x['qty'].values
assert np.isnan(q).tolist() == [False, True, False, False, True], q
assert q[~np.isnan(q)].tolist() == [10, 30, 40], q
assert x['temp'].values.tolist() == [v for r in rows for v in r], x['temp'].values
print('ok')
"#;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn netcdf4_strings_ragged_arrays_and_masks_convert_to_nc_and_read_back_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let src = d.join("stations.nc");
    run_with(&python312(), WRITE, &[s(&src), "6"]);
    // The source as its writer reads it: the script's expectations hold.
    assert_eq!(run_with(&python312(), READ, &[s(&src)]).trim(), "ok");
    // Another tool's dataset is copied as it is: its names kept.
    let out = d.join("out.nc");
    converted(convert(&src, &out, &[]), "stations.nc to out.nc");
    ncdump(&[], &out);
    let header = ncdump(&["-h"], &out);
    assert!(header.contains("string name(station)"), "{header}");
    assert!(
        header.contains("row_size:sample_dimension = \"obs\""),
        "{header}"
    );
    assert!(header.contains("qty:_FillValue = -999"), "{header}");
    assert_eq!(run_with(&python312(), READ, &[s(&out)]).trim(), "ok");
    // As records (`--layout columns`): the record dimension and a ragged
    // array of our naming, read back by us and by them.
    let records = d.join("records.nc");
    converted(
        convert(&src, &records, &["--layout", "columns"]),
        "stations.nc to records.nc",
    );
    let header = ncdump(&["-h"], &records);
    assert!(header.contains("string name(record)"), "{header}");
    assert!(
        header.contains("temp_count:sample_dimension = \"temp_sample\""),
        "{header}"
    );
    assert_eq!(run_with(&python312(), READ, &[s(&records)]).trim(), "ok");
    let again = d.join("again.nc");
    converted(convert(&records, &again, &[]), "records.nc to again.nc");
    assert_eq!(run_with(&python312(), READ, &[s(&again)]).trim(), "ok");
    let h5 = d.join("out.h5");
    converted(
        convert(&src, &h5, &["--layout", "columns"]),
        "stations.nc to out.h5",
    );
    assert_eq!(run_with(&python312(), READ, &[s(&h5)]).trim(), "ok");
}

#[test]
fn counts_that_do_not_add_up_to_the_sample_dimension_are_refused_naming_the_variable() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("bad.nc");
    run_with(&python312(), WRITE, &[s(&src), "7"]);
    // Read as records (a copy of the dataset takes it as it is).
    let out = dir.path().join("out.parquet");
    let run = convert(&src, &out, &[]);
    refused(
        &run,
        &src,
        &["`row_size`", "add up to 6", "`temp` holds 7 items"],
    );
    assert!(!out.exists());
}

/// A table xarray wrote holding strings is read as records; its CF times
/// in units of their own (`hours since 2020-01-01` as `int64`, NaT the
/// smallest; `days since 2000-01-01` as `float64`, NaT NaN; netCDF4-python's
/// `int` days with a `_FillValue`) are the times xarray decodes, NaT a
/// null in Parquet, not their stored counts.
#[test]
fn cf_times_of_a_table_of_strings_are_decoded_as_xarray_decodes_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (nc, parquet) = (d.join("t.nc"), d.join("t.parquet"));
    run_with(
        &python312(),
        r#"
import sys, numpy as np, xarray as xr
t = np.array(['2020-01-01', 'NaT', '2021-06-01T12:00'], 'M8[ns]')
ds = xr.Dataset({'when': ('time', t), 'since': ('time', t),
                 'name': ('time', np.array(['a', 'b', 'c'], object))})
ds.to_netcdf(sys.argv[1], encoding={'when': {'units': 'hours since 2020-01-01', 'dtype': 'int64'},
                                    'since': {'units': 'days since 2000-01-01', 'dtype': 'float64'}})
import netCDF4
with netCDF4.Dataset(sys.argv[1], 'a') as f:
    d = f.createVariable('day', 'i4', ('time',), fill_value=np.int32(-1))
    d.units = 'days since 2000-01-01'
    d[:] = np.ma.masked_array([3, 0, 7], mask=[False, True, False])
"#,
        &[s(&nc)],
    );
    converted(convert(&nc, &parquet, &[]), "to parquet");
    let out = run_with(
        &python312(),
        r#"
import sys, numpy as np, pyarrow as pa, pyarrow.parquet as pq, xarray as xr
table = pq.read_table(sys.argv[2])
ds = xr.open_dataset(sys.argv[1])
for name in ['when', 'since', 'day']:
    assert pa.types.is_timestamp(table.schema.field(name).type), table.schema
    got = table[name].to_numpy(zero_copy_only=False).astype('M8[ns]')
    want = ds[name].values
    assert np.array_equal(got, want, equal_nan=True), (name, got, want)
print(table['when'].null_count, table['since'].null_count, table['day'].null_count)
"#,
        &[s(&nc), s(&parquet)],
    );
    assert_eq!(out, "1 1 1\n");
}

/// A file of strings beside a variable no column holds (netCDF `char`
/// text) is no table but variables: converting it to one array asks which
/// (`--member`), as a file of several arrays does, rather than failing on
/// the `char` variable; each converts alone.
#[test]
fn strings_beside_char_text_are_variables_not_a_table() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (nc, parquet) = (d.join("c.nc"), d.join("c.parquet"));
    run_with(
        &python312(),
        r#"
import sys, numpy as np, netCDF4
with netCDF4.Dataset(sys.argv[1], 'w') as f:
    f.createDimension('n', 2); f.createDimension('len', 3)
    f.createVariable('s', str, ('n',))[:] = np.array(['a', 'bc'], object)
    f.createVariable('x', 'f4', ('n',))[:] = [1.5, 2.5]
    f.createVariable('c', 'S1', ('n', 'len'))[:] = netCDF4.stringtochar(np.array(['ab', 'xyz'], 'S3'))
"#,
        &[s(&nc)],
    );
    let run = convert(&nc, &parquet, &[]);
    refused(&run, &nc, &["--member", "c", "s", "x"]);
    assert!(!run.stderr.contains("no records column"), "{run:#?}");
    converted(convert(&nc, &parquet, &["--member", "s"]), "s alone");
}

/// Variable records' attributes become the columns `.nc`'s global ones of
/// their own types, as netCDF4-python reads them: h5py's NaN stays a
/// float (it was written as the text `null`), its `short` list `short`.
#[test]
fn attributes_of_variable_records_keep_their_types_in_a_columns_nc() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("r.h5");
    run_with(
        &python312(),
        "import sys, h5py, numpy as np\n\
         t = np.dtype([('name', h5py.string_dtype()), ('x', '<f8')])\n\
         with h5py.File(sys.argv[1], 'w') as f:\n\
         \x20   d = f.create_dataset('r', data=np.array([('a', 1.0), ('bc', 2.0)], t))\n\
         \x20   d.attrs['missing'] = np.nan\n\
         \x20   d.attrs['valid_range'] = np.array([0, 2], 'i2')\n",
        &[s(&src)],
    );
    let nc = dir.path().join("r.nc");
    converted(convert(&src, &nc, &[]), "r.h5 to r.nc");
    let attrs = run_with(
        &python312(),
        "import sys, netCDF4\n\
         with netCDF4.Dataset(sys.argv[1]) as f:\n\
         \x20   r, m = f.getncattr('valid_range'), f.getncattr('missing')\n\
         \x20   print(r.dtype, r.tolist(), type(m).__name__, m, list(f['name'][:]))\n",
        &[s(&nc)],
    );
    assert_eq!(attrs, "int16 [0, 2] float64 nan ['a', 'bc']\n", "{attrs}");
}
