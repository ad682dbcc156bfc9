//! `ndl convert` and `ndl describe` of Zarr arrays of variable-length
//! strings and bytes: what zarr-python 3.4 writes (v2 `|O` with
//! `vlen-utf8` / `vlen-bytes`, v3 `string` / `variable_length_bytes`)
//! becomes the narrowest fixed `U` / `S` .npy that NumPy loads equal, with
//! a note on stderr; `--strings variable` writes fixed strings as
//! variable-length ones that zarr-python 3.4 and 3.1 read equal; corrupt
//! chunks and widths out of proportion are refused by name.

use crate::common;

use common::cli::{compile_cdl, convert, describe, ok, refused};
use common::{python, python312, run_file, run_with};

use std::path::Path;

const STRINGS_PY: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/ndl-zarr/tests/python/strings.py"
);

/// argv: npy, store. NumPy loads the .npy with the narrowest fixed dtype
/// that holds every value of the store, and equal values.
const SAME_AS_STORE: &str = r#"
import sys, warnings
warnings.simplefilter('ignore')
import numpy as np, zarr
npy, store = sys.argv[1:3]
got = np.load(npy)
z = np.asarray(zarr.open_array(store, mode='r')[...], dtype=object)
values = z.reshape(-1).tolist()
text = all(isinstance(v, str) for v in values)
width = max([1] + [len(v) for v in values])
want = np.dtype(('U%d' if text else 'S%d') % width)
assert got.dtype == want, (got.dtype, want)
assert got.shape == z.shape, (got.shape, z.shape)
assert got.reshape(-1).tolist() == values
print('ok', got.dtype)
"#;

/// argv: store, npy. zarr-python reads the store as the .npy's values.
const SAME_AS_NPY: &str = r#"
import sys, warnings
warnings.simplefilter('ignore')
import numpy as np, zarr
store, npy = sys.argv[1:3]
exp = np.load(npy)
got = np.asarray(zarr.open_array(store, mode='r')[...], dtype=object)
assert got.shape == exp.shape, (got.shape, exp.shape)
assert got.reshape(-1).tolist() == exp.reshape(-1).tolist(), (got, exp)
print('ok', zarr.__version__)
"#;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn zarr_python_vlen_stores_convert_to_the_narrowest_fixed_type() {
    let dir = tempfile::tempdir().unwrap();
    for format in ["2", "3"] {
        for kind in ["text", "bytes"] {
            for (shape, chunks) in [("23", "4"), ("5,3", "2,2")] {
                let name = format!("v{format}_{kind}_{}", shape.len());
                let store = dir.path().join(format!("{name}.zarr"));
                let args = ["write", s(&store), kind, format, shape, chunks];
                run_file(&python312(), Path::new(STRINGS_PY), &args);
                let npy = dir.path().join(format!("{name}.npy"));
                let run = convert(&store, &npy, &[]);
                assert_eq!(run.code, Some(0), "{name}: {run:#?}");
                assert!(run.stderr.starts_with("ndl: note: "), "{name}: {run:#?}");
                assert!(run.stderr.contains("narrowest fixed width"), "{run:#?}");
                let out = run_with(&python312(), SAME_AS_STORE, &[s(&npy), s(&store)]);
                assert!(out.starts_with("ok"), "{name}: {out}");
            }
        }
    }
}

#[test]
fn vlen_stores_are_described_in_every_language() {
    let dir = tempfile::tempdir().unwrap();
    for (kind, format) in [("text", "3"), ("bytes", "2")] {
        let store = dir.path().join(format!("{kind}.zarr"));
        let args = ["write", s(&store), kind, format, "4,2", "2,2"];
        run_file(&python312(), Path::new(STRINGS_PY), &args);
        let text = kind == "text";
        let ndl = ok(describe(&store, "ndl", &[]), kind);
        let want = if text {
            "type: string"
        } else {
            "type: {vlen: {base: uint8}}"
        };
        assert!(ndl.contains(want), "{ndl}");
        let numpy = ok(describe(&store, "numpy", &[]), kind);
        assert_eq!(
            numpy.trim(),
            "{'descr': '|O', 'fortran_order': False, 'shape': (4, 2), }"
        );
        let zarr = ok(describe(&store, "zarr", &[]), kind);
        let doc: serde_json::Value = serde_json::from_str(&zarr).unwrap();
        if text {
            assert_eq!(doc["data_type"], "string");
        } else {
            assert_eq!(
                (&doc["dtype"], &doc["filters"][0]["id"]),
                (&"|O".into(), &"vlen-bytes".into())
            );
        }
        let shape = ok(describe(&store, "datashape", &[]), kind);
        let want = if text {
            "4 * 2 * string"
        } else {
            "4 * 2 * var * uint8"
        };
        assert_eq!(shape.trim(), want);
        let cdl = ok(describe(&store, "cdl", &[]), kind);
        if text {
            assert!(
                cdl.contains("\tstring text(text_dim0, text_dim1) ;"),
                "{cdl}"
            );
        } else {
            assert!(cdl.contains("ubyte(*) bytes_t ;"), "{cdl}");
        }
        compile_cdl(&cdl, dir.path(), kind);
    }
}

#[test]
fn fixed_strings_are_written_variable_length_for_zarr_python() {
    let dir = tempfile::tempdir().unwrap();
    let make = r#"
import sys
import numpy as np
d = sys.argv[1]
np.save(d + '/u.npy', np.array([['ab', '', 'é\u00df'], ['x\x00y', 'zzzz', 'q\x00']], dtype='>U4'))
np.save(d + '/s.npy', np.array([b'ab\x00', b'', b'\x00\xff'], dtype='S3'))
"#;
    run_with(&python312(), make, &[s(dir.path())]);
    for name in ["u", "s"] {
        let npy = dir.path().join(format!("{name}.npy"));
        for format in ["2", "3"] {
            let store = dir.path().join(format!("{name}_{format}.zarr"));
            let run = convert(
                &npy,
                &store,
                &["--strings", "variable", "--zarr-format", format],
            );
            assert_eq!(run.code, Some(0), "{run:#?}");
            let doc = if format == "3" {
                "zarr.json"
            } else {
                ".zarray"
            };
            let doc: serde_json::Value =
                serde_json::from_slice(&std::fs::read(store.join(doc)).unwrap()).unwrap();
            match (name, format) {
                ("u", "3") => assert_eq!(doc["data_type"], "string"),
                ("s", "3") => assert_eq!(doc["data_type"], "variable_length_bytes"),
                _ => assert_eq!(doc["dtype"], "|O"),
            }
            for py in [python312(), python()] {
                let out = run_with(&py, SAME_AS_NPY, &[s(&store), s(&npy)]);
                assert!(out.starts_with("ok"), "{name} v{format}: {out}");
            }
        }
    }
    let floats = dir.path().join("f.npy");
    run_with(
        &python312(),
        "import sys, numpy as np; np.save(sys.argv[1], np.zeros(3))",
        &[s(&floats)],
    );
    let store = dir.path().join("f.zarr");
    let run = convert(&floats, &store, &["--strings", "variable"]);
    refused(&run, &store, &["fixed strings", "'<f8'"]);
    assert!(!store.exists());
}

#[test]
fn a_width_out_of_proportion_is_refused_naming_the_element() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("wide.zarr");
    let mut values = vec![String::new(); 300_000];
    values[123_456] = "w".repeat(4000);
    ndl_zarr::WriteOptions::new()
        .chunks(&[100_000])
        .write_strings(&store, &[300_000], &values)
        .unwrap();
    let npy = dir.path().join("wide.npy");
    let run = convert(&store, &npy, &[]);
    refused(
        &run,
        &store,
        &["element [123456] (chunk [1])", "4000 characters", "Parquet"],
    );
    assert!(!npy.exists());
}

#[test]
fn a_corrupt_chunk_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("bad.zarr");
    ndl_zarr::WriteOptions::new()
        .zarr_format(ndl_zarr::ZarrFormat::V2)
        .codec(ndl_zarr::Codec::None)
        .chunks(&[2])
        .write_strings(&store, &[4], &["a", "b", "c", "d"])
        .unwrap();
    let mut chunk = 2u32.to_le_bytes().to_vec();
    chunk.extend_from_slice(&1u32.to_le_bytes());
    chunk.push(b'c');
    chunk.extend_from_slice(&u32::MAX.to_le_bytes());
    std::fs::write(store.join("1"), chunk).unwrap();
    let npy = dir.path().join("bad.npy");
    let run = convert(&store, &npy, &[]);
    refused(
        &run,
        &store,
        &["chunk 1 (1)", "element 1 of the chunk", "runs past"],
    );
    assert!(!npy.exists());
}

const JSON2_STORE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/ndl-zarr/tests/python/json2_store.py"
);
const JSON2_CHECK: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/ndl-zarr/tests/python/json2_check.py"
);

/// A v2 `|O` store of numcodecs' `json2` object codec (zarr-python 2's
/// `object_codec=numcodecs.JSON()`) is described as strings and converts
/// to the narrowest `U` .npy, equal to what numcodecs decodes (`None` as
/// ""); a number among the strings is refused naming the chunk.
#[test]
fn json2_stores_are_described_and_converted() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("j.zarr");
    run_file(
        &python312(),
        Path::new(JSON2_STORE),
        &[s(&store), "5,3", "2,2", "zstd"],
    );
    let ndl = ok(describe(&store, "ndl", &[]), "ndl");
    assert!(ndl.contains("type: string"), "{ndl}");
    let zarr = ok(describe(&store, "zarr", &[]), "zarr");
    let doc: serde_json::Value = serde_json::from_str(&zarr).unwrap();
    assert_eq!(doc["filters"][0]["id"], "json2");
    assert_eq!(
        ok(describe(&store, "datashape", &[]), "ds").trim(),
        "5 * 3 * string"
    );

    let npy = dir.path().join("j.npy");
    let run = convert(&store, &npy, &[]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    let want: Vec<Option<String>> = serde_json::from_str(&run_file(
        &python312(),
        Path::new(JSON2_CHECK),
        &[s(&store)],
    ))
    .unwrap();
    let want: Vec<String> = want.into_iter().map(Option::unwrap_or_default).collect();
    let width = want.iter().map(|v| v.chars().count()).max().unwrap();
    let got = run_with(
        &python312(),
        "import sys, json, numpy as np\n\
         a = np.load(sys.argv[1])\n\
         print(json.dumps([str(a.dtype), list(a.shape), a.reshape(-1).tolist()]))",
        &[s(&npy)],
    );
    let got: (String, Vec<u64>, Vec<String>) = serde_json::from_str(&got).unwrap();
    assert_eq!(got, (format!("<U{width}"), vec![5, 3], want));

    let odd = dir.path().join("odd.zarr");
    run_file(
        &python312(),
        Path::new(JSON2_STORE),
        &[s(&odd), "4", "2", "none", "7"],
    );
    let run = convert(&odd, &dir.path().join("odd.npy"), &[]);
    assert_ne!(run.code, Some(0), "{run:#?}");
    assert!(
        run.stderr.contains("element 1 of the chunk") && run.stderr.contains("a number (7)"),
        "{run:#?}"
    );
}

/// Arrays of strings in zarr-python 3.4's `ZipStore` (v3 `string`, v2
/// `vlen-utf8`) convert as the same arrays outside a zip do: to the
/// narrowest `U` that holds them, equal to what zarr-python reads.
#[test]
fn string_arrays_in_a_zip_store_convert_as_outside_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let want = run_with(
        &python312(),
        "import sys, zarr, numpy as np\n\
         from zarr.storage import ZipStore\n\
         values = ['a', 'h\u{e9}llo', '', 'zz', 'a longer string']\n\
         for fmt in (3, 2):\n\
         \x20   store = ZipStore(sys.argv[1] + f'/s{fmt}.zarr.zip', mode='w')\n\
         \x20   a = zarr.create_array(store, shape=(5,), chunks=(2,), dtype=str, zarr_format=fmt)\n\
         \x20   a[:] = np.array(values, dtype=object)\n\
         \x20   store.close()\n\
         print(values)\n",
        &[s(d)],
    );
    for fmt in [3, 2] {
        let zip = d.join(format!("s{fmt}.zarr.zip"));
        let npy = d.join(format!("s{fmt}.npy"));
        let run = convert(&zip, &npy, &[]);
        assert_eq!(run.code, Some(0), "v{fmt}: {run:#?}");
        let got = run_with(
            &python312(),
            "import sys, numpy as np\n\
             a = np.load(sys.argv[1])\n\
             assert a.dtype == np.dtype('<U15'), a.dtype\n\
             print(a.tolist())\n",
            &[s(&npy)],
        );
        assert_eq!(got, want, "v{fmt}");
    }
}

/// argv: store, zarr_format. An xarray dataset of a grid and the labels of
/// one of its dimensions, as `to_zarr` writes it.
const XARRAY_LABELS: &str = r#"
import sys, warnings
warnings.simplefilter('ignore')
import numpy as np, xarray as xr
ds = xr.Dataset(
    {"temp": (("time", "site"), np.arange(12, dtype="f4").reshape(4, 3)),
     "name": ("site", np.array(["a", "bb", "ccé"], dtype=object))},
    coords={"site": [10, 20, 30]},
)
ds.to_zarr(sys.argv[1], zarr_format=int(sys.argv[2]), consolidated=False)
"#;

#[test]
fn a_group_of_a_grid_and_string_labels_is_described_array_by_array() {
    let dir = tempfile::tempdir().unwrap();
    for format in ["3", "2"] {
        let store = dir.path().join(format!("labels{format}.zarr"));
        run_with(&python312(), XARRAY_LABELS, &[s(&store), format]);
        let ndl = ok(describe(&store, "ndl", &[]), format);
        let doc: serde_yaml::Value = serde_yaml::from_str(&ndl).unwrap();
        assert_eq!(doc["ndarrays"]["name"]["type"], "string", "{ndl}");
        assert_eq!(doc["ndarrays"]["name"]["shape"][0], "site", "{ndl}");
        assert_eq!(doc["ndarrays"]["temp"]["type"], "float32", "{ndl}");
        let cdl = ok(describe(&store, "cdl", &[]), format);
        assert!(cdl.contains("\tstring name(site) ;"), "{cdl}");
        assert!(cdl.contains("\tfloat temp(time, site) ;"), "{cdl}");
        // xarray's NaN fill of a float, base64 text in a v3 store.
        if format == "3" {
            assert!(cdl.contains("\t\ttemp:_FillValue = NaNf ;"), "{cdl}");
            assert_eq!(
                doc["ndarrays"]["temp"]["attributes"]["_FillValue"]["type"],
                "float32"
            );
        }
        compile_cdl(&cdl, dir.path(), &format!("labels{format}"));
    }
}

/// A square grid beside labels of its second dimension (as many labels
/// as grid rows) is a dataset of arrays, not a table: every copy was
/// refused, as records whose `temp` column was an option without a fill.
#[test]
fn a_square_grid_beside_labels_of_its_columns_converts_array_by_array() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for format in ["3", "2"] {
        let store = d.join(format!("square{format}.zarr"));
        run_with(
            &python312(),
            "import sys, numpy as np, xarray as xr\n\
             xr.Dataset({'temp': (('t', 'x'), np.arange(16, dtype='f4').reshape(4, 4)),\n\
             \x20   'name': (('x',), np.array(['a', 'b', 'c', 'd'], object))})\\\n\
             \x20   .to_zarr(sys.argv[1], zarr_format=int(sys.argv[2]), consolidated=False)\n",
            &[s(&store), format],
        );
        let nc = d.join(format!("square{format}.nc"));
        let zarr = d.join(format!("copy{format}.zarr"));
        for dst in [&nc, &zarr] {
            let run = convert(&store, dst, &[]);
            assert_eq!(run.code, Some(0), "{run:#?}");
        }
        let shown = run_with(
            &python312(),
            "import sys, xarray as xr\n\
             for p in sys.argv[1:]:\n\
             \x20   ds = xr.open_zarr(p, consolidated=False) if p.endswith('.zarr') else xr.open_dataset(p)\n\
             \x20   print(ds['temp'].dims, ds['temp'].values.sum(), ds['name'].dims, [str(v) for v in ds['name'].values])\n",
            &[s(&nc), s(&zarr)],
        );
        let want = "('t', 'x') 120.0 ('x',) ['a', 'b', 'c', 'd']\n";
        assert_eq!(shown, want.repeat(2), "v{format}: {shown}");
    }
}

/// argv: directory, format. zarr-python 3.4 writes a store of one array
/// of each kind whose values end in NULs (`one_text`, `one_bytes`), and a
/// group of both beside numbers (`group`).
const TRAILING_NULS: &str = r#"
import sys, warnings
warnings.simplefilter('ignore')
import numpy as np, zarr
d, fmt = sys.argv[1], int(sys.argv[2])
text = np.array([['a\x00', ''], ['\x00\x00', 'γ\x00b\x00']], dtype=object)
data = np.array([b'a\x00', b'', b'\x00\xff\x00', b'xyz'], dtype=object)
bytes_type = zarr.dtype.VariableLengthBytes()
zarr.create_array(d + '/one_text.zarr', shape=text.shape, dtype=str, chunks=(1, 2), zarr_format=fmt)[...] = text
zarr.create_array(d + '/one_bytes.zarr', shape=data.shape, dtype=bytes_type, chunks=(3,), zarr_format=fmt)[...] = data
g = zarr.open_group(d + '/group.zarr', mode='w', zarr_format=fmt)
g.create_array('text', shape=(4,), dtype=str, chunks=(3,))[...] = text.reshape(-1)
g.create_array('data', shape=(4,), dtype=bytes_type, chunks=(3,))[...] = data
g.create_array('x', shape=(4,), dtype='f8')[...] = [1, 2, 3, 4]
"#;

/// argv: source, copy. zarr-python reads every array of the copy equal to
/// the source's, value for value.
const SAME_STORES: &str = r#"
import sys, warnings
warnings.simplefilter('ignore')
import numpy as np, zarr
a, b = (zarr.open(p, mode='r') for p in sys.argv[1:3])
if isinstance(a, zarr.Array):
    pairs = [(a, b)]
else:
    assert sorted(a.array_keys()) == sorted(b.array_keys()), (list(a), list(b))
    pairs = [(a[k], b[k]) for k in sorted(a.array_keys())]
for x, y in pairs:
    got, want = np.asarray(y[...], dtype=object), np.asarray(x[...], dtype=object)
    assert got.shape == want.shape, (x.path, got.shape, want.shape)
    assert got.reshape(-1).tolist() == want.reshape(-1).tolist(), (x.path, got, want)
print('ok', len(pairs))
"#;

/// A copy of variable-length values from one store to another keeps them
/// as stored: trailing NUL bytes and characters, which the narrowest fixed
/// width would lose, stay. A group holding bytes beside strings and
/// numbers is a dataset of arrays, copied whole.
#[test]
fn a_store_to_store_copy_keeps_trailing_nuls() {
    let dir = tempfile::tempdir().unwrap();
    for format in ["3", "2"] {
        let made = dir.path().join(format!("v{format}"));
        std::fs::create_dir(&made).unwrap();
        run_with(&python312(), TRAILING_NULS, &[s(&made), format]);
        for name in ["one_text", "one_bytes", "group"] {
            let from = made.join(format!("{name}.zarr"));
            let to = made.join(format!("{name}_copy.zarr"));
            let run = convert(&from, &to, &["--zarr-format", format]);
            assert_eq!(run.code, Some(0), "{run:#?}");
            assert!(!run.stderr.contains("NUL"), "{name}: {}", run.stderr);
            let out = run_with(&python312(), SAME_STORES, &[s(&from), s(&to)]);
            assert!(out.starts_with("ok"), "{name} v{format}: {out}");
        }
    }
}
