//! The whole comparison in one run: `cargo bench --bench compare`.
//!
//! For each record type and size, on the same records and in the same
//! directory (`target/bench-data/`), it times
//! - the limit: `File::create` + `fallocate` of the file's length (what
//!   NumPy's `tofile` does before writing) + one `write_all` of the file's
//!   bytes, and `File::open` + `read_exact` into a fresh `Vec<u8>`; the
//!   same write without `fallocate` is shown too;
//! - ours: `WriteOptions::write_file` from `&[T]`, `read_file` into `Vec<T>`
//!   (`ReadOptions` for every byte order), and `MmapArray::open`;
//! - npyz 0.9 with its derive: `NpyWriter` over a `BufWriter<File>`, and
//!   `NpyFile::into_vec` over a `BufReader<File>`;
//! - NumPy: `np.save` / `np.load`, timed by `benches/numpy_times.py` in a
//!   Python found through `NDL_PYTHON`, else the repo's `.venv`.
//!
//! Every time is the best of a few repetitions. Writes go to the page
//! cache: no `fsync` anywhere (raw, ours, npyz, NumPy alike); the file is
//! deleted before each write. Reads read the file just written, from the
//! page cache, into freshly allocated memory. All large buffers (records,
//! raw bytes, the raw read's buffer) are advised to use 2 MiB pages as
//! NumPy advises its arrays and our reader its `Vec`. Then it prints a Markdown
//! table of ratios and which targets are met.
//!
//! Then the Zarr comparison (`compare/zarr.rs`): ndl-zarr against zarrs,
//! zarr-python (found through `NDL_PYTHON312`, else the repo's `.venv312`)
//! and the raw limit, on one size of padded records; its own table.
//!
//! Then the Arrow and Parquet comparison (`compare/arrow.rs`): ndl-arrow
//! against a `memcpy`, serde_arrow, parquet_derive and pyarrow (through
//! `NDL_PYTHON312` too) on 10 M of the README's records; its own table.
//!
//! Then the HDF5 comparison (`compare/hdf5.rs`): ndl-hdf5 against raw
//! file I/O, hdf5-metno's `H5Type` path and h5py (through `NDL_PYTHON312`
//! too, `benches/hdf5_times.py`) on 512 MB of the README's records; its
//! own table.
//!
//! `NDL_BENCH_DIR` names another directory for the files and stores
//! (removed at the end), such as one on tmpfs.
//!
//! Options (after `--`): `--sizes 1,64` (MB of the .npy cells; default
//! 1,64,512), `--zarr-mb 64` (MB of the Zarr cell; default
//! `NDL_BENCH_ZARR_MB`, else 512; 0 leaves it out), `--s3-mb 64` (MB of
//! the object-storage cell, `compare/s3.rs`; default 256; 0 leaves it
//! out), `--arrow-records N` (default 10 M; 0 leaves it out), `--hdf5-mb N`
//! (default 512; 0 leaves it out), `--only npy`, `--only zarr`, `--only s3`,
//! `--only arrow` or `--only hdf5`.

#[path = "compare/arrow.rs"]
mod arrow;
#[path = "../ndl-runtime/benches/common/mod.rs"]
mod common;
#[path = "compare/hdf5.rs"]
mod hdf5_cmp;
#[path = "compare/machine.rs"]
mod machine;
#[path = "compare/peer_script.rs"]
mod peer_script;
#[path = "compare/s3.rs"]
mod s3;
#[path = "compare/zarr.rs"]
mod zarr;

use std::fs::{self, File};
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::{Dense32, Padded24, Record, advise_huge, huge_vec, records};
use machine::machine;
use ndl_runtime::npy::{ByteOrder, MmapArray, ReadOptions, WriteOptions};

const MB: usize = 1 << 20;

/// The best times of one cell: one record type, byte order and size.
#[derive(Default)]
struct Cell {
    record: String,
    mb: usize,
    records: usize,
    file_bytes: u64,
    raw_write: f64,
    /// The raw write without `fallocate` (for reference).
    raw_write_plain: f64,
    ours_write: f64,
    raw_read: f64,
    ours_read: f64,
    mmap_open: Option<f64>,
    npyz_write: f64,
    npyz_read: f64,
    numpy_write: f64,
    numpy_read: f64,
    /// Targets for write/raw and read/raw.
    write_target: f64,
    read_target: f64,
}

fn main() {
    let started = Instant::now();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(i) = args.iter().position(|a| a == "--s3-child") {
        return s3::child(&args[i + 1..]);
    }
    let only = args
        .iter()
        .position(|a| a == "--only")
        .map(|i| args.get(i + 1).map_or("", String::as_str));
    assert!(
        matches!(only, None | Some("npy" | "zarr" | "s3" | "arrow" | "hdf5")),
        "--only npy, --only zarr, --only s3, --only arrow or --only hdf5"
    );
    let sizes = if matches!(only, Some("zarr" | "s3" | "arrow" | "hdf5")) {
        vec![]
    } else {
        sizes_from_args(&args)
    };
    let zarr_mb = match only {
        None | Some("zarr") => zarr::size_from(&args),
        _ => 0,
    };
    let s3_mb = match only {
        None | Some("s3") => s3::size_from(&args),
        _ => 0,
    };
    let arrow_records = match only {
        None | Some("arrow") => arrow::records_from(&args),
        _ => 0,
    };
    let hdf5_mb = match only {
        None | Some("hdf5") => hdf5_cmp::size_from(&args),
        _ => 0,
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // Another filesystem (`NDL_BENCH_DIR=/dev/shm/ndl-bench`) separates
    // our work from the disk's filesystem.
    let dir = std::env::var_os("NDL_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target").join("bench-data"));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("create target/bench-data");
    let zarr_python = (zarr_mb > 0 || s3_mb > 0 || arrow_records > 0).then(zarr::find_python);
    if !sizes.is_empty() {
        run_npy(&sizes, &dir, root);
    }
    if let Some(python) = zarr_python.as_deref().filter(|_| zarr_mb > 0) {
        let script = root.join("benches").join("zarr_times.py");
        let cell = zarr::run(zarr_mb, &dir, python, &script);
        if !sizes.is_empty() {
            println!();
        }
        zarr::print(&cell, &machine(None, &dir), python);
    }
    if let Some(python) = zarr_python.as_deref().filter(|_| s3_mb > 0) {
        let script = root.join("benches").join("zarr_s3_times.py");
        s3::print(&s3::run(s3_mb, python, &script));
    }
    if let Some(python) = zarr_python.as_deref().filter(|_| arrow_records > 0) {
        let script = root.join("benches").join("arrow_times.py");
        let cell = arrow::run(arrow_records, &dir, python, &script);
        println!();
        arrow::print(&cell, &machine(None, &dir), python);
    }
    if hdf5_mb > 0 {
        let python = hdf5_cmp::find_python();
        let script = root.join("benches").join("hdf5_times.py");
        let cell = hdf5_cmp::run(hdf5_mb, &dir, &python, &script);
        println!();
        hdf5_cmp::print(&cell, &machine(None, &dir), &python);
    }
    let _ = fs::remove_dir_all(&dir);
    println!("\nwhole run: {:.0} s", started.elapsed().as_secs_f64());
}

/// The .npy comparison: a cell per record type, byte order and size.
fn run_npy(sizes: &[usize], dir: &Path, root: &Path) {
    let python = find_python();
    let script = root.join("benches").join("numpy_times.py");
    println!("# ndl .npy comparison\n");
    println!("{}", machine(Some(&python), dir));
    let mut cells = Vec::new();
    for &mb in sizes {
        cells.push(run_cell::<Dense32>(
            mb,
            ByteOrder::NATIVE,
            0.95,
            0.9,
            dir,
            &python,
            &script,
        ));
        cells.push(run_cell::<Padded24>(
            mb,
            ByteOrder::NATIVE,
            0.8,
            0.9,
            dir,
            &python,
            &script,
        ));
        cells.push(run_cell::<Padded24>(
            mb,
            ByteOrder::NATIVE.opposite(),
            0.5,
            0.5,
            dir,
            &python,
            &script,
        ));
    }
    println!();
    print_table(&cells);
    println!();
    print_targets(&cells);
}

fn sizes_from_args(args: &[String]) -> Vec<usize> {
    match args.iter().position(|a| a == "--sizes") {
        Some(i) => args
            .get(i + 1)
            .expect("--sizes needs a list, e.g. --sizes 1,64")
            .split(',')
            .map(|s| s.trim().parse().expect("--sizes: sizes in MB"))
            .collect(),
        None => vec![1, 64, 512],
    }
}

/// `NDL_PYTHON`, else the repo's `.venv/bin/python`; it must import numpy.
fn find_python() -> PathBuf {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python");
    let python = match std::env::var_os("NDL_PYTHON") {
        Some(p) => PathBuf::from(p),
        None if venv.exists() => venv,
        None => fail_python("neither NDL_PYTHON is set nor does .venv/bin/python exist"),
    };
    let ok = Command::new(&python)
        .args(["-c", "import numpy"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        fail_python(&format!("{} cannot import numpy", python.display()));
    }
    python
}

fn fail_python(why: &str) -> ! {
    eprintln!(
        "error: the comparison needs NumPy: {why}.\n\
         Run scripts/test-all.sh once (it provisions .venv with numpy), or set\n\
         NDL_PYTHON=/path/to/python for a Python that has numpy."
    );
    std::process::exit(2);
}

/// Repetitions for our and raw timings, and for npyz (much slower).
fn reps(mb: usize) -> (usize, usize) {
    match mb {
        0..=4 => (20, 5),
        5..=128 => (5, 2),
        _ => (3, 1),
    }
}

fn best_of(reps: usize, mut f: impl FnMut() -> Duration) -> f64 {
    (0..reps)
        .map(|_| f().as_secs_f64())
        .fold(f64::INFINITY, f64::min)
}

fn time(f: impl FnOnce()) -> Duration {
    let t = Instant::now();
    f();
    t.elapsed()
}

fn run_cell<T: Record>(
    mb: usize,
    order: ByteOrder,
    write_target: f64,
    read_target: f64,
    dir: &Path,
    python: &Path,
    script: &Path,
) -> Cell {
    let n = mb * MB / std::mem::size_of::<T>();
    let recs: Vec<T> = records(n);
    let native = order == ByteOrder::NATIVE;
    let name = if native {
        T::NAME.to_string()
    } else {
        format!("{} {}-endian", T::NAME, order.name())
    };
    eprintln!("{name}, {mb} MB: {n} records");
    let (reps, npyz_reps) = reps(mb);
    let ours = dir.join(format!("{}-{mb}-ours.npy", T::NAME));
    let raw = dir.join(format!("{}-{mb}-raw.npy", T::NAME));
    let options = WriteOptions::new().byte_order(order);

    // The file once, for its bytes (the raw write writes exactly these).
    options.write_file(&ours, &recs).unwrap();
    let mut bytes = huge_vec(0);
    File::open(&ours).unwrap().read_to_end(&mut bytes).unwrap();
    let mut bytes = {
        let mut b = huge_vec(bytes.len());
        b.extend_from_slice(&bytes);
        b
    };
    bytes.shrink_to_fit();
    let file_bytes = bytes.len() as u64;

    // Writes, raw and ours alternating so drift hits both alike.
    let (mut raw_write, mut raw_write_plain, mut ours_write) =
        (f64::INFINITY, f64::INFINITY, f64::INFINITY);
    for _ in 0..reps {
        let _ = fs::remove_file(&raw);
        let t = time(|| {
            let mut f = File::create(&raw).unwrap();
            preallocate(&f, bytes.len());
            f.write_all(&bytes).unwrap();
        });
        raw_write = raw_write.min(t.as_secs_f64());
        let _ = fs::remove_file(&raw);
        let t = time(|| {
            let mut f = File::create(&raw).unwrap();
            f.write_all(&bytes).unwrap();
        });
        raw_write_plain = raw_write_plain.min(t.as_secs_f64());
        let _ = fs::remove_file(&raw);
        let _ = fs::remove_file(&ours);
        let t = time(|| options.write_file(&ours, &recs).unwrap());
        ours_write = ours_write.min(t.as_secs_f64());
    }
    assert_eq!(
        fs::read(&ours).unwrap(),
        bytes,
        "our writer is not deterministic"
    );
    drop(bytes);

    // Reads of the file just written (page cache), into fresh memory.
    let (mut raw_read, mut ours_read, mut mmap_open) =
        (f64::INFINITY, f64::INFINITY, f64::INFINITY);
    for rep in 0..reps {
        let mut buf = Vec::new();
        let t = time(|| {
            let mut f = File::open(&ours).unwrap();
            let len = f.metadata().unwrap().len() as usize;
            buf = vec![0u8; len]; // calloc: fresh pages, not yet touched
            advise_huge(buf.as_mut_ptr(), len);
            f.read_exact(&mut buf).unwrap();
        });
        raw_read = raw_read.min(t.as_secs_f64());
        drop(buf);
        let mut got = Vec::new();
        let t = time(|| got = ReadOptions::new().read_file::<T>(&ours).unwrap().data);
        ours_read = ours_read.min(t.as_secs_f64());
        if rep == 0 {
            assert!(got == recs, "our reader read other records");
        }
        drop(got);
        if native {
            let mut map = None;
            // SAFETY: nothing changes the file while it is mapped.
            let t = time(|| map = Some(unsafe { MmapArray::<T>::open(&ours) }.unwrap()));
            mmap_open = mmap_open.min(t.as_secs_f64());
            assert_eq!(map.unwrap().len(), n);
        }
    }

    // npyz on the same records, in the same byte order.
    let npyz_path = dir.join(format!("{}-{mb}-npyz.npy", T::NAME));
    let dtype = T::npyz_dtype(order == ByteOrder::Big);
    let npyz_write = best_of(npyz_reps, || {
        let _ = fs::remove_file(&npyz_path);
        time(|| {
            use npyz::WriterBuilder;
            let f = BufWriter::new(File::create(&npyz_path).unwrap());
            let mut w = npyz::WriteOptions::new()
                .dtype(dtype.clone())
                .shape(&[n as u64])
                .writer(f)
                .begin_nd()
                .unwrap();
            for r in &recs {
                w.push(r).unwrap();
            }
            w.finish().unwrap();
        })
    });
    let mut checked = false;
    let npyz_read = best_of(npyz_reps, || {
        let mut got: Vec<T> = Vec::new();
        let t = time(|| {
            let f = BufReader::new(File::open(&npyz_path).unwrap());
            got = npyz::NpyFile::new(f).unwrap().into_vec().unwrap();
        });
        if !checked {
            assert!(got == recs, "npyz read other records");
            checked = true;
        }
        t
    });
    let _ = fs::remove_file(&npyz_path);

    // NumPy on the same records (it loads our file) and dtype.
    let np_out = dir.join(format!("{}-{mb}-numpy.npy", T::NAME));
    let np = peer_script::run_peer_script(
        python,
        script,
        "NumPy",
        &[
            ours.as_os_str(),
            np_out.as_os_str(),
            reps.to_string().as_ref(),
        ],
        n,
    );
    let _ = fs::remove_file(&ours);
    let _ = fs::remove_file(&raw);
    let _ = fs::remove_file(&np_out);

    Cell {
        record: name,
        mb,
        records: n,
        file_bytes,
        raw_write,
        raw_write_plain,
        ours_write,
        raw_read,
        ours_read,
        mmap_open: native.then_some(mmap_open),
        npyz_write,
        npyz_read,
        // What NumPy does for the same job: native records in memory to
        // this file, and this file to native records in memory.
        numpy_write: np["save_from_native"].as_f64().unwrap(),
        numpy_read: np["load_to_native"].as_f64().unwrap(),
        write_target,
        read_target,
    }
}

/// Reserves `len` bytes for `file` without changing its size, as NumPy's
/// `ndarray.tofile` does before it writes (`npy_fallocate`): the raw limit
/// must write the way the fastest writer does, or ratios to it mislead.
fn preallocate(file: &File, len: usize) {
    use std::os::fd::AsRawFd;
    // SAFETY: a system call on an open descriptor; it touches no memory.
    let r = unsafe { libc::fallocate(file.as_raw_fd(), libc::FALLOC_FL_KEEP_SIZE, 0, len as i64) };
    assert_eq!(r, 0, "fallocate: {}", std::io::Error::last_os_error());
}

/// Prints comparison rows as Markdown table rows: job, peer, the peer's
/// time and ours (seconds, printed in ms), the peer's time over ours, and
/// ✓/✗ against the target ratio.
fn print_peer_rows(rows: &[(&str, &str, f64, f64, f64)]) {
    for &(job, peer, theirs, ours, target) in rows {
        let ratio = theirs / ours;
        println!(
            "| {job} | {peer} | {} | {} | {ratio:.2} {} | ≥ {target} |",
            ms(theirs),
            ms(ours),
            mark(ratio >= target)
        );
    }
}

fn ms(secs: f64) -> String {
    format!("{:.0} ms", secs * 1e3)
}

fn mark(ok: bool) -> &'static str {
    if ok { "✓" } else { "✗" }
}

fn gbps(bytes: u64, secs: f64) -> f64 {
    bytes as f64 / secs / 1e9
}

fn print_table(cells: &[Cell]) {
    println!(
        "| records | MB | raw write GB/s | raw write, no fallocate GB/s | ours write GB/s | write / raw | raw read GB/s | ours read GB/s | read / raw | mmap open | × npyz write | × npyz read | × NumPy write | × NumPy read |"
    );
    println!("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
    for c in cells {
        let w = c.raw_write / c.ours_write;
        let r = c.raw_read / c.ours_read;
        let nw = c.npyz_write / c.ours_write;
        let nr = c.npyz_read / c.ours_read;
        let pw = c.numpy_write / c.ours_write;
        let pr = c.numpy_read / c.ours_read;
        let mmap = c.mmap_open.map_or("n/a (not native)".to_string(), |t| {
            format!("{:.0} µs {}", t * 1e6, mark(t < 1e-3))
        });
        println!(
            "| {} | {} | {:.2} | {:.2} | {:.2} | {:.2} {} | {:.2} | {:.2} | {:.2} {} | {} | {:.1} {} | {:.1} {} | {:.2} {} | {:.2} {} |",
            c.record,
            c.mb,
            gbps(c.file_bytes, c.raw_write),
            gbps(c.file_bytes, c.raw_write_plain),
            gbps(c.file_bytes, c.ours_write),
            w,
            mark(w >= c.write_target),
            gbps(c.file_bytes, c.raw_read),
            gbps(c.file_bytes, c.ours_read),
            r,
            mark(r >= c.read_target),
            mmap,
            nw,
            mark(nw >= 5.0),
            nr,
            mark(nr >= 5.0),
            pw,
            mark(pw >= 1.0),
            pr,
            mark(pr >= 1.0),
        );
    }
    println!(
        "\nRatios of times on the same bytes (raw) or the same records (npyz, NumPy): above 1 means ours is faster.\n\
         Records per cell: {}.",
        cells
            .iter()
            .map(|c| format!("{} {} MB = {}", c.record, c.mb, c.records))
            .collect::<Vec<_>>()
            .join(", ")
    );
}

fn print_targets(cells: &[Cell]) {
    type Check = (&'static str, Box<dyn Fn(&Cell) -> Option<bool>>);
    let checks: Vec<Check> = vec![
        (
            "write, no padding ≥ 0.95 of raw",
            Box::new(|c| (c.write_target == 0.95).then(|| c.raw_write / c.ours_write >= 0.95)),
        ),
        (
            "write, padded ≥ 0.8 of raw",
            Box::new(|c| (c.write_target == 0.8).then(|| c.raw_write / c.ours_write >= 0.8)),
        ),
        (
            "write, byte-swapped ≥ 0.5 of raw",
            Box::new(|c| (c.write_target == 0.5).then(|| c.raw_write / c.ours_write >= 0.5)),
        ),
        (
            "read into Vec ≥ 0.9 of raw (native order)",
            Box::new(|c| (c.read_target == 0.9).then(|| c.raw_read / c.ours_read >= 0.9)),
        ),
        (
            "read into Vec, byte-swapped ≥ 0.5 of raw (our reading of the brief)",
            Box::new(|c| (c.read_target == 0.5).then(|| c.raw_read / c.ours_read >= 0.5)),
        ),
        (
            "mmap open < 1 ms",
            Box::new(|c| c.mmap_open.map(|t| t < 1e-3)),
        ),
        (
            "≥ 5 × npyz, writing",
            Box::new(|c| Some(c.npyz_write / c.ours_write >= 5.0)),
        ),
        (
            "≥ 5 × npyz, reading",
            Box::new(|c| Some(c.npyz_read / c.ours_read >= 5.0)),
        ),
        (
            "≥ NumPy, writing",
            Box::new(|c| Some(c.numpy_write / c.ours_write >= 1.0)),
        ),
        (
            "≥ NumPy, reading",
            Box::new(|c| Some(c.numpy_read / c.ours_read >= 1.0)),
        ),
    ];
    println!("Targets:\n");
    for (name, check) in &checks {
        let missed: Vec<String> = cells
            .iter()
            .filter(|c| check(c) == Some(false))
            .map(|c| format!("{} {} MB", c.record, c.mb))
            .collect();
        let n = cells.iter().filter(|c| check(c).is_some()).count();
        if missed.is_empty() {
            println!("- {name}: met in all {n} cells");
        } else {
            println!(
                "- {name}: MISSED in {} of {n} cells ({})",
                missed.len(),
                missed.join(", ")
            );
        }
    }
    let opens: Vec<(usize, f64)> = cells
        .iter()
        .filter_map(|c| c.mmap_open.map(|t| (c.mb, t)))
        .collect();
    if let (Some(lo), Some(hi)) = (
        opens.iter().map(|x| x.1).reduce(f64::min),
        opens.iter().map(|x| x.1).reduce(f64::max),
    ) {
        let sizes: Vec<usize> = opens.iter().map(|x| x.0).collect();
        let flat = hi - lo < 100e-6 || hi / lo < 2.0;
        println!(
            "- mmap open flat in file size: {} (from {:.0} to {:.0} µs over {:?} MB)",
            if flat { "met" } else { "MISSED" },
            lo * 1e6,
            hi * 1e6,
            sizes
        );
    }
}
