//! Arrays of any rank through `ndl convert`, against real NumPy,
//! zarr-python 3.1 and 3.4, xarray and Dask: every kind of .npy NumPy
//! writes goes to Zarr (v2 and v3) and back byte for byte; stores that
//! zarr-python writes in Fortran order (v2 `order: "F"`, v3 `transpose`)
//! are read in their order; `--chunks` chunks every dimension; and a large
//! 3-d array converts both ways in bounded memory.

use crate::common;

use std::path::Path;

use common::cli::{FORMATS, convert, converted, describe, ok};
use common::{python, python312, run_with};

/// The .npy files NumPy writes: C and Fortran order, 0-d, empty
/// dimensions, plain and record dtypes, big-endian.
const MAKE_NPY: &str = r#"
import sys, numpy as np
out = sys.argv[1]
rec = np.dtype([('a', '>i4'), ('b', '>f8'), ('c', 'u1')])
r = np.zeros((3, 4), dtype=rec)
r['a'] = np.arange(12).reshape(3, 4); r['b'] = r['a'] / 4; r['c'] = 7
arrays = {
    'c2': np.arange(35, dtype='<f8').reshape(5, 7),
    'f2': np.asfortranarray(np.arange(35, dtype='<f8').reshape(5, 7)),
    'f3': np.asfortranarray(np.arange(60, dtype='<i2').reshape(3, 4, 5)),
    'big4': np.arange(120, dtype='>u4').reshape(2, 3, 4, 5),
    'zero_d': np.array(2.5),
    'empty': np.zeros((0, 3), dtype='<f4'),
    'empty_f': np.asfortranarray(np.zeros((4, 0, 2), dtype='<i8')),
    'rec2': r,
    'rec2_f': np.asfortranarray(r),
    'rec0': r[1:2, 2:3].reshape(()),
    'bools': (np.arange(24).reshape(2, 3, 4) % 3 == 0),
}
for name, a in arrays.items():
    np.save(f'{out}/{name}.npy', a)
print(' '.join(arrays))
"#;

/// zarr-python opens each store and finds the values of its .npy file.
const CHECK_ZARR: &str = r#"
import sys, numpy as np, zarr
for pair in sys.argv[1:]:
    store, npy = pair.split('=')
    a = np.load(npy)
    z = zarr.open_array(store, mode='r')
    got = z[...]
    assert got.shape == a.shape, (store, got.shape, a.shape)
    assert got.dtype.newbyteorder('=') == a.dtype.newbyteorder('='), (store, got.dtype, a.dtype)
    assert np.array_equal(got, a), (store, got, a)
print('ok', zarr.__version__)
"#;

/// Dask reads each store, and xarray wraps it with its dimension names;
/// xarray opens a group, not an array at a store's root (see ndl-zarr's
/// `xarray_opens_a_group_not_a_records_array`), so a copy of the array in
/// a group is opened with `xr.open_zarr` too.
const CHECK_XARRAY: &str = r#"
import os, shutil, sys, tempfile, numpy as np, xarray as xr, dask.array as da, zarr
for pair in sys.argv[1:]:
    store, npy = pair.split('=')
    a = np.load(npy)
    z = zarr.open_array(store, mode='r')
    dims = z.metadata.dimension_names if z.metadata.zarr_format == 3 else z.attrs['_ARRAY_DIMENSIONS']
    assert len(dims) == a.ndim, (store, dims)
    v = xr.DataArray(da.from_zarr(z), dims=list(dims))
    assert np.array_equal(v.values, a), store
    with tempfile.TemporaryDirectory() as group:
        zarr.open_group(group, mode='w', zarr_format=z.metadata.zarr_format)
        shutil.copytree(store, os.path.join(group, 'x'))
        ds = xr.open_zarr(group, consolidated=False)
        assert ds['x'].dims == tuple(dims) and np.array_equal(ds['x'].values, a), store
print('ok')
"#;

/// Makes the .npy files in `dir`; returns their names.
fn make_npy(dir: &Path) -> Vec<String> {
    let out = run_with(&python(), MAKE_NPY, &[dir.to_str().unwrap()]);
    out.split_whitespace().map(String::from).collect()
}

#[test]
fn every_kind_of_npy_goes_to_zarr_and_back_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let names = make_npy(root);
    let mut pairs = Vec::new();
    let mut plain = Vec::new();
    for name in &names {
        let npy = root.join(format!("{name}.npy"));
        for v in ["2", "3"] {
            let store = root.join(format!("{name}.v{v}.zarr"));
            converted(
                convert(&npy, &store, &["--zarr-format", v]),
                &format!("{name} to v{v}"),
            );
            let back = root.join(format!("{name}.v{v}.npy"));
            converted(convert(&store, &back, &[]), &format!("{name} v{v} back"));
            assert_eq!(
                std::fs::read(&back).unwrap(),
                std::fs::read(&npy).unwrap(),
                "{name} through Zarr v{v}: not the same bytes"
            );
            let pair = format!("{}={}", store.display(), npy.display());
            // zarr-python 3.1 reads no v3 struct (the legacy name only).
            if !name.starts_with("rec") || v == "2" {
                pairs.push(pair.clone());
            }
            if !name.starts_with("rec") && !name.starts_with("zero") {
                plain.push(pair);
            }
        }
    }
    let all: Vec<String> = names
        .iter()
        .flat_map(|n| {
            ["2", "3"].map(|v| {
                format!(
                    "{}={}",
                    root.join(format!("{n}.v{v}.zarr")).display(),
                    root.join(format!("{n}.npy")).display()
                )
            })
        })
        .collect();
    fn args(pairs: &[String]) -> Vec<&str> {
        pairs.iter().map(String::as_str).collect()
    }
    let v34 = run_with(&python312(), CHECK_ZARR, &args(&all));
    assert!(v34.starts_with("ok 3.4"), "{v34}");
    let v31 = run_with(&python(), CHECK_ZARR, &args(&pairs));
    assert!(v31.starts_with("ok 3.1"), "{v31}");
    assert_eq!(
        run_with(&python312(), CHECK_XARRAY, &args(&plain)).trim(),
        "ok"
    );
}

/// Padded records NumPy writes at ranks 1 to 3, C and Fortran order (a
/// 24-byte record of 11 bytes of data; a 72-byte one of 21 for the columns
/// layout, which is one-dimensional); zeros in the gaps, as a reader has
/// nothing else to put there.
const MAKE_PADDED: &str = r#"
import sys, numpy as np
out = sys.argv[1]
rec = np.dtype({'names': ['a', 'b', 'c'], 'formats': ['<i8', 'u1', '<u2'],
                'offsets': [0, 8, 16], 'itemsize': 24})
wide = np.dtype({'names': ['x', 'y', 'z', 'w'], 'formats': ['<f8', '<i4', '<f8', 'u1'],
                 'offsets': [0, 16, 40, 64], 'itemsize': 72})
def filled(shape, dtype, order='C'):
    a = np.zeros(shape, dtype, order=order)
    for i, name in enumerate(dtype.names):
        a[name] = np.arange(a.size).reshape(shape) * (i + 2) % 251
    return a
arrays = {
    'pad1': filled((6,), rec),
    'pad3': filled((2, 3, 4), rec),
    'pad2_f': filled((4, 6), rec, order='F'),
    'wide1': filled((5,), wide),
}
for name, a in arrays.items():
    np.save(f'{out}/{name}.npy', a)
print(' '.join(arrays))
"#;

/// NumPy loads each pair of .npy files as the same dtype, order and values.
const CHECK_SAME_NPY: &str = r#"
import sys, numpy as np
for pair in sys.argv[1:]:
    back, npy = pair.split('=')
    a, b = np.load(npy), np.load(back)
    assert b.dtype == a.dtype and b.dtype.itemsize == a.dtype.itemsize, (back, b.dtype, a.dtype)
    assert b.shape == a.shape and b.flags.f_contiguous == a.flags.f_contiguous, back
    assert np.array_equal(b, a), back
print('ok')
"#;

#[test]
fn padded_records_of_every_rank_and_layout_come_back_from_zarr_in_their_layout() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let names = run_with(&python(), MAKE_PADDED, &[root.to_str().unwrap()]);
    let mut pairs = Vec::new();
    for name in names.split_whitespace() {
        let npy = root.join(format!("{name}.npy"));
        let one_dimensional = name.ends_with('1');
        for v in ["2", "3"] {
            for layout in ["records", "columns"] {
                if layout == "columns" && !one_dimensional {
                    continue;
                }
                let tag = format!("{name}.v{v}.{layout}");
                let store = root.join(format!("{tag}.zarr"));
                let args = ["--zarr-format", v, "--layout", layout];
                converted(convert(&npy, &store, &args), &tag);
                let back = root.join(format!("{tag}.npy"));
                converted(convert(&store, &back, &[]), &format!("{tag} back"));
                assert_eq!(
                    std::fs::read(&back).unwrap(),
                    std::fs::read(&npy).unwrap(),
                    "{tag}: not the same bytes"
                );
                pairs.push(format!("{}={}", back.display(), npy.display()));
            }
        }
    }
    let args: Vec<&str> = pairs.iter().map(String::as_str).collect();
    assert_eq!(run_with(&python(), CHECK_SAME_NPY, &args).trim(), "ok");
}

#[test]
fn fortran_order_is_kept_in_the_store_and_shown() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    make_npy(root);
    let npy = root.join("f3.npy");
    let v2 = root.join("f3_v2.zarr");
    converted(convert(&npy, &v2, &["--zarr-format", "2"]), "f3 v2");
    let zarray = common::stores::json(&v2.join(".zarray"));
    assert_eq!(zarray["order"], "F");
    let v3 = root.join("f3_v3.zarr");
    converted(convert(&npy, &v3, &[]), "f3 v3");
    let doc = common::stores::json(&v3.join("zarr.json"));
    assert_eq!(
        doc["codecs"][0],
        serde_json::json!({"name": "transpose", "configuration": {"order": [2, 1, 0]}})
    );
    for store in [&v2, &v3] {
        let text = ok(describe(store, "ndl", &[]), "describe");
        assert!(text.contains("shape: [3, 4, 5]"), "{text}");
        assert!(text.contains("order: F"), "{text}");
        let numpy = ok(describe(store, "numpy", &[]), "describe numpy");
        assert!(numpy.contains("'fortran_order': True"), "{numpy}");
        assert!(numpy.contains("(3, 4, 5)"), "{numpy}");
        for format in FORMATS {
            ok(describe(store, format, &[]), format);
        }
    }
}

#[test]
fn every_description_of_an_nd_store_is_whole_and_its_cdl_compiles() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    make_npy(root);
    for name in ["big4", "zero_d", "c2"] {
        let store = root.join(format!("{name}.zarr"));
        converted(
            convert(&root.join(format!("{name}.npy")), &store, &[]),
            name,
        );
        let shape = ok(describe(&store, "datashape", &[]), "datashape");
        let cdl = ok(describe(&store, "cdl", &[]), "cdl");
        match name {
            "big4" => {
                assert_eq!(shape, "2 * 3 * 4 * 5 * uint32\n");
                for d in 0..4 {
                    assert!(cdl.contains(&format!("big4_dim{d} = ")), "{cdl}");
                }
            }
            "zero_d" => assert_eq!(shape, "float64\n"),
            _ => assert_eq!(shape, "5 * 7 * float64\n"),
        }
        common::cli::compile_cdl(&cdl, root, name);
    }
}

/// zarr-python writes stores in Fortran order and chunked in every
/// dimension: v2 `order: "F"`, a v3 `transpose` reversing the dimensions,
/// one permuting them otherwise (read in C order), a 0-d array, shards,
/// v2 chunk keys with `/`, and chunks never written (the fill value).
const WRITE_ZARR: &str = r#"
import sys, numpy as np, zarr, zarr.codecs as zc
out = sys.argv[1]
a = np.arange(2 * 3 * 5, dtype='<u2').reshape(2, 3, 5)
np.save(f'{out}/a.npy', a)
z = zarr.create_array(f'{out}/v2_f.zarr', shape=a.shape, dtype=a.dtype, chunks=(1, 2, 3), zarr_format=2, order='F'); z[...] = a
z = zarr.create_array(f'{out}/v3_t.zarr', shape=a.shape, dtype=a.dtype, chunks=(1, 2, 3), filters=[zc.TransposeCodec(order=(2, 1, 0))]); z[...] = a
z = zarr.create_array(f'{out}/v3_p.zarr', shape=a.shape, dtype=a.dtype, chunks=(2, 2, 2), filters=[zc.TransposeCodec(order=(1, 0, 2))]); z[...] = a
z = zarr.create_array(f'{out}/zero.zarr', shape=(), dtype='<f8'); z[...] = 4.25
z = zarr.create_array(f'{out}/sharded.zarr', shape=a.shape, dtype=a.dtype, chunks=(1, 1, 2), shards=(2, 2, 4)); z[...] = a
z = zarr.create_array(f'{out}/slash.zarr', shape=a.shape, dtype=a.dtype, chunks=(2, 2, 2), zarr_format=2, chunk_key_encoding={'name': 'v2', 'separator': '/'}); z[...] = a
# Chunks never written are the fill value, in either order.
z = zarr.create_array(f'{out}/sparse_c.zarr', shape=a.shape, dtype=a.dtype, chunks=(1, 2, 2), fill_value=7); z[0, :2, :2] = a[0, :2, :2]
z = zarr.create_array(f'{out}/sparse_f.zarr', shape=a.shape, dtype=a.dtype, chunks=(1, 2, 2), fill_value=7, zarr_format=2, order='F'); z[0, :2, :2] = a[0, :2, :2]
e = np.full(a.shape, 7, dtype=a.dtype); e[0, :2, :2] = a[0, :2, :2]
np.save(f'{out}/sparse.npy', e)
print('ok')
"#;

#[test]
fn stores_zarr_python_writes_in_fortran_order_are_read_in_it() {
    for python in [python(), python312()] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(
            run_with(&python, WRITE_ZARR, &[root.to_str().unwrap()]).trim(),
            "ok"
        );
        for (store, fortran, expected) in [
            ("v2_f", true, "a"),
            ("v3_t", true, "a"),
            ("v3_p", false, "a"),
            ("sharded", false, "a"),
            ("slash", false, "a"),
            ("sparse_c", false, "sparse"),
            ("sparse_f", true, "sparse"),
        ] {
            let back = root.join(format!("{store}.npy"));
            converted(
                convert(&root.join(format!("{store}.zarr")), &back, &[]),
                store,
            );
            let check = format!(
                "import numpy as np; b = np.load('{}'); a = np.load('{}')\n\
                 assert np.array_equal(a, b) and b.flags['F_CONTIGUOUS'] == {} and not (b.flags['C_CONTIGUOUS'] and {}); print('ok')",
                back.display(),
                root.join(format!("{expected}.npy")).display(),
                if fortran { "True" } else { "False" },
                if fortran { "True" } else { "False" },
            );
            assert_eq!(run_with(&python, &check, &[]).trim(), "ok", "{store}");
        }
        let zero = root.join("zero.npy");
        converted(convert(&root.join("zero.zarr"), &zero, &[]), "0-d");
        let check = format!(
            "import numpy as np; b = np.load('{}'); assert b.shape == () and b == 4.25; print('ok')",
            zero.display()
        );
        assert_eq!(run_with(&python, &check, &[]).trim(), "ok");
    }
}

#[test]
fn chunks_are_given_per_dimension_or_balanced() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    make_npy(root);
    let npy = root.join("big4.npy");
    let store = root.join("chunked.zarr");
    converted(convert(&npy, &store, &["--chunks", "1,2,3,4"]), "--chunks");
    let doc = common::stores::json(&store.join("zarr.json"));
    assert_eq!(
        doc["chunk_grid"]["configuration"]["chunk_shape"],
        serde_json::json!([1, 2, 3, 4])
    );
    // 2 × 2 × 2 × 2 chunks, every one stored.
    let mut keys = 0;
    for entry in walk(&store.join("c")) {
        keys += usize::from(entry.is_file());
    }
    assert_eq!(keys, 2 * 2 * 2 * 2);
    let back = root.join("chunked.npy");
    converted(convert(&store, &back, &[]), "back");
    assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&npy).unwrap());
    // By default a small array is one chunk, whole.
    let whole = root.join("whole.zarr");
    converted(convert(&npy, &whole, &[]), "default");
    let doc = common::stores::json(&whole.join("zarr.json"));
    assert_eq!(
        doc["chunk_grid"]["configuration"]["chunk_shape"],
        serde_json::json!([2, 3, 4, 5])
    );
    // A 1-d array takes --chunks as --chunk-len.
    let flat = root.join("flat.npy");
    run_with(
        &python(),
        &format!(
            "import numpy as np; np.save('{}', np.arange(10.))",
            flat.display()
        ),
        &[],
    );
    let store = root.join("flat.zarr");
    converted(convert(&flat, &store, &["--chunks", "4"]), "1-d --chunks");
    let doc = common::stores::json(&store.join("zarr.json"));
    assert_eq!(
        doc["chunk_grid"]["configuration"]["chunk_shape"],
        serde_json::json!([4])
    );
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn npz_members_of_any_rank_convert() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let npz = root.join("m.npz");
    run_with(
        &python(),
        &format!(
            "import numpy as np; np.savez('{}', grid=np.asfortranarray(np.arange(12.).reshape(3, 4)), one=np.array(7))",
            npz.display()
        ),
        &[],
    );
    for member in ["grid", "one"] {
        let store = root.join(format!("{member}.zarr"));
        converted(convert(&npz, &store, &["--member", member]), member);
        let back = root.join(format!("{member}.npz"));
        converted(convert(&store, &back, &[]), member);
        let check = format!(
            "import numpy as np; a = np.load('{}')['{member}']; (b,) = np.load('{}').values(); assert np.array_equal(a, b) and a.flags['F_CONTIGUOUS'] == b.flags['F_CONTIGUOUS']; print('ok')",
            npz.display(),
            back.display()
        );
        assert_eq!(run_with(&python(), &check, &[]).trim(), "ok", "{member}");
    }
}

/// The peak resident memory of the `ndl convert` children so far, in KiB.
fn children_peak_kib() -> i64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given.
    let usage = unsafe {
        assert_eq!(
            libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr()),
            0
        );
        usage.assume_init()
    };
    usage.ru_maxrss
}

/// A 3-d array of 384 MiB converts to Zarr and back in far less memory
/// than it takes: the writer holds one slab of chunks (64 MiB at most by
/// default), the reader one slab and a batch. (Measured by hand on a
/// 2 GiB array too: see BENCHMARKS.md.) The test runs alone in its
/// process so that no other child counts.
#[test]
fn a_large_3d_array_converts_both_ways_in_bounded_memory() {
    if std::env::var_os("NDL_RSS_CHILD").is_none() {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "cli_zarr_rank::a_large_3d_array_converts_both_ways_in_bounded_memory",
                "--nocapture",
            ])
            .env("NDL_RSS_CHILD", "1")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{text}");
        assert!(text.contains("peak "), "the child ran: {text}");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let npy = root.join("big.npy");
    // 384 × 512 × 512 float32: 384 MiB, written as its bytes stream.
    let (a, b, c) = (384u64, 512u64, 512u64);
    let mut header = ndl_runtime::npy::Header::new(ndl_runtime::Datatype::Float32, vec![a, b, c]);
    header.byte_order = ndl_runtime::ByteOrder::Little;
    ndl_runtime::npy::write_file_with(&npy, &header, |w| {
        let row: Vec<u8> = (0..b * c).flat_map(|i| (i as f32).to_le_bytes()).collect();
        for _ in 0..a {
            w.write_all(&row)?;
        }
        Ok(())
    })
    .unwrap();
    let store = root.join("big.zarr");
    converted(convert(&npy, &store, &["--codec", "zstd:1"]), "to Zarr");
    let back = root.join("back.npy");
    converted(convert(&store, &back, &[]), "back");
    let peak = children_peak_kib();
    println!("peak {peak} KiB");
    assert!(peak < 256 << 10, "peak resident memory {peak} KiB");
    assert_eq!(
        std::fs::metadata(&back).unwrap().len(),
        std::fs::metadata(&npy).unwrap().len()
    );
    let same = std::process::Command::new("cmp")
        .args([&npy, &back])
        .status()
        .unwrap();
    assert!(same.success(), "the array came back changed");
}
