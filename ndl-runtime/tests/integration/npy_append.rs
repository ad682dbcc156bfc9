//! Appending to `.npy` files in place (`npy::append_file`, `AppendOptions`,
//! `StreamWriter::open`), checked with real NumPy: files we write, files
//! `np.save` writes, files grown the way npy-append-array grows them, and
//! old headers without growth padding; and kill -9 in the middle of
//! appends: the file must load as before or as after, in NumPy and here.
//!
//! Run with `NDL_PYTHON=/path/to/python` (numpy ≥ 1.24).

use ndl_runtime::Order;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use ndl_runtime::NdlType;
use ndl_runtime::npy::{self, AppendOptions, ByteOrder, Error, StreamWriter, WriteOptions};

/// 24 bytes in memory, 7 of them padding (NumPy's `align=True` layout).
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Rec {
    id: u64,
    x: f64,
    ok: bool,
}

fn rec(i: u64) -> Rec {
    Rec {
        id: i,
        x: i as f64 * 0.5,
        ok: i.is_multiple_of(3),
    }
}

fn records(range: std::ops::Range<u64>) -> Vec<Rec> {
    range.map(rec).collect()
}

/// Loads `path` with NumPy, as a whole and memory-mapped, and checks it
/// holds `n` records of [`Rec`] (`rec(i)` at index `i`) in `order`.
fn numpy_has(path: &Path, n: u64, order: &str) {
    ndl_testkit::run_python(
        r#"
import sys, numpy as np
path, n, o = sys.argv[1], int(sys.argv[2]), sys.argv[3]
dt = np.dtype([('id', o + 'u8'), ('x', o + 'f8'), ('ok', '?')], align=True)
i = np.arange(n)
for a in (np.load(path), np.load(path, mmap_mode='r')):
    assert a.dtype.fields == dt.fields and a.dtype.itemsize == dt.itemsize, a.dtype
    assert a.shape == (n,), a.shape
    assert (a['id'] == i).all() and (a['x'] == i * 0.5).all() and (a['ok'] == (i % 3 == 0)).all()
"#,
        &[path.to_str().unwrap(), &n.to_string(), order],
    );
}

#[test]
fn appends_to_our_files_load_in_numpy() {
    let dir = tempfile::tempdir().unwrap();
    for (name, order, py) in [
        ("le.npy", ByteOrder::Little, "<"),
        ("be.npy", ByteOrder::Big, ">"),
    ] {
        let path = dir.path().join(name);
        WriteOptions::new()
            .byte_order(order)
            .write_file(&path, &records(0..5))
            .unwrap();
        assert_eq!(npy::append_file(&path, &records(5..12)).unwrap(), 12);
        assert_eq!(npy::append_file(&path, &records(12..12)).unwrap(), 12);
        // Past a power of ten: the count takes a digit from the padding.
        let n = AppendOptions::new()
            .durable(true)
            .append_file(&path, &records(12..100_003))
            .unwrap();
        assert_eq!(n, 100_003);
        let back = npy::ReadOptions::new().read_file::<Rec>(&path).unwrap();
        assert_eq!(back.byte_order, order, "the file's byte order wins");
        assert!(back.data == records(0..n));
        numpy_has(&path, n, py);
        // The same bytes as one write of all the records.
        let whole = dir.path().join("whole.npy");
        WriteOptions::new()
            .byte_order(order)
            .write_file(&whole, &records(0..n))
            .unwrap();
        assert!(std::fs::read(&path).unwrap() == std::fs::read(&whole).unwrap());
    }
}

#[test]
fn appends_to_np_save_files_give_np_save_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    ndl_testkit::run_python(
        r#"
import sys, numpy as np
d = sys.argv[1]
dt = np.dtype([('id', '<u8'), ('x', '<f8'), ('ok', '?')], align=True)
a = np.zeros(7, dt); i = np.arange(7)
a['id'], a['x'], a['ok'] = i, i * 0.5, i % 3 == 0
np.save(f'{d}/recs.npy', a)
np.save(f'{d}/rows.npy', np.arange(6, dtype='>f4').reshape(2, 3))
"#,
        &[d],
    );
    let recs = dir.path().join("recs.npy");
    assert_eq!(npy::append_file(&recs, &records(7..10)).unwrap(), 10);
    numpy_has(&recs, 10, "<");
    // Rows of a 2-D big-endian array: as `[f32; 3]` records, or as whole
    // rows of `f32`; anything else is refused, leaving the file alone.
    let rows = dir.path().join("rows.npy");
    assert_eq!(npy::append_file(&rows, &[[6.0f32, 7.0, 8.0]]).unwrap(), 3);
    assert_eq!(npy::append_file(&rows, &[9.0f32, 10.0, 11.0]).unwrap(), 12);
    let before = std::fs::read(&rows).unwrap();
    let e = npy::append_file(&rows, &[1.0f32, 2.0]).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            Error::ShapeMismatch {
                expected: 3,
                got: 2,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(std::fs::read(&rows).unwrap(), before);
    ndl_testkit::run_python(
        r#"
import io, sys, numpy as np
d = sys.argv[1]
expected = np.arange(12, dtype='>f4').reshape(4, 3)
for a in (np.load(f'{d}/rows.npy'), np.load(f'{d}/rows.npy', mmap_mode='r')):
    assert a.dtype == expected.dtype and (a == expected).all(), a
buf = io.BytesIO(); np.save(buf, expected)
assert buf.getvalue() == open(f'{d}/rows.npy', 'rb').read()
dt = np.dtype([('id', '<u8'), ('x', '<f8'), ('ok', '?')], align=True)
a = np.load(f'{d}/recs.npy')
buf = io.BytesIO(); np.save(buf, a)
assert buf.getvalue() == open(f'{d}/recs.npy', 'rb').read()
"#,
        &[d],
    );
}

/// What npy-append-array does to grow a file: the records written after
/// the data, then the header rewritten by NumPy's own header writer (it
/// refuses when the length would change).
const PY_GROW: &str = r#"
import sys, numpy as np
from numpy.lib import format as fmt
path, start, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(path, 'rb+') as f:
    version = fmt.read_magic(f)
    assert version == (1, 0), version
    shape, fortran, dtype = fmt.read_array_header_1_0(f)
    offset = f.tell()
    new = np.zeros(n, dtype); i = np.arange(start, start + n)
    new['id'], new['x'], new['ok'] = i, i * 0.5, i % 3 == 0
    f.seek(offset + shape[0] * dtype.itemsize)
    f.write(new.tobytes())
    f.seek(0)
    header = {'descr': fmt.dtype_to_descr(dtype), 'fortran_order': fortran, 'shape': (shape[0] + n,)}
    fmt.write_array_header_1_0(f, header)
    assert f.tell() == offset, (f.tell(), offset)
"#;

#[test]
fn files_grown_as_npy_append_array_grows_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("grown.npy");
    let p = path.to_str().unwrap();
    npy::write_file(&path, &records(0..3)).unwrap();
    ndl_testkit::run_python(PY_GROW, &[p, "3", "9"]);
    assert_eq!(npy::append_file(&path, &records(12..20)).unwrap(), 20);
    ndl_testkit::run_python(PY_GROW, &[p, "20", "80"]);
    assert_eq!(npy::append_file(&path, &records(100..101)).unwrap(), 101);
    assert!(npy::read_file::<Rec>(&path).unwrap() == records(0..101));
    numpy_has(&path, 101, "<");
}

/// A `.npy` file as NumPy < 1.24 wrote it: no growth padding, here none
/// at all (the header ends right after the dict).
fn old_numpy_file(path: &Path, n: u64) -> Vec<u8> {
    let text = format!(
        "{{'descr': [('id', '<u8'), ('x', '<f8'), ('ok', '|b1'), ('', '|V7')], 'fortran_order': False, 'shape': ({n},), }}\n"
    );
    let mut file = b"\x93NUMPY\x01\x00".to_vec();
    file.extend_from_slice(&(text.len() as u16).to_le_bytes());
    file.extend_from_slice(text.as_bytes());
    let mut data = Vec::new();
    npy::write(&mut data, &records(0..n)).unwrap();
    let data_start = data.len() - n as usize * 24;
    file.extend_from_slice(&data[data_start..]);
    std::fs::write(path, &file).unwrap();
    file
}

#[test]
fn old_headers_without_room_are_refused_or_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.npy");
    let file = old_numpy_file(&path, 9);
    numpy_has(&path, 9, "<");
    let e = npy::append_file(&path, &records(9..10)).unwrap_err();
    assert!(matches!(e.kind(), Error::NoGrowthRoom { count: 10 }), "{e}");
    assert!(e.to_string().contains("rewrite(true)"), "{e}");
    assert_eq!(std::fs::read(&path).unwrap(), file, "the file is untouched");
    // A count of as many digits fits in place.
    assert_eq!(npy::append_file(&path, &records(9..9)).unwrap(), 9);
    // The stream writer fails at `finish`, the file reading as before.
    let mut w = StreamWriter::<Rec>::open(&path).unwrap();
    w.append(&records(9..15)).unwrap();
    let e = w.finish().unwrap_err();
    assert!(matches!(e.kind(), Error::NoGrowthRoom { count: 15 }), "{e}");
    assert!(npy::read_file::<Rec>(&path).unwrap() == records(0..9));
    numpy_has(&path, 9, "<");

    let n = AppendOptions::new()
        .rewrite(true)
        .durable(true)
        .append_file(&path, &records(9..10))
        .unwrap();
    assert_eq!(n, 10);
    numpy_has(&path, 10, "<");
    // Rewritten with growth padding: later appends are in place.
    let len = std::fs::metadata(&path).unwrap().len();
    assert_eq!(len % 64, (10 * 24) % 64, "the header is padded to 64 bytes");
    assert_eq!(npy::append_file(&path, &records(10..1000)).unwrap(), 1000);
    numpy_has(&path, 1000, "<");

    let path = dir.path().join("old_stream.npy");
    old_numpy_file(&path, 9);
    let mut w = StreamWriter::<Rec>::open_with(&path, &AppendOptions::new().rewrite(true)).unwrap();
    w.append(&records(9..50)).unwrap();
    assert_eq!(w.finish().unwrap(), 50);
    numpy_has(&path, 50, "<");
    assert!(
        std::fs::read_dir(dir.path()).unwrap().count() == 2,
        "no temporary file left"
    );
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct OtherX {
    id: u64,
    x: f32,
    ok: bool,
}

#[test]
fn other_datatypes_fortran_order_and_scalars_are_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.npy");
    npy::write_file(&path, &records(0..4)).unwrap();
    let before = std::fs::read(&path).unwrap();
    let other = OtherX {
        id: 1,
        x: 1.0,
        ok: true,
    };
    let e = npy::append_file(&path, &[other]).unwrap_err();
    assert!(
        matches!(e.kind(), Error::TypeMismatch { field, .. } if field == "x"),
        "{e}"
    );
    assert!(StreamWriter::<OtherX>::open(&path).is_err());
    assert_eq!(std::fs::read(&path).unwrap(), before);

    let f = dir.path().join("f.npy");
    WriteOptions::new()
        .shape(&[2, 2])
        .order(Order::Fortran)
        .write_file(&f, &[1u8, 2, 3, 4])
        .unwrap();
    let e = npy::append_file(&f, &[5u8, 6]).unwrap_err();
    assert!(matches!(e.kind(), Error::NotAppendable { .. }), "{e}");
    assert!(e.to_string().contains("Fortran order"), "{e}");

    let s = dir.path().join("s.npy");
    WriteOptions::new()
        .shape(&[])
        .write_file(&s, &[1u8])
        .unwrap();
    let e = npy::append_file(&s, &[2u8]).unwrap_err();
    assert!(matches!(e.kind(), Error::NotAppendable { .. }), "{e}");

    // A sidecar records the shape: appending would make it stale.
    let c = dir.path().join("c.npy");
    WriteOptions::new()
        .sidecar(true)
        .write_file(&c, &[1u8])
        .unwrap();
    let e = npy::append_file(&c, &[2u8]).unwrap_err();
    assert!(e.to_string().contains("sidecar"), "{e}");
}

#[test]
fn bytes_past_the_data_read_as_before_and_are_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.npy");
    npy::write_file(&path, &records(0..10)).unwrap();
    // What a crash between the data and the header leaves: more records,
    // and part of one.
    let mut tail = Vec::new();
    npy::write(&mut tail, &records(10..13)).unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(&tail[tail.len() - 3 * 24..tail.len() - 5]);
    std::fs::write(&path, &bytes).unwrap();
    assert!(npy::read_file::<Rec>(&path).unwrap() == records(0..10));
    numpy_has(&path, 10, "<");
    // SAFETY: nothing modifies the file while it is mapped.
    let m = unsafe { npy::MmapArray::<Rec>::open(&path) }.unwrap();
    assert_eq!(m.as_slice().len(), 10);
    drop(m);
    assert_eq!(npy::append_file(&path, &records(10..11)).unwrap(), 11);
    let len = std::fs::metadata(&path).unwrap().len();
    assert_eq!(
        len,
        bytes.len() as u64 - 3 * 24 + 5 + 24,
        "the leftover is cut"
    );
    numpy_has(&path, 11, "<");
}

#[test]
fn stream_writers_continue_files_numpy_loads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.npy");
    WriteOptions::new()
        .byte_order(ByteOrder::Big)
        .write_file(&path, &records(0..3))
        .unwrap();
    let mut w = StreamWriter::<Rec>::open(&path).unwrap();
    for c in records(3..5000).chunks(777) {
        w.append(c).unwrap();
    }
    assert_eq!(w.records(), 4997);
    // Until `finish`, the file reads as before.
    assert!(npy::read_file::<Rec>(&path).unwrap() == records(0..3));
    assert_eq!(w.finish().unwrap(), 5000);
    numpy_has(&path, 5000, ">");
    // Dropped unfinished: as before.
    let mut w = StreamWriter::<Rec>::open(&path).unwrap();
    w.append(&records(5000..5100)).unwrap();
    drop(w);
    assert!(npy::read_file::<Rec>(&path).unwrap() == records(0..5000));
    numpy_has(&path, 5000, ">");
}

/// The environment variable that makes the test binary an appending child.
const CHILD: &str = "NDL_NPY_APPEND_CHILD";
/// Records per append: 2.4 MB, so that a kill often lands in one.
const BATCH: u64 = 100_000;
/// Records in the file before the child starts.
const BEFORE: u64 = 1234;

/// The child: appends batches to `PATH` from `NDL_NPY_APPEND_CHILD=MODE:PATH`
/// (`append`, `sync` or `stream`), saying `@appending` when the file is
/// about to hold records it does not yet count and `@finished N` after each.
fn child(spec: &str) {
    let (mode, path) = spec.split_once(':').unwrap();
    let mut len = npy::read_header_file(path).unwrap().shape[0];
    println!("\n@started");
    for _ in 0..1000 {
        let batch = records(len..len + BATCH);
        len = match mode {
            "append" => {
                println!("\n@appending");
                npy::append_file(path, &batch).unwrap()
            }
            "sync" => {
                println!("\n@appending");
                AppendOptions::new()
                    .durable(true)
                    .append_file(path, &batch)
                    .unwrap()
            }
            "stream" => {
                let mut w = StreamWriter::<Rec>::open(path).unwrap();
                for piece in batch.chunks(7000) {
                    w.append(piece).unwrap();
                }
                // Most of the batch is in the file, and not yet counted.
                println!("\n@appending");
                w.finish().unwrap()
            }
            other => panic!("unknown mode {other}"),
        };
        println!("\n@finished {len}");
    }
    std::thread::sleep(Duration::from_secs(30));
    std::process::exit(0);
}

/// Runs this test as a child appending in `mode` to `path`, kills it
/// `within` the first append it starts after `delay`, and returns the
/// lengths it said it finished at.
///
/// Waiting for the child to say it is appending makes the kills land
/// inside appends: after a fixed delay alone, most landed while it built
/// the next batch, and on a busy machine none of ten landed in one.
fn kill_child(mode: &str, path: &Path, delay: Duration, within: Duration) -> Vec<u64> {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "npy_append::kill_during_appends_leaves_the_file_as_before_or_after",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, format!("{mode}:{}", path.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let lines = lines_of(&mut child);
    let mut seen = Vec::new();
    let mut wait_for = |wanted: &str, seen: &mut Vec<String>| {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match lines.recv_timeout(left) {
                Ok(line) if line == wanted => return,
                Ok(line) => seen.push(line),
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => {
                    let _ = child.kill();
                    panic!("the child never said {wanted}: {:?}", child.try_wait());
                }
            }
        }
    };
    wait_for("@started", &mut seen);
    std::thread::sleep(delay);
    seen.extend(lines.try_iter());
    wait_for("@appending", &mut seen);
    std::thread::sleep(within);
    assert!(child.try_wait().unwrap().is_none(), "the child ended early");
    child.kill().unwrap();
    child.wait().unwrap();
    seen.extend(std::iter::from_fn(|| {
        lines.recv_timeout(Duration::from_secs(5)).ok()
    }));
    seen.iter()
        .filter_map(|line| line.strip_prefix("@finished "))
        .map(|n| n.parse().unwrap())
        .collect()
}

/// The child's stdout, line by line.
fn lines_of(child: &mut Child) -> Receiver<String> {
    let stdout = child.stdout.take().unwrap();
    let (send, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if send.send(line).is_err() {
                break;
            }
        }
    });
    lines
}

#[test]
fn kill_during_appends_leaves_the_file_as_before_or_after() {
    if let Ok(spec) = std::env::var(CHILD) {
        return child(&spec);
    }
    for mode in ["append", "sync", "stream"] {
        let mut in_flight = 0;
        let delays = [3, 40, 110, 17, 75, 230, 9, 160, 30, 60];
        let withins = [0, 300, 1000, 100, 2000, 0, 600, 50, 1500, 0];
        for (round, (ms, us)) in delays.into_iter().zip(withins).enumerate() {
            if round >= 3 && in_flight > 0 {
                break;
            }
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("a.npy");
            npy::write_file(&path, &records(0..BEFORE)).unwrap();
            let header_len = std::fs::metadata(&path).unwrap().len() - BEFORE * 24;
            let (delay, within) = (Duration::from_millis(ms), Duration::from_micros(us));
            let done = kill_child(mode, &path, delay, within);
            let last = done.last().copied().unwrap_or(BEFORE);
            let label =
                format!("{mode}, kill {us} µs into an append after {ms} ms, finished {done:?}");
            let data = npy::read_file::<Rec>(&path).unwrap_or_else(|e| panic!("{label}: {e}"));
            let len = data.len() as u64;
            // The kill may land after an append but before the child said so.
            assert!(len == last || len == last + BATCH, "{label}: {len} records");
            assert!(data == records(0..len), "{label}: wrong records");
            numpy_has(&path, len, "<");
            let end = std::fs::metadata(&path).unwrap().len();
            let leftover = end > header_len + len * 24;
            eprintln!("{label}: {len} records, bytes past the data: {leftover}");
            in_flight += usize::from(leftover);
            assert_eq!(
                npy::append_file(&path, &records(len..len + 5)).unwrap(),
                len + 5
            );
            numpy_has(&path, len + 5, "<");
        }
        assert!(in_flight > 0, "{mode}: no kill landed during an append");
    }
}
