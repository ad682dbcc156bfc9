//! Padding bytes in memory never reach a file: this test runs its own binary
//! under valgrind (memcheck), writing records whose padding is
//! uninitialised, through every writer. Any write of an uninitialised byte
//! to a file (or a compressor branching on one) makes valgrind fail.
//!
//! valgrind must be installed: without it the test fails, it never skips.

use std::mem::MaybeUninit;
use std::process::Command;

use ndl_runtime::npy::{self, ByteOrder, StreamWriter, WriteOptions};
use ndl_runtime::npz::NpzWriter;
use ndl_testkit::records::{Inner, Outer, Padded};

/// Set (to an output directory) when this binary runs as valgrind's child.
const CHILD_ENV: &str = "NDL_VALGRIND_CHILD_DIR";

#[test]
fn padding_is_never_read_under_valgrind() {
    let dir = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    let out = Command::new("valgrind")
        .args([
            "--error-exitcode=99",
            "--track-origins=yes",
            "--leak-check=no",
        ])
        .arg(&exe)
        .args(["--exact", "valgrind_padding::child_writes_padded_records"])
        .args(["--test-threads=1", "--nocapture"])
        .env(CHILD_ENV, dir.path())
        .output();
    let out = match out {
        Ok(out) => out,
        Err(e) => panic!(
            "cannot run valgrind ({e}): install it (e.g. `apt-get install valgrind`); this test does not skip"
        ),
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && !stderr.contains("uninitialised"),
        "valgrind found a problem ({}):\n{stderr}",
        out.status
    );
    assert!(
        stdout.contains("child wrote 10 files"),
        "the child did not run:\n{stdout}\n{stderr}"
    );
    let large: Vec<Padded> = npy::read_file(dir.path().join("large_be.npy")).unwrap();
    assert_eq!(large.len(), LARGE);
    let large_bytes = std::fs::metadata(dir.path().join("large_be.npy"))
        .unwrap()
        .len();
    assert!(
        large_bytes > 4 << 20,
        "the large files stay under the staging size"
    );
    // The files are complete and their padding is zero.
    let padded: Vec<Padded> = npy::read_file(dir.path().join("padded.npy")).unwrap();
    assert_eq!(padded.len(), RECORDS);
    let bytes = std::fs::read(dir.path().join("padded.npy")).unwrap();
    let start = 10 + usize::from(u16::from_le_bytes([bytes[8], bytes[9]]));
    assert_eq!(bytes.len(), start + RECORDS * 24);
    for rec in bytes[start..].chunks(24) {
        assert_eq!((&rec[1..8], &rec[18..24]), (&[0u8; 7][..], &[0u8; 6][..]));
    }
}

const RECORDS: usize = 3000;
/// Records of the large files: their data just passes the 4 MiB from
/// which a writer stages on a helper thread; every record costs valgrind.
const LARGE: usize = 175_000;

/// `RECORDS` records written field by field into fresh heap memory, so
/// their padding bytes are uninitialised (as valgrind tracks it).
fn uninit_padded(records: usize) -> Vec<Padded> {
    let mut v: Vec<Padded> = Vec::with_capacity(records);
    for (i, slot) in v.spare_capacity_mut().iter_mut().enumerate() {
        let p = slot.as_mut_ptr();
        // SAFETY: `p` points to writable memory for one `Padded`; each field
        // is written through a raw pointer without reading anything.
        unsafe {
            std::ptr::addr_of_mut!((*p).a).write(i as u8);
            std::ptr::addr_of_mut!((*p).b).write(i as f64 * 0.5);
            std::ptr::addr_of_mut!((*p).c).write(i as u16);
        }
    }
    // SAFETY: every field of the `RECORDS` elements was initialised above;
    // padding needs no initialisation.
    unsafe { v.set_len(records) };
    v
}

/// Records built on the stack from struct literals, with uninitialised
/// padding in `MaybeUninit` storage.
fn uninit_outer() -> Vec<Outer> {
    (0..RECORDS as u32)
        .map(|i| {
            let mut m = MaybeUninit::<Outer>::uninit();
            let p = m.as_mut_ptr();
            // SAFETY: as in `uninit_padded`; all fields are written.
            unsafe {
                std::ptr::addr_of_mut!((*p).id).write(i);
                std::ptr::addr_of_mut!((*p).pos).write(Inner { x: 1.0, y: 2.0 });
                std::ptr::addr_of_mut!((*p).flags).write([true, false, i % 2 == 0]);
                std::ptr::addr_of_mut!((*p).m).write([[1, 2, 3], [4, 5, 6]]);
                m.assume_init()
            }
        })
        .collect()
}

#[test]
fn child_writes_padded_records() {
    let Some(dir) = std::env::var_os(CHILD_ENV) else {
        // Only meaningful as valgrind's child; see the test above.
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    let padded = uninit_padded(RECORDS);
    // Just over 4 MiB (`LARGE` × 24 bytes): staged on a helper thread.
    let large = uninit_padded(LARGE);
    npy::write_file(dir.join("large.npy"), &large).unwrap();
    WriteOptions::new()
        .byte_order(ByteOrder::Big)
        .write_file(dir.join("large_be.npy"), &large)
        .unwrap();
    let outer = uninit_outer();
    npy::write_file(dir.join("padded.npy"), &padded).unwrap();
    npy::write_file(dir.join("outer.npy"), &outer).unwrap();
    let big = WriteOptions::new().byte_order(ByteOrder::Big);
    big.write_file(dir.join("padded_be.npy"), &padded).unwrap();
    big.write_file(dir.join("outer_be.npy"), &outer).unwrap();
    let mut w = StreamWriter::<Padded>::create(dir.join("stream.npy")).unwrap();
    for c in padded.chunks(7) {
        w.append(c).unwrap();
    }
    w.finish().unwrap();
    let mut mem = Vec::new();
    npy::write(&mut mem, &outer).unwrap();
    std::fs::write(dir.join("mem.npy"), mem).unwrap();
    for (name, mut z) in [
        (
            "stored.npz",
            NpzWriter::create(dir.join("stored.npz")).unwrap(),
        ),
        (
            "deflated.npz",
            NpzWriter::create_compressed(dir.join("deflated.npz")).unwrap(),
        ),
    ] {
        z.add("padded", &padded).unwrap();
        z.add("outer", &outer).unwrap();
        z.finish().unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    println!("child wrote 10 files");
}
