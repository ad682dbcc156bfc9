//! Reading arbitrary `.npy` bytes by field name into fixed types, and
//! appending to them in place: never a panic, and an append that succeeds
//! leaves a file that reads as the old records followed by the new.
#![no_main]

use std::io::Write;

use libfuzzer_sys::fuzz_target;
use ndl_runtime::NdlType;
use ndl_runtime::npy::{AppendOptions, ReadOptions};

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(u16)]
enum Kind {
    A = 1,
    B = 300,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Inner {
    x: f32,
    ok: bool,
}

/// Names NumPy's default field names and the corpus' records use.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Wanted {
    b: f64,
    a: u8,
    inner: Inner,
    kind: Kind,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct F0 {
    f0: i32,
}

fn by_name<T: NdlType>(data: &[u8]) {
    let _ = ReadOptions::new().by_name(true).read::<T, _>(data);
}

/// Appends to a copy of `data` on disk; when that works, the file holds
/// the records it held before, then the new ones (compared by `key`, so
/// that a NaN equals itself).
fn append<T: NdlType, K: PartialEq + std::fmt::Debug>(data: &[u8], more: &[T], key: fn(&T) -> K) {
    let mut file = tempfile::NamedTempFile::new().expect("a temporary file");
    file.write_all(data).expect("write the input");
    let path = file.path();
    let before = ReadOptions::new().sidecar(false).read_file::<T>(path);
    if AppendOptions::new().append_file(path, more).is_err() {
        return;
    }
    let before = before.expect("an append succeeded on a file that did not read");
    let after = ReadOptions::new()
        .sidecar(false)
        .read_file::<T>(path)
        .expect("the file reads after an append");
    let keys = |records: &[T]| records.iter().map(key).collect::<Vec<K>>();
    let mut expected = keys(&before.data);
    expected.extend(keys(more));
    assert_eq!(keys(&after.data), expected);
}

fuzz_target!(|data: &[u8]| {
    by_name::<Wanted>(data);
    by_name::<F0>(data);
    by_name::<[F0; 2]>(data);
    by_name::<u8>(data);
    append(data, &[1.5f64, -2.0], |x| x.to_bits());
    append(data, &[F0 { f0: 7 }], |r| r.f0);
    append(data, &[[1u8, 2, 3]], |r| *r);
});
