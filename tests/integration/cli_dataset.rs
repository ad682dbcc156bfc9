//! `ndl convert FILE STORE.zarr` (or `OTHER.nc`, `OTHER.h5`) of a file of
//! several arrays that are no table: every array becomes the group's (the
//! file's), its values as stored and its CF encodings among its
//! attributes, and the destination opens in xarray as the file's dataset;
//! nothing appears when one array fails.

use std::path::Path;

use crate::common::cli::{convert, converted, refused};
use ndl_testkit::netcdf::ncdump;
use ndl_testkit::{python, python312, run_with};

/// argv: nc4, nc3, zarr v2. The same dataset: coordinates (a time with
/// NaT, stations), a packed 2-D variable with a fill, text, a bool, a
/// scalar with attributes, global attributes.
const DATASET_PY: &str = r#"
import sys, numpy as np, xarray as xr
t = np.array(['2000-01-01', 'NaT', '2000-01-03'], 'M8[ns]')
ds = xr.Dataset(
    {'temp': (('time', 'station'), np.array([[1.5, np.nan], [2.25, 3.0], [4.0, 5.5]]),
              {'units': 'degC', 'long_name': 'air temperature', 'valid_max': 60.0}),
     'name': ('station', np.array(['alpha', 'beta'], dtype=object), {'long_name': 'station name'}),
     'flag': ('time', np.array([True, False, True])),
     'crs': ((), np.int32(0), {'grid_mapping_name': 'latitude_longitude'})},
    coords={'time': t, 'station': np.array([101, 102], 'i4')},
    attrs={'title': 'mixed', 'version': 3})
enc = {'temp': {'dtype': 'int16', 'scale_factor': 0.25, '_FillValue': -1}}
ds.to_netcdf(sys.argv[1], encoding=enc)
ds.to_netcdf(sys.argv[2], format='NETCDF3_64BIT', encoding=enc)
ds.to_zarr(sys.argv[3], zarr_format=2, encoding=enc)
"#;

/// argv: source, store. The store opened by xarray equals the source
/// opened by xarray: values, dimensions, coordinates, and every attribute
/// but those the decoding used up (and our `ndl_datatype`); its numbers
/// are stored as the source's are, of the same type.
const SAME_DATASET_PY: &str = r#"
import sys, numpy as np, xarray as xr
src, dst = sys.argv[1], sys.argv[2]
opened = lambda p: xr.open_zarr(p) if p.endswith('.zarr') else xr.open_dataset(p)
theirs, ours = opened(src).load(), opened(dst).load()
xr.testing.assert_equal(ours, theirs)
raw = lambda p: xr.open_zarr(p, decode_cf=False) if p.endswith('.zarr') else xr.open_dataset(p, decode_cf=False)
stored, copied = raw(src).load(), raw(dst).load()
for name, v in stored.variables.items():
    if v.dtype.kind in 'iuf':
        c = copied[name]
        assert c.dtype == v.dtype and np.array_equal(c.values, v.values, equal_nan=True), (name, c, v)
assert ours.attrs == theirs.attrs, (ours.attrs, theirs.attrs)
assert dict(ours.sizes) == dict(theirs.sizes), (ours.sizes, theirs.sizes)
for name, v in theirs.variables.items():
    kept = {k: x for k, x in ours[name].attrs.items() if k != 'ndl_datatype'}
    assert kept == v.attrs, (name, kept, v.attrs)
print(sorted(ours.data_vars), sorted(ours.coords))
"#;

#[test]
fn a_netcdf_or_zarr_dataset_converts_whole_to_a_group_xarray_opens() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sources = [d.join("ds.nc"), d.join("ds3.nc"), d.join("ds2.zarr")];
    let paths: Vec<&str> = sources.iter().map(|p| p.to_str().unwrap()).collect();
    run_with(&python312(), DATASET_PY, &paths);
    // An `.h5` names its dimensions as a `.nc` does, with netCDF-4's
    // dimension scales: HDF5 has no other way.
    let ways = [("zarr", "3"), ("zarr", "2"), ("nc", "3"), ("h5", "3")];
    for (src, (ending, zarr_format)) in sources.iter().flat_map(|s| ways.map(|w| (s, w))) {
        let dst = d.join(format!("{}.v{zarr_format}.{ending}", src.display()));
        let extra: &[&str] = match ending {
            "zarr" => &["--zarr-format", zarr_format],
            _ => &[],
        };
        let run = convert(src, &dst, extra);
        assert_eq!(run.code, Some(0), "{src:?}: {run:#?}");
        assert!(!run.stderr.contains("packed values"), "{run:#?}");
        let out = run_with(&python312(), SAME_DATASET_PY, &[s(src), s(&dst)]);
        assert_eq!(
            out, "['crs', 'flag', 'name', 'temp'] ['station', 'time']\n",
            "{src:?}"
        );
        no_partial(d);
        if ending != "zarr" {
            // netCDF-C reads it: shared dimensions, a coordinate each.
            let header = ncdump_header(&dst);
            for line in [
                "time = 3 ;",
                "station = 2 ;",
                "short temp(time, station) ;",
                "temp:_FillValue = -1s ;",
                "temp:scale_factor = 0.25 ;",
            ] {
                assert!(header.contains(line), "{line}: {header}");
            }
        }
    }
}

/// argv: path. What netCDF4-python writes with every CF encoding a copy
/// must keep: a packed `short` with a `_FillValue` and a `short`
/// `valid_range`, an `int64` with a fill (values beyond 2^53), double
/// time counts, an `int8` with `flag_values`, typed global attributes.
const ENCODED_PY: &str = r#"
import sys, numpy as np, netCDF4
with netCDF4.Dataset(sys.argv[1], 'w') as f:
    f.title = 't'; f.version = np.int16(3)
    f.createDimension('time', None); f.createDimension('x', 4)
    t = f.createVariable('time', 'f8', ('time',)); t.units = 'days since 2000-01-01'; t.calendar = 'standard'
    t[:] = [0, 1, 2]
    v = f.createVariable('temp', 'i2', ('time', 'x'), fill_value=np.int16(-32767))
    v.scale_factor = np.float32(0.5); v.add_offset = np.float32(270); v.units = 'K'
    v.valid_range = np.array([-30000, 30000], 'i2')
    v.set_auto_maskandscale(False)
    v[:] = np.array([[0, 1, 2, 3], [-32767, 5, 6, 7], [8, 9, 10, 11]], 'i2')
    big = f.createVariable('big', 'i8', ('x',), fill_value=np.int64(-1))
    big.set_auto_mask(False)
    big[:] = np.array([2**60 + 1, 2**60 + 3, -1, 5], 'i8')
    flag = f.createVariable('flag', 'i1', ('x',)); flag[:] = [1, 0, 1, 0]
    flag.flag_values = np.array([0, 1], 'i1'); flag.note = np.int32(7)
"#;

/// A file converted whole to `.nc` or Zarr (and back) keeps its values as
/// stored, of their types, and their CF encodings with them, as `nccopy`
/// does and as xarray's round trip does: packed values stay packed, an
/// `int64` with a fill keeps every value (decoded, they would be float64,
/// which cannot tell 2^60+1 from 2^60+3), the attributes keep their
/// types (`ncdump` shows them); xarray decodes the copy as it decodes
/// the source, and ndl reads its own copy decoded as xarray does.
/// `--decode-cf` stores the decoded values instead.
#[test]
fn a_copy_keeps_stored_values_of_their_types_with_their_encodings() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let src = d.join("enc.nc");
    run_with(&python312(), ENCODED_PY, &[s(&src)]);
    let (nc, z3, z2) = (d.join("copy.nc"), d.join("c3.zarr"), d.join("c2.zarr"));
    converted(convert(&src, &nc, &[]), "to .nc");
    converted(convert(&src, &z3, &[]), "to Zarr v3");
    converted(convert(&src, &z2, &["--zarr-format", "2"]), "to Zarr v2");
    let (from3, from2) = (d.join("from3.nc"), d.join("from2.nc"));
    converted(convert(&z3, &from3, &[]), "Zarr v3 to .nc");
    converted(convert(&z2, &from2, &[]), "Zarr v2 to .nc");
    let header = ncdump_header(&nc);
    for line in [
        "double time(time) ;",
        "time:units = \"days since 2000-01-01\" ;",
        "short temp(time, x) ;",
        "temp:_FillValue = -32767s ;",
        "temp:scale_factor = 0.5f ;",
        "temp:valid_range = -30000s, 30000s ;",
        "int64 big(x) ;",
        "big:_FillValue = -1LL ;",
        "byte flag(x) ;",
        "flag:flag_values = 0b, 1b ;",
        "flag:note = 7 ;",
        ":version = 3s ;",
    ] {
        assert!(header.contains(line), "{line}: {header}");
    }
    // Through Zarr's JSON, numbers of the variable's type stay so.
    for back in [&from3, &from2] {
        let header = ncdump_header(back);
        for line in [
            "short temp(time, x) ;",
            "temp:_FillValue = -32767s ;",
            "temp:valid_range = -30000s, 30000s ;",
            "big:_FillValue = -1LL ;",
            "flag:flag_values = 0b, 1b ;",
        ] {
            assert!(header.contains(line), "{back:?} {line}: {header}");
        }
    }
    let script = r#"
import sys, numpy as np, xarray as xr
src, copies = sys.argv[1], sys.argv[2:]
opened = lambda p, **k: xr.open_zarr(p, **k) if p.endswith('.zarr') else xr.open_dataset(p, **k)
theirs, raw = opened(src).load(), opened(src, decode_cf=False).load()
assert raw['big'].values.tolist() == [2**60 + 1, 2**60 + 3, -1, 5]
for p in copies:
    ours, stored = opened(p).load(), opened(p, decode_cf=False).load()
    for name in ['temp', 'big', 'flag', 'time']:
        assert stored[name].dtype == raw[name].dtype, (p, name, stored[name].dtype)
        assert np.array_equal(stored[name].values, raw[name].values), (p, name)
        assert np.allclose(ours[name].values.astype('f8') if name != 'time' else 0,
                           theirs[name].values.astype('f8') if name != 'time' else 0, equal_nan=True), (p, name)
    assert (ours['time'].values == theirs['time'].values).all(), p
    assert np.isnan(ours['temp'].values[1, 0]) and np.isnan(ours['big'].values[2]), p
print('ok')
"#;
    // In v2 the fill is the `fill_value` alone, as xarray writes it.
    let zattrs = std::fs::read_to_string(z2.join("temp/.zattrs")).unwrap();
    let zarray = std::fs::read_to_string(z2.join("temp/.zarray")).unwrap();
    assert!(
        !zattrs.contains("_FillValue") && zarray.contains("\"fill_value\": -32767"),
        "{zattrs} {zarray}"
    );
    let copies = [&nc, &z3, &z2, &from3, &from2];
    let mut args = vec![s(&src)];
    args.extend(copies.iter().map(|p| s(p)));
    assert_eq!(run_with(&python312(), script, &args), "ok\n");
    // ndl reads its own copy decoded, as xarray reads it.
    let npy = d.join("temp.npy");
    let run = convert(&z3, &npy, &["--member", "temp"]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert!(run.stderr.contains("packed values"), "{run:#?}");
    let out = run_with(
        &python312(),
        "import sys, numpy as np, xarray as xr\n\
         t, x = np.load(sys.argv[1]), xr.open_zarr(sys.argv[2])['temp'].values\n\
         assert t.dtype == x.dtype and np.array_equal(t, x, equal_nan=True), (t, x)\n\
         print(t[0].tolist())",
        &[s(&npy), s(&z3)],
    );
    assert_eq!(out, "[270.0, 270.5, 271.0, 271.5]\n");
    let decoded = d.join("decoded.nc");
    let run = convert(&src, &decoded, &["--decode-cf"]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    let header = ncdump_header(&decoded);
    assert!(header.contains("float temp(time, x) ;"), "{header}");
    assert!(header.contains("double big(x) ;"), "{header}");
}

/// A copy to `.nc` keeps how each variable is stored, as `nccopy` and
/// xarray's round trip keep it: its chunks, deflate level and shuffle,
/// and its unlimited dimension, whether the file is copied whole or one
/// variable alone; a codec given (`--codec none`) is used instead.
#[test]
fn a_copy_to_netcdf_keeps_chunks_compression_and_unlimited_dimensions() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (one, two) = (d.join("one.nc"), d.join("two.nc"));
    run_with(
        &python312(),
        "import sys, numpy as np, netCDF4\n\
         for path, coordinate in [(sys.argv[1], False), (sys.argv[2], True)]:\n\
         \x20   with netCDF4.Dataset(path, 'w') as f:\n\
         \x20       f.createDimension('t', None); f.createDimension('x', 100)\n\
         \x20       if coordinate: f.createVariable('x', 'i4', ('x',))[:] = np.arange(100)\n\
         \x20       v = f.createVariable('v', 'f4', ('t', 'x'), zlib=True, complevel=4, shuffle=True, chunksizes=(10, 50))\n\
         \x20       v[:] = np.arange(4000, dtype='f4').reshape(40, 100)",
        &[s(&one), s(&two)],
    );
    let kept = [
        "t = UNLIMITED ; // (40 currently)",
        "v:_ChunkSizes = 10, 50 ;",
        "v:_DeflateLevel = 4 ;",
        "v:_Shuffle = \"true\" ;",
    ];
    for (src, extra) in [
        (&one, &[][..]),
        (&two, &[][..]),
        (&two, &["--member", "v"][..]),
    ] {
        let dst = d.join(format!("copy{}.nc", extra.len()));
        let _ = std::fs::remove_file(&dst);
        converted(convert(src, &dst, extra), "to .nc");
        let header = ncdump(&["-hs"], &dst);
        for line in kept {
            assert!(header.contains(line), "{src:?} {extra:?} {line}: {header}");
        }
        let out = run_with(
            &python312(),
            "import sys, numpy as np, xarray as xr\n\
             a, b = xr.open_dataset(sys.argv[1]), xr.open_dataset(sys.argv[2])\n\
             assert np.array_equal(a['v'].values, b['v'].values)\n\
             print(b['v'].encoding['chunksizes'], b.encoding['unlimited_dims'])",
            &[s(src), s(&dst)],
        );
        assert_eq!(out, "(10, 50) {'t'}\n", "{src:?} {extra:?}");
    }
    let plain = d.join("plain.nc");
    converted(convert(&one, &plain, &["--codec", "none"]), "--codec none");
    let header = ncdump(&["-hs"], &plain);
    assert!(!header.contains("_DeflateLevel"), "{header}");
}

/// Attributes of every kind a Zarr store or an h5py file holds survive a
/// copy to `.nc`: lists of floats on an integer variable and on the root,
/// a bool, and h5py's complex and `float16` ones (as JSON, as before); an
/// h5py reference attribute is left out with a note, and `coordinates`
/// comes along with the variables it names, decoded or not.
#[test]
fn attributes_of_every_kind_survive_a_copy_to_netcdf() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (zarr, h5) = (d.join("a.zarr"), d.join("a.h5"));
    run_with(
        &python312(),
        "import sys, numpy as np, xarray as xr, h5py\n\
         ds = xr.Dataset({'n': ('x', np.array([1, 2], 'i2'), {'actual_range': [0.5, 100.0], 'coordinates': 'lat'}),\n\
         \x20                'lat': ('x', np.array([10.0, 20.0]))},\n\
         \x20               attrs={'bbox': [0.0, 10.5], 'qc_applied': True, 'tags': ['a', 'b']})\n\
         ds.to_zarr(sys.argv[1], zarr_format=3, consolidated=True)\n\
         with h5py.File(sys.argv[2], 'w') as f:\n\
         \x20   x = f.create_dataset('x', data=np.arange(3.0))\n\
         \x20   x.attrs['z'] = 1 + 2j; x.attrs['h'] = np.float16(0.5)\n\
         \x20   f.create_dataset('y', data=np.arange(2))\n\
         \x20   f.attrs['r'] = x.ref; f.attrs['title'] = 'h'",
        &[s(&zarr), s(&h5)],
    );
    let nc = d.join("z.nc");
    converted(convert(&zarr, &nc, &[]), "Zarr to .nc");
    let header = ncdump_header(&nc);
    for line in [
        "n:actual_range = 0.5, 100. ;",
        "n:coordinates = \"lat\" ;",
        ":bbox = 0., 10.5 ;",
        ":qc_applied = 1b ;",
    ] {
        assert!(header.contains(line), "{line}: {header}");
    }
    let decoded = d.join("decoded.nc");
    let run = convert(&zarr, &decoded, &["--decode-cf"]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert!(ncdump_header(&decoded).contains("n:coordinates = \"lat\" ;"));
    let out = run_with(
        &python312(),
        "import sys, xarray as xr\nprint(sorted(xr.open_dataset(sys.argv[1]).coords))",
        &[s(&decoded)],
    );
    assert_eq!(out, "['lat']\n");
    let h5nc = d.join("h.nc");
    let run = convert(&h5, &h5nc, &[]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert!(
        run.stderr.contains("attribute `r`") && run.stderr.contains("reference"),
        "{run:#?}"
    );
    let header = ncdump_header(&h5nc);
    assert!(
        header.contains("x:h = 0.5 ;") && header.contains("x:z = "),
        "{header}"
    );
}

/// An h5py file holding a compound of variable-length strings and
/// sequences beside a plain dataset converts whole to another `.h5`, which
/// h5py reads equal, its attributes of their types too; to a `.nc` it is refused, naming the dataset and
/// what to do (netCDF4-python reads no such compound), and nothing appears.
#[test]
fn an_h5py_file_with_variable_records_converts_whole_to_hdf5() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let src = d.join("vr.h5");
    run_with(
        &python312(),
        "import sys, numpy as np, h5py\n\
         dt = np.dtype([('id', 'i4'), ('name', h5py.string_dtype()), ('levels', h5py.vlen_dtype('f4'))])\n\
         rows = np.array([(1, 'a', np.array([0.5], 'f4')), (2, 'bé', np.array([], 'f4'))], dt)\n\
         with h5py.File(sys.argv[1], 'w') as f:\n\
         \x20   f.attrs['title'] = 'vr'\n\
         \x20   o = f.create_dataset('obs', data=rows)\n\
         \x20   o.attrs['units'] = 'm'; o.attrs['scale'] = np.int16(3)\n\
         \x20   f.create_dataset('g/x', data=np.arange(3.0))",
        &[s(&src)],
    );
    let copy = d.join("copy.h5");
    converted(convert(&src, &copy, &[]), "to .h5");
    let out = run_with(
        &python312(),
        "import sys, numpy as np, h5py\n\
         with h5py.File(sys.argv[1]) as a, h5py.File(sys.argv[2]) as b:\n\
         \x20   for k in ['id', 'name', 'levels']:\n\
         \x20       x, y = a['obs'][k], b['obs'][k]\n\
         \x20       assert [np.asarray(v).tolist() for v in x] == [np.asarray(v).tolist() for v in y], (k, x, y)\n\
         \x20   assert b['g/x'][...].tolist() == [0.0, 1.0, 2.0] and b.attrs['title'] == 'vr'\n\
         \x20   assert b['obs'].attrs['units'] == 'm' and b['obs'].attrs['scale'].dtype == np.int16, dict(b['obs'].attrs)\n\
         \x20   print([v.decode() for v in b['obs']['name']])",
        &[s(&src), s(&copy)],
    );
    assert_eq!(out, "['a', 'bé']\n");
    // Alone, and to Zarr (the records a group of columns), the records
    // keep their attributes too.
    let (alone, zarr) = (d.join("alone.h5"), d.join("copy.zarr"));
    converted(convert(&src, &alone, &["--member", "obs"]), "obs to .h5");
    converted(convert(&src, &zarr, &[]), "to .zarr");
    let out = run_with(
        &python312(),
        "import sys, numpy as np, h5py, zarr\n\
         with h5py.File(sys.argv[1]) as f:\n\
         \x20   a = f['obs'].attrs\n\
         \x20   assert a['units'] == 'm' and a['scale'].dtype == np.int16, dict(a)\n\
         print(zarr.open_group(sys.argv[2], mode='r')['obs'].attrs['units'])",
        &[s(&alone), s(&zarr)],
    );
    assert_eq!(out, "m\n");
    let nc = d.join("copy.nc");
    let run = convert(&src, &nc, &[]);
    refused(&run, &nc, &["`obs`", "--member obs", ".h5"]);
    assert!(!nc.exists());
}

fn ncdump_header(path: &Path) -> String {
    ncdump(&["-h"], path)
}

/// A netCDF-4 file netCDF4-python wrote with a group (its own dimension
/// and attributes, and a variable over the root's dimension), an enum, a
/// compound, strings and an unlimited
/// dimension, converted whole to another `.nc`: `ncdump` reads all of it,
/// the unlimited dimension still unlimited, and xarray reads the root
/// group and the inner one equal to the file's.
#[test]
fn a_netcdf4_file_with_groups_and_user_types_converts_whole() {
    let dir = tempfile::tempdir().unwrap();
    let (src, dst) = (dir.path().join("cx.nc"), dir.path().join("back.nc"));
    run_with(
        &python312(),
        r#"
import sys, netCDF4, numpy as np
with netCDF4.Dataset(sys.argv[1], 'w') as f:
    f.history = 'made'
    f.createDimension('time', None); f.createDimension('x', 3)
    t = f.createVariable('time', 'f8', ('time',)); t.units = 'hours since 2000-01-01'; t[:] = [0, 1]
    v = f.createVariable('v', 'f4', ('time', 'x'), zlib=True); v[:] = np.arange(6).reshape(2, 3)
    e = f.createEnumType(np.uint8, 'cloud_t', {'clear': 0, 'cloudy': 1})
    c = f.createVariable('cloud', e, ('x',)); c[:] = np.array([0, 1, 1], 'u1')
    cmp = f.createCompoundType(np.dtype([('a', 'i4'), ('b', 'f8')]), 'pair_t')
    p = f.createVariable('pair', cmp, ('x',))
    p[:] = np.array([(1, 1.5), (2, 2.5), (3, 3.5)], dtype=[('a', 'i4'), ('b', 'f8')])
    s = f.createVariable('label', str, ('x',)); s[:] = np.array(['a', 'bb', 'ccc'], dtype=object)
    g = f.createGroup('sub'); g.createDimension('y', 2); g.note = 'inner'
    w = g.createVariable('w', 'i2', ('y',)); w[:] = [5, 6]
    u = g.createVariable('u', 'f4', ('x',)); u[:] = [0.5, 1.5, 2.5]
"#,
        &[s(&src)],
    );
    let run = convert(&src, &dst, &[]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    let header = ncdump_header(&dst);
    for line in [
        "time = UNLIMITED ; // (2 currently)",
        "ubyte enum cloud_t {clear = 0, cloudy = 1} ;",
        "compound pair_t {",
        "pair_t pair(x) ;",
        "string label(x) ;",
        // `u` sees the root's `x`: the group makes none of its own.
        "group: sub {\n  dimensions:\n  \ty = 2 ;\n  variables:",
        "short w(y) ;",
        "float u(x) ;",
        ":note = \"inner\" ;",
    ] {
        assert!(header.contains(line), "{line}: {header}");
    }
    let out = run_with(
        &python312(),
        "import sys, xarray as xr\n\
         for group in [None, 'sub']:\n\
         \x20   a = xr.open_dataset(sys.argv[1], group=group).load()\n\
         \x20   b = xr.open_dataset(sys.argv[2], group=group).load()\n\
         \x20   xr.testing.assert_equal(a, b)\n\
         \x20   assert a.attrs == b.attrs, (a.attrs, b.attrs)\n\
         \x20   print(group, sorted(b.variables))",
        &[s(&src), s(&dst)],
    );
    assert_eq!(
        out,
        "None ['cloud', 'label', 'pair', 'time', 'v']\nsub ['u', 'w']\n"
    );
}

/// A table another tool wrote (xarray's variables along one dimension,
/// a 2-D one among them) converts to a Zarr store or a netCDF-4 file as
/// the dataset it is, which xarray opens equal; `--layout records` makes
/// the records it converts to elsewhere (a `.npy`, Parquet) there too: an
/// HDF5 dataset of compounds.
#[test]
fn a_table_of_variables_converts_as_its_dataset_unless_records_are_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let src = d.join("table.nc");
    run_with(
        &python312(),
        "import sys, numpy as np, pandas as pd, xarray as xr\n\
         xr.Dataset({'temp': ('time', np.array([1.5, 2.5, 3.5], 'f4'), {'units': 'degC'}),\n\
         \x20           'code': ('time', np.array([1, 2, 3], 'i4')),\n\
         \x20           'v': (('time', 'x'), np.arange(6.).reshape(3, 2))},\n\
         \x20          coords={'time': pd.date_range('2000-01-01', periods=3)},\n\
         \x20          attrs={'title': 'table'}).to_netcdf(sys.argv[1])",
        &[s(&src)],
    );
    for (dst, extra) in [
        (d.join("t3.zarr"), &[][..]),
        (d.join("t2.zarr"), &["--zarr-format", "2"][..]),
        (d.join("t.nc"), &[][..]),
    ] {
        let run = convert(&src, &dst, extra);
        assert_eq!(run.code, Some(0), "{dst:?}: {run:#?}");
        let out = run_with(&python312(), SAME_DATASET_PY, &[s(&src), s(&dst)]);
        assert_eq!(out, "['code', 'temp', 'v'] ['time']\n", "{dst:?}");
    }
    let records = d.join("records.h5");
    let run = convert(&src, &records, &["--layout", "records"]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    let out = run_with(
        &python312(),
        "import sys, h5py\n\
         with h5py.File(sys.argv[1], 'r') as f:\n\
         \x20   print(f['table'].dtype.names)",
        &[s(&records)],
    );
    assert_eq!(out, "('temp', 'code', 'v', 'time')\n");
}

/// A table another tool wrote holding strings (xarray's variables along
/// one dimension, a station's name among them) converts to Zarr or
/// netCDF-4 as the dataset it is, as for numbers alone: its dimension's
/// name, its attributes, its integer fill and its packed column kept,
/// where records would name the dimension `record`, leave the file's
/// attributes behind and refuse the packed column (as Parquet still
/// does).
#[test]
fn a_table_holding_strings_converts_as_its_dataset() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let src = d.join("stations.nc");
    run_with(
        &python312(),
        "import sys, numpy as np, xarray as xr\n\
         xr.Dataset({'station': ('obs', np.array(['a', 'bb', 'ccc'], dtype=object)),\n\
         \x20           'temp': ('obs', np.array([1.5, 2.5, np.nan], 'f4'), {'units': 'degC'}),\n\
         \x20           'count': ('obs', np.array([1, -1, 3], 'i4'))},\n\
         \x20          attrs={'title': 'stations'}).to_netcdf(sys.argv[1], encoding={'count': {'_FillValue': -1},\n\
         \x20          'temp': {'dtype': 'int16', 'scale_factor': 0.5, '_FillValue': -99}})",
        &[s(&src)],
    );
    for (dst, extra) in [
        (d.join("s3.zarr"), &[][..]),
        (d.join("s2.zarr"), &["--zarr-format", "2"][..]),
        (d.join("s.nc"), &[][..]),
    ] {
        converted(convert(&src, &dst, extra), "a table with strings");
        let out = run_with(&python312(), SAME_DATASET_PY, &[s(&src), s(&dst)]);
        assert_eq!(out, "['count', 'station', 'temp'] []\n", "{dst:?}");
    }
    let header = ncdump_header(&d.join("s.nc"));
    assert!(
        header.contains("obs = 3 ;") && header.contains(":title = \"stations\""),
        "{header}"
    );
    assert!(header.contains("short temp(obs) ;"), "{header}");
    // As records, the packed column means nothing without its attributes.
    let run = convert(&src, &d.join("s.parquet"), &[]);
    refused(&run, &src, &["`temp`", "--member"]);
    // Its Zarr copy likewise: a dataset whole, refused as a table, and
    // nothing left where the table would be.
    let (zarr, parquet) = (d.join("s3.zarr"), d.join("z.parquet"));
    converted(convert(&zarr, &d.join("z.nc"), &[]), "the Zarr copy to .nc");
    let out = run_with(
        &python312(),
        SAME_DATASET_PY,
        &[s(&src), s(&d.join("z.nc"))],
    );
    assert_eq!(out, "['count', 'station', 'temp'] []\n");
    refused(
        &convert(&zarr, &parquet, &[]),
        &zarr,
        &["`temp`", "--member"],
    );
    assert!(!parquet.exists());
}

/// A whole file converts to a zip store (`.zarr.zip`, zarr-python's
/// `ZipStore`) of either format: one zip file, which xarray opens through
/// `ZipStore` equal to the source, and which converts back to `.nc`.
#[test]
fn a_dataset_converts_to_a_zip_store_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let src = d.join("ds.nc");
    run_with(
        &python312(),
        DATASET_PY,
        &[s(&src), s(&d.join("3.nc")), s(&d.join("2.zarr"))],
    );
    for format in ["3", "2"] {
        let zip = d.join(format!("ds{format}.zarr.zip"));
        converted(
            convert(&src, &zip, &["--zarr-format", format]),
            "to a zip store",
        );
        assert!(zip.is_file(), "{zip:?}");
        let out = run_with(
            &python312(),
            "import sys, xarray as xr, zarr\n\
             theirs = xr.open_dataset(sys.argv[1]).load()\n\
             ours = xr.open_zarr(zarr.storage.ZipStore(sys.argv[2], mode='r')).load()\n\
             xr.testing.assert_equal(ours, theirs)\n\
             print(sorted(ours.data_vars))",
            &[s(&src), s(&zip)],
        );
        assert_eq!(out, "['crs', 'flag', 'name', 'temp']\n", "{zip:?}");
        let back = d.join(format!("back{format}.nc"));
        converted(convert(&zip, &back, &[]), "a zip store to .nc");
        let out = run_with(&python312(), SAME_DATASET_PY, &[s(&src), s(&back)]);
        assert_eq!(out, "['crs', 'flag', 'name', 'temp'] ['station', 'time']\n");
    }
    let left: Vec<_> = ndl_testkit::names(d)
        .into_iter()
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A file of one data variable beside its coordinates (the commonest
/// netCDF file) converts whole to a Zarr store or a netCDF-4 file, its
/// coordinates included, as xarray opens it, groups too; to a `.npy` it
/// is the one variable.
#[test]
fn one_variable_beside_its_coordinates_converts_with_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (src, npy) = (d.join("one.nc"), d.join("one.npy"));
    run_with(
        &python312(),
        "import sys, numpy as np, xarray as xr\n\
         xr.Dataset({'v': (('time', 'x'), np.arange(6.).reshape(3, 2))},\n\
         \x20          coords={'time': [10, 20, 30], 'x': [0.5, 1.5]}).to_netcdf(sys.argv[1])",
        &[s(&src)],
    );
    for dst in [d.join("one.zarr"), d.join("back.nc")] {
        let run = convert(&src, &dst, &[]);
        assert_eq!(run.code, Some(0), "{dst:?}: {run:#?}");
        let out = run_with(&python312(), SAME_DATASET_PY, &[s(&src), s(&dst)]);
        assert_eq!(out, "['v'] ['time', 'x']\n", "{dst:?}");
    }
    converted(convert(&src, &npy, &[]), "to .npy");
    let out = run_with(
        &python312(),
        "import sys, numpy as np\nprint(np.load(sys.argv[1]).shape)",
        &[s(&npy)],
    );
    assert_eq!(out, "(3, 2)\n");
}

/// A file of several arrays converted to a destination of one array says
/// which they are, and that a Zarr store takes them all; `--member` still
/// takes one.
#[test]
fn several_arrays_to_one_array_are_refused_pointing_to_a_zarr_store() {
    let dir = tempfile::tempdir().unwrap();
    let (src, npy) = (dir.path().join("ds.nc"), dir.path().join("one.npy"));
    let zarr2 = dir.path().join("unused.zarr");
    run_with(
        &python312(),
        DATASET_PY,
        &[s(&src), s(&dir.path().join("3.nc")), s(&zarr2)],
    );
    let run = convert(&src, &npy, &[]);
    refused(&run, &src, &["datasets", "/temp", "--member", ".zarr"]);
    assert!(!npy.exists());
    let run = convert(&src, &npy, &["--member", "temp"]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert!(npy.exists());
}

/// An HDF5 file's groups (their attributes kept), records and strings,
/// and an `.npz` archive's members, read back by both zarr-python
/// generations.
#[test]
fn hdf5_groups_and_npz_members_convert_whole() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (h5, npz) = (d.join("tree.h5"), d.join("arrays.npz"));
    run_with(
        &python312(),
        "import sys, numpy as np, h5py\n\
         with h5py.File(sys.argv[1], 'w') as f:\n\
         \x20   f.attrs['origin'] = 'lab'\n\
         \x20   f['a'] = np.arange(6.).reshape(2, 3)\n\
         \x20   g = f.create_group('obs')\n\
         \x20   g.attrs['site'] = 'north'\n\
         \x20   g['rec'] = np.array([(1, 2.5), (2, 3.5)], dtype=[('id', '<i4'), ('v', '<f8')])\n\
         \x20   g['s'] = np.array(['a', 'bb'], dtype=h5py.string_dtype())\n\
         np.savez(sys.argv[2], x=np.arange(4), y=np.ones((2, 2), 'f4'))",
        &[s(&h5), s(&npz)],
    );
    let check = "\
import sys, numpy as np, zarr
g = zarr.open_group(sys.argv[1], mode='r')
out = []
for path, node in sorted(g.members(max_depth=None)):
    attrs = {k: v for k, v in node.attrs.items() if k not in ('ndl_datatype', '_ARRAY_DIMENSIONS')}
    if isinstance(node, zarr.Group):
        out.append(f'{path}/ {attrs}')
    else:
        out.append(f'{path} {node[...].tolist()} {attrs}')
print(dict(g.attrs), ' | '.join(out))
";
    for (src, want) in [
        (
            &h5,
            "{'origin': 'lab'} a [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] {} | obs/ {'site': 'north'} | \
             obs/rec [(1, 2.5), (2, 3.5)] {} | obs/s ['a', 'bb'] {}\n",
        ),
        (
            &npz,
            "{} x [0, 1, 2, 3] {} | y [[1.0, 1.0], [1.0, 1.0]] {}\n",
        ),
    ] {
        for zarr_format in ["2", "3"] {
            let dst = d.join(format!("{}.v{zarr_format}.zarr", src.display()));
            converted(convert(src, &dst, &["--zarr-format", zarr_format]), "whole");
            let python_of_v2 = [python312(), python()];
            // zarr-python 3.1 reads a v3 group; both read v2.
            let readers = if zarr_format == "2" {
                &python_of_v2[..]
            } else {
                &python_of_v2[..1]
            };
            for py in readers {
                assert_eq!(
                    run_with(py, check, &[s(&dst)]),
                    want,
                    "{src:?} v{zarr_format}"
                );
            }
        }
        // And to one HDF5 file, read by h5py.
        let dst = d.join(format!("{}.whole.h5", src.display()));
        converted(convert(src, &dst, &[]), "whole to HDF5");
        assert_eq!(
            run_with(&python312(), H5PY_CHECK, &[s(&dst)]),
            want,
            "{src:?} h5"
        );
    }
}

/// argv: an HDF5 file. Its tree as the zarr-python check prints a group.
const H5PY_CHECK: &str = r#"
import sys, h5py
out = []
with h5py.File(sys.argv[1], 'r') as f:
    def attrs(o):
        return {k: (v.decode() if isinstance(v, bytes) else v) for k, v in o.attrs.items() if k != 'ndl_datatype'}
    def value(d):
        if h5py.check_string_dtype(d.dtype):
            return [x.decode() for x in d[...].tolist()]
        return d[...].tolist()
    def visit(name, o):
        if isinstance(o, h5py.Datatype):
            return  # a committed type, the compound's
        if isinstance(o, h5py.Group):
            out.append(f'{name}/ {attrs(o)}')
        else:
            out.append(f'{name} {value(o)} {attrs(o)}')
    f.visititems(visit)
    print(attrs(f), ' | '.join(sorted(out)))
"#;

/// One array that cannot be converted (an HDF5 object reference) after
/// others that can: refused naming it, and nothing at the destination, no
/// building directory left.
#[test]
fn a_failing_array_leaves_no_group() {
    let dir = tempfile::tempdir().unwrap();
    let (h5, dst) = (dir.path().join("refs.h5"), dir.path().join("out.zarr"));
    run_with(
        &python312(),
        "import sys, numpy as np, h5py\n\
         with h5py.File(sys.argv[1], 'w') as f:\n\
         \x20   f['a'] = np.arange(3)\n\
         \x20   f['b'] = np.arange(4.)\n\
         \x20   f.create_dataset('z', data=[f['a'].ref], dtype=h5py.ref_dtype)",
        &[s(&h5)],
    );
    let run = convert(&h5, &dst, &[]);
    refused(&run, &h5, &["`z`"]);
    assert!(!dst.exists());
    no_partial(dir.path());
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// No hidden building directory is left in `dir`.
fn no_partial(dir: &Path) {
    let hidden: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(hidden.is_empty(), "{hidden:?}");
}

/// kill -9 during the conversion of a whole archive: no group at the
/// destination, only the hidden directory it was built in, which the
/// next conversion there removes before writing the group whole.
#[test]
fn a_killed_conversion_leaves_no_group_and_the_next_one_cleans_up() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let npz = root.join("big.npz");
    run_with(
        &python312(),
        "import sys, numpy as np\n\
         np.savez(sys.argv[1], a=np.arange(24_000_000, dtype='<u8'), b=np.arange(24_000_000, dtype='<u8'))",
        &[s(&npz)],
    );
    let dst = root.join("k.zarr");
    let hidden = || -> Vec<String> {
        std::fs::read_dir(root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect()
    };
    let mut killed_midway = false;
    for delay_ms in [0, 20, 60, 150, 400] {
        let mut child = std::process::Command::new(crate::common::cli::NDL)
            .args(["convert", s(&npz), s(&dst), "--codec", "none"])
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while hidden().is_empty() && child.try_wait().unwrap().is_none() {
            assert!(std::time::Instant::now() < deadline, "nothing was built");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let ended_first = child.try_wait().unwrap().is_some();
        child.kill().ok();
        child.wait().unwrap();
        if ended_first || dst.exists() {
            // Too late: the group is whole. Start again.
            assert!(hidden().is_empty());
            std::fs::remove_dir_all(&dst).unwrap();
            continue;
        }
        killed_midway = true;
        assert_eq!(hidden().len(), 1, "{:?}", hidden());
        break;
    }
    assert!(killed_midway, "no kill landed during the conversion");
    converted(convert(&npz, &dst, &["--codec", "none"]), "after the kill");
    assert!(dst.join("a").is_dir() && dst.join("b").is_dir());
    no_partial(root);
}

/// A dataset holding what netCDF has no type for (a 16-bit float) copies
/// whole to an `.h5` as plain HDF5, saying its dimension names are left
/// out, rather than being refused for the netCDF-4 profile it did not ask
/// for.
#[test]
fn a_dataset_netcdf_has_no_type_for_copies_to_plain_hdf5() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (src, dst) = (d.join("half.zarr"), d.join("half.h5"));
    run_with(
        &python312(),
        "import sys, warnings\n\
         warnings.simplefilter('ignore')\n\
         import numpy as np, xarray as xr\n\
         xr.Dataset({'h': ('x', np.array([0.5, 1.5], 'f2')), 'y': ('x', [1.0, 2.0])}).to_zarr(sys.argv[1])",
        &[s(&src)],
    );
    let run = convert(&src, &dst, &[]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert!(
        run.stderr.contains("dimension names are left out") && run.stderr.contains("16-bit floats"),
        "{run:#?}"
    );
    let out = run_with(
        &python312(),
        "import sys, h5py\nwith h5py.File(sys.argv[1]) as f:\n    print(f['h'].dtype, f['h'][...].tolist())",
        &[s(&dst)],
    );
    assert_eq!(out, "float16 [0.5, 1.5]\n");
}
