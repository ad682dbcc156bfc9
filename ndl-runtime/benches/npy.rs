//! Criterion statistics for each `.npy` operation on 1 MiB and 8 MiB of
//! records: `cargo bench -p ndl-runtime --bench npy`. In memory (`Vec<u8>` and `&[u8]`)
//! to isolate our own work from the kernel's, and through files in
//! `target/bench-data/` for the whole path. The full comparison with the
//! raw limit, npyz and NumPy is `cargo bench --bench compare`.
//!
//! Also: appending 1 MiB to a 512 MiB file against writing 1 MiB
//! (`append/...`), and reading by field name against reading the same
//! records from a file of exactly their layout (`by-name/...`).

mod common;
#[path = "common/memory_cells.rs"]
mod memory_cells;

use std::fs::{self, File};
use std::io::{Seek, SeekFrom, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::{Dense32, Padded24, Record, records};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use memory_cells::memory_cells;
use ndl_runtime::NdlType;
use ndl_runtime::npy::{self, ByteOrder, MmapArray, ReadOptions, WriteOptions};

fn dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/bench-data/criterion");
    fs::create_dir_all(&d).unwrap();
    d
}

fn bench_record<T: Record + ndl_runtime::Record>(c: &mut Criterion, order: ByteOrder) {
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
        let file = memory_cells(&mut g, mb, &recs, &options);
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
        // Written again: a filter may have skipped the benchmarks that write it.
        options.write_file(&path, &recs).unwrap();
        assert!(npy::read_file::<T>(&path).unwrap() == recs);
        let _ = fs::remove_file(&path);
        let _ = fs::remove_file(&raw);
    }
    g.finish();
}

/// Appending 1 MiB of records to a 512 MiB file, in place, against
/// writing the same 1 MiB as a new file and a raw `write_all` of 1 MiB at
/// the end of a file. After each timed append the file is cut back to
/// 512 MiB and its header restored (not timed), so every append meets the
/// same file.
fn bench_append(c: &mut Criterion) {
    let mut g = c.benchmark_group("append");
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    let batch: Vec<Padded24> = records((1 << 20) / 24);
    g.throughput(Throughput::Bytes(std::mem::size_of_val(&batch[..]) as u64));
    let big = dir().join("append-512.npy");
    let base: Vec<Padded24> = records((512 << 20) / 24);
    npy::write_file(&big, &base).unwrap();
    let len = fs::metadata(&big).unwrap().len();
    let header_len = len as usize - std::mem::size_of_val(&base[..]);
    drop(base);
    let mut header = vec![0; header_len];
    std::io::Read::read_exact(&mut File::open(&big).unwrap(), &mut header).unwrap();
    g.bench_function("append_file 1 MiB to 512 MiB", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let t = Instant::now();
                npy::append_file(&big, &batch).unwrap();
                total += t.elapsed();
                let mut f = fs::OpenOptions::new().write(true).open(&big).unwrap();
                f.set_len(len).unwrap();
                f.write_all(&header).unwrap();
            }
            total
        })
    });
    let raw = dir().join("append-raw.npy");
    fs::copy(&big, &raw).unwrap();
    let bytes = {
        let mut v = Vec::new();
        npy::write(&mut v, &batch).unwrap();
        v.split_off(v.len() - std::mem::size_of_val(&batch[..]))
    };
    g.bench_function("raw write_all 1 MiB at the end of 512 MiB", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let t = Instant::now();
                let mut f = fs::OpenOptions::new().write(true).open(&raw).unwrap();
                f.seek(SeekFrom::End(0)).unwrap();
                f.write_all(&bytes).unwrap();
                drop(f);
                total += t.elapsed();
                fs::OpenOptions::new()
                    .write(true)
                    .open(&raw)
                    .unwrap()
                    .set_len(len)
                    .unwrap();
            }
            total
        })
    });
    let small = dir().join("append-new-1.npy");
    g.bench_function("write_file 1 MiB", |b| {
        b.iter(|| npy::write_file(&small, &batch).unwrap())
    });
    g.finish();
    for p in [big, raw, small] {
        let _ = fs::remove_file(p);
    }
}

/// The fields of [`Padded24`] in another order, at other offsets, with two
/// more: 24 bytes without padding. Read by name as `Padded24`, every
/// field moves.
#[derive(Clone, Copy, NdlType)]
#[repr(C)]
struct Shuffled {
    d: i8,
    c: [u8; 3],
    extra: u32,
    b: f64,
    a: u32,
    more: u32,
}

/// Reading `Padded24` records by name from a [`Shuffled`] file, against
/// reading them from a file of exactly their layout.
fn bench_by_name(c: &mut Criterion) {
    let mut g = c.benchmark_group("by-name");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    for mb in [1usize, 8, 64] {
        let n = mb * (1 << 20) / 24;
        let recs: Vec<Padded24> = records(n);
        let shuffled: Vec<Shuffled> = recs
            .iter()
            .map(|r| Shuffled {
                d: r.d,
                c: r.c,
                extra: 7,
                b: r.b,
                a: r.a,
                more: 9,
            })
            .collect();
        g.throughput(Throughput::Elements(n as u64));
        let same = dir().join(format!("by-name-same-{mb}.npy"));
        let other = dir().join(format!("by-name-other-{mb}.npy"));
        npy::write_file(&same, &recs).unwrap();
        npy::write_file(&other, &shuffled).unwrap();
        let by_name = ReadOptions::new().by_name(true);
        assert!(by_name.read_file::<Padded24>(&other).unwrap().data == recs);
        g.bench_function(BenchmarkId::new("read_file same layout", mb), |b| {
            b.iter(|| ReadOptions::new().read_file::<Padded24>(&same).unwrap())
        });
        g.bench_function(BenchmarkId::new("read_file by name", mb), |b| {
            b.iter(|| by_name.read_file::<Padded24>(&other).unwrap())
        });
        let (same_bytes, other_bytes) = (fs::read(&same).unwrap(), fs::read(&other).unwrap());
        g.bench_function(BenchmarkId::new("read from &[u8] same layout", mb), |b| {
            b.iter(|| {
                ReadOptions::new()
                    .read::<Padded24, _>(&same_bytes[..])
                    .unwrap()
            })
        });
        g.bench_function(BenchmarkId::new("read from &[u8] by name", mb), |b| {
            b.iter(|| by_name.read::<Padded24, _>(&other_bytes[..]).unwrap())
        });
        let _ = fs::remove_file(&same);
        let _ = fs::remove_file(&other);
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    bench_record::<Dense32>(c, ByteOrder::NATIVE);
    bench_record::<Padded24>(c, ByteOrder::NATIVE);
    bench_record::<Padded24>(c, ByteOrder::Big);
}

criterion_group!(npy_benches, benches, bench_append, bench_by_name);
criterion_main!(npy_benches);
