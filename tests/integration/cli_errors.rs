//! `ndl describe` of files it must refuse: every malformed `.npy` case
//! (NumPy's test-suite and more), files cut short, headers over the size
//! limit, files that are not NumPy files, and broken `.npz` members; each
//! refused with one clear `ndl: error:` line and no panic.

use crate::common;

use common::cli::{FORMATS, convert, describe, ndl, ok, refused, shape_of};

use std::path::Path;

use ndl_runtime::ndl::File as NdlFile;

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

/// A `.npy` of elements of no bytes (`S0`, `V0`: NumPy makes none) with
/// bytes after its header is refused by every conversion, naming the
/// source: converting it to Zarr panicked, counting each byte a record.
#[test]
fn elements_of_no_bytes_are_refused_by_every_conversion() {
    let dir = tempfile::tempdir().unwrap();
    for descr in ["|S0", "|V0"] {
        let text = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': (5,), }}");
        let path = dir.path().join("empty_width.npy");
        std::fs::write(&path, v1(&text)).unwrap();
        for dest in ["o.zarr", "o.npy", "o.parquet", "o.h5", "o.nc"] {
            let run = convert(&path, &dir.path().join(dest), &[]);
            refused(&run, &path, &["its elements are of no bytes"]);
            assert!(!dir.path().join(dest).exists(), "{descr} to {dest}");
        }
    }
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

/// An option that does not apply to the files at hand is refused, naming
/// it, with nothing written: `--member` of a file with one array, and each
/// writing option of a destination format that has no such thing.
#[test]
fn options_that_do_not_apply_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let npy = dir.path().join("a.npy");
    std::fs::write(&npy, v1(GOOD)).unwrap();
    let member = common::cli::convert(&npy, &dir.path().join("b.npy"), &["--member", "foo"]);
    refused(&member, &npy, &["member `foo`", ".npy file", "no members"]);
    let cases: [(&str, &[&str]); 8] = [
        ("c.npy", &["--zarr-format", "2"]),
        ("c.parquet", &["--layout", "columns"]),
        ("c.npy", &["--chunk-len", "10"]),
        ("c.h5", &["--chunks", "10"]),
        ("c.npz", &["--codec", "zstd"]),
        ("c.zarr", &["--shuffle"]),
        ("c.h5", &["--chars-as-u1"]),
        ("c.arrow", &["--strings", "variable"]),
    ];
    for (dst, option) in cases {
        let dst = dir.path().join(dst);
        let run = common::cli::convert(&npy, &dst, option);
        refused(&run, &dst, &[option[0], "does not apply"]);
        assert!(!dst.exists(), "{option:?}: {} was written", dst.display());
    }
    // The same options where they apply convert.
    let run = common::cli::convert(
        &npy,
        &dir.path().join("d.h5"),
        &["--shuffle", "--chunk-len", "1"],
    );
    assert_eq!(run.code, Some(0), "{run:#?}");
}

/// A table of many columns makes a `.npy` header longer than NumPy reads
/// by default: the conversion says so, and the length it names is what
/// `np.load` then needs (and needs indeed).
#[test]
fn a_header_numpy_refuses_by_default_is_announced() {
    let dir = tempfile::tempdir().unwrap();
    let (table, npy) = (dir.path().join("wide.parquet"), dir.path().join("wide.npy"));
    ndl_testkit::run_with(
        &ndl_testkit::python312(),
        "import sys, pyarrow as pa, pyarrow.parquet as pq\n\
         pq.write_table(pa.table({f'column_{i}': [float(i)] * 3 for i in range(600)}), sys.argv[1])",
        &[table.to_str().unwrap()],
    );
    let run = common::cli::convert(&table, &npy, &[]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    let note = run.stderr.trim();
    assert!(note.starts_with("ndl: note: "), "{note}");
    let len = note
        .split("max_header_size=")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .unwrap_or_else(|| panic!("no length in {note:?}"));
    let out = common::run_python(
        "import sys, numpy as np\n\
         try:\n    np.load(sys.argv[1])\n    print('loaded by default')\n\
         except ValueError:\n    pass\n\
         a = np.load(sys.argv[1], max_header_size=int(sys.argv[2]))\n\
         print(a.shape, a['column_599'][0])",
        &[npy.to_str().unwrap(), len],
    );
    assert_eq!(out, "(3,) 599.0\n");
    let described = describe(&npy, "numpy", &["--max-header-size", len]);
    assert_eq!(described.code, Some(0), "{described:#?}");
}

/// `ndl describe FILE`, stopped by the command itself after `seconds`.
fn describe_within(file: &Path, seconds: u32) -> common::cli::Run {
    ndl_within(&["describe", file.to_str().unwrap()], seconds)
}

/// `ndl ARGS` with a reader of HDF5 files stopped by the command itself
/// after `seconds` of reading metadata.
fn ndl_within(args: &[&str], seconds: u32) -> common::cli::Run {
    let out = std::process::Command::new(common::cli::NDL)
        .args(args)
        .env("NDL_DESCRIBE_SECONDS", seconds.to_string())
        .output()
        .expect("the ndl binary runs");
    common::cli::Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Damaged HDF5 files, 200 bit-flipped copies of a PyTables-like file:
/// `ndl describe` and `ndl convert` of each end with success or one
/// `ndl: error:` line naming the file, never a crash. Debian's libhdf5
/// 1.10.8 itself crashes on some of them (SIGSEGV, an abort, as its own
/// h5dump does), or loops (in its global heap): the command reads HDF5
/// in a child process, says so, and stops a description that runs past
/// its time (here 10 s; 300 by default).
#[test]
fn damaged_hdf5_files_never_crash_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/hdf5_mutants.py");
    ndl_testkit::run_with(
        &ndl_testkit::python312(),
        "import runpy, sys; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')",
        &[
            script.to_str().unwrap(),
            dir.path().to_str().unwrap(),
            "200",
        ],
    );
    let mut crashes_reported = 0;
    for i in 0..200 {
        let file = dir.path().join(format!("m{i:04}.h5"));
        let npy = dir.path().join(format!("m{i:04}.npy"));
        for run in [
            describe_within(&file, 10),
            common::cli::convert(&file, &npy, &["--member", "/detector/events"]),
        ] {
            match run.code {
                Some(0) => {}
                Some(1) => {
                    refused(&run, &file, &[]);
                    crashes_reported += usize::from(run.stderr.contains("crashed"));
                }
                _ => panic!("{}: {run:#?}", file.display()),
            }
            assert!(
                !run.stderr.contains("HDF5-DIAG"),
                "{}: {}",
                file.display(),
                run.stderr
            );
        }
    }
    // The corpus holds files that crash this libhdf5: the test sees the
    // child process at work, not only files that read.
    assert!(crashes_reported > 0, "no mutant crashed the HDF5 library");
}

/// A netCDF-4 file whose global heap says an object is 29 bytes where it
/// is 8: Debian's libhdf5 1.10.8 loops on it for ever, reading the
/// attribute that object holds. `ndl describe` stops after its limit, and
/// so does `ndl convert` while it reads the file's metadata (it ran until
/// killed); a conversion of a sound file under the same limit succeeds.
#[test]
fn a_conversion_stuck_in_the_hdf5_library_reading_metadata_is_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let (sound, looping) = (dir.path().join("sound.nc"), dir.path().join("loops.nc"));
    ndl_testkit::run_with(
        &ndl_testkit::python312(),
        r#"
import sys, netCDF4, numpy as np
sound, looping = sys.argv[1:3]
with netCDF4.Dataset(sound, "w", format="NETCDF4") as d:
    d.createDimension("x", 3)
    d.createDimension("y", 4)
    d.createVariable("v", "f8", ("x", "y"))[:] = np.arange(12.0).reshape(3, 4)
b = bytearray(open(sound, "rb").read())
g = b.find(b"GCOL")
first = g + 16
size = int.from_bytes(b[first + 8:first + 16], "little")
second = first + 16 + (size + 7) // 8 * 8
assert int.from_bytes(b[second + 8:second + 16], "little") == 8, "a heap as expected"
b[second + 8] = 29
open(looping, "wb").write(b)
"#,
        &[sound.to_str().unwrap(), looping.to_str().unwrap()],
    );
    let (npy, src) = (dir.path().join("o.npy"), looping.to_str().unwrap());
    let run = ndl_within(&["convert", src, npy.to_str().unwrap()], 2);
    assert_eq!(run.code, Some(1), "{run:#?}");
    assert!(
        run.stderr
            .contains("did not finish reading its metadata in 2 s"),
        "{run:#?}"
    );
    assert!(!npy.exists());
    let run = ndl_within(&["describe", src], 2);
    assert_eq!(run.code, Some(1), "{run:#?}");
    assert!(
        run.stderr.contains("did not finish reading it in 2 s"),
        "{run:#?}"
    );
    let run = ndl_within(
        &["convert", sound.to_str().unwrap(), npy.to_str().unwrap()],
        2,
    );
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert!(npy.exists());
}

/// A damaged Parquet file's error names it once, not twice (ndl-arrow's
/// error already names the file).
#[test]
fn a_damaged_parquet_file_is_named_once() {
    let dir = tempfile::tempdir().unwrap();
    let parquet = dir.path().join("cut.parquet");
    let mut bytes = b"PAR1".to_vec();
    bytes.extend_from_slice(&[0xAB; 60]);
    bytes.extend_from_slice(&40u32.to_le_bytes());
    bytes.extend_from_slice(b"PAR1");
    std::fs::write(&parquet, bytes).unwrap();
    for run in [
        describe(&parquet, "ndl", &[]),
        common::cli::convert(&parquet, &dir.path().join("x.npy"), &[]),
    ] {
        refused(&run, &parquet, &[]);
        let named = run.stderr.matches(parquet.to_str().unwrap()).count();
        assert_eq!(named, 1, "{}", run.stderr);
    }
}
