//! The chunks `ndl convert` writes: packed records in the file's byte
//! order, as many records each as `--chunk-len` says, compressed by the
//! `--codec` chosen, and every codec the help offers.

use crate::common;

use common::cli::{convert, converted, ndl, ok};
use common::records::{Files, N, PACKED, Rec, records};
use common::stores::{chunk_files, json, no_partial};
use common::zarr_python::check_store_312;

use ndl_runtime::ByteOrder;

/// The padding never reaches the store: the first chunk starts with the
/// packed records, in the byte order of the .npy.
#[test]
fn chunks_hold_packed_records_in_the_files_byte_order() {
    let files = Files::new();
    let root = files.dir.path();
    let data = records();
    for (name, order) in [
        ("nested", ByteOrder::Little),
        ("nested_big", ByteOrder::Big),
    ] {
        for format in ["2", "3"] {
            let store = root.join(format!("{name}_{format}.zarr"));
            converted(
                convert(
                    &files.path(&format!("{name}.npy")),
                    &store,
                    &[
                        "--zarr-format",
                        format,
                        "--codec",
                        "none",
                        "--chunk-len",
                        "10",
                    ],
                ),
                name,
            );
            let first = if format == "3" {
                store.join("c/0")
            } else {
                store.join("0")
            };
            let bytes = std::fs::read(&first).unwrap();
            let expected: Vec<u8> = data[..10].iter().flat_map(|r| r.packed(order)).collect();
            assert_eq!(bytes, expected, "{}", first.display());
            let endian = match order {
                ByteOrder::Little => "little",
                ByteOrder::Big => "big",
            };
            if format == "3" {
                let meta = json(&store.join("zarr.json"));
                assert_eq!(
                    meta["codecs"],
                    serde_json::json!([{"name": "bytes", "configuration": {"endian": endian}}])
                );
            }
            // Our own typed read of what the command wrote.
            assert_eq!(
                ndl_zarr::read::<Rec>(&store).unwrap(),
                data,
                "{name} v{format}"
            );
        }
    }
}

/// `--chunk-len` and `--codec` give the chunks expected: counted as files,
/// uncompressed ones of exactly `chunk-len` packed records.
#[test]
fn chunk_len_and_codec_give_the_chunks_expected() {
    let files = Files::new();
    let root = files.dir.path();
    let npy = files.path("nested.npy");
    // (name, options, records per chunk, the compressor: None for none)
    let cases: &[(&str, &[&str], u64, Option<&str>)] = &[
        (
            "none7_v3",
            &["--codec", "none", "--chunk-len", "7"],
            7,
            None,
        ),
        (
            "none7_v2",
            &["--codec", "none", "--chunk-len", "7", "--zarr-format", "2"],
            7,
            None,
        ),
        ("zstd7_v3", &["--chunk-len", "7"], 7, Some("zstd")),
        (
            "gzip7_v2",
            &[
                "--codec",
                "gzip:9",
                "--chunk-len",
                "7",
                "--zarr-format",
                "2",
            ],
            7,
            Some("gzip"),
        ),
        (
            "blosc999",
            &["--codec", "blosc:1", "--chunk-len", "999"],
            999,
            Some("blosc"),
        ),
        (
            "none1000",
            &["--codec", "none", "--chunk-len", "1000"],
            1000,
            None,
        ),
        (
            "none1_v2",
            &["--codec", "none", "--chunk-len", "1", "--zarr-format", "2"],
            1,
            None,
        ),
        // The default: about 2 MiB of packed records, but no longer than
        // the array (netCDF-C refuses longer chunks): one chunk here.
        (
            "default",
            &[],
            ((2 << 20) / PACKED as u64).min(N as u64),
            Some("zstd"),
        ),
    ];
    for (name, args, chunk, codec) in cases {
        let store = root.join(format!("{name}.zarr"));
        converted(convert(&npy, &store, args), name);
        let count = (N as u64).div_ceil(*chunk);
        let chunks = chunk_files(&store);
        let indices: Vec<u64> = chunks.iter().map(|(i, _)| *i).collect();
        assert_eq!(indices, (0..count).collect::<Vec<_>>(), "{name}");
        if codec.is_none() {
            // Every chunk is whole, the last one too (Zarr's regular grid).
            for (i, len) in &chunks {
                assert_eq!(*len, chunk * PACKED as u64, "{name}: chunk {i}");
            }
        }
        let (shape, compressor) = if store.join("zarr.json").exists() {
            let meta = json(&store.join("zarr.json"));
            let codecs = meta["codecs"].as_array().unwrap().clone();
            assert_eq!(codecs[0]["name"], "bytes", "{name}");
            (
                meta["chunk_grid"]["configuration"]["chunk_shape"].clone(),
                codecs.get(1).map(|c| c["name"].clone()),
            )
        } else {
            let meta = json(&store.join(".zarray"));
            let compressor = &meta["compressor"];
            (
                meta["chunks"].clone(),
                (!compressor.is_null()).then(|| compressor["id"].clone()),
            )
        };
        assert_eq!(shape, serde_json::json!([chunk]), "{name}");
        assert_eq!(compressor, codec.map(serde_json::Value::from), "{name}");
        check_store_312(&store, &npy);
    }
    no_partial(root);
}

/// The codec names `ndl convert --help` offers, read from the help itself:
/// `none, zstd, gzip, … or blosc` after "each chunk:".
fn offered_codecs() -> Vec<String> {
    let help = ok(ndl(&["convert", "--help"]), "convert --help");
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    let list = help
        .split_once("each chunk: ")
        .and_then(|(_, rest)| rest.split_once("; each but"))
        .map(|(list, _)| list.to_owned())
        .unwrap_or_else(|| panic!("no codec list in the help: {help}"));
    list.replace(" or ", ", ")
        .split(", ")
        .map(str::to_owned)
        .collect()
}

/// Every codec the help offers converts, with and without a level (but
/// none and crc32c), and the store reads back to the same records.
#[test]
fn every_codec_the_help_offers_converts() {
    let files = Files::new();
    let root = files.dir.path();
    let npy = files.path("nested.npy");
    let codecs = offered_codecs();
    assert!(codecs.len() >= 8, "{codecs:?}");
    for codec in &codecs {
        let mut spellings = vec![codec.clone()];
        if codec != "none" && codec != "crc32c" {
            spellings.push(format!("{codec}:1"));
        }
        for spelling in spellings {
            let store = root.join(format!("{}.zarr", spelling.replace(':', "_")));
            converted(
                convert(&npy, &store, &["--codec", &spelling]),
                &format!("--codec {spelling}"),
            );
            let back = root.join(format!("{}.npy", spelling.replace(':', "_")));
            converted(convert(&store, &back, &[]), &format!("{spelling} back"));
            let same = common::run_python(
                "import sys, numpy as np\n\
                 a, b = np.load(sys.argv[1]), np.load(sys.argv[2])\n\
                 print(a.tolist() == b.tolist())",
                &[npy.to_str().unwrap(), back.to_str().unwrap()],
            );
            assert_eq!(same.trim(), "True", "--codec {spelling}: values changed");
        }
    }
}
