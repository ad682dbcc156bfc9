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
use std::process::Command;
use std::time::{Duration, Instant};

use ndl_runtime::NdlType;
use ndl_zarr::{ArrayInfo, ArrayWriter, Codec, Error, WriteOptions, ZarrFormat};
use serde_json::{json, Value};

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
fn store_of<T: NdlType + Send + Sync>(
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

/// Re-runs this test binary on the one test `name` with
/// `NDL_ZARR_ISOLATED` set, in which case `body` runs here instead: an
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
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
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

// ---------------------------------------------------------------- chunks

#[test]
fn a_written_store_reads_back_before_any_damage() {
    for format in FORMATS {
        for codec in [Codec::None, Codec::Zstd(3)] {
            let f = store(format, codec);
            assert_eq!(ndl_zarr::read::<Rec>(&f.path).unwrap(), records(10));
            for i in 0..3 {
                assert!(f.chunk(i).is_file(), "{format:?}: no chunk {i}");
            }
            assert!(!f.chunk(3).exists());
            if codec == Codec::None {
                // Chunks are the packed records, little-endian.
                let chunk = std::fs::read(f.chunk(1)).unwrap();
                assert_eq!(chunk.len(), 4 * PACKED);
                assert_eq!(chunk[..4], 4u32.to_le_bytes());
                assert_eq!(chunk[5], 0, "record 4's level");
                assert_eq!(chunk[6..14], 2.0f64.to_le_bytes());
                assert_eq!(chunk[PACKED..PACKED + 4], 5u32.to_le_bytes());
            }
        }
    }
}

#[test]
fn missing_chunks_read_as_the_fill_value() {
    for format in FORMATS {
        for codec in [Codec::None, Codec::Zstd(3)] {
            let f = store(format, codec);
            std::fs::remove_file(f.chunk(1)).unwrap();
            let mut expected = records(10);
            expected[4..8].fill(ZERO);
            assert_eq!(ndl_zarr::read::<Rec>(&f.path).unwrap(), expected);
            assert_eq!(
                ndl_zarr::read_range::<Rec>(&f.path, 3..6).unwrap(),
                [rec(3), ZERO, ZERO]
            );
            // The last, partial chunk too.
            std::fs::remove_file(f.chunk(2)).unwrap();
            expected[8..].fill(ZERO);
            assert_eq!(ndl_zarr::read::<Rec>(&f.path).unwrap(), expected);
            // Appending rewrites the missing partial chunk from the fill.
            let mut w = ArrayWriter::<Rec>::open(&f.path).unwrap();
            w.append(&[rec(10)]).unwrap();
            assert_eq!(w.finish().unwrap(), 11);
            expected.push(rec(10));
            assert_eq!(ndl_zarr::read::<Rec>(&f.path).unwrap(), expected);
        }
    }
}

#[test]
fn a_missing_chunk_of_an_enum_without_0_is_an_invalid_value() {
    for format in FORMATS {
        let data: Vec<Tagged> = (1..=10).map(tagged).collect();
        let f = store_of(
            WriteOptions::new().chunk_len(4).codec(Codec::None),
            format,
            &data,
        );
        assert_eq!(ndl_zarr::read::<Tagged>(&f.path).unwrap(), data);
        std::fs::remove_file(f.chunk(1)).unwrap();
        // Records 0..4 are untouched; 4..8 are the fill, zeros, and 0 is
        // no `Kind`.
        assert_eq!(
            ndl_zarr::read_range::<Tagged>(&f.path, 0..4).unwrap(),
            data[..4]
        );
        let e = err(ndl_zarr::read::<Tagged>(&f.path));
        assert!(
            matches!(&e, Error::InvalidValue { store, chunk: 1, record: 4, offset: 2, field, .. }
                if *store == f.name() && field == "inner.kind"),
            "{format:?}: {e:?}"
        );
        says(
            &e,
            &[
                &f.name(),
                "chunk 1",
                "record 4",
                "`inner.kind`",
                "0 is not a value",
            ],
        );
        let e = err(ndl_zarr::read_range::<Tagged>(&f.path, 6..9));
        assert!(
            matches!(
                e,
                Error::InvalidValue {
                    chunk: 1,
                    record: 6,
                    ..
                }
            ),
            "{e:?}"
        );
    }
}

#[test]
fn chunks_beyond_the_shape_are_ignored() {
    for format in FORMATS {
        for codec in [Codec::None, Codec::Zstd(3)] {
            let f = store(format, codec);
            // A whole chunk past the end, one far away, and junk that is
            // not a chunk at all.
            std::fs::copy(f.chunk(0), f.chunk(3)).unwrap();
            std::fs::copy(f.chunk(0), f.chunk(1000)).unwrap();
            std::fs::write(f.chunk(4), b"not a chunk").unwrap();
            std::fs::write(f.path.join("junk"), b"junk").unwrap();
            assert_eq!(ndl_zarr::read::<Rec>(&f.path).unwrap(), records(10));
            assert_eq!(
                ndl_zarr::read_range::<Rec>(&f.path, 8..10).unwrap(),
                [rec(8), rec(9)]
            );
            // An append that reaches chunk 3 and 4 replaces what was there.
            let mut w = ArrayWriter::<Rec>::open(&f.path).unwrap();
            w.append(&(10..17).map(rec).collect::<Vec<_>>()).unwrap();
            assert_eq!(w.finish().unwrap(), 17);
            assert_eq!(ndl_zarr::read::<Rec>(&f.path).unwrap(), records(17));
        }
    }
}

#[test]
fn truncated_chunks_are_chunk_errors() {
    for format in FORMATS {
        for codec in [Codec::None, Codec::Zstd(3), Codec::Gzip(6), Codec::Blosc(5)] {
            for keep in [0usize, 1, 10, 4 * PACKED / 2] {
                let f = store(format, codec);
                f.edit_chunk(1, |b| b.truncate(keep.min(b.len() - 1)));
                let e = err(ndl_zarr::read::<Rec>(&f.path));
                chunk_error(&f, &e, 1, &[]);
                let e = err(ndl_zarr::read_range::<Rec>(&f.path, 5..6));
                chunk_error(&f, &e, 1, &[]);
                // The chunks before it still read.
                assert_eq!(
                    ndl_zarr::read_range::<Rec>(&f.path, 0..4).unwrap(),
                    records(4)
                );
            }
        }
    }
}

#[test]
fn a_truncated_partial_last_chunk_stops_an_append() {
    for format in FORMATS {
        let f = store(format, Codec::None);
        f.edit_chunk(2, |b| b.truncate(PACKED));
        let e = err(ArrayWriter::<Rec>::open(&f.path));
        chunk_error(&f, &e, 2, &[]);
        let e = err(ndl_zarr::read::<Rec>(&f.path));
        chunk_error(&f, &e, 2, &[]);
    }
}

#[test]
fn chunks_of_the_wrong_decoded_size_are_chunk_errors() {
    for format in FORMATS {
        // Uncompressed: a record too many, a byte too many, a record short.
        for (what, delta) in [("+record", PACKED as i64), ("+1", 1), ("-record", -22)] {
            let f = store(format, Codec::None);
            f.edit_chunk(0, |b| {
                if delta > 0 {
                    b.extend(std::iter::repeat_n(7u8, delta as usize));
                } else {
                    b.truncate(b.len() - (-delta) as usize);
                }
            });
            let e = err(ndl_zarr::read::<Rec>(&f.path));
            chunk_error(&f, &e, 0, &[]);
            assert!(
                e.to_string().contains(&(4 * PACKED).to_string()),
                "{what}: the expected size is not said: {e}"
            );
        }
        // Compressed: a valid zstd frame of 3 records instead of 4, and one
        // of 5.
        for n in [3, 5] {
            let f = store(format, Codec::Zstd(3));
            let packed = std::fs::read(store(format, Codec::None).chunk(0)).unwrap();
            let mut content = packed.clone();
            content.resize(n * PACKED, 0);
            std::fs::write(f.chunk(0), zstd_frame(&content, content.len() as u64)).unwrap();
            let e = err(ndl_zarr::read::<Rec>(&f.path));
            chunk_error(&f, &e, 0, &[]);
            // The frame itself is right: with the right size it reads.
            std::fs::write(f.chunk(0), zstd_frame(&packed, packed.len() as u64)).unwrap();
            assert_eq!(ndl_zarr::read::<Rec>(&f.path).unwrap(), records(10));
        }
    }
}

/// A zstd frame holding `content` as one raw block, claiming a content
/// size of `claimed` bytes (single segment, 8-byte content size field).
fn zstd_frame(content: &[u8], claimed: u64) -> Vec<u8> {
    let mut frame = vec![0x28, 0xB5, 0x2F, 0xFD, 0xE0];
    frame.extend_from_slice(&claimed.to_le_bytes());
    let header = 1u32 | (u32::try_from(content.len()).unwrap() << 3);
    frame.extend_from_slice(&header.to_le_bytes()[..3]);
    frame.extend_from_slice(content);
    frame
}

#[test]
fn corrupt_compressed_chunks_are_chunk_errors() {
    for format in FORMATS {
        for codec in [Codec::Zstd(3), Codec::Gzip(6), Codec::Blosc(5)] {
            let f = store(format, codec);
            // The magic number / header of the codec.
            f.edit_chunk(1, |b| {
                for x in &mut b[..4] {
                    *x ^= 0xff;
                }
            });
            let e = err(ndl_zarr::read::<Rec>(&f.path));
            chunk_error(&f, &e, 1, &[]);
            // Random bytes.
            f.edit_chunk(1, |b| {
                for (i, x) in b.iter_mut().enumerate() {
                    *x = (i as u8).wrapping_mul(151).wrapping_add(17);
                }
            });
            let e = err(ndl_zarr::read::<Rec>(&f.path));
            chunk_error(&f, &e, 1, &[]);
        }
    }
}

#[test]
fn every_flipped_byte_of_a_compressed_chunk_is_an_error_or_a_value() {
    isolated(
        "every_flipped_byte_of_a_compressed_chunk_is_an_error_or_a_value",
        || {
            for format in FORMATS {
                for codec in [Codec::Zstd(3), Codec::Gzip(6), Codec::Blosc(5)] {
                    let f = store(format, codec);
                    let original = std::fs::read(f.chunk(1)).unwrap();
                    for at in 0..original.len() {
                        for flip in [0x01u8, 0x80, 0xff] {
                            let mut bytes = original.clone();
                            bytes[at] ^= flip;
                            std::fs::write(f.chunk(1), &bytes).unwrap();
                            match ndl_zarr::read::<Rec>(&f.path) {
                                // No checksum: a flip in stored data can
                                // read as other values; chunks 0 and 2 stay.
                                Ok(v) => {
                                    assert_eq!(v.len(), 10);
                                    assert_eq!(v[..4], records(4)[..]);
                                    assert_eq!(v[8..], records(10)[8..]);
                                }
                                Err(e @ Error::Chunk { .. }) => chunk_error(&f, &e, 1, &[]),
                                Err(e @ Error::InvalidValue { .. }) => {
                                    assert!(
                                        matches!(e, Error::InvalidValue { chunk: 1, .. }),
                                        "{e:?}"
                                    );
                                    says(&e, &[&f.name(), "chunk 1"]);
                                }
                                Err(e) => panic!(
                                    "{format:?} {codec:?} byte {at} ^ {flip:#x}: unexpected {e:?}"
                                ),
                            }
                        }
                    }
                }
            }
        },
    );
}

#[test]
fn a_zstd_chunk_claiming_a_huge_content_size_is_an_error_not_an_abort() {
    isolated(
        "a_zstd_chunk_claiming_a_huge_content_size_is_an_error_not_an_abort",
        || {
            for format in FORMATS {
                let f = store(format, Codec::Zstd(3));
                let packed = std::fs::read(store(format, Codec::None).chunk(1)).unwrap();
                // 20 bytes of header claiming a petabyte.
                std::fs::write(f.chunk(1), zstd_frame(&packed, 1 << 50)).unwrap();
                let started = Instant::now();
                let e = err(ndl_zarr::read::<Rec>(&f.path));
                chunk_error(&f, &e, 1, &[]);
                assert!(started.elapsed() < Duration::from_secs(5));
            }
        },
    );
}

#[test]
fn sharded_stores_missing_truncated_and_corrupt_shards() {
    let options = || WriteOptions::new().chunk_len(2).shard_len(4);
    let fixture = || store_of(options(), ZarrFormat::V3, &records(10));
    // A missing shard reads as the fill.
    let f = fixture();
    std::fs::remove_file(f.chunk(1)).unwrap();
    let mut expected = records(10);
    expected[4..8].fill(ZERO);
    assert_eq!(ndl_zarr::read::<Rec>(&f.path).unwrap(), expected);
    // A truncated shard, and one whose index is damaged (crc32c).
    for damage in [
        &(|b: &mut Vec<u8>| b.truncate(b.len() / 2)) as &dyn Fn(&mut Vec<u8>),
        &|b: &mut Vec<u8>| b.truncate(3),
        &|b: &mut Vec<u8>| {
            let n = b.len();
            b[n - 6] ^= 0x55;
        },
        &|b: &mut Vec<u8>| b.iter_mut().for_each(|x| *x = 0xff),
    ] {
        let f = fixture();
        f.edit_chunk(1, damage);
        let e = err(ndl_zarr::read::<Rec>(&f.path));
        chunk_error(&f, &e, 1, &[]);
        assert_eq!(
            ndl_zarr::read_range::<Rec>(&f.path, 0..4).unwrap(),
            records(4)
        );
    }
}

// -------------------------------------------------- values in the chunks

#[test]
fn a_bool_byte_of_2_names_chunk_record_and_field() {
    for format in FORMATS {
        let f = store(format, Codec::None);
        // Record 5 is the second of chunk 1; `ok` is byte 4.
        f.edit_chunk(1, |b| b[PACKED + 4] = 2);
        for e in [
            err(ndl_zarr::read::<Rec>(&f.path)),
            err(ndl_zarr::read_range::<Rec>(&f.path, 5..6)),
            err(ndl_zarr::read_packed(&f.path, 0..10)),
        ] {
            assert!(
                matches!(&e, Error::InvalidValue { store, chunk: 1, record: 5, offset: 4, field, .. }
                    if *store == f.name() && field == "ok"),
                "{format:?}: {e:?}"
            );
            says(
                &e,
                &[
                    &f.name(),
                    "chunk 1",
                    "record 5",
                    "`ok`",
                    "byte 4",
                    "bool byte is 2",
                ],
            );
        }
        // The records around it still read.
        assert_eq!(
            ndl_zarr::read_range::<Rec>(&f.path, 0..5).unwrap(),
            records(5)
        );
        assert_eq!(
            ndl_zarr::read_range::<Rec>(&f.path, 6..10).unwrap(),
            records(10)[6..]
        );
    }
}

#[test]
fn an_enum_value_that_is_no_member_names_chunk_record_and_field() {
    for format in FORMATS {
        let f = store(format, Codec::None);
        // Record 9 is the second of chunk 2; `level` is byte 5.
        f.edit_chunk(2, |b| b[PACKED + 5] = 9);
        let e = err(ndl_zarr::read::<Rec>(&f.path));
        assert!(
            matches!(&e, Error::InvalidValue { chunk: 2, record: 9, offset: 5, field, .. } if field == "level"),
            "{e:?}"
        );
        says(
            &e,
            &[
                &f.name(),
                "chunk 2",
                "record 9",
                "`level`",
                "9 is not a value",
            ],
        );
        // A nested enum and a nested bool.
        let data: Vec<Tagged> = (0..8).map(tagged).collect();
        let f = store_of(
            WriteOptions::new().chunk_len(4).codec(Codec::None),
            format,
            &data,
        );
        f.edit_chunk(1, |b| b[3 * 4 + 2] = 3);
        let e = err(ndl_zarr::read::<Tagged>(&f.path));
        assert!(
            matches!(&e, Error::InvalidValue { chunk: 1, record: 7, offset: 2, field, .. } if field == "inner.kind"),
            "{e:?}"
        );
        says(&e, &["3 is not a value", "A = 1", "C = 7"]);
        f.edit_chunk(1, |b| {
            b[3 * 4 + 2] = 1;
            b[3] = 0xff;
        });
        let e = err(ndl_zarr::read::<Tagged>(&f.path));
        assert!(
            matches!(&e, Error::InvalidValue { chunk: 1, record: 4, offset: 3, field, .. } if field == "inner.on"),
            "{e:?}"
        );
        says(&e, &["bool byte is 255"]);
    }
}

// --------------------------------------------------- malformed documents

#[test]
fn malformed_json_names_the_document() {
    for format in FORMATS {
        for junk in [
            &b"{\"zarr_format\": 3,"[..],
            b"",
            b"\xff\xfe",
            b"[1, 2",
            b"nul",
        ] {
            let f = store(format, Codec::None);
            std::fs::write(f.path.join(f.meta_key()), junk).unwrap();
            for (_, e) in all_metadata_readers(&f) {
                metadata_error(&f, &e, f.meta_key(), &["not JSON"]);
            }
        }
    }
    // `.zattrs`: not JSON, and JSON that is not an object.
    for junk in [&b"{\"a\": "[..], b"[1, 2]", b"\"text\""] {
        let f = store(ZarrFormat::V2, Codec::None);
        std::fs::write(f.path.join(".zattrs"), junk).unwrap();
        for (how, e) in all_metadata_readers(&f) {
            assert!(
                matches!(&e, Error::Metadata { key, .. } if key == ".zattrs"),
                "{how}: {e:?}"
            );
            says(&e, &[&f.name(), ".zattrs"]);
        }
    }
    // Missing `.zattrs` is no error: attributes are optional.
    let f = store(ZarrFormat::V2, Codec::None);
    std::fs::remove_file(f.path.join(".zattrs")).unwrap();
    assert_eq!(ndl_zarr::read::<Rec>(&f.path).unwrap(), records(10));
}

#[test]
fn no_metadata_is_not_an_array() {
    let dir = tempfile::tempdir().unwrap();
    for path in [dir.path().join("nothing.zarr"), dir.path().to_path_buf()] {
        let e = err(ndl_zarr::read::<Rec>(&path));
        assert!(matches!(e, Error::NotAnArray { .. }), "{e:?}");
        says(&e, &[&path.display().to_string(), "no Zarr array"]);
        let e = err(ArrayInfo::open(&path));
        assert!(matches!(e, Error::NotAnArray { .. }), "{e:?}");
    }
    // A v3 store without zarr.json and a v2 store without .zarray.
    for format in FORMATS {
        let f = store(format, Codec::None);
        std::fs::remove_file(f.path.join(f.meta_key())).unwrap();
        let e = err(ndl_zarr::read::<Rec>(&f.path));
        assert!(matches!(e, Error::NotAnArray { .. }), "{e:?}");
        says(&e, &[&f.name()]);
    }
}

#[test]
fn a_group_is_not_an_array_of_records() {
    // The array's zarr.json saying it is a group: as an array it is
    // refused; as a group it is the columns layout, whose first column
    // (`id`, a sub-array) is not there.
    let f = store(ZarrFormat::V3, Codec::None);
    f.edit_meta(|d| d["node_type"] = json!("group"));
    metadata_error(
        &f,
        &err(ArrayInfo::open(&f.path)),
        "zarr.json",
        &["not an array"],
    );
    let column = format!("{}/id", f.name());
    for e in [
        err(ndl_zarr::read::<Rec>(&f.path)),
        err(ndl_zarr::read_range::<Rec>(&f.path, 0..1)),
        err(ArrayWriter::<Rec>::open(&f.path)),
    ] {
        assert!(
            matches!(&e, Error::NotAnArray { store } if *store == column),
            "{e:?}"
        );
        says(&e, &[&column]);
    }
    // A bare group document.
    let f = store(ZarrFormat::V3, Codec::None);
    std::fs::write(
        f.path.join("zarr.json"),
        br#"{"zarr_format": 3, "node_type": "group", "attributes": {}}"#,
    )
    .unwrap();
    metadata_error(
        &f,
        &err(ArrayInfo::open(&f.path)),
        "zarr.json",
        &["not an array"],
    );
    let e = err(ndl_zarr::read::<Rec>(&f.path));
    says(&e, &[&f.name()]);
    // A node type that is neither.
    let f = store(ZarrFormat::V3, Codec::None);
    f.edit_meta(|d| d["node_type"] = json!("table"));
    for (_, e) in all_metadata_readers(&f) {
        metadata_error(&f, &e, "zarr.json", &["not an array"]);
    }
    // A v2 group: `.zgroup` and no `.zarray`.
    let f = store(ZarrFormat::V2, Codec::None);
    std::fs::remove_file(f.path.join(".zarray")).unwrap();
    std::fs::write(f.path.join(".zgroup"), br#"{"zarr_format": 2}"#).unwrap();
    let column = format!("{}/id", f.name());
    let e = err(ndl_zarr::read::<Rec>(&f.path));
    assert!(
        matches!(&e, Error::NotAnArray { store } if *store == column),
        "{e:?}"
    );
    let e = err(ArrayInfo::open(&f.path));
    assert!(matches!(e, Error::NotAnArray { .. }), "{e:?}");
    says(&e, &[&f.name()]);
    // `.zarray` saying it is another format.
    let f = store(ZarrFormat::V2, Codec::None);
    f.edit_meta(|d| d["zarr_format"] = json!(3));
    for (_, e) in all_metadata_readers(&f) {
        metadata_error(&f, &e, ".zarray", &["zarr_format"]);
    }
}

// -------------------------------------------------------- lying metadata

#[test]
fn a_chunk_grid_of_another_rank_is_refused() {
    for format in FORMATS {
        for chunks in [json!([4, 4]), json!([])] {
            let f = store(format, Codec::None);
            f.set_chunks(chunks.clone());
            for (_, e) in all_metadata_readers(&f) {
                metadata_error(&f, &e, f.meta_key(), &["dimensions"]);
            }
        }
        // The shape of another rank than the chunks.
        let f = store(format, Codec::None);
        f.edit_meta(|d| d["shape"] = json!([10, 1]));
        metadata_error(
            &f,
            &err(ndl_zarr::read::<Rec>(&f.path)),
            f.meta_key(),
            &["dimensions"],
        );
    }
}

#[test]
fn a_rank_2_array_is_a_shape_error() {
    for format in FORMATS {
        let f = store(format, Codec::None);
        f.edit_meta(|d| {
            d["shape"] = json!([5, 2]);
            if format == ZarrFormat::V3 {
                d["dimension_names"] = json!(["record", "pair"]);
            }
        });
        f.set_chunks(json!([2, 2]));
        let info = ArrayInfo::open(&f.path).unwrap();
        assert_eq!(info.shape(), [5, 2]);
        for e in [
            err(ndl_zarr::read::<Rec>(&f.path)),
            err(ArrayWriter::<Rec>::open(&f.path)),
        ] {
            assert!(matches!(e, Error::Shape { .. }), "{e:?}");
            says(&e, &[&f.name(), "[5, 2]"]);
        }
    }
}

#[test]
fn a_chunk_extent_of_0_is_refused() {
    for format in FORMATS {
        let f = store(format, Codec::None);
        f.set_chunks(json!([0]));
        for (_, e) in all_metadata_readers(&f) {
            metadata_error(&f, &e, f.meta_key(), &["extent of 0"]);
        }
    }
}

#[test]
fn negative_and_fractional_dimensions_are_refused() {
    for format in FORMATS {
        for bad in [
            json!([-1]),
            json!([2.5]),
            json!(["10"]),
            json!(10),
            json!(null),
        ] {
            let f = store(format, Codec::None);
            f.edit_meta(|d| d["shape"] = bad.clone());
            for (_, e) in all_metadata_readers(&f) {
                metadata_error(&f, &e, f.meta_key(), &[]);
            }
            let f = store(format, Codec::None);
            f.set_chunks(bad.clone());
            for (_, e) in all_metadata_readers(&f) {
                metadata_error(&f, &e, f.meta_key(), &[]);
            }
        }
        // v2 says which key.
        if format == ZarrFormat::V2 {
            let f = store(format, Codec::None);
            f.edit_meta(|d| d["shape"] = json!([-10]));
            metadata_error(
                &f,
                &err(ndl_zarr::read::<Rec>(&f.path)),
                ".zarray",
                &["`shape`", "non-negative integers"],
            );
            let f = store(format, Codec::None);
            f.edit_meta(|d| d["chunks"] = json!([1.5]));
            metadata_error(
                &f,
                &err(ndl_zarr::read::<Rec>(&f.path)),
                ".zarray",
                &["`chunks`"],
            );
        }
    }
}

#[test]
fn a_shape_whose_element_count_overflows_is_refused() {
    for format in FORMATS {
        let f = store(format, Codec::None);
        f.edit_meta(|d| d["shape"] = json!([1u64 << 32, 1u64 << 32]));
        f.set_chunks(json!([1, 1]));
        for (_, e) in all_metadata_readers(&f) {
            metadata_error(&f, &e, f.meta_key(), &["64-bit"]);
        }
        let f = store(format, Codec::None);
        f.edit_meta(|d| d["shape"] = json!([u64::MAX, 2, 3]));
        f.set_chunks(json!([4, 1, 1]));
        metadata_error(
            &f,
            &err(ArrayInfo::open(&f.path)),
            f.meta_key(),
            &["64-bit"],
        );
    }
}

#[test]
fn a_huge_shape_is_an_error_quickly_not_an_abort() {
    isolated("a_huge_shape_is_an_error_quickly_not_an_abort", || {
        assert_eq!(std::mem::size_of::<Rec>(), 24);
        for format in FORMATS {
            for shape in [1_000_000_000_000_000u64, u64::MAX, 1 << 60] {
                let f = store(format, Codec::None);
                f.edit_meta(|d| d["shape"] = json!([shape]));
                let started = Instant::now();
                let e = err(ndl_zarr::read::<Rec>(&f.path));
                assert!(
                    started.elapsed() < Duration::from_secs(2),
                    "{shape}: took {:?}",
                    started.elapsed()
                );
                assert!(matches!(e, Error::Shape { .. }), "{e:?}");
                says(&e, &[&f.name(), &shape.to_string()]);
                // The metadata alone is fine, and so are small ranges,
                // decoding only their chunks.
                assert_eq!(ArrayInfo::open(&f.path).unwrap().shape(), [shape]);
                assert_eq!(
                    ndl_zarr::read_range::<Rec>(&f.path, 2..6).unwrap(),
                    records(6)[2..]
                );
                assert_eq!(
                    ndl_zarr::read_range::<Rec>(&f.path, shape - 2..shape).unwrap(),
                    [ZERO, ZERO]
                );
                assert_eq!(
                    ndl_zarr::read_packed(&f.path, 4..5).unwrap(),
                    std::fs::read(f.chunk(1)).unwrap()[..PACKED]
                );
                // A range as large as the shape is refused before any chunk.
                let started = Instant::now();
                let e = err(ndl_zarr::read_range::<Rec>(&f.path, 1..shape));
                assert!(matches!(e, Error::Shape { .. }), "{e:?}");
                let e = err(ndl_zarr::read_packed(&f.path, 0..shape));
                assert!(matches!(e, Error::Shape { .. }), "{e:?}");
                assert!(started.elapsed() < Duration::from_secs(2));
            }
        }
    });
}

#[test]
fn a_huge_chunk_shape_is_an_error_not_an_abort() {
    isolated("a_huge_chunk_shape_is_an_error_not_an_abort", || {
        const HUGE: u64 = 1_000_000_000_000_000;
        for format in FORMATS {
            for codec in [Codec::None, Codec::Zstd(3)] {
                // The chunk that is there is far smaller than claimed.
                let f = store(format, codec);
                f.set_chunks(json!([HUGE]));
                assert_eq!(ArrayInfo::open(&f.path).unwrap().chunks(), [HUGE]);
                // Refused before any chunk is read: a chunk may hold 2 GiB.
                let too_big = |e: &Error| {
                    assert!(
                        matches!(e, Error::Shape { store, message } if store.ends_with("bad.zarr") && message.contains("a chunk may hold")),
                        "{e:?}"
                    )
                };
                for e in [
                    err(ndl_zarr::read::<Rec>(&f.path)),
                    err(ndl_zarr::read_range::<Rec>(&f.path, 0..1)),
                    err(ndl_zarr::read_packed(&f.path, 0..1)),
                    err(ArrayWriter::<Rec>::open(&f.path)),
                ] {
                    too_big(&e);
                }
                // No chunk at all: the fill value of a whole chunk would be
                // 22 PB.
                std::fs::remove_file(f.chunk(0)).unwrap();
                let started = Instant::now();
                match ndl_zarr::read_range::<Rec>(&f.path, 0..2) {
                    Ok(v) => assert_eq!(v, [ZERO, ZERO]),
                    Err(e) => too_big(&e),
                }
                match ndl_zarr::read::<Rec>(&f.path) {
                    Ok(v) => assert_eq!(v, [ZERO; 10]),
                    Err(e) => too_big(&e),
                }
                // An append would have to write a 22 PB chunk.
                match ArrayWriter::<Rec>::open(&f.path) {
                    Ok(mut w) => {
                        let appended = w.append(&[rec(10)]).and_then(|()| w.finish());
                        assert!(appended.is_err(), "{appended:?}");
                    }
                    Err(e) => too_big(&e),
                }
                assert!(started.elapsed() < Duration::from_secs(5));
            }
        }
    });
}

#[test]
fn a_huge_record_size_is_an_error_not_an_abort() {
    isolated("a_huge_record_size_is_an_error_not_an_abort", || {
        const PB: u64 = 1_000_000_000_000_000;
        let raw = |n: u64| json!({"name": "raw_bytes", "configuration": {"length_bytes": n}});
        let v3_cases = [
            (raw(PB), json!("AAAA")),
            (json!(format!("r{}", 8 * PB)), json!("AAAA")),
            (
                json!({"name": "struct", "configuration": {"fields": [
                    {"name": "a", "data_type": raw(PB)}
                ]}}),
                json!({"a": "AAAA"}),
            ),
            (
                json!({"name": "struct", "configuration": {"fields": [
                    {"name": "s", "data_type": {"name": "fixed_length_utf32", "configuration": {"length_bytes": 4 * PB}}}
                ]}}),
                json!({"s": ""}),
            ),
        ];
        for (data_type, fill) in v3_cases {
            let f = store(ZarrFormat::V3, Codec::None);
            f.edit_meta(|d| {
                d["data_type"] = data_type.clone();
                d["fill_value"] = fill;
            });
            let started = Instant::now();
            for (how, e) in all_metadata_readers(&f) {
                assert!(
                    matches!(&e, Error::Metadata { key, .. } | Error::DataType { key, .. } | Error::Chunk { key, .. } if key == "zarr.json" || key == "c/0")
                        || matches!(e, Error::TypeMismatch { .. } | Error::Shape { .. }),
                    "{how} {data_type}: {e:?}"
                );
                says(&e, &[&f.name()]);
            }
            assert!(started.elapsed() < Duration::from_secs(5));
        }
        for dtype in [
            json!(format!("|V{PB}")),
            json!([["a", format!("|S{PB}")]]),
            json!([["a", "|b1", [1_000_000_000_000u64]]]),
            json!([["a", "<f8", [1000, 1000, 1000, 1000]]]),
        ] {
            let f = store(ZarrFormat::V2, Codec::None);
            f.edit_meta(|d| d["dtype"] = dtype.clone());
            let started = Instant::now();
            for (how, e) in all_metadata_readers(&f) {
                assert!(
                    matches!(&e, Error::Metadata { key, .. } | Error::DataType { key, .. } if key == ".zarray")
                        || matches!(
                            e,
                            Error::TypeMismatch { .. } | Error::Shape { .. } | Error::Chunk { .. }
                        ),
                    "{how} {dtype}: {e:?}"
                );
                says(&e, &[&f.name()]);
            }
            assert!(started.elapsed() < Duration::from_secs(5));
        }
    });
}

/// The peak resident memory of this process, from `/proc/self/status`.
fn peak_rss_mb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    let kb: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kb / 1024
}

#[test]
fn a_large_subarray_field_costs_no_more_than_its_size() {
    isolated("a_large_subarray_field_costs_no_more_than_its_size", || {
        // A 70-byte `.zarray` whose records are 10 MB: ten million bools.
        // Its metadata must not cost minutes or gigabytes.
        let f = store(ZarrFormat::V2, Codec::None);
        f.edit_meta(|d| d["dtype"] = json!([["a", "|b1", [10_000_000]]]));
        let before = peak_rss_mb();
        let started = Instant::now();
        let info = ArrayInfo::open(&f.path);
        let took = started.elapsed();
        let peak = peak_rss_mb();
        assert!(info.is_ok(), "{info:?}");
        assert!(took < Duration::from_secs(3), "took {took:?}");
        assert!(
            peak < before + 200,
            "peak memory went from {before} MB to {peak} MB"
        );
    });
}

#[test]
fn unknown_codecs_are_refused() {
    // v3: a codec zarrs does not know, after `bytes`.
    let f = store(ZarrFormat::V3, Codec::None);
    f.edit_meta(|d| {
        d["codecs"]
            .as_array_mut()
            .unwrap()
            .push(json!({"name": "lzma9", "configuration": {"level": 3}}))
    });
    for (_, e) in all_metadata_readers(&f) {
        metadata_error(&f, &e, "zarr.json", &["lzma9"]);
    }
    // v3: no `bytes` codec at all, and a bytes codec with a bad endian.
    for codecs in [
        json!([]),
        json!([{"name": "zstd", "configuration": {"level": 3, "checksum": false}}]),
        json!([{"name": "bytes", "configuration": {"endian": "middle"}}]),
    ] {
        let f = store(ZarrFormat::V3, Codec::None);
        f.edit_meta(|d| d["codecs"] = codecs.clone());
        for (_, e) in all_metadata_readers(&f) {
            metadata_error(&f, &e, "zarr.json", &[]);
        }
    }
    // v2: an unknown compressor, an unknown filter, junk as compressor.
    for (key, value) in [
        ("compressor", json!({"id": "lzma9", "preset": 1})),
        ("filters", json!([{"id": "lzma9"}])),
        ("compressor", json!("zstd")),
        ("compressor", json!({"level": 1})),
    ] {
        let f = store(ZarrFormat::V2, Codec::None);
        f.edit_meta(|d| d[key] = value.clone());
        for (how, e) in all_metadata_readers(&f) {
            assert!(
                matches!(&e, Error::Metadata { key, .. } if key == ".zarray"),
                "{how} {value}: {e:?}"
            );
            says(&e, &[&f.name(), ".zarray"]);
        }
    }
}

#[test]
fn unknown_data_type_names_are_refused() {
    // v3: the whole data type, and one field's.
    for (data_type, field, says_what) in [
        (json!("float128"), "", "float128"),
        (json!({"name": "strukt", "configuration": {}}), "", "strukt"),
        (json!(42), "", "42"),
        (json!({"configuration": {}}), "", "no name"),
        (
            json!({"name": "struct", "configuration": {"fields": [
                {"name": "id", "data_type": "uint32"},
                {"name": "t", "data_type": "float99"}
            ]}}),
            "t",
            "float99",
        ),
        (
            json!({"name": "struct", "configuration": {"fields": [
                {"name": "id", "data_type": "uint32"},
                {"name": "pos", "data_type": {"name": "struct", "configuration": {"fields": [
                    {"name": "x", "data_type": "varchar"}
                ]}}}
            ]}}),
            "pos.x",
            "varchar",
        ),
        (
            json!({"name": "struct", "configuration": {"fields": [
                {"name": "s", "data_type": "string"}
            ]}}),
            "s",
            "",
        ),
    ] {
        let f = store(ZarrFormat::V3, Codec::None);
        f.edit_meta(|d| d["data_type"] = data_type.clone());
        for (_, e) in all_metadata_readers(&f) {
            data_type_error(&f, &e, field, &[says_what]);
        }
    }
    // v2.
    for (dtype, field, says_what) in [
        (json!("<x4"), "", "<x4"),
        (json!("|O"), "", "|O"),
        (json!(7), "", "7"),
        (json!([["id", "<u4"], ["t", "<f99"]]), "t", "<f99"),
        (json!([["id", "<u4"], ["p", [["x", "zz"]]]]), "p.x", "zz"),
        (json!([["id"]]), "", "[name, dtype]"),
        (json!([[7, "<u4"]]), "", "not a string"),
        (json!([]), "", "no fields"),
    ] {
        let f = store(ZarrFormat::V2, Codec::None);
        f.edit_meta(|d| d["dtype"] = dtype.clone());
        for (_, e) in all_metadata_readers(&f) {
            data_type_error(&f, &e, field, &[says_what]);
        }
    }
}

#[test]
fn duplicate_and_empty_field_names_are_refused() {
    let v3 = |fields: Value| json!({"name": "struct", "configuration": {"fields": fields}});
    for (data_type, field, says_what) in [
        (
            v3(json!([{"name": "a", "data_type": "uint32"}, {"name": "a", "data_type": "uint8"}])),
            "a",
            "twice",
        ),
        (
            v3(json!([{"name": "", "data_type": "uint32"}])),
            "",
            "unnamed",
        ),
        (
            v3(
                json!([{"name": "p", "data_type": {"name": "struct", "configuration": {"fields": [
                    {"name": "x", "data_type": "uint8"}, {"name": "x", "data_type": "uint8"}
                ]}}}]),
            ),
            "p.x",
            "twice",
        ),
        (v3(json!([])), "", "no fields"),
        (
            json!({"name": "structured", "configuration": {"fields": [["a", "uint32"], ["a", "uint32"]]}}),
            "a",
            "twice",
        ),
    ] {
        let f = store(ZarrFormat::V3, Codec::None);
        f.edit_meta(|d| d["data_type"] = data_type.clone());
        for (_, e) in all_metadata_readers(&f) {
            data_type_error(&f, &e, field, &[says_what]);
        }
    }
    for (dtype, field, says_what) in [
        (json!([["a", "<u4"], ["a", "|u1"]]), "a", "twice"),
        (json!([["a", "<u4"], ["", "|V4"]]), "", "unnamed"),
        (json!([["", "|V4"], ["a", "<u4"]]), "", "padding"),
        (json!([["p", [["x", "|u1"], ["x", "|u1"]]]]), "p.x", "twice"),
    ] {
        let f = store(ZarrFormat::V2, Codec::None);
        f.edit_meta(|d| d["dtype"] = dtype.clone());
        for (_, e) in all_metadata_readers(&f) {
            data_type_error(&f, &e, field, &[says_what]);
        }
    }
}

#[test]
fn sizes_that_do_not_add_up_are_refused() {
    // v2: a subarray field whose size overflows, a negative extent, a
    // base64 fill value that is not one record.
    for (dtype, field) in [
        (json!([["a", "<u8", [1u64 << 62, 4]]]), "a"),
        (json!([["a", "<u8", [-1]]]), "a"),
        (json!([["a", "<u8", "3"]]), "a"),
    ] {
        let f = store(ZarrFormat::V2, Codec::None);
        f.edit_meta(|d| d["dtype"] = dtype.clone());
        data_type_error(&f, &err(ArrayInfo::open(&f.path)), field, &[]);
        data_type_error(&f, &err(ndl_zarr::read::<Rec>(&f.path)), field, &[]);
    }
    // A fill value of 21 bytes (one short) and 23 (one over), and one that
    // is not base64.
    let a28 = "A".repeat(28);
    for fill in [a28.clone(), format!("{a28}AAA="), "!!".to_string()] {
        let f = store(ZarrFormat::V2, Codec::None);
        f.edit_meta(|d| d["fill_value"] = json!(fill));
        for (_, e) in all_metadata_readers(&f) {
            metadata_error(&f, &e, ".zarray", &["fill_value"]);
        }
    }
    // The right size reads.
    let f = store(ZarrFormat::V2, Codec::None);
    f.edit_meta(|d| d["fill_value"] = json!(format!("{a28}AA==")));
    assert_eq!(ndl_zarr::read::<Rec>(&f.path).unwrap(), records(10));
    // v3 legacy `structured`: a base64 fill value of the wrong size.
    let f = store_of(
        WriteOptions::new()
            .chunk_len(4)
            .codec(Codec::None)
            .legacy_structured(true),
        ZarrFormat::V3,
        &records(10),
    );
    assert_eq!(ndl_zarr::read::<Rec>(&f.path).unwrap(), records(10));
    f.edit_meta(|d| d["fill_value"] = json!("AAAA"));
    for (_, e) in all_metadata_readers(&f) {
        metadata_error(&f, &e, "zarr.json", &[]);
    }
    // v3 `struct`: a fill value missing a field, of the wrong type, out of
    // range.
    for fill in [
        json!({"id": 0, "ok": false, "level": 0, "t": 0.0}),
        json!({"id": 0, "ok": 3, "level": 0, "t": 0.0, "pos": {"x": 0.0, "y": 0.0}}),
        json!({"id": -1, "ok": false, "level": 0, "t": 0.0, "pos": {"x": 0.0, "y": 0.0}}),
        json!([0, 0]),
    ] {
        let f = store(ZarrFormat::V3, Codec::None);
        f.edit_meta(|d| d["fill_value"] = fill.clone());
        for (_, e) in all_metadata_readers(&f) {
            metadata_error(&f, &e, "zarr.json", &[]);
        }
    }
    // The `ndl_datatype` attribute lying about its sizes is ignored: the
    // stored data type rules.
    for format in FORMATS {
        let f = store(format, Codec::None);
        let attrs = match format {
            ZarrFormat::V2 => ".zattrs",
            _ => "zarr.json",
        };
        f.edit_json(attrs, |d| {
            let a = if format == ZarrFormat::V2 {
                d
            } else {
                &mut d["attributes"]
            };
            a["ndl_datatype"]["size"] = json!(3);
        });
        let info = ArrayInfo::open(&f.path).unwrap();
        assert_eq!(&info.datatype(), info.stored_datatype());
        assert_eq!(ndl_zarr::read::<Rec>(&f.path).unwrap(), records(10));
    }
}

// --------------------------------------------------------- type mismatch

#[test]
fn another_record_type_names_the_field() {
    for format in FORMATS {
        let f = store(format, Codec::Zstd(3));
        let mismatch = |e: Error, field: &str, parts: &[&str]| {
            match &e {
                Error::TypeMismatch {
                    store, field: fd, ..
                } => {
                    assert_eq!(store, &f.name());
                    assert_eq!(fd, field, "{e}");
                }
                other => panic!("{format:?}: expected TypeMismatch at `{field}`, got {other:?}"),
            }
            says(&e, &[&f.name(), &format!("'{field}'")]);
            says(&e, parts);
        };
        mismatch(
            err(ndl_zarr::read::<RecF32>(&f.path)),
            "t",
            &["float64", "float32"],
        );
        mismatch(
            err(ndl_zarr::read::<RecNoPos>(&f.path)),
            "pos",
            &["the type does not"],
        );
        mismatch(err(ndl_zarr::read::<RecExtra>(&f.path)), "z", &["missing"]);
        mismatch(
            err(ndl_zarr::read::<RecPos64>(&f.path)),
            "pos.y",
            &["float32", "float64"],
        );
        mismatch(err(ndl_zarr::read::<u32>(&f.path)), "", &[]);
        mismatch(err(ndl_zarr::read::<Tagged>(&f.path)), "n", &["missing"]);
        // read_range and ArrayWriter::open check the same way.
        mismatch(err(ndl_zarr::read_range::<RecF32>(&f.path, 0..1)), "t", &[]);
        mismatch(err(ArrayWriter::<RecNoPos>::open(&f.path)), "pos", &[]);
        // A scalar store read as records, and records as a scalar.
        let g = store_of(WriteOptions::new(), format, &[1u32, 2, 3]);
        let e = err(ndl_zarr::read::<Rec>(&g.path));
        assert!(matches!(e, Error::TypeMismatch { .. }), "{e:?}");
        says(&e, &[&g.name(), "uint32"]);
        let e = err(ndl_zarr::read::<i32>(&g.path));
        assert!(matches!(e, Error::TypeMismatch { .. }), "{e:?}");
        says(&e, &["int32", "uint32"]);
        // The store is untouched by the failed opens.
        assert_eq!(ndl_zarr::read::<Rec>(&f.path).unwrap(), records(10));
    }
}

#[test]
fn an_edited_field_type_in_the_metadata_is_a_type_mismatch() {
    // The store's metadata says `t` is int64 now: same size, other type.
    for format in FORMATS {
        let f = store(format, Codec::None);
        match format {
            ZarrFormat::V2 => f.edit_meta(|d| d["dtype"][3][1] = json!("<i8")),
            _ => f.edit_meta(|d| {
                d["data_type"]["configuration"]["fields"][3]["data_type"] = json!("int64");
                d["fill_value"]["t"] = json!(0);
            }),
        }
        let e = err(ndl_zarr::read::<Rec>(&f.path));
        assert!(
            matches!(&e, Error::TypeMismatch { field, .. } if field == "t"),
            "{format:?}: {e:?}"
        );
        says(&e, &["int64", "float64"]);
    }
}

// ------------------------------------------------------------- ranges

#[test]
fn read_range_out_of_bounds_is_a_shape_error() {
    for format in FORMATS {
        let f = store(format, Codec::None);
        #[allow(clippy::reversed_empty_ranges)]
        for range in [
            5..11,
            10..11,
            11..11,
            8..3,
            0..u64::MAX,
            u64::MAX - 1..u64::MAX,
        ] {
            let e = err(ndl_zarr::read_range::<Rec>(&f.path, range.clone()));
            assert!(matches!(e, Error::Shape { .. }), "{range:?}: {e:?}");
            says(&e, &[&f.name(), &format!("{range:?}"), "10"]);
        }
        assert_eq!(ndl_zarr::read_range::<Rec>(&f.path, 10..10).unwrap(), []);
        assert_eq!(ndl_zarr::read_range::<Rec>(&f.path, 3..3).unwrap(), []);
        assert_eq!(
            ndl_zarr::read_range::<Rec>(&f.path, 9..10).unwrap(),
            [rec(9)]
        );
        // An empty array.
        let g = store_of(WriteOptions::new(), format, &[] as &[Rec]);
        assert_eq!(ndl_zarr::read::<Rec>(&g.path).unwrap(), []);
        assert_eq!(ndl_zarr::read_range::<Rec>(&g.path, 0..0).unwrap(), []);
        let e = err(ndl_zarr::read_range::<Rec>(&g.path, 0..1));
        assert!(matches!(e, Error::Shape { .. }), "{e:?}");
    }
}
