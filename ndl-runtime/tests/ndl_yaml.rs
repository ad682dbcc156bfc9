//! The NDL document model against the spec's examples, and our YAML
//! against PyYAML (YAML 1.1): every document we write must load in PyYAML
//! to the same structure serde_yaml (YAML 1.2) sees.

use std::fmt::Write as _;
use std::path::PathBuf;

use ndl_runtime::ndl::{
    self, Attribute, AttributeForm, DimCoord, Extent, File, FileForm, Ndarray, NdlError,
    NdlErrorKind, Shape, Storage,
};
use ndl_runtime::{ByteOrder, Compound, Datatype, Enum, EnumMember, FixedString, IntType, Member};
use serde_yaml::{Mapping, Value};

// ---------------------------------------------------------------------------
// The example files

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/ndl")
}

/// Every example file, by name, sorted.
fn examples() -> Vec<(String, String)> {
    let mut files: Vec<_> = std::fs::read_dir(data_dir())
        .expect("tests/data/ndl exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    files.sort();
    assert!(
        files.len() >= 20,
        "the spec has 18 examples, plus composites"
    );
    files
}

fn example(name: &str) -> String {
    std::fs::read_to_string(data_dir().join(format!("{name}.yaml"))).unwrap()
}

/// A spec example is a whole document (`attributes:`, `ndarrays:`, group
/// paths ...) or one `type:` or `shape:` key.
#[derive(Debug, PartialEq)]
enum Snippet {
    Type(Datatype),
    Shape(Shape),
    File(File),
}

fn single_key(text: &str) -> Option<(String, Value)> {
    let v: Value = serde_yaml::from_str(text).ok()?;
    let m = v.as_mapping()?;
    let (k, v) = m.iter().next()?;
    (m.len() == 1).then(|| (k.as_str().unwrap_or("").to_owned(), v.clone()))
}

fn parse_snippet(text: &str) -> Snippet {
    match single_key(text) {
        Some((k, v)) if k == "type" => Snippet::Type(serde_yaml::from_value(v).unwrap()),
        Some((k, v)) if k == "shape" => Snippet::Shape(serde_yaml::from_value(v).unwrap()),
        _ => Snippet::File(File::from_yaml(text).unwrap_or_else(|e| panic!("{e}\n{text}"))),
    }
}

/// Our YAML for a snippet; `type:` and `shape:` snippets keep their key.
fn write_snippet(s: &Snippet) -> String {
    let keyed = |k: &str, v: Value| {
        let mut m = Mapping::new();
        m.insert(k.into(), v);
        ndl::to_yaml_string(&Value::Mapping(m))
    };
    match s {
        Snippet::Type(dt) => keyed("type", serde_yaml::to_value(dt).unwrap()),
        Snippet::Shape(sh) => keyed("shape", serde_yaml::to_value(sh).unwrap()),
        Snippet::File(f) => f.to_yaml(),
    }
}

/// The original's YAML value with every `type:` replaced by our form of
/// the datatype it declares: what the written YAML must equal, since the
/// model keeps every other form (short attributes stay short) but writes
/// datatypes in the long compound form with offsets.
fn expected_value(text: &str) -> Value {
    let mut v: Value = serde_yaml::from_str(text).unwrap();
    if single_key(text).is_some_and(|(k, _)| k == "type" || k == "shape") {
        normalise_type_key(&mut v);
        return v;
    }
    let top = v.as_mapping_mut().unwrap();
    let hierarchical = top.keys().any(|k| k.as_str().unwrap().starts_with('/'));
    let groups: Vec<&mut Value> = if hierarchical {
        top.values_mut().collect()
    } else {
        vec![&mut v]
    };
    for group in groups {
        let Some(group) = group.as_mapping_mut() else {
            continue;
        };
        for (key, entities) in group.iter_mut() {
            for entity in entities.as_mapping_mut().unwrap().values_mut() {
                if key == "attributes" {
                    normalise_type_key(entity);
                    continue;
                }
                normalise_type_key(entity);
                if let Some(attrs) = entity.get_mut("attributes") {
                    attrs
                        .as_mapping_mut()
                        .unwrap()
                        .values_mut()
                        .for_each(normalise_type_key);
                }
            }
        }
    }
    v
}

fn normalise_type_key(entity: &mut Value) {
    if let Some(t) = entity.get_mut("type") {
        let dt: Datatype = serde_yaml::from_value(t.clone()).unwrap();
        *t = serde_yaml::to_value(&dt).unwrap();
    }
}

// ---------------------------------------------------------------------------
// Every example parses, and is written back to an equal value

#[test]
fn every_example_round_trips() {
    for (name, text) in examples() {
        let parsed = parse_snippet(&text);
        let written = write_snippet(&parsed);
        assert_eq!(
            parse_snippet(&written),
            parsed,
            "{name}: model changed:\n{written}"
        );
        let written_value: Value = serde_yaml::from_str(&written).unwrap();
        assert_eq!(
            written_value,
            expected_value(&text),
            "{name}: value changed:\n{written}"
        );
    }
}

#[test]
fn spec_datatypes_mean_what_the_spec_says() {
    let ty = |name: &str| match parse_snippet(&example(name)) {
        Snippet::Type(dt) => dt,
        other => panic!("{name}: {other:?}"),
    };
    assert_eq!(ty("spec-datatype-string"), Datatype::String);
    assert_eq!(ty("spec-datatype-objref"), Datatype::ObjRef);
    assert_eq!(
        ty("spec-datatype-opaque"),
        Datatype::Opaque(ndl_runtime::Opaque {
            size: 64000,
            tag: Some("image/png".into())
        })
    );
    let members = |m: &[(&str, i128)]| m.iter().map(|&(n, v)| EnumMember::new(n, v)).collect();
    assert_eq!(
        ty("spec-datatype-enum"),
        Datatype::Enum(Enum {
            base: IntType::Int8,
            members: members(&[("UP", 0), ("DOWN", 25), ("CENTER", -120)]),
        })
    );
    // "uint8 will be assumed" (serde_yaml, YAML 1.2, reads OFF/ON as names).
    assert_eq!(
        ty("spec-datatype-enum-without-base"),
        Datatype::Enum(Enum {
            base: IntType::UInt8,
            members: members(&[("OFF", 0), ("ON", 1), ("UNDEFINED", 255)]),
        })
    );
    assert_eq!(
        ty("spec-datatype-regref-block"),
        Datatype::RegRef(ndl_runtime::Selection::Block)
    );
    assert_eq!(
        ty("spec-datatype-regref-element"),
        Datatype::RegRef(ndl_runtime::Selection::Element)
    );
    let xyz = Compound::c_layout([
        ("x", Datatype::Float32),
        ("y", Datatype::Int32),
        ("z", Datatype::Float64),
    ]);
    assert_eq!(
        ty("spec-datatype-compound"),
        Datatype::Compound(xyz.unwrap())
    );
    assert_eq!(
        ty("spec-datatype-vlen"),
        Datatype::Vlen(Box::new(Datatype::UInt8))
    );
    assert_eq!(
        ty("spec-datatype-array"),
        Datatype::Float32.array_of(&[3, 3])
    );
}

#[test]
fn spec_shapes_mean_what_the_spec_says() {
    let shape = |name: &str| match parse_snippet(&example(name)) {
        Snippet::Shape(s) => s,
        other => panic!("{name}: {other:?}"),
    };
    assert_eq!(shape("spec-shape-flow"), Shape::from([10, 20, 30]));
    assert_eq!(shape("spec-shape-block"), shape("spec-shape-flow"));
    assert_eq!(
        shape("spec-shape-unlimited"),
        Shape(vec![Extent::Unlimited, Extent::Size(20), Extent::Size(30)])
    );
    assert!(shape("spec-shape-scalar").is_scalar());
    // The block list is written in flow style, as the spec's first form.
    assert_eq!(
        write_snippet(&Snippet::Shape(shape("spec-shape-block"))),
        "shape: [10, 20, 30]\n"
    );
}

#[test]
fn spec_attributes_short_forms_equal_their_long_forms() {
    let file = File::from_yaml(&example("spec-attributes")).unwrap();
    assert_eq!(file.form, FileForm::Flat);
    let attrs = &file.group("/").unwrap().attributes;
    assert_eq!(
        attrs.names().collect::<Vec<_>>(),
        ["a", "b", "same_as_a", "same_as_b", "state"]
    );
    let long = |name: &str| Attribute {
        form: AttributeForm::Long,
        ..attrs.get(name).unwrap().clone()
    };
    assert_eq!(attrs.get("same_as_a").unwrap().form, AttributeForm::Short);
    assert_eq!(long("same_as_a"), *attrs.get("a").unwrap());
    // Integer short forms are int32: `same_as_b` is the same as `b`.
    assert_eq!(long("same_as_b"), *attrs.get("b").unwrap());
    assert_eq!(
        *attrs.get("state").unwrap(),
        Attribute::long(
            [3],
            Datatype::String,
            vec!["power on", "power off", "error"]
        )
    );
}

#[test]
fn spec_dimcoords_ndarrays_and_groups_mean_what_the_spec_says() {
    let file = File::from_yaml(&example("spec-dimcoords")).unwrap();
    let root = file.group("/").unwrap();
    assert_eq!(
        *root.dimcoords.get("x").unwrap(),
        DimCoord::new(None, Datatype::Float64).with_attribute("what", "x coordinate")
    );
    assert_eq!(
        *root.dimcoords.get("y").unwrap(),
        DimCoord::new(Some(6), Datatype::Float32)
            .with_value(vec![1.0, 1.1, 1.2, 1.3, 1.4, 1.5])
            .with_attribute("what", "y coordinate")
    );

    let file = File::from_yaml(&example("spec-ndarrays")).unwrap();
    let z = file.ndarray("/z").unwrap();
    assert_eq!(
        *z,
        Ndarray::new([10, 20], Datatype::Float64).with_description("Values of z")
    );
    let vector = file.ndarray("/vector").unwrap();
    assert_eq!(vector.shape, Shape::from([50, 60, 40]));
    assert_eq!(vector.description(), Some("velocity"));
    let Some(Datatype::Compound(c)) = &vector.datatype else {
        panic!()
    };
    assert_eq!(
        c.members.iter().map(|m| m.offset).collect::<Vec<_>>(),
        [0, 4, 8]
    );

    let file = File::from_yaml(&example("spec-groups")).unwrap();
    assert_eq!(file.form, FileForm::Grouped);
    assert_eq!(
        file.groups.names().collect::<Vec<_>>(),
        ["/", "/group1", "/group2/subgroup1"]
    );
    let nd = file.ndarray("/group2/subgroup1/nd").unwrap();
    // The spec's example gives `nd` no type.
    assert_eq!(nd.datatype, None);
    // "the ndarray is two-dimensional with the extent [null, 150]"
    let extents: Vec<_> = nd
        .shape
        .0
        .iter()
        .map(|e| match e {
            Extent::Dim(r) => {
                file.resolve_dimcoord("/group2/subgroup1", r)
                    .unwrap()
                    .1
                    .size
            }
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(extents, [None, Some(150)]);
    assert_eq!(
        file.group("/group1")
            .unwrap()
            .attributes
            .get("a")
            .unwrap()
            .as_str(),
        Some("This is /group1 attribute")
    );
}

#[test]
fn spec_groups_written_back() {
    let file = File::from_yaml(&example("spec-groups")).unwrap();
    assert_eq!(
        file.to_yaml(),
        "\
/:
  attributes: {a: This is / group attribute}
  dimcoords: {d1: {size: 150, type: float32}}
  ndarrays: {\"n\": {shape: [1967, 45], type: float64}}
/group1:
  attributes: {a: This is /group1 attribute}
  dimcoords: {d2: {size: null, type: float32}}
/group2/subgroup1:
  attributes: {c: This is /group2/subgroup1 attribute}
  ndarrays: {nd: {shape: [/group1/d2, /d1]}}
"
    );
}

#[test]
fn composites_mean_what_they_say() {
    let file = File::from_yaml(&example("composite-grouped")).unwrap();
    let root = file.group("/").unwrap();
    let time = root.dimcoords.get("time").unwrap();
    assert_eq!(time.storage.size, Some(1000));
    assert_eq!(time.storage.endian, Some(ByteOrder::Little));
    assert!(time
        .storage
        .fillvalue
        .as_ref()
        .unwrap()
        .as_f64()
        .unwrap()
        .is_nan());
    assert_eq!(
        root.attributes.get("calibrated").unwrap().datatype,
        Datatype::Bool
    );
    assert_eq!(
        root.attributes.get("scale").unwrap().datatype,
        Datatype::Float64
    );
    let t = file
        .ndarray("/instruments/thermometer/temperature")
        .unwrap();
    assert_eq!(t.storage.shape, Some(vec![1000, 3]));
    assert_eq!(t.storage.filter.as_ref().unwrap().len(), 2);
    assert_eq!(
        file.resolve_dimcoord("/instruments/thermometer", "station")
            .unwrap()
            .0,
        "/station"
    );
    let record = file.ndarray("/instruments/thermometer/record").unwrap();
    let Some(Datatype::Compound(c)) = &record.datatype else {
        panic!()
    };
    assert_eq!(c.size, 16);
    assert_eq!(
        c.member("t").unwrap().description.as_deref(),
        Some("Seconds since start")
    );
    assert_eq!(
        c.member("id").unwrap(),
        &Member::new(
            "id",
            10,
            Datatype::FixedString(FixedString {
                length: 6,
                charset: ndl_runtime::Charset::Ascii
            })
        )
    );
    assert!(file.group("/empty").unwrap().ndarrays.is_empty());

    let file = File::from_yaml(&example("composite-flat")).unwrap();
    assert_eq!(file.form, FileForm::Flat);
    let sst = file.ndarray("/sst").unwrap();
    assert_eq!(sst.storage.chunk, Some(vec![1, 3, 4]));
    assert_eq!(
        file.resolve_dimcoord("/", "lat").map(|(p, d)| (p, d.size)),
        Some(("/lat".to_owned(), Some(3)))
    );
}

#[test]
fn serde_impls_agree_with_the_model() {
    for (name, text) in examples() {
        let Snippet::File(file) = parse_snippet(&text) else {
            continue;
        };
        let via_serde: File = serde_yaml::from_str(&text).unwrap();
        assert_eq!(via_serde, file, "{name}");
        assert_eq!(
            serde_yaml::to_value(&file).unwrap(),
            file.to_value(),
            "{name}"
        );
    }
    let e = serde_yaml::from_str::<File>("ndarrays: {z: {shape: [1], type: nope}}").unwrap_err();
    assert!(
        e.to_string()
            .contains("ndarray `z`: type: unknown datatype `nope`"),
        "{e}"
    );
}

// ---------------------------------------------------------------------------
// PyYAML reads what serde_yaml reads

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

// ---------------------------------------------------------------------------
// Errors name where

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
    let e = assert_err("/:\n  dimcoords: {d: {size: 1, type: int8}}\n/g:\n  ndarrays:\n    nd: {shape: [d, /g/d], type: int8}\n", "/g: ndarray `nd`: shape[1]", "`/g/d` names no dimcoord");
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
    assert!(file
        .validate()
        .unwrap_err()
        .to_string()
        .starts_with("ndarray `z`: type: enum member `big`"));
}
