//! Zarr v2 and v3 metadata from our datatypes, read by the installed
//! zarr-python with record bytes built here by hand.

use ndl_testkit as common;

use std::path::Path;

use ndl_runtime::lang::zarr::{v2_array_metadata, v3_array_metadata};
use ndl_runtime::lang::{LangError, Language};
use ndl_runtime::npy::ByteOrder;
use ndl_runtime::{
    Charset, Compound, Datatype, Enum, EnumMember, FixedString, IntType, Member, Opaque,
};
use serde_json::{Value, json};

/// A packed record with every scalar kind Zarr v2 and v3 share.
fn flat_record() -> Datatype {
    let members = vec![
        Member::new("id", 0, Datatype::UInt32),
        Member::new("t", 4, Datatype::Float64),
        Member::new("ok", 12, Datatype::Bool),
        Member::new(
            "code",
            13,
            Datatype::FixedString(FixedString {
                length: 4,
                charset: Charset::Ascii,
            }),
        ),
        Member::new("h", 17, Datatype::Float16),
        Member::new("z", 19, Datatype::Complex64),
        Member::new(
            "e",
            27,
            Datatype::Enum(Enum {
                base: IntType::UInt16,
                members: vec![EnumMember::new("lo", 0), EnumMember::new("hi", 65535)],
            }),
        ),
        Member::new(
            "name",
            29,
            Datatype::FixedString(FixedString {
                length: 2,
                charset: Charset::Utf32,
            }),
        ),
        Member::new("raw", 37, Datatype::Opaque(Opaque { size: 3, tag: None })),
        Member::new("i", 40, Datatype::Int64),
    ];
    Datatype::Compound(Compound { size: 48, members })
}

/// Little helper writing numbers in a chosen byte order.
struct Bytes {
    buf: Vec<u8>,
    order: ByteOrder,
}

impl Bytes {
    fn new(order: ByteOrder) -> Bytes {
        Bytes {
            buf: Vec::new(),
            order,
        }
    }
    fn num<const N: usize>(&mut self, le: [u8; N]) {
        let mut b = le;
        if self.order == ByteOrder::Big {
            b.reverse();
        }
        self.buf.extend_from_slice(&b);
    }
    fn raw(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }
    fn utf32(&mut self, s: &str, len: usize) {
        let mut n = 0;
        for c in s.chars() {
            self.num((c as u32).to_le_bytes());
            n += 1;
        }
        for _ in n..len {
            self.num(0u32.to_le_bytes());
        }
    }
}

/// Two records of `flat_record`, and the values Python must print for them.
fn flat_records(order: ByteOrder) -> (Vec<u8>, Value) {
    let mut b = Bytes::new(order);
    // Record 0.
    b.num(7u32.to_le_bytes());
    b.num(1.5f64.to_le_bytes());
    b.raw(&[1]);
    b.raw(b"ab\0\0");
    b.num(0x3800u16.to_le_bytes()); // float16 0.5
    b.num(1.0f32.to_le_bytes());
    b.num((-2.0f32).to_le_bytes());
    b.num(3u16.to_le_bytes());
    b.utf32("hé", 2);
    b.raw(&[1, 2, 3]);
    b.num((-5i64).to_le_bytes());
    // Record 1.
    b.num(u32::MAX.to_le_bytes());
    b.num((-0.25f64).to_le_bytes());
    b.raw(&[0]);
    b.raw(b"wxyz");
    b.num(0xC000u16.to_le_bytes()); // float16 -2.0
    b.num(0.5f32.to_le_bytes());
    b.num(0.25f32.to_le_bytes());
    b.num(65535u16.to_le_bytes());
    b.utf32("😀", 2);
    b.raw(&[255, 0, 7]);
    b.num(i64::MIN.to_le_bytes());
    assert_eq!(b.buf.len(), 96);
    let expected = json!([
        [7, 1.5, true, "ab", 0.5, [1.0, -2.0], 3, "hé", "010203", -5],
        [
            4294967295u32,
            -0.25,
            false,
            "wxyz",
            -2.0,
            [0.5, 0.25],
            65535,
            "😀",
            "ff0007",
            i64::MIN
        ]
    ]);
    (b.buf, expected)
}

/// Python that turns every record of array `a` into a JSON list.
const RECORDS_TO_JSON: &str = r#"
import json
def conv(v):
    import numpy as np
    if isinstance(v, np.void) and v.dtype.names is None:
        return bytes(v).hex()
    if isinstance(v, np.void):
        return [conv(v[n]) for n in v.dtype.names]
    if isinstance(v, np.ndarray):
        return [conv(x) for x in v]
    if isinstance(v, bytes):
        return v.decode("latin1")
    if isinstance(v, (complex, np.complexfloating)):
        return [float(v.real), float(v.imag)]
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    return v
def dump(a):
    print(json.dumps([conv(r) for r in a], ensure_ascii=False))
"#;

fn write_store(dir: &Path, meta_name: &str, meta: &Value, chunk_key: &str, data: &[u8]) {
    std::fs::write(
        dir.join(meta_name),
        serde_json::to_string_pretty(meta).unwrap(),
    )
    .unwrap();
    let chunk = dir.join(chunk_key);
    std::fs::create_dir_all(chunk.parent().unwrap()).unwrap();
    std::fs::write(chunk, data).unwrap();
}

fn read_with_zarr(dir: &Path) -> Value {
    let script = format!(
        "{RECORDS_TO_JSON}\nimport sys, warnings, zarr\nwarnings.simplefilter('ignore')\n\
         a = zarr.open_array(sys.argv[1], mode='r')\ndump(a[:])\n"
    );
    let out = common::run_python(&script, &[dir.to_str().unwrap()]);
    serde_json::from_str(out.trim()).unwrap()
}

#[test]
fn zarr_reads_a_v2_array_with_our_dtype_in_both_byte_orders() {
    for order in [ByteOrder::Little, ByteOrder::Big] {
        let dir = tempfile::tempdir().unwrap();
        let meta = v2_array_metadata(&flat_record(), order, &[2], None).unwrap();
        let c = order.numpy_char();
        assert_eq!(
            meta["dtype"],
            json!([
                ["id", format!("{c}u4")],
                ["t", format!("{c}f8")],
                ["ok", "|b1"],
                ["code", "|S4"],
                ["h", format!("{c}f2")],
                ["z", format!("{c}c8")],
                ["e", format!("{c}u2")],
                ["name", format!("{c}U2")],
                ["raw", "|V3"],
                ["i", format!("{c}i8")]
            ])
        );
        let (data, expected) = flat_records(order);
        write_store(dir.path(), ".zarray", &meta, "0", &data);
        assert_eq!(read_with_zarr(dir.path()), expected, "{order:?}");
    }
}

/// A packed record with a nested record and subarray members.
fn nested_record() -> Datatype {
    let inner = Datatype::Compound(Compound {
        size: 3,
        members: vec![
            Member::new("x", 0, Datatype::UInt8),
            Member::new("y", 1, Datatype::Int16),
        ],
    });
    Datatype::Compound(Compound {
        size: 4 + 3 + 12 + 6,
        members: vec![
            Member::new("a", 0, Datatype::Int32),
            Member::new("p", 4, inner.clone()),
            Member::new("m", 7, Datatype::UInt16.array_of(&[2, 3])),
            Member::new("ps", 19, inner.array_of(&[2])),
        ],
    })
}

fn nested_bytes() -> (Vec<u8>, Value) {
    let mut b = Bytes::new(ByteOrder::Little);
    b.num((-1i32).to_le_bytes());
    b.raw(&[9]);
    b.num((-300i16).to_le_bytes());
    for v in 1u16..=6 {
        b.num(v.to_le_bytes());
    }
    for (x, y) in [(1u8, 2i16), (3, -4)] {
        b.raw(&[x]);
        b.num(y.to_le_bytes());
    }
    let expected = json!([[-1, [9, -300], [[1, 2, 3], [4, 5, 6]], [[1, 2], [3, -4]]]]);
    (b.buf, expected)
}

#[test]
fn nested_and_subarray_v2_dtypes_follow_the_spec_and_zarr_python_2_decoding() {
    let dt = nested_record();
    let dtype = dt.to_zarr_v2_dtype(ByteOrder::Little).unwrap();
    // The spec's forms: nested list for a nested record, [name, dtype, shape].
    assert_eq!(
        dtype,
        json!([
            ["a", "<i4"],
            ["p", [["x", "|u1"], ["y", "<i2"]]],
            ["m", "<u2", [2, 3]],
            ["ps", [["x", "|u1"], ["y", "<i2"]], [2]]
        ])
    );
    // zarr-python 3.1 refuses nested and subarray v2 dtypes (issues
    // #3582/#3583), so this decodes the dtype exactly as zarr-python 2.18's
    // `Metadata2._decode_dtype_descr` does, and checks layout and values.
    let (data, expected) = nested_bytes();
    let script = format!(
        "{RECORDS_TO_JSON}\nimport sys, json, numpy as np\n\
def decode(d):\n    if isinstance(d, list):\n        return [(k[0], decode(k[1])) + tuple(k[2:]) for k in d]\n    return d\n\
dt = np.dtype(decode(json.loads(sys.argv[1])))\n\
assert dt.itemsize == {size}, dt.itemsize\n\
assert [dt.fields[n][1] for n in dt.names] == [0, 4, 7, 19], dt.fields\n\
dump(np.frombuffer(bytes.fromhex(sys.argv[2]), dtype=dt))\n",
        size = dt.size().unwrap()
    );
    let hex: String = data.iter().map(|b| format!("{b:02x}")).collect();
    let out = common::run_python(&script, &[&dtype.to_string(), &hex]);
    assert_eq!(serde_json::from_str::<Value>(out.trim()).unwrap(), expected);
}

#[test]
fn v3_data_types_match_the_reference_forms() {
    let xy = Datatype::Compound(Compound {
        size: 12,
        members: vec![
            Member::new("x", 0, Datatype::Float32),
            Member::new("y", 4, Datatype::Float64),
        ],
    });
    // zarr-extensions data-types/struct, as zarr-python 3.2 writes it.
    assert_eq!(
        xy.to_zarr_v3_data_type().unwrap(),
        json!({"name": "struct", "configuration": {"fields": [
            {"name": "x", "data_type": "float32"},
            {"name": "y", "data_type": "float64"}]}})
    );
    let nested = Datatype::Compound(Compound {
        size: 20,
        members: vec![
            Member::new("p", 0, xy),
            Member::new(
                "s",
                12,
                Datatype::FixedString(FixedString {
                    length: 4,
                    charset: Charset::Ascii,
                }),
            ),
            Member::new("b", 16, Datatype::Bool),
            Member::new("v", 17, Datatype::Opaque(Opaque { size: 3, tag: None })),
        ],
    });
    assert_eq!(
        nested.to_zarr_v3_data_type().unwrap(),
        json!({"name": "struct", "configuration": {"fields": [
            {"name": "p", "data_type": {"name": "struct", "configuration": {"fields": [
                {"name": "x", "data_type": "float32"},
                {"name": "y", "data_type": "float64"}]}}},
            {"name": "s", "data_type": {"name": "null_terminated_bytes", "configuration": {"length_bytes": 4}}},
            {"name": "b", "data_type": "bool"},
            {"name": "v", "data_type": {"name": "raw_bytes", "configuration": {"length_bytes": 3}}}]}})
    );
    let utf32 = Datatype::FixedString(FixedString {
        length: 2,
        charset: Charset::Utf32,
    });
    assert_eq!(
        utf32.to_zarr_v3_data_type().unwrap(),
        json!({"name": "fixed_length_utf32", "configuration": {"length_bytes": 8}})
    );
    for (dt, name) in [
        (Datatype::Int8, "int8"),
        (Datatype::UInt64, "uint64"),
        (Datatype::Float16, "float16"),
        (Datatype::Complex128, "complex128"),
        (Datatype::String, "string"),
    ] {
        assert_eq!(dt.to_zarr_v3_data_type().unwrap(), json!(name));
    }
    let meta = v3_array_metadata(&nested, ByteOrder::Big, &[5], Some(&[2])).unwrap();
    assert_eq!(
        meta["fill_value"],
        json!({"p": {"x": 0.0, "y": 0.0}, "s": "", "b": false, "v": "AAAA"})
    );
    assert_eq!(
        meta["chunk_grid"]["configuration"]["chunk_shape"],
        json!([2])
    );
    assert_eq!(
        meta["codecs"],
        json!([{"name": "bytes", "configuration": {"endian": "big"}}])
    );
}

#[test]
fn zarr_reads_a_v3_array_with_our_leaf_data_types() {
    // zarr-python 3.1.6 (the newest on PyPI) reads only the legacy
    // `structured` spelling of v3 records, which writers must not produce.
    // The test rewrites our `struct` into it one-to-one (field objects to
    // [name, data_type] pairs, fill object to base64 of the zero record) so
    // that zarr checks every leaf data type and the bytes codec we write.
    // Little-endian only: zarr 3.1's legacy `structured` ignores the bytes
    // codec's `endian` (it writes a big-endian NumPy record as is, with no
    // `endian`), so a big-endian v3 record is not readable by it at all.
    let order = ByteOrder::Little;
    let dir = tempfile::tempdir().unwrap();
    let meta = v3_array_metadata(&flat_record(), order, &[2], None).unwrap();
    let (data, expected) = flat_records(order);
    write_store(dir.path(), "zarr.json", &meta, "c/0", &data);
    let script = format!(
        "{RECORDS_TO_JSON}\nimport sys, json, base64, warnings, zarr\nwarnings.simplefilter('ignore')\n\
def legacy(t):\n    if isinstance(t, dict) and t.get('name') == 'struct':\n        return {{'name': 'structured', 'configuration': {{'fields': [[f['name'], legacy(f['data_type'])] for f in t['configuration']['fields']]}}}}\n    return t\n\
p = sys.argv[1] + '/zarr.json'\nm = json.load(open(p))\n\
assert m['data_type']['name'] == 'struct'\n\
m['data_type'] = legacy(m['data_type'])\nm['fill_value'] = base64.b64encode(bytes({size})).decode()\n\
json.dump(m, open(p, 'w'))\n\
a = zarr.open_array(sys.argv[1], mode='r')\ndump(a[:])\n",
        size = flat_record().size().unwrap()
    );
    let out = common::run_python(&script, &[dir.path().to_str().unwrap()]);
    assert_eq!(
        serde_json::from_str::<Value>(out.trim()).unwrap(),
        expected,
        "{order:?}"
    );
}

#[test]
fn zarr_reads_scalar_v3_arrays_we_describe() {
    // Plain (non-struct) arrays need no rewriting: zarr 3.1 reads them as is.
    let dir = tempfile::tempdir().unwrap();
    let dt = Datatype::Int16.array_of(&[3]);
    let meta = v3_array_metadata(&dt, ByteOrder::Big, &[2], None).unwrap();
    assert_eq!(meta["shape"], json!([2, 3]));
    let data: Vec<u8> = (1i16..=6).flat_map(|v| (-v).to_be_bytes()).collect();
    write_store(dir.path(), "zarr.json", &meta, "c/0/0", &data);
    assert_eq!(
        read_with_zarr(dir.path()),
        json!([[-1, -2, -3], [-4, -5, -6]])
    );
}

fn unsupported(err: LangError) -> (Language, Vec<String>, String) {
    match err {
        LangError::Unsupported {
            language,
            path,
            why,
            ..
        } => (language, path, why),
        other => panic!("expected Unsupported, got {other:?}"),
    }
}

#[test]
fn padding_subarrays_and_variable_data_are_clear_errors() {
    let padded = Datatype::Compound(
        Compound::c_layout([("a", Datatype::UInt8), ("b", Datatype::Float64)]).unwrap(),
    );
    let outer = Datatype::Compound(Compound {
        size: 17,
        members: vec![
            Member::new("x", 0, Datatype::UInt8),
            Member::new("in", 1, padded),
        ],
    });
    let (lang, path, why) = unsupported(outer.to_zarr_v2_dtype(ByteOrder::Little).unwrap_err());
    assert_eq!((lang, path), (Language::ZarrV2, vec!["in".to_string()]));
    assert!(why.contains("padding") && why.contains("#1629"), "{why}");
    let (lang, path, why) = unsupported(outer.to_zarr_v3_data_type().unwrap_err());
    assert_eq!((lang, path), (Language::ZarrV3, vec!["in".to_string()]));
    assert!(why.contains("padding"), "{why}");

    let sub = Datatype::Compound(Compound {
        size: 12,
        members: vec![Member::new("m", 0, Datatype::Float32.array_of(&[3]))],
    });
    assert!(sub.to_zarr_v2_dtype(ByteOrder::Little).is_ok());
    let (_, path, why) = unsupported(sub.to_zarr_v3_data_type().unwrap_err());
    assert_eq!(path, ["m"]);
    assert!(why.contains("subarray"), "{why}");

    let vlen = Datatype::Compound(Compound {
        size: 0,
        members: vec![],
    });
    assert!(vlen.to_zarr_v2_dtype(ByteOrder::Little).is_err());
    for dt in [
        Datatype::String,
        Datatype::Vlen(Box::new(Datatype::Int8)),
        Datatype::ObjRef,
    ] {
        assert!(dt.to_zarr_v2_dtype(ByteOrder::Little).is_err(), "{dt:?}");
    }
    assert!(
        Datatype::Vlen(Box::new(Datatype::Int8))
            .to_zarr_v3_data_type()
            .is_err()
    );
    let empty_name = Datatype::Compound(Compound {
        size: 1,
        members: vec![Member::new("", 0, Datatype::Int8)],
    });
    assert!(matches!(
        empty_name.to_zarr_v3_data_type(),
        Err(LangError::BadName { .. })
    ));
    assert!(matches!(
        v2_array_metadata(&Datatype::Int8, ByteOrder::Little, &[4], Some(&[1, 1])),
        Err(LangError::Shape { .. })
    ));
}
