//! End-to-end tests of the `ndl` command: the built binary run on files
//! NumPy wrote, its output read back by the real consumers (PyYAML and
//! our NDL reader, NumPy's `descr_to_dtype`, `datashape.dshape`, NumPy
//! for Zarr dtypes, `ncgen -k nc4` and `ncdump -h` for CDL), and every
//! malformed `.npy` case refused with a clear error and no panic.

mod common;

use common::cli::{compile_cdl, ndl, ok, refused, Run};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ndl_runtime::ndl::{Extent, File as NdlFile, Ndarray};
use ndl_runtime::{Datatype, IntType};

const FORMATS: [&str; 5] = ["ndl", "numpy", "datashape", "zarr", "cdl"];

fn describe(path: &Path, format: &str, extra: &[&str]) -> Run {
    let mut args = vec!["describe", path.to_str().unwrap(), "--format", format];
    args.extend_from_slice(extra);
    ndl(&args)
}

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
    # netCDF has no float16 or UTF-32, and a fixed string is only a
    # compound member (char name(n)), not a variable's whole type.
    if dt.names is None and dt.subdtype is None and dt.kind == 'S':
        return False
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

fn shape_of(nd: &Ndarray) -> Vec<usize> {
    nd.shape
        .0
        .iter()
        .map(|e| match e {
            Extent::Size(n) => *n,
            other => panic!("a numeric extent expected, got {other:?}"),
        })
        .collect()
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

#[test]
fn npz_members_that_are_broken_arrays_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
import sys, zipfile
import numpy as np
out = sys.argv[1]
np.save(f'{out}/ok.npy', np.arange(4, dtype='<f8'))
good = open(f'{out}/ok.npy', 'rb').read()
for name, member in [('bad_version', b'\x93NUMPY\x01\x01' + good[8:]),
                     ('short_magic', b'\x93NUMPY\x01'),
                     ('bad_header', good[:10] + good[10:].replace(b"'shape'", b"'shapf'"))]:
    with zipfile.ZipFile(f'{out}/{name}.npz', 'w') as z:
        z.writestr('fine.npy', good)
        z.writestr('broken.npy', member)
"#;
    common::run_python(script, &[dir.path().to_str().unwrap()]);
    for (name, word) in [
        ("bad_version", "version 1.1"),
        ("short_magic", "magic string"),
        ("bad_header", "'shapf'"),
    ] {
        let path = dir.path().join(format!("{name}.npz"));
        let run = describe(&path, "ndl", &[]);
        refused(&run, &path, &["broken.npy", word]);
    }
}

// ---- the sidecar -----------------------------------------------------------

const SIDECAR: &str = "\
ndarrays:
  x:
    shape: [3]
    type:
      compound:
        - state: {type: {enum: {base: uint8, members: {idle: 0, running: 1, failed: 2}}}, offset: 0}
        - t: {type: float64, offset: 1}
      size: 9
    attributes:
      description: Machine states over time
      units: s
";

fn sidecar_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    common::run_python(
        "import sys, numpy as np\n\
         np.save(sys.argv[1] + '/x.npy', np.zeros(3, [('state', 'u1'), ('t', '<f8')]))",
        &[dir.path().to_str().unwrap()],
    );
    dir
}

fn state_type(yaml: &str) -> Datatype {
    let doc = NdlFile::from_yaml(yaml).unwrap_or_else(|e| panic!("{e}\n{yaml}"));
    let Some(Datatype::Compound(c)) = &doc.ndarray("/x").unwrap().datatype else {
        panic!("{yaml}")
    };
    c.member("state").unwrap().datatype.clone()
}

#[test]
fn a_sidecar_adds_enum_names_and_attributes() {
    let dir = sidecar_dir();
    let npy = dir.path().join("x.npy");
    std::fs::write(dir.path().join("x.yaml"), SIDECAR).unwrap();
    let yaml = ok(describe(&npy, "ndl", &[]), "x.npy with sidecar");
    let Datatype::Enum(e) = state_type(&yaml) else {
        panic!("the sidecar's enum is not merged:\n{yaml}")
    };
    assert_eq!(e.base, IntType::UInt8);
    let names: Vec<&str> = e.members.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["idle", "running", "failed"]);
    let doc = NdlFile::from_yaml(&yaml).unwrap();
    let nd = doc.ndarray("/x").unwrap();
    assert_eq!(nd.description(), Some("Machine states over time"));
    assert_eq!(
        nd.attributes.get("units").and_then(|a| a.as_str()),
        Some("s")
    );
    // The file's own facts stay: shape and byte order.
    assert_eq!(shape_of(nd), [3]);
    assert!(nd.storage.endian.is_some(), "{yaml}");
    // PyYAML reads the merged document too.
    let check = common::run_python(
        "import sys, yaml\n\
         d = yaml.safe_load(sys.argv[1])['ndarrays']['x']\n\
         print(d['type']['compound'][0]['state']['type']['enum']['members'], d['attributes']['units'])",
        &[&yaml],
    );
    assert_eq!(
        check.trim(),
        "{'idle': 0, 'running': 1, 'failed': 2} s",
        "{yaml}"
    );

    // The other languages describe the file; the sidecar does not break them.
    for format in ["numpy", "datashape", "zarr"] {
        ok(describe(&npy, format, &[]), format);
    }
    // CDL has enums, so the sidecar's names reach it, and ncgen reads them.
    let cdl = ok(describe(&npy, "cdl", &[]), "cdl with sidecar");
    assert!(
        cdl.contains("ubyte enum state_t {idle = 0, running = 1, failed = 2} ;"),
        "{cdl}"
    );
    let compiled = dir.path().join("x.nc");
    let cdl_path = dir.path().join("x.cdl");
    std::fs::write(&cdl_path, &cdl).unwrap();
    let status = std::process::Command::new("ncgen")
        .args(["-k", "nc4", "-o"])
        .arg(&compiled)
        .arg(&cdl_path)
        .status()
        .expect("ncgen (Debian netcdf-bin) runs");
    assert!(status.success(), "ncgen refused:\n{cdl}");

    // --no-sidecar: the file alone, silently.
    let plain = ok(describe(&npy, "ndl", &["--no-sidecar"]), "--no-sidecar");
    assert_eq!(state_type(&plain), Datatype::UInt8, "{plain}");
    assert!(!plain.contains("Machine states"), "{plain}");

    // The .yml spelling is found as well.
    std::fs::rename(dir.path().join("x.yaml"), dir.path().join("x.yml")).unwrap();
    let yaml = ok(describe(&npy, "ndl", &[]), "x.npy with x.yml");
    assert!(matches!(state_type(&yaml), Datatype::Enum(_)), "{yaml}");
}

#[test]
fn a_sidecar_of_another_layout_is_not_used() {
    let dir = sidecar_dir();
    let npy = dir.path().join("x.npy");
    // uint16 instead of the file's uint8: every later offset would be wrong.
    let other = SIDECAR
        .replace("base: uint8", "base: uint16")
        .replace("offset: 1", "offset: 2")
        .replace("size: 9", "size: 10");
    std::fs::write(dir.path().join("x.yaml"), other).unwrap();
    let run = describe(&npy, "ndl", &[]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert!(
        run.stderr.starts_with("ndl: warning: ") && run.stderr.contains("another layout"),
        "{run:#?}"
    );
    assert!(run.stderr.contains("x.yaml"), "{run:#?}");
    assert_eq!(state_type(&run.stdout), Datatype::UInt8, "{}", run.stdout);
    let doc = NdlFile::from_yaml(&run.stdout).unwrap();
    let Some(Datatype::Compound(c)) = &doc.ndarray("/x").unwrap().datatype else {
        panic!()
    };
    assert_eq!((c.size, c.member("t").unwrap().offset), (9, 1));
}

#[test]
fn unusable_sidecars_are_warned_about() {
    let dir = sidecar_dir();
    let npy = dir.path().join("x.npy");
    let side = dir.path().join("x.yaml");
    for (text, word) in [
        ("ndarrays: [unclosed\n", "ignored"),
        (
            "ndarrays:\n  x: {shape: [3], type: no_such_type}\n",
            "ignored",
        ),
        (
            "ndarrays:\n  other: {shape: [3], type: uint8}\n",
            "no array `/other`",
        ),
    ] {
        std::fs::write(&side, text).unwrap();
        let run = describe(&npy, "ndl", &[]);
        assert_eq!(run.code, Some(0), "{text}: {run:#?}");
        assert!(
            run.stderr.starts_with("ndl: warning: sidecar ")
                && run.stderr.contains(word)
                && run.stderr.contains("x.yaml"),
            "{text}: {run:#?}"
        );
        assert_eq!(state_type(&run.stdout), Datatype::UInt8, "{}", run.stdout);
        // --no-sidecar does not even look.
        let quiet = describe(&npy, "ndl", &["--no-sidecar"]);
        assert_eq!((quiet.code, quiet.stderr.as_str()), (Some(0), ""));
    }
    // Not UTF-8: it cannot be read, and the user hears of it.
    std::fs::write(&side, b"ndarrays:\n  x: {description: \xff}\n").unwrap();
    let run = describe(&npy, "ndl", &[]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert!(run.stderr.contains("ignored"), "{run:#?}");
}

#[test]
fn a_sidecar_describes_npz_groups() {
    let dir = tempfile::tempdir().unwrap();
    common::run_python(
        "import sys, numpy as np\n\
         np.savez(sys.argv[1] + '/g.npz', **{'grp/mode': np.zeros(4, 'i1'), 't': np.zeros(4)})",
        &[dir.path().to_str().unwrap()],
    );
    std::fs::write(
        dir.path().join("g.yaml"),
        "/:\n  attributes: {title: Test run}\n\
         /grp:\n  ndarrays:\n    mode:\n      shape: [4]\n      \
         type: {enum: {base: int8, members: {off: 0, 'on': 1}}}\n      \
         attributes: {description: Mode}\n",
    )
    .unwrap();
    let path = dir.path().join("g.npz");
    let yaml = ok(describe(&path, "ndl", &[]), "g.npz");
    let doc = NdlFile::from_yaml(&yaml).unwrap_or_else(|e| panic!("{e}\n{yaml}"));
    let mode = doc.ndarray("/grp/mode").unwrap();
    assert!(
        matches!(&mode.datatype, Some(Datatype::Enum(e)) if e.members.len() == 2),
        "{yaml}"
    );
    assert_eq!(mode.description(), Some("Mode"));
    let root = doc.group("/").unwrap();
    assert_eq!(
        root.attributes.get("title").and_then(|a| a.as_str()),
        Some("Test run"),
        "{yaml}"
    );
}

// ---- malformed files -------------------------------------------------------

/// A 1.0 file with header `text` (Latin-1) and 16 bytes of data.
fn v1(text: &str) -> Vec<u8> {
    let mut f = common::npy_file(1, &text.chars().map(|c| c as u8).collect::<Vec<_>>());
    f.extend_from_slice(&[0; 16]);
    f
}

/// A good header of a `(2,)` float64 array with `key: value` replaced.
fn header_with(key: &str, value: &str) -> String {
    let mut parts = vec![
        ("descr", "'<f8'".to_string()),
        ("fortran_order", "False".to_string()),
        ("shape", "(2,)".to_string()),
    ];
    for p in &mut parts {
        if p.0 == key {
            p.1 = value.to_string();
        }
    }
    let body: Vec<String> = parts.iter().map(|(k, v)| format!("'{k}': {v}")).collect();
    format!("{{{}, }}\n", body.join(", "))
}

const GOOD: &str = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }\n";

/// A 1.0 header of exactly `len` characters, padding and `\n` included,
/// followed by the data.
fn sized(len: usize) -> Vec<u8> {
    let mut text = GOOD.trim_end().to_string();
    text.push_str(&" ".repeat(len - text.len() - 1));
    text.push('\n');
    v1(&text)
}

/// Every malformed case: a name, the bytes, words the error must hold.
fn malformed() -> Vec<(&'static str, Vec<u8>, Vec<&'static str>)> {
    let good = v1(GOOD);
    let with_version = |major: u8, minor: u8| {
        let mut f = good.clone();
        f[6] = major;
        f[7] = minor;
        f
    };
    let mut bad_utf8 = common::npy_file(
        3,
        b"{'descr': [('\xff', '<f8')], 'fortran_order': False, 'shape': (2,), }\n",
    );
    bad_utf8.extend_from_slice(&[0; 16]);
    let mut header_cut = good.clone();
    header_cut[8] = 30; // HEADER_LEN ends inside the dict
    let mut short_header = common::npy_file(1, b"{'descr': '<f8',");
    short_header[8] = 0;
    short_header[9] = 1; // HEADER_LEN 256, 16 bytes follow
    vec![
        // test_read_magic_bad_magic
        ("m1", b"\x92NUMPY\x01\x00".to_vec(), vec!["not a .npy file"]),
        ("m2", b"\x00NUMPY\x01\x00".to_vec(), vec!["not a .npy file"]),
        ("m3", b"\x93numpy\x01\x00".to_vec(), vec!["not a .npy file"]),
        ("m4", b"\x93MATLB\x01\x00".to_vec(), vec!["not a .npy file"]),
        (
            "m5",
            b"\x93NUMPY\x01".to_vec(),
            vec!["magic string", "got 7"],
        ),
        ("m6", b"\x93NUMPY".to_vec(), vec!["magic string", "got 6"]),
        ("m7", b"".to_vec(), vec!["empty"]),
        // test_read_version_1_0_bad_magic (a valid header follows)
        ("v1_1", with_version(1, 1), vec!["version 1.1"]),
        ("v0_0", with_version(0, 0), vec!["version 0.0"]),
        ("v0_1", with_version(0, 1), vec!["version 0.1"]),
        ("v2_2", with_version(2, 2), vec!["version 2.2"]),
        ("v255_255", with_version(255, 255), vec!["version 255.255"]),
        (
            "v2_0_no_length",
            b"\x93NUMPY\x02\x00".to_vec(),
            vec!["header length"],
        ),
        // test_bad_header
        (
            "h1_no_length",
            b"\x93NUMPY\x01\x00".to_vec(),
            vec!["header length", "got 0"],
        ),
        (
            "h2_short_length",
            b"\x93NUMPY\x01\x001".to_vec(),
            vec!["header length", "got 1"],
        ),
        (
            "h3_no_header",
            b"\x93NUMPY\x01\x00\x01\x00".to_vec(),
            vec!["array header at", "got 0"],
        ),
        (
            "short_header",
            short_header,
            vec!["array header at", "expected 256", "got 16"],
        ),
        (
            "h4_missing_key",
            b"\x93NUMPY\x01\x006\x00{'descr': 'x', 'shape': (1, 2), }                    \n"
                .to_vec(),
            vec!["keys", "'descr', 'shape'"],
        ),
        (
            "h5_extra_key",
            v1("{'descr': 'x', 'extrakey': -1, 'fortran_order': False, 'shape': (1, 2), }\n"),
            vec!["keys", "'extrakey'"],
        ),
        ("no_keys", v1("{}\n"), vec!["keys"]),
        // The header itself
        (
            "header_len_0",
            common::npy_file(1, b""),
            vec!["cannot parse"],
        ),
        ("header_cut", header_cut, vec!["cannot parse"]),
        ("garbage", v1("hello world\n"), vec!["cannot parse"]),
        ("list", v1("['descr', '<f8']\n"), vec!["not a dictionary"]),
        (
            "tuple",
            v1("('<f8', False, (2,))\n"),
            vec!["not a dictionary"],
        ),
        (
            "code",
            v1("__import__('os').system('touch pwned')\n"),
            vec!["`__import__`", "not a literal"],
        ),
        (
            "code_in_dict",
            v1(&header_with(
                "descr",
                "__import__('os').system('touch pwned')",
            )),
            vec!["`__import__`"],
        ),
        (
            "json",
            v1("{\"descr\": \"<f8\", \"fortran_order\": false, \"shape\": [2]}\n"),
            vec!["`false`"],
        ),
        ("nul", v1(&GOOD.replace('\n', "\0\n")), vec!["cannot parse"]),
        // shape
        (
            "shape_bool",
            v1(&header_with("shape", "(True, 2)")),
            vec!["'shape'", "bool"],
        ),
        (
            "shape_float",
            v1(&header_with("shape", "(2.0,)")),
            vec!["'shape'", "float"],
        ),
        (
            "shape_str",
            v1(&header_with("shape", "('2',)")),
            vec!["'shape'", "str"],
        ),
        (
            "shape_negative",
            v1(&header_with("shape", "(-1,)")),
            vec!["'shape'", "negative"],
        ),
        (
            "shape_list",
            v1(&header_with("shape", "[2]")),
            vec!["'shape'", "tuple"],
        ),
        (
            "shape_none",
            v1(&header_with("shape", "(None,)")),
            vec!["'shape'", "None"],
        ),
        (
            "shape_huge",
            v1(&header_with("shape", "(99999999999999999999999,)")),
            vec!["'shape'", "99999999999999999999999"],
        ),
        (
            "shape_overflow",
            v1(&header_with("shape", "(4294967296, 4294967296)")),
            vec!["64 bits"],
        ),
        // fortran_order
        (
            "fortran_0",
            v1(&header_with("fortran_order", "0")),
            vec!["'fortran_order'", "0"],
        ),
        (
            "fortran_str",
            v1(&header_with("fortran_order", "'False'")),
            vec!["'fortran_order'"],
        ),
        (
            "fortran_none",
            v1(&header_with("fortran_order", "None")),
            vec!["'fortran_order'", "None"],
        ),
        // descr
        (
            "descr_x",
            v1(&header_with("descr", "'x'")),
            vec!["'descr'", "'x'"],
        ),
        (
            "descr_f3",
            v1(&header_with("descr", "'<f3'")),
            vec!["'descr'", "'<f3'"],
        ),
        ("descr_int", v1(&header_with("descr", "5")), vec!["'descr'"]),
        (
            "descr_bytes",
            v1(&header_with("descr", "b'<f8'")),
            vec!["'descr'"],
        ),
        (
            "descr_object",
            v1(&header_with("descr", "'|O'")),
            vec!["'descr'", "pickle"],
        ),
        (
            "descr_dict",
            v1(&header_with(
                "descr",
                "{'names': ['a'], 'formats': ['<f8']}",
            )),
            vec!["'descr'"],
        ),
        (
            "descr_field_1_tuple",
            v1(&header_with("descr", "[('a',)]")),
            vec!["'descr'"],
        ),
        (
            "descr_field_int_name",
            v1(&header_with("descr", "[(1, '<f8')]")),
            vec!["'descr'"],
        ),
        (
            "descr_negative_subarray",
            v1(&header_with("descr", "[('a', '<f8', (-1,))]")),
            vec!["'descr'"],
        ),
        (
            "duplicate_fields",
            v1(&header_with("descr", "[('a', '<f8'), ('a', '<f8')]")),
            vec!["duplicate", "\"a\""],
        ),
        // encoding and size
        ("bad_utf8_v3", bad_utf8, vec!["UTF-8"]),
        ("header_10001", sized(10001), vec!["10001", "10000"]),
        // data
        (
            "data_short",
            {
                let mut f = v1(GOOD);
                f.pop();
                f
            },
            vec!["array data", "expected 16", "got 15"],
        ),
        (
            "data_missing",
            common::npy_file(1, GOOD.as_bytes()),
            vec!["array data", "expected 16", "got 0"],
        ),
        (
            "data_short_big_shape",
            v1(&header_with("shape", "(1000000000000,)")),
            vec!["array data", "expected 8000000000000"],
        ),
    ]
}

#[test]
fn malformed_npy_files_are_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let cases = malformed();
    for (name, bytes, words) in &cases {
        let path = dir.path().join(format!("{name}.npy"));
        std::fs::write(&path, bytes).unwrap();
        for format in FORMATS {
            refused(&describe(&path, format, &[]), &path, words);
        }
    }
    assert!(
        !dir.path().join("pwned").exists() && !Path::new("pwned").exists(),
        "header code ran"
    );
    // NumPy refuses every one of them as well (np.load raises).
    let names: Vec<&str> = cases.iter().map(|c| c.0).collect();
    let loaded = common::run_python(
        "import sys, numpy as np\n\
         for n in sys.argv[2:]:\n\
         \x20   try:\n\
         \x20       np.load(f'{sys.argv[1]}/{n}.npy')\n\
         \x20       print(n)\n\
         \x20   except Exception:\n\
         \x20       pass",
        &[&[dir.path().to_str().unwrap()], &names[..]].concat(),
    );
    assert_eq!(loaded, "", "NumPy loads what ndl refuses");
}

#[test]
fn files_numpy_wrote_truncated_by_one_byte() {
    let dir = tempfile::tempdir().unwrap();
    common::run_python(
        "import sys, numpy as np\n\
         d = sys.argv[1]\n\
         np.save(d + '/data.npy', np.arange(1500, dtype='>i2'))\n\
         np.save(d + '/fortran.npy', np.asfortranarray(np.zeros((30, 50), '<c8')))\n\
         np.save(d + '/struct.npy', np.zeros(3, np.dtype([('a', 'u1'), ('b', '<f8')], align=True)))\n\
         np.save(d + '/size0.npy', np.zeros(0, '<f8'))\n\
         np.save(d + '/zero_d.npy', np.array(1.5))",
        &[dir.path().to_str().unwrap()],
    );
    for (name, what) in [
        ("data", "array data"),
        ("fortran", "array data"),
        ("struct", "array data"),
        ("size0", "array header at"),
        ("zero_d", "array data"),
    ] {
        let path = dir.path().join(format!("{name}.npy"));
        // Whole, it is described.
        ok(describe(&path, "ndl", &[]), name);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.pop();
        std::fs::write(&path, &bytes).unwrap();
        for format in FORMATS {
            refused(&describe(&path, format, &[]), &path, &[what, "end of file"]);
        }
    }
}

#[test]
fn max_header_size_is_configurable() {
    let dir = tempfile::tempdir().unwrap();
    let exact = dir.path().join("h10000.npy");
    std::fs::write(&exact, sized(10000)).unwrap();
    ok(describe(&exact, "ndl", &[]), "a 10000-character header");
    let path = dir.path().join("h10001.npy");
    std::fs::write(&path, sized(10001)).unwrap();
    refused(&describe(&path, "ndl", &[]), &path, &["10001", "limit"]);
    refused(
        &describe(&path, "ndl", &["--max-header-size", "10000"]),
        &path,
        &["10001"],
    );
    for limit in ["10001", "20000"] {
        let yaml = ok(
            describe(&path, "ndl", &["--max-header-size", limit]),
            &format!("--max-header-size {limit}"),
        );
        let doc = NdlFile::from_yaml(&yaml).unwrap();
        assert_eq!(shape_of(doc.ndarray("/h10001").unwrap()), [2]);
    }
    // NumPy's own large header: 10001 fields, format 2.0, 178996 bytes.
    common::run_python(
        "import sys, warnings, numpy as np\n\
         warnings.simplefilter('ignore')\n\
         np.save(sys.argv[1] + '/huge.npy', np.array(1, dtype='i,' * 10000 + 'i'))\n\
         np.savez(sys.argv[1] + '/huge.npz', arr=np.array(1, dtype='i,' * 10000 + 'i'))",
        &[dir.path().to_str().unwrap()],
    );
    for file in ["huge.npy", "huge.npz"] {
        let huge = dir.path().join(file);
        refused(&describe(&huge, "numpy", &[]), &huge, &["limit"]);
        refused(
            &describe(&huge, "numpy", &["--max-header-size", "20000"]),
            &huge,
            &["limit"],
        );
        let text = ok(
            describe(&huge, "numpy", &["--max-header-size", "180000"]),
            file,
        );
        assert!(text.contains("('f10000', '<i4')"), "{file}");
    }
    // Not a number: a usage error from the argument parser.
    let run = ndl(&[
        "describe",
        path.to_str().unwrap(),
        "--max-header-size",
        "lots",
    ]);
    assert_eq!(run.code, Some(2), "{run:#?}");
    assert!(run.stderr.contains("--max-header-size"), "{run:#?}");
}

#[test]
fn files_that_are_not_numpy_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("notes.txt"), "just some text\n").unwrap();
    std::fs::write(d.join("empty.npy"), b"").unwrap();
    std::fs::write(d.join("zip.npz"), b"PK\x03\x04 and then nothing of a zip").unwrap();
    common::run_python(
        "import sys, pickle\n\
         open(sys.argv[1] + '/data.pkl', 'wb').write(pickle.dumps({'a': [1, 2]}))",
        &[d.to_str().unwrap()],
    );
    for (file, words) in [
        ("notes.txt", &["not a .npy file", "just s"][..]),
        ("empty.npy", &["empty"][..]),
        ("data.pkl", &["not a .npy file", "pickle"][..]),
        ("zip.npz", &["npz", "Zip"][..]),
        ("missing.npy", &["No such file"][..]),
    ] {
        let path = d.join(file);
        for format in FORMATS {
            refused(&describe(&path, format, &[]), &path, words);
        }
    }
    refused(&describe(d, "ndl", &[]), d, &[]);
}

// ---- the command line ------------------------------------------------------

#[test]
fn help_lists_every_command_and_option() {
    for args in [&["--help"][..], &["-h"], &["help"]] {
        let out = ok(ndl(args), "ndl --help");
        assert!(out.contains("Usage: ndl"), "{out}");
        assert!(out.contains("describe"), "{out}");
        assert!(out.contains("--version"), "{out}");
    }
    let out = ok(ndl(&["describe", "--help"]), "ndl describe --help");
    for word in [
        "<FILE>",
        "--format",
        "-f",
        "--max-header-size",
        "--no-sidecar",
        "--help",
        "sidecar",
        "[default: ndl]",
        "[default: 10000]",
    ] {
        assert!(out.contains(word), "describe --help lacks {word}:\n{out}");
    }
    for format in FORMATS {
        assert!(
            out.contains(&format!("- {format}:")),
            "describe --help lacks the format {format}:\n{out}"
        );
    }
    let version = ok(ndl(&["--version"]), "ndl --version");
    assert_eq!(version, format!("ndl {}\n", env!("CARGO_PKG_VERSION")));
}

#[test]
fn usage_errors() {
    for args in [
        &[][..],
        &["describe"],
        &["frobnicate"],
        &["describe", "x.npy", "--format", "hdf5"],
        &["describe", "x.npy", "--bogus"],
    ] {
        let run = ndl(args);
        assert_eq!(run.code, Some(2), "{args:?}: {run:#?}");
        assert!(run.stdout.is_empty(), "{args:?}: {run:#?}");
        // clap: `error: ...`, or the help for a missing command.
        assert!(
            run.stderr.starts_with("error: ") || run.stderr.contains("Usage: ndl"),
            "{args:?}: {run:#?}"
        );
    }
}

#[test]
fn odd_paths_and_names() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("with space");
    std::fs::create_dir(&sub).unwrap();
    common::run_python(
        "import sys, numpy as np\n\
         np.save(sys.argv[1] + '/data v2.npy', np.arange(3, dtype='<u2'))\n\
         np.save(sys.argv[1] + '/no_extension', np.arange(3, dtype='<u2'))",
        &[sub.to_str().unwrap()],
    );
    let path = sub.join("data v2.npy");
    let yaml = ok(describe(&path, "ndl", &[]), "a path with spaces");
    assert!(
        NdlFile::from_yaml(&yaml)
            .unwrap()
            .ndarray("/data v2")
            .is_some(),
        "{yaml}"
    );
    // np.save adds .npy; a file renamed without it is still sniffed.
    let bare: PathBuf = sub.join("no_extension.npy");
    let renamed = sub.join("no_extension");
    std::fs::rename(&bare, &renamed).unwrap();
    let yaml = ok(describe(&renamed, "ndl", &[]), "no extension");
    assert!(yaml.contains("no_extension"), "{yaml}");
}

#[test]
fn an_npz_member_cut_short_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.npz");
    common::run_python(
        "import sys, io, zipfile, numpy as np\n\
         b = io.BytesIO(); np.save(b, np.arange(10, dtype='<i4'))\n\
         with zipfile.ZipFile(sys.argv[1], 'w') as z:\n\
         \x20   z.writestr('x.npy', b.getvalue()[:-1])",
        &[path.to_str().unwrap()],
    );
    for format in ["ndl", "numpy", "datashape", "zarr", "cdl"] {
        let run = describe(&path, format, &[]);
        assert_eq!(run.code, Some(1), "{format}: {run:#?}");
        assert!(run.stdout.is_empty(), "{format}: {run:#?}");
        assert!(
            run.stderr.starts_with("ndl: error: ")
                && run.stderr.contains("cut.npz")
                && run.stderr.contains("array data"),
            "{format}: {run:#?}"
        );
        assert!(!run.stderr.contains("panicked"), "{run:#?}");
    }
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
