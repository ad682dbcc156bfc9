//! The HDF5 part of `cargo bench --bench compare` (alone: `--only hdf5`):
//! ndl-hdf5 against raw file I/O, hdf5-metno's own `H5Type` path and h5py,
//! on the same records in the same run.
//!
//! One cell: [`Reading`], the README's record type as far as hdf5-metno's
//! `H5Type` derive can express it (the time an `i64` rather than a
//! `DateTime64<Seconds>`; the layout, 40 bytes with 7 of padding, is the
//! README's), both derives on the one struct. 512 MB of records by default
//! (`--hdf5-mb N`; 0 leaves the cell out), files in `target/bench-data/`
//! (or `NDL_BENCH_DIR`). Every HDF5 dataset is one-dimensional, chunked
//! alike (the records per chunk `ndl_hdf5::write` picks, about
//! [`ndl_hdf5::CHUNK_BYTES`]) and uncompressed. It times
//! - writes: `ndl_hdf5::write(path, "data", &records)` against the raw
//!   limit, `File::create` + `fallocate` + one `write_all` of as many bytes
//!   (the .npy comparison's limit; without `fallocate` shown too), and
//!   against hdf5-metno's `new_dataset_builder().with_data(&records)
//!   .chunk(..).create("data")` in a new file;
//! - reads, of the file just written (page cache) into fresh memory:
//!   `ndl_hdf5::read::<Reading>` against `File::open` + `read_exact` into a
//!   fresh, huge-page-advised `Vec<u8>`, and against hdf5-metno's
//!   `read_raw::<Reading>()` of its own file;
//! - h5py writing and reading the same NumPy array (read from our file
//!   outside the timing), with the same chunks, timed by
//!   `benches/hdf5_times.py` in the Python of `NDL_PYTHON312` (else the
//!   repo's `.venv312`, which has h5py). Its read is the faster of reading
//!   its own file and ours.
//!
//! Every time is the best of [`REPS`] rounds, each running every job
//! once, each round starting with another job so that drift and the
//! kernel's work between phases hit all alike; no `fsync` anywhere; each
//! file is deleted before it is written.

use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use ndl_runtime::NdlType;

use crate::common::{advise_huge, huge_vec};
use crate::{ms, preallocate, print_peer_rows, time};

/// Rounds of every job; the best time of each is kept.
pub const REPS: usize = 5;
const MB: usize = 1 << 20;
/// The targets: ours against the raw limit, and against each peer.
const RAW_TARGET: f64 = 0.9;
const PEER_TARGET: f64 = 1.0;

/// The README's record, with the time as the `i64` count of seconds that
/// `H5Type` can express.
#[derive(Clone, Copy, Debug, PartialEq, NdlType, hdf5::H5Type)]
#[repr(C)]
pub struct Reading {
    pub station: u32,
    pub time: i64,
    pub sky: Sky,
    #[ndl(string)]
    pub code: [u8; 4],
    pub wind: [f32; 2],
    pub temperature: f32,
}

/// Sky cover.
#[derive(Clone, Copy, Debug, PartialEq, NdlType, hdf5::H5Type)]
#[repr(u8)]
pub enum Sky {
    Clear = 0,
    Cumulus = 1,
    Stratus = 7,
}

/// `n` readings with varied values, NUL-padded codes among them.
fn readings(n: usize) -> Vec<Reading> {
    let codes = [*b"RA\0\0", *b"SN\0\0", *b"TSRA", [0; 4]];
    let skies = [Sky::Clear, Sky::Cumulus, Sky::Stratus];
    let mut v = huge_vec(n);
    v.extend((0..n).map(|i| Reading {
        station: 1000 + (i % 7) as u32,
        time: 1_700_000_000 + i as i64,
        sky: skies[i % 3],
        code: codes[i % 4],
        wind: [i as f32, -(i as f32)],
        temperature: 250.0 + (i % 50) as f32,
    }));
    v
}

/// The size of the cell in MB: `--hdf5-mb N`, else 512.
pub fn size_from(args: &[String]) -> usize {
    match args.iter().position(|a| a == "--hdf5-mb") {
        Some(i) => args
            .get(i + 1)
            .and_then(|s| s.trim().parse().ok())
            .expect("--hdf5-mb: a size in MB, e.g. --hdf5-mb 64"),
        None => 512,
    }
}

/// `NDL_PYTHON312`, else the repo's `.venv312/bin/python`; it must import
/// h5py.
pub fn find_python() -> PathBuf {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv312/bin/python");
    let python = match std::env::var_os("NDL_PYTHON312") {
        Some(p) => PathBuf::from(p),
        None if venv.exists() => venv,
        None => fail_python("neither NDL_PYTHON312 is set nor does .venv312/bin/python exist"),
    };
    let ok = Command::new(&python)
        .args(["-c", "import h5py"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        fail_python(&format!("{} cannot import h5py", python.display()));
    }
    python
}

fn fail_python(why: &str) -> ! {
    eprintln!(
        "error: the HDF5 comparison needs h5py: {why}.\n\
         Run scripts/test-all.sh once (it provisions .venv312 with h5py), or set\n\
         NDL_PYTHON312=/path/to/python for a Python that has it; --hdf5-mb 0 leaves\n\
         the HDF5 comparison out."
    );
    std::process::exit(2);
}

/// The best times of the cell, in seconds.
#[derive(Default)]
pub struct Cell {
    records: usize,
    bytes: usize,
    chunk: usize,
    raw_write: f64,
    raw_write_plain: f64,
    ours_write: f64,
    metno_write: f64,
    h5py_write: f64,
    raw_read: f64,
    ours_read: f64,
    metno_read: f64,
    h5py_read: f64,
    h5py_read_own: f64,
    h5py_read_ours: f64,
    h5py: String,
}

fn write_raw(path: &Path, bytes: &[u8], fallocate: bool) {
    let _ = fs::remove_file(path);
    let mut f = File::create(path).unwrap();
    if fallocate {
        preallocate(&f, bytes.len());
    }
    f.write_all(bytes).unwrap();
}

fn read_raw(path: &Path) -> Vec<u8> {
    let mut f = File::open(path).unwrap();
    let len = f.metadata().unwrap().len() as usize;
    let mut buf = vec![0u8; len]; // calloc: fresh pages, not yet touched
    advise_huge(buf.as_mut_ptr(), len);
    f.read_exact(&mut buf).unwrap();
    buf
}

fn write_metno(path: &Path, records: &[Reading], chunk: usize) {
    let _ = fs::remove_file(path);
    let file = hdf5::File::create(path).unwrap();
    file.new_dataset_builder()
        .with_data(records)
        .chunk(chunk)
        .create("data")
        .unwrap();
    file.close().unwrap();
}

fn read_metno(path: &Path) -> Vec<Reading> {
    let file = hdf5::File::open(path).unwrap();
    file.dataset("data").unwrap().read_raw::<Reading>().unwrap()
}

/// Runs the cell: `mb` MB of records, files in `dir`, h5py's times from
/// `script` in `python`.
pub fn run(mb: usize, dir: &Path, python: &Path, script: &Path) -> Cell {
    let size = std::mem::size_of::<Reading>();
    let n = mb * MB / size;
    eprintln!("hdf5: {n} readings, {mb} MB");
    let records = readings(n);
    let chunk = ndl_hdf5::WriteOptions::new()
        .expected_len(n as u64)
        .chunk_records(size);
    let mut bytes = huge_vec(n * size);
    bytes.resize(n * size, 0x5a);
    let ours = dir.join("hdf5-ours.h5");
    let raw = dir.join("hdf5-raw.bin");
    let metno = dir.join("hdf5-metno.h5");

    let best = |t: &mut f64, d: std::time::Duration| *t = t.min(d.as_secs_f64());
    let mut t = [f64::INFINITY; 7];
    // Each round starts with another job: the first large allocation or
    // file after the previous phase pays for the kernel's compaction of
    // huge pages, which would otherwise always fall on the same job.
    let (mut ours_checked, mut metno_checked) = (false, false);
    for round in 0..REPS {
        for job in 0..4 {
            match (round + job) % 4 {
                0 => best(&mut t[0], time(|| write_raw(&raw, &bytes, true))),
                1 => best(&mut t[1], time(|| write_raw(&raw, &bytes, false))),
                2 => {
                    let _ = fs::remove_file(&ours);
                    best(
                        &mut t[2],
                        time(|| ndl_hdf5::write(&ours, "data", &records).unwrap()),
                    );
                }
                _ => best(&mut t[3], time(|| write_metno(&metno, &records, chunk))),
            }
        }
        for job in 0..3 {
            match (round + job) % 3 {
                0 => {
                    let mut got = Vec::new();
                    best(&mut t[4], time(|| got = read_raw(&raw)));
                    assert_eq!(got.len(), bytes.len());
                }
                1 => {
                    let mut got = Vec::new();
                    best(
                        &mut t[5],
                        time(|| got = ndl_hdf5::read::<Reading>(&ours, "data").unwrap()),
                    );
                    if !ours_checked {
                        assert!(got == records, "ndl_hdf5 read other records");
                        ours_checked = true;
                    }
                }
                _ => {
                    let mut got = Vec::new();
                    best(&mut t[6], time(|| got = read_metno(&metno)));
                    if !metno_checked {
                        assert!(got == records, "hdf5-metno read other records");
                        metno_checked = true;
                    }
                }
            }
        }
    }
    drop(bytes);
    let _ = fs::remove_file(&raw);
    let _ = fs::remove_file(&metno);

    let py = crate::peer_script::run_peer_script(
        python,
        script,
        "h5py",
        &[
            ours.as_os_str(),
            dir.join("hdf5-h5py.h5").as_os_str(),
            REPS.to_string().as_ref(),
            chunk.to_string().as_ref(),
        ],
        n,
    );
    assert_eq!(py["itemsize"].as_u64(), Some(size as u64));
    let _ = fs::remove_file(&ours);
    let (own, of_ours) = (
        py["read_own"].as_f64().unwrap(),
        py["read_ours"].as_f64().unwrap(),
    );
    Cell {
        records: n,
        bytes: n * size,
        chunk,
        raw_write: t[0],
        raw_write_plain: t[1],
        ours_write: t[2],
        metno_write: t[3],
        h5py_write: py["write"].as_f64().unwrap(),
        raw_read: t[4],
        ours_read: t[5],
        metno_read: t[6],
        h5py_read: own.min(of_ours),
        h5py_read_own: own,
        h5py_read_ours: of_ours,
        h5py: py["h5py"].as_str().unwrap_or("?").to_string(),
    }
}

/// Prints the cell as a Markdown table, with which targets are met.
pub fn print(c: &Cell, machine: &str, python: &Path) {
    println!("# ndl-hdf5 comparison\n");
    println!("{machine}");
    println!(
        "- {} readings of {} bytes ({:.0} MB), {} records per chunk, uncompressed; \
         hdf5-metno 0.15.1, h5py {} ({}); best of {REPS}\n",
        c.records,
        std::mem::size_of::<Reading>(),
        c.bytes as f64 / 1e6,
        c.chunk,
        c.h5py,
        python.display()
    );
    println!("| job | peer | peer time | ours | peer / ours | target |");
    println!("|---|---|--:|--:|--:|--:|");
    let rows = [
        (
            "write",
            "raw (fallocate + write_all)",
            c.raw_write,
            c.ours_write,
            RAW_TARGET,
        ),
        (
            "write",
            "hdf5-metno H5Type",
            c.metno_write,
            c.ours_write,
            PEER_TARGET,
        ),
        ("write", "h5py", c.h5py_write, c.ours_write, PEER_TARGET),
        (
            "read",
            "raw (read_exact, fresh memory)",
            c.raw_read,
            c.ours_read,
            RAW_TARGET,
        ),
        (
            "read",
            "hdf5-metno H5Type",
            c.metno_read,
            c.ours_read,
            PEER_TARGET,
        ),
        ("read", "h5py", c.h5py_read, c.ours_read, PEER_TARGET),
    ];
    print_peer_rows(&rows);
    println!(
        "\nRatio: the peer's time over ours (above 1, ours is faster). For reference: \
         raw write without fallocate {} ({:.2} of ours); h5py reads its own file in {}, ours in {}.",
        ms(c.raw_write_plain),
        c.raw_write_plain / c.ours_write,
        ms(c.h5py_read_own),
        ms(c.h5py_read_ours),
    );
}
