//! netCDF-4 columns without a Rust type: a file `write_columns` wrote
//! read back as the record's own datatype and columns, a block at a time,
//! and written again batch by batch as the same file a typed read takes.

use ndl_hdf5::{RecordColumnsReader, RecordColumnsWriter};
use ndl_runtime::record::{self, Column, Columns};
use ndl_runtime::{NdlType, Record};
use ndl_testkit::netcdf::ncdump;
use ndl_testkit::python::{python312, run_with};

/// argv: path. netCDF4-python reads `note`, a `string` variable whose
/// `_FillValue` is a string, and its fill.
const NOTES: &str = r#"
import sys, netCDF4
with netCDF4.Dataset(sys.argv[1]) as ds:
    assert ds['note']._FillValue == '?', ds['note']._FillValue
    print(list(ds['note'][:]))
"#;

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(u8)]
enum Side {
    Buy = 1,
    Sell = 2,
}

#[derive(Debug, PartialEq, Record)]
struct Venue {
    code: String,
    id: u16,
}

#[derive(Debug, PartialEq, Record)]
struct Obs {
    id: u64,
    name: String,
    /// Price paid.
    #[ndl(units = "USD")]
    price: f64,
    side: Side,
    ok: bool,
    #[ndl(fill = -1)]
    qty: Option<i32>,
    #[ndl(fill = "?")]
    note: Option<String>,
    levels: Vec<f32>,
    tags: Vec<String>,
    venue: Venue,
    lots: [u16; 3],
}

fn observations(n: usize) -> Vec<Obs> {
    (0..n)
        .map(|i| Obs {
            id: i as u64,
            name: ["α", "", "日本語 ✓"][i % 3].repeat(i % 4),
            price: i as f64 / 4.0,
            side: if i % 2 == 0 { Side::Buy } else { Side::Sell },
            ok: i % 3 == 0,
            qty: (i % 4 != 1).then_some(i as i32 * 10),
            note: (i % 3 != 2).then(|| "ü".repeat(i % 2)),
            levels: (0..i % 3).map(|k| (i * 10 + k) as f32).collect(),
            tags: (0..i % 2 + (i % 5 == 4) as usize)
                .map(|k| ["", "größer", "x"][(i + k) % 3].to_string())
                .collect(),
            venue: Venue {
                code: "é".repeat(i % 3),
                id: (i * 7) as u16,
            },
            lots: [i as u16, 0, u16::MAX - i as u16],
        })
        .collect()
}

/// Every block of `reader`, `per` records each, as records of `Obs`.
fn read_all(reader: &mut RecordColumnsReader, per: usize) -> (Vec<Column>, Vec<Obs>) {
    let (mut blocks, mut records) = (Vec::new(), Vec::new());
    while let Some(block) = reader.next_block(per).unwrap() {
        assert!(block.len() <= per);
        records.extend(record::read::<Obs>(&block.view()).unwrap());
        blocks.push(block);
    }
    (blocks, records)
}

#[test]
fn typed_columns_read_untyped_in_blocks_and_write_back_batch_by_batch() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("obs.nc");
    let want = observations(11);
    ndl_hdf5::write_columns(&path, &want).unwrap();

    let mut reader = RecordColumnsReader::open(&path).unwrap().expect("columns");
    assert_eq!(reader.datatype(), &Obs::datatype());
    assert_eq!(
        reader.template(),
        &<Obs as Record>::Columns::with_capacity(0).finish()
    );
    assert_eq!(reader.len(), 11);
    let (blocks, got) = read_all(&mut reader, 4);
    assert_eq!(blocks.len(), 3);
    assert_eq!(got, want);

    let again = dir.path().join("again.nc");
    let datatype = Obs::datatype();
    let template = Column::template(&datatype).unwrap();
    let mut writer = RecordColumnsWriter::create(
        &again,
        &datatype,
        reader.template(),
        ndl_hdf5::WriteOptions::new(),
    )
    .unwrap();
    for block in &blocks {
        writer.append(block).unwrap();
        assert!(!again.exists(), "the file appears only when whole");
    }
    assert_eq!(writer.finish().unwrap(), 11);
    assert_eq!(ndl_hdf5::read_columns::<Obs>(&again).unwrap(), want);
    ncdump(&[], &again);
    let notes = run_with(&python312(), NOTES, &[again.to_str().unwrap()]);
    let want_notes: Vec<String> = want
        .iter()
        .map(|o| o.note.clone().unwrap_or_else(|| "?".into()))
        .collect();
    assert_eq!(notes.trim(), format!("{want_notes:?}").replace('"', "'"));
    // Without a fill, the option has nothing to stand for `None`.
    let Err(e) = RecordColumnsWriter::create(
        dir.path().join("no_fill.nc"),
        &datatype,
        &template,
        Default::default(),
    ) else {
        panic!("an option without a fill was taken")
    };
    assert!(e.to_string().contains("qty"), "{e}");
}

#[test]
fn a_file_of_fixed_variables_or_of_one_string_is_no_records_columns() {
    let dir = tempfile::tempdir().unwrap();
    #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
    #[repr(C)]
    struct Fixed {
        a: u8,
        b: f64,
    }
    let fixed = dir.path().join("fixed.nc");
    ndl_hdf5::write_columns(&fixed, &[Fixed { a: 1, b: 2.0 }]).unwrap();
    assert!(RecordColumnsReader::open(&fixed).unwrap().is_none());
    #[derive(Debug, PartialEq, Record)]
    struct One {
        name: String,
    }
    let one = dir.path().join("one.nc");
    ndl_hdf5::write_columns(&one, &[One { name: "a".into() }]).unwrap();
    assert!(RecordColumnsReader::open(&one).unwrap().is_none());
}

#[test]
fn no_records_read_back_as_none() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.nc");
    ndl_hdf5::write_columns::<Obs>(&path, &[]).unwrap();
    ncdump(&[], &path);
    let mut reader = RecordColumnsReader::open(&path).unwrap().expect("columns");
    assert_eq!((reader.len(), reader.datatype()), (0, &Obs::datatype()));
    assert_eq!(reader.next_block(10).unwrap(), None);
    assert_eq!(ndl_hdf5::read_columns::<Obs>(&path).unwrap(), vec![]);
}

/// argv: path. xarray decodes `when` as datetime64, NaT included.
const TIMES: &str = r#"
import sys, xarray as xr
w = xr.open_dataset(sys.argv[1])['when'].values
print(w.dtype, [str(v) for v in w])
"#;

#[test]
fn times_are_cf_times_xarray_decodes_and_read_back_as_times() {
    use ndl_runtime::record::Values;
    use ndl_runtime::time::{BaseUnit, NAT, NumpyTimeUnit};
    use ndl_runtime::{Compound, Datatype, Member, TimeType};
    let when = Datatype::Time(TimeType::datetime(NumpyTimeUnit::new(BaseUnit::Seconds)));
    let datatype = Datatype::Compound(
        Compound::variable([
            Member::new("name", 0, Datatype::String),
            Member::new("when", 0, when.clone()),
        ])
        .unwrap(),
    );
    let batch = Column::Struct {
        len: 3,
        fields: vec![
            (
                "name".into(),
                Column::Strings {
                    offsets: vec![0, 1, 1, 2],
                    data: b"ab".to_vec(),
                },
            ),
            (
                "when".into(),
                Column::Values {
                    datatype: when,
                    values: Values::I64(vec![0, 86_400 + 1, NAT]),
                },
            ),
        ],
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("times.nc");
    let template = Column::template(&datatype).unwrap();
    let mut writer =
        RecordColumnsWriter::create(&path, &datatype, &template, Default::default()).unwrap();
    writer.append(&batch).unwrap();
    writer.finish().unwrap();
    let mut reader = RecordColumnsReader::open(&path).unwrap().expect("columns");
    assert_eq!(reader.datatype(), &datatype);
    assert_eq!(reader.next_block(10).unwrap(), Some(batch));
    let out = run_with(&python312(), TIMES, &[path.to_str().unwrap()]);
    assert_eq!(
        out.trim(),
        "datetime64[ns] ['1970-01-01T00:00:00.000000000', '1970-01-02T00:00:01.000000000', 'NaT']"
    );
}

#[derive(Debug, PartialEq, Record)]
struct Filled {
    id: u64,
    #[ndl(fill = -1)]
    qty: Option<i32>,
    #[ndl(fill = "?")]
    note: Option<String>,
}

#[derive(Debug, PartialEq, Record)]
struct NoFill {
    id: u64,
    qty: Option<i32>,
    note: Option<String>,
}

/// A type whose `Option`s have no fill (as `ndl describe --format rust`
/// writes one) reads the nulls by each variable's `_FillValue`.
#[test]
fn options_without_fill_read_by_the_files_fill_value() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("filled.nc");
    let written = [
        Filled {
            id: 1,
            qty: None,
            note: Some("a".into()),
        },
        Filled {
            id: 2,
            qty: Some(7),
            note: None,
        },
    ];
    ndl_hdf5::write_columns(&path, &written).unwrap();
    let back: Vec<NoFill> = ndl_hdf5::read_columns(&path).unwrap();
    let want = [
        NoFill {
            id: 1,
            qty: None,
            note: Some("a".into()),
        },
        NoFill {
            id: 2,
            qty: Some(7),
            note: None,
        },
    ];
    assert_eq!(back, want);
}
