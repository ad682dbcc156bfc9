//! What `#[derive(Record)]` describes: `string`, `vlen`, `optional` and
//! variable compounds, printed as NDL YAML and parsed back.

use ndl_runtime::time::{DateTime64, Nanos};
use ndl_runtime::{Compound, Datatype, FixedStr, IntType, NdlType, Record};

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(u8)]
enum Side {
    Buy = 1,
    Sell = 2,
}

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Point {
    x: f32,
    y: f32,
}

/// Where a trade happened.
#[derive(Debug, PartialEq, Record)]
struct Venue {
    code: String,
    id: u16,
}

/// Every kind of field a record takes.
#[derive(Debug, PartialEq, Record)]
#[ndl(rename_all = "camelCase")]
struct Trade {
    trade_id: u64,
    /// The ticker.
    symbol: String,
    name: Box<str>,
    #[ndl(units = "USD")]
    price: f64,
    side: Side,
    at: DateTime64<Nanos>,
    code: FixedStr<4>,
    at_point: Point,
    corners: [f32; 2],
    #[ndl(fill = -1)]
    venue_id: Option<i32>,
    note: Option<String>,
    levels: Vec<f32>,
    tags: Vec<String>,
    samples: Box<[u8]>,
    names: [String; 2],
    #[ndl(rename = "where")]
    venue: Venue,
    venues: Vec<Option<Venue>>,
    flag: bool,
}

fn compound<T: Record>() -> Compound {
    match T::datatype() {
        Datatype::Compound(c) => c,
        other => panic!("expected a compound, got {other:?}"),
    }
}

#[test]
fn every_kind_of_field_has_its_datatype() {
    let c = compound::<Trade>();
    assert!(c.is_variable());
    assert_eq!(Trade::datatype().size(), None);
    let dt = |name: &str| {
        c.member(name)
            .unwrap_or_else(|| panic!("{name}"))
            .datatype
            .clone()
    };
    assert_eq!(dt("tradeId"), Datatype::UInt64);
    assert_eq!(dt("symbol"), Datatype::String);
    assert_eq!(dt("name"), Datatype::String);
    assert_eq!(dt("side"), <Side as NdlType>::datatype());
    assert_eq!(dt("at"), <DateTime64<Nanos> as NdlType>::datatype());
    assert_eq!(dt("code"), <FixedStr<4> as NdlType>::datatype());
    assert_eq!(dt("atPoint"), <Point as NdlType>::datatype());
    assert_eq!(dt("corners"), Datatype::Float32.array_of(&[2]));
    assert_eq!(dt("venueId"), Datatype::Optional(Box::new(Datatype::Int32)));
    assert_eq!(dt("note"), Datatype::Optional(Box::new(Datatype::String)));
    assert_eq!(dt("levels"), Datatype::Vlen(Box::new(Datatype::Float32)));
    assert_eq!(dt("tags"), Datatype::Vlen(Box::new(Datatype::String)));
    assert_eq!(dt("samples"), Datatype::Vlen(Box::new(Datatype::UInt8)));
    assert_eq!(dt("names"), Datatype::String.array_of(&[2]));
    assert_eq!(dt("where"), Venue::datatype());
    assert_eq!(
        dt("venues"),
        Datatype::Vlen(Box::new(Datatype::Optional(Box::new(Venue::datatype()))))
    );
    assert_eq!(dt("flag"), Datatype::Bool);
    assert_eq!(
        c.member("symbol").unwrap().description.as_deref(),
        Some("The ticker.")
    );
    assert_eq!(c.member("price").unwrap().units.as_deref(), Some("USD"));
    assert_eq!(
        Trade::description(),
        Some("Every kind of field a record takes.")
    );
    assert!(c.members.iter().all(|m| m.offset == 0));
    assert_eq!(Trade::datatype().validate(), Ok(()));
    assert_eq!(Trade::plain(), None);
    assert_eq!(Point::plain(), Some(<Point as NdlType>::datatype()));
    assert_eq!(<[u16; 3]>::plain(), Some(Datatype::UInt16.array_of(&[3])));
    assert_eq!(<[String; 3]>::plain(), None);
    assert_eq!(Side::plain().and_then(|d| d.as_int()), None);
    assert!(matches!(Side::plain(), Some(Datatype::Enum(e)) if e.base == IntType::UInt8));
}

#[test]
fn a_record_of_fixed_fields_is_laid_out_as_repr_c() {
    #[derive(Record)]
    struct Fixed {
        a: u8,
        b: f64,
    }
    let c = compound::<Fixed>();
    assert!(!c.is_variable());
    assert_eq!(c.members[1].offset, 8);
    assert_eq!(c.size, 16);
    assert_eq!(
        Fixed::plain(),
        None,
        "a Record struct is never plain: Rust may reorder it"
    );
}

#[test]
fn the_datatype_prints_as_ndl_and_parses_back() {
    let yaml = serde_yaml::to_string(&Trade::datatype()).unwrap();
    assert!(yaml.contains("optional:"), "{yaml}");
    assert!(yaml.contains("vlen:"), "{yaml}");
    assert!(yaml.contains("symbol:\n    type: string"), "{yaml}");
    let value: serde_yaml::Value = serde_yaml::from_str(&yaml).unwrap();
    assert_eq!(
        value.get("size"),
        None,
        "a variable compound has no size:\n{yaml}"
    );
    for entry in value["compound"].as_sequence().unwrap() {
        let (_, member) = entry.as_mapping().unwrap().iter().next().unwrap();
        assert_eq!(member.get("offset"), None, "nor offsets:\n{yaml}");
    }
    let back: Datatype = serde_yaml::from_str(&yaml).unwrap();
    assert_eq!(back, Trade::datatype());
}

#[test]
fn a_variable_compound_with_a_layout_is_refused_by_name() {
    let e = serde_yaml::from_str::<Datatype>("compound:\n  - a: {type: string, offset: 8}\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("member `a` has an offset") && e.contains("no layout"),
        "{e}"
    );
    let e = serde_yaml::from_str::<Datatype>("compound:\n  - a: string\nsize: 8\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("size 8"), "{e}");
    let hand = Compound {
        size: 0,
        members: vec![ndl_runtime::Member::new("a", 4, Datatype::String)],
    };
    assert!(Datatype::Compound(hand).validate().is_err());
    assert!(Compound::variable([ndl_runtime::Member::new("a", 4, Datatype::UInt8)]).is_err());
}

#[test]
fn an_optional_is_datashape_option_and_refused_by_name_where_formats_have_none() {
    let dt = Datatype::Optional(Box::new(Datatype::Int32));
    assert_eq!(dt.to_datashape(), "?int32");
    assert_eq!(
        Datatype::Vlen(Box::new(Datatype::Optional(Box::new(Datatype::String)))).to_datashape(),
        "var * ?string"
    );
    let zarr = dt.to_zarr_v3_data_type().unwrap_err().to_string();
    assert!(zarr.contains("optional"), "{zarr}");
    let yaml = serde_yaml::to_string(&dt).unwrap();
    assert_eq!(yaml, "optional:\n  base: int32\n");
    assert_eq!(serde_yaml::from_str::<Datatype>(&yaml).unwrap(), dt);
}
