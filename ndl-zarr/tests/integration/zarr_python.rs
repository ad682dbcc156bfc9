//! Records in Zarr stores, checked by the real consumers: zarr-python 3.4
//! (Python 3.12) and 3.1 (Python 3.11) open what we write and equal an
//! independently written numpy dtype; what they write reads back into the
//! Rust type; Dask computes on our stores.
//!
//! Every record type has its values from its index `i`, by the same
//! formula here (`make`) and in Python (`FILL`); `DTYPE` is the packed
//! numpy dtype written by hand, not derived from ndl.

use ndl_testkit::every_enum_base;

use std::path::{Path, PathBuf};

use ndl_runtime::{ByteOrder, NdlType};
use ndl_zarr::{Codec, WriteOptions, ZarrFormat};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/records.py");
const N: u32 = 1000;
const CHUNK: u64 = 64;

/// A record type with its values and its Python description.
trait Form: NdlType + Send + Sync + PartialEq + std::fmt::Debug + ndl_runtime::Record {
    /// The packed numpy dtype, as a Python expression.
    const DTYPE: &'static str;
    /// Python code filling `exp` from the indices `i`.
    const FILL: &'static str;
    /// Whether zarr-python 3.1 reads it as a v2 structured dtype (it
    /// refuses nested ones).
    const FLAT: bool = true;
    fn make(i: u32) -> Self;
}

fn records<F: Form>() -> Vec<F> {
    (0..N).map(F::make).collect()
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Padded {
    a: u8,
    b: f64,
    c: u16,
}

impl Form for Padded {
    const DTYPE: &'static str = "[('a', 'u1'), ('b', '<f8'), ('c', '<u2')]";
    const FILL: &'static str =
        "exp['a'] = i % 251; exp['b'] = i * 0.5 - 3.0; exp['c'] = i * 7 % 65536";
    fn make(i: u32) -> Padded {
        Padded {
            a: (i % 251) as u8,
            b: f64::from(i) * 0.5 - 3.0,
            c: (i * 7 % 65536) as u16,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C, packed)]
struct Packed {
    a: u8,
    b: f64,
}

impl Form for Packed {
    const DTYPE: &'static str = "[('a', 'u1'), ('b', '<f8')]";
    const FILL: &'static str = "exp['a'] = i % 256; exp['b'] = -i / 3";
    fn make(i: u32) -> Packed {
        Packed {
            a: (i % 256) as u8,
            b: -f64::from(i) / 3.0,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C, align(16))]
struct Aligned {
    a: u32,
    b: i16,
}

impl Form for Aligned {
    const DTYPE: &'static str = "[('a', '<u4'), ('b', '<i2')]";
    const FILL: &'static str = "exp['a'] = i * 1000; exp['b'] = -(i % 300)";
    fn make(i: u32) -> Aligned {
        Aligned {
            a: i * 1000,
            b: -((i % 300) as i16),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Point {
    x: f32,
    y: f32,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(u8)]
enum Color {
    Red = 0,
    Green = 1,
    Blue = 7,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Nested {
    id: u32,
    p: Point,
    ok: bool,
    color: Color,
    t: f64,
}

impl Form for Nested {
    const DTYPE: &'static str = "[('id', '<u4'), ('p', [('x', '<f4'), ('y', '<f4')]), ('ok', '?'), ('color', 'u1'), ('t', '<f8')]";
    const FILL: &'static str = "exp['id'] = i; exp['p']['x'] = i * 0.25; exp['p']['y'] = -i; \
        exp['ok'] = i % 3 == 0; exp['color'] = np.array([0, 1, 7])[i % 3]; exp['t'] = i * 1e-3";
    const FLAT: bool = false;
    fn make(i: u32) -> Nested {
        Nested {
            id: i,
            p: Point {
                x: i as f32 * 0.25,
                y: -(i as f32),
            },
            ok: i.is_multiple_of(3),
            color: [Color::Red, Color::Green, Color::Blue][(i % 3) as usize],
            t: f64::from(i) * 1e-3,
        }
    }
}

every_enum_base!();

/// An enum of every integer base, with padding between them.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Enums {
    a: EU8,
    b: EI8,
    c: EU16,
    d: EI16,
    e: EU32,
    f: EI32,
    g: EU64,
    h: EI64,
}

impl Form for Enums {
    const DTYPE: &'static str = "[('a', 'u1'), ('b', 'i1'), ('c', '<u2'), ('d', '<i2'), ('e', '<u4'), ('f', '<i4'), ('g', '<u8'), ('h', '<i8')]";
    const FILL: &'static str = "for name, t in zip('abcdefgh', ['u1', 'i1', 'u2', 'i2', 'u4', 'i4', 'u8', 'i8']):\n    \
        info = np.iinfo(t)\n    exp[name] = np.array([info.min, 1, info.max], dtype=t)[i % 3]";
    fn make(i: u32) -> Enums {
        Enums {
            a: EU8::of(i),
            b: EI8::of(i),
            c: EU16::of(i),
            d: EI16::of(i),
            e: EU32::of(i),
            f: EI32::of(i),
            g: EU64::of(i),
            h: EI64::of(i),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Strings {
    #[ndl(string)]
    code: [u8; 5],
    #[ndl(string)]
    wide: [u32; 3],
    n: i16,
}

impl Form for Strings {
    const DTYPE: &'static str = "[('code', 'S5'), ('wide', '<U3'), ('n', '<i2')]";
    const FILL: &'static str = "exp['code'] = [('c%d' % k).encode() for k in i]; \
        exp['wide'] = ['ab' + chr(97 + k % 26) for k in i]; exp['n'] = -(i % 1000)";
    fn make(i: u32) -> Strings {
        let mut code = [0u8; 5];
        let text = format!("c{i}");
        code[..text.len()].copy_from_slice(text.as_bytes());
        Strings {
            code,
            wide: ['a' as u32, 'b' as u32, 'a' as u32 + i % 26],
            n: -((i % 1000) as i16),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct WithArray {
    id: u32,
    xy: [f32; 2],
    flags: [u8; 3],
}

impl Form for WithArray {
    const DTYPE: &'static str = "[('id', '<u4'), ('xy', '<f4', (2,)), ('flags', 'u1', (3,))]";
    const FILL: &'static str = "exp['id'] = i; exp['xy'][:, 0] = i * 0.5; exp['xy'][:, 1] = -i; \
        exp['flags'] = np.stack([i % 2, i % 3, i % 5], axis=1)";
    fn make(i: u32) -> WithArray {
        WithArray {
            id: i,
            xy: [i as f32 * 0.5, -(i as f32)],
            flags: [(i % 2) as u8, (i % 3) as u8, (i % 5) as u8],
        }
    }
}

/// Runs tests/python/records.py with `python`; asserts it succeeded.
fn script(python: &Path, args: &[&str]) -> String {
    ndl_testkit::run_file(python, Path::new(SCRIPT), args)
}

fn python_check(python: &Path, command: &str, store: &Path, dtype: &str, fill: &str) -> String {
    let out = script(
        python,
        &[
            command,
            store.to_str().unwrap(),
            &N.to_string(),
            dtype,
            fill,
        ],
    );
    assert!(out.starts_with("ok"), "{out}");
    out
}

/// The big-endian spelling of a dtype written with `<`.
fn big(dtype: &str) -> String {
    dtype.replace('<', ">")
}

struct Stores {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Stores {
    fn new() -> Stores {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        Stores { _dir: dir, root }
    }

    /// Writes the form's records with `options` to a new store, checks our
    /// own read, and returns the store's path.
    fn write<F: Form>(&self, name: &str, options: &WriteOptions) -> PathBuf {
        let path = self.root.join(format!("{name}.zarr"));
        let data = records::<F>();
        options
            .clone()
            .chunk_len(CHUNK)
            .write(&path, &data)
            .unwrap();
        assert_eq!(
            ndl_zarr::read::<F>(&path).unwrap(),
            data,
            "{name}: our own read"
        );
        path
    }
}

/// Every way we write a form, checked by each zarr-python that can read it.
fn through_zarr_python<F: Form>() {
    let stores = Stores::new();
    let py312 = ndl_testkit::python312();
    let py311 = ndl_testkit::python();

    let v3 = stores.write::<F>("v3", &WriteOptions::new());
    python_check(&py312, "check", &v3, F::DTYPE, F::FILL);

    let v3_big = stores.write::<F>("v3_big", &WriteOptions::new().byte_order(ByteOrder::Big));
    python_check(&py312, "check", &v3_big, &big(F::DTYPE), F::FILL);

    let v2 = stores.write::<F>(
        "v2",
        &WriteOptions::new()
            .zarr_format(ZarrFormat::V2)
            .codec(Codec::Blosc(5)),
    );
    python_check(&py312, "check", &v2, F::DTYPE, F::FILL);
    if F::FLAT {
        python_check(&py311, "check", &v2, F::DTYPE, F::FILL);
    }
    let v2_big = stores.write::<F>(
        "v2_big",
        &WriteOptions::new()
            .zarr_format(ZarrFormat::V2)
            .byte_order(ByteOrder::Big)
            .codec(Codec::Gzip(5)),
    );
    python_check(&py312, "check", &v2_big, &big(F::DTYPE), F::FILL);

    // zarr-python 3.1 reads the legacy `structured` name, little-endian
    // only (its big-endian struct reads are wrong: zarr-python issue 4141).
    let legacy = stores.write::<F>(
        "legacy",
        &WriteOptions::new()
            .legacy_structured(true)
            .codec(Codec::None),
    );
    python_check(&py311, "check", &legacy, F::DTYPE, F::FILL);

    // Sharded: zarr-python 3.1 cannot shard structured arrays (issue 3054).
    let sharded = stores.write::<F>("sharded", &WriteOptions::new().shard_len(CHUNK * 4));
    python_check(&py312, "check", &sharded, F::DTYPE, F::FILL);
}

#[test]
fn padded_records() {
    through_zarr_python::<Padded>();
}

#[test]
fn packed_records() {
    through_zarr_python::<Packed>();
}

#[test]
fn aligned_records() {
    through_zarr_python::<Aligned>();
}

#[test]
fn nested_records_with_bool_and_enum() {
    through_zarr_python::<Nested>();
}

#[test]
fn enums_of_every_base() {
    through_zarr_python::<Enums>();
}

#[test]
fn fixed_strings() {
    through_zarr_python::<Strings>();
}

/// v3 `struct` has no array fields: refused, naming the field and the way
/// out. In v2 they are `[name, dtype, shape]`, which zarr-python 3 refuses
/// to open; numcodecs and numpy decode the chunks instead.
#[test]
fn array_fields_are_v2_only() {
    let stores = Stores::new();
    let err = WriteOptions::new()
        .write(stores.root.join("v3.zarr"), &records::<WithArray>())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("xy") && err.contains("columns layout") && err.contains("Zarr v2"),
        "{err}"
    );
    assert!(!stores.root.join("v3.zarr").exists());

    let v2 = stores.write::<WithArray>("v2", &WriteOptions::new().zarr_format(ZarrFormat::V2));
    python_check(
        &ndl_testkit::python(),
        "chunks",
        &v2,
        WithArray::DTYPE,
        WithArray::FILL,
    );
    let v2 = stores.write::<WithArray>(
        "v2_none",
        &WriteOptions::new()
            .zarr_format(ZarrFormat::V2)
            .codec(Codec::None),
    );
    python_check(
        &ndl_testkit::python312(),
        "chunks",
        &v2,
        WithArray::DTYPE,
        WithArray::FILL,
    );
}

/// Stores zarr-python writes, v2 and v3, with every codec, read back.
fn written_by<F: Form>(python: &Path, formats: &[u32]) {
    let stores = Stores::new();
    for &format in formats {
        for codec in ["zstd", "blosc", "gzip", "none"] {
            let path = stores.root.join(format!("{format}-{codec}.zarr"));
            let n = N.to_string();
            script(
                python,
                &[
                    "write",
                    path.to_str().unwrap(),
                    &n,
                    F::DTYPE,
                    F::FILL,
                    &format.to_string(),
                    codec,
                    "100",
                ],
            );
            let back =
                ndl_zarr::read::<F>(&path).unwrap_or_else(|e| panic!("v{format} {codec}: {e}"));
            assert_eq!(back, records::<F>(), "v{format} {codec}");
            assert_eq!(
                ndl_zarr::read_range::<F>(&path, 150..420).unwrap(),
                records::<F>()[150..420]
            );
        }
    }
}

#[test]
fn stores_written_by_zarr_python_3_4() {
    written_by::<Padded>(&ndl_testkit::python312(), &[2, 3]);
    written_by::<Nested>(&ndl_testkit::python312(), &[2, 3]);
    written_by::<Strings>(&ndl_testkit::python312(), &[2, 3]);
}

#[test]
fn stores_written_by_zarr_python_3_1() {
    written_by::<Padded>(&ndl_testkit::python(), &[2, 3]);
    written_by::<Enums>(&ndl_testkit::python(), &[2, 3]);
}

/// A store of one record type read as another names the field.
#[test]
fn mismatching_types_are_refused_naming_the_field() {
    let stores = Stores::new();
    let path = stores.root.join("p.zarr");
    let n = N.to_string();
    script(
        &ndl_testkit::python312(),
        &[
            "write",
            path.to_str().unwrap(),
            &n,
            Padded::DTYPE,
            Padded::FILL,
            "3",
            "zstd",
            "100",
        ],
    );
    let err = ndl_zarr::read::<Packed>(&path).unwrap_err();
    assert!(
        matches!(err, ndl_zarr::Error::TypeMismatch { ref field, .. } if field == "c"),
        "{err}"
    );
    let err = ndl_zarr::read::<Aligned>(&path).unwrap_err().to_string();
    assert!(err.contains("field 'a'"), "{err}");
}

/// Dask computes on our stores, v2 and v3: the sums of fields equal ours.
#[test]
fn dask_computes_on_our_stores() {
    let stores = Stores::new();
    let data = records::<Nested>();
    let sum_t: f64 = data.iter().map(|r| r.t).sum();
    let sum_x: f64 = data.iter().map(|r| f64::from(r.p.x)).sum();
    for (name, options) in [
        ("v3", WriteOptions::new()),
        ("v2", WriteOptions::new().zarr_format(ZarrFormat::V2)),
    ] {
        let path = stores.write::<Nested>(name, &options);
        let out = ndl_testkit::run_with(
            &ndl_testkit::python312(),
            "import sys, dask.array as da\n\
             x = da.from_zarr(sys.argv[1])\n\
             assert x.chunks == ((64,) * 15 + (40,),), x.chunks\n\
             print(float(x['t'].sum().compute()), float(x['p']['x'].astype('f8').sum().compute()))",
            &[path.to_str().unwrap()],
        );
        let sums: Vec<f64> = out.split_whitespace().map(|s| s.parse().unwrap()).collect();
        assert!(
            (sums[0] - sum_t).abs() < 1e-9,
            "{name}: {sums:?} vs {sum_t}"
        );
        assert!(
            (sums[1] - sum_x).abs() < 1e-6,
            "{name}: {sums:?} vs {sum_x}"
        );
    }
}

/// xarray opens a group, whose arrays are a Dataset's variables, and a
/// records store is one array at its root: `xr.open_zarr` and
/// `xr.open_dataset(engine="zarr")` refuse it, v3 and v2, whatever its
/// metadata says. The data type is not the obstacle: the same array
/// copied into a group opens, with its records and its dimension. What a
/// user does instead is wrap the array, `xr.DataArray(da.from_zarr(path),
/// dims=...)`, or write the columns layout, a group xarray opens.
#[test]
fn xarray_opens_a_group_not_a_records_array() {
    let stores = Stores::new();
    for (name, options, error) in [
        ("v3", WriteOptions::new(), "ContainsArrayError"),
        (
            "v2",
            WriteOptions::new().zarr_format(ZarrFormat::V2),
            "GroupNotFoundError",
        ),
    ] {
        let path = stores.write::<Nested>(name, &options);
        let out = script(
            &ndl_testkit::python312(),
            &[
                "xarray",
                path.to_str().unwrap(),
                &N.to_string(),
                Nested::DTYPE,
                Nested::FILL,
            ],
        );
        let seen: serde_json::Value = serde_json::from_str(&out).unwrap();
        let refusals = seen["refusals"].as_array().unwrap();
        assert_eq!(refusals.len(), 2, "{name}: {seen}");
        for refusal in refusals {
            assert_eq!(refusal["error"], error, "{name}: {refusal}");
        }
        assert_eq!(seen["dims"], serde_json::json!([name]), "{name}");
        assert_eq!(seen["in_group"], serde_json::json!([name]), "{name}");
    }
}
