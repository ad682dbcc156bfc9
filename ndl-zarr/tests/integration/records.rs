//! Records through Zarr stores and back: every format, codec, byte order
//! and chunking; range reads that touch only their chunks; appends, also to
//! stores zarr-python wrote.

use std::path::Path;

use ndl_runtime::{ByteOrder, NdlType};
use ndl_zarr::{ArrayInfo, ArrayWriter, Codec, Error, PackedWriter, WriteOptions, ZarrFormat};

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Inner {
    flag: bool,
    x: f32,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(u16)]
enum Kind {
    A = 3,
    B = 500,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Rec {
    id: u64,
    inner: Inner,
    kind: Kind,
    #[ndl(string)]
    tag: [u8; 3],
    t: f64,
}

fn rec(i: u64) -> Rec {
    Rec {
        id: i * 3 + 1,
        inner: Inner {
            flag: i % 2 == 1,
            x: i as f32 / 4.0,
        },
        kind: if i.is_multiple_of(5) {
            Kind::B
        } else {
            Kind::A
        },
        tag: [b'a' + (i % 26) as u8, b'z', 0],
        t: -(i as f64) * 1.5,
    }
}

fn recs(range: std::ops::Range<u64>) -> Vec<Rec> {
    range.map(rec).collect()
}

#[test]
fn every_format_codec_order_and_chunking_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let data = recs(0..1000);
    let codecs = [
        Codec::None,
        Codec::Zstd(1),
        Codec::Zstd(19),
        Codec::Blosc(9),
        Codec::Gzip(1),
    ];
    let mut n = 0;
    for format in [ZarrFormat::V2, ZarrFormat::V3] {
        for codec in codecs {
            for order in [ByteOrder::Little, ByteOrder::Big] {
                for chunk_len in [1, 7, 1000, 5000] {
                    n += 1;
                    let path = dir.path().join(format!("{n}.zarr"));
                    WriteOptions::new()
                        .zarr_format(format)
                        .codec(codec)
                        .byte_order(order)
                        .chunk_len(chunk_len)
                        .write(&path, &data)
                        .unwrap();
                    let what = format!("{format:?} {codec:?} {order:?} {chunk_len}");
                    assert_eq!(ndl_zarr::read::<Rec>(&path).unwrap(), data, "{what}");
                    assert_eq!(
                        ndl_zarr::read_range::<Rec>(&path, 333..777).unwrap(),
                        data[333..777],
                        "{what}"
                    );
                    let info = ArrayInfo::open(&path).unwrap();
                    assert_eq!(
                        (info.format(), info.byte_order(), info.chunks()),
                        (format, order, &[chunk_len][..])
                    );
                }
            }
        }
    }
    // Sharded (v3): shards of 4 chunks.
    let path = dir.path().join("sharded.zarr");
    WriteOptions::new()
        .chunk_len(16)
        .shard_len(64)
        .write(&path, &data)
        .unwrap();
    assert_eq!(ndl_zarr::read::<Rec>(&path).unwrap(), data);
    assert_eq!(
        ArrayInfo::open(&path).unwrap().inner_chunks(),
        Some(&[16][..])
    );
    let shards = std::fs::read_dir(path.join("c")).unwrap().count();
    assert_eq!(shards, 1000usize.div_ceil(64));
    // A shard that is not whole chunks, and sharding in v2, are refused.
    let e = WriteOptions::new()
        .chunk_len(16)
        .shard_len(40)
        .write(dir.path().join("s2.zarr"), &data);
    assert!(matches!(e, Err(Error::Unsupported { .. })), "{e:?}");
    let e = WriteOptions::new()
        .zarr_format(ZarrFormat::V2)
        .shard_len(64)
        .write(dir.path().join("s3.zarr"), &data);
    assert!(matches!(e, Err(Error::Unsupported { .. })), "{e:?}");
}

#[test]
fn empty_arrays_and_existing_destinations() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.zarr");
    ndl_zarr::write::<Rec>(&path, &[]).unwrap();
    assert_eq!(ndl_zarr::read::<Rec>(&path).unwrap(), []);
    assert_eq!(ArrayInfo::open(&path).unwrap().shape(), [0]);
    let e = ndl_zarr::write(&path, &recs(0..3)).unwrap_err();
    assert!(matches!(e, Error::Exists { .. }), "{e}");
    assert_eq!(
        ndl_zarr::read::<Rec>(&path).unwrap(),
        [],
        "the store is left alone"
    );
    let e = ndl_zarr::read::<Rec>(dir.path().join("nothing.zarr")).unwrap_err();
    assert!(matches!(e, Error::NotAnArray { .. }), "{e}");
}

/// Corrupts every chunk file of a v2 store except those named.
fn corrupt_all_but(path: &Path, keep: &[&str]) {
    for entry in std::fs::read_dir(path).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        if !name.starts_with('.') && !keep.contains(&name.as_str()) {
            std::fs::write(entry.path(), b"not zstd at all").unwrap();
        }
    }
}

#[test]
fn a_range_read_decodes_only_its_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.zarr");
    let data = recs(0..100);
    WriteOptions::new()
        .zarr_format(ZarrFormat::V2)
        .chunk_len(10)
        .write(&path, &data)
        .unwrap();
    corrupt_all_but(&path, &["3", "4"]);
    assert_eq!(
        ndl_zarr::read_range::<Rec>(&path, 35..47).unwrap(),
        data[35..47]
    );
    assert_eq!(ndl_zarr::read_range::<Rec>(&path, 40..40).unwrap(), []);
    let e = ndl_zarr::read_range::<Rec>(&path, 35..51).unwrap_err();
    assert!(matches!(e, Error::Chunk { chunk: 5, .. }), "{e}");
    assert!(e.to_string().contains("chunk 5"), "{e}");
}

#[test]
fn appends_grow_the_array_and_rewrite_only_the_last_chunk() {
    let dir = tempfile::tempdir().unwrap();
    for format in [ZarrFormat::V2, ZarrFormat::V3] {
        let path = dir.path().join(format!("{format:?}.zarr"));
        let mut w = ArrayWriter::<Rec>::create_with(
            &path,
            &WriteOptions::new().zarr_format(format).chunk_len(10),
        )
        .unwrap();
        w.append(&recs(0..15)).unwrap();
        w.append(&recs(15..16)).unwrap();
        assert_eq!(w.finish().unwrap(), 16);
        let chunk0 = chunk_file(&path, format, 0);
        let before = std::fs::metadata(&chunk0).unwrap().modified().unwrap();

        let mut w = ArrayWriter::<Rec>::open(&path).unwrap();
        assert_eq!(w.len(), 16);
        w.append(&recs(16..20)).unwrap();
        w.append(&recs(20..47)).unwrap();
        assert_eq!(w.finish().unwrap(), 47);
        assert_eq!(
            ndl_zarr::read::<Rec>(&path).unwrap(),
            recs(0..47),
            "{format:?}"
        );
        assert_eq!(
            std::fs::metadata(&chunk0).unwrap().modified().unwrap(),
            before,
            "a full chunk is not written again"
        );

        // Nothing appended: nothing changes. Dropped without finish: the
        // chunks written stay invisible, the length is the old one.
        ArrayWriter::<Rec>::open(&path).unwrap().finish().unwrap();
        let mut w = ArrayWriter::<Rec>::open(&path).unwrap();
        w.append(&recs(47..80)).unwrap();
        drop(w);
        assert_eq!(ndl_zarr::read::<Rec>(&path).unwrap(), recs(0..47));
        let mut w = ArrayWriter::<Rec>::open(&path).unwrap();
        w.append(&recs(47..50)).unwrap();
        w.finish().unwrap();
        assert_eq!(ndl_zarr::read::<Rec>(&path).unwrap(), recs(0..50));

        // Another type cannot append.
        let e = ArrayWriter::<u64>::open(&path).unwrap_err();
        assert!(matches!(e, Error::TypeMismatch { .. }), "{e}");
    }
}

fn chunk_file(path: &Path, format: ZarrFormat, chunk: u64) -> std::path::PathBuf {
    match format {
        ZarrFormat::V2 => path.join(chunk.to_string()),
        ZarrFormat::V3 => path.join("c").join(chunk.to_string()),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Flat {
    a: u8,
    b: f64,
}

/// zarr-python writes a store, we append, zarr-python reads all of it.
#[test]
fn appends_to_stores_zarr_python_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let flat = |i: u32| Flat {
        a: (i % 256) as u8,
        b: f64::from(i) / 2.0,
    };
    for (i, (python, format)) in [
        (ndl_testkit::python312(), "2"),
        (ndl_testkit::python312(), "3"),
        (ndl_testkit::python(), "2"),
        (ndl_testkit::python(), "3"),
    ]
    .into_iter()
    .enumerate()
    {
        let path = dir.path().join(format!("{i}-{format}.zarr"));
        ndl_testkit::run_with(
            &python,
            "import sys, numpy as np, zarr\n\
             dt = np.dtype([('a', 'u1'), ('b', '<f8')])\n\
             a = zarr.create_array(store=sys.argv[1], shape=(25,), chunks=(10,), dtype=dt, zarr_format=int(sys.argv[2]))\n\
             x = np.zeros(25, dt); x['a'] = np.arange(25) % 256; x['b'] = np.arange(25) / 2\n\
             a[:] = x",
            &[path.to_str().unwrap(), format],
        );
        let mut w = ArrayWriter::<Flat>::open(&path).unwrap();
        let more: Vec<Flat> = (25..61).map(flat).collect();
        w.append(&more).unwrap();
        assert_eq!(w.finish().unwrap(), 61);
        let out = ndl_testkit::run_with(
            &python,
            "import sys, numpy as np, zarr\n\
             x = zarr.open_array(sys.argv[1], mode='r')[:]\n\
             assert x.shape == (61,), x.shape\n\
             assert (x['a'] == np.arange(61) % 256).all() and (x['b'] == np.arange(61) / 2).all(), x\n\
             print('ok')",
            &[path.to_str().unwrap()],
        );
        assert_eq!(out.trim(), "ok");
        assert_eq!(
            ndl_zarr::read::<Flat>(&path).unwrap(),
            (0..61).map(flat).collect::<Vec<_>>()
        );
    }
}

/// The NDL storage directives of a store make a store of the same layout.
#[test]
fn storage_directives_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let data = recs(0..50);
    for (i, options) in [
        WriteOptions::new().codec(Codec::Zstd(9)).chunk_len(7),
        WriteOptions::new()
            .codec(Codec::Gzip(2))
            .byte_order(ByteOrder::Big),
        WriteOptions::new().codec(Codec::Blosc(1)).chunk_len(50),
        WriteOptions::new().codec(Codec::None).chunk_len(1),
    ]
    .into_iter()
    .enumerate()
    {
        let first = dir.path().join(format!("a{i}.zarr"));
        options.write(&first, &data).unwrap();
        let storage = ArrayInfo::open(&first).unwrap().storage();
        let again = dir.path().join(format!("b{i}.zarr"));
        WriteOptions::from_storage(&storage)
            .unwrap()
            .write(&again, &data)
            .unwrap();
        assert_eq!(ArrayInfo::open(&again).unwrap().storage(), storage, "{i}");
        assert_eq!(ndl_zarr::read::<Rec>(&again).unwrap(), data);
    }
}

/// A subset of `Rec`'s fields, in another order, nested too.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Part {
    t: f64,
    kind: Kind,
    inner: InnerX,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct InnerX {
    x: f32,
}

fn part(r: &Rec) -> Part {
    Part {
        t: r.t,
        kind: r.kind,
        inner: InnerX { x: r.inner.x },
    }
}

/// Reads by field name: stores of ours in every format and byte order,
/// and one zarr-python wrote with fields we lack, read into a subset in
/// another order; a missing field and a bad enum value are named.
#[test]
fn reads_by_field_name() {
    let dir = tempfile::tempdir().unwrap();
    let data = recs(0..300);
    let want: Vec<Part> = data.iter().map(part).collect();
    let by_name = ndl_zarr::ReadOptions::new().by_name(true);
    for (format, order) in [
        (ZarrFormat::V3, ByteOrder::Little),
        (ZarrFormat::V3, ByteOrder::Big),
        (ZarrFormat::V2, ByteOrder::Big),
    ] {
        let path = dir.path().join(format!("{format:?}-{order:?}.zarr"));
        WriteOptions::new()
            .zarr_format(format)
            .byte_order(order)
            .chunk_len(64)
            .write(&path, &data)
            .unwrap();
        assert!(
            ndl_zarr::read::<Part>(&path).is_err(),
            "exact reads stay exact"
        );
        assert_eq!(by_name.read::<Part>(&path).unwrap(), want, "{path:?}");
        assert_eq!(
            by_name.read_range::<Part>(&path, 100..170).unwrap(),
            want[100..170]
        );
    }

    // zarr-python's records: big-endian, an extra field, another order.
    let path = dir.path().join("python.zarr");
    ndl_testkit::run_with(
        &ndl_testkit::python312(),
        "import sys, numpy as np, zarr\n\
         dt = np.dtype([('extra', '>i4'), ('kind', '>u2'), ('inner', [('x', '>f4'), ('flag', '?')]), ('t', '>f8')])\n\
         x = np.zeros(50, dt)\n\
         x['extra'] = -1; x['kind'] = np.where(np.arange(50) % 5 == 0, 500, 3)\n\
         x['inner']['x'] = np.arange(50) / 4; x['t'] = -np.arange(50) * 1.5\n\
         zarr.create_array(store=sys.argv[1], shape=(50,), chunks=(16,), dtype=dt, zarr_format=3)[:] = x",
        &[path.to_str().unwrap()],
    );
    assert_eq!(by_name.read::<Part>(&path).unwrap(), want[..50]);

    // A field the store lacks is named.
    #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
    #[repr(C)]
    struct Missing {
        t: f64,
        z: u8,
    }
    let e = by_name.read::<Missing>(&path).unwrap_err();
    assert!(
        matches!(e, Error::TypeMismatch { ref field, .. } if field == "z"),
        "{e}"
    );
    // So is an enum value that is no member's, with its record.
    ndl_testkit::run_with(
        &ndl_testkit::python312(),
        "import sys, zarr\n\
         a = zarr.open_array(sys.argv[1], mode='r+')\n\
         r = a[33]; r['kind'] = 7; a[33] = r",
        &[path.to_str().unwrap()],
    );
    let e = by_name.read::<Part>(&path).unwrap_err();
    assert!(
        matches!(e, Error::InvalidValue { record: 33, ref field, .. } if field == "kind"),
        "{e}"
    );
}

/// A `file://` URL names the same local store as its path, for `write`
/// (which builds beside the store and renames) and for `create`.
#[test]
fn file_urls_are_local_stores() {
    let dir = tempfile::tempdir().unwrap();
    let data = recs(0..50);
    let url = format!("file://{}", dir.path().join("w.zarr").display());
    ndl_zarr::write(&url, &data).unwrap();
    assert_eq!(
        ndl_zarr::read::<Rec>(dir.path().join("w.zarr")).unwrap(),
        data
    );
    assert!(matches!(
        ndl_zarr::write(&url, &data),
        Err(Error::Exists { .. })
    ));
    let url = format!("file://{}", dir.path().join("c.zarr").display());
    let mut w = ArrayWriter::<Rec>::create_with(&url, &WriteOptions::new()).unwrap();
    w.append(&data).unwrap();
    w.finish().unwrap();
    assert_eq!(ndl_zarr::read::<Rec>(&url).unwrap(), data);
    // Nothing but the two stores is left beside them.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["c.zarr", "w.zarr"]);
}

/// Records without padding, whose packed bytes are their memory.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Dense {
    n: u16,
    kind: Kind,
}

/// Dense records are decoded straight into the records read, whole chunks
/// and parts alike, and still checked: a value no member has is an error
/// naming its record, on every codec path.
#[test]
fn dense_records_are_read_into_place_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let kinds = [Kind::A, Kind::B];
    let want: Vec<Dense> = (0..40u16)
        .map(|n| Dense {
            n,
            kind: kinds[n as usize % 2],
        })
        .collect();
    for (name, options) in [
        ("zstd", WriteOptions::new().chunk_len(16)),
        (
            "swapped",
            WriteOptions::new()
                .chunk_len(16)
                .byte_order(ByteOrder::NATIVE.opposite()),
        ),
        ("none", WriteOptions::new().chunk_len(16).codec(Codec::None)),
    ] {
        let path = dir.path().join(format!("{name}.zarr"));
        options.write(&path, &want).unwrap();
        assert_eq!(ndl_zarr::read::<Dense>(&path).unwrap(), want, "{name}");
        let range = ndl_zarr::read_range::<Dense>(&path, 5..37).unwrap();
        assert_eq!(range, want[5..37], "{name}");

        // Record 21 (in the second chunk) holds a kind no member has.
        let mut packed: Vec<u8> = want
            .iter()
            .flat_map(|d| [d.n.to_ne_bytes(), (d.kind as u16).to_ne_bytes()].concat())
            .collect();
        packed[21 * 4 + 2..21 * 4 + 4].copy_from_slice(&7u16.to_ne_bytes());
        let bad = dir.path().join(format!("{name}-bad.zarr"));
        let mut w = PackedWriter::create_with(&bad, &Dense::datatype(), &options).unwrap();
        w.append(&packed).unwrap();
        w.finish().unwrap();
        let e = ndl_zarr::read::<Dense>(&bad).unwrap_err();
        assert!(
            matches!(e, Error::InvalidValue { chunk: 1, record: 21, ref field, .. } if field == "kind"),
            "{name}: {e}"
        );
    }
}

/// A record whose fields zarr-python stores in different byte orders.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Mixed {
    a: u64,
    b: f64,
    c: i16,
}

/// zarr-python's v2 store of records whose fields have their own byte
/// orders: read exactly and by name, appended to (the new records in the
/// same orders, as zarr-python reads them back), and described with each
/// field's order. v3, whose `bytes` codec gives every number one order,
/// refuses such records.
#[test]
fn v2_records_of_mixed_byte_orders_read_and_append() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mixed.zarr");
    let mixed = |i: u32| Mixed {
        a: u64::from(i) << 33,
        b: f64::from(i) / 4.0,
        c: -(i as i16),
    };
    ndl_testkit::run_with(
        &ndl_testkit::python312(),
        "import sys, numpy as np, zarr\n\
         dt = np.dtype([('a', '<u8'), ('b', '>f8'), ('c', '>i2')])\n\
         x = np.zeros(25, dt); x['a'] = np.arange(25) << 33; x['b'] = np.arange(25) / 4; x['c'] = -np.arange(25)\n\
         zarr.create_array(store=sys.argv[1], shape=(25,), chunks=(10,), dtype=dt, zarr_format=2)[:] = x",
        &[path.to_str().unwrap()],
    );
    let want: Vec<Mixed> = (0..25).map(mixed).collect();
    assert_eq!(ndl_zarr::read::<Mixed>(&path).unwrap(), want);
    let by_name = ndl_zarr::ReadOptions::new().by_name(true);
    assert_eq!(
        by_name.read::<Part2>(&path).unwrap()[3],
        Part2 { c: -3, b: 0.75 }
    );
    let info = ArrayInfo::open(&path).unwrap();
    assert_eq!(info.byte_order(), ByteOrder::Little);
    let fields_b_c = 8..18;
    assert_eq!(info.other_byte_order(), std::slice::from_ref(&fields_b_c));

    let mut w = ArrayWriter::<Mixed>::open(&path).unwrap();
    w.append(&(25..30).map(mixed).collect::<Vec<_>>()).unwrap();
    w.finish().unwrap();
    let read = ndl_testkit::run_with(
        &ndl_testkit::python312(),
        "import sys, numpy as np, zarr\n\
         a = zarr.open_array(sys.argv[1], mode='r')[:]\n\
         print(a.dtype.descr, a['a'][29] == 29 << 33, a['b'][29], a['c'][29], len(a))",
        &[path.to_str().unwrap()],
    );
    assert_eq!(
        read.trim(),
        "[('a', '<u8'), ('b', '>f8'), ('c', '>i2')] True 7.25 -29 30"
    );

    let v3 = WriteOptions::new().mixed_byte_orders(vec![fields_b_c.clone()]);
    let e = v3.write(dir.path().join("v3.zarr"), &want).unwrap_err();
    assert!(e.to_string().contains("mix byte orders"), "{e}");
    // Nor do columns, each an array of one field's values.
    let columns = WriteOptions::new()
        .zarr_format(ZarrFormat::V2)
        .layout(ndl_zarr::Layout::Columns)
        .mixed_byte_orders(vec![fields_b_c]);
    let e = columns
        .write(dir.path().join("columns.zarr"), &want)
        .unwrap_err();
    assert!(e.to_string().contains("mix byte orders"), "{e}");
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Part2 {
    c: i16,
    b: f64,
}
