//! End-to-end tests of `ndl convert` (.npy/.npz to Zarr stores and back) and
//! of `ndl describe` on Zarr stores: the built binary run on files NumPy
//! wrote and on stores zarr-python wrote, its output read by the real
//! consumers (zarr-python 3.4 and 3.1, NumPy, PyYAML and our NDL reader,
//! `datashape.dshape`, `ncgen -k nc4`), values compared field by field, and
//! every refusal an `ndl: error:` line naming the path, with nothing left
//! behind.
//!
//! The records have their values from their index `i` by the same formula
//! here (`Rec::make`) and in Python (`fill` in `MAKE_NPY`).

mod common;

use common::cli::{compile_cdl, ndl, ok, refused, Run};
use common::names;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ndl_runtime::ndl::{Extent, File as NdlFile, Ndarray};
use ndl_runtime::{ByteOrder, Datatype, NdlType};
use ndl_zarr::WriteOptions;

const FORMATS: [&str; 5] = ["ndl", "numpy", "datashape", "zarr", "cdl"];
/// Records in every test array.
const N: usize = 1000;
/// The packed size of `Rec` (numpy's aligned dtype is 32 bytes).
const PACKED: usize = 21;

// ---- running the binary ----------------------------------------------------

fn describe(path: &Path, format: &str) -> Run {
    ndl(&["describe", path.to_str().unwrap(), "--format", format])
}

fn convert(src: &Path, dst: &Path, extra: &[&str]) -> Run {
    let mut args = vec!["convert", src.to_str().unwrap(), dst.to_str().unwrap()];
    args.extend_from_slice(extra);
    ndl(&args)
}

/// A conversion that succeeded: exit 0 and nothing at all printed; stderr
/// is a pipe here, not a terminal, so no progress bar either.
fn converted(run: Run, what: &str) {
    assert_eq!(run.code, Some(0), "{what}: {run:#?}");
    assert!(
        run.stderr.is_empty(),
        "{what}: stderr is not a terminal, yet something was printed (a progress bar?): {:?}",
        run.stderr
    );
    assert!(run.stdout.is_empty(), "{what}: stdout not empty: {run:#?}");
}

// ---- the records -----------------------------------------------------------

// No doc comments on these types or fields: they would become NDL
// descriptions, which the NumPy-made stores do not have.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Inner {
    x: i8,
    y: f32,
}

// numpy's `np.dtype([...], align=True)` of `MAKE_NPY`: the same offsets.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Rec {
    a: u8,
    b: f64,
    c: u16,
    ok: bool,
    #[ndl(string)]
    code: [u8; 4],
    n: Inner,
}

impl Rec {
    fn make(i: usize) -> Rec {
        let mut code = [0u8; 4];
        let text = format!("c{}", i % 1000);
        code[..text.len()].copy_from_slice(text.as_bytes());
        Rec {
            a: (i % 251) as u8,
            b: i as f64 * 0.5 - 3.0,
            c: (i * 7 % 65536) as u16,
            ok: i.is_multiple_of(3),
            code,
            n: Inner {
                x: -((i % 100) as i8),
                y: i as f32 * 0.25,
            },
        }
    }

    /// The packed record as a store holds it, in `order`.
    fn packed(&self, order: ByteOrder) -> Vec<u8> {
        let big = order == ByteOrder::Big;
        let mut out = vec![self.a];
        out.extend(if big {
            self.b.to_be_bytes()
        } else {
            self.b.to_le_bytes()
        });
        out.extend(if big {
            self.c.to_be_bytes()
        } else {
            self.c.to_le_bytes()
        });
        out.push(u8::from(self.ok));
        out.extend(self.code);
        out.push(self.n.x as u8);
        out.extend(if big {
            self.n.y.to_be_bytes()
        } else {
            self.n.y.to_le_bytes()
        });
        assert_eq!(out.len(), PACKED);
        out
    }
}

fn records() -> Vec<Rec> {
    (0..N).map(Rec::make).collect()
}

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

// ---- Python ----------------------------------------------------------------

/// Shared by every script: the packed form of a dtype and a recursive,
/// field-by-field comparison of values (byte order and padding aside).
const PY_LIB: &str = r#"
import ast, json, os, sys
import numpy as np
from numpy.lib import recfunctions as rfn

def packed(dt):
    return rfn.repack_fields(dt, align=False, recurse=True)

def same(got, exp, path=''):
    if exp.dtype.names is None:
        g, e = np.asarray(got), np.asarray(exp)
        assert g.shape == e.shape, (path, g.shape, e.shape)
        assert np.array_equal(g, e), f'field {path!r}: got {g[:5]} expected {e[:5]}'
        return
    assert got.dtype.names == exp.dtype.names, (path, got.dtype, exp.dtype)
    for name in exp.dtype.names:
        same(got[name], exp[name], f'{path}.{name}' if path else name)
"#;

/// Writes into argv[1], with argv[2] records: `nested.npy` (an aligned,
/// padded dtype with u1, f8, u2, bool, S4 and a nested aligned struct),
/// `flat.npy` (the same without the nested struct), their big-endian
/// twins `*_big.npy` (padded too), `grid.npy` (2-d), `zerod.npy` (0-d),
/// `two.npz` (compressed: `readings`, as nested.npy, and `grid`) and
/// `one.npz` (`readings` only).
const MAKE_NPY: &str = r#"
out, n = sys.argv[1], int(sys.argv[2])
def fill(dt, n):
    i = np.arange(n)
    a = np.zeros(n, dt)
    a['a'] = i % 251
    a['b'] = i * 0.5 - 3.0
    a['c'] = i * 7 % 65536
    a['ok'] = i % 3 == 0
    a['code'] = [b'c%d' % (k % 1000) for k in i]
    if 'n' in dt.names:
        a['n']['x'] = -(i % 100)
        a['n']['y'] = i * 0.25
    return a
inner = np.dtype([('x', 'i1'), ('y', '<f4')], align=True)
nested = np.dtype([('a', 'u1'), ('b', '<f8'), ('c', '<u2'), ('ok', '?'), ('code', 'S4'), ('n', inner)], align=True)
flat = np.dtype([('a', 'u1'), ('b', '<f8'), ('c', '<u2'), ('ok', '?'), ('code', 'S4')], align=True)
# The padding is really there: the offsets are those of the Rust type.
assert nested.itemsize == 32 and [nested.fields[k][1] for k in nested.names] == [0, 8, 16, 18, 19, 24], nested
assert inner.itemsize == 8 and flat.itemsize == 24
assert packed(nested).itemsize == 21 and packed(flat).itemsize == 16
for name, dt in [('nested', nested), ('flat', flat)]:
    a = fill(dt, n)
    np.save(f'{out}/{name}.npy', a)
    big = a.astype(dt.newbyteorder('>'))
    assert big.dtype.itemsize == dt.itemsize and big.dtype.fields['b'][0].byteorder == '>'
    np.save(f'{out}/{name}_big.npy', big)
grid = np.arange(12, dtype='<f8').reshape(3, 4)
np.save(f'{out}/grid.npy', grid)
np.save(f'{out}/zerod.npy', np.array(5, '<i4'))
np.savez_compressed(f'{out}/two.npz', readings=fill(nested, n), grid=grid)
np.savez(f'{out}/one.npz', readings=fill(nested, n))
"#;

/// argv: store, npy. `zarr.open_array(store)[:]` equals the .npy's array
/// field by field, with its dtype packed: in v2 with the byte order kept;
/// a v3 data type has none (the `bytes` codec's `endian` is how the chunks
/// hold numbers), and zarr-python 3.4 reads big-endian chunks into native
/// numbers. Prints `ok` and the zarr version.
const CHECK_STORE: &str = r#"
import warnings
warnings.simplefilter('ignore')
import zarr
store, npy = sys.argv[1], sys.argv[2]
exp = np.load(npy)
z = zarr.open_array(store, mode='r')
got = z[:]
assert got.shape == exp.shape, (got.shape, exp.shape)
want = packed(exp.dtype)
if z.metadata.zarr_format == 3:
    want = want.newbyteorder('<')
    assert got.dtype.newbyteorder('<') == want, (got.dtype, want)
else:
    assert got.dtype == want, (got.dtype, want)
same(got, exp)
print('ok', zarr.__version__)
"#;

/// argv: converted file (.npy or .npz), original npy, npz member name.
/// numpy loads it; the dtype is the original's packed (byte order kept);
/// the values are the original's.
const CHECK_BACK: &str = r#"
back, npy, member = sys.argv[1:4]
orig = np.load(npy)
if back.endswith('.npz'):
    with np.load(back) as z:
        assert z.files == [member], z.files
        got = z[member]
else:
    got = np.load(back)
assert got.shape == orig.shape, (got.shape, orig.shape)
assert got.dtype == packed(orig.dtype), (got.dtype, packed(orig.dtype))
same(got, orig)
print('ok')
"#;

/// argv: npy, directory. zarr-python (3.4) writes the .npy's records,
/// packed, as `py_v3.zarr` (default codecs, little-endian) and `py_v2.zarr`
/// (blosc lz4, big-endian), in chunks of 100 records.
const ZARR_PYTHON_WRITES: &str = r#"
import warnings
warnings.simplefilter('ignore')
import numcodecs, zarr
npy, out = sys.argv[1:3]
a = np.load(npy)
little = packed(a.dtype)
a = a.astype(little)
z = zarr.create_array(store=f'{out}/py_v3.zarr', shape=a.shape, chunks=(100,), dtype=little, zarr_format=3)
z[:] = a
big = little.newbyteorder('>')
z = zarr.create_array(store=f'{out}/py_v2.zarr', shape=a.shape, chunks=(100,), dtype=big, zarr_format=2,
                      compressors=numcodecs.Blosc(cname='lz4', clevel=5, shuffle=numcodecs.Blosc.SHUFFLE))
z[:] = a.astype(big)
print('ok', zarr.__version__)
"#;

fn py(script: &str) -> String {
    format!("{PY_LIB}\n{script}")
}

/// The test arrays NumPy writes, in a temporary directory.
struct Files {
    dir: tempfile::TempDir,
}

impl Files {
    fn new() -> Files {
        let dir = tempfile::tempdir().unwrap();
        common::run_python(
            &py(MAKE_NPY),
            &[dir.path().to_str().unwrap(), &N.to_string()],
        );
        Files { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

/// zarr-python (`python`) opens `store` and finds the records of `npy`;
/// returns its version.
fn check_store(python: &Path, store: &Path, npy: &Path) -> String {
    let out = common::run_with(
        python,
        &py(CHECK_STORE),
        &[store.to_str().unwrap(), npy.to_str().unwrap()],
    );
    let version = out
        .strip_prefix("ok ")
        .unwrap_or_else(|| panic!("{out}"))
        .trim();
    version.to_owned()
}

fn check_store_312(store: &Path, npy: &Path) {
    let version = check_store(&common::python312(), store, npy);
    assert!(version.starts_with("3.4"), "zarr-python {version}, not 3.4");
}

fn check_store_311(store: &Path, npy: &Path) {
    let version = check_store(&common::python(), store, npy);
    assert!(version.starts_with("3.1"), "zarr-python {version}, not 3.1");
}

/// numpy loads the converted `back` and finds the records of `npy`.
fn check_back(back: &Path, npy: &Path, member: &str) {
    let out = common::run_python(
        &py(CHECK_BACK),
        &[back.to_str().unwrap(), npy.to_str().unwrap(), member],
    );
    assert_eq!(out.trim(), "ok", "{}", back.display());
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        if d.is_file() {
            out.insert(d.clone(), std::fs::read(&d).unwrap());
            continue;
        }
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                out.insert(path.clone(), Vec::new());
            }
            todo.push(path);
        }
    }
    out
}

/// No hidden `.NAME.*.partial` directory (nor anything else hidden) left in
/// `dir`.
fn no_partial(dir: &Path) {
    let hidden: Vec<String> = names(dir)
        .into_iter()
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(
        hidden.is_empty(),
        "left behind in {}: {hidden:?}",
        dir.display()
    );
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The chunk objects of a store with one 1-d array: `c/<i>` in v3,
/// `<i>` in v2.
fn chunk_files(store: &Path) -> Vec<(u64, u64)> {
    let dir = if store.join("zarr.json").exists() {
        store.join("c")
    } else {
        store.to_path_buf()
    };
    let mut out: Vec<(u64, u64)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let index = name
                .parse()
                .unwrap_or_else(|_| panic!("chunk file {name} in {}", dir.display()));
            (index, e.metadata().unwrap().len())
        })
        .collect();
    out.sort();
    out
}

// ---- 1. .npy to stores and back --------------------------------------------

/// NumPy's padded, aligned records (nested, and big-endian) convert to a v3
/// store that zarr-python 3.4 reads as the same values with the packed
/// dtype; to v2 with blosc, read by 3.4, and by 3.1 for the flat dtype;
/// and back to .npy and .npz that NumPy loads with the same values.
#[test]
fn npy_to_zarr_and_back_read_by_zarr_python_and_numpy() {
    let files = Files::new();
    let root = files.dir.path();
    for name in ["nested", "nested_big", "flat", "flat_big"] {
        let npy = files.path(&format!("{name}.npy"));
        let v3 = root.join(format!("{name}.zarr"));
        converted(convert(&npy, &v3, &[]), &format!("{name} to v3"));
        assert_eq!(json(&v3.join("zarr.json"))["zarr_format"], 3);
        check_store_312(&v3, &npy);

        let v2 = root.join(format!("{name}_v2.zarr"));
        converted(
            convert(&npy, &v2, &["--zarr-format", "2", "--codec", "blosc"]),
            &format!("{name} to v2 blosc"),
        );
        let zarray = json(&v2.join(".zarray"));
        assert_eq!(zarray["zarr_format"], 2);
        assert_eq!(zarray["compressor"]["id"], "blosc", "{zarray}");
        check_store_312(&v2, &npy);
        if name.starts_with("flat") {
            // zarr-python 3.1 refuses nested v2 dtypes.
            check_store_311(&v2, &npy);
        }

        for (store, tag) in [(&v3, "v3"), (&v2, "v2")] {
            let stem = format!("{name}_{tag}");
            let back = root.join(format!("{stem}_back.npy"));
            converted(convert(store, &back, &[]), &format!("{stem} to .npy"));
            check_back(&back, &npy, "");
            let back = root.join(format!("{stem}_back.npz"));
            converted(convert(store, &back, &[]), &format!("{stem} to .npz"));
            // The member is named after the store.
            let member = store.file_stem().unwrap().to_str().unwrap();
            check_back(&back, &npy, member);
            // And that single-member archive converts back to a store.
            let again = root.join(format!("{stem}_again.zarr"));
            converted(
                convert(&back, &again, &[]),
                &format!("{stem} .npz to store"),
            );
            check_store_312(&again, &npy);
        }
    }
    no_partial(root);
}

/// The padding never reaches the store: the first chunk starts with the
/// packed records, in the byte order of the .npy.
#[test]
fn chunks_hold_packed_records_in_the_files_byte_order() {
    let files = Files::new();
    let root = files.dir.path();
    let data = records();
    for (name, order) in [
        ("nested", ByteOrder::Little),
        ("nested_big", ByteOrder::Big),
    ] {
        for format in ["2", "3"] {
            let store = root.join(format!("{name}_{format}.zarr"));
            converted(
                convert(
                    &files.path(&format!("{name}.npy")),
                    &store,
                    &[
                        "--zarr-format",
                        format,
                        "--codec",
                        "none",
                        "--chunk-len",
                        "10",
                    ],
                ),
                name,
            );
            let first = if format == "3" {
                store.join("c/0")
            } else {
                store.join("0")
            };
            let bytes = std::fs::read(&first).unwrap();
            let expected: Vec<u8> = data[..10].iter().flat_map(|r| r.packed(order)).collect();
            assert_eq!(bytes, expected, "{}", first.display());
            let endian = match order {
                ByteOrder::Little => "little",
                ByteOrder::Big => "big",
            };
            if format == "3" {
                let meta = json(&store.join("zarr.json"));
                assert_eq!(
                    meta["codecs"],
                    serde_json::json!([{"name": "bytes", "configuration": {"endian": endian}}])
                );
            }
            // Our own typed read of what the command wrote.
            assert_eq!(
                ndl_zarr::read::<Rec>(&store).unwrap(),
                data,
                "{name} v{format}"
            );
        }
    }
}

/// `--chunk-len` and `--codec` give the chunks expected: counted as files,
/// uncompressed ones of exactly `chunk-len` packed records.
#[test]
fn chunk_len_and_codec_give_the_chunks_expected() {
    let files = Files::new();
    let root = files.dir.path();
    let npy = files.path("nested.npy");
    // (name, options, records per chunk, the compressor: None for none)
    let cases: &[(&str, &[&str], u64, Option<&str>)] = &[
        (
            "none7_v3",
            &["--codec", "none", "--chunk-len", "7"],
            7,
            None,
        ),
        (
            "none7_v2",
            &["--codec", "none", "--chunk-len", "7", "--zarr-format", "2"],
            7,
            None,
        ),
        ("zstd7_v3", &["--chunk-len", "7"], 7, Some("zstd")),
        (
            "gzip7_v2",
            &[
                "--codec",
                "gzip:9",
                "--chunk-len",
                "7",
                "--zarr-format",
                "2",
            ],
            7,
            Some("gzip"),
        ),
        (
            "blosc999",
            &["--codec", "blosc:1", "--chunk-len", "999"],
            999,
            Some("blosc"),
        ),
        (
            "none1000",
            &["--codec", "none", "--chunk-len", "1000"],
            1000,
            None,
        ),
        (
            "none1_v2",
            &["--codec", "none", "--chunk-len", "1", "--zarr-format", "2"],
            1,
            None,
        ),
        // The default: about 2 MiB of packed records, but no longer than
        // the array (netCDF-C refuses longer chunks): one chunk here.
        (
            "default",
            &[],
            ((2 << 20) / PACKED as u64).min(N as u64),
            Some("zstd"),
        ),
    ];
    for (name, args, chunk, codec) in cases {
        let store = root.join(format!("{name}.zarr"));
        converted(convert(&npy, &store, args), name);
        let count = (N as u64).div_ceil(*chunk);
        let chunks = chunk_files(&store);
        let indices: Vec<u64> = chunks.iter().map(|(i, _)| *i).collect();
        assert_eq!(indices, (0..count).collect::<Vec<_>>(), "{name}");
        if codec.is_none() {
            // Every chunk is whole, the last one too (Zarr's regular grid).
            for (i, len) in &chunks {
                assert_eq!(*len, chunk * PACKED as u64, "{name}: chunk {i}");
            }
        }
        let (shape, compressor) = if store.join("zarr.json").exists() {
            let meta = json(&store.join("zarr.json"));
            let codecs = meta["codecs"].as_array().unwrap().clone();
            assert_eq!(codecs[0]["name"], "bytes", "{name}");
            (
                meta["chunk_grid"]["configuration"]["chunk_shape"].clone(),
                codecs.get(1).map(|c| c["name"].clone()),
            )
        } else {
            let meta = json(&store.join(".zarray"));
            let compressor = &meta["compressor"];
            (
                meta["chunks"].clone(),
                (!compressor.is_null()).then(|| compressor["id"].clone()),
            )
        };
        assert_eq!(shape, serde_json::json!([chunk]), "{name}");
        assert_eq!(compressor, codec.map(serde_json::Value::from), "{name}");
        check_store_312(&store, &npy);
    }
    no_partial(root);
}

// ---- 2. .npz members ---------------------------------------------------------

#[test]
fn an_npz_of_two_members_needs_member() {
    let files = Files::new();
    let root = files.dir.path();
    let two = files.path("two.npz");
    let dst = root.join("two.zarr");
    let before = names(root);

    let run = convert(&two, &dst, &[]);
    refused(&run, &two, &["readings", "grid", "--member"]);
    assert_eq!(names(root), before, "nothing written");

    let run = convert(&two, &dst, &["--member", "nope"]);
    refused(&run, &two, &["nope", "readings", "grid"]);
    assert_eq!(names(root), before, "nothing written");

    // The 2-d member is refused as a 2-d .npy is.
    let run = convert(&two, &dst, &["--member", "grid"]);
    refused(&run, &two, &["grid", "[3, 4]", "one-dimensional"]);
    assert_eq!(names(root), before, "nothing written");

    // The member chosen, from a compressed archive.
    converted(
        convert(&two, &dst, &["--member", "readings"]),
        "--member readings",
    );
    check_store_312(&dst, &files.path("nested.npy"));
    let v2 = root.join("two_v2.zarr");
    converted(
        convert(&two, &v2, &["--member", "readings", "--zarr-format", "2"]),
        "--member readings, v2",
    );
    check_store_312(&v2, &files.path("nested.npy"));

    // One member needs no --member (naming it is fine too).
    let one = files.path("one.npz");
    let store = root.join("one.zarr");
    converted(convert(&one, &store, &[]), "one.npz");
    check_store_312(&store, &files.path("nested.npy"));
    let store = root.join("one_named.zarr");
    converted(
        convert(&one, &store, &["--member", "readings"]),
        "one.npz --member",
    );
    check_store_312(&store, &files.path("nested.npy"));
    no_partial(root);
}

// ---- 3. errors ---------------------------------------------------------------

#[test]
fn an_existing_store_is_not_overwritten() {
    let files = Files::new();
    let root = files.dir.path();
    let npy = files.path("nested.npy");
    let store = root.join("x.zarr");
    converted(convert(&npy, &store, &["--codec", "none"]), "first");
    let before = snapshot(&store);
    for extra in [&[][..], &["--zarr-format", "2"], &["--codec", "gzip"]] {
        let run = convert(&npy, &store, extra);
        refused(&run, &store, &["already exists"]);
        assert_eq!(snapshot(&store), before, "the store changed");
    }
    // From an archive member too.
    let run = convert(&files.path("one.npz"), &store, &[]);
    refused(&run, &store, &["already exists"]);
    assert_eq!(snapshot(&store), before, "the store changed");

    // An empty directory, and a plain file, of that name are kept as well.
    let empty = root.join("empty.zarr");
    std::fs::create_dir(&empty).unwrap();
    refused(&convert(&npy, &empty, &[]), &empty, &["already exists"]);
    assert!(names(&empty).is_empty());
    let file = root.join("file.zarr");
    std::fs::write(&file, b"mine").unwrap();
    refused(&convert(&npy, &file, &[]), &file, &["already exists"]);
    assert_eq!(std::fs::read(&file).unwrap(), b"mine");
    no_partial(root);
}

/// `file://` URLs name local paths, both ways and for `describe`; a
/// conversion leaves nothing beside its destination.
#[test]
fn file_urls_name_local_paths() {
    let files = Files::new();
    let root = files.dir.path();
    let npy = files.path("flat.npy");
    let store = root.join("u.zarr");
    let url = |p: &Path| PathBuf::from(format!("file://{}", p.display()));
    converted(
        convert(&url(&npy), &url(&store), &[]),
        "npy to a file:// store",
    );
    check_store_312(&store, &npy);
    ok(describe(&url(&store), "ndl"), "describe a file:// store");
    let back = root.join("u.npy");
    converted(
        convert(&url(&store), &url(&back), &[]),
        "file:// store to npy",
    );
    check_back(&back, &npy, "");
    no_partial(root);
}

/// A destination in directories that do not exist yet: they are made.
#[test]
fn missing_parent_directories_are_made() {
    let files = Files::new();
    let root = files.dir.path();
    let npy = files.path("flat.npy");
    let store = root.join("new/sub/f.zarr");
    converted(
        convert(&npy, &store, &[]),
        "npy to a store in new directories",
    );
    check_store_312(&store, &npy);
    assert_eq!(common::names(&root.join("new/sub")), ["f.zarr"]);
}

/// kill -9 during a conversion: no store at the destination, only a hidden
/// building directory, which the next conversion there removes (its
/// writer's lock died with it) before writing the store whole.
#[test]
fn a_killed_conversion_leaves_no_store_and_the_next_one_cleans_up() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let big = root.join("big.npy");
    common::run_python(
        "import sys, numpy as np\nnp.save(sys.argv[1], np.arange(48_000_000, dtype='<u8'))",
        &[big.to_str().unwrap()],
    );
    let dst = root.join("k.zarr");
    let mut killed_midway = false;
    for delay_ms in [0, 20, 60, 150, 400] {
        let mut child = std::process::Command::new(common::cli::NDL)
            .args(["convert", big.to_str().unwrap(), dst.to_str().unwrap()])
            .args(["--codec", "none"])
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !names(root).iter().any(|n| n.starts_with(".k.zarr.")) {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no building directory appeared"
            );
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let ended_first = child.try_wait().unwrap().is_some();
        child.kill().ok();
        child.wait().unwrap();
        if ended_first || dst.exists() {
            // Too late: the store is whole. Start again.
            assert!(!names(root).iter().any(|n| n.starts_with('.')));
            std::fs::remove_dir_all(&dst).unwrap();
            continue;
        }
        killed_midway = true;
        let hidden: Vec<_> = names(root)
            .into_iter()
            .filter(|n| n.starts_with('.'))
            .collect();
        assert_eq!(hidden.len(), 1, "{hidden:?}");
        break;
    }
    assert!(
        killed_midway,
        "no kill landed during the conversion: make it longer"
    );
    let files = Files::new();
    let npy = files.path("flat.npy");
    converted(convert(&npy, &dst, &[]), "after the kill");
    check_store_312(&dst, &npy);
    no_partial(root);
}

/// `ndl convert STORE FILE` must not replace an existing .npy or .npz
/// either, as it does not replace an existing store.
#[test]
fn an_existing_npy_or_npz_is_not_overwritten() {
    let files = Files::new();
    let root = files.dir.path();
    let store = root.join("x.zarr");
    converted(convert(&files.path("nested.npy"), &store, &[]), "store");
    for name in ["keep.npy", "keep.npz"] {
        let dst = root.join(name);
        std::fs::write(&dst, b"precious").unwrap();
        let run = convert(&store, &dst, &[]);
        let kept = std::fs::read(&dst).unwrap();
        assert!(
            run.code == Some(1) && kept == b"precious",
            "ndl convert {} {name}: exit {:?}, and the existing {name} {} (stderr: {:?})",
            store.display(),
            run.code,
            if kept == b"precious" {
                "was kept"
            } else {
                "was replaced"
            },
            run.stderr
        );
        refused(&run, &dst, &["already exists"]);
    }
    no_partial(root);
}

#[test]
fn conversion_errors_are_refused_clearly() {
    let files = Files::new();
    let root = files.dir.path();
    let npy = files.path("nested.npy");
    let store = root.join("x.zarr");
    converted(convert(&npy, &store, &[]), "the store");
    let before = names(root);
    let unchanged = |what: &str| assert_eq!(names(root), before, "{what}: something written");

    // A missing source, of each kind.
    for missing in ["missing.npy", "missing.npz"] {
        let src = root.join(missing);
        refused(&convert(&src, &root.join("m.zarr"), &[]), &src, &[]);
        unchanged(missing);
    }
    let src = root.join("missing.zarr");
    refused(&convert(&src, &root.join("m.npy"), &[]), &src, &[]);
    unchanged("missing.zarr");
    // A directory that is no store.
    let not_store = root.join("empty.zarr");
    std::fs::create_dir(&not_store).unwrap();
    refused(
        &convert(&not_store, &root.join("m.npy"), &[]),
        &not_store,
        &["no Zarr array"],
    );
    std::fs::remove_dir(&not_store).unwrap();
    unchanged("empty.zarr");
    // A directory named as a .npy, a file named as a store.
    let dir_npy = root.join("dir.npy");
    std::fs::create_dir(&dir_npy).unwrap();
    refused(&convert(&dir_npy, &root.join("m.zarr"), &[]), &dir_npy, &[]);
    std::fs::remove_dir(&dir_npy).unwrap();
    let file_store = root.join("file.zarr");
    std::fs::write(&file_store, "not a store").unwrap();
    refused(
        &convert(&file_store, &root.join("m.npy"), &[]),
        &file_store,
        &[],
    );
    std::fs::remove_file(&file_store).unwrap();
    unchanged("misnamed");

    // Sources and destinations of unknown kinds.
    let notes = root.join("notes.txt");
    std::fs::write(&notes, "not an array").unwrap();
    let before_notes = names(root);
    refused(
        &convert(&notes, &root.join("n.zarr"), &[]),
        &notes,
        &[".npy", ".npz", ".zarr"],
    );
    let odd = root.join("out.txt");
    refused(&convert(&npy, &odd, &[]), &odd, &[".npy", ".npz", ".zarr"]);
    refused(
        &convert(&store, &odd, &[]),
        &odd,
        &[".npy", ".npz", ".zarr"],
    );
    assert_eq!(
        names(root),
        before_notes,
        "unknown kinds: something written"
    );
    std::fs::remove_file(&notes).unwrap();

    // Arrays not one-dimensional.
    let grid = files.path("grid.npy");
    refused(
        &convert(&grid, &root.join("grid.zarr"), &[]),
        &grid,
        &["[3, 4]", "one-dimensional"],
    );
    let zerod = files.path("zerod.npy");
    refused(
        &convert(&zerod, &root.join("zerod.zarr"), &[]),
        &zerod,
        &["[]", "one-dimensional"],
    );
    unchanged("n-d");

    // A .npy cut short, in its data and in its header: no store, and no
    // hidden `.NAME.*.partial` directory, left behind.
    let whole = std::fs::read(&npy).unwrap();
    for (name, len) in [
        ("cut_data", whole.len() - 1),
        ("cut_half", whole.len() / 2),
        ("cut_header", 60),
        ("cut_magic", 4),
    ] {
        let cut = root.join(format!("{name}.npy"));
        std::fs::write(&cut, &whole[..len]).unwrap();
        let dst = root.join(format!("{name}.zarr"));
        for format in ["2", "3"] {
            refused(&convert(&cut, &dst, &["--zarr-format", format]), &cut, &[]);
            assert!(!dst.exists(), "{name}: {} exists", dst.display());
            no_partial(root);
        }
        std::fs::remove_file(&cut).unwrap();
    }
    unchanged("cut short");

    // A bool byte that is neither 0 nor 1, in the last record: refused
    // naming the record and the field, nothing left behind.
    let mut bad = whole.clone();
    let header_len = bad.len() - N * 32;
    bad[header_len + (N - 1) * 32 + 18] = 7;
    let bad_npy = root.join("bad_bool.npy");
    std::fs::write(&bad_npy, &bad).unwrap();
    let dst = root.join("bad_bool.zarr");
    refused(
        &convert(&bad_npy, &dst, &[]),
        &bad_npy,
        &[&format!("record {}", N - 1), "`ok`", "7"],
    );
    assert!(!dst.exists());
    no_partial(root);
    std::fs::remove_file(&bad_npy).unwrap();

    // A store whose chunk is cut short: no .npy or .npz left behind, nor a
    // temporary file.
    let broken = root.join("broken.zarr");
    converted(
        convert(&npy, &broken, &["--chunk-len", "100", "--codec", "none"]),
        "broken",
    );
    let chunk = broken.join("c/3");
    let bytes = std::fs::read(&chunk).unwrap();
    std::fs::write(&chunk, &bytes[..bytes.len() - 5]).unwrap();
    let before = names(root);
    for out in ["broken.npy", "broken.npz"] {
        let dst = root.join(out);
        refused(&convert(&broken, &dst, &[]), &broken, &[]);
        assert!(!dst.exists(), "{out} left behind");
        assert_eq!(names(root), before, "{out}: something left behind");
    }
}

/// Errors about options say what to type and name the path; they leave
/// nothing behind. All problems are collected and reported together.
#[test]
fn option_errors_name_the_path_and_speak_the_command_line() {
    let files = Files::new();
    let root = files.dir.path();
    let npy = files.path("nested.npy");
    let mut problems = Vec::new();

    let mut check = |name: &str, src: &Path, args: &[&str], forbidden: &[&str]| {
        let dst = root.join(format!("{name}.zarr"));
        let run = convert(src, &dst, args);
        if dst.exists() {
            problems.push(format!("{name}: {} was written", dst.display()));
        }
        if names(root).iter().any(|n| n.starts_with('.')) {
            problems.push(format!("{name}: a hidden directory left behind"));
        }
        match run.code {
            // A usage error from the option parser is fine.
            Some(2) => {}
            Some(1) => {
                let named = run.stderr.contains(&src.display().to_string())
                    || run.stderr.contains(&dst.display().to_string());
                if !named || !run.stderr.starts_with("ndl: error: ") {
                    problems.push(format!("{name}: the error names no path: {:?}", run.stderr));
                }
                for word in forbidden {
                    if run.stderr.contains(word) {
                        problems.push(format!(
                            "{name}: the error speaks Rust ({word}), not the command line: {:?}",
                            run.stderr
                        ));
                    }
                }
            }
            _ => problems.push(format!("{name}: {run:?}")),
        }
    };
    check("chunk0", &npy, &["--chunk-len", "0"], &[]);
    // An array of records has no columns: the columns layout says so.
    let array_of_records = root.join("aor.npy");
    common::run_python(
        "import sys, numpy as np\n\
         np.save(sys.argv[1], np.zeros(5, [('i', '<i4'), ('p', [('x', '<f4')], (2,))]))",
        &[array_of_records.to_str().unwrap()],
    );
    check(
        "columns",
        &array_of_records,
        &["--layout", "columns"],
        &["Layout::", "ZarrFormat::"],
    );
    // v3 `struct` has no subarray fields.
    let sub = root.join("sub.npy");
    common::run_python(
        "import sys, numpy as np\n\
         np.save(sys.argv[1], np.zeros(5, [('i', '<i4'), ('xy', '<f4', (2,))]))",
        &[sub.to_str().unwrap()],
    );
    check("sub", &sub, &[], &["Layout::", "ZarrFormat::"]);

    // The record of a bad bool is named once.
    let mut bad = std::fs::read(&npy).unwrap();
    let header_len = bad.len() - N * 32;
    bad[header_len + 2 * 32 + 18] = 7;
    let bad_npy = root.join("bad.npy");
    std::fs::write(&bad_npy, &bad).unwrap();
    let run = convert(&bad_npy, &root.join("bad.zarr"), &[]);
    if run.stderr.matches("record 2").count() != 1 {
        problems.push(format!(
            "bad bool: `record 2` said more than once: {:?}",
            run.stderr
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The record dimension (v3 `dimension_names`, v2 `_ARRAY_DIMENSIONS`,
/// which xarray reads) is named after the store, as `WriteOptions` documents,
/// not after the hidden directory it was built in.
#[test]
fn the_record_dimension_is_named_after_the_store() {
    let files = Files::new();
    let root = files.dir.path();
    let v3 = root.join("readings.zarr");
    converted(convert(&files.path("nested.npy"), &v3, &[]), "v3");
    let v2 = root.join("readings_v2.zarr");
    converted(
        convert(&files.path("nested.npy"), &v2, &["--zarr-format", "2"]),
        "v2",
    );
    let v3_names = json(&v3.join("zarr.json"))["dimension_names"].clone();
    let v2_names = json(&v2.join(".zattrs"))["_ARRAY_DIMENSIONS"].clone();
    assert_eq!(
        (v3_names, v2_names),
        (
            serde_json::json!(["readings"]),
            serde_json::json!(["readings_v2"])
        )
    );
}

// ---- 4. describe STORE -------------------------------------------------------

/// A store to describe, and what its description must say.
struct Described {
    store: PathBuf,
    chunk: usize,
    endian: ByteOrder,
    /// The compressor's `name` in the NDL `filter`.
    codec: &'static str,
}

/// The stores of test 4: ours v3 (both byte orders) and v2, zarr-python
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
                ok(describe(&d.store, format), &format!("{name} {format}")),
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

// ---- 5. the NDL storage round trip ------------------------------------------

/// Describe a store as NDL, write the same records with
/// `WriteOptions::from_storage` of its `storage`, describe that: the same
/// text. Every codec, levels other than the default, both byte orders,
/// stores made by `ndl convert` and by zarr-python 3.4.
#[test]
fn ndl_storage_round_trips_through_write_options() {
    let files = Files::new();
    let first = tempfile::tempdir().unwrap();
    let data = records();
    let cases: &[(&str, &[&str])] = &[
        ("nested", &["--codec", "zstd:7"]),
        ("nested", &["--codec", "zstd:-2", "--chunk-len", "300"]),
        ("nested", &["--codec", "gzip:2", "--chunk-len", "100"]),
        ("nested", &["--codec", "gzip"]),
        ("nested", &["--codec", "blosc:3", "--chunk-len", "64"]),
        ("nested", &["--codec", "blosc", "--zarr-format", "2"]),
        ("nested", &["--codec", "none", "--chunk-len", "7"]),
        (
            "nested",
            &[
                "--codec",
                "none",
                "--zarr-format",
                "2",
                "--chunk-len",
                "333",
            ],
        ),
        ("nested_big", &["--codec", "zstd:12", "--chunk-len", "250"]),
        ("nested_big", &["--codec", "gzip:1", "--zarr-format", "2"]),
        ("nested_big", &["--codec", "blosc:9"]),
        ("nested_big", &["--codec", "none"]),
    ];
    let mut sources = Vec::new();
    for (i, (npy, args)) in cases.iter().enumerate() {
        let dir = first.path().join(i.to_string());
        std::fs::create_dir(&dir).unwrap();
        let store = dir.join("r.zarr");
        converted(
            convert(&files.path(&format!("{npy}.npy")), &store, args),
            &format!("{npy} {args:?}"),
        );
        sources.push((format!("{npy} {args:?}"), store));
    }
    // And zarr-python's own stores (zstd level 0; blosc, big-endian, v2).
    let py_dir = first.path().join("py");
    std::fs::create_dir(&py_dir).unwrap();
    common::run_with(
        &common::python312(),
        &py(ZARR_PYTHON_WRITES),
        &[
            files.path("nested.npy").to_str().unwrap(),
            py_dir.to_str().unwrap(),
        ],
    );
    for name in ["py_v3", "py_v2"] {
        sources.push((name.into(), py_dir.join(format!("{name}.zarr"))));
    }

    let second = tempfile::tempdir().unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for (i, (what, store)) in sources.iter().enumerate() {
        let text = ok(describe(store, "ndl"), what);
        let doc = NdlFile::from_yaml(&text).unwrap_or_else(|e| panic!("{what}: {e}\n{text}"));
        let stem = store.file_stem().unwrap().to_str().unwrap();
        let nd = doc.ndarray(&format!("/{stem}")).expect("the ndarray");
        let storage = nd.storage.clone();
        assert!(
            storage.filter.is_some() && storage.chunk.is_some(),
            "{what}: {storage:?}"
        );
        let options = WriteOptions::from_storage(&storage)
            .unwrap_or_else(|e| panic!("{what}: from_storage({storage:?}): {e}"));
        seen.insert(format!("{:?}", storage.endian));

        // The same records, from the Rust type.
        assert_eq!(
            ndl_zarr::read::<Rec>(store).unwrap(),
            data,
            "{what}: the source"
        );
        let dir = second.path().join(i.to_string());
        std::fs::create_dir(&dir).unwrap();
        let again = dir.join(store.file_name().unwrap());
        options
            .write(&again, &data)
            .unwrap_or_else(|e| panic!("{what}: write with {options:?}: {e}"));
        assert_eq!(
            ndl_zarr::read::<Rec>(&again).unwrap(),
            data,
            "{what}: again"
        );
        let text_again = ok(describe(&again, "ndl"), what);
        assert_eq!(text_again, text, "{what}: written with {options:?}");
        // zarr-python reads the copy as the original, in its byte order.
        let npy = if storage.endian == Some(ByteOrder::Big) {
            "nested_big.npy"
        } else {
            "nested.npy"
        };
        check_store_312(&again, &files.path(npy));
    }
    assert_eq!(seen.len(), 2, "both byte orders: {seen:?}");
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Small {
    a: u8,
    b: f64,
}

/// argv: directory, N. zarr-python 3.4 writes v3 stores of `Small`
/// records (chunks of 64) with the compressors named here.
const ZARR_PYTHON_CODECS: &str = r#"
import warnings
warnings.simplefilter('ignore')
import zarr
from zarr.codecs import BloscCodec, GzipCodec, ZstdCodec
out, n = sys.argv[1], int(sys.argv[2])
i = np.arange(n)
a = np.zeros(n, [('a', 'u1'), ('b', '<f8')])
a['a'] = i % 256
a['b'] = i * 1.5
codecs = {
    'blosc_lz4_shuffle': BloscCodec(cname='lz4', clevel=4, shuffle='shuffle'),
    'zstd_5': ZstdCodec(level=5),
    'gzip_4': GzipCodec(level=4),
    'none': None,
    'blosc_lz4_bitshuffle': BloscCodec(cname='lz4', clevel=5, shuffle='bitshuffle'),
    'blosc_lz4_noshuffle': BloscCodec(cname='lz4', clevel=5, shuffle='noshuffle'),
    'blosc_lz4_blocksize': BloscCodec(cname='lz4', clevel=5, shuffle='shuffle', blocksize=4096),
    'blosc_zstd': BloscCodec(cname='zstd', clevel=5, shuffle='shuffle'),
    'zstd_checksum': ZstdCodec(level=3, checksum=True),
}
for name, c in codecs.items():
    z = zarr.create_array(store=f'{out}/{name}/s.zarr', shape=(n,), chunks=(64,), dtype=a.dtype,
                          compressors=c)
    z[:] = a
    print(name)
"#;

/// `WriteOptions::from_storage` either refuses a `filter` it cannot write
/// or writes exactly that filter: a store written with the options has the
/// `storage` of the NDL it came from. zarr-python's stores, with the blosc
/// and zstd settings a user can choose, are the sources.
#[test]
fn from_storage_reproduces_or_refuses_every_filter() {
    let first = tempfile::tempdir().unwrap();
    let second = tempfile::tempdir().unwrap();
    let made = common::run_with(
        &common::python312(),
        &py(ZARR_PYTHON_CODECS),
        &[first.path().to_str().unwrap(), &N.to_string()],
    );
    let data: Vec<Small> = (0..N)
        .map(|i| Small {
            a: (i % 256) as u8,
            b: i as f64 * 1.5,
        })
        .collect();
    let mut problems = Vec::new();
    let mut written = 0;
    for name in made.split_whitespace() {
        let store = first.path().join(name).join("s.zarr");
        assert_eq!(ndl_zarr::read::<Small>(&store).unwrap(), data, "{name}");
        let text = ok(describe(&store, "ndl"), name);
        let doc = NdlFile::from_yaml(&text).unwrap();
        let storage = doc.ndarray("/s").unwrap().storage.clone();
        let Ok(options) = WriteOptions::from_storage(&storage) else {
            // Refused: fine, nothing is pretended.
            continue;
        };
        let dir = second.path().join(name);
        std::fs::create_dir(&dir).unwrap();
        let again = dir.join("s.zarr");
        options.write(&again, &data).unwrap();
        written += 1;
        let again_text = ok(describe(&again, "ndl"), name);
        let again_storage = NdlFile::from_yaml(&again_text)
            .unwrap()
            .ndarray("/s")
            .unwrap()
            .storage
            .clone();
        if again_storage != storage {
            problems.push(format!(
                "{name}: from_storage accepted\n{:?}\nbut the store written has\n{:?}",
                storage.filter, again_storage.filter
            ));
        }
    }
    assert!(written >= 4, "the plain codecs are written: {written}");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// ---- 6. no progress bar off a terminal ------------------------------------

/// An array larger than one batch (32 MiB) converts both ways with nothing
/// on stderr (not a terminal), and the records across the batch
/// boundaries are right.
#[test]
fn no_progress_bar_when_stderr_is_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let npy = dir.path().join("large.npy");
    let n = 1_500_000usize;
    common::run_python(
        &py("dt = np.dtype([('a', 'u1'), ('b', '<f8'), ('c', '<u2'), ('ok', '?'), ('code', 'S4')], align=True)\n\
             n = int(sys.argv[2]); i = np.arange(n)\n\
             a = np.zeros(n, dt); a['a'] = i % 251; a['b'] = i * 0.5; a['c'] = i % 65536; a['ok'] = i % 3 == 0\n\
             a['code'] = np.char.mod(b'%d', i % 10000).astype('S4')\n\
             assert a.nbytes > 32 << 20\n\
             np.save(sys.argv[1], a)"),
        &[npy.to_str().unwrap(), &n.to_string()],
    );
    let store = dir.path().join("large.zarr");
    // Chunks of 700 000 records: batches (about 1.4 M records each way)
    // end inside chunks, which are completed by the next batch.
    let run = convert(&npy, &store, &["--chunk-len", "700000"]);
    converted(run, "to a store");
    let chunks = chunk_files(&store);
    assert_eq!(chunks.len(), 3);
    let back = dir.path().join("large_back.npy");
    converted(convert(&store, &back, &[]), "to .npy");
    let back_npz = dir.path().join("large_back.npz");
    converted(convert(&store, &back_npz, &[]), "to .npz");
    check_back(&back, &npy, "");
    check_back(&back_npz, &npy, "large");
}

/// Any two formats convert, the same as pairs across them: file to file,
/// store to store, records to columns and back, v3 to v2; the values
/// survive every step, as NumPy reads them.
#[test]
fn any_two_formats_convert() {
    let files = Files::new();
    let root = files.dir.path();
    let npy = files.path("nested.npy");
    let steps = [
        (root.join("a.npz"), vec![]),
        (root.join("b.zarr"), vec![]),
        (
            root.join("c.zarr"),
            vec!["--layout", "columns", "--zarr-format", "2"],
        ),
        (root.join("d.zarr"), vec!["--zarr-format", "2"]),
        (root.join("e.npz"), vec![]),
        (root.join("f.npy"), vec![]),
    ];
    let mut src = npy.clone();
    for (dst, args) in &steps {
        converted(convert(&src, dst, args), &dst.display().to_string());
        src = dst.clone();
    }
    let same = common::run_python(
        "import sys, numpy as np\n\
         a, b = np.load(sys.argv[1]), np.load(sys.argv[2])\n\
         print(a.dtype.names == b.dtype.names and a.tolist() == b.tolist())",
        &[npy.to_str().unwrap(), src.to_str().unwrap()],
    );
    assert_eq!(same.trim(), "True", "values changed on the way");
}

/// The codec names `ndl convert --help` offers, read from the help itself:
/// `none, zstd, blosc, gzip or zlib` after "each chunk:".
fn offered_codecs() -> Vec<String> {
    let help = ok(ndl(&["convert", "--help"]), "convert --help");
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    let list = help
        .split_once("each chunk: ")
        .and_then(|(_, rest)| rest.split_once(", each but"))
        .map(|(list, _)| list.to_owned())
        .unwrap_or_else(|| panic!("no codec list in the help: {help}"));
    list.replace(" or ", ", ")
        .split(", ")
        .map(str::to_owned)
        .collect()
}

/// Every codec the help offers converts, with and without a level (but
/// none), and the store reads back to the same records.
#[test]
fn every_codec_the_help_offers_converts() {
    let files = Files::new();
    let root = files.dir.path();
    let npy = files.path("nested.npy");
    let codecs = offered_codecs();
    assert!(codecs.len() >= 5, "{codecs:?}");
    for codec in &codecs {
        let mut spellings = vec![codec.clone()];
        if codec != "none" {
            spellings.push(format!("{codec}:1"));
        }
        for spelling in spellings {
            let store = root.join(format!("{}.zarr", spelling.replace(':', "_")));
            converted(
                convert(&npy, &store, &["--codec", &spelling]),
                &format!("--codec {spelling}"),
            );
            let back = root.join(format!("{}.npy", spelling.replace(':', "_")));
            converted(convert(&store, &back, &[]), &format!("{spelling} back"));
            let same = common::run_python(
                "import sys, numpy as np\n\
                 a, b = np.load(sys.argv[1]), np.load(sys.argv[2])\n\
                 print(a.tolist() == b.tolist())",
                &[npy.to_str().unwrap(), back.to_str().unwrap()],
            );
            assert_eq!(same.trim(), "True", "--codec {spelling}: values changed");
        }
    }
}

/// `ndl unlock` of a local store: a place with no store is an error (not
/// "not locked"), a stale lock is removed, a live one is kept.
#[test]
fn unlock_a_local_store() {
    let files = Files::new();
    let root = files.dir.path();
    let missing = root.join("missing.zarr");
    refused(
        &ndl(&["unlock", missing.to_str().unwrap()]),
        &missing,
        &["no Zarr"],
    );
    let store = root.join("s.zarr");
    converted(convert(&files.path("nested.npy"), &store, &[]), "the store");
    let lock = store.join(".ndl-append.lock");
    let live = "{\"host\":\"elsewhere\",\"pid\":7,\"taken_ms\":0,\"expires_ms\":99999999999999}";
    std::fs::write(&lock, live).unwrap();
    refused(
        &ndl(&["unlock", store.to_str().unwrap()]),
        &store,
        &["live"],
    );
    assert_eq!(std::fs::read_to_string(&lock).unwrap(), live);
    std::fs::write(&lock, live.replace("99999999999999", "1000")).unwrap();
    let out = ok(ndl(&["unlock", store.to_str().unwrap()]), "unlock");
    assert!(out.contains("removed the stale lock"), "{out}");
    assert!(!lock.exists());
}
