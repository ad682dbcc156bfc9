//! Every Datashape we emit parses with the real `datashape` package and is
//! equal to an independently written expected Datashape.

use ndl_runtime::{
    Charset, Compound, Datatype, Enum, EnumMember, FixedString, IntType, Member, Opaque, Selection,
};

fn rec<const N: usize>(members: [(&str, Datatype); N]) -> Datatype {
    Datatype::Compound(Compound::c_layout(members).unwrap())
}

fn fixed(length: usize, charset: Charset) -> Datatype {
    Datatype::FixedString(FixedString { length, charset })
}

/// (datatype, expected Datashape written by hand, in datashape's own syntax).
fn cases() -> Vec<(Datatype, &'static str)> {
    let cloud = Datatype::Enum(Enum {
        base: IntType::UInt8,
        members: vec![EnumMember::new("Clear", 0), EnumMember::new("Cumulus", 1)],
    });
    vec![
        (Datatype::Bool, "bool"),
        (Datatype::Int8, "int8"),
        (Datatype::UInt64, "uint64"),
        (Datatype::Float16, "float16"),
        (Datatype::Float32, "float32"),
        (Datatype::Complex64, "complex64"),
        (Datatype::Complex128, "complex[float64]"),
        (Datatype::String, "string"),
        (fixed(16, Charset::Ascii), "string[16, 'ascii']"),
        (fixed(10, Charset::Utf32), "string[10, 'utf32']"),
        (Datatype::UInt8.array_of(&[3]), "3 * uint8"),
        (Datatype::Float32.array_of(&[2, 3]), "2 * 3 * float32"),
        (cloud.clone(), "uint8"),
        (
            Datatype::Opaque(Opaque {
                size: 16,
                tag: Some("uuid".into()),
            }),
            "16 * uint8",
        ),
        (Datatype::Vlen(Box::new(Datatype::Int32)), "var * int32"),
        (
            Datatype::Vlen(Box::new(Datatype::Float64.array_of(&[2]))),
            "var * 2 * float64",
        ),
        (
            rec([("id", Datatype::UInt32), ("t", Datatype::Float64)]),
            "{id: uint32, t: float64}",
        ),
        (
            rec([
                (
                    "pos",
                    rec([("lat", Datatype::Float32), ("lon", Datatype::Float32)]),
                ),
                ("m", Datatype::Int16.array_of(&[2, 3])),
                ("c", cloud),
                ("label", fixed(4, Charset::Ascii)),
                ("ok", Datatype::Bool),
                ("z", Datatype::Complex64),
            ]),
            "{pos: {lat: float32, lon: float32}, m: 2 * 3 * int16, c: uint8, \
             label: string[4, 'A'], ok: bool, z: complex[float32]}",
        ),
        (
            rec([("xs", rec([("a", Datatype::Int8)]).array_of(&[4]))]),
            "{xs: 4 * {a: int8}}",
        ),
        (
            Datatype::Compound(Compound {
                size: 0,
                members: vec![],
            }),
            "{}",
        ),
        (Datatype::ObjRef, "object"),
        (Datatype::RegRef(Selection::Element), "object"),
    ]
}

/// Field names that stress the quoting rules, each with the way a careful
/// human writes it in Datashape (double quotes where that is simpler, to
/// be independent of our single-quote emitter).
fn awkward_names() -> Vec<(&'static str, &'static str)> {
    vec![
        ("plain", "plain"),
        ("my field", "\"my field\""),
        ("True", "\"True\""),
        ("Truex", "\"Truex\""),
        ("False_", "\"False_\""),
        ("Tru", "Tru"),
        ("café", "\"café\""),
        ("😀", "\"😀\""),
        ("it's", "\"it's\""),
        ("say \"hi\"", "'say \"hi\"'"),
        ("a\\b", "\"a\\u005cb\""),
        ("nl\n", "\"nl\\n\""),
        ("cr\r", "\"cr\\r\""),
        ("tab\t", "\"tab\\u0009\""),
        ("nul\u{0}", "\"nul\\u0000\""),
        ("bell\u{7}", "\"bell\\u0007\""),
        ("", "\"\""),
        ("int32", "int32"),
        ("var", "var"),
        ("string", "string"),
        ("None", "None"),
        ("1st", "\"1st\""),
        ("a-b", "\"a-b\""),
        ("hash#x", "\"hash#x\""),
        ("{x}", "\"{x}\""),
        ("_", "_"),
    ]
}

/// Checks that `pairs` of (ours, expected) parse and are equal, in one Python run.
fn assert_equal_in_datashape(pairs: &[(String, String)]) {
    let script = r#"
import sys, json, datashape
pairs = json.loads(sys.stdin.read())
bad = []
for ours, expected in pairs:
    try:
        a = datashape.dshape(ours)
    except Exception as e:
        bad.append("ours does not parse: %r: %s" % (ours, e)); continue
    b = datashape.dshape(expected)
    if a != b:
        bad.append("%r != %r (%s vs %s)" % (ours, expected, a, b))
print(json.dumps(bad))
"#;
    let input = serde_json::to_string(pairs).unwrap();
    let out = run_python_stdin(script, &input);
    let bad: Vec<String> = serde_json::from_str(out.trim()).unwrap();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

fn run_python_stdin(script: &str, input: &str) -> String {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(ndl_testkit::python())
        .arg("-c")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "python failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn datatypes_parse_and_equal_the_expected_datashape() {
    let pairs: Vec<_> = cases()
        .into_iter()
        .map(|(dt, expected)| (dt.to_datashape(), expected.to_string()))
        .collect();
    assert_equal_in_datashape(&pairs);
}

#[test]
fn awkward_field_names_round_trip_through_the_lexer() {
    let mut pairs = Vec::new();
    for (name, written) in awkward_names() {
        // One record per name, and the name between two plain fields so a
        // quoting mistake cannot hide at the record's edge.
        let dt = rec([
            ("a", Datatype::Int8),
            (name, Datatype::Int32),
            ("z", Datatype::Int8),
        ]);
        pairs.push((
            dt.to_datashape(),
            format!("{{a: int8, {written}: int32, z: int8}}"),
        ));
    }
    assert_equal_in_datashape(&pairs);
}

#[test]
fn field_names_come_back_exactly() {
    // Equality above could in principle hide a normalisation; compare the
    // names Python sees with ours, character for character.
    let names: Vec<&str> = awkward_names().into_iter().map(|(n, _)| n).collect();
    let members: Vec<_> = names
        .iter()
        .enumerate()
        .map(|(i, n)| Member::new(*n, i, Datatype::UInt8))
        .collect();
    let dt = Datatype::Compound(Compound {
        size: members.len(),
        members,
    });
    let script = r#"
import sys, json, datashape
ds = datashape.dshape(sys.stdin.read())
print(json.dumps(list(ds.measure.names)))
"#;
    let out = run_python_stdin(script, &dt.to_datashape());
    let back: Vec<String> = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(back, names);
}

#[test]
fn long_records_stay_on_one_line_and_parse() {
    let members: Vec<_> = (0..30)
        .map(|i| Member::new(format!("field_number_{i}"), i * 8, Datatype::Float64))
        .collect();
    let dt = Datatype::Compound(Compound { size: 240, members });
    let ds = dt.to_datashape();
    assert!(ds.len() > 80 && !ds.contains('\n'));
    let expected = format!(
        "{{{}}}",
        (0..30)
            .map(|i| format!("field_number_{i}: float64"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    assert_equal_in_datashape(&[(ds, expected)]);
}

#[test]
fn references_are_refused_by_the_strict_form() {
    let dt = rec([("ok", Datatype::Int8)]);
    assert_eq!(dt.try_to_datashape().unwrap(), "{ok: int8}");
    let with_ref = Datatype::Compound(Compound {
        size: 9,
        members: vec![
            Member::new("a", 0, Datatype::Int8),
            Member::new(
                "r",
                1,
                Datatype::Vlen(Box::new(Datatype::ObjRef)).array_of(&[1]),
            ),
        ],
    });
    let err = with_ref.try_to_datashape().unwrap_err().to_string();
    assert!(
        err.contains("member `r`") && err.contains("objref"),
        "{err}"
    );
    assert_eq!(with_ref.to_datashape(), "{a: int8, r: 1 * var * object}");
}
