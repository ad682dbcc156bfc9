//! Typed `.npy` reading and writing without Python: bad data, mismatched
//! types, ranks, truncated and lying files, byte orders, streaming.

use std::io::Read;
use std::time::{Duration, Instant};

use ndl_runtime::Datatype;
use ndl_runtime::npy::{self, ByteOrder, Error, Header, ReadOptions, StreamWriter, WriteOptions};
use ndl_testkit::records::*;

/// The file's bytes for `data` written with `options`.
fn bytes_of<T: ndl_runtime::NdlType>(options: &WriteOptions, data: &[T]) -> Vec<u8> {
    let mut out = Vec::new();
    options.write(&mut out, data).unwrap();
    out
}

#[allow(clippy::result_large_err)] // a test helper returning both errors
/// Reads through both paths (a file and a plain reader); both must agree.
fn read_both<T: ndl_runtime::NdlType + ndl_runtime::Record + std::fmt::Debug + PartialEq>(
    bytes: &[u8],
) -> Result<Vec<T>, (Error, Error)> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.npy");
    std::fs::write(&path, bytes).unwrap();
    match (npy::read_file::<T>(&path), npy::read::<T, _>(bytes)) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a, b);
            Ok(a)
        }
        (Err(a), Err(b)) => Err((a, b)),
        (a, b) => panic!("file and reader disagree: {a:?} / {b:?}"),
    }
}

/// Where the data starts: after a version 1.0 header.
fn data_start(bytes: &[u8]) -> usize {
    assert_eq!(bytes[6], 1);
    10 + usize::from(u16::from_le_bytes([bytes[8], bytes[9]]))
}

fn outer(i: u32) -> Outer {
    Outer {
        id: i,
        pos: Inner { x: 0.5, y: 1.5 },
        flags: [true, false, true],
        m: [[1, 2, 3], [4, 5, 6]],
    }
}

#[test]
fn a_bool_byte_of_2_names_record_field_and_offset() {
    let mut bytes = bytes_of(&WriteOptions::new(), &[outer(0), outer(1), outer(2)]);
    let start = data_start(&bytes);
    assert_eq!(bytes.len(), start + 3 * 40);
    let at = start + 2 * 40 + 24 + 2;
    bytes[at] = 2;
    let (file_err, reader_err) = read_both::<Outer>(&bytes).unwrap_err();
    for e in [&file_err, &reader_err] {
        let msg = e.to_string();
        assert!(msg.contains("record 2"), "{msg}");
        assert!(msg.contains(&format!("byte {at}")), "{msg}");
        assert!(msg.contains("field 'flags[2]'"), "{msg}");
        assert!(msg.contains("bool byte is 2"), "{msg}");
    }
    assert!(file_err.to_string().contains("x.npy: "), "{file_err}");
    // A plain bool array too.
    let mut bytes = bytes_of(&WriteOptions::new(), &[true, false]);
    bytes[129] = 0xff;
    let (e, _) = read_both::<bool>(&bytes).unwrap_err();
    assert!(
        matches!(e, Error::InFile { ref source, .. } if matches!(**source, Error::InvalidValue { record: 1, offset: 129, .. })),
        "{e}"
    );
}

#[test]
fn an_enum_value_that_is_not_a_member_is_refused() {
    let data = [
        Tagged {
            c: Color::Green,
            l: Level::High,
            w: Wide::A,
        },
        Tagged {
            c: Color::Blue,
            l: Level::Low,
            w: Wide::B,
        },
    ];
    for order in [ByteOrder::Little, ByteOrder::Big] {
        let options = WriteOptions::new().byte_order(order);
        let good = bytes_of(&options, &data);
        assert_eq!(read_both::<Tagged>(&good).unwrap(), data);
        let mut bad = good.clone();
        // Record 1, field `l` (int16 at offset 2): 7 is not -5 or 300.
        let at = data_start(&good) + 16 + 2;
        let seven = match order {
            ByteOrder::Little => 7i16.to_le_bytes(),
            ByteOrder::Big => 7i16.to_be_bytes(),
        };
        bad[at..at + 2].copy_from_slice(&seven);
        let (e, _) = read_both::<Tagged>(&bad).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("record 1") && msg.contains(&format!("byte {at}")),
            "{msg}"
        );
        assert!(
            msg.contains("field 'l'")
                && msg.contains("7 is not a value of the enum (Low = -5, High = 300)"),
            "{msg}"
        );
        // u1 Color: 2 is between members but not one.
        let mut bad = good.clone();
        bad[data_start(&good)] = 2;
        let (e, _) = read_both::<Tagged>(&bad).unwrap_err();
        assert!(
            e.to_string().contains("record 0") && e.to_string().contains("field 'c'"),
            "{e}"
        );
    }
}

#[test]
fn data_shorter_than_the_shape_says() {
    let bytes = bytes_of(&WriteOptions::new(), &[1u64, 2, 3]);
    let (file_err, reader_err) = read_both::<u64>(&bytes[..bytes.len() - 1]).unwrap_err();
    for e in [file_err, reader_err] {
        assert!(
            e.to_string()
                .contains("array data at byte 128: expected 24 bytes, got 23"),
            "{e}"
        );
    }
    let (e, _) = read_both::<u64>(&bytes[..128]).unwrap_err();
    assert!(e.to_string().contains("got 0"), "{e}");
}

#[test]
fn a_huge_claim_in_a_small_file_fails_fast_without_allocating() {
    let header = Header::new(Datatype::UInt64, vec![1_000_000_000_000_000]);
    let mut bytes = header.to_bytes().unwrap();
    bytes.resize(1024, 0);
    let start = Instant::now();
    let (file_err, reader_err) = read_both::<u64>(&bytes).unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(2));
    // The file path compares with the file's length before allocating.
    assert!(
        file_err
            .to_string()
            .contains("expected 8000000000000000 bytes, got 896"),
        "{file_err}"
    );
    // The reader path only grows as data arrives.
    assert!(reader_err.to_string().contains("got 896"), "{reader_err}");
    // Even records of 2^40 bytes each.
    let header = Header::new(Datatype::UInt8, vec![1 << 20, 1 << 20, 1 << 20]);
    let bytes = header.to_bytes().unwrap();
    let e = npy::ReadOptions::new()
        .read::<u8, _>(&bytes[..])
        .unwrap_err();
    assert!(e.to_string().contains("got 0"), "{e}");
}

#[test]
fn datatype_mismatches_say_which_field_and_how() {
    let padded = [Padded { a: 1, b: 2.0, c: 3 }];
    let bytes = bytes_of(&WriteOptions::new(), &padded);
    let (e, _) = read_both::<Packed>(&bytes).unwrap_err();
    assert!(
        e.to_string().contains(
            "(field 'b'): file has float64 at offset 8, type expects float64 at offset 1; "
        ),
        "{e}"
    );
    // Every field is there, elsewhere: reading by name would do.
    assert!(
        e.to_string()
            .ends_with("`ReadOptions::by_name(true)` reads them by field name"),
        "{e}"
    );
    let (e, _) = read_both::<f64>(&bytes_of(&WriteOptions::new(), &[1.0f32])).unwrap_err();
    assert!(
        e.to_string()
            .ends_with("file has float32, type expects float64"),
        "{e}"
    );
    let (e, _) = read_both::<Inner>(&bytes).unwrap_err();
    assert!(
        e.to_string()
            .contains("field 'x'): missing in the file, which has fields `a`, `b`, `c`"),
        "{e}"
    );
    let (e, _) = read_both::<Outer>(&bytes_of(
        &WriteOptions::new(),
        &[Track {
            n: 1,
            pts: [Inner { x: 0.0, y: 0.0 }; 2],
        }],
    ))
    .unwrap_err();
    assert!(e.to_string().contains("field 'id'"), "{e}");
    // Nested: same names, a field of the inner record differs.
    let (e, _) = read_both::<Tagged>(&bytes_of(
        &WriteOptions::new(),
        &[Padded { a: 0, b: 0.0, c: 0 }],
    ))
    .unwrap_err();
    assert!(
        matches!(e, Error::InFile { ref source, .. } if matches!(**source, Error::TypeMismatch { .. }))
    );
}

#[test]
fn rank_mismatch_and_the_n_d_path() {
    let data: Vec<u16> = (0..6).collect();
    let bytes = bytes_of(&WriteOptions::new().shape(&[2, 3]), &data);
    let (e, _) = read_both::<u16>(&bytes).unwrap_err();
    assert!(
        e.to_string()
            .contains("expected a 1-dimensional array, the file's array has shape [2, 3]"),
        "{e}"
    );
    let a = ReadOptions::new().read::<u16, _>(&bytes[..]).unwrap();
    assert_eq!((a.shape, a.data), (vec![2, 3], data.clone()));
    // Read as rows: `[u16; 3]` takes the trailing dimension.
    let rows = read_both::<[u16; 3]>(&bytes).unwrap();
    assert_eq!(rows, [[0, 1, 2], [3, 4, 5]]);
    let (e, _) = read_both::<[u16; 2]>(&bytes).unwrap_err();
    assert!(
        e.to_string().contains("must end the file's shape [2, 3]"),
        "{e}"
    );
    // The rank is checked before any data is read.
    let huge = Header::new(Datatype::UInt16, vec![1 << 40, 3])
        .to_bytes()
        .unwrap();
    let (e, _) = read_both::<u16>(&huge).unwrap_err();
    assert!(
        e.to_string().contains("expected a 1-dimensional array"),
        "{e}"
    );
    // A 0-d array is not 1-D either.
    let zero_d = bytes_of(&WriteOptions::new().shape(&[]), &[5u8]);
    assert!(read_both::<u8>(&zero_d).is_err());
    assert_eq!(
        ReadOptions::new().read::<u8, _>(&zero_d[..]).unwrap().data,
        [5]
    );
}

#[test]
fn trailing_bytes_are_ignored_and_short_reads_are_fine() {
    let mut bytes = bytes_of(
        &WriteOptions::new().byte_order(ByteOrder::Big),
        &[outer(1), outer(2)],
    );
    bytes.extend_from_slice(b"trailing garbage");
    assert_eq!(read_both::<Outer>(&bytes).unwrap(), [outer(1), outer(2)]);
    /// Returns one byte per `read`, like NumPy's `test_roundtrip_randsize`.
    struct Trickle<'a>(&'a [u8]);
    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(1).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    assert_eq!(
        npy::read::<Outer, _>(Trickle(&bytes)).unwrap(),
        [outer(1), outer(2)]
    );
}

#[test]
fn both_byte_orders_round_trip() {
    let data: Vec<Outer> = (0..1000).map(outer).collect();
    for order in [ByteOrder::Little, ByteOrder::Big] {
        let bytes = bytes_of(&WriteOptions::new().byte_order(order), &data);
        let a = ReadOptions::new().read::<Outer, _>(&bytes[..]).unwrap();
        assert_eq!((a.byte_order, a.data), (order, data.clone()));
    }
    let big = bytes_of(
        &WriteOptions::new().byte_order(ByteOrder::Big),
        &[0x0102_0304u32],
    );
    assert_eq!(&big[128..], &[1, 2, 3, 4]);
}

#[test]
fn a_failed_write_leaves_the_old_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keep.npy");
    npy::write_file(&path, &[1u8, 2]).unwrap();
    let e = WriteOptions::new()
        .shape(&[5])
        .write_file(&path, &[9u8])
        .unwrap_err();
    assert!(e.to_string().contains("holds 5 elements, but 1"), "{e}");
    assert_eq!(npy::read_file::<u8>(&path).unwrap(), [1, 2]);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    let e = npy::write_file(dir.path().join("no/such/dir/x.npy"), &[1u8]).unwrap_err();
    assert!(e.to_string().contains("no/such/dir/x.npy"), "{e}");
}

#[test]
fn streaming_grows_the_first_dimension() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.npy");
    let options = WriteOptions::new()
        .shape(&[0, 2])
        .byte_order(ByteOrder::Big);
    let mut w = StreamWriter::<Padded>::create_with(&path, &options).unwrap();
    let rec = |i: u16| Padded {
        a: i as u8,
        b: f64::from(i),
        c: i,
    };
    for i in 0..50 {
        w.append(&[rec(2 * i), rec(2 * i + 1)]).unwrap();
    }
    assert!(!path.exists(), "nothing at the destination before finish");
    assert_eq!(w.finish().unwrap(), 100);
    let a = ReadOptions::new().read_file::<Padded>(&path).unwrap();
    assert_eq!(a.shape, [50, 2]);
    assert_eq!(a.data, (0..100).map(rec).collect::<Vec<_>>());
    assert_eq!(
        std::fs::read(&path).unwrap(),
        bytes_of(&options.clone().shape(&[50, 2]), &a.data)
    );
}

#[test]
fn zero_sized_records() {
    let data = [[0u8; 0]; 5];
    let bytes = bytes_of(&WriteOptions::new(), &data);
    assert_eq!(read_both::<[u8; 0]>(&bytes).unwrap().len(), 5);
    // Any count of nothing fits in any file: no allocation either way.
    let header = Header::new(Datatype::UInt8, vec![1 << 50, 0]);
    let bytes = header.to_bytes().unwrap();
    assert_eq!(read_both::<[u8; 0]>(&bytes).unwrap().len(), 1 << 50);
}

#[test]
fn the_header_limit_is_an_option() {
    let bytes = bytes_of(&WriteOptions::new(), &[outer(0)]);
    let e = ReadOptions::new()
        .max_header_size(100)
        .read::<Outer, _>(&bytes[..])
        .unwrap_err();
    assert!(e.to_string().contains("more than the limit of 100"), "{e}");
    let a = ReadOptions::new()
        .max_header_size(1000)
        .read::<Outer, _>(&bytes[..])
        .unwrap();
    assert_eq!(a.data, [outer(0)]);
}
