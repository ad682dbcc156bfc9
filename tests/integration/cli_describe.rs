//! `ndl describe` of the .npy and .npz files NumPy writes, in every
//! language: the built binary's output read back by the real consumers
//! (PyYAML and our NDL reader, NumPy's `descr_to_dtype`,
//! `datashape.dshape`, NumPy for Zarr dtypes, `ncgen -k nc4` and
//! `ncdump -h` for CDL).

use crate::common;

use common::cli::{FORMATS, compile_cdl, describe, ok, refused, shape_of, without_records};

use std::collections::BTreeMap;
use std::path::Path;

use ndl_runtime::Datatype;
use ndl_runtime::ndl::File as NdlFile;

// ---- files NumPy writes ----------------------------------------------------

/// Writes the test arrays with `np.save` into argv[1] and prints, per file,
/// what the checks need to know beyond the file itself.
const MAKE_NPY: &str = r#"
import json, sys, warnings
import numpy as np
out = sys.argv[1]
warnings.simplefilter('ignore')   # format 3.0 notices
arrays = {
    'padded': np.zeros(3, np.dtype({'names': ['a', 'b'], 'formats': ['<i4', '<i4'], 'offsets': [1, 6]})),
    'trailing': np.zeros(2, np.dtype({'names': ['a'], 'formats': ['<i4'], 'itemsize': 8})),
    'aligned': np.zeros(2, np.dtype([('a', 'i1'), ('b', '<f8'), ('c', 'u2')], align=True)),
    'nested': np.zeros(2, np.dtype([('a', 'i1'), ('n', np.dtype([('x', 'i1'), ('y', '<i8')], align=True))], align=True)),
    'nested_packed': np.zeros(2, np.dtype([('p', [('x', '<f4'), ('y', '<f4')]), ('v', '<f8')])),
    'subarrays': np.zeros(2, np.dtype([('x', '<i4', (2,)), ('y', '<f8', (2, 2)), ('z', 'u1')])),
    'struct_of_subarray_of_struct': np.zeros(2, np.dtype([('n', [('a', 'u1'), ('b', '<i2')], (3,)), ('v', 'V4')])),
    'scalars': np.zeros(2, np.dtype([('s', 'S3'), ('u', '<U2'), ('b', '?'), ('c', '<c8'), ('h', '<f2')])),
    'cdl_scalars': np.zeros(2, np.dtype([('s', 'S3'), ('b', '?'), ('c', '<c16'), ('i', '<i8'), ('v', 'V2')])),
    'bytes5': np.array([b'ab', b'cdefg']),
    'unicode3': np.array(['x', 'yz'], '<U3'),
    'bools': np.array([True, False]),
    'complex64': np.arange(4, dtype='<c8'),
    'complex128_big': np.arange(4, dtype='>c16'),
    'half': np.arange(4, dtype='<f2'),
    'int32_big': np.arange(4, dtype='>i4'),
    'struct_big': np.zeros(2, np.dtype([('a', '>i4'), ('b', '>f8')])),
    'fortran': np.asfortranarray(np.arange(6, dtype='<f8').reshape(2, 3)),
    'fortran_big_struct': np.asfortranarray(np.zeros((2, 3), np.dtype([('a', '>u2'), ('b', '>f4')]))),
    'zero_d': np.array(5, '<i2'),
    'empty': np.zeros((0, 3), '<f4'),
    'empty_1d': np.zeros(0, '<u8'),
    'subarray_dtype': np.zeros(2, np.dtype(('<i4', (3,)))),
    'latin1_name': np.zeros(2, np.dtype([('\xe9t\xe9', '<i4')])),
    'wide_name': np.zeros(2, np.dtype([('count', '<i8'), ('\u6574\u5f62', '<f4')])),
    'many': np.arange(1000, dtype='<u2').reshape(10, 100),
}
def leaves(dt):
    if dt.subdtype is not None:
        yield from leaves(dt.subdtype[0])
    elif dt.names is not None:
        for name in dt.names:
            yield from leaves(dt.fields[name][0])
    else:
        yield dt
def in_cdl(dt):
    # netCDF has no float16; a whole variable of text is `string` (U) or
    # `char` with a dimension (S), but a compound holds no strings.
    if dt.names is None and dt.subdtype is None and dt.kind in 'SU':
        return True
    return all(l.kind not in 'Uf' or (l.kind == 'f' and l.itemsize != 2) for l in leaves(dt))
manifest = {}
for name, a in arrays.items():
    np.save(f'{out}/{name}.npy', a)
    back = np.load(f'{out}/{name}.npy')
    fields = None
    if back.dtype.names is not None:
        fields = [[n, back.dtype.fields[n][1]] for n in back.dtype.names]
    manifest[name] = {
        'shape': list(back.shape),
        'itemsize': back.dtype.itemsize,
        'fields': fields,
        'cdl': in_cdl(back.dtype),
    }
print(json.dumps(manifest))
"#;

/// Checks every output of every file against NumPy, PyYAML and datashape;
/// prints one line per failure. argv[1]: the directory; argv[2]: a JSON
/// file {name: {format: stdout}}.
const CHECK_OUTPUTS: &str = r#"
import ast, json, sys
import numpy as np
import yaml, datashape
from numpy.lib.format import descr_to_dtype
SCALARS = {'bool': 'b1', 'int8': 'i1', 'uint8': 'u1', 'int16': 'i2', 'uint16': 'u2',
           'int32': 'i4', 'uint32': 'u4', 'int64': 'i8', 'uint64': 'u8', 'float16': 'f2',
           'float32': 'f4', 'float64': 'f8', 'complex64': 'c8', 'complex128': 'c16'}
def from_ndl(t):
    """The layout an NDL type describes, in a form from_numpy also gives."""
    if isinstance(t, str):
        return SCALARS[t]
    if 'compound' in t:
        members = [next(iter(m.items())) for m in t['compound']]
        return ('struct', t['size'], [(n, m['offset'], from_ndl(m['type'])) for n, m in members])
    if 'array' in t:
        return ('array', from_ndl(t['array']['base']), tuple(t['array']['shape']))
    if 'string' in t:
        s = t['string']
        return ('S' if s['charset'] == 'ascii' else 'U') + str(s['length'])
    if 'opaque' in t:
        return 'V' + str(t['opaque']['size'])
    if 'enum' in t:
        return SCALARS[t['enum']['base']]
    raise ValueError(f'unknown NDL type {t!r}')
def from_numpy(dt):
    if dt.subdtype is not None:
        base, shape = dt.subdtype
        return ('array', from_numpy(base), tuple(shape))
    if dt.names is not None:
        return ('struct', dt.itemsize,
                [(n, dt.fields[n][1], from_numpy(dt.fields[n][0])) for n in dt.names])
    if dt.kind == 'b':
        return 'b1'
    if dt.kind == 'U':
        return 'U' + str(dt.itemsize // 4)
    if dt.kind in 'SV':
        return dt.kind + str(dt.itemsize)
    return dt.kind + str(dt.itemsize)
def endian(dt):
    """'little'/'big' for the first multi-byte number, None without one."""
    if dt.subdtype is not None:
        return endian(dt.subdtype[0])
    if dt.names is not None:
        for n in dt.names:
            e = endian(dt.fields[n][0])
            if e:
                return e
        return None
    if dt.byteorder == '|' or dt.kind in 'SVb':
        return None
    if dt.kind != 'U' and dt.itemsize == 1:
        return None
    return 'big' if dt.byteorder == '>' or (dt.byteorder == '=' and sys.byteorder == 'big') else 'little'
def packed_dtype(dt):
    if dt.subdtype is not None:
        return np.dtype((packed_dtype(dt.subdtype[0]), dt.subdtype[1]))
    if dt.names is None:
        return dt
    return np.dtype([(n, packed_dtype(dt.fields[n][0])) for n in dt.names])


def tupled(d):
    """A Zarr v2 dtype (JSON lists) as NumPy's descr (tuples)."""
    if isinstance(d, str):
        return d
    return [tuple([f[0], tupled(f[1])] + ([tuple(f[2])] if len(f) > 2 else [])) for f in d]
def ds_names(m):
    return list(getattr(m, 'names', []) or [])
def check(label, arr, outs, fail):
    dt, shape = arr.dtype, arr.shape
    fortran = arr.flags.f_contiguous and not arr.flags.c_contiguous
    if 'ndl' in outs:
        nd = outs['ndl']
        if nd['shape'] != list(shape):
            fail(f'ndl shape {nd["shape"]} != {list(shape)}')
        if from_ndl(nd['type']) != from_numpy(dt):
            fail(f'ndl type {from_ndl(nd["type"])} != numpy {from_numpy(dt)}')
        got = (nd.get('storage') or {}).get('endian')
        if got != endian(dt):
            fail(f'ndl endian {got} != {endian(dt)}')
    if 'numpy' in outs:
        d = outs['numpy']
        if set(d) != {'descr', 'fortran_order', 'shape'}:
            fail(f'numpy keys {sorted(d)}')
        elif descr_to_dtype(d['descr']) != dt:
            fail(f'numpy descr {d["descr"]!r} is {descr_to_dtype(d["descr"])!r}, not {dt!r}')
        elif d['shape'] != shape or d['fortran_order'] != fortran:
            fail(f'numpy shape/order {d["shape"]} {d["fortran_order"]} != {shape} {fortran}')
    if 'datashape' in outs:
        try:
            ds = datashape.dshape(outs['datashape'])
            if tuple(int(n) for n in ds.shape) != shape:
                fail(f'datashape shape {ds.shape} != {shape}')
            if dt.names is not None and ds_names(ds.measure) != list(dt.names):
                fail(f'datashape fields {ds_names(ds.measure)} != {list(dt.names)}')
        except Exception as e:
            fail(f'datashape does not parse {outs["datashape"]!r}: {e!r}')
    if 'zarr' in outs:
        z = outs['zarr']
        try:
            # Zarr holds records packed: the dtype without its padding.
            zdt = np.dtype(tupled(z['dtype']))
            if zdt != packed_dtype(dt) or zdt.itemsize != packed_dtype(dt).itemsize:
                fail(f'zarr dtype {z["dtype"]} is {zdt!r}, not {packed_dtype(dt)!r}')
        except Exception as e:
            fail(f'numpy refuses the zarr dtype {z["dtype"]}: {e!r}')
        if z['shape'] != list(shape) or z['order'] != ('F' if fortran else 'C') or z['zarr_format'] != 2:
            fail(f'zarr shape/order {z["shape"]} {z["order"]}')
        if len(z['chunks']) != len(shape) or any(c < 1 for c in z['chunks']):
            fail(f'zarr chunks {z["chunks"]}')
failures = []
directory, outputs = sys.argv[1], json.load(open(sys.argv[2]))
for file, formats in outputs.items():
    path = f'{directory}/{file}'
    parsed = {}
    for fmt, text in formats.items():
        try:
            if fmt == 'ndl':
                parsed[fmt] = yaml.safe_load(text)
            elif fmt == 'numpy':
                parsed[fmt] = ast.literal_eval(text)
            elif fmt == 'zarr':
                parsed[fmt] = json.loads(text)
            else:
                parsed[fmt] = text
        except Exception as e:
            failures.append(f'{file} {fmt}: does not parse: {e!r}\n{text}')
    if file.endswith('.npy'):
        arr = np.load(path)
        outs = {}
        if 'ndl' in parsed:
            (name, nd), = parsed['ndl']['ndarrays'].items()
            if name != file[:-4]:
                failures.append(f'{file}: ndarray named {name}')
            outs['ndl'] = nd
        for fmt in ('numpy', 'zarr'):
            if fmt in parsed:
                outs[fmt] = parsed[fmt]
        if 'datashape' in parsed:
            outs['datashape'] = parsed['datashape'].strip()
        check(file, arr, outs, lambda m: failures.append(f'{file}: {m}'))
    else:
        npz = np.load(path)
        names = [n for n in npz.files if isinstance(npz[n], np.ndarray)]
        lines = {}
        if 'datashape' in parsed:
            for line in parsed['datashape'].splitlines():
                k, _, v = line.partition(': ')
                lines[k] = v
        for name in names:
            arr = npz[name]
            outs = {}
            if 'ndl' in parsed:
                doc = parsed['ndl']
                group, _, leaf = name.rpartition('/')
                grouped = any(str(k).startswith('/') for k in doc)
                try:
                    outs['ndl'] = (doc['/' + group] if grouped else doc)['ndarrays'][leaf]
                except (KeyError, TypeError):
                    failures.append(f'{file}: no ndarray {name} in the NDL document')
            for fmt in ('numpy', 'zarr'):
                if fmt in parsed:
                    if name in parsed[fmt]:
                        outs[fmt] = parsed[fmt][name]
                    else:
                        failures.append(f'{file} {fmt}: no entry {name}')
            if 'datashape' in parsed:
                outs['datashape'] = lines.pop(name, '')
            check(name, arr, outs, lambda m, name=name: failures.append(f'{file}/{name}: {m}'))
        for fmt in ('numpy', 'zarr'):
            if fmt in parsed and sorted(parsed[fmt]) != sorted(names):
                failures.append(f'{file} {fmt}: entries {sorted(parsed[fmt])} != {sorted(names)}')
        if lines:
            failures.append(f'{file} datashape: extra lines {lines}')
for f in failures:
    print(f)
"#;

#[derive(Debug)]
struct Made {
    shape: Vec<usize>,
    itemsize: usize,
    fields: Option<Vec<(String, usize)>>,
    cdl: bool,
}

fn make_npy_files(dir: &Path) -> BTreeMap<String, Made> {
    let out = common::run_python(MAKE_NPY, &[dir.to_str().unwrap()]);
    let manifest: serde_json::Value = serde_json::from_str(&out).expect("the manifest is JSON");
    manifest
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, m)| {
            let made = Made {
                shape: m["shape"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|n| n.as_u64().unwrap() as usize)
                    .collect(),
                itemsize: m["itemsize"].as_u64().unwrap() as usize,
                fields: m["fields"].as_array().map(|fs| {
                    fs.iter()
                        .map(|f| {
                            (
                                f[0].as_str().unwrap().to_string(),
                                f[1].as_u64().unwrap() as usize,
                            )
                        })
                        .collect()
                }),
                cdl: m["cdl"].as_bool().unwrap(),
            };
            (name.clone(), made)
        })
        .collect()
}

/// Runs the Python cross-checks on `outputs` ({file: {format: stdout}}).
fn cross_check(dir: &Path, outputs: &BTreeMap<String, BTreeMap<&str, String>>) {
    let json = dir.join("outputs.json");
    std::fs::write(&json, serde_json::to_string(outputs).unwrap()).unwrap();
    let failures = common::run_python(
        CHECK_OUTPUTS,
        &[dir.to_str().unwrap(), json.to_str().unwrap()],
    );
    assert!(failures.is_empty(), "cross-checks failed:\n{failures}");
}

#[test]
fn npy_files_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let made = make_npy_files(dir.path());
    assert!(made.len() > 20, "{made:?}");
    let mut outputs: BTreeMap<String, BTreeMap<&str, String>> = BTreeMap::new();
    for (name, m) in &made {
        let file = format!("{name}.npy");
        let path = dir.path().join(&file);
        let mut formats = BTreeMap::new();

        let yaml = ok(describe(&path, "ndl", &[]), &format!("{file} ndl"));
        let doc = NdlFile::from_yaml(&yaml)
            .unwrap_or_else(|e| panic!("{file}: our NDL reader refuses the output: {e}\n{yaml}"));
        let nd = doc
            .ndarray(&format!("/{name}"))
            .unwrap_or_else(|| panic!("{file}: no ndarray /{name}:\n{yaml}"));
        assert_eq!(shape_of(nd), m.shape, "{file}");
        let dt = nd.datatype.as_ref().expect("a datatype");
        assert_eq!(dt.size(), Some(m.itemsize), "{file}: {dt:?}");
        if let Some(fields) = &m.fields {
            let Datatype::Compound(c) = dt else {
                panic!("{file}: a compound expected, got {dt:?}")
            };
            let ours: Vec<(String, usize)> = c
                .members
                .iter()
                .map(|m| (m.name.clone(), m.offset))
                .collect();
            assert_eq!(&ours, fields, "{file}");
        }
        formats.insert("ndl", yaml);

        for format in ["numpy", "datashape"] {
            let text = ok(describe(&path, format, &[]), &format!("{file} {format}"));
            formats.insert(format, text);
        }

        // Padded records too: Zarr holds them packed.
        let zarr = describe(&path, "zarr", &[]);
        formats.insert("zarr", ok(zarr, &format!("{file} zarr")));

        let cdl = describe(&path, "cdl", &[]);
        if m.cdl {
            let text = ok(cdl, &format!("{file} cdl"));
            let dump = compile_cdl(&text, dir.path(), name);
            // What ncgen built is what we described: ncdump prints it back.
            assert_eq!(dump, text, "{file}: ncdump -h differs from the CDL");
        } else {
            refused(&cdl, &path, &["netCDF", "cannot be expressed"]);
        }
        outputs.insert(file, formats);
    }
    cross_check(dir.path(), &outputs);
}

/// `np.savez` and `np.savez_compressed` archives, names with `/` as groups.
const MAKE_NPZ: &str = r#"
import sys, zipfile
import numpy as np
out = sys.argv[1]
arrays = {
    'x': np.arange(3, dtype='<i8'),
    'grp/y': np.ones(2, '>c8'),
    'a/b/c': np.zeros((2, 2), '<i2'),
    'a/z': np.zeros(1, [('p', '<f4'), ('q', 'u1')]),
    'a/f': np.asfortranarray(np.zeros((2, 3), '<f4')),
}
np.savez(f'{out}/stored.npz', **arrays)
np.savez_compressed(f'{out}/deflated.npz', **arrays)
np.savez(f'{out}/flat.npz', np.arange(2, dtype='<u4'), np.zeros((), '?'), t=np.zeros(3, [('s', 'S2'), ('v', '<f8')]))
np.savez(f'{out}/nothing.npz')
# Members np.load returns as bytes, not arrays: a text file and an empty one.
np.savez(f'{out}/extra.npz', x=np.arange(3, dtype='<i8'))
with zipfile.ZipFile(f'{out}/extra.npz', 'a') as z:
    z.writestr('notes.txt', 'Name: Test')
    z.writestr('empty', b'')
np.savez(f'{out}/padded.npz', x=np.arange(3, dtype='<i8'),
         p=np.zeros(2, np.dtype([('a', 'u1'), ('b', '<i4')], align=True)))
"#;

#[test]
fn npz_archives_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    common::run_python(MAKE_NPZ, &[dir.path().to_str().unwrap()]);
    let mut outputs: BTreeMap<String, BTreeMap<&str, String>> = BTreeMap::new();
    for archive in ["stored", "deflated", "flat"] {
        let file = format!("{archive}.npz");
        let path = dir.path().join(&file);
        let mut formats = BTreeMap::new();
        for format in ["ndl", "numpy", "datashape", "zarr"] {
            formats.insert(
                format,
                ok(describe(&path, format, &[]), &format!("{file} {format}")),
            );
        }
        let doc = NdlFile::from_yaml(&formats["ndl"])
            .unwrap_or_else(|e| panic!("{file}: {e}\n{}", formats["ndl"]));
        if archive == "flat" {
            for name in ["/arr_0", "/arr_1", "/t"] {
                assert!(doc.ndarray(name).is_some(), "{file}: {name}");
            }
        } else {
            for (name, shape) in [
                ("/x", vec![3]),
                ("/grp/y", vec![2]),
                ("/a/b/c", vec![2, 2]),
                ("/a/z", vec![1]),
                ("/a/f", vec![2, 3]),
            ] {
                let nd = doc
                    .ndarray(name)
                    .unwrap_or_else(|| panic!("{file}: no {name}:\n{}", formats["ndl"]));
                assert_eq!(shape_of(nd), shape, "{file} {name}");
            }
            assert!(doc.group("/a/b").is_some(), "{file}");
        }
        let cdl = ok(describe(&path, "cdl", &[]), &format!("{file} cdl"));
        let dump = compile_cdl(&cdl, dir.path(), archive);
        assert_eq!(dump, cdl, "{file}: ncdump -h differs from the CDL");
        if archive != "flat" {
            assert!(cdl.contains("group: grp {"), "{cdl}");
            assert!(cdl.contains("  group: b {"), "{cdl}");
        }
        outputs.insert(file, formats);
    }
    cross_check(dir.path(), &outputs);

    // An empty archive is an empty document.
    let empty = dir.path().join("nothing.npz");
    assert_eq!(ok(describe(&empty, "ndl", &[]), "nothing.npz"), "{}\n");
    assert_eq!(ok(describe(&empty, "numpy", &[]), "nothing.npz"), "{\n}\n");

    // Members that are not .npy arrays are left out with a warning.
    let extra = dir.path().join("extra.npz");
    for format in FORMATS {
        let run = describe(&extra, format, &[]);
        assert_eq!(run.code, Some(0), "{run:#?}");
        let warnings: Vec<&str> = run.stderr.lines().collect();
        assert_eq!(warnings.len(), 2, "{run:#?}");
        for (w, member) in warnings.iter().zip(["notes.txt", "empty"]) {
            assert!(w.starts_with("ndl: warning: "), "{w}");
            assert!(
                w.contains(&format!("`{member}`")) && w.contains("not a .npy"),
                "{w}"
            );
        }
        assert!(run.stdout.contains('x'), "{run:#?}");
        assert!(
            !run.stdout.contains("notes") && !run.stdout.contains("empty"),
            "{run:#?}"
        );
    }

    // A padded array is described packed, as a Zarr store holds it.
    let padded = dir.path().join("padded.npz");
    let zarr = ok(describe(&padded, "zarr", &[]), "padded.npz zarr");
    let doc: serde_json::Value = serde_json::from_str(&zarr).unwrap();
    assert_eq!(
        doc["p"]["dtype"],
        serde_json::json!([["a", "|u1"], ["b", "<i4"]]),
        "{zarr}"
    );
    ok(describe(&padded, "ndl", &[]), "padded.npz ndl");
}

/// A field named with a CDL keyword, which ncdump prints bare and no
/// spelling gets through ncgen: described as ncdump would, with a comment
/// naming it instead of a refusal.
#[test]
fn cdl_keyword_names_are_described_with_a_comment() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kw.npy");
    ndl_testkit::python::run_python(
        "import sys, numpy as np\n\
         np.save(sys.argv[1], np.zeros(2, [('byte', '<i4'), ('x', '<f8')]))",
        &[path.to_str().unwrap()],
    );
    let cdl = ok(describe(&path, "cdl", &[]), "kw.npy cdl");
    assert!(
        cdl.starts_with("// ncgen reads these names as CDL keywords in every spelling: byte\n"),
        "{cdl}"
    );
    assert!(cdl.contains("\n    int byte ;\n"), "{cdl}");
}

#[test]
fn the_element_order_is_an_ndl_storage_directive() {
    let dir = tempfile::tempdir().unwrap();
    common::run_python(
        "import sys, numpy as np\n\
         np.save(sys.argv[1] + '/f.npy', np.asfortranarray(np.arange(6, dtype='>i4').reshape(2, 3)))\n\
         np.save(sys.argv[1] + '/c.npy', np.arange(6, dtype='<i4').reshape(2, 3))\n\
         np.save(sys.argv[1] + '/v.npy', np.arange(6, dtype='<i4'))",
        &[dir.path().to_str().unwrap()],
    );
    for (file, order) in [("f", Some("F")), ("c", Some("C")), ("v", None)] {
        let yaml = ok(
            describe(&dir.path().join(format!("{file}.npy")), "ndl", &[]),
            file,
        );
        let doc = NdlFile::from_yaml(&yaml).unwrap();
        let storage = &doc.ndarray(&format!("/{file}")).unwrap().storage;
        assert_eq!(storage.order.map(|o| o.name()), order, "{yaml}");
        let pyyaml = common::run_python(
            "import sys, yaml; print(yaml.safe_load(sys.argv[1])['ndarrays'][sys.argv[2]]['storage'].get('order'))",
            &[&yaml, file],
        );
        assert_eq!(pyyaml.trim(), order.unwrap_or("None"), "{yaml}");
    }
}

// ---- HDF5 and netCDF-4 files: every attribute of every object ----------------

/// Writes, with h5py and netCDF4-python, files holding attributes of every
/// kind on every kind of object: `argv[1]/attrs.h5` and
/// `argv[1]/attrs.nc`.
const MAKE_ATTRIBUTE_FILES: &str = r#"
import sys, h5py, netCDF4, numpy as np
out = sys.argv[1]
rec = np.dtype([("a", "<i4"), ("b", ">f8"), ("s", "S3")])
with h5py.File(out + "/attrs.h5", "w") as f:
    f.attrs["zeta"] = "made first"
    f.attrs["vstr"] = "a vlen string"
    f.attrs["vstrs"] = ["x", "yy", ""]
    f.attrs["fixed"] = np.bytes_(b"abc")
    f.attrs["fixeds"] = np.array([b"ab", b"c"], "S2")
    f.attrs["nan"] = np.float32(np.nan)
    f.attrs["infs"] = np.array([np.inf, -np.inf, 1.5])
    f.attrs["empty"] = h5py.Empty("f4")
    f.attrs["record"] = np.array((1, 2.5, b"xy"), dtype=rec)
    f.attrs["records"] = np.array([(1, np.nan, b"a"), (-2, 3.0, b"bcd")], dtype=rec)
    f.attrs["small"] = np.int8(-3)
    f.attrs["big"] = np.uint64(2**63 + 1)
    f.attrs["flag"] = np.bool_(True)
    f.attrs["half"] = np.array([0.5, -1.0], "<f2")
    f.attrs["CLASS"] = np.bytes_(b"GROUP")
    g = f.create_group("g/sub")
    g.attrs["deep"] = "yes"
    g.attrs["CLASS"] = np.bytes_(b"GROUP")
    f["g"].attrs["mid"] = np.int16(7)
    d = g.create_dataset("x", data=np.arange(3))
    d.attrs["CLASS"] = np.bytes_(b"ARRAY")
    d.attrs["note"] = "on a dataset"
    d.attrs["weights"] = np.array([[1, 2], [3, 4]], ">u2")
    f.create_group("nothing_inside").attrs["e"] = np.int64(1)
    f.create_group("no_attributes_either")

d = netCDF4.Dataset(out + "/attrs.nc", "w")
d.createDimension("time", None)
d.createDimension("lat", 3)
d.title = "char text"
d.setncattr_string("vs", "a vlen")
d.setncattr_string("vss", ["x", "yy"])
d.fl = np.float32(1.0)
d.db = 2.0
d.nan_attr = np.float32(np.nan)
d.infs = np.array([np.inf, -np.inf, 0.5])
t = d.createVariable("time", "f8", ("time",))
t.units = "days since 2000-01-01"
v = d.createVariable("tas", "f4", ("time", "lat"), fill_value=np.float32(np.nan))
v.missing_value = np.array([1e20, -1.0], "f4")
v.long_name = "air"
t[0:2] = [0, 1]
g = d.createGroup("sub")
g.createDimension("x", 4)
g.note = "in sub"
w = g.createVariable("w", "i2", ("x",))
w.factor = np.float32(0.5)
d.createGroup("empty").about = "nothing"
d.close()
"#;

/// Prints, as JSON, every attribute h5py sees on every object of the
/// HDF5 file argv[1]: `{path: {name: value}}`, values as `ndl describe`
/// writes them: NaN and the infinities by name, a null dataspace as
/// `"<empty>"`, records as objects, text decoded.
const H5PY_ATTRIBUTES: &str = r#"
import sys, json, math, h5py, numpy as np
def plain(v):
    if isinstance(v, h5py.Empty):
        return "<empty>"
    if isinstance(v, np.ndarray):
        return [plain(x) for x in v] if v.ndim else plain(v[()])
    if isinstance(v, np.void) and v.dtype.names:
        return {n: plain(v[n]) for n in v.dtype.names}
    if isinstance(v, (bytes, np.bytes_)):
        return v.decode()
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return "NaN" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v
found = {}
def visit(name, obj):
    path = "/" + name if name else "/"
    found[path] = {
        "kind": "group" if isinstance(obj, h5py.Group) else "dataset",
        "attributes": {k: plain(obj.attrs[k]) for k in obj.attrs},
    }
with h5py.File(sys.argv[1], "r") as f:
    visit("", f)
    f.visititems(visit)
print(json.dumps(found, default=lambda o: "<reference>"))
"#;

/// The attributes HDF5 and netCDF-C keep for themselves, which say how
/// dimensions are attached (references), not what the data means; NDL
/// says that with dimcoords. `ncdump -h` hides them too.
fn is_dimension_bookkeeping(name: &str, value: &serde_json::Value) -> bool {
    match name {
        "CLASS" => value == "DIMENSION_SCALE",
        "NAME"
        | "DIMENSION_LIST"
        | "REFERENCE_LIST"
        | "_Netcdf4Dimid"
        | "_Netcdf4Coordinates"
        | "_NCProperties" => true,
        _ => false,
    }
}

/// An NDL attribute's value as `H5PY_ATTRIBUTES` writes it.
fn ndl_attribute_value(attr: &serde_yaml::Value) -> serde_json::Value {
    let long = attr.as_mapping().filter(|m| m.contains_key("type"));
    match long {
        Some(m) if m["shape"] == serde_yaml::Value::from(vec![0]) => "<empty>".into(),
        Some(m) => plain_json(&m["value"]),
        None => plain_json(attr),
    }
}

/// YAML as JSON, NaN and the infinities by name.
fn plain_json(v: &serde_yaml::Value) -> serde_json::Value {
    use serde_yaml::Value as Y;
    match v {
        Y::Number(n) if n.as_f64().is_some_and(|f| !f.is_finite()) => {
            let f = n.as_f64().unwrap();
            let name = if f.is_nan() {
                "NaN"
            } else if f > 0.0 {
                "inf"
            } else {
                "-inf"
            };
            name.into()
        }
        Y::Sequence(items) => items.iter().map(plain_json).collect(),
        Y::Mapping(m) => m
            .iter()
            .map(|(k, v)| (k.as_str().unwrap().to_string(), plain_json(v)))
            .collect::<serde_json::Map<_, _>>()
            .into(),
        other => serde_json::to_value(other).unwrap(),
    }
}

/// The attributes NDL gives the object at `path` (a group, an ndarray or
/// a dimcoord), or `None` when the description has no such object.
fn ndl_attributes<'a>(
    doc: &'a serde_yaml::Value,
    path: &str,
    kind: &str,
) -> Option<&'a serde_yaml::Value> {
    let empty = &serde_yaml::Value::Null;
    if kind == "group" {
        let group = doc.get(path)?;
        return Some(group.get("attributes").unwrap_or(empty));
    }
    let (group, name) = path.rsplit_once('/').unwrap();
    let group = doc.get(if group.is_empty() { "/" } else { group })?;
    let object = ["ndarrays", "dimcoords"]
        .iter()
        .find_map(|k| group.get(k)?.get(name))?;
    Some(object.get("attributes").unwrap_or(empty))
}

/// Every attribute h5py sees on every object of the file at `path` is in
/// its NDL description, with the same value; and every group is there.
fn every_attribute_is_described(path: &Path) {
    let listed = ndl_testkit::python::run_with(
        &ndl_testkit::python::python312(),
        H5PY_ATTRIBUTES,
        &[path.to_str().unwrap()],
    );
    let objects: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&listed).unwrap();
    let text = ok(describe(path, "ndl", &[]), "describe");
    let doc: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    NdlFile::from_yaml(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut compared = 0;
    for (object, info) in &objects {
        let kind = info["kind"].as_str().unwrap();
        let attributes = info["attributes"].as_object().unwrap();
        if kind == "dataset"
            && attributes
                .get("NAME")
                .and_then(|n| n.as_str())
                .is_some_and(|n| {
                    n.starts_with("This is a netCDF dimension but not a netCDF variable.")
                })
        {
            continue; // a netCDF dimension without values: a dimcoord
        }
        let ours = ndl_attributes(&doc, object, kind)
            .unwrap_or_else(|| panic!("{}: no {kind} {object} in\n{text}", path.display()));
        for (name, value) in attributes {
            if is_dimension_bookkeeping(name, value) {
                continue;
            }
            let described = ours
                .get(name.as_str())
                .unwrap_or_else(|| panic!("{object}: attribute {name} is missing from\n{text}"));
            assert_eq!(
                ndl_attribute_value(described),
                *value,
                "{object}: attribute {name} in\n{text}"
            );
            compared += 1;
        }
    }
    assert!(compared > 10, "{compared} attributes compared");
}

#[test]
fn every_attribute_h5py_sees_is_described_in_ndl() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ndl_testkit::python::run_with(
        &ndl_testkit::python::python312(),
        MAKE_ATTRIBUTE_FILES,
        &[d.to_str().unwrap()],
    );
    every_attribute_is_described(&d.join("attrs.h5"));
    every_attribute_is_described(&d.join("attrs.nc"));
}

#[test]
fn an_unlimited_dimension_is_described_with_size_null() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ndl_testkit::python::run_with(
        &ndl_testkit::python::python312(),
        MAKE_ATTRIBUTE_FILES,
        &[d.to_str().unwrap()],
    );
    let text = ok(
        describe(&d.join("attrs.nc"), "ndl", &[]),
        "describe attrs.nc",
    );
    let doc = NdlFile::from_yaml(&text).unwrap();
    let root = doc.group("/").unwrap();
    assert_eq!(root.dimcoords.get("time").unwrap().size, None, "{text}");
    assert_eq!(root.dimcoords.get("lat").unwrap().size, Some(3), "{text}");
    let empty = doc.group("/empty").unwrap_or_else(|| panic!("{text}"));
    assert_eq!(
        empty.attributes.get("about").unwrap().as_str(),
        Some("nothing")
    );
}

/// Writes, with netCDF4-python, the netCDF-4 files whose CDL `ncgen`
/// refused or `ncdump -h` printed otherwise: `argv[1]/NAME.nc`.
const MAKE_NETCDF_FILES: &str = r#"
import sys, netCDF4, numpy as np
out = sys.argv[1]
def dataset(name):
    return netCDF4.Dataset(f"{out}/{name}.nc", "w")

with dataset("integral_floats") as d:
    d.createDimension("n", 2)
    v = d.createVariable("v", "f4", ("n",))
    v.scale_factor = np.float32(1.0)
    v.add_offset = 2.0
    v.huge = np.float32(1e20)
    v.tiny = 1e-5
    v.third = np.float32(1 / 3)
    v.exact = 0.1
    d.count = np.float32(-3.0)

with dataset("nan_and_inf") as d:
    d.createDimension("n", None)
    v = d.createVariable("f", "f4", ("n",), fill_value=np.float32(np.nan))
    v.missing_value = np.array([1e20, -1.0], "f4")
    v.limits = np.array([-np.inf, 0.5, np.inf], "f4")
    w = d.createVariable("g", "f8", ("n",), fill_value=np.inf)
    w.valid_range = np.array([-np.inf, np.inf])
    w[0:3] = [1, 2, 3]
    d.not_a_number = np.nan

with dataset("text") as d:
    d.createDimension("n", 1)
    d.createVariable("x", "i2", ("n",))
    d.title = "char text"
    d.setncattr_string("one", "a vlen string")
    d.setncattr_string("many", ["x", "yy", "with \"quotes\""])
    d.zeta = "made after the strings"
    d.alpha = np.int8(-1)

with dataset("groups") as d:
    d.createDimension("t", None)
    d.history = "root"
    t = d.createVariable("t", "f8", ("t",))
    t.units = "days since 2000-01-01"
    t[0:2] = [0, 1]
    g = d.createGroup("inner")
    g.createDimension("m", 3)
    g.note = "inner"
    x = g.createVariable("x", "u2", ("t", "m"))
    x.valid_range = np.array([0, 10], "u2")
    x[0:2] = np.ones((2, 3))
    deeper = g.createGroup("deeper")
    deeper.createDimension("k", 2)
    deeper.level = np.int16(2)
    deeper.createVariable("y", "i8", ("k", "m"))
    d.createGroup("no_variables").about = "nothing"
    d.createGroup("nothing_at_all")

with dataset("types") as d:
    d.createDimension("n", 2)
    rec = np.dtype([("a", "<i4"), ("b", "<f8")])
    observation = d.createCompoundType(rec, "observation")
    cloud = d.createEnumType(np.uint8, "cloud_t", {"clear": 0, "cloudy": 1})
    d.createVariable("obs", observation, ("n",)).note = "records"
    d.createVariable("sky", cloud, ("n",))
    d.createVariable("sky2", cloud, ("n",))
"#;

#[test]
fn cdl_of_netcdf4_files_compiles_and_is_what_ncdump_prints() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ndl_testkit::python::run_with(
        &ndl_testkit::python::python312(),
        MAKE_NETCDF_FILES,
        &[d.to_str().unwrap()],
    );
    for name in ["integral_floats", "nan_and_inf", "text", "groups", "types"] {
        let nc = d.join(format!("{name}.nc"));
        let ours = ok(describe(&nc, "cdl", &[]), name);
        let header = ndl_testkit::netcdf::ncdump(&["-h"], &nc);
        assert_eq!(ours, header, "{name}: our CDL is not ncdump -h's");
        // ncgen makes the header only: its unlimited dimensions hold
        // nothing yet.
        let compiled = compile_cdl(&ours, d, &format!("{name}_again"));
        assert_eq!(
            without_records(&compiled.replacen(
                &format!("netcdf {name}_again {{"),
                &format!("netcdf {name} {{"),
                1
            )),
            without_records(&header),
            "{name}: what ncgen made of our CDL"
        );
    }
}
