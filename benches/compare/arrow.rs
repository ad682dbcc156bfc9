//! The Arrow and Parquet part of `cargo bench --bench compare` (alone:
//! `--only arrow`): ndl-arrow against a `memcpy`, serde_arrow,
//! parquet_derive and pyarrow, on the same records in the same run.
//!
//! One cell: [`Reading`], the README's record type (40 bytes in memory),
//! 10 M records by default (`--arrow-records N`; 0 leaves the cell out),
//! files in `target/bench-data/`. It times
//! - `to_record_batch(&records)` against a `memcpy` of as many bytes into
//!   fresh memory (`Vec::to_vec`): the floor of any conversion that
//!   returns new arrays (target ≥ 0.5 of it). `from_record_batch` back
//!   into `Vec<Reading>` too (no target);
//! - serde_arrow 0.15.1 (feature `arrow-60`, the arrow version ndl-arrow
//!   pins): `serde_arrow::to_record_batch(&fields, &records)` with the
//!   very fields of our schema (`ndl_arrow::schema::<Reading>()`: the
//!   enum a `Dictionary(Int8, Utf8)` of member names, the time a
//!   `Timestamp(Second)`, the code `Utf8`, the wind a
//!   `FixedSizeList(Float32, 2)`), from [`SerdeReading`], the same record
//!   as serde sees it: a unit enum, the time an `i64`, the code serialized
//!   as its NUL-trimmed `&str`. The batches are checked equal, so both do
//!   the same work (target: ours ≥ 5× faster);
//! - parquet_derive 60.1.0 (`ParquetRecordWriter`): it has no nested
//!   types, no fixed arrays and no enums, and writes Parquet rather than
//!   Arrow, so it is compared on what it can do: a Parquet file of the
//!   closest flat record, [`FlatReading`] (the enum's name and the code
//!   as `&str`, the wind as two `f32` columns, the time an `i64`), in row
//!   groups of 1 Mi records, uncompressed, against our `ParquetWriter` of
//!   the same records with the same properties (target: ours ≥ 3× faster);
//! - Parquet writes, uncompressed and zstd level 1, of our
//!   `ParquetWriter` (row groups of 1 Mi records) against pyarrow's
//!   `pq.write_table` of the same table, timed by `benches/arrow_times.py`
//!   (in the Python of `NDL_PYTHON312`, else the repo's `.venv312`, which
//!   has pyarrow) in the same run (target ≥ 1×). The sizes of both
//!   writers' files are printed too, to show they hold the same encodings.
//!
//! A second cell: [`Trade`], the record of variable fields
//! (`{u64, String, f64, enum, Option<i32>, Option<String>, Vec<f32>,
//! Vec<String>}`), 2 Mi records (or `--arrow-records N` if fewer). It
//! times `to_record_batch` against the same batch built by hand with
//! arrow's builders, capacities given (target ≥ 1×), and against
//! serde_arrow's `to_record_batch` of the same records (target ≥ 4×);
//! `from_record_batch` against serde_arrow's `from_record_batch`
//! (target ≥ 4×); and `ParquetWriter` of the records, zstd 1, against
//! pyarrow's `pq.write_table` of the same table read from our file
//! (target ≥ 1×). Both batches are checked to read back as the records.
//!
//! Every time is the best of [`REPS`] rounds, each running every job once;
//! the records and the other crates' inputs are built outside the timing.

use std::fs;
use std::path::Path;
use std::sync::Arc;

use ndl_arrow::ParquetWriter;
use ndl_arrow::arrow_array::builder::{
    Float32Builder, Float64Builder, Int32Builder, ListBuilder, StringBuilder, UInt64Builder,
};
use ndl_arrow::arrow_array::types::UInt8Type;
use ndl_arrow::arrow_array::{ArrayRef, DictionaryArray, RecordBatch, StringArray, UInt8Array};
use ndl_arrow::arrow_schema::DataType;
use ndl_arrow::arrow_schema::FieldRef;
use ndl_arrow::parquet::basic::{Compression, ZstdLevel};
use ndl_arrow::parquet::file::properties::WriterProperties;
use ndl_runtime::NdlType;
use ndl_runtime::Record;
use ndl_runtime::time::{DateTime64, Seconds};
use parquet::file::writer::SerializedFileWriter;
use parquet::record::RecordWriter;
use parquet_derive::ParquetRecordWriter;
use serde::{Deserialize, Serialize, Serializer};

use crate::{ms, print_peer_rows, time};

/// Rounds of every job; the best time of each is kept.
pub const REPS: usize = 3;
/// Records per Parquet row group, for every writer: pyarrow's default.
const ROW_GROUP: usize = 1 << 20;

/// The README's record type: one reading of a weather station.
#[derive(Clone, Copy, NdlType)]
#[repr(C)]
pub struct Reading {
    pub station: u32,
    pub time: DateTime64<Seconds>,
    pub sky: Sky,
    #[ndl(string)]
    pub code: [u8; 4],
    pub wind: [f32; 2],
    pub temperature: f32,
}

/// Sky cover.
#[derive(Clone, Copy, NdlType, Serialize)]
#[repr(u8)]
pub enum Sky {
    Clear,
    Cumulus,
    Stratus = 7,
}

impl Sky {
    fn name(self) -> &'static str {
        match self {
            Sky::Clear => "Clear",
            Sky::Cumulus => "Cumulus",
            Sky::Stratus => "Stratus",
        }
    }
}

/// [`Reading`] as serde sees it, for serde_arrow.
#[derive(Serialize)]
pub struct SerdeReading {
    station: u32,
    time: i64,
    sky: Sky,
    #[serde(serialize_with = "nul_trimmed")]
    code: [u8; 4],
    wind: [f32; 2],
    temperature: f32,
}

/// A fixed string as its text, trailing NULs trimmed, as ours maps it.
fn nul_trimmed<S: Serializer>(code: &[u8; 4], s: S) -> Result<S::Ok, S::Error> {
    let end = code.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    s.serialize_str(std::str::from_utf8(&code[..end]).expect("ASCII codes"))
}

/// The closest record parquet_derive writes: flat, no enum, no array.
#[derive(ParquetRecordWriter)]
pub struct FlatReading<'a> {
    station: u32,
    time: i64,
    sky: &'a str,
    code: &'a str,
    wind_east: f32,
    wind_north: f32,
    temperature: f32,
}

/// `n` readings with varied values, NUL-padded codes among them.
pub fn readings(n: usize) -> Vec<Reading> {
    let codes = [*b"RA\0\0", *b"SN\0\0", *b"TSRA", [0; 4]];
    let skies = [Sky::Clear, Sky::Cumulus, Sky::Stratus];
    (0..n)
        .map(|i| Reading {
            station: 1000 + (i % 7) as u32,
            time: DateTime64::new(1_700_000_000 + i as i64),
            sky: skies[i % 3],
            code: codes[i % 4],
            wind: [i as f32, -(i as f32)],
            temperature: 250.0 + (i % 50) as f32,
        })
        .collect()
}

fn serde_readings(records: &[Reading]) -> Vec<SerdeReading> {
    records
        .iter()
        .map(|r| SerdeReading {
            station: r.station,
            time: r.time.count(),
            sky: r.sky,
            code: r.code,
            wind: r.wind,
            temperature: r.temperature,
        })
        .collect()
}

fn flat_readings(records: &[Reading]) -> Vec<FlatReading<'_>> {
    records
        .iter()
        .map(|r| {
            let end = r.code.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
            FlatReading {
                station: r.station,
                time: r.time.count(),
                sky: r.sky.name(),
                code: std::str::from_utf8(&r.code[..end]).expect("ASCII codes"),
                wind_east: r.wind[0],
                wind_north: r.wind[1],
                temperature: r.temperature,
            }
        })
        .collect()
}

/// The number of records: `--arrow-records N`, else 10 M.
pub fn records_from(args: &[String]) -> usize {
    match args.iter().position(|a| a == "--arrow-records") {
        Some(i) => args
            .get(i + 1)
            .and_then(|s| s.trim().parse().ok())
            .expect("--arrow-records: a number of records, e.g. --arrow-records 1000000"),
        None => 10_000_000,
    }
}

/// The best times of the cell, in seconds.
#[derive(Default)]
pub struct Cell {
    records: usize,
    bytes: usize,
    memcpy: f64,
    to_batch: f64,
    from_batch: f64,
    serde_arrow: f64,
    ours_plain: f64,
    ours_zstd: f64,
    parquet_derive: f64,
    pyarrow_plain: f64,
    pyarrow_zstd: f64,
    pyarrow: String,
    /// File sizes in bytes: ours and pyarrow's, uncompressed and zstd 1.
    sizes: [u64; 4],
    trades: Trades,
}

fn properties(compression: Compression) -> WriterProperties {
    WriterProperties::builder()
        .set_compression(compression)
        .set_max_row_group_row_count(Some(ROW_GROUP))
        .build()
}

fn write_ours<T: Record>(path: &Path, records: &[T], compression: Compression) {
    let _ = fs::remove_file(path);
    let mut w = ParquetWriter::<T>::create_with(
        path,
        &ndl_arrow::WriteOptions::new().parquet_properties(properties(compression)),
    )
    .unwrap();
    w.append(records).unwrap();
    w.finish().unwrap();
}

fn write_parquet_derive(path: &Path, flat: &[FlatReading<'_>]) {
    let _ = fs::remove_file(path);
    let schema = flat.schema().unwrap();
    let props = Arc::new(properties(Compression::UNCOMPRESSED));
    let file = fs::File::create(path).unwrap();
    let mut w = SerializedFileWriter::new(file, schema, props).unwrap();
    for group in flat.chunks(ROW_GROUP) {
        let mut row_group = w.next_row_group().unwrap();
        group.write_to_row_group(&mut row_group).unwrap();
        row_group.close().unwrap();
    }
    w.close().unwrap();
}

/// Runs the cell: `n` records, files in `dir`, pyarrow's times from
/// `script` in `python`.
pub fn run(n: usize, dir: &Path, python: &Path, script: &Path) -> Cell {
    eprintln!("arrow: {n} readings");
    let records = readings(n);
    let bytes = vec![0x5a_u8; n * std::mem::size_of::<Reading>()];
    let serde_records = serde_readings(&records);
    let flat = flat_readings(&records);
    let fields: Vec<FieldRef> = ndl_arrow::schema::<Reading>().fields().to_vec();
    let ours_file = dir.join("arrow-ours.parquet");
    let derive_file = dir.join("arrow-parquet-derive.parquet");
    let zstd = Compression::ZSTD(ZstdLevel::default());

    let mut c = Cell {
        records: n,
        bytes: bytes.len(),
        ..Cell::default()
    };
    let best = |t: &mut f64, d: std::time::Duration| *t = t.min(d.as_secs_f64());
    let mut times = [f64::INFINITY; 7];
    for round in 0..REPS {
        best(
            &mut times[0],
            time(|| drop(std::hint::black_box(bytes.to_vec()))),
        );
        let mut batch = None;
        best(
            &mut times[1],
            time(|| batch = Some(ndl_arrow::to_record_batch(&records).unwrap())),
        );
        let batch = batch.unwrap();
        best(
            &mut times[2],
            time(|| {
                let back = ndl_arrow::from_record_batch::<Reading>(&batch).unwrap();
                drop(std::hint::black_box(back));
            }),
        );
        let mut theirs = None;
        best(
            &mut times[3],
            time(|| theirs = Some(serde_arrow::to_record_batch(&fields, &serde_records).unwrap())),
        );
        if round == 0 {
            let theirs = theirs.unwrap();
            assert_eq!(theirs.schema().fields(), batch.schema().fields());
            assert!(
                theirs.columns() == batch.columns(),
                "serde_arrow built other columns"
            );
        }
        drop(batch);
        best(
            &mut times[4],
            time(|| write_ours(&ours_file, &records, Compression::UNCOMPRESSED)),
        );
        best(
            &mut times[5],
            time(|| write_ours(&ours_file, &records, zstd)),
        );
        best(
            &mut times[6],
            time(|| write_parquet_derive(&derive_file, &flat)),
        );
    }
    [
        c.memcpy,
        c.to_batch,
        c.from_batch,
        c.serde_arrow,
        c.ours_plain,
        c.ours_zstd,
        c.parquet_derive,
    ] = times;
    let _ = fs::remove_file(&derive_file);
    let size = |path: &Path| fs::metadata(path).map_or(0, |m| m.len());
    // The last write of the rounds was zstd.
    c.sizes[1] = size(&ours_file);

    // pyarrow writes the table it reads from our uncompressed file.
    write_ours(&ours_file, &records, Compression::UNCOMPRESSED);
    c.sizes[0] = size(&ours_file);
    let py = crate::peer_script::run_peer_script(
        python,
        script,
        "pyarrow",
        &[
            ours_file.as_os_str(),
            dir.join("arrow-pyarrow.parquet").as_os_str(),
            REPS.to_string().as_ref(),
        ],
        n,
    );
    c.pyarrow_plain = py["write_uncompressed"].as_f64().unwrap();
    c.pyarrow_zstd = py["write_zstd"].as_f64().unwrap();
    c.pyarrow = py["pyarrow"].as_str().unwrap_or("?").to_string();
    c.sizes[2] = py["size_uncompressed"].as_u64().unwrap_or(0);
    c.sizes[3] = py["size_zstd"].as_u64().unwrap_or(0);
    let _ = fs::remove_file(&ours_file);
    c.trades = run_trades(n.min(TRADES), dir, python, script);
    c
}

/// Prints the cell as a Markdown table, with which targets are met.
pub fn print(c: &Cell, machine: &str, python: &Path) {
    println!("# ndl-arrow comparison\n");
    println!("{machine}");
    println!(
        "- {} README readings, {:.0} MB in memory; serde_arrow 0.15.1, parquet_derive 60.1.0, \
         pyarrow {} ({}); best of {REPS}\n",
        c.records,
        c.bytes as f64 / 1e6,
        c.pyarrow,
        python.display()
    );
    println!("| job | peer | peer time | ours | ratio | target |");
    println!("|---|---|--:|--:|--:|--:|");
    let rows = [
        ("`to_record_batch`", "memcpy", c.memcpy, c.to_batch, 0.5),
        (
            "`to_record_batch`",
            "serde_arrow",
            c.serde_arrow,
            c.to_batch,
            5.0,
        ),
        (
            "Parquet write, uncompressed",
            "parquet_derive (flat record)",
            c.parquet_derive,
            c.ours_plain,
            3.0,
        ),
        (
            "Parquet write, uncompressed",
            "pyarrow",
            c.pyarrow_plain,
            c.ours_plain,
            1.0,
        ),
        (
            "Parquet write, zstd 1",
            "pyarrow",
            c.pyarrow_zstd,
            c.ours_zstd,
            1.0,
        ),
    ];
    print_peer_rows(&rows);
    println!(
        "| `from_record_batch` | — | — | {} | — | — |",
        ms(c.from_batch)
    );
    println!("\nRatio: the peer's time over ours (above 1, ours is faster).");
    let mb = |bytes: u64| format!("{:.1} MB", bytes as f64 / 1e6);
    println!(
        "Files: ours {} uncompressed, {} zstd 1; pyarrow's {} and {}.",
        mb(c.sizes[0]),
        mb(c.sizes[1]),
        mb(c.sizes[2]),
        mb(c.sizes[3])
    );
    print_trades(&c.trades);
}

/// Records in the cell of variable records: the 2 Mi.
const TRADES: usize = 2 << 20;

/// Which side of the book.
#[derive(Clone, Copy, Debug, PartialEq, NdlType, Serialize, Deserialize)]
#[repr(u8)]
pub enum Side {
    Buy,
    Sell,
}

const SIDES: [&str; 2] = ["Buy", "Sell"];

/// The record of variable fields; serde_arrow takes it as it is.
#[derive(Clone, Debug, PartialEq, Record, Serialize, Deserialize)]
pub struct Trade {
    id: u64,
    symbol: String,
    price: f64,
    side: Side,
    qty: Option<i32>,
    note: Option<String>,
    levels: Vec<f32>,
    tags: Vec<String>,
}

/// `n` trades: short symbols, a note on one in three, 0-7 levels, 0-3 tags.
pub fn trades(n: usize) -> Vec<Trade> {
    const SYMBOLS: [&str; 5] = ["AAPL", "MSFT", "GOOG", "BRK.B", "Ü"];
    (0..n)
        .map(|i| Trade {
            id: i as u64,
            symbol: SYMBOLS[i % 5].to_owned(),
            price: 100.0 + (i % 1000) as f64 * 0.01,
            side: if i % 2 == 0 { Side::Buy } else { Side::Sell },
            qty: (i % 4 != 0).then_some((i % 500) as i32),
            note: (i % 3 == 0).then(|| format!("note {i}")),
            levels: (0..i % 8).map(|k| k as f32 * 0.5).collect(),
            tags: (0..i % 4).map(|k| format!("tag{k}")).collect(),
        })
        .collect()
}

/// The best times of the cell of variable records, in seconds.
#[derive(Default)]
pub struct Trades {
    records: usize,
    to_batch: f64,
    by_hand: f64,
    serde_to: f64,
    from_batch: f64,
    serde_from: f64,
    /// `records.clone()`, dropped: the allocations and copies any reader
    /// giving back these records makes, whatever its source.
    clone: f64,
    /// `ParquetWriter` of the records, zstd 1, and pyarrow's
    /// `pq.write_table` of the same table.
    parquet: f64,
    pyarrow: f64,
}

/// The batch of `trades` built with arrow's builders, capacities given,
/// as someone who knows the schema writes it.
fn by_hand(trades: &[Trade], schema: &ndl_arrow::arrow_schema::SchemaRef) -> RecordBatch {
    let n = trades.len();
    let field = |i: usize| match schema.field(i).data_type() {
        DataType::List(f) => f.clone(),
        other => unreachable!("{other} is no list"),
    };
    let text = |f: &dyn Fn(&Trade) -> usize| trades.iter().map(f).sum::<usize>();
    let mut id = UInt64Builder::with_capacity(n);
    let mut symbol = StringBuilder::with_capacity(n, text(&|t| t.symbol.len()));
    let mut price = Float64Builder::with_capacity(n);
    let mut side = Vec::with_capacity(n);
    let mut qty = Int32Builder::with_capacity(n);
    let mut note =
        StringBuilder::with_capacity(n, text(&|t| t.note.as_ref().map_or(0, String::len)));
    let levels_items = Float32Builder::with_capacity(text(&|t| t.levels.len()));
    let mut levels = ListBuilder::with_capacity(levels_items, n).with_field(field(6));
    let tags_items = StringBuilder::with_capacity(
        text(&|t| t.tags.len()),
        text(&|t| t.tags.iter().map(String::len).sum()),
    );
    let mut tags = ListBuilder::with_capacity(tags_items, n).with_field(field(7));
    for t in trades {
        id.append_value(t.id);
        symbol.append_value(&t.symbol);
        price.append_value(t.price);
        side.push(t.side as u8);
        qty.append_option(t.qty);
        note.append_option(t.note.as_deref());
        levels.values().append_slice(&t.levels);
        levels.append(true);
        for tag in &t.tags {
            tags.values().append_value(tag);
        }
        tags.append(true);
    }
    let names = Arc::new(StringArray::from_iter_values(SIDES));
    let side = DictionaryArray::<UInt8Type>::try_new(UInt8Array::from(side), names).unwrap();
    let columns: Vec<ArrayRef> = vec![
        Arc::new(id.finish()),
        Arc::new(symbol.finish()),
        Arc::new(price.finish()),
        Arc::new(side),
        Arc::new(qty.finish()),
        Arc::new(note.finish()),
        Arc::new(levels.finish()),
        Arc::new(tags.finish()),
    ];
    RecordBatch::try_new(schema.clone(), columns).unwrap()
}

/// Runs the cell of `n` variable records, files in `dir`, pyarrow's times
/// from `script` in `python`.
pub fn run_trades(n: usize, dir: &Path, python: &Path, script: &Path) -> Trades {
    eprintln!("arrow: {n} trades");
    let records = trades(n);
    let schema = Arc::new(ndl_arrow::schema::<Trade>());
    let fields: Vec<FieldRef> = schema.fields().to_vec();
    let mut times = [f64::INFINITY; 6];
    let best = |t: &mut f64, d: std::time::Duration| *t = t.min(d.as_secs_f64());
    for round in 0..REPS {
        best(
            &mut times[5],
            time(|| drop(std::hint::black_box(records.clone()))),
        );
        let mut ours = None;
        best(
            &mut times[0],
            time(|| ours = Some(ndl_arrow::to_record_batch(&records).unwrap())),
        );
        let ours = ours.unwrap();
        let mut hand = None;
        best(
            &mut times[1],
            time(|| hand = Some(by_hand(&records, &schema))),
        );
        let mut theirs = None;
        best(
            &mut times[2],
            time(|| theirs = Some(serde_arrow::to_record_batch(&fields, &records).unwrap())),
        );
        best(
            &mut times[3],
            time(|| {
                drop(std::hint::black_box(
                    ndl_arrow::from_record_batch::<Trade>(&ours).unwrap(),
                ))
            }),
        );
        best(
            &mut times[4],
            time(|| {
                let back: Vec<Trade> = serde_arrow::from_record_batch(&ours).unwrap();
                drop(std::hint::black_box(back));
            }),
        );
        if round == 0 {
            assert!(hand.unwrap() == ours, "the batch built by hand differs");
            let theirs = theirs.unwrap();
            assert!(ndl_arrow::from_record_batch::<Trade>(&theirs).unwrap() == records);
            assert!(ndl_arrow::from_record_batch::<Trade>(&ours).unwrap() == records);
        }
    }
    let [to_batch, by_hand, serde_to, from_batch, serde_from, clone] = times;
    let file = dir.join("arrow-trades.parquet");
    let zstd = Compression::ZSTD(ZstdLevel::default());
    let mut parquet = f64::INFINITY;
    for _ in 0..REPS {
        parquet = parquet.min(time(|| write_ours(&file, &records, zstd)).as_secs_f64());
    }
    let py = crate::peer_script::run_peer_script(
        python,
        script,
        "pyarrow",
        &[
            file.as_os_str(),
            dir.join("arrow-trades-pyarrow.parquet").as_os_str(),
            REPS.to_string().as_ref(),
        ],
        n,
    );
    let _ = fs::remove_file(&file);
    Trades {
        records: n,
        to_batch,
        by_hand,
        serde_to,
        from_batch,
        serde_from,
        clone,
        parquet,
        pyarrow: py["write_zstd"].as_f64().unwrap(),
    }
}

fn print_trades(t: &Trades) {
    println!(
        "\n{} records of the issue's `{{u64, String, f64, enum, Option<i32>, Option<String>, \
         Vec<f32>, Vec<String>}}`:\n",
        t.records
    );
    println!("| job | peer | peer time | ours | ratio | target |");
    println!("|---|---|--:|--:|--:|--:|");
    print_peer_rows(&[
        (
            "`to_record_batch`",
            "arrow builders by hand",
            t.by_hand,
            t.to_batch,
            1.0,
        ),
        (
            "`to_record_batch`",
            "serde_arrow",
            t.serde_to,
            t.to_batch,
            4.0,
        ),
        (
            "`from_record_batch`",
            "serde_arrow",
            t.serde_from,
            t.from_batch,
            4.0,
        ),
        (
            "`ParquetWriter`, zstd 1",
            "pyarrow `pq.write_table`, zstd 1",
            t.pyarrow,
            t.parquet,
            1.0,
        ),
    ]);
    println!(
        "\nFor reference: cloning the records (their allocations and copies, dropped as \
         above) takes {}: `from_record_batch` spends {} beyond it, serde_arrow {}.",
        ms(t.clone),
        ms((t.from_batch - t.clone).max(0.0)),
        ms((t.serde_from - t.clone).max(0.0))
    );
}
