//! What `#[derive(NdlType)]` describes: checked against the compiler's own
//! layout (`offset_of!`, `size_of`) and against datatypes written by hand.

use std::mem::{align_of, offset_of, size_of};

use ndl_runtime::{
    Charset, Compound, Datatype, Enum, EnumMember, FixedString, IntType, Member, NdlType, Opaque,
};

fn compound<T: NdlType>() -> Compound {
    match T::datatype() {
        Datatype::Compound(c) => c,
        other => panic!("expected a compound, got {other:?}"),
    }
}

fn members(c: &Compound) -> Vec<(&str, usize)> {
    c.members
        .iter()
        .map(|m| (m.name.as_str(), m.offset))
        .collect()
}

/// Every derived type's datatype must agree with the compiler.
fn assert_layout<T: NdlType>() {
    let dt = T::datatype();
    assert_eq!(dt.size(), Some(size_of::<T>()), "{dt:?}");
    dt.validate().unwrap();
}

#[derive(Clone, Copy, NdlType)]
#[repr(C)]
struct Reading {
    id: u32,
    t: f64,
    flags: [u8; 3],
    level: i8,
}

#[test]
fn named_struct_is_a_compound_with_real_offsets() {
    let c = compound::<Reading>();
    assert_eq!(c.size, size_of::<Reading>());
    assert_eq!(
        members(&c),
        [
            ("id", offset_of!(Reading, id)),
            ("t", offset_of!(Reading, t)),
            ("flags", offset_of!(Reading, flags)),
            ("level", offset_of!(Reading, level)),
        ]
    );
    assert_eq!(c.members[2].datatype, Datatype::UInt8.array_of(&[3]));
    assert_eq!(c.size, 24);
    assert_layout::<Reading>();
}

#[derive(Clone, Copy, NdlType)]
#[repr(C)]
struct Tuple(u8, f32, [[i16; 3]; 2]);

#[test]
fn tuple_struct_members_are_named_like_numpy() {
    let c = compound::<Tuple>();
    assert_eq!(members(&c), [("f0", 0), ("f1", 4), ("f2", 8)]);
    assert_eq!(c.members[2].datatype, Datatype::Int16.array_of(&[2, 3]));
    assert_layout::<Tuple>();
}

#[derive(Clone, Copy, NdlType)]
#[repr(C)]
struct Point {
    x: f32,
    y: f32,
}

#[derive(Clone, Copy, NdlType)]
#[repr(C)]
struct Track {
    n: u8,
    start: Point,
    path: [Point; 4],
}

#[test]
fn nested_structs_are_nested_compounds() {
    let c = compound::<Track>();
    assert_eq!(members(&c), [("n", 0), ("start", 4), ("path", 12)]);
    assert_eq!(c.members[1].datatype, Point::datatype());
    assert_eq!(c.members[2].datatype, Point::datatype().array_of(&[4]));
    assert_layout::<Track>();
}

#[derive(Clone, Copy, NdlType)]
#[repr(C, packed)]
struct Packed {
    a: u8,
    b: u64,
    c: u16,
}

#[derive(Clone, Copy, NdlType)]
#[repr(C, packed(2))]
struct Packed2 {
    a: u8,
    b: u64,
}

#[derive(Clone, Copy, NdlType)]
#[repr(C, align(32))]
struct Aligned {
    a: u8,
    b: u32,
}

#[test]
fn packed_and_aligned_layouts_stay_exact() {
    assert_eq!(
        members(&compound::<Packed>()),
        [("a", 0), ("b", 1), ("c", 9)]
    );
    assert_eq!(compound::<Packed>().size, 11);
    assert!(compound::<Packed>().is_packed());
    assert_eq!(members(&compound::<Packed2>()), [("a", 0), ("b", 2)]);
    assert_eq!(compound::<Packed2>().size, 10);
    assert_eq!(members(&compound::<Aligned>()), [("a", 0), ("b", 4)]);
    assert_eq!(compound::<Aligned>().size, 32);
    assert_eq!(align_of::<Aligned>(), 32);
    assert_layout::<Packed>();
    assert_layout::<Packed2>();
    assert_layout::<Aligned>();
}

#[derive(Clone, Copy, NdlType)]
#[repr(transparent)]
struct Kelvin(f64);

#[derive(Clone, Copy, NdlType)]
#[repr(transparent)]
struct Samples {
    values: [i32; 8],
}

#[test]
fn transparent_has_its_field_datatype() {
    assert_eq!(Kelvin::datatype(), Datatype::Float64);
    assert_eq!(Samples::datatype(), Datatype::Int32.array_of(&[8]));
}

#[derive(Clone, Copy, NdlType)]
#[repr(C)]
struct Pair<T> {
    a: T,
    b: T,
}

#[derive(Clone, Copy, NdlType)]
#[repr(C)]
struct Wrapper<T: Copy, const N: usize>
where
    T: Default,
{
    tag: u8,
    items: [T; N],
}

#[test]
fn generic_structs_get_their_bounds() {
    assert_eq!(members(&compound::<Pair<u16>>()), [("a", 0), ("b", 2)]);
    assert_eq!(members(&compound::<Pair<f64>>()), [("a", 0), ("b", 8)]);
    assert_eq!(
        compound::<Pair<Point>>().members[1].datatype,
        Point::datatype()
    );
    let w = compound::<Wrapper<u32, 5>>();
    assert_eq!(members(&w), [("tag", 0), ("items", 4)]);
    assert_eq!(w.members[1].datatype, Datatype::UInt32.array_of(&[5]));
    assert_layout::<Pair<u8>>();
    assert_layout::<Wrapper<i64, 3>>();
}

const BASE: i16 = 100;

#[derive(Clone, Copy, NdlType)]
#[repr(i16)]
enum Level {
    Low = -BASE,
    Implicit,
    Mid = 3 * 7,
    High = BASE << 2,
    Next,
}

#[derive(Clone, Copy, NdlType)]
#[repr(u8)]
enum Cloud {
    Clear,
    Cumulus,
    Stratus = 7,
}

#[derive(Clone, Copy, NdlType)]
#[repr(u64)]
enum Huge {
    Zero = 0,
    Max = u64::MAX,
}

#[test]
fn enums_have_their_base_and_every_value() {
    assert_eq!(
        Level::datatype(),
        Datatype::Enum(Enum {
            base: IntType::Int16,
            members: vec![
                EnumMember::new("Low", -100),
                EnumMember::new("Implicit", -99),
                EnumMember::new("Mid", 21),
                EnumMember::new("High", 400),
                EnumMember::new("Next", 401),
            ]
        })
    );
    assert_eq!(
        Cloud::datatype(),
        Datatype::Enum(Enum {
            base: IntType::UInt8,
            members: vec![
                EnumMember::new("Clear", 0),
                EnumMember::new("Cumulus", 1),
                EnumMember::new("Stratus", 7),
            ]
        })
    );
    let Datatype::Enum(h) = Huge::datatype() else {
        panic!()
    };
    assert_eq!(h.members[1].value, i128::from(u64::MAX));
    assert_layout::<Level>();
    assert_layout::<Cloud>();
    assert_layout::<Huge>();
}

macro_rules! enum_of_every_base {
    ($($name:ident: $t:ident => $it:ident),*) => {$(
        #[derive(Clone, Copy, NdlType)]
        #[repr($t)]
        #[allow(dead_code)]
        enum $name { A = 1, B = $t::MAX as _ }

        assert_eq!(
            $name::datatype(),
            Datatype::Enum(Enum {
                base: IntType::$it,
                members: vec![EnumMember::new("A", 1), EnumMember::new("B", i128::from($t::MAX))],
            })
        );
    )*};
}

#[test]
fn enums_of_every_base() {
    enum_of_every_base!(
        E1: u8 => UInt8, E2: u16 => UInt16, E3: u32 => UInt32, E4: u64 => UInt64,
        E5: i8 => Int8, E6: i16 => Int16, E7: i32 => Int32, E8: i64 => Int64
    );
}

#[derive(Clone, Copy, NdlType)]
#[repr(C)]
#[ndl(rename_all = "camelCase")]
struct Renamed {
    station_id: u32,
    #[ndl(rename = "T")]
    air_temperature: f32,
    r#type: u8,
}

#[derive(Clone, Copy, NdlType)]
#[repr(u8)]
#[ndl(rename_all = "SCREAMING_SNAKE_CASE")]
enum State {
    PowerOn,
    #[ndl(rename = "off")]
    PowerOff,
}

#[test]
fn renames_apply() {
    assert_eq!(
        members(&compound::<Renamed>()),
        [("stationId", 0), ("T", 4), ("type", 8)]
    );
    let Datatype::Enum(e) = State::datatype() else {
        panic!()
    };
    let names: Vec<_> = e.members.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["POWER_ON", "off"]);
}

#[derive(Clone, Copy, NdlType)]
#[repr(C)]
struct Labelled {
    #[ndl(string)]
    name: [u8; 10],
    #[ndl(string)]
    wide: [u32; 4],
    #[ndl(opaque = "image/png")]
    thumb: [u8; 16],
    #[ndl(opaque)]
    raw: [u8; 2],
}

#[test]
fn byte_arrays_as_strings_and_opaque() {
    let c = compound::<Labelled>();
    let types: Vec<_> = c.members.iter().map(|m| m.datatype.clone()).collect();
    assert_eq!(
        types,
        [
            Datatype::FixedString(FixedString {
                length: 10,
                charset: Charset::Ascii
            }),
            Datatype::FixedString(FixedString {
                length: 4,
                charset: Charset::Utf32
            }),
            Datatype::Opaque(Opaque {
                size: 16,
                tag: Some("image/png".into())
            }),
            Datatype::Opaque(Opaque { size: 2, tag: None }),
        ]
    );
    assert_layout::<Labelled>();
}

/// A weather observation.
///
/// Taken every ten minutes.
#[derive(Clone, Copy, NdlType)]
#[repr(C)]
struct Documented {
    /// Station number.
    id: u32,
    undocumented: f32,
}

#[test]
fn doc_comments_become_descriptions() {
    assert_eq!(
        Documented::description(),
        Some("A weather observation.\n\nTaken every ten minutes.")
    );
    let c = compound::<Documented>();
    assert_eq!(
        c.members[0],
        Member {
            description: Some("Station number.".into()),
            ..Member::new("id", 0, Datatype::UInt32)
        }
    );
    assert_eq!(c.members[1].description, None);
    assert_eq!(Reading::description(), None);
}

mod user_names {
    //! Generated code never breaks on user names that shadow std items.
    #![allow(non_camel_case_types, dead_code)]
    use ndl_runtime::NdlType;
    struct Option;
    struct Vec;
    struct Some;
    struct Datatype;
    mod core {}
    mod std {}

    #[derive(Clone, Copy, NdlType)]
    #[repr(C)]
    pub struct Tricky {
        pub r#struct: u8,
        pub datatype: u16,
        pub size_of: u32,
    }

    #[test]
    fn shadowed_names_compile() {
        let ::ndl_runtime::Datatype::Compound(c) = Tricky::datatype() else {
            panic!()
        };
        assert_eq!(c.members[0].name, "struct");
    }
}

mod renamed_crate {
    extern crate ndl_runtime as other_name;

    #[derive(Clone, Copy, other_name::NdlType)]
    #[repr(C)]
    #[ndl(crate = "other_name")]
    pub struct Elsewhere {
        pub a: u8,
    }

    #[test]
    fn crate_path_is_used() {
        use other_name::NdlType;
        assert_eq!(Elsewhere::datatype().size(), Some(1));
    }
}

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/fail/*.rs");
}

/// A grid cell with units and named axes.
#[derive(Clone, Copy, NdlType)]
#[repr(C)]
struct Cell {
    /// Air temperature.
    #[ndl(units = "K")]
    t: f32,
    #[ndl(dims = ["row", "col"], units = "m s-1")]
    wind: [[f32; 3]; 2],
}

#[test]
fn units_and_dims_reach_the_datatype_and_ndl() {
    let c = compound::<Cell>();
    assert_eq!(c.members[0].units.as_deref(), Some("K"));
    assert_eq!(
        c.members[0].description.as_deref(),
        Some("Air temperature.")
    );
    assert!(c.members[0].dims.is_empty());
    assert_eq!(c.members[1].dims, ["row", "col"]);
    assert_eq!(c.members[1].units.as_deref(), Some("m s-1"));
    let yaml = ndl_runtime::ndl::datatype_to_yaml(&Cell::datatype());
    assert!(
        yaml.contains("units: K") && yaml.contains("dims: [row, col]"),
        "{yaml}"
    );
    let back: Datatype = serde_yaml::from_str(&yaml).unwrap();
    assert_eq!(back, Cell::datatype());
    Cell::datatype().validate().unwrap();
}

/// A `#[derive(Record)]` struct: attributes as for `NdlType`, and fills
/// that formats see before any record is written.
mod record {
    use ndl_runtime::record::{Column, Values, columns};
    use ndl_runtime::{Datatype, Record};

    /// A measurement that may be missing.
    #[derive(Record)]
    #[ndl(rename_all = "camelCase")]
    struct Sample {
        /// Where it was taken.
        station_name: String,
        #[ndl(units = "K", fill = f64::NAN)]
        air_temperature: Option<f64>,
        #[ndl(rename = "q", fill = -1)]
        quality: Option<i8>,
        #[ndl(dims = ["axis"])]
        wind: [f32; 2],
    }

    #[test]
    fn attributes_work_as_for_ndl_type() {
        let Datatype::Compound(c) = Sample::datatype() else {
            panic!()
        };
        let names: Vec<_> = c.members.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["stationName", "airTemperature", "q", "wind"]);
        assert_eq!(
            c.members[0].description.as_deref(),
            Some("Where it was taken.")
        );
        assert_eq!(c.members[1].units.as_deref(), Some("K"));
        assert_eq!(c.members[3].dims, ["axis"]);
        assert_eq!(
            Sample::description(),
            Some("A measurement that may be missing.")
        );
    }

    #[test]
    fn fills_are_in_the_columns_of_no_records() {
        let Column::Struct { fields, .. } = columns::<Sample>(&[]) else {
            panic!()
        };
        let fill = |name: &str| match &fields.iter().find(|(n, _)| n == name).unwrap().1 {
            Column::Nullable { fill, .. } => fill.clone(),
            other => panic!("{other:?}"),
        };
        assert!(matches!(
            fill("airTemperature").as_deref(),
            Some(Column::Values { values: Values::F64(v), .. }) if v[0].is_nan()
        ));
        assert!(matches!(
            fill("q").as_deref(),
            Some(Column::Values { values: Values::I8(v), .. }) if v[..] == [-1]
        ));
    }
}

/// A record with a gap and trailing padding, as NumPy writes
/// `{'names': ['a', 'b'], 'offsets': [0, 4], 'itemsize': 12}`.
#[derive(Clone, Copy, NdlType)]
#[repr(C)]
struct Gapped {
    a: u8,
    #[ndl(padding)]
    _gap: [u8; 3],
    b: u16,
    #[ndl(padding)]
    _tail: [u8; 6],
}

#[test]
fn padding_fields_are_offsets_not_members() {
    assert_layout::<Gapped>();
    let c = compound::<Gapped>();
    assert_eq!(members(&c), [("a", 0), ("b", 4)]);
    assert_eq!(c.size, 12);
    assert!(!c.is_packed());
}
