//! Our YAML against PyYAML (YAML 1.1): every document we write must load
//! in PyYAML to the same structure serde_yaml (YAML 1.2) sees.

use crate::examples;

use std::fmt::Write as _;

use examples::{examples, parse_snippet, write_snippet};
use ndl_runtime::ndl::{self, Attribute, DimCoord, Extent, File, Ndarray, Shape, Storage};
use ndl_runtime::{ByteOrder, Compound, Datatype, Enum, EnumMember, FixedString, IntType, Member};
use serde_yaml::{Mapping, Value};

/// A typed, order-keeping text form of a loaded YAML structure that Python
/// builds identically: strings as UTF-8 hex (no escaping rules to match),
/// floats as their IEEE bits.
fn canonical(v: &Value) -> String {
    let mut out = String::new();
    write_canonical(&mut out, v);
    out
}

fn write_canonical(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push('~'),
        Value::Bool(b) => write!(out, "b:{b}").unwrap(),
        Value::Number(n) if n.is_i64() || n.is_u64() => write!(out, "i:{n}").unwrap(),
        Value::Number(n) => {
            let f = n.as_f64().unwrap();
            if f.is_nan() {
                out.push_str("f:nan");
            } else {
                write!(out, "f:{:016x}", f.to_bits()).unwrap();
            }
        }
        Value::String(s) => {
            out.push_str("s:");
            s.bytes().for_each(|b| write!(out, "{b:02x}").unwrap());
        }
        Value::Sequence(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(out, item);
            }
            out.push(']');
        }
        Value::Mapping(m) => {
            out.push('{');
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(out, k);
                out.push('=');
                write_canonical(out, v);
            }
            out.push('}');
        }
        Value::Tagged(t) => write!(out, "?tagged:{}", t.tag).unwrap(),
    }
}

const PY_CANONICAL: &str = r#"
import struct, sys, yaml

def c(v):
    if v is None: return "~"
    if isinstance(v, bool): return "b:" + ("true" if v else "false")
    if isinstance(v, int): return "i:%d" % v
    if isinstance(v, float):
        return "f:nan" if v != v else "f:" + struct.pack(">d", v).hex()
    if isinstance(v, str): return "s:" + v.encode("utf-8").hex()
    if isinstance(v, list): return "[" + ",".join(c(x) for x in v) + "]"
    if isinstance(v, dict): return "{" + ",".join(c(k) + "=" + c(x) for k, x in v.items()) + "}"
    return "?" + type(v).__name__

for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        print(c(yaml.safe_load(text)))
    except Exception as e:
        print("ERROR " + type(e).__name__ + ": " + str(e).replace("\n", " "))
"#;

/// PyYAML's canonical form of each text, in order.
fn pyyaml_canonical(texts: &[String]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let paths: Vec<String> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let p = dir.path().join(format!("{i}.yaml"));
            std::fs::write(&p, t).unwrap();
            p.to_string_lossy().into_owned()
        })
        .collect();
    let args: Vec<&str> = paths.iter().map(String::as_str).collect();
    let out = ndl_testkit::run_python(PY_CANONICAL, &args);
    let lines: Vec<String> = out.lines().map(String::from).collect();
    assert_eq!(lines.len(), texts.len(), "{out}");
    lines
}

/// The texts (labelled) whose PyYAML reading differs from serde_yaml's.
fn differing(texts: &[(String, String)]) -> Vec<String> {
    let py = pyyaml_canonical(&texts.iter().map(|(_, t)| t.clone()).collect::<Vec<_>>());
    texts
        .iter()
        .zip(py)
        .filter_map(|((label, text), py)| {
            let ours = canonical(&serde_yaml::from_str(text).unwrap());
            (ours != py).then(|| {
                format!(
                    "{label}:\n{}\n{}",
                    excerpt(text, 0),
                    first_difference(&ours, &py)
                )
            })
        })
        .collect()
}

/// Where two canonical forms first differ, with some context.
fn first_difference(ours: &str, py: &str) -> String {
    let at = ours
        .bytes()
        .zip(py.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let start = at.saturating_sub(80);
    format!(
        "  serde_yaml: ...{}\n  PyYAML:     ...{}",
        excerpt(ours, start),
        excerpt(py, start)
    )
}

fn excerpt(text: &str, start: usize) -> String {
    text.get(start..).unwrap_or("").chars().take(1500).collect()
}

#[test]
fn pyyaml_reads_our_writing_of_every_example_as_serde_yaml_does() {
    let texts: Vec<_> = examples()
        .into_iter()
        .map(|(name, text)| (name, write_snippet(&parse_snippet(&text))))
        .collect();
    let bad = differing(&texts);
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
}

#[test]
fn the_spec_enum_example_is_ambiguous_in_yaml_1_1() {
    // Verbatim, the spec's texts read alike in both YAML versions except
    // the enum without base, whose bare `OFF`/`ON` keys PyYAML reads as
    // the booleans false/true. Our writing of it quotes them (test above).
    let texts = examples();
    let bad = differing(&texts);
    let names: Vec<&str> = bad.iter().map(|b| b.split(':').next().unwrap()).collect();
    assert_eq!(
        names,
        ["spec-datatype-enum-without-base"],
        "{}",
        bad.join("\n\n")
    );
    assert!(bad[0].contains("b:false"), "{}", bad[0]);
}

/// Names YAML 1.1 or 1.2 would read as something other than the string,
/// or that need escapes.
const AWKWARD: &[&str] = &[
    "ON",
    "OFF",
    "On",
    "yes",
    "No",
    "y",
    "n",
    "True",
    "null",
    "Null",
    "~",
    "1",
    "-1",
    "+1",
    "0x1F",
    "0o17",
    "0b101",
    "017",
    ".5",
    "1e3",
    "1.0e+3",
    ".inf",
    "-.inf",
    ".nan",
    "NaN",
    "2026-01-01",
    "2026-01-01T10:00:00Z",
    "1_000",
    "1:20",
    "12:30:00",
    "<<",
    "=",
    "Ηελλο ωορλδ",
    "",
    "say \"hi\"",
    "it's",
    "two\nlines",
    "tab\there",
    "#hash",
    "- dash",
    "a: b",
    "a #b",
    "[x]",
    "{y}",
    "&anchor",
    "*alias",
    "!tag",
    "%pct",
    "@at",
    "`tick",
    "|pipe",
    ">gt",
    "?q",
    ",comma",
    " lead",
    "trail ",
    "back\\slash",
    "bell\u{7}",
    "nel\u{85}",
    "ls\u{2028}",
    "\u{feff}bom",
    "emoji 😀",
    "café",
    "my field",
    "/path/like",
];

/// Names around YAML's 1024-character limit on implicit keys, in ASCII,
/// in two-byte and in quoted characters.
fn long_names() -> Vec<String> {
    vec![
        "k".repeat(990),
        "k".repeat(1010),
        "Ω".repeat(1100),
        "ON\n".repeat(400),
    ]
}

fn awkward_floats() -> Vec<f64> {
    vec![
        1.0e3,
        0.1,
        1.1,
        -0.0,
        0.0,
        1.0,
        5e-324,
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::MIN,
        1e16,
        1.5e-7,
        123456.789,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ]
}

/// A document using every awkward name as a group segment, an ndarray,
/// dimcoord, attribute, enum member and compound member name, and as
/// string values; awkward floats and integers as values.
fn awkward_file() -> File {
    let mut file = File::new();
    let names: Vec<&str> = AWKWARD
        .iter()
        .copied()
        .filter(|n| !n.is_empty() && !n.contains('/'))
        .collect();
    let enum_dt = Datatype::Enum(Enum {
        base: IntType::UInt8,
        members: AWKWARD
            .iter()
            .enumerate()
            .map(|(i, n)| EnumMember::new(*n, i as i128))
            .collect(),
    });
    let compound = Datatype::Compound(Compound {
        size: 8 * AWKWARD.len(),
        members: AWKWARD
            .iter()
            .enumerate()
            .map(|(i, n)| Member {
                description: Some(format!("{n}\nsecond line: \"{n}\" # not a comment")),
                ..Member::new(*n, 8 * i, Datatype::Float64)
            })
            .collect(),
    });
    for (i, name) in names.iter().enumerate() {
        let group = format!("/{name}");
        file.insert_dimcoord(
            &group,
            *name,
            DimCoord::new(Some(2), Datatype::String).with_value(vec![*name, *name]),
        )
        .unwrap();
        let nd = Ndarray::new(
            Shape(vec![
                Extent::Dim(format!("/{name}/{name}")),
                Extent::Dim((*name).into()),
                Extent::Unlimited,
            ]),
            if i % 2 == 0 {
                enum_dt.clone()
            } else {
                compound.clone()
            },
        )
        .with_description(format!(
            "{name}\nThe ndarray named {name:?}: ON, yes, 1:20."
        ))
        .with_attribute(*name, *name)
        .with_storage(Storage {
            chunk: Some(vec![1, 2, 3]),
            filter: Some(vec![
                Value::from(*name),
                Value::Mapping(
                    [(Value::from(*name), Value::from(*name))]
                        .into_iter()
                        .collect(),
                ),
            ]),
            endian: Some(if i % 2 == 0 {
                ByteOrder::Big
            } else {
                ByteOrder::Little
            }),
            charset: Some((*name).into()),
            ..Storage::default()
        });
        file.insert_ndarray(&group, *name, nd).unwrap();
    }
    let root = file.groups.get_or_insert_with("/", Default::default);
    for name in AWKWARD {
        root.attributes
            .insert(format!("s {name}"), Attribute::from(*name));
        root.attributes.insert(*name, Attribute::from(*name));
    }
    for (i, f) in awkward_floats().into_iter().enumerate() {
        root.attributes
            .insert(format!("float {i}"), Attribute::from(f));
    }
    for (i, n) in [i64::MIN, -1, 0, i64::from(i32::MAX) + 1, i64::MAX]
        .into_iter()
        .enumerate()
    {
        root.attributes
            .insert(format!("int {i}"), Attribute::from(n));
    }
    // YAML limits implicit keys to 1024 characters; longer names are
    // written as explicit `? key` entries.
    for long in long_names() {
        root.attributes
            .insert(long.clone(), Attribute::from(long.as_str()));
        root.ndarrays.insert(
            long.clone(),
            Ndarray::new([1], Datatype::Int8).with_attribute(long.clone(), 1),
        );
    }
    root.attributes.insert("u64 max", Attribute::from(u64::MAX));
    root.attributes.insert("true", Attribute::from(true));
    root.attributes.insert(
        "names",
        Attribute::long([AWKWARD.len()], Datatype::String, AWKWARD.to_vec()),
    );
    root.attributes.insert(
        "floats",
        Attribute::long(
            [awkward_floats().len()],
            Datatype::Float64,
            awkward_floats(),
        ),
    );
    root.ndarrays.insert(
        "filled",
        Ndarray::new([2], Datatype::Float32)
            .with_value(vec![f64::NAN, -0.0])
            .with_storage(Storage {
                fillvalue: Some(Value::from(f64::NAN)),
                shape: Some(vec![1]),
                ..Storage::default()
            }),
    );
    file
}

#[test]
fn awkward_document_validates_and_round_trips() {
    let file = awkward_file();
    file.validate().unwrap();
    let yaml = file.to_yaml();
    assert_eq!(File::from_yaml(&yaml).unwrap(), file, "{yaml}");
}

#[test]
fn pyyaml_reads_everything_we_emit_as_serde_yaml_does() {
    let mut texts = vec![("awkward document".to_owned(), awkward_file().to_yaml())];
    // A flat document as `ndl describe` writes for one array.
    let flat = File::single_ndarray(
        "ON",
        Ndarray::new([3, 0], Datatype::Complex128)
            .with_description("yes\nno")
            .with_attribute("1:20", 1.0e3)
            .with_attribute("2026-01-01", f64::NAN)
            .with_storage(Storage {
                endian: Some(ByteOrder::NATIVE),
                ..Storage::default()
            }),
    );
    texts.push(("flat document".into(), flat.to_yaml()));
    // Datatypes on their own.
    let datatypes = [
        Datatype::Enum(
            Enum::with_inferred_base(vec![EnumMember::new("ON", 1), EnumMember::new("OFF", 0)])
                .unwrap(),
        ),
        Datatype::FixedString(FixedString {
            length: 3,
            charset: ndl_runtime::Charset::Utf32,
        }),
        Datatype::Vlen(Box::new(Datatype::Float16.array_of(&[2]))),
        Datatype::Opaque(ndl_runtime::Opaque {
            size: 4,
            tag: Some("2026-01-01".into()),
        }),
        Datatype::Opaque(ndl_runtime::Opaque { size: 4, tag: None }),
    ];
    for (i, dt) in datatypes.iter().enumerate() {
        texts.push((format!("datatype {i}"), ndl::datatype_to_yaml(dt)));
    }
    // Every awkward string and float as a lone scalar and as a key.
    for name in AWKWARD {
        let mut m = Mapping::new();
        m.insert(Value::from(*name), Value::from(*name));
        texts.push((format!("{name:?}"), ndl::to_yaml_string(&Value::Mapping(m))));
        texts.push((
            format!("{name:?} alone"),
            ndl::to_yaml_string(&Value::from(*name)),
        ));
    }
    for name in long_names() {
        let mut m = Mapping::new();
        m.insert(Value::from(name.as_str()), Value::from(name.as_str()));
        texts.push((
            format!("{} long", name.len()),
            ndl::to_yaml_string(&Value::Mapping(m)),
        ));
    }
    for f in awkward_floats() {
        texts.push((format!("{f:?}"), ndl::to_yaml_string(&Value::from(f))));
    }
    let bad = differing(&texts);
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
}
