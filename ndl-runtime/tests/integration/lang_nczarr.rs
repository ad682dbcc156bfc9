//! The NCZarr data model's rules: FQNs and their escapes, names, scopes,
//! and which datatypes NCZarr holds.

use ndl_runtime::lang::nczarr::{AtomicType, Dataset, DimRef, Fqn, escape_name};
use ndl_runtime::lang::{LangError, Language};
use ndl_runtime::{
    Charset, Compound, Datatype, Enum, EnumMember, FixedString, IntType, Opaque, Selection,
};

#[test]
fn fqns_follow_the_group_nesting_and_ignore_the_dataset_name() {
    let mut ds = Dataset::new("whatever name").unwrap();
    let root = ds.root_mut();
    let d1 = root.add_dimension("d1", 4).unwrap();
    let v = root.add_variable("v", &Datatype::Int32, vec![DimRef::Named(d1.clone())]);
    assert_eq!(v.unwrap().to_string(), "/v");
    let g1 = root.add_group("g1").unwrap();
    let g2 = g1.add_group("g2").unwrap();
    let d2 = g2.add_dimension("d2", 5).unwrap();
    let w = g2
        .add_variable(
            "w",
            &Datatype::UInt8,
            vec![
                DimRef::Named(d2.clone()),
                DimRef::Named(d1.clone()),
                DimRef::Size(7),
            ],
        )
        .unwrap();
    assert_eq!(d1.to_string(), "/d1");
    assert_eq!(d2.to_string(), "/g1/g2/d2");
    assert_eq!(w.to_string(), "/g1/g2/w");
    assert_eq!(ds.root().fqn().to_string(), "/");
    let all: Vec<String> = ds.fqns().iter().map(|f| f.to_string()).collect();
    assert_eq!(all, ["/d1", "/v", "/g1/g2/d2", "/g1/g2/w"]);
    assert_eq!(ds.dimension(&d2).unwrap().size, 5);
    assert_eq!(
        ds.group(&Fqn::parse("/g1/g2").unwrap())
            .unwrap()
            .variables()[0]
            .atomic_type,
        AtomicType::UByte
    );
    ds.validate().unwrap();
}

#[test]
fn slash_backslash_and_blank_are_escaped_and_parse_back() {
    for (raw, esc) in [
        ("a/b", r"a\/b"),
        (r"a\b", r"a\\b"),
        ("a b", r"a\ b"),
        (r" /\ ", r"\ \/\\\ "),
        ("café:#", "café:#"),
    ] {
        assert_eq!(escape_name(raw), esc);
    }
    let mut ds = Dataset::new("x").unwrap();
    let g = ds.root_mut().add_group("my/group").unwrap();
    let g = g.add_group(r"back\slash").unwrap();
    let d = g.add_dimension("a dim", 2).unwrap();
    assert_eq!(d.to_string(), r"/my\/group/back\\slash/a\ dim");
    let parsed = Fqn::parse(&d.to_string()).unwrap();
    assert_eq!(parsed, d);
    assert_eq!(parsed.segments(), ["my/group", r"back\slash", "a dim"]);
    assert_eq!(Fqn::parse("/").unwrap().segments(), [] as [String; 0]);
    for bad in ["", "x", "//", "/a/", "/a//b", r"/a\b", "/a\\", "/a\u{1}"] {
        assert!(Fqn::parse(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn names_are_non_empty_without_control_characters() {
    let mut ds = Dataset::new("x").unwrap();
    let root = ds.root_mut();
    for bad in ["", "a\u{0}", "tab\t", "nl\n", "\u{1f}"] {
        assert!(
            matches!(root.add_dimension(bad, 1), Err(LangError::BadName { .. })),
            "{bad:?}"
        );
    }
    // Everything else the spec's IDCHAR allows, including UTF-8 and punctuation.
    for good in ["x", "1st", "é", "#$%()*+:;<=>?@[]^_`|{}~", "a\u{7f}"] {
        root.add_dimension(good, 1).unwrap();
    }
    assert!(Dataset::new("").is_err());
}

#[test]
fn names_are_unique_per_group_and_kind() {
    let mut ds = Dataset::new("x").unwrap();
    let root = ds.root_mut();
    root.add_dimension("n", 1).unwrap();
    assert!(matches!(
        root.add_dimension("n", 2),
        Err(LangError::Duplicate { .. })
    ));
    // A coordinate variable shares its dimension's name.
    root.add_variable("n", &Datatype::Float64, vec![]).unwrap();
    assert!(root.add_variable("n", &Datatype::Float64, vec![]).is_err());
    assert!(root.add_group("n").is_err());
    root.add_group("g").unwrap();
    assert!(root.add_variable("g", &Datatype::Int8, vec![]).is_err());
}

#[test]
fn dimension_references_resolve_in_scope() {
    let mut ds = Dataset::new("x").unwrap();
    let a = ds.root_mut().add_group("a").unwrap();
    let da = a.add_dimension("d", 3).unwrap();
    let b = ds.root_mut().add_group("b").unwrap();
    b.add_variable("v", &Datatype::Int8, vec![DimRef::Named(da.clone())])
        .unwrap();
    // /a/d exists but /b/v cannot see it: netCDF-4 scoping.
    let err = ds.validate().unwrap_err();
    assert!(
        matches!(
            &err,
            LangError::Unresolved {
                language: Language::NcZarr,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("not in scope"), "{err}");

    let mut ds = Dataset::new("x").unwrap();
    ds.root_mut()
        .add_variable(
            "v",
            &Datatype::Int8,
            vec![DimRef::Named(Fqn::parse("/nope").unwrap())],
        )
        .unwrap();
    assert!(
        ds.validate()
            .unwrap_err()
            .to_string()
            .contains("names no dimension")
    );
}

#[test]
fn only_atomic_types_are_held() {
    let ascii = |length| {
        Datatype::FixedString(FixedString {
            length,
            charset: Charset::Ascii,
        })
    };
    for (dt, t) in [
        (Datatype::Int8, AtomicType::Byte),
        (Datatype::UInt8, AtomicType::UByte),
        (Datatype::Int16, AtomicType::Short),
        (Datatype::UInt16, AtomicType::UShort),
        (Datatype::Int32, AtomicType::Int),
        (Datatype::UInt32, AtomicType::UInt),
        (Datatype::Int64, AtomicType::Int64),
        (Datatype::UInt64, AtomicType::UInt64),
        (Datatype::Float32, AtomicType::Float),
        (Datatype::Float64, AtomicType::Double),
        (ascii(1), AtomicType::Char),
        (Datatype::String, AtomicType::String),
    ] {
        assert_eq!(AtomicType::try_from(&dt).unwrap(), t, "{dt:?}");
    }
    let rejected = [
        (Datatype::Bool, "bool"),
        (Datatype::Float16, "float16"),
        (Datatype::Complex64, "complex"),
        (ascii(8), "dimension"),
        (
            Datatype::FixedString(FixedString {
                length: 1,
                charset: Charset::Utf32,
            }),
            "UTF-32",
        ),
        (
            Datatype::Compound(Compound::c_layout([("a", Datatype::Int8)]).unwrap()),
            "user-defined",
        ),
        (
            Datatype::Enum(Enum {
                base: IntType::UInt8,
                members: vec![EnumMember::new("A", 0)],
            }),
            "user-defined",
        ),
        (
            Datatype::Opaque(Opaque { size: 4, tag: None }),
            "user-defined",
        ),
        (Datatype::Vlen(Box::new(Datatype::Int8)), "user-defined"),
        (Datatype::Int8.array_of(&[2]), "dimensions"),
        (Datatype::ObjRef, "reference"),
        (Datatype::RegRef(Selection::Block), "reference"),
    ];
    let mut ds = Dataset::new("x").unwrap();
    for (dt, why) in rejected {
        let err = ds.root_mut().add_variable("v", &dt, vec![]).unwrap_err();
        match &err {
            LangError::Unsupported {
                language: Language::NcZarr,
                path,
                why: w,
                ..
            } => {
                assert_eq!(path, &["v"]);
                assert!(w.contains(why), "{dt:?}: {w}");
            }
            other => panic!("{dt:?}: {other:?}"),
        }
    }
    assert!(ds.root().variables().is_empty());
}
