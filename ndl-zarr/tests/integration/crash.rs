//! kill -9 in the middle of writing a Zarr store: the store must read as
//! before, and take appends afterwards.
//!
//! Each test re-runs this test binary on itself with `NDL_ZARR_CRASH_CHILD`
//! set; the child writes or appends many chunks, saying on stdout where it
//! is, and the parent kills it (SIGKILL) at varying moments, then checks
//! the store: a new `write` leaves no store or a complete one; `create`
//! and appends leave the array with the length of the last `finish` that
//! completed, and exactly those records.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ndl_runtime::NdlType;
use ndl_testkit::child::{Running, say, this_test};
use ndl_zarr::{ArrayWriter, Codec, WriteOptions, ZarrFormat};

/// 24 bytes, no padding.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Rec {
    id: u64,
    t: f64,
    ok: bool,
    level: u8,
    n: i16,
    x: f32,
}

fn rec(i: u64) -> Rec {
    Rec {
        id: i,
        t: i as f64 * 0.5,
        ok: i.is_multiple_of(3),
        level: (i % 251) as u8,
        n: (i as i16).wrapping_mul(-7),
        x: (i as f32).sqrt(),
    }
}

fn records(range: std::ops::Range<u64>) -> Vec<Rec> {
    range.map(rec).collect()
}

/// The environment variable that makes the test binary a writer child.
const CHILD: &str = "NDL_ZARR_CRASH_CHILD";

/// Records per chunk: small, so a write is many objects.
const CHUNK: u64 = 50;
/// Records in the store before an append: a partial last chunk, which the
/// append rewrites.
const BEFORE: u64 = 1234;
/// Records per append batch: not a multiple of the chunk length either.
const BATCH: u64 = 2017;
/// Records of a new `write`.
const WRITE: u64 = 200_000;

/// A store layout under test.
#[derive(Clone, Copy, Debug)]
enum Kind {
    V2,
    V3,
    V3Sharded,
}

impl Kind {
    fn options(self) -> WriteOptions {
        let base = WriteOptions::new().chunk_len(CHUNK);
        match self {
            Kind::V2 => base.zarr_format(ZarrFormat::V2).codec(Codec::None),
            Kind::V3 => base.zarr_format(ZarrFormat::V3).codec(Codec::Zstd(1)),
            Kind::V3Sharded => base.zarr_format(ZarrFormat::V3).shard_len(4 * CHUNK),
        }
    }

    /// Records per object of the chunk grid (a shard when sharded).
    fn grid_len(self) -> u64 {
        match self {
            Kind::V3Sharded => 4 * CHUNK,
            _ => CHUNK,
        }
    }

    /// The key of grid chunk `i`.
    fn chunk_key(self, i: u64) -> String {
        match self {
            Kind::V2 => i.to_string(),
            _ => format!("c/{i}"),
        }
    }

    fn parse(s: &str) -> Kind {
        match s {
            "V2" => Kind::V2,
            "V3" => Kind::V3,
            "V3Sharded" => Kind::V3Sharded,
            other => panic!("unknown kind {other}"),
        }
    }
}

/// What the child does, from `NDL_ZARR_CRASH_CHILD=MODE:KIND:PATH`.
///
/// - `write`: `WriteOptions::write` of [`WRITE`] records at `PATH`.
/// - `create`: `ArrayWriter::create_with`, then batches of [`BATCH`] records,
///   each appended and finished, reopening with `ArrayWriter::open`.
/// - `append`: batches appended to the existing store at `PATH`, as above.
///
/// It prints `started` once under way and `finished N` after every
/// `finish`, then waits to be killed.
fn child(spec: &str) {
    let mut parts = spec.splitn(3, ':');
    let (mode, kind, path) = (
        parts.next().unwrap(),
        Kind::parse(parts.next().unwrap()),
        PathBuf::from(parts.next().unwrap()),
    );
    match mode {
        "write" => {
            say("started");
            kind.options().write(&path, &records(0..WRITE)).unwrap();
            say(&format!("finished {WRITE}"));
        }
        "create" | "append" => {
            let mut len = if mode == "create" {
                let w = ArrayWriter::<Rec>::create_with(&path, &kind.options()).unwrap();
                w.finish().unwrap()
            } else {
                ndl_zarr::read::<Rec>(&path).unwrap().len() as u64
            };
            say("started");
            // Enough batches to outlast any kill; each appends in pieces so
            // that chunks are stored by several `append` calls.
            for _ in 0..1000 {
                let mut w = ArrayWriter::<Rec>::open(&path).unwrap();
                assert_eq!(w.len(), len);
                let batch = records(len..len + BATCH);
                for piece in batch.chunks(700) {
                    w.append(piece).unwrap();
                }
                len = w.finish().unwrap();
                say(&format!("finished {len}"));
            }
        }
        other => panic!("unknown mode {other}"),
    }
    // Wait to be killed (the parent asserts the kill found us running),
    // but not forever if the parent is gone.
    std::thread::sleep(Duration::from_secs(30));
    std::process::exit(0);
}

/// Starts the test `test` of this binary as a child doing `spec`.
fn spawn_writer(test: &str, spec: &str) -> Running {
    Running::spawn(this_test(test).env(CHILD, spec))
}

/// The lengths the child said it finished at.
fn finished(lines: &[String]) -> Vec<u64> {
    lines
        .iter()
        .filter_map(|l| l.strip_prefix("finished "))
        .map(|n| n.parse().unwrap())
        .collect()
}

/// The store's files: none may be a half-written object. Leftovers of the
/// kill may only be hidden temporary files (`*.tmp` of a metadata
/// document being replaced, `*.partial` of a store being built) and the
/// append lock.
fn check_leftovers(store: &Path) {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(store, &mut files);
    for file in files {
        let name = file.file_name().unwrap().to_str().unwrap();
        if name.starts_with('.') && (name.ends_with(".partial") || name.ends_with(".tmp")) {
            continue;
        }
        // Every other object is a chunk key or a metadata document.
        let relative = file.strip_prefix(store).unwrap().to_str().unwrap();
        let index = relative.strip_prefix("c/").unwrap_or(relative);
        // The append lock of a killed appender stays until the next one
        // takes it over.
        let ok = matches!(
            name,
            "zarr.json" | ".zarray" | ".zattrs" | ".ndl-append.lock"
        ) || (!index.is_empty() && index.chars().all(|ch| ch.is_ascii_digit()));
        assert!(ok, "unexpected file in the store: {}", file.display());
    }
}

/// Appends records `len..len + n` through `ArrayWriter::open` and checks
/// the whole store reads back.
fn append_and_check(path: &Path, len: u64, n: u64) {
    let mut w = ArrayWriter::<Rec>::open(path).unwrap();
    assert_eq!(w.len(), len);
    w.append(&records(len..len + n)).unwrap();
    assert_eq!(w.finish().unwrap(), len + n);
    assert_eq!(ndl_zarr::read::<Rec>(path).unwrap(), records(0..len + n));
}

/// Delays between the child saying it started and the kill.
const DELAYS_MS: [u64; 3] = [0, 30, 100];

#[test]
fn kill_during_write_leaves_no_store_or_a_complete_one() {
    if let Ok(spec) = std::env::var(CHILD) {
        return child(&spec);
    }
    let mut killed_midway = 0;
    for kind in [Kind::V2, Kind::V3, Kind::V3Sharded] {
        for delay in DELAYS_MS {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("w.zarr");
            let mut writer = spawn_writer(
                "kill_during_write_leaves_no_store_or_a_complete_one",
                &format!("write:{kind:?}:{}", path.display()),
            );
            writer.wait_for("started");
            // Wait until chunks are being written in the hidden directory.
            let deadline = Instant::now() + Duration::from_secs(10);
            while !std::fs::read_dir(dir.path())
                .unwrap()
                .filter_map(|e| e.ok())
                .any(|e| e.file_name().to_string_lossy().ends_with(".partial"))
            {
                assert!(Instant::now() < deadline, "no building directory appeared");
                std::thread::sleep(Duration::from_millis(1));
            }
            std::thread::sleep(Duration::from_millis(delay));
            let lines = writer.kill();
            let label = format!("{kind:?}, kill after {delay} ms");
            eprintln!("{label}: store complete: {}", path.exists());
            if path.exists() {
                // The rename happened: the store is complete.
                assert_eq!(
                    ndl_zarr::read::<Rec>(&path).unwrap(),
                    records(0..WRITE),
                    "{label}"
                );
                check_leftovers(&path);
                append_and_check(&path, WRITE, 77);
            } else {
                killed_midway += 1;
                assert!(finished(&lines).is_empty(), "{label}: {lines:?}");
                let e = ndl_zarr::read::<Rec>(&path).unwrap_err();
                assert!(
                    matches!(e, ndl_zarr::Error::NotAnArray { .. }),
                    "{label}: {e:?}"
                );
                // The leftover building directory is hidden and in nobody's
                // way: the write can be done again, and removes it, as its
                // process is gone.
                kind.options().write(&path, &records(0..300)).unwrap();
                assert_eq!(ndl_zarr::read::<Rec>(&path).unwrap(), records(0..300));
                append_and_check(&path, 300, 77);
            }
            // Only the store is there: no building directory left beside it.
            let names: Vec<_> = std::fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            assert_eq!(names, ["w.zarr"], "{label}");
        }
    }
    assert!(
        killed_midway >= 3,
        "only {killed_midway} kills landed during the write: make the write longer"
    );
    // A kill after the write returned: the store is complete.
    for kind in [Kind::V2, Kind::V3Sharded] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.zarr");
        let mut writer = spawn_writer(
            "kill_during_write_leaves_no_store_or_a_complete_one",
            &format!("write:{kind:?}:{}", path.display()),
        );
        writer.wait_for(&format!("finished {WRITE}"));
        writer.kill();
        assert_eq!(ndl_zarr::read::<Rec>(&path).unwrap(), records(0..WRITE));
        check_leftovers(&path);
        append_and_check(&path, WRITE, 77);
    }
}

/// kill -9 while a zip store is built or packed: no file at its place, or
/// the whole store; the next write of it finds nothing in its way (the
/// zip being packed is inside the killed writer's building directory,
/// which it removes) and leaves only the zip file.
#[test]
fn kill_while_packing_a_zip_store_leaves_no_file_or_a_complete_one() {
    if let Ok(spec) = std::env::var(CHILD) {
        return child(&spec);
    }
    let mut killed_packing = 0;
    for packing in [false, true, true] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.zarr.zip");
        let mut writer = spawn_writer(
            "kill_while_packing_a_zip_store_leaves_no_file_or_a_complete_one",
            &format!("write:V3:{}", path.display()),
        );
        writer.wait_for("started");
        let deadline = Instant::now() + Duration::from_secs(20);
        let seen = |wanted: &str| {
            std::fs::read_dir(dir.path()).unwrap().flatten().any(|e| {
                let building = e.file_name().to_string_lossy().ends_with(".partial");
                building && (wanted.is_empty() || e.path().join(wanted).exists())
            })
        };
        let wanted = if packing { ".ndl-packing.zip" } else { "" };
        while !seen(wanted) && !path.exists() {
            assert!(
                Instant::now() < deadline,
                "the writer never got to {wanted:?}"
            );
            std::thread::sleep(Duration::from_micros(200));
        }
        let lines = writer.kill();
        if path.exists() {
            assert_eq!(ndl_zarr::read::<Rec>(&path).unwrap(), records(0..WRITE));
            // Killed after the link, before its building directory went:
            // that is hidden, and the next writer of the name removes it.
            let mut names = ndl_testkit::names(dir.path());
            names.retain(|n| !(n.starts_with(".w.zarr.zip.") && n.ends_with(".partial")));
            assert_eq!(names, ["w.zarr.zip"]);
            continue;
        }
        killed_packing += usize::from(packing);
        assert!(finished(&lines).is_empty(), "{lines:?}");
        assert!(ndl_zarr::read::<Rec>(&path).is_err());
        Kind::V3.options().write(&path, &records(0..300)).unwrap();
        assert_eq!(ndl_zarr::read::<Rec>(&path).unwrap(), records(0..300));
        assert_eq!(ndl_testkit::names(dir.path()), ["w.zarr.zip"]);
    }
    assert!(
        killed_packing >= 1,
        "no kill landed while the zip was packed"
    );
}

/// A building directory left by a killed writer whose process id this
/// process has now (ids are reused; in a container every run may be the
/// same id) must not stop a new `write` of the same store.
#[test]
fn a_building_directory_left_under_our_process_id_is_no_obstacle() {
    for kind in [Kind::V2, Kind::V3] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.zarr");
        let stale = dir
            .path()
            .join(format!(".w.zarr.{}.partial", std::process::id()));
        // What a writer killed mid-way leaves: metadata and some chunks.
        kind.options().write(&stale, &records(0..BEFORE)).unwrap();
        let result = kind.options().write(&path, &records(0..300));
        assert!(
            result.is_ok(),
            "{kind:?}: a stale {} stops the write: {result:?}",
            stale.display()
        );
        assert_eq!(ndl_zarr::read::<Rec>(&path).unwrap(), records(0..300));
        append_and_check(&path, 300, 77);
    }
}

/// An append lock naming this process, which holds no lock: left by a
/// killed appender that had this process id (in a container every run may
/// be the same id), it must be taken over like any stale lock.
#[test]
fn an_append_lock_left_under_our_process_id_is_taken_over() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.zarr");
    Kind::V3
        .options()
        .write(&path, &records(0..BEFORE))
        .unwrap();
    // A lock of a process that is gone is taken over.
    std::fs::write(path.join(".ndl-append.lock"), "4194304999\n").unwrap();
    append_and_check(&path, BEFORE, 10);
    assert!(!path.join(".ndl-append.lock").exists());
    // So must a lock naming us.
    std::fs::write(
        path.join(".ndl-append.lock"),
        format!("{}\n", std::process::id()),
    )
    .unwrap();
    let opened = ArrayWriter::<Rec>::open(&path);
    assert!(
        opened.is_ok(),
        "a stale lock naming this process stops appends: {opened:?}"
    );
    drop(opened);
    // While a writer of this process holds the lock, a second is refused.
    let first = ArrayWriter::<Rec>::open(&path).unwrap();
    let second = ArrayWriter::<Rec>::open(&path);
    assert!(
        matches!(second, Err(ndl_zarr::Error::Locked { .. })),
        "{second:?}"
    );
    drop(first);
    append_and_check(&path, BEFORE + 10, 10);
}

/// Two threads of one process writing the same new store: one wins, the
/// other gets an error, and the store holds exactly the winner's records,
/// never a mix of both.
#[test]
fn concurrent_writes_of_one_store_never_mix() {
    let a = records(0..5000);
    let b: Vec<Rec> = (0..5000u64).map(|i| rec(i + 1_000_000)).collect();
    for round in 0..20 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.zarr");
        let options = Kind::V2.options().chunk_len(10);
        let (ra, rb) = std::thread::scope(|s| {
            let ta = s.spawn(|| options.write(&path, &a));
            let tb = s.spawn(|| options.write(&path, &b));
            (ta.join().unwrap(), tb.join().unwrap())
        });
        let label = format!("round {round}: a {ra:?}, b {rb:?}");
        assert!(ra.is_err() || rb.is_err(), "{label}: both succeeded");
        let stored = ndl_zarr::read::<Rec>(&path);
        match (&ra, &rb) {
            (Ok(()), Err(_)) => assert!(stored.unwrap() == a, "{label}: not a's records"),
            (Err(_), Ok(())) => assert!(stored.unwrap() == b, "{label}: not b's records"),
            _ => assert!(
                stored.is_err(),
                "{label}: both failed, yet a store is there"
            ),
        }
        // The loser's error is not about a half-built directory.
        for e in [&ra, &rb].into_iter().filter_map(|r| r.as_ref().err()) {
            assert!(
                !matches!(e, ndl_zarr::Error::Chunk { .. }),
                "{label}: the writers shared a building directory"
            );
        }
    }
}

/// Kills a child doing `mode` (`create` or `append`) on `path`, checks
/// that the array holds exactly the records of its last finished length,
/// and appends to it. Returns whether the kill caught an append with
/// chunks stored past the array's end (not between two appends).
fn kill_during_appends(test: &str, mode: &str, kind: Kind, path: &Path, delay: u64) -> bool {
    let mut writer = spawn_writer(test, &format!("{mode}:{kind:?}:{}", path.display()));
    writer.wait_for("started");
    std::thread::sleep(Duration::from_millis(delay));
    let lines = writer.kill();
    let label = format!("{mode} {kind:?}, kill after {delay} ms");
    let done = finished(&lines);
    let start = if mode == "create" { 0 } else { BEFORE };
    let last = done.last().copied().unwrap_or(start);
    let data = ndl_zarr::read::<Rec>(path).unwrap_or_else(|e| panic!("{label}: {e}"));
    let len = data.len() as u64;
    // The kill may land after a `finish` but before the child said so.
    assert!(
        len == last || len == last + BATCH,
        "{label}: {len} records; the child finished at {done:?}"
    );
    assert!(
        data == records(0..len),
        "{label}: the {len} records are not the ones appended"
    );
    check_leftovers(path);
    let grid = kind.grid_len();
    let next = len.div_ceil(grid);
    let in_flight = path.join(kind.chunk_key(next)).exists();
    eprintln!("{label}: {len} records (finished {done:?}), an append in flight: {in_flight}");
    append_and_check(path, len, 333);
    in_flight
}

#[test]
fn kill_during_appends_leaves_the_last_finished_length() {
    if let Ok(spec) = std::env::var(CHILD) {
        return child(&spec);
    }
    for kind in [Kind::V2, Kind::V3, Kind::V3Sharded] {
        let mut in_flight = 0;
        // Three kills at least; more (up to ten) until one lands with
        // chunks in flight, which timing alone decides on a busy machine.
        for (round, delay) in [5, 40, 120, 17, 70, 200, 9, 300, 25, 90]
            .into_iter()
            .enumerate()
        {
            if round >= 3 && in_flight > 0 {
                break;
            }
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("a.zarr");
            kind.options().write(&path, &records(0..BEFORE)).unwrap();
            in_flight += usize::from(kill_during_appends(
                "kill_during_appends_leaves_the_last_finished_length",
                "append",
                kind,
                &path,
                delay,
            ));
        }
        assert!(in_flight > 0, "{kind:?}: no kill landed during an append");
    }
}

#[test]
fn kill_during_create_and_appends_leaves_the_last_finished_length() {
    if let Ok(spec) = std::env::var(CHILD) {
        return child(&spec);
    }
    let mut in_flight = 0;
    // Every kind killed at 0 and 70 ms; then more delays, until one kill
    // lands with chunks in flight, which timing alone decides.
    for (round, delay) in [0, 70, 5, 40, 120, 17, 200, 9, 300, 25, 90]
        .into_iter()
        .enumerate()
    {
        if round >= 2 && in_flight > 0 {
            break;
        }
        for kind in [Kind::V2, Kind::V3, Kind::V3Sharded] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("c.zarr");
            in_flight += usize::from(kill_during_appends(
                "kill_during_create_and_appends_leaves_the_last_finished_length",
                "create",
                kind,
                &path,
                delay,
            ));
        }
    }
    assert!(in_flight > 0, "no kill landed during an append");
}
