//! The columns layout, checked by its real consumers: xarray over
//! zarr-python 3.1 and 3.4, Debian's ncdump, netCDF4-python, Dask; and read
//! back into records, whole or by a subset of the fields.

use ndl_testkit::every_enum_base;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use ndl_runtime::{ByteOrder, NdlType};
use ndl_zarr::{ArrayWriter, Codec, Layout, WriteOptions, ZarrFormat};
use serde_json::Value;

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/columns.py");
const N: u32 = 50;

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Pos {
    x: f32,
    /// Height above the ground.
    #[ndl(units = "m")]
    z: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(u16)]
enum Sky {
    Clear = 8,
    Cloudy = 9,
    Storm = 1000,
}

every_enum_base!();

/// One observation of a station.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Obs {
    /// Station number.
    id: u32,
    pos: Pos,
    ok: bool,
    sky: Sky,
    #[ndl(string)]
    code: [u8; 4],
    /// Air temperature.
    #[ndl(units = "K")]
    t: f64,
    #[ndl(dims = ["axis"], units = "m s-1")]
    wind: [f32; 2],
    grid: [[i16; 3]; 2],
    a: EU8,
    b: EI8,
    c: EU16,
    d: EI16,
    e: EU32,
    f: EI32,
    g: EU64,
    h: EI64,
}

fn obs(i: u32) -> Obs {
    let mut code = [0u8; 4];
    let text = format!("S{}", i % 100);
    code[..text.len()].copy_from_slice(text.as_bytes());
    Obs {
        id: 1000 + i,
        pos: Pos {
            x: i as f32 * 0.5,
            z: -f64::from(i) / 4.0,
        },
        ok: i % 3 == 1,
        sky: [Sky::Clear, Sky::Cloudy, Sky::Storm][(i % 3) as usize],
        code,
        t: 273.15 + f64::from(i),
        wind: [i as f32, -(i as f32)],
        grid: [[i as i16, 1, 2], [3, 4, -(i as i16)]],
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

fn records() -> Vec<Obs> {
    (0..N).map(obs).collect()
}

/// Writes the records as a columns store `name` in `dir`, checks our own
/// read, returns the path.
fn write(dir: &Path, name: &str, options: WriteOptions) -> PathBuf {
    let path = dir.join(format!("{name}.zarr"));
    options
        .layout(Layout::Columns)
        .chunk_len(16)
        .dimension("obs")
        .write(&path, &records())
        .unwrap();
    assert_eq!(
        ndl_zarr::read::<Obs>(&path).unwrap(),
        records(),
        "{name}: our read"
    );
    path
}

/// What tests/python/columns.py saw with `python` of each store (a path
/// or URL) `command` reads, in one run.
fn run_each(python: &Path, command: &str, stores: &[impl AsRef<OsStr>]) -> Vec<Value> {
    let mut args = vec![command];
    args.extend(stores.iter().map(|p| p.as_ref().to_str().unwrap()));
    let out = ndl_testkit::run_file(python, Path::new(SCRIPT), &args);
    let seen: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(seen.len(), stores.len(), "{out}");
    seen
}

/// The values a consumer saw of `var`, as f64 (numbers) or strings.
fn numbers(seen: &Value, var: &str) -> Vec<f64> {
    seen["variables"][var]["values"]
        .as_array()
        .unwrap_or_else(|| panic!("no variable {var}: {seen}"))
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect()
}

/// Checks what xarray or netCDF4 saw against the records: every column's
/// dimensions, values and attributes.
fn check_seen(seen: &Value, chars_as_text: bool) {
    let data = records();
    let vars = &seen["variables"];
    let col = |f: fn(&Obs) -> f64| data.iter().map(f).collect::<Vec<_>>();
    assert_eq!(numbers(seen, "id"), col(|r| f64::from(r.id)));
    assert_eq!(numbers(seen, "pos.x"), col(|r| f64::from(r.pos.x)));
    assert_eq!(numbers(seen, "pos.z"), col(|r| r.pos.z));
    assert_eq!(numbers(seen, "t"), col(|r| r.t));
    assert_eq!(numbers(seen, "ok"), col(|r| f64::from(u8::from(r.ok))));
    assert_eq!(numbers(seen, "sky"), col(|r| f64::from(r.sky as u16)));
    assert_eq!(vars["id"]["dims"], serde_json::json!(["obs"]));
    assert_eq!(vars["wind"]["dims"], serde_json::json!(["obs", "axis"]));
    assert_eq!(
        vars["grid"]["dims"],
        serde_json::json!(["obs", "grid_dim0", "grid_dim1"])
    );
    assert_eq!(vars["wind"]["values"][7], serde_json::json!([7.0, -7.0]));
    assert_eq!(
        vars["grid"]["values"][5],
        serde_json::json!([[5, 1, 2], [3, 4, -5]])
    );
    assert_eq!(seen["sizes"]["obs"], N);
    // Attributes: long_name and units from the derive, CF flags.
    assert_eq!(vars["id"]["attrs"]["long_name"], "Station number.");
    assert_eq!(vars["t"]["attrs"]["units"], "K");
    assert_eq!(vars["t"]["attrs"]["long_name"], "Air temperature.");
    assert_eq!(vars["pos.z"]["attrs"]["units"], "m");
    assert_eq!(vars["wind"]["attrs"]["units"], "m s-1");
    assert_eq!(vars["ok"]["attrs"]["flag_meanings"], "false true");
    assert_eq!(
        vars["ok"]["attrs"]["flag_values"],
        serde_json::json!([0, 1])
    );
    assert_eq!(
        vars["sky"]["attrs"]["flag_values"],
        serde_json::json!([8, 9, 1000])
    );
    assert_eq!(vars["sky"]["attrs"]["flag_meanings"], "Clear Cloudy Storm");
    assert_eq!(seen["attrs"]["title"], "One observation of a station.");
    // Every enum base, u64 and i64 extremes included.
    assert_eq!(vars["g"]["values"][2], serde_json::json!(u64::MAX));
    assert_eq!(vars["h"]["values"][0], serde_json::json!(i64::MIN));
    assert_eq!(
        vars["g"]["attrs"]["flag_values"],
        serde_json::json!([0, 1, u64::MAX])
    );
    assert_eq!(vars["b"]["values"][0], serde_json::json!(-128));
    // Strings: joined back by xarray, characters for netCDF.
    let codes: Vec<String> = data
        .iter()
        .map(|r| {
            String::from_utf8_lossy(&r.code)
                .trim_end_matches('\0')
                .to_string()
        })
        .collect();
    if chars_as_text {
        assert_eq!(vars["code"]["values"], serde_json::json!(codes));
    } else {
        // netCDF's characters: one text of one byte per character.
        let chars: String = vars["code"]["values"][12]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        assert_eq!(chars.as_bytes(), &data[12].code[..3]);
    }
}

#[test]
fn xarray_over_zarr_python_3_4_and_3_1() {
    let dir = tempfile::tempdir().unwrap();
    let stores = [
        ("v2", WriteOptions::new().zarr_format(ZarrFormat::V2)),
        ("v3", WriteOptions::new()),
        (
            "v3_big",
            WriteOptions::new()
                .byte_order(ByteOrder::Big)
                .codec(Codec::Blosc(5)),
        ),
        (
            "v2_none",
            WriteOptions::new()
                .zarr_format(ZarrFormat::V2)
                .codec(Codec::None),
        ),
    ]
    .map(|(name, options)| write(dir.path(), name, options));
    for python in [ndl_testkit::python312(), ndl_testkit::python()] {
        for seen in run_each(&python, "xarray", &stores) {
            check_seen(&seen, true);
        }
    }
}

/// Debian's ncdump 4.9 reads an uncompressed v2 store with characters as
/// `|u1` (it crashes on `S` dtypes): its header and data are the records'.
#[test]
fn ncdump_reads_uncompressed_v2() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "nc",
        WriteOptions::new()
            .zarr_format(ZarrFormat::V2)
            .codec(Codec::None)
            .chars_as_u1(true),
    );
    let url = format!("file://{}#mode=zarr,file", path.display());
    let out = std::process::Command::new("ncdump")
        .arg(&url)
        .output()
        .expect("ncdump runs (netcdf-bin)");
    assert!(
        out.status.success(),
        "ncdump: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    for line in [
        "\tobs = 50 ;",
        "\taxis = 2 ;",
        "\tcode_strlen = 4 ;",
        "\tuint id(obs) ;",
        "\t\tid:long_name = \"Station number.\" ;",
        "\tfloat pos.x(obs) ;",
        "\tdouble pos.z(obs) ;",
        "\t\tpos.z:units = \"m\" ;",
        "\tubyte ok(obs) ;",
        "\t\tok:flag_values = 0UB, 1UB ;",
        "\t\tok:flag_meanings = \"false true\" ;",
        "\tushort sky(obs) ;",
        "\t\tsky:flag_values = 8US, 9US, 1000US ;",
        "\t\tsky:flag_meanings = \"Clear Cloudy Storm\" ;",
        "\tubyte code(obs, code_strlen) ;",
        "\tdouble t(obs) ;",
        "\t\tt:units = \"K\" ;",
        "\tfloat wind(obs, axis) ;",
        "\tshort grid(obs, grid_dim0, grid_dim1) ;",
        "\tuint64 g(obs) ;",
        "\t\tg:flag_values = 0ULL, 1ULL, 18446744073709551615ULL ;",
        "\tint64 h(obs) ;",
        "\t\t:title = \"One observation of a station.\" ;",
    ] {
        assert!(text.contains(line), "ncdump lacks {line:?}:\n{text}");
    }
    let ids: String = (0..N).map(|i| format!("{}, ", 1000 + i)).collect();
    let ids = format!(" id = {} ;", ids.trim_end_matches(", "));
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(
            ids.split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .as_str()
        ),
        "{text}"
    );
    assert!(flat.contains("sky = 8, 9, 1000, 8, 9, 1000,"), "{text}");
    assert!(flat.contains("t = 273.15, 274.15, 275.15,"), "{text}");
}

/// netCDF4-python (libnetcdf 4.10 with codecs) opens zstd and zlib
/// compressed v2 stores, `|S1` characters included.
#[test]
fn netcdf4_python_reads_compressed_v2() {
    let dir = tempfile::tempdir().unwrap();
    let urls = [("zstd", Codec::Zstd(3)), ("zlib", Codec::Zlib(4))].map(|(name, codec)| {
        let options = WriteOptions::new().zarr_format(ZarrFormat::V2).codec(codec);
        let path = write(dir.path(), name, options);
        format!("file://{}#mode=zarr,file", path.display())
    });
    for seen in run_each(&ndl_testkit::python312(), "netcdf", &urls) {
        check_seen(&seen, false);
    }
}

/// `dask.array.from_zarr` of each column computes the records' sums.
#[test]
fn dask_sums_every_column() {
    let dir = tempfile::tempdir().unwrap();
    let data = records();
    let names = ["v2", "v3"];
    let stores = [ZarrFormat::V2, ZarrFormat::V3]
        .into_iter()
        .zip(names)
        .map(|(format, name)| write(dir.path(), name, WriteOptions::new().zarr_format(format)))
        .collect::<Vec<_>>();
    let seen = run_each(&ndl_testkit::python312(), "dask", &stores);
    for (name, sums) in names.into_iter().zip(seen) {
        let sum = |f: fn(&Obs) -> f64| data.iter().map(f).sum::<f64>();
        // Dask adds chunk by chunk: equal up to rounding.
        let check = |var: &str, want: f64| {
            let got = sums["sums"][var]
                .as_f64()
                .unwrap_or_else(|| panic!("{var}: {sums}"));
            assert!(
                (got - want).abs() <= 1e-9 * want.abs().max(1.0),
                "{name} {var}: {got} vs {want}"
            );
        };
        check("id", sum(|r| f64::from(r.id)));
        check("t", sum(|r| r.t));
        check("pos.z", sum(|r| r.pos.z));
        check("ok", sum(|r| f64::from(u8::from(r.ok))));
        check("sky", sum(|r| f64::from(r.sky as u16)));
        let grid = data
            .iter()
            .flat_map(|r| r.grid.iter().flatten())
            .map(|&v| f64::from(v))
            .sum();
        check("grid", grid);
    }
}

/// A type with some of the fields reads only their columns.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Some3 {
    t: f64,
    sky: Sky,
    #[ndl(string)]
    code: [u8; 4],
}

#[test]
fn a_subset_of_fields_reads_only_their_columns() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "s", WriteOptions::new());
    // Columns the subset does not read may be damaged or gone.
    std::fs::remove_dir_all(path.join("grid")).unwrap();
    std::fs::write(path.join("id").join("c").join("0"), b"broken").unwrap();
    let some = ndl_zarr::read::<Some3>(&path).unwrap();
    let want: Vec<Some3> = records()
        .iter()
        .map(|r| Some3 {
            t: r.t,
            sky: r.sky,
            code: r.code,
        })
        .collect();
    assert_eq!(some, want);
    assert_eq!(
        ndl_zarr::read_range::<Some3>(&path, 20..33).unwrap(),
        want[20..33]
    );
    // The whole record needs every column, and says which is missing.
    let e = ndl_zarr::read::<Obs>(&path).unwrap_err().to_string();
    assert!(e.contains("grid"), "{e}");
}

/// Appends grow every column; a bad enum value names its column.
#[test]
fn appends_and_bad_values() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.zarr");
    let mut w = ArrayWriter::<Obs>::create_with(
        &path,
        &WriteOptions::new()
            .layout(Layout::Columns)
            .zarr_format(ZarrFormat::V2)
            .codec(Codec::None)
            .chunk_len(8),
    )
    .unwrap();
    w.append(&records()[..13]).unwrap();
    w.finish().unwrap();
    // Batches that complete the partial chunk, then hold whole chunks, then
    // leave a partial one.
    let mut w = ArrayWriter::<Obs>::open(&path).unwrap();
    for batch in records()[13..].chunks(19) {
        w.append(batch).unwrap();
    }
    assert_eq!(w.finish().unwrap(), u64::from(N));
    assert_eq!(ndl_zarr::read::<Obs>(&path).unwrap(), records());
    // v2 columns are little-endian, as netCDF-C reads them.
    let e = WriteOptions::new()
        .layout(Layout::Columns)
        .zarr_format(ZarrFormat::V2)
        .byte_order(ByteOrder::Big)
        .write(dir.path().join("big.zarr"), &records())
        .unwrap_err();
    assert!(e.to_string().contains("little-endian"), "{e}");

    // sky of record 17 (chunk 2, second value) := 7, no member.
    let chunk = path.join("sky").join("2");
    let mut bytes = std::fs::read(&chunk).unwrap();
    bytes[2..4].copy_from_slice(&7u16.to_le_bytes());
    std::fs::write(&chunk, bytes).unwrap();
    let e = ndl_zarr::read::<Obs>(&path).unwrap_err();
    let text = e.to_string();
    assert!(
        matches!(e, ndl_zarr::Error::InvalidValue { record: 17, ref field, .. } if field == "sky"),
        "{text}"
    );
    assert!(text.contains("7 is not a value"), "{text}");
}

/// Sets the first dimension of the column `name`'s metadata to `len`.
fn set_column_len(store: &Path, name: &str, v2: bool, len: u32) {
    let (file, key) = if v2 {
        (store.join(name).join(".zarray"), "shape")
    } else {
        (store.join(name).join("zarr.json"), "shape")
    };
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    doc[key][0] = len.into();
    std::fs::write(&file, serde_json::to_vec(&doc).unwrap()).unwrap();
}

/// The first dimension of every column's metadata.
fn column_lens(store: &Path, v2: bool) -> Vec<u64> {
    let meta = if v2 { ".zarray" } else { "zarr.json" };
    let mut lens = Vec::new();
    for entry in std::fs::read_dir(store).unwrap() {
        let file = entry.unwrap().path().join(meta);
        if let Ok(bytes) = std::fs::read(&file) {
            let doc: Value = serde_json::from_slice(&bytes).unwrap();
            if let Some(len) = doc["shape"].get(0).and_then(Value::as_u64) {
                lens.push(len);
            }
        }
    }
    lens
}

/// What a crash between two columns' length updates leaves (some columns
/// with the appended length, some with the old one) reads as the shortest,
/// and the next append goes on from there and evens the columns out.
#[test]
fn columns_left_uneven_by_a_crash_take_appends() {
    for v2 in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("u.zarr");
        let format = if v2 { ZarrFormat::V2 } else { ZarrFormat::V3 };
        let options = WriteOptions::new()
            .layout(Layout::Columns)
            .zarr_format(format)
            .chunk_len(8);
        options.write(&path, &records()).unwrap();
        // An append from 37 to N whose last columns' lengths were not
        // written yet.
        for name in ["t", "wind", "h"] {
            set_column_len(&path, name, v2, 37);
        }
        assert_eq!(ndl_zarr::read::<Obs>(&path).unwrap(), records()[..37]);
        // A region past the shortest column is refused by that column.
        assert!(ArrayWriter::<Obs>::region(&path, 32..N.into()).is_err());

        let fresh: Vec<Obs> = (100..105).map(obs).collect();
        let mut w = ArrayWriter::<Obs>::open(&path).unwrap();
        assert_eq!(w.len(), 37);
        w.append(&fresh).unwrap();
        assert_eq!(w.finish().unwrap(), 42);
        let mut want = records()[..37].to_vec();
        want.extend(&fresh);
        assert_eq!(ndl_zarr::read::<Obs>(&path).unwrap(), want, "v2: {v2}");
        let lens = column_lens(&path, v2);
        assert!(lens.len() > 10 && lens.iter().all(|&l| l == 42), "{lens:?}");

        // Evened out by an append of nothing, too.
        set_column_len(&path, "id", v2, 40);
        set_column_len(&path, "t", v2, 30);
        assert_eq!(
            ArrayWriter::<Obs>::open(&path).unwrap().finish().unwrap(),
            30
        );
        assert!(column_lens(&path, v2).iter().all(|&l| l == 30));
        assert_eq!(ndl_zarr::read::<Obs>(&path).unwrap(), want[..30]);
    }
}

/// Groups xarray writes, consolidated or not, v2 and v3: read by field
/// name into a record type.
#[test]
fn groups_xarray_wrote() {
    #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
    #[repr(C)]
    struct Row {
        t: f64,
        n: i32,
    }
    let dir = tempfile::tempdir().unwrap();
    for (i, (format, consolidated)) in [(2, true), (3, true), (2, false), (3, false)]
        .into_iter()
        .enumerate()
    {
        let path = dir.path().join(format!("x{i}.zarr"));
        ndl_testkit::xarray_group(&path, format, consolidated);
        let rows = ndl_zarr::read::<Row>(&path).unwrap();
        let want: Vec<Row> = (0..12)
            .map(|k| Row {
                t: f64::from(k) / 2.0,
                n: k * 3,
            })
            .collect();
        assert_eq!(rows, want, "v{format} consolidated={consolidated}");
    }
}
