//! `ndl describe` of Zarr stores, ours and zarr-python's, v3 and v2, in
//! every language, read by the real consumers: our NDL reader field by
//! field, PyYAML, `datashape.dshape`, NumPy and zarr-python for the numpy
//! dict, the store's own metadata for Zarr, `ncgen -k nc4` for CDL.

use crate::common;

use common::cli::{FORMATS, compile_cdl, convert, converted, describe, ok};
use common::records::{Files, N, PACKED};
use common::stores::json;
use common::zarr_python::{ZARR_PYTHON_WRITES, py};

use std::collections::BTreeMap;
use std::path::PathBuf;

use ndl_runtime::ndl::{Extent, File as NdlFile, Ndarray};
use ndl_runtime::{ByteOrder, Datatype};

/// The packed datatype a store of `Rec` has, written out by hand in NDL.
const PACKED_NDL: &str = "\
compound:
  - a: {type: uint8, offset: 0}
  - b: {type: float64, offset: 1}
  - c: {type: uint16, offset: 9}
  - ok: {type: bool, offset: 11}
  - code: {type: {string: {length: 4, charset: ascii}}, offset: 12}
  - n:
      type:
        compound:
          - x: {type: int8, offset: 0}
          - y: {type: float32, offset: 1}
        size: 5
      offset: 16
size: 21
";

fn packed_datatype() -> Datatype {
    serde_yaml::from_str(PACKED_NDL).expect("the NDL datatype reads")
}

/// A store to describe, and what its description must say.
struct Described {
    store: PathBuf,
    chunk: usize,
    endian: ByteOrder,
    /// The compressor's `name` in the NDL `filter`.
    codec: &'static str,
}

/// The stores to describe: ours v3 (both byte orders) and v2, zarr-python
/// 3.4's v3 and v2.
fn stores_to_describe(files: &Files) -> Vec<Described> {
    let root = files.dir.path();
    let ours_v3 = root.join("ours_v3.zarr");
    converted(
        convert(&files.path("nested.npy"), &ours_v3, &["--chunk-len", "128"]),
        "ours v3",
    );
    let ours_v3_big = root.join("ours_v3_big.zarr");
    converted(
        convert(
            &files.path("nested_big.npy"),
            &ours_v3_big,
            &["--codec", "gzip:7", "--chunk-len", "300"],
        ),
        "ours v3 big",
    );
    let ours_v2 = root.join("ours_v2.zarr");
    converted(
        convert(
            &files.path("nested_big.npy"),
            &ours_v2,
            &["--zarr-format", "2", "--codec", "blosc"],
        ),
        "ours v2",
    );
    let out = common::run_with(
        &common::python312(),
        &py(ZARR_PYTHON_WRITES),
        &[
            files.path("nested.npy").to_str().unwrap(),
            root.to_str().unwrap(),
        ],
    );
    assert!(out.starts_with("ok 3.4"), "{out}");
    vec![
        Described {
            store: ours_v3,
            chunk: 128,
            endian: ByteOrder::Little,
            codec: "zstd",
        },
        Described {
            store: ours_v3_big,
            chunk: 300,
            endian: ByteOrder::Big,
            codec: "gzip",
        },
        Described {
            store: ours_v2,
            chunk: ((2 << 20) / PACKED).min(N),
            endian: ByteOrder::Big,
            codec: "blosc",
        },
        Described {
            store: root.join("py_v3.zarr"),
            chunk: 100,
            endian: ByteOrder::Little,
            codec: "zstd",
        },
        Described {
            store: root.join("py_v2.zarr"),
            chunk: 100,
            endian: ByteOrder::Big,
            codec: "blosc",
        },
    ]
}

/// PyYAML (and its structure), `datashape.dshape`, in Python 3.11.
const CHECK_YAML_DATASHAPE: &str = r#"
import yaml, datashape
ndl_text, ds_text, name, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
doc = yaml.safe_load(ndl_text)
nd = doc['ndarrays'][name]
assert nd['shape'] == [n], nd
t = nd['type']
assert t['size'] == 21, t
members = [(list(m)[0], list(m.values())[0]['offset']) for m in t['compound']]
assert members == [('a', 0), ('b', 1), ('c', 9), ('ok', 11), ('code', 12), ('n', 16)], members
assert set(nd['storage']) == {'chunk', 'filter', 'endian'}, nd['storage']
ds = datashape.dshape(ds_text.strip())
assert ds.shape == (datashape.Fixed(n),), ds.shape
assert ds.measure.names == ['a', 'b', 'c', 'ok', 'code', 'n'], ds.measure.names
assert ds.measure.dict['n'].names == ['x', 'y']
assert str(ds.measure.dict['b']) == 'float64' and str(ds.measure.dict['c']) == 'uint16'
print('ok')
"#;

/// The numpy dict: `ast.literal_eval` reads it, numpy accepts its descr,
/// packed, and it is the dtype zarr-python 3.4 reads from the store.
const CHECK_NUMPY_DICT: &str = r#"
import warnings
warnings.simplefilter('ignore')
import zarr
text, store, n, order = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
d = ast.literal_eval(text)
assert set(d) == {'descr', 'fortran_order', 'shape'}, d
assert d['shape'] == (n,) and d['fortran_order'] is False, d
dt = np.dtype(d['descr'])
assert dt.itemsize == 21, dt
assert dt.fields['b'][0].str[0] == order and dt.fields['n'][0].fields['y'][0].str[0] == order, dt
z = zarr.open_array(store, mode='r')
if z.metadata.zarr_format == 3:
    # zarr-python reads v3 big-endian chunks into native numbers.
    assert dt.newbyteorder('<') == z.dtype.newbyteorder('<'), (dt, z.dtype)
else:
    assert dt == z.dtype, (dt, z.dtype)
print('ok')
"#;

#[test]
fn describe_stores_in_every_format() {
    let files = Files::new();
    let root = files.dir.path();
    for d in stores_to_describe(&files) {
        let name = d.store.file_stem().unwrap().to_str().unwrap().to_owned();
        let mut outs = BTreeMap::new();
        for format in FORMATS {
            outs.insert(
                format,
                ok(describe(&d.store, format, &[]), &format!("{name} {format}")),
            );
        }

        // NDL: our reader, field by field.
        let doc = NdlFile::from_yaml(&outs["ndl"])
            .unwrap_or_else(|e| panic!("{name}: {e}\n{}", outs["ndl"]));
        let nd: &Ndarray = doc
            .ndarray(&format!("/{name}"))
            .unwrap_or_else(|| panic!("{name}: no ndarray in\n{}", outs["ndl"]));
        assert_eq!(nd.shape.0, [Extent::Size(N)], "{name}");
        assert_eq!(nd.datatype, Some(packed_datatype()), "{name}");
        assert_eq!(nd.storage.chunk, Some(vec![d.chunk]), "{name}");
        assert_eq!(nd.storage.endian, Some(d.endian), "{name}");
        let filter = nd.storage.filter.as_ref().expect("a filter");
        assert_eq!(filter.len(), 1, "{name}: {filter:?}");
        assert_eq!(filter[0]["name"].as_str(), Some(d.codec), "{name}");

        // PyYAML and datashape.
        let out = common::run_python(
            &py(CHECK_YAML_DATASHAPE),
            &[&outs["ndl"], &outs["datashape"], &name, &N.to_string()],
        );
        assert_eq!(out.trim(), "ok");

        // NumPy's dict.
        let out = common::run_with(
            &common::python312(),
            &py(CHECK_NUMPY_DICT),
            &[
                outs["numpy"].trim(),
                d.store.to_str().unwrap(),
                &N.to_string(),
                if d.endian == ByteOrder::Big { ">" } else { "<" },
            ],
        );
        assert_eq!(out.trim(), "ok");

        // Zarr: the store's own metadata document.
        let own = if d.store.join("zarr.json").exists() {
            d.store.join("zarr.json")
        } else {
            d.store.join(".zarray")
        };
        let printed: serde_json::Value = serde_json::from_str(&outs["zarr"]).unwrap();
        assert_eq!(printed, json(&own), "{name}");

        // CDL compiles.
        let dump = compile_cdl(&outs["cdl"], root, &name);
        assert!(
            dump.contains(&format!("{name}_t {name}({name}_dim0)")),
            "{dump}"
        );
        assert!(dump.contains(&format!("{name}_dim0 = {N}")), "{dump}");
        assert!(dump.contains("compound n_t"), "{dump}");
    }
}

/// argv: store, format. zarr-python writes a hierarchy: the root with an
/// array, `/obs` with attributes and an array, `/obs/station` with an
/// array, and `/empty`, a group of nothing.
const NESTED_GROUPS: &str = r#"
import sys, warnings
warnings.simplefilter('ignore')
import numpy as np, zarr
root = zarr.open_group(sys.argv[1], mode='w', zarr_format=int(sys.argv[2]))
root.attrs['title'] = 'nested'
root.create_array('y', shape=(3,), dtype='f8')[...] = [1.5, 2.5, 3.5]
obs = root.create_group('obs')
obs.attrs['site'] = 'north'
obs.create_array('x', shape=(2,), dtype='i4')[...] = [7, 8]
obs.create_group('station').create_array('p', shape=(2, 3), dtype='f4')[...] = np.arange(6).reshape(2, 3)
root.create_group('empty')
"#;

/// argv: copy. netCDF4-python reads the copy's groups and values.
const NESTED_COPY: &str = r#"
import sys, warnings
warnings.simplefilter('ignore')
import numpy as np, netCDF4
f = netCDF4.Dataset(sys.argv[1])
assert f.title == 'nested', f.ncattrs()
assert list(f['y'][:]) == [1.5, 2.5, 3.5]
obs = f.groups['obs']
assert obs.site == 'north' and list(obs['x'][:]) == [7, 8]
assert (obs.groups['station']['p'][:] == np.arange(6).reshape(2, 3)).all()
assert 'empty' in f.groups
print('ok')
"#;

/// A store of nested groups, as zarr-python writes it (v3 and v2), is
/// described group by group with their attributes and arrays, in NDL and
/// in CDL that ncgen compiles, and converts whole to netCDF-4 groups. The
/// v3 store was refused ("not an array"); the v2 one lost its subgroups.
#[test]
fn nested_groups_are_described_and_converted_group_by_group() {
    let dir = tempfile::tempdir().unwrap();
    for format in ["3", "2"] {
        let store = dir.path().join(format!("nested{format}.zarr"));
        let path = store.to_str().unwrap();
        common::run_with(&common::python312(), NESTED_GROUPS, &[path, format]);
        let ndl = ok(describe(&store, "ndl", &[]), format);
        let doc: serde_yaml::Value = serde_yaml::from_str(&ndl).unwrap();
        assert_eq!(doc["/"]["attributes"]["title"], "nested", "{ndl}");
        assert_eq!(doc["/"]["ndarrays"]["y"]["type"], "float64", "{ndl}");
        assert_eq!(doc["/obs"]["attributes"]["site"], "north", "{ndl}");
        assert_eq!(doc["/obs"]["ndarrays"]["x"]["type"], "int32", "{ndl}");
        let p = &doc["/obs/station"]["ndarrays"]["p"];
        assert_eq!(p["type"], "float32", "{ndl}");
        assert_eq!(p["shape"].as_sequence().map(Vec::len), Some(2), "{ndl}");
        assert!(doc.get("/empty").is_some(), "{ndl}");
        let cdl = ok(describe(&store, "cdl", &[]), format);
        let dump = compile_cdl(&cdl, dir.path(), &format!("nested{format}"));
        assert!(dump.contains("group: station {"), "{dump}");
        let nc = dir.path().join(format!("nested{format}.nc"));
        converted(convert(&store, &nc, &[]), format);
        let out = common::run_with(&common::python312(), NESTED_COPY, &[nc.to_str().unwrap()]);
        assert_eq!(out.trim(), "ok");
    }
}

/// argv: store, .nc. zarr-python and netCDF4-python write attributes of
/// NaN and the infinities: a group's, an array's, in lists.
const NON_FINITE_ATTRIBUTES: &str = r#"
import sys, warnings
warnings.simplefilter('ignore')
import numpy as np, zarr, netCDF4
g = zarr.open_group(sys.argv[1], mode='w')
g.attrs.update({'a': float('nan'), 'b': [float('nan'), float('inf'), 1.5], 'text': 'NaN'})
v = g.create_array('v', shape=(2,), dtype='f8')
v[...] = [1, 2]
v.attrs['valid_max'] = float('inf')
f = netCDF4.Dataset(sys.argv[2], 'w')
f.createDimension('x', 2)
w = f.createVariable('w', 'f4', ('x',))
w[:] = [1, 2]
w.missing_value = np.float32('nan')
w.valid_range = np.array([-np.inf, np.inf], 'f4')
f.close()
"#;

/// argv: store copied from the Zarr store, store converted from the .nc,
/// store made by `ndl create`. zarr-python reads floats, not text or None.
const NON_FINITE_CHECK: &str = r#"
import sys, math, warnings
warnings.simplefilter('ignore')
import zarr
copy, from_nc, made = (zarr.open(p, mode='r') for p in sys.argv[1:4])
assert math.isnan(copy.attrs['a']), dict(copy.attrs)
b = copy.attrs['b']
assert math.isnan(b[0]) and b[1] == math.inf and b[2] == 1.5, b
assert copy.attrs['text'] == 'NaN', dict(copy.attrs)
assert copy['v'].attrs['valid_max'] == math.inf
w = from_nc['w'] if isinstance(from_nc, zarr.Group) else from_nc
assert math.isnan(w.attrs['missing_value']), dict(w.attrs)
assert w.attrs['valid_range'] == [-math.inf, math.inf], dict(w.attrs)
assert math.isnan(made.attrs['a']) and made.attrs['b'][1] == math.inf, dict(made.attrs)
print('ok')
"#;

/// Attributes of NaN and the infinities, which zarr-python writes as
/// Python's bare words, are described as floats and written so again:
/// they were read as text and written as JSON's null.
#[test]
fn nan_and_infinite_attributes_stay_floats() {
    let dir = tempfile::tempdir().unwrap();
    let (store, nc) = (dir.path().join("nan.zarr"), dir.path().join("nan.nc"));
    let paths = [store.to_str().unwrap(), nc.to_str().unwrap()];
    common::run_with(&common::python312(), NON_FINITE_ATTRIBUTES, &paths);
    let ndl = ok(describe(&store, "ndl", &[]), "nan");
    let doc: serde_yaml::Value = serde_yaml::from_str(&ndl).unwrap();
    let a = &doc["attributes"]["a"];
    assert!(a.as_f64().is_some_and(f64::is_nan), "{ndl}");
    assert_eq!(doc["attributes"]["b"]["type"], "float64", "{ndl}");
    assert_eq!(doc["attributes"]["text"], "NaN", "{ndl}");
    let copy = dir.path().join("copy.zarr");
    converted(convert(&store, &copy, &[]), "copy");
    let from_nc = dir.path().join("from_nc.zarr");
    converted(convert(&nc, &from_nc, &[]), "from nc");
    let doc = dir.path().join("nan.ndl.yaml");
    std::fs::write(
        &doc,
        "attributes:\n  a: .nan\n  b: {shape: [2], type: float64, value: [.nan, .inf]}\n",
    )
    .unwrap();
    let made = dir.path().join("made.zarr");
    let run = common::cli::ndl(&["create", doc.to_str().unwrap(), made.to_str().unwrap()]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    let args = [
        copy.to_str().unwrap(),
        from_nc.to_str().unwrap(),
        made.to_str().unwrap(),
    ];
    let out = common::run_with(&common::python312(), NON_FINITE_CHECK, &args);
    assert_eq!(out.trim(), "ok");
}

/// A v2 store naming more dimensions than its array has (another tool's
/// `_ARRAY_DIMENSIONS`) is described, the names beyond the rank left out:
/// the CDL printer indexed the shape by them and panicked.
#[test]
fn dimension_names_beyond_the_rank_are_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("extra.zarr");
    let script = r#"
import sys, json, warnings
warnings.simplefilter('ignore')
import zarr
g = zarr.open_group(sys.argv[1], mode='w', zarr_format=2)
g.create_array('extra', shape=(3,), dtype='i4')[...] = [1, 2, 3]
g.create_array('other', shape=(2,), dtype='i4')[...] = [4, 5]
json.dump({'_ARRAY_DIMENSIONS': ['x', None, 'y']}, open(sys.argv[1] + '/extra/.zattrs', 'w'))
"#;
    common::run_with(&common::python312(), script, &[store.to_str().unwrap()]);
    let cdl = ok(describe(&store, "cdl", &[]), "extra");
    assert!(cdl.contains("int extra(x) ;"), "{cdl}");
    assert!(cdl.contains("int other(_Anonymous_Dim_2) ;"), "{cdl}");
}
