//! Damaged chunks, and values in them that no record may hold.

use super::*;

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
        "chunks::every_flipped_byte_of_a_compressed_chunk_is_an_error_or_a_value",
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
        "chunks::a_zstd_chunk_claiming_a_huge_content_size_is_an_error_not_an_abort",
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
