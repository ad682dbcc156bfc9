//! The object-storage part of `cargo bench --bench compare`: ndl-zarr
//! writing and reading one records array on a local S3 server (moto's,
//! started here on 127.0.0.1 and stopped at the end), with its concurrent
//! requests and one request at a time, next to zarr-python through s3fs.
//!
//! One cell: `mb` MiB of [`Padded24Flat`] records (16 bytes packed), Zarr
//! v3, chunks of [`CHUNK`] records, zstd at [`LEVEL`], as in the Zarr cell.
//! It times
//! - ours, parallel: `WriteOptions::new().codec(Codec::Zstd(LEVEL))
//!   .chunk_len(CHUNK).write("s3://bench/…", &records)`, with the default
//!   [`ndl_zarr::DEFAULT_REQUESTS`] requests at once, and
//!   `ndl_zarr::read::<T>` of it;
//! - ours, sequential: the same with `NDL_ZARR_REQUESTS=1`, one chunk
//!   stored (or fetched) at a time;
//! - zarr-python (`benches/zarr_s3_times.py`): the records read from our
//!   first store (untimed), then `create_array` on `s3://bench/…` through
//!   s3fs with the same chunks and codec, and `a[:] = records`;
//!   `open_array(...)[:]`. Its default configuration (asyncio, 10
//!   concurrent requests).
//!
//! The request count is read once per process, so each of our runs is a
//! child process (this binary with `--s3-child`), which makes the records,
//! then times its repetitions: best of [`REPS`], each to a new prefix.
//! Moto keeps every object in its memory (a few GB for the default size).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use ndl_zarr::{Codec, WriteOptions};

use crate::MB;
use crate::common::{Padded24Flat, records};
use crate::zarr::{CHUNK, LEVEL};
use ndl_testkit::moto::Moto;

type T = Padded24Flat;

/// Repetitions of each job; the best is kept.
const REPS: usize = 3;
/// The variable that gives a child the moto server's process id, whose
/// CPU time it reads around each write.
const MOTO_PID: &str = "NDL_BENCH_MOTO_PID";
/// The bucket every store of the cell is in.
const BUCKET: &str = "bench";

/// The size of the S3 cell: `--s3-mb N`, else 256; 0 leaves it out.
pub fn size_from(args: &[String]) -> usize {
    match args.iter().position(|a| a == "--s3-mb") {
        Some(i) => args
            .get(i + 1)
            .and_then(|s| s.trim().parse().ok())
            .expect("--s3-mb: a size in MB, e.g. --s3-mb 64"),
        None => 256,
    }
}

/// The best times of the cell, in seconds.
pub struct Cell {
    mb: usize,
    records: usize,
    ours_write: f64,
    ours_write_sequential: f64,
    ours_read: f64,
    ours_read_sequential: f64,
    python_write: f64,
    python_read: f64,
    /// The server's CPU seconds per second of our best parallel write, and
    /// of the sequential one: 1.0 is one core, all moto can use.
    busy: f64,
    busy_sequential: f64,
}

/// Runs the cell against a moto server of `python`'s venv.
pub fn run(mb: usize, python: &Path, script: &Path) -> Cell {
    let moto = Moto::start(python);
    moto.bucket(BUCKET);
    let n = mb * MB / std::mem::size_of::<T>();
    let child = |job: &str, requests: Option<usize>| {
        let mut c = Command::new(std::env::current_exe().expect("this bench's path"));
        c.args(["--s3-child", job, &n.to_string()])
            .envs(moto.env())
            .env(MOTO_PID, moto.pid().to_string());
        match requests {
            Some(r) => c.env(ndl_zarr::REQUESTS_VAR, r.to_string()),
            None => c.env_remove(ndl_zarr::REQUESTS_VAR),
        };
        best_line(c, job)
    };
    let (ours_write, ours_read, busy) = child("parallel", None);
    let (ours_write_sequential, ours_read_sequential, busy_sequential) =
        child("sequential", Some(1));
    let mut python_job = Command::new(python);
    python_job
        .arg(script)
        .args([
            &moto.endpoint(),
            &format!("s3://{BUCKET}/ours-parallel-0"),
            BUCKET,
            &CHUNK.to_string(),
            &LEVEL.to_string(),
            &REPS.to_string(),
        ])
        .envs(moto.env());
    let (python_write, python_read, _) = best_line(python_job, "zarr-python");
    Cell {
        mb,
        records: n,
        ours_write,
        ours_write_sequential,
        ours_read,
        ours_read_sequential,
        python_write,
        python_read,
        busy,
        busy_sequential,
    }
}

/// Runs `command`, which prints `best WRITE READ [BUSY]` (seconds, and
/// the server's CPU time per second of the best write) last, and returns
/// those numbers (`BUSY` NaN when not printed).
fn best_line(mut command: Command, what: &str) -> (f64, f64, f64) {
    let mut child = command
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let mut best = None;
    for line in BufReader::new(child.stdout.take().expect("piped")).lines() {
        let line = line.expect("the child's output");
        if let Some(rest) = line.strip_prefix("best ") {
            let times: Vec<f64> = rest.split(' ').filter_map(|t| t.parse().ok()).collect();
            best = Some((
                times[0],
                times[1],
                times.get(2).copied().unwrap_or(f64::NAN),
            ));
        } else if super::zarr::verbose() {
            println!("  {what}: {line}");
        }
    }
    let status = child.wait().expect("wait for the child");
    assert!(status.success(), "{what} failed: {status}");
    best.unwrap_or_else(|| panic!("{what} printed no times"))
}

/// The child: `--s3-child JOB N` writes and reads `N` records, [`REPS`]
/// times, to a new store each time, and prints the best times.
pub fn child(args: &[String]) {
    let (job, n) = (&args[0], args[1].parse::<usize>().expect("N records"));
    let data = records::<T>(n);
    let options = WriteOptions::new()
        .codec(Codec::Zstd(LEVEL))
        .chunk_len(CHUNK);
    let moto: u32 = std::env::var(MOTO_PID)
        .ok()
        .and_then(|p| p.parse().ok())
        .expect("the moto server's pid");
    let (mut write, mut read, mut busy) = (f64::INFINITY, f64::INFINITY, 0.0);
    for rep in 0..REPS {
        let url = format!("s3://{BUCKET}/ours-{job}-{rep}");
        let (t, cpu) = (Instant::now(), cpu_seconds(moto));
        options.write(&url, &data).expect("write to S3");
        let (w, server) = (t.elapsed().as_secs_f64(), cpu_seconds(moto) - cpu);
        let t = Instant::now();
        let back = ndl_zarr::read::<T>(&url).expect("read from S3");
        let r = t.elapsed().as_secs_f64();
        assert!(back == data, "{url} read back other records");
        println!("rep {rep}: write {w:.3} s (server busy {server:.3} s), read {r:.3} s");
        if w < write {
            busy = server / w;
        }
        (write, read) = (write.min(w), read.min(r));
    }
    println!("best {write} {read} {busy}");
}

/// The CPU time (user and system) process `pid` has spent, from
/// `/proc/PID/stat`.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc/PID/stat");
    // The fields after the command name, which is in parentheses and may
    // hold spaces: utime and stime are the 12th and 13th of them.
    let after = &stat[stat.rfind(')').expect("a stat line") + 2..];
    let ticks: f64 = after
        .split(' ')
        .skip(11)
        .take(2)
        .map(|t| t.parse::<f64>().expect("clock ticks"))
        .sum();
    // SAFETY: sysconf only reads a configuration value.
    ticks / unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64
}

/// Prints the cell's table.
pub fn print(c: &Cell) {
    let mb = (c.records * 16) as f64 / MB as f64;
    let rate = |s: f64| mb / s;
    println!("\n### Object storage (moto on 127.0.0.1)\n");
    println!(
        "{} MiB of `Padded24Flat` in memory: {} records, {mb:.0} MiB packed; Zarr v3, \
         chunks of {CHUNK} records, zstd {LEVEL}; best of {REPS}.\n",
        c.mb, c.records
    );
    println!("| job | write s | write MiB/s | read s | read MiB/s |");
    println!("|---|---:|---:|---:|---:|");
    let row = |name: &str, w: f64, r: f64| {
        println!(
            "| {name} | {w:.3} | {:.0} | {r:.3} | {:.0} |",
            rate(w),
            rate(r)
        )
    };
    row(
        &format!("ours, {} requests at once", ndl_zarr::DEFAULT_REQUESTS),
        c.ours_write,
        c.ours_read,
    );
    row(
        "ours, one at a time",
        c.ours_write_sequential,
        c.ours_read_sequential,
    );
    row("zarr-python 3.4 + s3fs", c.python_write, c.python_read);
    let speedup = c.ours_write_sequential / c.ours_write;
    println!(
        "\nparallel / sequential write: {speedup:.2}x (target 2x: {}); read {:.2}x",
        crate::mark(speedup >= 2.0),
        c.ours_read_sequential / c.ours_read
    );
    println!(
        "moto's CPU during our write: {:.2} cores parallel, {:.2} sequential",
        c.busy, c.busy_sequential
    );
    println!(
        "ours / zarr-python: write {:.2}x, read {:.2}x faster",
        c.python_write / c.ours_write,
        c.python_read / c.ours_read
    );
}
