//! Time fields cost what the `i64` they are costs: the same records with a
//! `DateTime64<Nanos>` and a `TimeDelta64<Micros>` field, or with two `i64`
//! fields, written to and read from memory, against a raw memcpy of the
//! same bytes, in native and swapped byte order. `cargo bench -p ndl-runtime --bench time`;
//! the ratio to the memcpy should be the same for both records.

use std::time::Duration;

#[path = "common/memory_cells.rs"]
mod memory_cells;

use criterion::{Criterion, criterion_group, criterion_main};
use memory_cells::memory_cells;
use ndl_runtime::NdlType;
use ndl_runtime::npy::{ByteOrder, WriteOptions};
use ndl_runtime::time::{DateTime64, Micros, Nanos, TimeDelta64};

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
        memory_cells(&mut g, mb, &recs, &options);
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
