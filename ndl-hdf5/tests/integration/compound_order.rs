//! Compounds whose members h5py inserted out of offset order: read with
//! the members in h5py's order (its member-index order) at their offsets,
//! typed reads match fields by name, and what we write from such a
//! datatype is the dtype h5py gave. Fails (never skips) without h5py.

use ndl_hdf5::{ArrayReader, ArrayWriter, Inventory, WriteOptions};
use ndl_runtime::{ByteOrder, Datatype, NdlType};
use ndl_testkit::h5py_files::OUT_OF_ORDER_COMPOUNDS;
use ndl_testkit::python::{python312, run_with};

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Ab {
    a: i32,
    b: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Xyz {
    x: f32,
    y: u16,
    z: Ab,
}

fn names(dt: &Datatype) -> Vec<(String, usize)> {
    let Datatype::Compound(c) = dt else {
        panic!("not a compound: {dt:?}");
    };
    c.members
        .iter()
        .map(|m| (m.name.clone(), m.offset))
        .collect()
}

fn pairs(list: &[(&str, usize)]) -> Vec<(String, usize)> {
    list.iter().map(|&(n, o)| (n.to_string(), o)).collect()
}

#[test]
fn members_come_back_in_h5pys_order_and_typed_reads_go_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let h5 = dir.path().join("order.h5");
    run_with(
        &python312(),
        OUT_OF_ORDER_COMPOUNDS,
        &[h5.to_str().unwrap()],
    );

    let inventory = Inventory::of(&h5).unwrap();
    let stored = |name: &str| {
        inventory
            .datasets
            .iter()
            .find(|d| d.name == name)
            .unwrap()
            .stored
            .datatype
            .clone()
    };
    assert_eq!(names(&stored("flat")), pairs(&[("b", 8), ("a", 0)]));
    let nested = stored("nested");
    assert_eq!(names(&nested), pairs(&[("z", 24), ("y", 0), ("x", 8)]));
    let Datatype::Compound(c) = &nested else {
        unreachable!()
    };
    assert_eq!(c.size, 40);
    assert_eq!(names(&c.members[0].datatype), pairs(&[("b", 8), ("a", 0)]));

    let flat = ndl_hdf5::read::<Ab>(&h5, "flat").unwrap();
    assert_eq!(
        flat,
        [
            Ab { a: 1, b: 0.5 },
            Ab { a: -2, b: 1.5 },
            Ab { a: 3, b: 2.5 }
        ]
    );
    let nested = ndl_hdf5::read::<Xyz>(&h5, "nested").unwrap();
    assert_eq!(
        nested[1],
        Xyz {
            x: 0.5,
            y: 8,
            z: Ab { a: 20, b: -1.0 }
        }
    );
    assert_eq!(nested[0].z.b, 1e10);
}

/// Copying the dataset through our reader and writer gives h5py back its
/// own dtype (names in its order, offsets, itemsize) and bytes.
#[test]
fn what_we_write_from_an_out_of_order_compound_is_h5pys_dtype() {
    let dir = tempfile::tempdir().unwrap();
    let h5 = dir.path().join("order.h5");
    let copy = dir.path().join("copy.h5");
    run_with(
        &python312(),
        OUT_OF_ORDER_COMPOUNDS,
        &[h5.to_str().unwrap()],
    );
    let mut reader = ArrayReader::open(&h5, "nested").unwrap();
    let stored = reader.stored().clone();
    let mut bytes = vec![0u8; 3 * reader.row_bytes()];
    assert_eq!(reader.read_rows(&mut bytes).unwrap(), 3);
    assert_eq!(stored.byte_order, ByteOrder::Little);
    let mut writer = ArrayWriter::create(
        &copy,
        "nested",
        &stored.datatype,
        stored.byte_order,
        &[3],
        "nested_t",
        &WriteOptions::default(),
    )
    .unwrap();
    writer.write_rows(&bytes).unwrap();
    writer.finish().unwrap();
    run_with(
        &python312(),
        r#"
import sys, h5py
with h5py.File(sys.argv[1], "r") as a, h5py.File(sys.argv[2], "r") as b:
    want, got = a["nested"], b["nested"]
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.dtype.names == ("z", "y", "x") and got.dtype["z"].names == ("b", "a"), got.dtype
    assert got.dtype.fields["z"][1] == 24 and got.dtype.itemsize == 40, got.dtype
    assert got[()].tobytes() == want[()].tobytes()
"#,
        &[h5.to_str().unwrap(), copy.to_str().unwrap()],
    );
}
