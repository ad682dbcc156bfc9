//! Metadata that names codecs, data types and fields this crate cannot
//! read, or a record type other than the one asked for.

use super::*;

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
        unsupported_codec(&f, &e, "zarr.json", "lzma9");
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
    ] {
        let f = store(ZarrFormat::V2, Codec::None);
        f.edit_meta(|d| d[key] = value.clone());
        for (_, e) in all_metadata_readers(&f) {
            unsupported_codec(&f, &e, ".zarray", "lzma9");
        }
    }
    for (key, value) in [
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

/// Asserts `e` is `Error::UnsupportedCodec` naming `codec` at `key`.
#[track_caller]
fn unsupported_codec(f: &Fixture, e: &Error, key: &str, codec: &str) {
    assert!(
        matches!(e, Error::UnsupportedCodec { store, key: k, codec: c } if *store == f.name() && k == key && c == codec),
        "expected the codec {codec} refused at {key}, got {e:?}"
    );
    says(e, &[&f.name(), key, &format!("`{codec}`")]);
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
