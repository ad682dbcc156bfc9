//! Errors in NDL documents name where: the entity, the key, the index.

use ndl_runtime::ndl::{Extent, File, FileForm, Ndarray, NdlError, NdlErrorKind, Shape};
use ndl_runtime::{Datatype, Enum, EnumMember, IntType};

fn err(yaml: &str) -> NdlError {
    match File::from_yaml(yaml) {
        Ok(f) => panic!("accepted:\n{yaml}\nas {f:?}"),
        Err(e) => e,
    }
}

/// Asserts the error's location and that its message contains `needle`.
fn assert_err(yaml: &str, location: &str, needle: &str) -> NdlError {
    let e = err(yaml);
    assert_eq!(e.location(), location, "{e}\n{yaml}");
    assert!(
        e.to_string().contains(needle),
        "{e:?} lacks {needle:?}\n{yaml}"
    );
    e
}

#[test]
fn unknown_keys_are_errors() {
    let e = assert_err(
        "ndarrays:\n  z: {shape: [1], type: int8, units: m}\n",
        "ndarray `z`",
        "`units`",
    );
    assert!(matches!(e.kind(), NdlErrorKind::UnknownKey { .. }));
    assert_err(
        "ndarray:\n  z: {shape: [1], type: int8}\n",
        "",
        "unknown key `ndarray`",
    );
    assert_err("/g:\n  arrays: {}\n", "/g", "unknown key `arrays`");
    assert_err(
        "dimcoords:\n  x: {size: 1, type: int8, shape: [1]}\n",
        "dimcoord `x`",
        "unknown key `shape`",
    );
    assert_err(
        "attributes:\n  a: {shape: [], type: int8, value: 1, units: m}\n",
        "attribute `a`",
        "`units`",
    );
    assert_err(
        "ndarrays:\n  z: {shape: [1], type: int8, storage: {compress: 9}}\n",
        "ndarray `z`: storage",
        "`compress`",
    );
    assert_err(
        "ndarrays:\n  z: {shape: [1], type: {opaque: {size: 1, colour: red}}}\n",
        "ndarray `z`: type",
        "colour",
    );
}

#[test]
fn bad_shape_entries_are_errors() {
    for entry in ["-1", "2.5", "true", "{a: 1}", "[1]"] {
        let yaml = format!("/g2:\n  ndarrays:\n    nd: {{shape: [3, {entry}], type: int8}}\n");
        let e = assert_err(
            &yaml,
            "/g2: ndarray `nd`: shape[1]",
            "expected a size, null (unlimited) or a dimcoord name",
        );
        assert!(matches!(e.kind(), NdlErrorKind::Expected { .. }));
    }
    for entry in ["''", "/g/", "//d", "a//b"] {
        let yaml = format!("/g2:\n  ndarrays:\n    nd: {{shape: [3, {entry}], type: int8}}\n");
        let e = assert_err(
            &yaml,
            "/g2: ndarray `nd`: shape[1]",
            "is not a dimcoord name or path",
        );
        assert!(matches!(e.kind(), NdlErrorKind::BadDimReference(_)));
    }
    assert_err(
        "ndarrays:\n  z: {shape: 10, type: int8}\n",
        "ndarray `z`: shape",
        "expected a list of extents",
    );
    let e = assert_err(
        "/:\n  dimcoords: {d: {size: 1, type: int8}}\n/g:\n  ndarrays:\n    nd: {shape: [d, /g/d], type: int8}\n",
        "/g: ndarray `nd`: shape[1]",
        "`/g/d` names no dimcoord",
    );
    assert_eq!(e.kind(), &NdlErrorKind::UnresolvedDim("/g/d".into()));
}

#[test]
fn storage_directives_are_checked() {
    let e = assert_err(
        "ndarrays:\n  z: {shape: [1], type: int8, storage: {endian: Little}}\n",
        "ndarray `z`: storage.endian",
        "unknown endian `Little`; expected little or big",
    );
    assert_eq!(e.kind(), &NdlErrorKind::UnknownEndian("Little".into()));
    assert_err(
        "ndarrays:\n  z: {shape: [1], type: int8, storage: {endian: 1}}\n",
        "ndarray `z`: storage.endian",
        "expected a string",
    );
    let e = assert_err(
        "dimcoords:\n  x: {size: 4, type: int8, storage: {shape: [4]}}\n",
        "dimcoord `x`: storage.shape",
        "only allowed for ndarrays",
    );
    assert!(matches!(
        e.kind(),
        NdlErrorKind::DirectiveNotAllowed {
            directive: "shape",
            ..
        }
    ));
    assert_err(
        "ndarrays:\n  z: {shape: [4], type: int8, storage: {size: 4}}\n",
        "ndarray `z`: storage.size",
        "only allowed for dimcoords",
    );
    assert_err(
        "attributes:\n  a: {shape: [2], type: int8, value: [1, 2], storage: {shape: [2]}}\n",
        "attribute `a`: storage.shape",
        "only allowed for ndarrays",
    );
    let e = assert_err(
        "ndarrays:\n  z: {shape: [4, 5], type: int8, storage: {shape: [4]}}\n",
        "ndarray `z`: storage.shape",
        "has 1 entries, but the rank is 2",
    );
    assert_eq!(e.kind(), &NdlErrorKind::RankMismatch { rank: 2, found: 1 });
    assert_err(
        "ndarrays:\n  z: {shape: [4, 5], type: int8, storage: {shape: [4, 6]}}\n",
        "ndarray `z`: storage.shape[1]",
        "6 exceeds the declared extent 5",
    );
    // An unlimited extent, or one of an unlimited dimcoord, bounds nothing.
    File::from_yaml("dimcoords: {t: {size: null, type: int8}}\nndarrays:\n  z: {shape: [null, t], type: int8, storage: {shape: [9, 9]}}\n").unwrap();
    assert_err(
        "dimcoords:\n  x: {size: 4, type: int8, storage: {size: 5}}\n",
        "dimcoord `x`: storage.size",
        "5 exceeds the declared extent 4",
    );
    assert_err(
        "ndarrays:\n  z: {shape: [4, 5], type: int8, storage: {chunk: [2, 2, 2]}}\n",
        "ndarray `z`: storage.chunk",
        "the rank is 2",
    );
    assert_err(
        "dimcoords:\n  x: {size: 4, type: int8, storage: {chunk: [2, 2]}}\n",
        "dimcoord `x`: storage.chunk",
        "the rank is 1",
    );
    assert_err(
        "ndarrays:\n  z: {shape: [4], type: int8, storage: {chunk: [0]}}\n",
        "ndarray `z`: storage.chunk[0]",
        "positive",
    );
    assert_err(
        "ndarrays:\n  z: {shape: [4], type: int8, storage: {filter: gzip}}\n",
        "ndarray `z`: storage.filter",
        "a list",
    );
    assert_err(
        "ndarrays:\n  z: {shape: [4], type: int8, storage: {fillvalue: x}}\n",
        "ndarray `z`: storage.fillvalue",
        "is not a value of int8",
    );
    assert_err(
        "ndarrays:\n  z: {shape: [4], type: int8, storage: {charset: [a]}}\n",
        "ndarray `z`: storage.charset",
        "expected a string",
    );
}

#[test]
fn bad_types_are_errors() {
    let e = assert_err(
        "ndarrays:\n  z: {shape: [1], type: flaot32}\n",
        "ndarray `z`: type",
        "unknown datatype `flaot32`",
    );
    assert!(matches!(e.kind(), NdlErrorKind::Datatype(_)));
    assert_err(
        "ndarrays:\n  z: {shape: [1], type: 5}\n",
        "ndarray `z`: type",
        "a datatype is a keyword or a mapping",
    );
    assert_err(
        "/g:\n  ndarrays:\n    z:\n      shape: [1]\n      type:\n        compound:\n          - a: int8\n          - b: {array: {base: nope, shape: [2]}}\n",
        "/g: ndarray `z`: type",
        "compound member `b`",
    );
    assert_err(
        "dimcoords:\n  x: {size: 1, type: {enum: {base: uint8, members: {a: 256}}}}\n",
        "dimcoord `x`: type",
        "256",
    );
    assert_err(
        "attributes:\n  a: {shape: [], type: {vlen: uint8}, value: 1}\n",
        "attribute `a`: type",
        "vlen",
    );
}

#[test]
fn entity_rules_are_errors() {
    assert_err(
        "dimcoords:\n  x: {type: int8}\n",
        "dimcoord `x`",
        "missing key `size`",
    );
    assert_err(
        "dimcoords:\n  x: {size: 3}\n",
        "dimcoord `x`",
        "missing key `type`",
    );
    assert_err(
        "ndarrays:\n  z: {type: int8}\n",
        "ndarray `z`",
        "missing key `shape`",
    );
    let e = assert_err(
        "dimcoords:\n  x: {size: 0, type: int8}\n",
        "dimcoord `x`: size",
        "positive",
    );
    assert_eq!(e.kind(), &NdlErrorKind::ZeroSize);
    assert_err(
        "dimcoords:\n  x: {size: -1, type: int8}\n",
        "dimcoord `x`: size",
        "non-negative integer",
    );
    assert_err(
        "dimcoords:\n  y: {size: 6, type: float32, value: [1.0, 1.1]}\n",
        "dimcoord `y`: value",
        "a list of 6 values was expected, found 2",
    );
    assert_err(
        "attributes:\n  a: {shape: [], type: int8, value: 300}\n",
        "attribute `a`: value",
        "the number 300 is not a value of int8",
    );
    assert_err(
        "/g:\n  dimcoords:\n    x:\n      size: 2\n      type: int8\n      attributes:\n        a: {shape: [2], type: string, value: [x, 2]}\n",
        "/g: dimcoord `x`: attribute `a`: value[1]",
        "not a value of string",
    );
    let e = assert_err(
        "attributes:\n  state: [power on, power off]\n",
        "attribute `state`",
        "use the long form",
    );
    assert!(matches!(e.kind(), NdlErrorKind::NoShortForm(_)));
    assert_err(
        "attributes:\n  a:\n",
        "attribute `a`",
        "null cannot be a short-form attribute",
    );
    assert_err(
        "ndarrays:\n  a/b: {shape: [1], type: int8}\n",
        "ndarray `a/b`",
        "not an ndarray or dimcoord name",
    );
    assert_err(
        "dimcoords:\n  '': {size: 1, type: int8}\n",
        "dimcoord ``",
        "not an ndarray or dimcoord name",
    );
}

#[test]
fn document_structure_errors() {
    assert!(matches!(err("a: [").kind(), NdlErrorKind::Yaml(_)));
    assert!(matches!(
        err("a: 1\n---\nb: 2\n").kind(),
        NdlErrorKind::Yaml(_)
    ));
    assert_err(
        "[1, 2]",
        "",
        "expected a mapping (an NDL document), found a list",
    );
    let e = assert_err(
        "/:\n  attributes: {a: 1}\nndarrays: {}\n",
        "",
        "mixes group paths",
    );
    assert_eq!(e.kind(), &NdlErrorKind::MixedTopLevel("ndarrays".into()));
    assert_err("/: {}\ng: {}\n", "", "expected a group path");
    assert_err("/g/: {}\n", "/g/", "is not a group path");
    assert_err("//g: {}\n", "//g", "is not a group path");
    assert_err("/g: [1]\n", "/g", "expected a group");
    assert_err(
        "ndarrays: [z]\n",
        "",
        "expected a mapping of names to entities",
    );
    // Empty documents and empty groups are fine.
    assert_eq!(File::from_yaml("").unwrap(), File::new());
    assert_eq!(File::from_yaml("{}").unwrap(), File::new());
    assert!(File::from_yaml("/g:\n").unwrap().group("/g").is_some());
}

#[test]
fn hand_built_files_are_validated() {
    let mut file = File::new();
    file.groups.insert("/g", Default::default());
    let e = file.validate().unwrap_err();
    assert_eq!(e.kind(), &NdlErrorKind::GroupInFlatFile("/g".into()));
    // Written anyway, with paths: the only way to keep the group.
    assert_eq!(file.to_yaml(), "/: {}\n/g: {}\n");
    file.form = FileForm::Grouped;
    file.validate().unwrap();

    let file = File::single_ndarray(
        "z",
        Ndarray::new([2], Datatype::Int8).with_value(vec![1, 2, 3]),
    );
    assert_eq!(
        file.validate().unwrap_err().to_string(),
        "ndarray `z`: value: a list of 2 values was expected, found 3"
    );
    let file = File::single_ndarray(
        "z",
        Ndarray::new(Shape(vec![Extent::Dim("t".into())]), Datatype::Int8),
    );
    assert_eq!(
        file.validate().unwrap_err().to_string(),
        "ndarray `z`: shape[0]: `t` names no dimcoord"
    );
    let bad = Datatype::Enum(Enum {
        base: IntType::Int8,
        members: vec![EnumMember::new("big", 1000)],
    });
    let file = File::single_ndarray("z", Ndarray::new([1], bad));
    assert!(
        file.validate()
            .unwrap_err()
            .to_string()
            .starts_with("ndarray `z`: type: enum member `big`")
    );
}
