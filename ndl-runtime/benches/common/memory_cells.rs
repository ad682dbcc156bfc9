//! The in-memory cells that `npy` and `time` share: a raw memcpy of a
//! file's bytes, our write of the records into a `Vec`, and our read of
//! them back from `&[u8]`, all on the same bytes so that the three compare.

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Throughput};
use ndl_runtime::NdlType;
use ndl_runtime::npy::{ReadOptions, WriteOptions};

/// Adds the three cells for `recs`, labelled `mb`, to `g`, and returns the
/// file that `options` writes of them, for further cells.
pub fn memory_cells<T: NdlType>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    mb: usize,
    recs: &[T],
    options: &WriteOptions,
) -> Vec<u8> {
    let mut file = Vec::new();
    options.write(&mut file, recs).unwrap();
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
            options.write(&mut out, recs).unwrap();
        })
    });
    g.bench_function(BenchmarkId::new("read from &[u8]", mb), |b| {
        b.iter(|| ReadOptions::new().read::<T, _>(&file[..]).unwrap())
    });
    file
}
