//! Every codec zarr-python reads, read by `ndl convert`: stores written by
//! zarr-python 3.4 (v3, core and `numcodecs.*` codecs) and 3.1 (v2,
//! numcodecs compressors and filters), by zarr-python's `ZipStore`, and the
//! metadata older writers left (zarr-python 2's fill values, Python's bare
//! `NaN`); codecs `ndl convert --codec` writes, read back by zarr-python;
//! and codecs no one here decodes, refused by name.

use crate::common;

use common::cli::{convert, converted, describe, ndl, refused};
use common::zarr_python::{check_stores_311, check_stores_312};

use std::path::{Path, PathBuf};

/// The script that writes one store per codec configuration.
const CODEC_STORES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/codec_stores.py");

/// argv: directory, names. For each name, `got_NAME.npy` (converted by
/// ndl) holds the dtype, shape and bytes of `NAME.npy` (zarr-python's read).
const SAME_AS_ZARR_PYTHON: &str = r#"
import sys, numpy as np
out, names = sys.argv[1], sys.argv[2:]
bad = []
for n in names:
    got, exp = np.load(f'{out}/got_{n}.npy'), np.load(f'{out}/{n}.npy')
    if (got.dtype, got.shape, got.tobytes()) != (exp.dtype, exp.shape, exp.tobytes()):
        bad.append(f'{n}: {got.dtype} {got[:3]} != {exp.dtype} {exp[:3]}')
print('\n'.join(bad) or f'ok {len(names)}')
"#;

/// Writes the stores of `mode` with `python` into `out`; converts each
/// with ndl and checks the values are zarr-python's. Returns the names.
fn convert_every_store(python: &Path, mode: &str, out: &Path, ending: &str) -> Vec<String> {
    let listed = common::run_file(
        python,
        Path::new(CODEC_STORES),
        &[out.to_str().unwrap(), mode],
    );
    let names: Vec<String> = listed.lines().map(str::to_owned).collect();
    assert!(names.len() >= 2, "{mode}: {listed}");
    for name in &names {
        let store = out.join(format!("{name}{ending}"));
        let got = out.join(format!("got_{name}.npy"));
        converted(convert(&store, &got, &[]), name);
    }
    let mut args = vec![out.to_str().unwrap()];
    args.extend(names.iter().map(String::as_str));
    let verdict = common::run_python(SAME_AS_ZARR_PYTHON, &args);
    assert_eq!(verdict.trim(), format!("ok {}", names.len()), "{mode}");
    names
}

/// zarr-python 3.4's v3 codecs, core (gzip, zstd with and without a
/// checksum, crc32c, blosc with every compressor and shuffle, sharding) and
/// numcodecs' (bz2, lz4, zstd, gzip, zlib, adler32, fletcher32, crc32,
/// crc32c, shuffle, blosc, and the filters delta (its dtype given as
/// `"<i4"` or `"int32"`), fixedscaleoffset, quantize, bitround), for int32,
/// float64 and records.
#[test]
fn every_codec_zarr_python_34_writes_in_v3_converts_to_equal_npy() {
    let dir = tempfile::tempdir().unwrap();
    let names = convert_every_store(&common::python312(), "v3", dir.path(), ".zarr");
    for expected in [
        "v3_nc_lz4_rec",
        "v3_nc_delta_i4",
        "v3_nc_delta_named_i4",
        "v3_blosc_lz4hc_bitshuffle_f8",
        "v3_sharding_rec",
        "v3_nc_crc32c_start_i4",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} not written"
        );
    }
}

/// zarr-python 3.1's v2 compressors (bz2, lz4, zstd, gzip, zlib, the
/// checksums, shuffle, blosc with every compressor and shuffle, auto
/// included) and filters (checksums and shuffle before zlib, delta with and
/// without `astype`, fixedscaleoffset, quantize, bitround).
#[test]
fn every_codec_zarr_python_31_writes_in_v2_converts_to_equal_npy() {
    let dir = tempfile::tempdir().unwrap();
    let names = convert_every_store(&common::python(), "v2", dir.path(), ".zarr");
    for expected in [
        "v2_lz4_rec",
        "v2_filter_delta_astype_i4",
        "v2_blosc_zstd_-1_f8",
        "v2_crc32c_i4",
        "v2_crc32c_start_i4",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} not written"
        );
    }
}

/// zarr-python 3.4's `ZipStore`, v3 and v2, is described and converted; a
/// zip holding neither Zarr metadata nor only `.npy` members is refused
/// saying what it holds; an `.npz` is still one.
#[test]
fn zip_stores_are_read_and_never_taken_for_npz() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path();
    let names = convert_every_store(&common::python312(), "zip", out, ".zarr.zip");
    assert_eq!(names, ["zip_v3", "zip_v2"]);
    for (name, codec) in [("zip_v3", "gzip"), ("zip_v2", "numcodecs.zlib")] {
        let run = describe(&out.join(format!("{name}.zarr.zip")), "ndl", &[]);
        assert_eq!(run.code, Some(0), "{run:#?}");
        for word in [&format!("{name}:"), "shape: [37]", "type: int32", codec] {
            assert!(
                run.stdout.contains(word),
                "{name}: no {word:?} in\n{}",
                run.stdout
            );
        }
    }
    let other = out.join("other.zip");
    let npz = out.join("a.npz");
    common::run_python(
        "import sys, zipfile, numpy as np\n\
         with zipfile.ZipFile(sys.argv[1], 'w') as z:\n    z.writestr('readme.txt', 'hi')\n\
         np.savez(sys.argv[2], x=np.arange(3))",
        &[other.to_str().unwrap(), npz.to_str().unwrap()],
    );
    let run = describe(&other, "ndl", &[]);
    refused(&run, &other, &["neither an .npz archive", "readme.txt"]);
    let run = describe(&npz, "ndl", &[]);
    assert!(run.code == Some(0) && run.stdout.contains("x:"), "{run:#?}");
}

/// Each codec `--codec` writes beyond zstd, in v3 and v2, is read back by
/// zarr-python 3.4, and v2 by 3.1, as the records converted.
#[test]
fn codecs_ndl_writes_are_read_by_zarr_python() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let npy = root.join("rec.npy");
    common::run_python(
        "import sys, numpy as np\n\
         a = np.zeros(50, dtype=[('a', '<i4'), ('b', '<f8'), ('c', 'S3')])\n\
         a['a'] = np.arange(50) * 7; a['b'] = np.arange(50) / 3; a['c'] = b'xyz'\n\
         np.save(sys.argv[1], a)",
        &[npy.to_str().unwrap()],
    );
    let codecs = [
        "gzip:2",
        "zlib",
        "bz2:9",
        "lz4",
        "lz4:5",
        "crc32c",
        "blosc:zstd:7:bitshuffle",
        "blosc:blosclz:noshuffle",
        "blosc:lz4hc",
        "blosc:zlib:1",
    ];
    let (mut v3, mut v2) = (Vec::new(), Vec::new());
    for codec in codecs {
        for (format, stores) in [("3", &mut v3), ("2", &mut v2)] {
            let store = root.join(format!("{}_v{format}.zarr", codec.replace(':', "_")));
            let args = [
                "--codec",
                codec,
                "--zarr-format",
                format,
                "--chunk-len",
                "8",
            ];
            converted(convert(&npy, &store, &args), codec);
            stores.push(store);
        }
    }
    let with_npy =
        |stores: &[PathBuf]| stores.iter().map(|s| (s.clone(), &npy)).collect::<Vec<_>>();
    check_stores_312(&with_npy(&[v3, v2.clone()].concat()));
    check_stores_311(&with_npy(&v2));
}

/// Codecs no one here decodes are refused naming the codec, v3 and v2.
#[test]
fn codecs_no_one_here_decodes_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    common::run_with(
        &common::python312(),
        "import sys, json, warnings, numpy as np, numcodecs, zarr\n\
         warnings.simplefilter('ignore')\n\
         from numcodecs import zarr3 as nc\n\
         root = sys.argv[1]\n\
         zarr.create_array(f'{root}/lzma3.zarr', shape=(4,), chunks=(2,), dtype='f8', compressors=[nc.LZMA()])[:] = 1\n\
         zarr.create_array(f'{root}/lzma2.zarr', shape=(4,), chunks=(2,), dtype='f8', zarr_format=2, compressors=numcodecs.LZMA())[:] = 1\n\
         zarr.create_array(f'{root}/pcodec.zarr', shape=(4,), chunks=(2,), dtype='f8')[:] = 1\n\
         d = json.load(open(f'{root}/pcodec.zarr/zarr.json'))\n\
         d['codecs'] = [{'name': 'numcodecs.pcodec', 'configuration': {'level': 8}}]\n\
         json.dump(d, open(f'{root}/pcodec.zarr/zarr.json', 'w'))",
        &[root.to_str().unwrap()],
    );
    for (name, codec) in [
        ("lzma3", "numcodecs.lzma"),
        ("lzma2", "lzma"),
        ("pcodec", "numcodecs.pcodec"),
    ] {
        let store = root.join(format!("{name}.zarr"));
        let run = convert(&store, &root.join(format!("{name}.npy")), &[]);
        refused(
            &run,
            &store,
            &[&format!("the codec `{codec}` is not supported")],
        );
        let run = describe(&store, "ndl", &[]);
        refused(&run, &store, &[&format!("`{codec}`")]);
    }
}

/// What older writers left is read as zarr-python reads it: zarr-python 2's
/// fill value `0` of bools and `U` strings, Python's bare `NaN` and
/// `Infinity` in `.zattrs`; a store with both `zarr.json` and `.zarray` is
/// read as v3, with a note on stderr.
#[test]
fn metadata_older_writers_left_is_tolerated() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    common::run_with(
        &common::python(),
        "import sys, json, shutil, warnings, numpy as np, zarr\n\
         warnings.simplefilter('ignore')\n\
         root = sys.argv[1]\n\
         for name, dt, vals in [('b', '|b1', [True, False, True]), ('u', '<U3', ['ab', 'c', 'xyz'])]:\n\
         \x20   z = zarr.create_array(f'{root}/{name}.zarr', shape=(3,), chunks=(2,), dtype=dt, zarr_format=2)\n\
         \x20   z[:] = np.array(vals, dtype=dt); np.save(f'{root}/{name}.npy', np.array(vals, dtype=dt))\n\
         \x20   d = json.load(open(f'{root}/{name}.zarr/.zarray')); d['fill_value'] = 0\n\
         \x20   json.dump(d, open(f'{root}/{name}.zarr/.zarray', 'w'))\n\
         z = zarr.create_array(f'{root}/nan.zarr', shape=(3,), chunks=(2,), dtype='<f8', zarr_format=2)\n\
         z[:] = 1.5; np.save(f'{root}/nan.npy', np.full(3, 1.5))\n\
         json.dump({'a': float('nan'), 'b': -float('inf')}, open(f'{root}/nan.zarr/.zattrs', 'w'))\n\
         zarr.create_array(f'{root}/both.zarr', shape=(3,), chunks=(2,), dtype='<i4', zarr_format=3)[:] = 5\n\
         zarr.create_array(f'{root}/v2.zarr', shape=(3,), chunks=(2,), dtype='<i4', zarr_format=2)[:] = 7\n\
         shutil.copy(f'{root}/v2.zarr/.zarray', f'{root}/both.zarr/.zarray')\n\
         np.save(f'{root}/both.npy', np.full(3, 5, dtype='<i4'))",
        &[root.to_str().unwrap()],
    );
    let mut names = vec![];
    for name in ["b", "u", "nan"] {
        let store = root.join(format!("{name}.zarr"));
        converted(
            convert(&store, &root.join(format!("got_{name}.npy")), &[]),
            name,
        );
        names.push(name);
    }
    let nan = describe(&root.join("nan.zarr"), "ndl", &[]);
    // Python's bare words are floats, not text.
    assert!(
        nan.stdout.contains("a: .nan") && nan.stdout.contains("b: -.inf"),
        "{nan:#?}"
    );
    let both = root.join("both.zarr");
    let run = ndl(&[
        "convert",
        both.to_str().unwrap(),
        root.join("got_both.npy").to_str().unwrap(),
    ]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert_eq!(
        run.stderr.trim(),
        format!(
            "ndl: note: {}: both zarr.json and .zarray are here: read as Zarr v3 (zarr.json), as zarr-python does",
            both.display()
        )
    );
    let run = describe(&both, "ndl", &[]);
    assert!(run.stderr.contains("read as Zarr v3"), "{run:#?}");
    names.push("both");
    let mut args = vec![root.to_str().unwrap()];
    args.extend(names);
    let verdict = common::run_python(SAME_AS_ZARR_PYTHON, &args);
    assert_eq!(verdict.trim(), "ok 4");
}
