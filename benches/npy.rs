//! Criterion statistics for each `.npy` operation on 1 MiB and 8 MiB of
//! records: `cargo bench --bench npy`. In memory (`Vec<u8>` and `&[u8]`)
//! to isolate our own work from the kernel's, and through files in
//! `target/bench-data/` for the whole path. The full comparison with the
//! raw limit, npyz and NumPy is `cargo bench --bench compare`.

mod common;

use std::fs::{self, File};
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use common::{records, Dense32, Padded24, Record};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ndl_runtime::npy::{self, ByteOrder, MmapArray, ReadOptions, WriteOptions};

fn dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-data/criterion");
    fs::create_dir_all(&d).unwrap();
    d
}

fn bench_record<T: Record>(c: &mut Criterion, order: ByteOrder) {
    let big = order == ByteOrder::Big && ByteOrder::NATIVE == ByteOrder::Little;
    let name = format!("{}{}", T::NAME, if big { "-be" } else { "" });
    let mut g = c.benchmark_group(&name);
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    for mb in [1usize, 8] {
        let n = mb * (1 << 20) / std::mem::size_of::<T>();
        let recs: Vec<T> = records(n);
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
        g.bench_function(BenchmarkId::new("npyz write to Vec", mb), |b| {
            use npyz::WriterBuilder;
            let mut out = Vec::with_capacity(file.len());
            b.iter(|| {
                out.clear();
                let mut w = npyz::WriteOptions::new()
                    .dtype(T::npyz_dtype(order == ByteOrder::Big))
                    .shape(&[n as u64])
                    .writer(&mut out)
                    .begin_nd()
                    .unwrap();
                for r in &recs {
                    w.push(r).unwrap();
                }
                w.finish().unwrap();
            })
        });
        let mut npyz_file = Vec::new();
        {
            use npyz::WriterBuilder;
            let mut w = npyz::WriteOptions::new()
                .dtype(T::npyz_dtype(order == ByteOrder::Big))
                .shape(&[n as u64])
                .writer(&mut npyz_file)
                .begin_nd()
                .unwrap();
            for r in &recs {
                w.push(r).unwrap();
            }
            w.finish().unwrap();
        }
        g.bench_function(BenchmarkId::new("npyz read from &[u8]", mb), |b| {
            b.iter(|| {
                npyz::NpyFile::new(&npyz_file[..])
                    .unwrap()
                    .into_vec::<T>()
                    .unwrap()
            })
        });

        let path = dir().join(format!("{name}-{mb}.npy"));
        let raw = dir().join(format!("{name}-{mb}-raw.npy"));
        g.bench_function(BenchmarkId::new("raw write_all to file", mb), |b| {
            b.iter(|| {
                let mut f = File::create(&raw).unwrap();
                f.write_all(&file).unwrap();
            })
        });
        g.bench_function(BenchmarkId::new("write_file", mb), |b| {
            b.iter(|| options.write_file(&path, &recs).unwrap())
        });
        g.bench_function(BenchmarkId::new("read_file", mb), |b| {
            b.iter(|| ReadOptions::new().read_file::<T>(&path).unwrap())
        });
        if order == ByteOrder::NATIVE {
            g.bench_function(BenchmarkId::new("mmap open", mb), |b| {
                // SAFETY: nothing modifies the file while it is mapped.
                b.iter(|| unsafe { MmapArray::<T>::open(&path) }.unwrap())
            });
        }
        assert!(npy::read_file::<T>(&path).unwrap() == recs);
        let _ = fs::remove_file(&path);
        let _ = fs::remove_file(&raw);
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    bench_record::<Dense32>(c, ByteOrder::NATIVE);
    bench_record::<Padded24>(c, ByteOrder::NATIVE);
    bench_record::<Padded24>(c, ByteOrder::Big);
}

criterion_group!(npy_benches, benches);
criterion_main!(npy_benches);
