//! `to_record_batch` on 10 M records of the README's type against a
//! `memcpy` of the same bytes into fresh memory: the floor of any
//! conversion that returns new arrays.
//!
//! `cargo bench -p ndl-arrow --bench compare`; `NDL_BENCH_RECORDS` sets
//! the number of records.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ndl_runtime::NdlType;

/// The README's record type.
#[derive(Clone, Copy, NdlType)]
#[repr(C)]
pub struct Reading {
    pub station: u32,
    pub time: f64,
    pub sky: Sky,
    #[ndl(string)]
    pub code: [u8; 4],
    pub wind: [f32; 2],
    pub temperature: f32,
}

#[derive(Clone, Copy, NdlType)]
#[repr(u8)]
pub enum Sky {
    Clear,
    Cumulus,
    Stratus = 7,
}

fn readings(n: usize) -> Vec<Reading> {
    let codes = [*b"RA\0\0", *b"SN\0\0", *b"TSRA", [0; 4]];
    let skies = [Sky::Clear, Sky::Cumulus, Sky::Stratus];
    (0..n)
        .map(|i| Reading {
            station: 1000 + (i % 7) as u32,
            time: 1.7e9 + i as f64,
            sky: skies[i % 3],
            code: codes[i % 4],
            wind: [i as f32, -(i as f32)],
            temperature: 250.0 + (i % 50) as f32,
        })
        .collect()
}

fn compare(c: &mut Criterion) {
    let n: usize = std::env::var("NDL_BENCH_RECORDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000_000);
    let data = readings(n);
    // The same bytes as plain bytes, for the memcpy: a copy made once,
    // so that the baseline reads no padding of the records.
    let bytes: Vec<u8> = data
        .iter()
        .flat_map(|r| {
            let mut b = [0u8; 40];
            b[..4].copy_from_slice(&r.station.to_ne_bytes());
            b[8..16].copy_from_slice(&r.time.to_ne_bytes());
            b
        })
        .collect();
    let mut group = c.benchmark_group("readings");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(3));
    group.bench_function("memcpy into fresh memory", |b| {
        b.iter(|| black_box(bytes.to_vec()))
    });
    group.bench_function("to_record_batch", |b| {
        b.iter(|| black_box(ndl_arrow::to_record_batch(&data).unwrap()))
    });
    let batch = ndl_arrow::to_record_batch(&data).unwrap();
    group.bench_function("from_record_batch", |b| {
        b.iter(|| black_box(ndl_arrow::from_record_batch::<Reading>(&batch).unwrap()))
    });
    drop(batch);
    group.finish();

    // Parquet writes of a fifth of the records, the file in the system's
    // temporary directory: uncompressed and zstd level 1. The pyarrow
    // figure to set beside them comes from `pq.write_table` of the same
    // table (see BENCHMARKS.md).
    use ndl_arrow::parquet::basic::{Compression, ZstdLevel};
    use ndl_arrow::parquet::file::properties::WriterProperties;
    let part = &data[..n / 5];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.parquet");
    let mut group = c.benchmark_group("parquet");
    group.throughput(Throughput::Bytes(40 * part.len() as u64));
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(5));
    for (name, compression) in [
        ("write uncompressed", Compression::UNCOMPRESSED),
        ("write zstd(1)", Compression::ZSTD(ZstdLevel::default())),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let props = WriterProperties::builder()
                    .set_compression(compression)
                    .build();
                let mut w = ndl_arrow::ParquetWriter::<Reading>::create_with(&path, props).unwrap();
                w.append(part).unwrap();
                w.finish().unwrap();
            })
        });
    }
    group.finish();
}

criterion_group!(benches, compare);
criterion_main!(benches);
