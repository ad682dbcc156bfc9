//! Damaged and lying Zarr stores: real stores written by `ndl_zarr`, then
//! edited on disk. Every case must give a typed `ndl_zarr::Error` of the
//! right variant whose message names the store and where (the metadata key,
//! the chunk, the field, the record): never a panic, an abort or a huge
//! allocation.
//!
//! The cases that could abort the process (an allocation the size a
//! metadata document or a chunk header claims) run in a child process, the
//! test binary itself re-run on one test: an abort then fails that test
//! alone, with the child's stderr in the message.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use ndl_runtime::NdlType;
use ndl_testkit::child::this_test;
use ndl_zarr::{ArrayInfo, ArrayWriter, Codec, Error, WriteOptions, ZarrFormat};
use serde_json::{Value, json};

mod chunks;
mod data_types;
mod shapes;

/// A level with a 0 member: zeros are a valid record.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(u8)]
enum Level {
    Low,
    High,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Pos {
    x: f32,
    y: f32,
}

/// 24 bytes in memory (2 of padding after `level`), 22 packed:
/// `id` 0..4, `ok` 4, `level` 5, `t` 6..14, `pos.x` 14..18, `pos.y` 18..22.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Rec {
    id: u32,
    ok: bool,
    level: Level,
    t: f64,
    pos: Pos,
}

/// Packed record size of [`Rec`].
const PACKED: usize = 22;

/// `Rec` with `t` a float32.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct RecF32 {
    id: u32,
    ok: bool,
    level: Level,
    t: f32,
    pos: Pos,
}

/// `Rec` without `pos`.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct RecNoPos {
    id: u32,
    ok: bool,
    level: Level,
    t: f64,
}

/// `Rec` with a field more, `z`.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct RecExtra {
    id: u32,
    ok: bool,
    level: Level,
    t: f64,
    pos: Pos,
    z: u16,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Pos64 {
    x: f32,
    y: f64,
}

/// `Rec` whose nested `pos.y` is a float64.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct RecPos64 {
    id: u32,
    ok: bool,
    level: Level,
    t: f64,
    pos: Pos64,
}

/// An enum without a 0 member: zeros are not a valid record.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(u8)]
enum Kind {
    A = 1,
    B = 2,
    C = 7,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Inner {
    kind: Kind,
    on: bool,
}

/// 4 bytes, packed too: `n` 0..2, `inner.kind` 2, `inner.on` 3.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Tagged {
    n: u16,
    inner: Inner,
}

const FORMATS: [ZarrFormat; 2] = [ZarrFormat::V2, ZarrFormat::V3];

fn rec(i: u32) -> Rec {
    Rec {
        id: i,
        ok: i.is_multiple_of(2),
        level: if i.is_multiple_of(3) {
            Level::High
        } else {
            Level::Low
        },
        t: f64::from(i) * 0.25 + 1.0,
        pos: Pos {
            x: i as f32,
            y: -(i as f32),
        },
    }
}

/// What a missing chunk reads as: the fill value, all zeros.
const ZERO: Rec = Rec {
    id: 0,
    ok: false,
    level: Level::Low,
    t: 0.0,
    pos: Pos { x: 0.0, y: 0.0 },
};

fn records(n: u32) -> Vec<Rec> {
    (0..n).map(rec).collect()
}

fn tagged(i: u16) -> Tagged {
    Tagged {
        n: i,
        inner: Inner {
            kind: [Kind::A, Kind::B, Kind::C][usize::from(i % 3)],
            on: i % 2 == 1,
        },
    }
}

/// A temporary directory and the store in it.
struct Fixture {
    _dir: tempfile::TempDir,
    path: PathBuf,
    format: ZarrFormat,
}

impl Fixture {
    /// The store's name in messages.
    fn name(&self) -> String {
        self.path.display().to_string()
    }

    fn meta_key(&self) -> &'static str {
        meta_key(self.format)
    }

    /// The file of chunk `i`.
    fn chunk(&self, i: u64) -> PathBuf {
        self.path.join(chunk_key(self.format, i))
    }

    /// Rewrites the JSON document at `key` through `f`.
    fn edit_json(&self, key: &str, f: impl FnOnce(&mut Value)) {
        let file = self.path.join(key);
        let mut doc: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        f(&mut doc);
        std::fs::write(&file, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    }

    /// Rewrites the array's metadata document (`zarr.json` or `.zarray`).
    fn edit_meta(&self, f: impl FnOnce(&mut Value)) {
        self.edit_json(self.meta_key(), f);
    }

    /// Sets the chunk shape (v3 `chunk_grid`, v2 `chunks`).
    fn set_chunks(&self, chunks: Value) {
        match self.format {
            ZarrFormat::V2 => self.edit_meta(|d| d["chunks"] = chunks),
            _ => self.edit_meta(|d| d["chunk_grid"]["configuration"]["chunk_shape"] = chunks),
        }
    }

    fn edit_chunk(&self, i: u64, f: impl FnOnce(&mut Vec<u8>)) {
        let file = self.chunk(i);
        let mut bytes = std::fs::read(&file).unwrap();
        f(&mut bytes);
        std::fs::write(&file, bytes).unwrap();
    }
}

fn meta_key(format: ZarrFormat) -> &'static str {
    match format {
        ZarrFormat::V2 => ".zarray",
        _ => "zarr.json",
    }
}

fn chunk_key(format: ZarrFormat, i: u64) -> String {
    match format {
        ZarrFormat::V2 => i.to_string(),
        _ => format!("c/{i}"),
    }
}

/// A store of `data` with `options` in a new temporary directory.
fn store_of<T: NdlType + ndl_runtime::Record + Send + Sync>(
    options: WriteOptions,
    format: ZarrFormat,
    data: &[T],
) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.zarr");
    options.zarr_format(format).write(&path, data).unwrap();
    Fixture {
        _dir: dir,
        path,
        format,
    }
}

/// 10 [`Rec`]s in chunks of 4 (chunks 0, 1 and a partial 2).
fn store(format: ZarrFormat, codec: Codec) -> Fixture {
    store_of(
        WriteOptions::new().chunk_len(4).codec(codec),
        format,
        &records(10),
    )
}

/// The error of `result`, which must be one.
#[track_caller]
fn err<T: std::fmt::Debug>(result: ndl_zarr::Result<T>) -> Error {
    match result {
        Ok(v) => panic!("expected an error, got Ok({v:?})"),
        Err(e) => e,
    }
}

/// Asserts `message` contains every one of `parts`.
#[track_caller]
fn says(e: &Error, parts: &[&str]) {
    let message = e.to_string();
    for part in parts {
        assert!(
            message.contains(part),
            "`{part}` not in the message: {message}\n({e:?})"
        );
    }
}

/// Asserts `e` is `Error::Metadata` for `key` of the store, saying `parts`.
#[track_caller]
fn metadata_error(f: &Fixture, e: &Error, key: &str, parts: &[&str]) {
    match e {
        Error::Metadata { store, key: k, .. } => {
            assert_eq!(store, &f.name(), "{e}");
            assert_eq!(k, key, "{e}");
        }
        other => panic!("expected Error::Metadata at {key}, got {other:?}"),
    }
    says(e, &[&f.name(), key]);
    says(e, parts);
}

/// Asserts `e` is `Error::DataType` at `field` of the metadata document.
#[track_caller]
fn data_type_error(f: &Fixture, e: &Error, field: &str, parts: &[&str]) {
    match e {
        Error::DataType {
            store,
            key,
            field: fd,
            ..
        } => {
            assert_eq!(store, &f.name(), "{e}");
            assert_eq!(key, f.meta_key(), "{e}");
            assert_eq!(fd, field, "{e}");
        }
        other => panic!("expected Error::DataType at `{field}`, got {other:?}"),
    }
    says(e, &[&f.name(), f.meta_key(), &format!("`{field}`")]);
    says(e, parts);
}

/// Asserts `e` is `Error::Chunk` for chunk `chunk`.
#[track_caller]
fn chunk_error(f: &Fixture, e: &Error, chunk: u64, parts: &[&str]) {
    let key = chunk_key(f.format, chunk);
    match e {
        Error::Chunk {
            store,
            chunk: c,
            key: k,
            ..
        } => {
            assert_eq!(store, &f.name(), "{e}");
            assert_eq!(*c, chunk, "{e}");
            assert_eq!(k, &key, "{e}");
        }
        other => panic!("expected Error::Chunk for chunk {chunk}, got {other:?}"),
    }
    says(e, &[&f.name(), &format!("chunk {chunk} ({key})")]);
    says(e, parts);
}

/// Every way of reading the array must fail with the same kind of error:
/// `read`, `read_range` over the damaged part, `ArrayInfo::open` (metadata
/// only) and `ArrayWriter::open`.
fn all_metadata_readers(f: &Fixture) -> Vec<(&'static str, Error)> {
    vec![
        ("read", err(ndl_zarr::read::<Rec>(&f.path))),
        (
            "read_range",
            err(ndl_zarr::read_range::<Rec>(&f.path, 0..1)),
        ),
        ("ArrayInfo::open", err(ArrayInfo::open(&f.path))),
        ("ArrayWriter::open", err(ArrayWriter::<Rec>::open(&f.path))),
    ]
}

/// Re-runs this test binary on the one test `name` (its path,
/// `module::test`) with `NDL_ZARR_ISOLATED` set, in which case `body` runs here instead: an
/// abort (a failed allocation) or a run past [`ISOLATED_LIMIT`] then fails
/// this test alone.
fn isolated(name: &str, body: impl FnOnce()) {
    if std::env::var_os("NDL_ZARR_ISOLATED").is_some() {
        body();
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (out, errs) = (dir.path().join("stdout"), dir.path().join("stderr"));
    let started = Instant::now();
    let mut child = this_test(name)
        .env("NDL_ZARR_ISOLATED", "1")
        .env("RUST_BACKTRACE", "0")
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&errs).unwrap())
        .spawn()
        .unwrap();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > ISOLATED_LIMIT {
            child.kill().unwrap();
            child.wait().unwrap();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let stdout = std::fs::read_to_string(&out).unwrap();
    let stderr = std::fs::read_to_string(&errs).unwrap();
    let what = match status {
        None => format!("was still running after {ISOLATED_LIMIT:?}"),
        Some(s) if !s.success() => format!("died ({s}) after {:?}", started.elapsed()),
        Some(_) => {
            assert!(
                stdout.contains("1 passed"),
                "the isolated test `{name}` did not run:\n{stdout}"
            );
            return;
        }
    };
    panic!("the isolated test `{name}` {what}:\n--- stdout\n{stdout}\n--- stderr\n{stderr}");
}

/// How long an isolated test may take.
const ISOLATED_LIMIT: Duration = Duration::from_secs(15);
