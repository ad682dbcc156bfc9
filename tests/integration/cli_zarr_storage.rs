//! The NDL `storage` of a store round trips through
//! `WriteOptions::from_storage`: the same records written with the options
//! describe as the same text, and a `filter` is reproduced or refused.

use crate::common;

use common::cli::{convert, converted, describe, ok};
use common::records::{Files, N, Rec, records};
use common::zarr_python::{ZARR_PYTHON_WRITES, check_store_312, py};

use ndl_runtime::ndl::File as NdlFile;
use ndl_runtime::{ByteOrder, NdlType};
use ndl_zarr::WriteOptions;

/// Describe a store as NDL, write the same records with
/// `WriteOptions::from_storage` of its `storage`, describe that: the same
/// text. Every codec, levels other than the default, both byte orders,
/// stores made by `ndl convert` and by zarr-python 3.4.
#[test]
fn ndl_storage_round_trips_through_write_options() {
    let files = Files::new();
    let first = tempfile::tempdir().unwrap();
    let data = records();
    let cases: &[(&str, &[&str])] = &[
        ("nested", &["--codec", "zstd:7"]),
        ("nested", &["--codec", "zstd:-2", "--chunk-len", "300"]),
        ("nested", &["--codec", "gzip:2", "--chunk-len", "100"]),
        ("nested", &["--codec", "gzip"]),
        ("nested", &["--codec", "blosc:3", "--chunk-len", "64"]),
        ("nested", &["--codec", "blosc", "--zarr-format", "2"]),
        ("nested", &["--codec", "none", "--chunk-len", "7"]),
        (
            "nested",
            &[
                "--codec",
                "none",
                "--zarr-format",
                "2",
                "--chunk-len",
                "333",
            ],
        ),
        ("nested_big", &["--codec", "zstd:12", "--chunk-len", "250"]),
        ("nested_big", &["--codec", "gzip:1", "--zarr-format", "2"]),
        ("nested_big", &["--codec", "blosc:9"]),
        ("nested_big", &["--codec", "none"]),
    ];
    let mut sources = Vec::new();
    for (i, (npy, args)) in cases.iter().enumerate() {
        let dir = first.path().join(i.to_string());
        std::fs::create_dir(&dir).unwrap();
        let store = dir.join("r.zarr");
        converted(
            convert(&files.path(&format!("{npy}.npy")), &store, args),
            &format!("{npy} {args:?}"),
        );
        sources.push((format!("{npy} {args:?}"), store));
    }
    // And zarr-python's own stores (zstd level 0; blosc, big-endian, v2).
    let py_dir = first.path().join("py");
    std::fs::create_dir(&py_dir).unwrap();
    common::run_with(
        &common::python312(),
        &py(ZARR_PYTHON_WRITES),
        &[
            files.path("nested.npy").to_str().unwrap(),
            py_dir.to_str().unwrap(),
        ],
    );
    for name in ["py_v3", "py_v2"] {
        sources.push((name.into(), py_dir.join(format!("{name}.zarr"))));
    }

    let second = tempfile::tempdir().unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for (i, (what, store)) in sources.iter().enumerate() {
        let text = ok(describe(store, "ndl", &[]), what);
        let doc = NdlFile::from_yaml(&text).unwrap_or_else(|e| panic!("{what}: {e}\n{text}"));
        let stem = store.file_stem().unwrap().to_str().unwrap();
        let nd = doc.ndarray(&format!("/{stem}")).expect("the ndarray");
        let storage = nd.storage.clone();
        assert!(
            storage.filter.is_some() && storage.chunk.is_some(),
            "{what}: {storage:?}"
        );
        let options = WriteOptions::from_storage(&storage)
            .unwrap_or_else(|e| panic!("{what}: from_storage({storage:?}): {e}"));
        seen.insert(format!("{:?}", storage.endian));

        // The same records, from the Rust type.
        assert_eq!(
            ndl_zarr::read::<Rec>(store).unwrap(),
            data,
            "{what}: the source"
        );
        let dir = second.path().join(i.to_string());
        std::fs::create_dir(&dir).unwrap();
        let again = dir.join(store.file_name().unwrap());
        options
            .write(&again, &data)
            .unwrap_or_else(|e| panic!("{what}: write with {options:?}: {e}"));
        assert_eq!(
            ndl_zarr::read::<Rec>(&again).unwrap(),
            data,
            "{what}: again"
        );
        let text_again = ok(describe(&again, "ndl", &[]), what);
        assert_eq!(text_again, text, "{what}: written with {options:?}");
        // zarr-python reads the copy as the original, in its byte order.
        let npy = if storage.endian == Some(ByteOrder::Big) {
            "nested_big.npy"
        } else {
            "nested.npy"
        };
        check_store_312(&again, &files.path(npy));
    }
    assert_eq!(seen.len(), 2, "both byte orders: {seen:?}");
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Small {
    a: u8,
    b: f64,
}

/// argv: directory, N. zarr-python 3.4 writes v3 stores of `Small`
/// records (chunks of 64) with the compressors named here.
const ZARR_PYTHON_CODECS: &str = r#"
import warnings
warnings.simplefilter('ignore')
import zarr
from zarr.codecs import BloscCodec, GzipCodec, ZstdCodec
out, n = sys.argv[1], int(sys.argv[2])
i = np.arange(n)
a = np.zeros(n, [('a', 'u1'), ('b', '<f8')])
a['a'] = i % 256
a['b'] = i * 1.5
codecs = {
    'blosc_lz4_shuffle': BloscCodec(cname='lz4', clevel=4, shuffle='shuffle'),
    'zstd_5': ZstdCodec(level=5),
    'gzip_4': GzipCodec(level=4),
    'none': None,
    'blosc_lz4_bitshuffle': BloscCodec(cname='lz4', clevel=5, shuffle='bitshuffle'),
    'blosc_lz4_noshuffle': BloscCodec(cname='lz4', clevel=5, shuffle='noshuffle'),
    'blosc_lz4_blocksize': BloscCodec(cname='lz4', clevel=5, shuffle='shuffle', blocksize=4096),
    'blosc_zstd': BloscCodec(cname='zstd', clevel=5, shuffle='shuffle'),
    'zstd_checksum': ZstdCodec(level=3, checksum=True),
}
for name, c in codecs.items():
    z = zarr.create_array(store=f'{out}/{name}/s.zarr', shape=(n,), chunks=(64,), dtype=a.dtype,
                          compressors=c)
    z[:] = a
    print(name)
"#;

/// `WriteOptions::from_storage` either refuses a `filter` it cannot write
/// or writes exactly that filter: a store written with the options has the
/// `storage` of the NDL it came from. zarr-python's stores, with the blosc
/// and zstd settings a user can choose, are the sources.
#[test]
fn from_storage_reproduces_or_refuses_every_filter() {
    let first = tempfile::tempdir().unwrap();
    let second = tempfile::tempdir().unwrap();
    let made = common::run_with(
        &common::python312(),
        &py(ZARR_PYTHON_CODECS),
        &[first.path().to_str().unwrap(), &N.to_string()],
    );
    let data: Vec<Small> = (0..N)
        .map(|i| Small {
            a: (i % 256) as u8,
            b: i as f64 * 1.5,
        })
        .collect();
    let mut problems = Vec::new();
    let mut written = 0;
    for name in made.split_whitespace() {
        let store = first.path().join(name).join("s.zarr");
        assert_eq!(ndl_zarr::read::<Small>(&store).unwrap(), data, "{name}");
        let text = ok(describe(&store, "ndl", &[]), name);
        let doc = NdlFile::from_yaml(&text).unwrap();
        let storage = doc.ndarray("/s").unwrap().storage.clone();
        let Ok(options) = WriteOptions::from_storage(&storage) else {
            // Refused: fine, nothing is pretended.
            continue;
        };
        let dir = second.path().join(name);
        std::fs::create_dir(&dir).unwrap();
        let again = dir.join("s.zarr");
        options.write(&again, &data).unwrap();
        written += 1;
        let again_text = ok(describe(&again, "ndl", &[]), name);
        let again_storage = NdlFile::from_yaml(&again_text)
            .unwrap()
            .ndarray("/s")
            .unwrap()
            .storage
            .clone();
        if again_storage != storage {
            problems.push(format!(
                "{name}: from_storage accepted\n{:?}\nbut the store written has\n{:?}",
                storage.filter, again_storage.filter
            ));
        }
    }
    assert!(written >= 4, "the plain codecs are written: {written}");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
