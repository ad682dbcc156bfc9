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
    group.finish();
}

criterion_group!(benches, compare);
criterion_main!(benches);
