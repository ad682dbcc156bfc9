//! Metadata documents that are malformed, or lie about the shape of the
//! array, its chunks or its records; and ranges outside the array.

use super::*;

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
    isolated(
        "shapes::a_huge_shape_is_an_error_quickly_not_an_abort",
        || {
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
        },
    );
}

#[test]
fn a_huge_chunk_shape_is_an_error_not_an_abort() {
    isolated(
        "shapes::a_huge_chunk_shape_is_an_error_not_an_abort",
        || {
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
        },
    );
}

#[test]
fn a_huge_record_size_is_an_error_not_an_abort() {
    isolated(
        "shapes::a_huge_record_size_is_an_error_not_an_abort",
        || {
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
                                Error::TypeMismatch { .. }
                                    | Error::Shape { .. }
                                    | Error::Chunk { .. }
                            ),
                        "{how} {dtype}: {e:?}"
                    );
                    says(&e, &[&f.name()]);
                }
                assert!(started.elapsed() < Duration::from_secs(5));
            }
        },
    );
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
    isolated(
        "shapes::a_large_subarray_field_costs_no_more_than_its_size",
        || {
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
        },
    );
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
