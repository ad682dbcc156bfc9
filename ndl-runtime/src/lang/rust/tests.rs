use super::*;
use crate::{EnumMember, IntType};

fn compound(size: usize, members: &[(&str, usize, Datatype)]) -> Datatype {
    Datatype::Compound(Compound {
        size,
        members: members
            .iter()
            .map(|(n, o, d)| Member::new(*n, *o, d.clone()))
            .collect(),
    })
}

#[test]
fn a_small_compound_exactly() {
    let dt = compound(
        16,
        &[("id", 0, Datatype::UInt32), ("t", 8, Datatype::Float64)],
    );
    assert_eq!(
        to_rust(&dt, "point").unwrap(),
        "use ndl_runtime::NdlType;\n\
         \n\
         #[derive(Clone, Copy, Debug, PartialEq, NdlType)]\n\
         #[repr(C)]\n\
         pub struct Point {\n    pub id: u32,\n    pub t: f64,\n}\n"
    );
}

#[test]
fn gaps_and_trailing_bytes_are_padding_fields() {
    let dt = compound(12, &[("a", 0, Datatype::UInt8), ("b", 4, Datatype::UInt16)]);
    let text = to_rust(&dt, "Gapped").unwrap();
    assert!(text.contains("#[repr(C)]\n"), "{text}");
    assert!(
        text.contains(
            "    pub a: u8,\n    #[ndl(padding)]\n    pub _pad: [u8; 3],\n    pub b: u16,\n    #[ndl(padding)]\n    pub _pad2: [u8; 6],\n"
        ),
        "{text}"
    );
}

#[test]
fn misaligned_members_make_a_packed_struct() {
    let dt = compound(9, &[("a", 0, Datatype::UInt8), ("b", 1, Datatype::Float64)]);
    let text = to_rust(&dt, "Packed").unwrap();
    assert!(
        text.contains(
            "#[repr(C, packed)]\npub struct Packed {\n    pub a: u8,\n    pub b: f64,\n}"
        ),
        "{text}"
    );
}

#[test]
fn keywords_and_other_names_become_identifiers_with_renames() {
    let dt = compound(
        4,
        &[
            ("type", 0, Datatype::UInt8),
            ("a b", 1, Datatype::UInt8),
            ("1x", 2, Datatype::UInt8),
            ("a_b", 3, Datatype::UInt8),
        ],
    );
    let text = to_rust(&dt, "names").unwrap();
    for field in [
        "    pub r#type: u8,\n",
        "    #[ndl(rename = \"a b\")]\n    pub a_b: u8,\n",
        "    #[ndl(rename = \"1x\")]\n    pub _1x: u8,\n",
        "    #[ndl(rename = \"a_b\")]\n    pub a_b_2: u8,\n",
    ] {
        assert!(text.contains(field), "{field:?} not in\n{text}");
    }
}

#[test]
fn nested_types_are_named_after_their_members() {
    let inner = compound(2, &[("x", 0, Datatype::UInt8), ("y", 1, Datatype::UInt8)]);
    let colour = Datatype::Enum(Enum {
        base: IntType::Int16,
        members: vec![EnumMember::new("RED", 0), EnumMember::new("dark green", -1)],
    });
    let dt = compound(4, &[("pos", 0, inner), ("colour", 2, colour)]);
    let text = to_rust(&dt, "Pixel").unwrap();
    assert!(text.contains("pub struct Pos {"), "{text}");
    assert!(
        text.contains("pub pos: Pos,\n    pub colour: Colour,\n"),
        "{text}"
    );
    assert!(
        text.contains("#[repr(i16)]\npub enum Colour {\n    #[ndl(rename = \"RED\")]\n    Red = 0,\n    #[ndl(rename = \"dark green\")]\n    DarkGreen = -1,\n}"),
        "{text}"
    );
}

#[test]
fn variable_members_make_a_record() {
    let dt = Datatype::Compound(
        Compound::variable([
            Member::new("name", 0, Datatype::String),
            Member::new("xs", 0, Datatype::Vlen(Box::new(Datatype::Float32))),
            Member::new("n", 0, Datatype::Optional(Box::new(Datatype::Int64))),
        ])
        .unwrap(),
    );
    let text = to_rust(&dt, "row").unwrap();
    assert!(text.starts_with("use ndl_runtime::Record;\n"), "{text}");
    assert!(
        text.contains("#[derive(Clone, Debug, PartialEq, Record)]\npub struct Row {\n    pub name: String,\n    pub xs: Vec<f32>,\n    pub n: Option<i64>,\n}"),
        "{text}"
    );
}

#[test]
fn overlap_is_an_error_naming_the_member() {
    let dt = compound(8, &[("a", 0, Datatype::UInt32), ("b", 2, Datatype::UInt32)]);
    // `validate` refuses the overlap before the printer sees it; the
    // error still names the member.
    let err = to_rust(&dt, "x").unwrap_err();
    assert!(
        err.to_string().contains("`b`") || err.to_string().contains("\"b\""),
        "{err}"
    );
}

#[test]
fn a_time_unit_without_a_marker_is_an_error_naming_the_member() {
    let t: crate::TimeType = "M8[10ms]".parse().unwrap();
    let dt = compound(8, &[("when", 0, Datatype::Time(t))]);
    let err = to_rust(&dt, "x").unwrap_err();
    assert!(err.to_string().contains("member `when`"), "{err}");
}

#[test]
fn scalars_arrays_and_features() {
    let t: crate::TimeType = "M8[ns]".parse().unwrap();
    let dt = compound(
        40,
        &[
            ("h", 0, Datatype::Float16),
            ("z", 4, Datatype::Complex64.array_of(&[2, 2])),
            ("when", 36, Datatype::UInt32),
        ],
    );
    let text = to_rust(&dt, "s").unwrap();
    assert!(text.contains("use half::f16;\n"), "{text}");
    assert!(text.contains("use num_complex::Complex;\n"), "{text}");
    assert!(
        text.contains("    pub z: [[Complex<f32>; 2]; 2],\n"),
        "{text}"
    );
    let alias = to_rust(&Datatype::Time(t), "stamp").unwrap();
    assert_eq!(
        alias,
        "use ndl_runtime::time::{DateTime64, Nanos};\n\npub type Stamp = DateTime64<Nanos>;\n"
    );
}
