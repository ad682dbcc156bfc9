//! The netCDF-4 profile of `.nc` files, checked against the real readers:
//! Debian's `ncdump`, netCDF4-python and xarray. Fails (never skips)
//! without them.

use ndl_hdf5::DatasetWriter;
use ndl_runtime::NdlType;
use ndl_testkit::netcdf::ncdump;
use ndl_testkit::python::{python312, run_with};
use ndl_testkit::records::{Color, F16, Inner, Level, S5, Tagged, Wide};

/// A station's reading: a name inside the record, as netCDF `char`s.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Station {
    id: u32,
    name: S5,
    pos: Inner,
    codes: [S5; 2],
    level: f64,
}

fn stations(n: u32) -> Vec<Station> {
    (0..n)
        .map(|i| Station {
            id: i,
            name: S5(*b"ab\0\0\0").with_last(b'0' + (i % 10) as u8),
            pos: Inner {
                x: f64::from(i) * 0.5,
                y: -(i as f32),
            },
            codes: [S5(*b"XYZWV"), S5(*b"q\0\0\0\0")],
            level: 1.0 / f64::from(i + 1),
        })
        .collect()
}

trait WithLast {
    fn with_last(self, b: u8) -> Self;
}

impl WithLast for S5 {
    fn with_last(mut self, b: u8) -> S5 {
        self.0[2] = b;
        self
    }
}

#[test]
fn records_are_a_compound_variable_over_the_unlimited_record_dimension() {
    let dir = tempfile::tempdir().unwrap();
    let nc = dir.path().join("stations.nc");
    let records = stations(7);
    ndl_hdf5::write(&nc, "stations", &records).unwrap();

    let header = ncdump(&["-h"], &nc);
    assert!(
        header.contains("record = UNLIMITED ; // (7 currently)"),
        "{header}"
    );
    assert!(header.contains("Station stations(record) ;"), "{header}");
    assert!(header.contains("char name(5) ;"), "{header}");
    assert!(header.contains("char codes(2, 5) ;"), "{header}");
    assert!(header.contains("compound pos_t {"), "{header}");
    assert!(!header.contains("phony_dim"), "{header}");
    let data = ncdump(&[], &nc);
    assert!(data.contains("{\"ab3\"}"), "{data}");
    assert!(data.contains("{\"XYZWV\", \"q\"}"), "{data}");

    assert_eq!(ndl_hdf5::read::<Station>(&nc, "stations").unwrap(), records);

    // netCDF4-python and xarray read the records: names as characters.
    run_with(
        &python312(),
        r#"
import sys, netCDF4, numpy as np, xarray as xr
with netCDF4.Dataset(sys.argv[1]) as d:
    assert d.dimensions["record"].isunlimited()
    v = d.variables["stations"][:]
    assert len(v) == 7, len(v)
    assert v["id"].tolist() == list(range(7)), v["id"]
    assert np.asarray(v["name"][3]).tobytes().rstrip(b"\0") == b"ab3", v["name"][3]
    assert abs(v["pos"]["x"][4] - 2.0) < 1e-12
ds = xr.open_dataset(sys.argv[1])
assert ds["stations"].dims == ("record",), ds
assert ds.sizes["record"] == 7
"#,
        &[nc.to_str().unwrap()],
    );
}

#[test]
fn appends_grow_the_record_dimension() {
    let dir = tempfile::tempdir().unwrap();
    let nc = dir.path().join("grow.nc");
    let records = stations(10);
    let mut w = DatasetWriter::<Station>::create(&nc, "/site/stations").unwrap();
    w.append(&records[..4]).unwrap();
    w.finish().unwrap();
    let mut w = DatasetWriter::<Station>::open(&nc, "/site/stations").unwrap();
    w.append(&records[4..]).unwrap();
    w.finish().unwrap();

    let header = ncdump(&["-h"], &nc);
    assert!(
        header.contains("record = UNLIMITED ; // (10 currently)"),
        "{header}"
    );
    assert!(header.contains("group: site {"), "{header}");
    assert_eq!(
        ndl_hdf5::read::<Station>(&nc, "/site/stations").unwrap(),
        records
    );
}

/// Two records of enums of three bases.
fn tagged() -> [Tagged; 2] {
    [
        Tagged {
            c: Color::Blue,
            l: Level::Low,
            w: Wide::B,
        },
        Tagged {
            c: Color::Green,
            l: Level::High,
            w: Wide::A,
        },
    ]
}

#[test]
fn enum_records_are_refused_for_netcdf_unless_allowed_and_keep_their_enum_types() {
    let dir = tempfile::tempdir().unwrap();
    let nc = dir.path().join("tagged.nc");
    let records = tagged();
    // netCDF4-python and xarray skip such a variable: `write` refuses it,
    // naming the field and the way out, and makes no file.
    let e = ndl_hdf5::write(&nc, "tagged", &records).unwrap_err();
    let message = e.to_string();
    assert!(
        message.contains("field `c`")
            && message.contains("write_columns")
            && message.contains("netcdf_enum_records"),
        "{message}"
    );
    assert!(!nc.exists());
    let options = ndl_hdf5::WriteOptions::new().netcdf_enum_records(true);
    let mut writer = DatasetWriter::<Tagged>::create_with(&nc, "tagged", &options).unwrap();
    writer.append(&records).unwrap();
    writer.finish().unwrap();
    // What the refusal says: xarray sees an empty Dataset.
    let seen = run_with(
        &python312(),
        "import sys, warnings, xarray as xr\nwarnings.simplefilter('ignore')\nprint(list(xr.open_dataset(sys.argv[1]).data_vars))",
        &[nc.to_str().unwrap()],
    );
    assert_eq!(seen.trim(), "[]", "xarray now reads it: drop the refusal");
    let header = ncdump(&["-h"], &nc);
    assert!(
        header.contains("ubyte enum c_t {Red = 0, Green = 1, Blue = 5} ;"),
        "{header}"
    );
    assert!(
        header.contains("short enum l_t {Low = -5, High = 300} ;"),
        "{header}"
    );
    let data = ncdump(&[], &nc);
    assert!(data.contains("{Blue, Low, B}"), "{data}");
    assert_eq!(ndl_hdf5::read::<Tagged>(&nc, "tagged").unwrap(), records);
}

#[test]
fn a_half_float_has_no_netcdf_type() {
    #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
    #[repr(C)]
    struct Half {
        h: F16,
    }
    let dir = tempfile::tempdir().unwrap();
    let nc = dir.path().join("half.nc");
    let e = ndl_hdf5::write(&nc, "h", &[Half { h: F16(0x3c00) }]).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("field `h`") && text.contains("16-bit float"),
        "{text}"
    );
    assert!(!nc.exists());
    // The same records go to plain HDF5.
    ndl_hdf5::write(dir.path().join("half.h5"), "h", &[Half { h: F16(0x3c00) }]).unwrap();
}

#[test]
fn columns_keep_enums_as_netcdf_enum_types_that_netcdf4_python_reads() {
    let dir = tempfile::tempdir().unwrap();
    let nc = dir.path().join("tagged_columns.nc");
    let records = tagged();
    ndl_hdf5::write_columns(&nc, &records).unwrap();
    assert_eq!(ndl_hdf5::read_columns::<Tagged>(&nc).unwrap(), records);
    run_with(
        &python312(),
        r#"
import sys, netCDF4, xarray as xr
with netCDF4.Dataset(sys.argv[1]) as d:
    c = d.variables["c"]
    assert c.datatype.enum_dict == {"Red": 0, "Green": 1, "Blue": 5}, c.datatype.enum_dict
    assert c[:].tolist() == [5, 1]
    assert d.variables["l"].datatype.enum_dict == {"Low": -5, "High": 300}
    assert d.variables["w"][:].tolist() == [1 << 40, 1]
ds = xr.open_dataset(sys.argv[1])
assert ds["l"].values.tolist() == [-5, 300], ds["l"].values
"#,
        &[nc.to_str().unwrap()],
    );
}

/// A record as xarray users write one: a variable per field.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Obs {
    station: i32,
    value: f64,
    code: S5,
}

#[test]
fn columns_that_xarray_wrote_read_typed_by_field_name() {
    let dir = tempfile::tempdir().unwrap();
    let nc = dir.path().join("xr.nc");
    run_with(
        &python312(),
        r#"
import sys, numpy as np, xarray as xr
ds = xr.Dataset({
    "value": ("record", np.array([1.5, -2.0, 3.25], "<f4")),
    "station": ("record", np.array([7, 8, 9], ">i4")),
    "code": ("record", np.array([b"ab", b"cde", b""], "S5")),
    "extra": ("record", np.zeros(3)),
})
ds.to_netcdf(sys.argv[1], engine="netcdf4", encoding={"code": {"char_dim_name": "code_strlen"}})
"#,
        &[nc.to_str().unwrap()],
    );
    let got = ndl_hdf5::read_columns::<Obs>(&nc).unwrap();
    let code = |s: &[u8]| {
        let mut b = [0u8; 5];
        b[..s.len()].copy_from_slice(s);
        S5(b)
    };
    assert_eq!(
        got,
        [
            Obs {
                station: 7,
                value: 1.5,
                code: code(b"ab")
            },
            Obs {
                station: 8,
                value: -2.0,
                code: code(b"cde")
            },
            Obs {
                station: 9,
                value: 3.25,
                code: code(b"")
            },
        ]
    );
    // A field with no variable is an error naming it.
    #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
    #[repr(C)]
    struct Missing {
        station: i32,
        depth: f32,
    }
    let e = ndl_hdf5::read_columns::<Missing>(&nc)
        .unwrap_err()
        .to_string();
    assert!(e.contains("depth"), "{e}");
    // A narrower number than stored is refused, not clipped.
    #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
    #[repr(C)]
    struct Narrow {
        value: f32,
        station: u8,
    }
    let e = ndl_hdf5::read_columns::<Narrow>(&nc)
        .unwrap_err()
        .to_string();
    assert!(e.contains("station") && e.contains("4 bytes"), "{e}");
}

#[test]
fn cf_times_that_xarray_wrote_read_into_time_fields() {
    use ndl_runtime::time::{DateTime64, Seconds};
    #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
    #[repr(C)]
    struct Sample {
        when: DateTime64<Seconds>,
        value: f64,
    }
    let dir = tempfile::tempdir().unwrap();
    let nc = dir.path().join("times.nc");
    run_with(
        &python312(),
        r#"
import sys, numpy as np, xarray as xr
when = np.array(["2000-01-01T06", "NaT", "1999-12-31T18"], "M8[s]")
ds = xr.Dataset({"when": ("record", when), "value": ("record", np.array([1.0, 2.0, 3.0]))})
ds.to_netcdf(sys.argv[1], engine="netcdf4", encoding={"when": {"units": "hours since 2000-01-01"}})
"#,
        &[nc.to_str().unwrap()],
    );
    let got = ndl_hdf5::read_columns::<Sample>(&nc).unwrap();
    let counts: Vec<i64> = got.iter().map(|s| s.when.count()).collect();
    assert_eq!(counts, [946_706_400, i64::MIN, 946_663_200]);
    assert_eq!(got[2].value, 3.0);
}

/// netCDF-C reads every file h5py writes, and ours of plain numbers as
/// well: no committed number type (on which netCDF-C fails with "HDF
/// error"), for `write` of numbers and bools, and for an `ArrayWriter`'s
/// 2-D array.
#[test]
fn h5_files_of_plain_numbers_are_read_by_ncdump() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ndl_hdf5::write(d.join("f64.h5"), "data", &[1.5f64, -2.0, 3.25]).unwrap();
    ndl_hdf5::write(d.join("i32.h5"), "data", &[1i32, -2, 3]).unwrap();
    ndl_hdf5::write(d.join("u8.h5"), "data", &[1u8, 2, 255]).unwrap();
    ndl_hdf5::write(d.join("bool.h5"), "data", &[true, false, true]).unwrap();
    let mut writer = ndl_hdf5::ArrayWriter::create(
        d.join("grid.h5"),
        "grid",
        &ndl_runtime::Datatype::Float64,
        ndl_runtime::ByteOrder::NATIVE,
        &[2, 3],
        "grid_t",
        &ndl_hdf5::WriteOptions::new(),
    )
    .unwrap();
    let values: Vec<u8> = (0..6).flat_map(|i| f64::from(i).to_ne_bytes()).collect();
    writer.write_rows(&values).unwrap();
    writer.finish().unwrap();
    for (name, declared, values) in [
        ("f64", "double data(", "1.5, -2, 3.25"),
        ("i32", "int data(", "1, -2, 3"),
        ("u8", "ubyte data(", "1, 2, 255"),
        ("bool", "data(", "TRUE, FALSE, TRUE"),
        ("grid", "double grid(", "0, 1, 2,"),
    ] {
        let path = d.join(format!("{name}.h5"));
        let dump = ncdump(&[], &path);
        assert!(dump.contains(declared), "{name}: {dump}");
        assert!(dump.contains(values), "{name}: {dump}");
    }
}

/// A big-endian array (as a netCDF-3 file holds its numbers) with a fill
/// and typed attributes: `ncdump` masks the fill, of the variable's type,
/// and shows the attributes of theirs; xarray unpacks the values.
#[test]
fn a_fill_and_typed_attributes_of_a_big_endian_array_read_as_given() {
    use ndl_hdf5::{ArrayWriter, Elements, WriteOptions};
    use ndl_runtime::{ByteOrder, Datatype};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("be.nc");
    let options = WriteOptions::new()
        .fill((-32767i16).to_ne_bytes().to_vec())
        .dimension_names(vec!["x".into()]);
    let mut w = ArrayWriter::create(
        &path,
        "v",
        &Datatype::Int16,
        ByteOrder::Big,
        &[3],
        "v_t",
        &options,
    )
    .unwrap();
    let scale = 0.5f32.to_ne_bytes();
    w.attribute(
        "scale_factor",
        &Datatype::Float32,
        &[],
        Elements::Bytes(&scale),
    )
    .unwrap();
    let range: Vec<u8> = [-100i16, 100]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    w.attribute(
        "valid_range",
        &Datatype::Int16,
        &[2],
        Elements::Bytes(&range),
    )
    .unwrap();
    let rows: Vec<u8> = [4i16, -32767, 6]
        .iter()
        .flat_map(|v| v.to_be_bytes())
        .collect();
    w.write_rows(&rows).unwrap();
    w.finish().unwrap();
    let text = ncdump(&[], &path);
    for line in [
        "v:_FillValue = -32767s ;",
        "v:scale_factor = 0.5f ;",
        "v:valid_range = -100s, 100s ;",
        "v = 4, _, 6 ;",
    ] {
        assert!(text.contains(line), "{line}: {text}");
    }
    let out = run_with(
        &python312(),
        "import sys, xarray as xr\nprint(xr.open_dataset(sys.argv[1])['v'].values.tolist())",
        &[path.to_str().unwrap()],
    );
    assert_eq!(out, "[2.0, nan, 3.0]\n");
}
