//! Time fields cost what the `i64` they are costs: the same records with a
//! `DateTime64<Nanos>` and a `TimeDelta64<Micros>` field, or with two `i64`
//! fields, written to and read from memory, against a raw memcpy of the
//! same bytes, in native and swapped byte order. `cargo bench --bench time`;
//! the ratio to the memcpy should be the same for both records.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ndl_runtime::npy::{ByteOrder, ReadOptions, WriteOptions};
use ndl_runtime::time::{DateTime64, Micros, Nanos, TimeDelta64};
use ndl_runtime::NdlType;

#[derive(Clone, Copy, NdlType)]
#[repr(C)]
struct WithInts {
    id: u32,
    flag: u32,
    at: i64,
    took: i64,
    value: f64,
}

#[derive(Clone, Copy, NdlType)]
#[repr(C)]
struct WithTimes {
    id: u32,
    flag: u32,
    at: DateTime64<Nanos>,
    took: TimeDelta64<Micros>,
    value: f64,
}

fn bench<T: NdlType>(c: &mut Criterion, name: &str, make: impl Fn(u32) -> T) {
    for order in [ByteOrder::NATIVE, ByteOrder::NATIVE.opposite()] {
        let mut g = c.benchmark_group(format!("{name}-{}", order.name()));
        g.sample_size(10)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_secs(1));
        let mb = 8;
        let n = mb * (1 << 20) / std::mem::size_of::<T>();
        let recs: Vec<T> = (0..n as u32).map(&make).collect();
        let options = WriteOptions::new().byte_order(order);
        let mut file = Vec::new();
        options.write(&mut file, &recs).unwrap();
        g.throughput(Throughput::Bytes(file.len() as u64));
        g.bench_function(BenchmarkId::new("raw memcpy to Vec", mb), |b| {
            let mut out = Vec::with_capacity(file.len());
            b.iter(|| {
                out.clear();
                out.extend_from_slice(&file);
            })
        });
        g.bench_function(BenchmarkId::new("write to Vec", mb), |b| {
            let mut out = Vec::with_capacity(file.len());
            b.iter(|| {
                out.clear();
                options.write(&mut out, &recs).unwrap();
            })
        });
        g.bench_function(BenchmarkId::new("read from &[u8]", mb), |b| {
            b.iter(|| ReadOptions::new().read::<T, _>(&file[..]).unwrap())
        });
        g.finish();
    }
}

fn time_fields(c: &mut Criterion) {
    bench(c, "i64-fields", |i| WithInts {
        id: i,
        flag: i & 1,
        at: 1_795_608_000_000_000_000 + i64::from(i),
        took: -i64::from(i),
        value: f64::from(i),
    });
    bench(c, "time-fields", |i| WithTimes {
        id: i,
        flag: i & 1,
        at: DateTime64::new(1_795_608_000_000_000_000 + i64::from(i)),
        took: TimeDelta64::new(-i64::from(i)),
        value: f64::from(i),
    });
}

criterion_group!(benches, time_fields);
criterion_main!(benches);
