//! The Zarr part of `cargo bench --bench compare`: ndl-zarr against zarrs,
//! zarr-python and the raw limit, on the same records in the same run.
//!
//! One cell: `mb` MiB of [`Padded24Flat`] records (24 bytes in memory, 8 of
//! them padding; 16 bytes packed), Zarr v3, chunks of [`CHUNK`] records,
//! zstd at [`LEVEL`] (no checksum) for every writer, in
//! `target/bench-data/`. It times
//! - ours: `WriteOptions::new().codec(Codec::Zstd(LEVEL)).chunk_len(CHUNK)
//!   .write(dir, &records)` and `ndl_zarr::read::<T>(dir)` into `Vec<T>`;
//! - zarrs 0.23.14 itself (ndl-zarr's engine) on the same packed bytes,
//!   packed once outside the timing, as the plain fixed-size data type
//!   `r128` (`data_type::raw_bits(16)`): `ArrayBuilder` with the same
//!   chunks and codec, `store_metadata` + `store_array_subset` of the whole
//!   array with zarrs' own parallelism; `Array::open` +
//!   `retrieve_array_subset` of the whole array into bytes. Its chunk files
//!   are checked byte for byte against ours: the same encode work. The
//!   store is zarrs' `FilesystemStore` with `set` as one `std::fs::write`
//!   ([`NoSyncFs`]): the stock store `fsync`s every chunk, which no other
//!   writer here does (it is timed too, for reference);
//! - ours from and to packed bytes (`PackedWriter::create_with` + `append`,
//!   `read_packed`): the same pipeline without packing and unpacking `T`,
//!   so the difference is what packing costs (no target);
//! - zarr-python (`benches/zarr_times.py`, in a Python found through
//!   `NDL_PYTHON312`, else the repo's `.venv312`): `create_array` +
//!   `a[:] = records` of the same records (read from our store, the same
//!   packed dtype), same chunks and codec; `open_array(...)[:]`;
//! - the codec alone, the floor of any writer and reader of these chunks:
//!   zstd at `LEVEL` (the `zstd` crate zarrs calls) compressing the same
//!   packed chunks and decompressing our chunk files, on the same rayon
//!   threads, with a compressor, decompressor and output buffer kept per
//!   thread: no store, no I/O, no packing, no new memory. zarr-python's
//!   time over the codec's is the most any implementation doing this
//!   codec work on these cores could reach against it;
//! - the limit of any writer of these chunks (issue 17's restated target):
//!   the codec alone compressing the same packed chunks on the same
//!   threads, plus a raw `fs::write` of each compressed chunk to its own
//!   file; and of any reader: a raw `fs::read` of each chunk file plus a
//!   bare decompress into the chunk's place. Ours, writing and reading
//!   records and columns, is reported as a fraction of that limit (target
//!   ≥ 0.9), and against zarrs (target ≥ 1.0);
//! - a plain reader into records of `T`: the read limit's reads, but
//!   decompressing into a buffer each thread keeps, then making each
//!   packed record a `T` ([`from_packed`], field by field) in its place in
//!   new memory. A `T` is 24 bytes where its packed record is 16: this
//!   reader, as ours, writes half as many bytes again into new memory as
//!   the read limit does (no target: what a reader that returns `T`s costs
//!   written plainly);
//! - ours with `WriteOptions::durable(true)`, each file and directory
//!   flushed to the disk around its rename: what power-loss durability
//!   costs (no target);
//! - without compression: ours with `Codec::None` against the raw limit of
//!   the npy comparison (`File::create` + `fallocate` + one `write_all`) of
//!   the same packed bytes to one file, and without the `fallocate`; reads:
//!   ours into `Vec<T>` against `read_exact` of that file (no target).
//!
//! Every time is the best of a few rounds; each round runs every job once,
//! starting one job further on than the last. Each store or file is deleted
//! before it is written and right after (outside the timing), but for the
//! last round's, which the reads read; no `fsync`; reads read what was just
//! written, from the page cache, into new memory, and what they return is
//! dropped and checked outside the timing. With each best time goes the
//! CPU time (user and system, all threads) the process spent in it.
//! `NDL_BENCH_VERBOSE=1` prints every repetition.

use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::Path;
use std::process::Command;

use ndl_runtime::NdlType;
use ndl_runtime::records::Packer;
use ndl_zarr::{Codec, PackedWriter, WriteOptions};

use crate::common::{Padded24Flat, Record, advise_huge, huge_vec, records};
use crate::{MB, preallocate};

#[path = "zarr_limit.rs"]
mod limit;
#[path = "zarr_zarrs.rs"]
mod zarrs_baseline;

use limit::{codec_compress, codec_decompress, limit_read, limit_write, plain_read_records};
use zarrs_baseline::{zarrs_read, zarrs_write};

#[path = "zarr_rounds.rs"]
mod rounds;
pub use rounds::verbose;
use rounds::{Job, Timed, rounds};

#[path = "zarr_report.rs"]
mod report;
pub use report::print;

/// zstd's level for every writer: zarr-python's and ndl-zarr's default,
/// the cell issue #17 restated its targets on.
pub const LEVEL: i32 = 3;
/// Records per chunk: 1 MiB of packed records, the cell of issue #17.
pub const CHUNK: u64 = 1 << 16;

type T = Padded24Flat;

/// The size of the Zarr cell: `--zarr-mb N`, else `NDL_BENCH_ZARR_MB`,
/// else 512; 0 leaves the Zarr comparison out.
pub fn size_from(args: &[String]) -> usize {
    if let Some(i) = args.iter().position(|a| a == "--zarr-mb") {
        return args
            .get(i + 1)
            .and_then(|s| s.trim().parse().ok())
            .expect("--zarr-mb: a size in MB, e.g. --zarr-mb 64");
    }
    match std::env::var("NDL_BENCH_ZARR_MB") {
        Ok(s) => s
            .trim()
            .parse()
            .expect("NDL_BENCH_ZARR_MB: a size in MB, e.g. 64"),
        Err(_) => 512,
    }
}

/// `NDL_PYTHON312`, else the repo's `.venv312/bin/python`; it must import
/// zarr 3.2 or later (the first to read and write the v3 `struct` type).
pub fn find_python() -> std::path::PathBuf {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv312/bin/python");
    let python = match std::env::var_os("NDL_PYTHON312") {
        Some(p) => std::path::PathBuf::from(p),
        None if venv.exists() => venv,
        None => fail_python("neither NDL_PYTHON312 is set nor does .venv312/bin/python exist"),
    };
    let ok = Command::new(&python)
        .args([
            "-c",
            "import sys, zarr; sys.exit(tuple(map(int, zarr.__version__.split('.')[:2])) < (3, 2))",
        ])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        fail_python(&format!(
            "{} cannot import zarr 3.2 or later",
            python.display()
        ));
    }
    python
}

fn fail_python(why: &str) -> ! {
    eprintln!(
        "error: the Zarr comparison needs zarr-python 3.2 or later: {why}.\n\
         Run scripts/test-all.sh once (it provisions .venv312 with zarr 3.4), or set\n\
         NDL_PYTHON312=/path/to/python for a Python that has it; --zarr-mb 0 leaves\n\
         the Zarr comparison out."
    );
    std::process::exit(2);
}

/// The best times of the cell and what was stored.
pub struct Cell {
    mb: usize,
    records: usize,
    packed_bytes: u64,
    ours_write: Timed,
    /// Ours, flushed to the disk (`WriteOptions::durable`).
    durable_write: Timed,
    /// Ours, the same records in the columns layout.
    columns_write: Timed,
    zarrs_write: Timed,
    /// zarrs on its stock `FilesystemStore`, which syncs every chunk.
    zarrs_sync_write: Timed,
    ours_read: Timed,
    /// Ours, the columns store read back into records.
    columns_read: Timed,
    zarrs_read: Timed,
    /// The codec plus a raw write of each compressed chunk, and a raw read
    /// of each chunk file plus the codec (see the module's comment).
    limit_write: Timed,
    limit_read: Timed,
    /// A plain reader into records of `T`: the read limit's reads, then
    /// each packed record made a `T` in new memory.
    plain_typed_read: Timed,
    /// Ours from and to packed records (`PackedWriter`, `read_packed`).
    packed_write: Timed,
    packed_none_write: Timed,
    packed_read: Timed,
    python_write: Timed,
    python_read: Timed,
    python_read_ours: f64,
    /// The codec alone on the same chunks (see the module's comment).
    codec_write: Timed,
    codec_read: Timed,
    none_write: Timed,
    raw_write: Timed,
    raw_write_plain: Timed,
    none_read: Timed,
    raw_read: Timed,
    ours_stored: u64,
    zarrs_stored: u64,
    python_stored: u64,
    python_versions: String,
}

/// Repetitions for ours, zarrs and raw, and for zarr-python.
/// Seven even for the big cell: on this benchmark's virtual machine the
/// first touch of freed memory (page cache, fresh buffers) varies several
/// times over between repetitions (see BENCHMARKS.md), and five left the
/// best of a job to luck.
fn reps(mb: usize) -> (usize, usize) {
    match mb {
        0..=4 => (10, 5),
        _ => (7, 3),
    }
}

/// Writes packed records of `T` as a new store with ndl-zarr's untyped
/// writer: the typed writer's work without the packing.
/// A `T` from its packed bytes in native byte order, field by field, as
/// any reader that knows `T` would write it: the limit's record copy.
fn from_packed(p: &[u8]) -> T {
    Padded24Flat {
        a: u32::from_ne_bytes(p[0..4].try_into().unwrap()),
        b: f64::from_ne_bytes(p[4..12].try_into().unwrap()),
        c: u16::from_ne_bytes(p[12..14].try_into().unwrap()),
        d: p[14],
        e: p[15] as i8,
    }
}

fn write_packed(options: &WriteOptions, path: &Path, packed: &[u8]) {
    let mut w = PackedWriter::create_with(path, &T::datatype(), options).unwrap();
    w.append(packed).unwrap();
    w.finish().unwrap();
}

fn remove(p: &Path) {
    let _ = fs::remove_dir_all(p);
    let _ = fs::remove_file(p);
}

/// The bytes of the chunk files (under `c/`) of a v3 store.
fn chunk_bytes(store: &Path) -> u64 {
    fn walk(p: &Path) -> u64 {
        fs::read_dir(p).map_or(0, |entries| {
            entries
                .flatten()
                .map(|e| match e.file_type() {
                    Ok(t) if t.is_dir() => walk(&e.path()),
                    _ => e.metadata().map_or(0, |m| m.len()),
                })
                .sum()
        })
    }
    walk(&store.join("c"))
}

pub fn run(mb: usize, dir: &Path, python: &Path, script: &Path) -> Cell {
    let n = mb * MB / std::mem::size_of::<T>();
    eprintln!(
        "zarr: {} {mb} MB: {n} records, zstd {LEVEL}, chunks of {CHUNK}",
        T::NAME
    );
    let (reps, python_reps) = reps(mb);
    let recs: Vec<T> = records(n);
    let packer = Packer::<T>::new().expect("packable");
    let size = packer.layout().size();
    let mut packed = huge_vec::<u8>(n * size);
    packed.resize(n * size, 0);
    packer.pack(&recs, &mut packed);

    const OURS: &str = "zarr-ours.zarr";
    const ZARRS: &str = "zarr-zarrs.zarr";
    const ZARRS_SYNC: &str = "zarr-zarrs-sync.zarr";
    const NONE: &str = "zarr-none.zarr";
    const RAW: &str = "zarr-raw.bin";
    const PACKED: &str = "zarr-packed.zarr";
    const PACKED_NONE: &str = "zarr-packed-none.zarr";
    const COLUMNS: &str = "zarr-columns.zarr";
    const LIMIT: &str = "zarr-limit";
    const DURABLE: &str = "zarr-durable.zarr";
    let [
        ours,
        zarrs,
        zarrs_sync,
        none,
        raw,
        packed_store,
        packed_none,
        columns,
        limit,
        durable,
    ] = [
        OURS,
        ZARRS,
        ZARRS_SYNC,
        NONE,
        RAW,
        PACKED,
        PACKED_NONE,
        COLUMNS,
        LIMIT,
        DURABLE,
    ]
    .map(|p| dir.join(p));
    let chunks = (n as u64).div_ceil(CHUNK);
    let chunk_size = CHUNK as usize * size;
    // Zarr stores the last chunk whole, its tail the fill value (zeros).
    let mut whole_chunks = packed.clone();
    whole_chunks.resize(chunks as usize * chunk_size, 0);
    let py = dir.join("zarr-python.zarr");
    let zstd = WriteOptions::new()
        .codec(Codec::Zstd(LEVEL))
        .chunk_len(CHUNK);
    let plain = WriteOptions::new().codec(Codec::None).chunk_len(CHUNK);

    // Writes, in rounds.
    let write_jobs = [
        Job::write(dir, RAW, || {
            let mut f = File::create(&raw).unwrap();
            preallocate(&f, packed.len());
            f.write_all(&packed).unwrap();
        }),
        Job::write(dir, RAW, || {
            File::create(&raw).unwrap().write_all(&packed).unwrap()
        }),
        Job::write(dir, NONE, || plain.write(&none, &recs).unwrap()),
        Job::write(dir, ZARRS_SYNC, || {
            zarrs_write(&zarrs_sync, &packed, n as u64, size, true)
        }),
        Job::write(dir, ZARRS, || {
            zarrs_write(&zarrs, &packed, n as u64, size, false)
        }),
        Job::write(dir, OURS, || zstd.write(&ours, &recs).unwrap()),
        Job::write(dir, PACKED, || write_packed(&zstd, &packed_store, &packed)),
        Job::write(dir, PACKED_NONE, || {
            write_packed(&plain, &packed_none, &packed)
        }),
        Job::write(dir, COLUMNS, || {
            zstd.clone()
                .layout(ndl_zarr::Layout::Columns)
                .write(&columns, &recs)
                .unwrap()
        }),
        Job::write(dir, LIMIT, || {
            limit_write(&whole_chunks, chunk_size, &limit)
        }),
        Job::write(dir, DURABLE, || {
            zstd.clone().durable(true).write(&durable, &recs).unwrap()
        }),
    ];
    let [
        raw_write,
        raw_write_plain,
        none_write,
        zarrs_sync_write,
        zarrs_write_t,
        ours_write,
        packed_write,
        packed_none_write,
        columns_write,
        limit_write_t,
        durable_write,
    ] = rounds(reps, &write_jobs)[..]
    else {
        unreachable!()
    };
    remove(&packed_none);
    remove(&durable);
    drop(write_jobs);
    remove(&zarrs_sync);

    // The same encode work: ours, zarrs' and the limit's chunks are the
    // same bytes.
    for c in 0..chunks {
        let key = format!("c/{c}");
        let our_chunk = fs::read(ours.join(&key)).unwrap();
        assert!(
            our_chunk == fs::read(zarrs.join(&key)).unwrap(),
            "chunk {key}: ours and zarrs' differ"
        );
        assert!(
            our_chunk == fs::read(limit.join(&key)).unwrap(),
            "chunk {key}: ours and the limit's differ"
        );
    }

    // The codec alone, on our chunk files and the same packed chunks.
    let frames: Vec<Vec<u8>> = (0..chunks)
        .map(|c| fs::read(ours.join(format!("c/{c}"))).unwrap())
        .collect();
    let decompressed = std::cell::RefCell::new(vec![0u8; whole_chunks.len()]);
    let codec_jobs = [
        Job::read(
            "the codec alone",
            || codec_compress(&whole_chunks, chunk_size),
            |lens| lens.iter().copied().eq(frames.iter().map(Vec::len)),
        ),
        Job::read(
            "the codec alone",
            || codec_decompress(&frames, &mut decompressed.borrow_mut(), chunk_size),
            |()| *decompressed.borrow() == whole_chunks,
        ),
    ];
    let [codec_write, codec_read] = rounds(reps, &codec_jobs)[..] else {
        unreachable!()
    };
    drop(codec_jobs);
    drop(frames);
    drop(decompressed);

    // Reads of what was just written, in rounds, each checked once.
    let read_jobs = [
        Job::read(
            "the raw read",
            || {
                let mut f = File::open(&raw).unwrap();
                let len = f.metadata().unwrap().len() as usize;
                let mut buf = vec![0u8; len]; // calloc: fresh pages, not yet touched
                advise_huge(buf.as_mut_ptr(), len);
                f.read_exact(&mut buf).unwrap();
                buf
            },
            |got| *got == packed,
        ),
        Job::read(
            "our reader (no compression)",
            || ndl_zarr::read::<T>(&none).unwrap(),
            |got| *got == recs,
        ),
        Job::read("zarrs", || zarrs_read(&zarrs), |got| *got == packed),
        Job::read(
            "our reader (zstd)",
            || ndl_zarr::read::<T>(&ours).unwrap(),
            |got| *got == recs,
        ),
        Job::read(
            "our packed reader",
            || ndl_zarr::read_packed(&packed_store, 0..n as u64).unwrap(),
            |got| *got == packed,
        ),
        Job::read(
            "our reader (zstd, columns)",
            || ndl_zarr::read::<T>(&columns).unwrap(),
            |got| *got == recs,
        ),
        Job::read(
            "the limit",
            // Into new memory, as every reader that returns records must
            // (and with the 2 MiB pages ours asks for): a buffer kept warm
            // from one repetition to the next would time no reader.
            || {
                let mut out = vec![0u8; whole_chunks.len()];
                advise_huge(out.as_mut_ptr(), out.len());
                limit_read(&limit, &mut out, chunk_size);
                out
            },
            |out| *out == whole_chunks,
        ),
        Job::read(
            "the plain reader into records",
            // Into new memory with 2 MiB pages, as ours.
            || {
                let mut out = huge_vec::<T>(n);
                plain_read_records(&limit, &mut out, n, (CHUNK as usize, size), from_packed);
                out
            },
            |out| *out == recs,
        ),
    ];
    let [
        raw_read,
        none_read,
        zarrs_read_t,
        ours_read,
        packed_read,
        columns_read,
        limit_read_t,
        plain_typed_read,
    ] = rounds(reps, &read_jobs)[..]
    else {
        unreachable!()
    };
    for p in [&packed_store, &columns, &limit] {
        remove(p);
    }
    drop(read_jobs);
    drop(whole_chunks);
    let ours_stored = chunk_bytes(&ours);
    let zarrs_stored = chunk_bytes(&zarrs);
    drop(packed);
    for p in [&raw, &none, &zarrs] {
        remove(p);
    }

    // zarr-python on the same records (it reads them from our store).
    let zp = crate::peer_script::run_peer_script(
        python,
        script,
        "zarr-python",
        &[
            ours.as_os_str(),
            py.as_os_str(),
            CHUNK.to_string().as_ref(),
            LEVEL.to_string().as_ref(),
            python_reps.to_string().as_ref(),
        ],
        n,
    );
    assert_eq!(zp["itemsize"].as_u64(), Some(size as u64));
    remove(&ours);
    remove(&py);

    Cell {
        mb,
        records: n,
        packed_bytes: (n * size) as u64,
        ours_write,
        durable_write,
        columns_write,
        zarrs_write: zarrs_write_t,
        zarrs_sync_write,
        packed_write,
        packed_none_write,
        packed_read,
        ours_read,
        columns_read,
        zarrs_read: zarrs_read_t,
        limit_write: limit_write_t,
        limit_read: limit_read_t,
        plain_typed_read,
        python_write: Timed {
            wall: zp["write"].as_f64().unwrap(),
            cpu: zp["write_cpu"].as_f64().unwrap(),
        },
        python_read: Timed {
            wall: zp["read"].as_f64().unwrap(),
            cpu: zp["read_cpu"].as_f64().unwrap(),
        },
        python_read_ours: zp["read_ours"].as_f64().unwrap(),
        codec_write,
        codec_read,
        none_write,
        raw_write,
        raw_write_plain,
        none_read,
        raw_read,
        ours_stored,
        zarrs_stored,
        python_stored: zp["stored_bytes"].as_u64().unwrap(),
        python_versions: format!(
            "zarr-python {} with NumPy {} on Python {}",
            zp["zarr"].as_str().unwrap_or("?"),
            zp["numpy"].as_str().unwrap_or("?"),
            zp["python"].as_str().unwrap_or("?")
        ),
    }
}
