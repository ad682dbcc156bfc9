//! Packing, repacking, unpacking and gathering records across a datatype
//! with every gap.

use std::ops::Range;

use super::field_copy::BLOCK;
use super::*;
use crate::{Compound, Datatype, Enum, EnumMember, IntType, NdlType};

#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
struct Inner {
    a: u8,
    b: u32,
}

#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
struct Outer {
    flag: bool,
    inner: [Inner; 2],
    kind: u16,
}

fn inner() -> Datatype {
    Datatype::Compound(
        Compound::c_layout([("a", Datatype::UInt8), ("b", Datatype::UInt32)]).unwrap(),
    )
}

// SAFETY: the C layout of the fields, as `repr(C)` places them.
unsafe impl NdlType for Inner {
    fn datatype() -> Datatype {
        inner()
    }
}

// SAFETY: the C layout of the fields; `kind` is an enum of u16 whose
// members are 0..=2, but any u16 is a valid `u16`, so the datatype is
// stricter than the type, which is allowed.
unsafe impl NdlType for Outer {
    fn datatype() -> Datatype {
        let kind = Datatype::Enum(Enum {
            base: IntType::UInt16,
            members: vec![
                EnumMember::new("a", 0),
                EnumMember::new("b", 1),
                EnumMember::new("c", 2),
            ],
        });
        Datatype::Compound(
            Compound::c_layout([
                ("flag", Datatype::Bool),
                ("inner", inner().array_of(&[2])),
                ("kind", kind),
            ])
            .unwrap(),
        )
    }
}

fn sample() -> Vec<Outer> {
    (0..5)
        .map(|i| Outer {
            flag: i % 2 == 0,
            inner: [
                Inner {
                    a: i as u8,
                    b: 1000 + i,
                },
                Inner {
                    a: 2 * i as u8,
                    b: u32::MAX - i,
                },
            ],
            kind: (i % 3) as u16,
        })
        .collect()
}

#[test]
fn nested_arrays_of_compounds_pack_without_gaps() {
    let packer = Packer::<Outer>::new().unwrap();
    assert_eq!(std::mem::size_of::<Outer>(), 24);
    assert_eq!(packer.layout().size(), 1 + 2 * 5 + 2);
    assert!(!packer.is_dense());
    let data = sample();
    let mut packed = vec![0xAA; data.len() * 13];
    packer.pack(&data, &mut packed);
    let r = &packed[13..26];
    assert_eq!(r[0], 0);
    assert_eq!(r[1], 1);
    assert_eq!(&r[2..6], &1001u32.to_ne_bytes());
    assert_eq!(r[6], 2);
    assert_eq!(&r[7..11], &(u32::MAX - 1).to_ne_bytes());
    assert_eq!(&r[11..13], &1u16.to_ne_bytes());

    let mut buf = RecordBuf::<Outer>::zeroed(5).unwrap();
    for mut part in buf.parts_mut(2) {
        let at = part.start() * 13;
        let len = part.len() * 13;
        packer.unpack(&packed[at..at + len], &mut part).unwrap();
    }
    assert_eq!(buf.into_vec().unwrap(), data);
}

#[test]
fn bad_values_are_named_and_leave_the_buffer_unfinished() {
    let packer = Packer::<Outer>::new().unwrap();
    let mut packed = vec![0; 5 * 13];
    packer.pack(&sample(), &mut packed);
    packed[3 * 13 + 11] = 9; // kind of record 3, native order low byte or high byte
    packed[3 * 13 + 12] = 0;
    if cfg!(target_endian = "big") {
        packed.swap(3 * 13 + 11, 3 * 13 + 12);
    }
    let mut buf = RecordBuf::<Outer>::zeroed(5).unwrap();
    let mut parts = buf.parts_mut(5);
    let err = packer.unpack(&packed, &mut parts[0]).unwrap_err();
    assert_eq!(
        (err.record, err.field.as_str(), err.offset),
        (3, "kind", 11)
    );
    assert!(err.message.contains("9 is not a value"), "{err}");
    drop(parts);
    assert!(buf.into_vec().is_none());

    packed[3 * 13 + 11] = 0;
    packed[4 * 13] = 2;
    let mut buf = RecordBuf::<Outer>::zeroed(5).unwrap();
    let err = packer
        .unpack(&packed, &mut buf.parts_mut(5)[0])
        .unwrap_err();
    assert_eq!((err.record, err.field.as_str()), (4, "flag"));
}

#[test]
fn aligned_parts_end_on_chunk_boundaries() {
    let mut buf = RecordBuf::<u16>::zeroed(10).unwrap();
    let parts: Vec<(usize, usize)> = buf
        .parts_mut_aligned(3, 4)
        .iter()
        .map(|p| (p.start(), p.len()))
        .collect();
    assert_eq!(parts, [(0, 1), (1, 4), (5, 4), (9, 1)]);
    let mut small = RecordBuf::<u16>::zeroed(1).unwrap();
    let parts: Vec<(usize, usize)> = small
        .parts_mut_aligned(1, 4)
        .iter()
        .map(|p| (p.start(), p.len()))
        .collect();
    assert_eq!(parts, [(0, 1)]);
    let mut empty = RecordBuf::<u16>::zeroed(0).unwrap();
    assert!(empty.parts_mut(4).is_empty());
}

#[test]
fn swap_turns_every_number_around() {
    let packer = Packer::<Outer>::new().unwrap();
    let mut packed = vec![0; 5 * 13];
    packer.pack(&sample(), &mut packed);
    let before = packed.clone();
    packer.layout().swap(&mut packed);
    assert_eq!(&packed[13 + 2..13 + 6], &1001u32.swap_bytes().to_ne_bytes());
    assert_eq!(packed[13 + 1], before[13 + 1]);
    packer.layout().swap(&mut packed);
    assert_eq!(packed, before);
}

#[test]
fn dense_records_are_copied_whole() {
    let packer = Packer::<[u32; 3]>::new().unwrap();
    assert!(packer.is_dense());
    let data = [[1, 2, 3], [4, 5, 6]];
    let mut packed = vec![0; 24];
    packer.pack(&data, &mut packed);
    assert_eq!(
        &packed[..],
        bytemuck::cast_slice::<u32, u8>(&[1, 2, 3, 4, 5, 6])
    );
}

/// Every copy length the copy loop treats apart (1, 2, 4, 8, 12, 16)
/// and others (3, 5), over more records than one block, against
/// packing (and gathering columns) by hand member by member.
#[test]
fn every_field_length_packs_across_blocks() {
    let dt = Datatype::Compound(
        Compound::c_layout([
            ("a", Datatype::UInt8),
            ("b", Datatype::UInt16),
            ("c", Datatype::UInt8.array_of(&[3])),
            ("d", Datatype::UInt32),
            ("e", Datatype::Float64),
            ("f", Datatype::UInt32.array_of(&[3])),
            ("g", Datatype::UInt64.array_of(&[2])),
            ("h", Datatype::UInt8.array_of(&[5])),
        ])
        .unwrap(),
    );
    let r = Repacker::new(&dt).unwrap();
    let Datatype::Compound(c) = &dt else {
        unreachable!()
    };
    let (record, size) = (r.record_size(), r.layout().size());
    let n = 3 * BLOCK + 7;
    let records: Vec<u8> = (0..n * record).map(|i| (i * 7 + i / 251) as u8).collect();
    let mut expected = Vec::with_capacity(n * size);
    for rec in records.chunks_exact(record) {
        for m in &c.members {
            expected.extend_from_slice(&rec[m.offset..m.offset + m.datatype.size().unwrap()]);
        }
    }
    let mut packed = vec![0xAA; n * size];
    r.pack(&records, &mut packed);
    assert_eq!(packed, expected);
    let fields: Vec<Range<usize>> = c
        .members
        .iter()
        .map(|m| m.offset..m.offset + m.datatype.size().unwrap())
        .collect();
    let mut columns: Vec<Vec<u8>> = fields.iter().map(|f| vec![0xAA; n * f.len()]).collect();
    let mut outs: Vec<&mut [u8]> = columns.iter_mut().map(Vec::as_mut_slice).collect();
    gather(&records, record, &fields, &mut outs);
    for (field, column) in fields.iter().zip(&columns) {
        let want: Vec<u8> = records
            .chunks_exact(record)
            .flat_map(|rec| rec[field.clone()].to_vec())
            .collect();
        assert_eq!(column, &want, "column {field:?}");
    }
    let mut back = vec![0xAA; n * record];
    r.unpack(&packed, &mut back);
    for (i, (got, rec)) in back
        .chunks_exact(record)
        .zip(records.chunks_exact(record))
        .enumerate()
    {
        let mut want = vec![0; record];
        for m in &c.members {
            let span = m.offset..m.offset + m.datatype.size().unwrap();
            want[span.clone()].copy_from_slice(&rec[span]);
        }
        assert_eq!(got, &want[..], "record {i}");
    }
}

#[test]
fn a_wrong_impl_is_refused() {
    #[derive(Clone, Copy)]
    #[repr(C)]
    struct Wrong(u64);
    // SAFETY: deliberately wrong size, to test that it is refused before use.
    unsafe impl NdlType for Wrong {
        fn datatype() -> Datatype {
            Datatype::UInt32
        }
    }
    assert_eq!(
        Packer::<Wrong>::new().unwrap_err(),
        PackError::WrongSize {
            datatype: 4,
            size: 8
        }
    );
}
