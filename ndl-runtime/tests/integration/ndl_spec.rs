//! The NDL document model against the spec's examples: every example
//! parses, means what the spec says, and is written back to an equal value.

use crate::examples;

use examples::{Snippet, example, examples, parse_snippet, single_key, write_snippet};
use ndl_runtime::ndl::{
    Attribute, AttributeForm, DimCoord, Extent, File, FileForm, Ndarray, Shape,
};
use ndl_runtime::{ByteOrder, Compound, Datatype, Enum, EnumMember, FixedString, IntType, Member};
use serde_yaml::Value;

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
    assert!(
        time.storage
            .fillvalue
            .as_ref()
            .unwrap()
            .as_f64()
            .unwrap()
            .is_nan()
    );
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
