//! The Zarr cell's report: each comparison with its target, as a table,
//! and the figures the targets are about.

use std::path::Path;

use super::{CHUNK, Cell, LEVEL, T, Timed};
use crate::common::Record;
use crate::mark;

/// One comparison: ours against a peer on the same job, and its target
/// (peer's time / ours, so above 1 means ours is faster).
struct Row {
    job: String,
    peer: &'static str,
    ours: Timed,
    theirs: Timed,
    target: Option<f64>,
}

fn rows(c: &Cell) -> Vec<Row> {
    let zstd = format!("zstd {LEVEL}");
    let limit_write = "the limit: the codec on the same chunks + a raw write of each";
    let limit_read = "the limit: a raw read of each chunk + the codec";
    let plain_typed_read =
        "a plain reader into `T`s: the limit's reads, each packed record made a `T` in new memory";
    vec![
        Row {
            job: format!("write, {zstd}"),
            peer: limit_write,
            ours: c.ours_write,
            theirs: c.limit_write,
            target: Some(0.9),
        },
        Row {
            job: format!("write, {zstd}, columns layout"),
            peer: limit_write,
            ours: c.columns_write,
            theirs: c.limit_write,
            target: Some(0.9),
        },
        Row {
            job: format!("read, {zstd}"),
            peer: limit_read,
            ours: c.ours_read,
            theirs: c.limit_read,
            target: Some(0.9),
        },
        Row {
            job: format!("read, {zstd}, columns layout"),
            peer: limit_read,
            ours: c.columns_read,
            theirs: c.limit_read,
            target: Some(0.9),
        },
        Row {
            job: format!("read, {zstd}, into packed bytes (`read_packed`)"),
            peer: limit_read,
            ours: c.packed_read,
            theirs: c.limit_read,
            target: Some(0.9),
        },
        Row {
            job: format!("read, {zstd}"),
            peer: plain_typed_read,
            ours: c.ours_read,
            theirs: c.plain_typed_read,
            target: None,
        },
        Row {
            job: format!("read, {zstd}, columns layout"),
            peer: plain_typed_read,
            ours: c.columns_read,
            theirs: c.plain_typed_read,
            target: None,
        },
        Row {
            job: format!("write, {zstd}"),
            peer: "zarrs, `r128`, no fsync",
            ours: c.ours_write,
            theirs: c.zarrs_write,
            target: Some(1.0),
        },
        Row {
            job: format!("write, {zstd}"),
            peer: "zarrs, `r128`, stock `FilesystemStore` (fsync per chunk)",
            ours: c.ours_write,
            theirs: c.zarrs_sync_write,
            target: None,
        },
        Row {
            job: format!("write, {zstd}, durable (fsync)"),
            peer: "ours, not durable",
            ours: c.durable_write,
            theirs: c.ours_write,
            target: None,
        },
        Row {
            job: format!("write, {zstd}, columns layout"),
            peer: "ours, records layout (target: columns ≤ 1.2 × records)",
            ours: c.columns_write,
            theirs: c.ours_write,
            target: Some(1.0 / 1.2),
        },
        Row {
            job: format!("read, {zstd}"),
            peer: "zarrs, `r128`, into bytes",
            ours: c.ours_read,
            theirs: c.zarrs_read,
            target: Some(1.0),
        },
        Row {
            job: format!("write, {zstd}"),
            peer: "ours from packed bytes (`PackedWriter::create_with` + `append`)",
            ours: c.ours_write,
            theirs: c.packed_write,
            target: None,
        },
        Row {
            job: format!("read, {zstd}"),
            peer: "ours into packed bytes (`read_packed`)",
            ours: c.ours_read,
            theirs: c.packed_read,
            target: None,
        },
        Row {
            job: format!("write, {zstd}"),
            peer: "the codec alone: zstd compressing the same chunks, no I/O",
            ours: c.ours_write,
            theirs: c.codec_write,
            target: None,
        },
        Row {
            job: format!("read, {zstd}"),
            peer: "the codec alone: zstd decompressing the same chunks, no I/O",
            ours: c.ours_read,
            theirs: c.codec_read,
            target: None,
        },
        Row {
            job: format!("write, {zstd}"),
            peer: "zarr-python",
            ours: c.ours_write,
            theirs: c.python_write,
            target: None,
        },
        Row {
            job: format!("read, {zstd}"),
            peer: "zarr-python",
            ours: c.ours_read,
            theirs: c.python_read,
            target: None,
        },
        Row {
            job: "write, no compression".into(),
            peer: "raw `write_all`, one file (fallocate)",
            ours: c.none_write,
            theirs: c.raw_write,
            target: Some(0.8),
        },
        Row {
            job: "write, no compression".into(),
            peer: "raw `write_all`, one file (no fallocate)",
            ours: c.none_write,
            theirs: c.raw_write_plain,
            target: None,
        },
        Row {
            job: "write, no compression".into(),
            peer: "ours from packed bytes (`PackedWriter::create_with` + `append`)",
            ours: c.none_write,
            theirs: c.packed_none_write,
            target: None,
        },
        Row {
            job: "read, no compression".into(),
            peer: "raw `read_exact`, one file",
            ours: c.none_read,
            theirs: c.raw_read,
            target: None,
        },
    ]
}

/// Prints the cell's table and targets, under `machine` (what it ran on).
pub fn print(c: &Cell, machine: &str, python: &Path) {
    println!("# ndl-zarr comparison\n");
    println!("{machine}");
    println!(
        "- {}: {} MB in memory = {} records, {:.0} MB packed ({} B each), Zarr v3, \
         {} chunks of {CHUNK} records, zstd level {LEVEL} without checksum",
        T::NAME,
        c.mb,
        c.records,
        c.packed_bytes as f64 / 1e6,
        c.packed_bytes / c.records.max(1) as u64,
        (c.records as u64).div_ceil(CHUNK),
    );
    println!(
        "- zarrs 0.23.14; {} ({})",
        c.python_versions,
        python.display()
    );
    println!(
        "- rayon threads: {}",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    println!();
    println!(
        "| job | peer | ours M rec/s | peer M rec/s | ours MB/s | peer MB/s | ours / peer | target | ours CPU s | peer CPU s |"
    );
    println!("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|");
    let mrec = |t: f64| c.records as f64 / t / 1e6;
    let mbps = |t: f64| c.packed_bytes as f64 / t / 1e6;
    for r in rows(c) {
        let ratio = r.theirs.wall / r.ours.wall;
        let target = r.target.map_or("—".to_string(), |t| {
            format!("≥ {t:.2} {}", mark(ratio >= t))
        });
        println!(
            "| {} | {} | {:.1} | {:.1} | {:.0} | {:.0} | {:.2} | {} | {:.2} | {:.2} |",
            r.job,
            r.peer,
            mrec(r.ours.wall),
            mrec(r.theirs.wall),
            mbps(r.ours.wall),
            mbps(r.theirs.wall),
            ratio,
            target,
            r.ours.cpu,
            r.theirs.cpu,
        );
    }
    println!(
        "\nMB/s are of packed records (what the codec sees), 1 MB = 10^6 bytes; \
         `ours / peer` is the peer's time over ours (above 1: ours is faster); \
         CPU s = user + system time of all threads of the process in the best repetition.\n\
         Chunk bytes stored with zstd: ours {:.1} MB, zarrs {:.1} MB (the same chunks, checked), \
         zarr-python {:.1} MB. zarr-python reading our store once: {:.1} M rec/s.",
        c.ours_stored as f64 / 1e6,
        c.zarrs_stored as f64 / 1e6,
        c.python_stored as f64 / 1e6,
        mrec(c.python_read_ours),
    );
    println!(
        "\nThe codec alone against zarr-python (its time over the codec's): {:.2}× writing, \
         {:.2}× reading. No writer or reader that does this zstd work on these cores can \
         beat zarr-python by more.",
        c.python_write.wall / c.codec_write.wall,
        c.python_read.wall / c.codec_read.wall,
    );
    let of_limit = |ours: Timed, limit: Timed| limit.wall / ours.wall;
    println!(
        "\nOf the codec + I/O limit (its time over ours; target ≥ 0.9): writing records {:.2}, \
         columns {:.2}; reading records {:.2}, columns {:.2}. Against zarrs (target ≥ 1.0): \
         writing {:.2}, reading {:.2}. zarr-python is at {:.2} of the write limit, {:.2} of the \
         read limit.",
        of_limit(c.ours_write, c.limit_write),
        of_limit(c.columns_write, c.limit_write),
        of_limit(c.ours_read, c.limit_read),
        of_limit(c.columns_read, c.limit_read),
        c.zarrs_write.wall / c.ours_write.wall,
        c.zarrs_read.wall / c.ours_read.wall,
        of_limit(c.python_write, c.limit_write),
        of_limit(c.python_read, c.limit_read),
    );
    println!("\nTargets:\n");
    for r in rows(c) {
        if let Some(t) = r.target {
            let ratio = r.theirs.wall / r.ours.wall;
            println!(
                "- {} against {} ≥ {t:.2}: {} ({ratio:.2})",
                r.job,
                r.peer,
                if ratio >= t { "met" } else { "MISSED" }
            );
        }
    }
}
