//! Criterion statistics for packing and unpacking records, the transform
//! every Zarr chunk goes through: `cargo bench -p ndl-runtime --bench records`. 8 MiB of
//! records in memory, one thread, buffers reused: the copy loop alone.

mod common;

use std::time::Duration;

use common::{Padded24, Padded24Flat, Record, records};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ndl_runtime::records::{Packer, RecordBuf, Repacker};

const BYTES: usize = 8 << 20;

fn bench_type<T: Record + Send + Sync>(c: &mut Criterion) {
    let n = BYTES / std::mem::size_of::<T>();
    let data = records::<T>(n);
    let packer = Packer::<T>::new().expect("a packer");
    let repacker = Repacker::new(&T::datatype()).expect("a repacker");
    let mut packed = vec![0u8; n * packer.layout().size()];
    let mut g = c.benchmark_group(T::NAME);
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .throughput(Throughput::Bytes(BYTES as u64));
    g.bench_function("pack", |b| b.iter(|| packer.pack(&data, &mut packed)));
    let mut memory = vec![0u8; n * std::mem::size_of::<T>()];
    g.bench_function("repack-unpack", |b| {
        b.iter(|| repacker.unpack(&packed, &mut memory))
    });
    g.bench_function("unpack-into-records", |b| {
        b.iter(|| {
            let mut buf = RecordBuf::<T>::zeroed(n).expect("memory");
            let mut parts = buf.parts_mut(n);
            packer
                .unpack(&packed, &mut parts[0])
                .expect("valid records");
            drop(parts);
            buf.into_vec().expect("filled")
        })
    });
    g.finish();
}

fn packing(c: &mut Criterion) {
    bench_type::<Padded24Flat>(c);
    bench_type::<Padded24>(c);
}

criterion_group!(benches, packing);
criterion_main!(benches);
