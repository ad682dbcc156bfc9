//! Our CDL compiles with `ncgen -k nc4`, and `ncdump -h` of the result
//! prints exactly our text. Fails (never skips) without netcdf-bin.

use ndl_runtime::lang::LangError;
use ndl_runtime::lang::cdl::{Document, type_definitions};
use ndl_runtime::{
    Charset, Compound, Datatype, Enum, EnumMember, FixedString, IntType, Member, Opaque, Selection,
};
use ndl_testkit::netcdf::{compile_cdl, try_ncgen};

fn ascii(length: usize) -> Datatype {
    Datatype::FixedString(FixedString {
        length,
        charset: Charset::Ascii,
    })
}

fn record() -> Datatype {
    let pos = Datatype::Compound(
        Compound::c_layout([("lat", Datatype::Float32), ("lon", Datatype::Float32)]).unwrap(),
    );
    let cloud = Datatype::Enum(Enum {
        base: IntType::UInt8,
        members: vec![
            EnumMember::new("Clear", 0),
            EnumMember::new("Cumulus", 1),
            EnumMember::new("Stratus", 2),
        ],
    });
    Datatype::Compound(
        Compound::c_layout([
            ("flag", Datatype::UInt8),
            ("value", Datatype::Float64),
            ("code", ascii(4)),
            ("mat", Datatype::Int16.array_of(&[2, 3])),
            ("pos", pos.clone()),
            ("cloud", cloud),
            (
                "id",
                Datatype::Opaque(Opaque {
                    size: 16,
                    tag: Some("uuid".into()),
                }),
            ),
            ("ok", Datatype::Bool),
            ("z", Datatype::Complex64),
            ("z2", Datatype::Complex64),
            ("zz", Datatype::Complex128),
            ("track", pos.array_of(&[3])),
            ("names", ascii(8).array_of(&[2])),
            ("i64", Datatype::Int64),
            ("u", Datatype::UInt64),
        ])
        .unwrap(),
    )
}

/// The document `ncdump -h` must print, written by hand in its format.
const EXPECTED: &str = "netcdf recs {
types:
  compound pos_t {
    float lat ;
    float lon ;
  }; // pos_t
  ubyte enum cloud_t {Clear = 0, Cumulus = 1, Stratus = 2} ;
  opaque(16) id_t ;
  byte enum bool_t {FALSE = 0, TRUE = 1} ;
  compound _PFNC_FLOAT_COMPLEX_TYPE {
    float r ;
    float i ;
  }; // _PFNC_FLOAT_COMPLEX_TYPE
  compound _PFNC_DOUBLE_COMPLEX_TYPE {
    double r ;
    double i ;
  }; // _PFNC_DOUBLE_COMPLEX_TYPE
  int(*) ragged_t ;
  compound rec_t {
    ubyte flag ;
    double value ;
    char code(4) ;
    short mat(2, 3) ;
    pos_t pos ;
    cloud_t cloud ;
    id_t id ;
    bool_t ok ;
    _PFNC_FLOAT_COMPLEX_TYPE z ;
    _PFNC_FLOAT_COMPLEX_TYPE z2 ;
    _PFNC_DOUBLE_COMPLEX_TYPE zz ;
    pos_t track(3) ;
    char names(2, 8) ;
    int64 i64 ;
    uint64 u ;
  }; // rec_t
  pos_t(*) pos_list_t ;
dimensions:
\tn = 3 ;
\tt = UNLIMITED ; // (0 currently)
variables:
\trec_t recs(n) ;
\trec_t more(t, n) ;
\tragged_t samples(n) ;
\tpos_list_t tracks(t) ;
\tstring str(n) ;
\tdouble x ;
\tcloud_t sky(n) ;
}
";

fn document() -> Document {
    let rec = record();
    let mut doc = Document::new("recs").unwrap();
    doc.add_dimension("n", Some(3)).unwrap();
    doc.add_dimension("t", None).unwrap();
    doc.add_variable("recs", &rec, "rec_t", &["n"]).unwrap();
    doc.add_variable("more", &rec, "rec_t", &["t", "n"])
        .unwrap();
    doc.add_variable(
        "samples",
        &Datatype::Vlen(Box::new(Datatype::Int32)),
        "ragged_t",
        &["n"],
    )
    .unwrap();
    let Datatype::Compound(c) = &rec else {
        unreachable!()
    };
    let pos = c.member("pos").unwrap().datatype.clone();
    doc.add_variable(
        "tracks",
        &Datatype::Vlen(Box::new(pos)),
        "pos_list_t",
        &["t"],
    )
    .unwrap();
    doc.add_variable("str", &Datatype::String, "unused", &["n"])
        .unwrap();
    doc.add_variable("x", &Datatype::Float64, "unused", &[])
        .unwrap();
    let cloud = c.member("cloud").unwrap().datatype.clone();
    // The same enum again under the name it already has: shared.
    doc.add_variable("sky", &cloud, "cloud_t", &["n"]).unwrap();
    doc
}

#[test]
fn a_document_compiles_and_dumps_exactly_as_written() {
    let doc = document().to_string();
    assert_eq!(doc, EXPECTED);
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(compile_cdl(&doc, dir.path(), "recs"), EXPECTED);
}

#[test]
fn type_definitions_are_the_types_section() {
    let defs = type_definitions("rec_t", &record()).unwrap();
    let start = EXPECTED.find("  compound pos_t").unwrap();
    let end = EXPECTED.find("  int(*) ragged_t").unwrap();
    let rec_start = EXPECTED.find("  compound rec_t").unwrap();
    let rec_end = EXPECTED.find("  pos_t(*) pos_list_t").unwrap();
    let expected = format!("{}{}", &EXPECTED[start..end], &EXPECTED[rec_start..rec_end]);
    assert_eq!(defs, expected);
    assert_eq!(type_definitions("x", &Datatype::Int32).unwrap(), "");
}

#[test]
fn awkward_names_are_escaped_the_cdl_way() {
    let inner = Datatype::Compound(
        Compound::c_layout([("x y", Datatype::Int8), ("x#1", Datatype::Int8)]).unwrap(),
    );
    let e = Datatype::Enum(Enum {
        base: IntType::Int16,
        members: vec![
            EnumMember::new("a b", -1),
            EnumMember::new("1st", 0),
            EnumMember::new("TRUE", 1),
        ],
    });
    let rec = Datatype::Compound(
        Compound::c_layout([
            ("my field", inner),
            ("1st", Datatype::Int32),
            ("a:b", e),
            (r"back\slash", Datatype::Float32),
            ("café", Datatype::Float64),
            ("paren(x)", Datatype::UInt16),
            ("dash-ok", Datatype::Int8),
            ("dot.ok", Datatype::Int8),
            ("at@ok+", Datatype::Int8),
            ("INT", Datatype::Int8),
            ("a%b", Datatype::Int8),
            ("types", Datatype::Int8),
            ("_x", Datatype::Int8),
        ])
        .unwrap(),
    );
    let mut doc = Document::new("names").unwrap();
    doc.add_dimension("dim 1", Some(2)).unwrap();
    doc.add_variable("var 1", &rec, "weird name_t", &["dim 1"])
        .unwrap();
    let ours = doc.to_string();
    let expected = "netcdf names {
types:
  compound my\\ field_t {
    byte x\\ y ;
    byte x\\#1 ;
  }; // my\\ field_t
  short enum a\\:b_t {a\\ b = -1, \\1st = 0, TRUE = 1} ;
  compound weird\\ name_t {
    my\\ field_t my\\ field ;
    int \\1st ;
    a\\:b_t a\\:b ;
    float back\\\\slash ;
    double café ;
    ushort paren\\(x\\) ;
    byte dash-ok ;
    byte dot.ok ;
    byte at@ok+ ;
    byte INT ;
    byte a\\%b ;
    byte types ;
    byte _x ;
  }; // weird\\ name_t
dimensions:
\tdim\\ 1 = 2 ;
variables:
\tweird\\ name_t var\\ 1(dim\\ 1) ;
}
";
    assert_eq!(ours, expected);
    let dir = tempfile::tempdir().unwrap();
    let dump = compile_cdl(&ours, dir.path(), "names");
    // ncdump prints `%` bare, which ncgen itself rejects; we escape it.
    assert_eq!(dump, expected.replace("\\%", "%"));
    let bare_percent = ours.replace("\\%", "%");
    assert!(
        try_ncgen(&bare_percent, dir.path(), "bare").is_err(),
        "ncgen accepted a bare `%`; the escape would be unnecessary"
    );
}

fn long_enum(prefix: &str, n: usize) -> Datatype {
    Datatype::Enum(Enum {
        base: IntType::Int32,
        members: (0..n)
            .map(|i| EnumMember::new(format!("{prefix}_member_number_{i}"), i as i128 * 1000))
            .collect(),
    })
}

#[test]
fn long_enums_wrap_where_ncdump_wraps_them() {
    let rec = Datatype::Compound(
        Compound::c_layout([
            ("first", long_enum("alpha", 7)),
            ("second", long_enum("b", 5)),
            ("third", long_enum("gamma_gamma_gamma", 3)),
            ("fourth", long_enum("d", 1)),
            (
                "fifth",
                Datatype::Enum(Enum {
                    base: IntType::UInt8,
                    // 2 + 15 + 25 + 38 = 80 > 78 with the indent, 78 without.
                    members: vec![
                        EnumMember::new("a".repeat(19), 0),
                        EnumMember::new("m".repeat(30), 1),
                    ],
                }),
            ),
        ])
        .unwrap(),
    );
    let mut doc = Document::new("wrap").unwrap();
    doc.add_variable("v", &rec, "rec_t", &[]).unwrap();
    let ours = doc.to_string();
    assert!(
        ours.contains(",\n      ") || ours.contains(", \n      "),
        "{ours}"
    );
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(compile_cdl(&ours, dir.path(), "wrap"), ours);

    // The very first enum is measured from column 0 (78 bytes fit).
    let first = Datatype::Enum(Enum {
        base: IntType::Int8,
        members: vec![
            EnumMember::new("a".repeat(19), 0),
            EnumMember::new("m".repeat(30), 1),
        ],
    });
    let mut doc = Document::new("first").unwrap();
    doc.add_variable("v", &first, "e_t", &[]).unwrap();
    let ours = doc.to_string();
    assert!(ours.contains(&format!("{} = 1}} ;\n", "m".repeat(30))) && !ours.contains("\n      "));
    assert_eq!(compile_cdl(&ours, dir.path(), "first"), ours);
}

#[test]
fn colliding_derived_names_get_a_number() {
    let p1 = Datatype::Compound(Compound::c_layout([("x", Datatype::Int8)]).unwrap());
    let p2 = Datatype::Compound(Compound::c_layout([("y", Datatype::Int8)]).unwrap());
    let a = Datatype::Compound(Compound::c_layout([("p", p1.clone())]).unwrap());
    let b = Datatype::Compound(Compound::c_layout([("p", p2)]).unwrap());
    let c = Datatype::Compound(Compound::c_layout([("p", p1)]).unwrap());
    // The root is named `p_t` too: the caller's name wins. `c` has the
    // same structure as `a`, so it shares `a_t`.
    let rec = Datatype::Compound(Compound::c_layout([("a", a), ("b", b), ("c", c)]).unwrap());
    let defs = type_definitions("p_t", &rec).unwrap();
    let expected = "  compound p_2_t {
    byte x ;
  }; // p_2_t
  compound p_3_t {
    byte y ;
  }; // p_3_t
  compound a_t {
    p_2_t p ;
  }; // a_t
  compound b_t {
    p_3_t p ;
  }; // b_t
  compound p_t {
    a_t a ;
    b_t b ;
    a_t c ;
  }; // p_t
";
    assert_eq!(defs, expected);
    let dir = tempfile::tempdir().unwrap();
    let mut doc = Document::new("collide").unwrap();
    doc.add_variable("v", &rec, "p_t", &[]).unwrap();
    let ours = doc.to_string();
    assert_eq!(compile_cdl(&ours, dir.path(), "collide"), ours);
}

#[test]
fn reserved_words_really_are_unusable_in_ncgen() {
    // Why a member named `float` is printed bare: no spelling gets it through.
    let dir = tempfile::tempdir().unwrap();
    for field in ["float", "\\float", "int", "NaN"] {
        let cdl = format!(
            "netcdf r {{\ntypes:\n  compound c_t {{\n    int {field} ;\n  }}; // c_t\n}}\n"
        );
        assert!(
            try_ncgen(&cdl, dir.path(), "r").is_err(),
            "ncgen accepted a field named {field}"
        );
    }
}

#[test]
fn what_cdl_cannot_hold_is_a_clear_error() {
    let member = |name: &str, dt: Datatype| {
        Datatype::Compound(Compound {
            size: dt.size().unwrap_or(0),
            members: vec![Member::new(name, 0, dt)],
        })
    };
    for bad_name in ["", "a/b", "x ", "#x", "tab\t"] {
        let err = type_definitions("r_t", &member(bad_name, Datatype::Int8)).unwrap_err();
        assert!(
            matches!(err, LangError::BadName { .. }),
            "{bad_name:?}: {err}"
        );
    }
    for (dt, what) in [
        (Datatype::Float16, "16-bit"),
        (
            Datatype::FixedString(FixedString {
                length: 2,
                charset: Charset::Utf32,
            }),
            "UTF-32",
        ),
        (Datatype::Opaque(Opaque { size: 0, tag: None }), "opaque"),
        (
            Datatype::Enum(Enum {
                base: IntType::Int8,
                members: vec![],
            }),
            "at least one member",
        ),
    ] {
        let err = type_definitions("r_t", &member("m", dt)).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("member `m`") && text.contains(what), "{text}");
    }
    for dt in [Datatype::ObjRef, Datatype::RegRef(Selection::Block)] {
        assert!(type_definitions("r_t", &dt).is_err());
    }
    assert!(type_definitions("r_t", &Datatype::Int8.array_of(&[2])).is_err());
    assert!(type_definitions("r_t", &ascii(3)).is_err());
    assert!(
        type_definitions(
            "r_t",
            &Datatype::Compound(Compound {
                size: 0,
                members: vec![]
            })
        )
        .is_err()
    );
    assert!(type_definitions("v_t", &Datatype::Vlen(Box::new(ascii(3)))).is_err());

    let mut doc = Document::new("d").unwrap();
    doc.add_dimension("n", Some(2)).unwrap();
    assert!(matches!(
        doc.add_dimension("n", Some(3)),
        Err(LangError::Duplicate { .. })
    ));
    assert!(matches!(
        doc.add_dimension("z", Some(0)),
        Err(LangError::Shape { .. })
    ));
    assert!(matches!(
        doc.add_variable("v", &Datatype::Int8, "", &["m"]),
        Err(LangError::Unresolved { .. })
    ));
    doc.add_variable("v", &Datatype::Int8, "", &["n"]).unwrap();
    assert!(matches!(
        doc.add_variable("v", &Datatype::Int8, "", &["n"]),
        Err(LangError::Duplicate { .. })
    ));
    let a = member("x", Datatype::Int8);
    let b = member("y", Datatype::Int8);
    doc.add_variable("a", &a, "t_t", &[]).unwrap();
    assert!(matches!(
        doc.add_variable("b", &b, "t_t", &[]),
        Err(LangError::Duplicate { .. })
    ));
}

#[test]
fn text_variables_are_strings_or_char_arrays_as_ncdump_prints_them() {
    let utf32 = |length| {
        Datatype::FixedString(FixedString {
            length,
            charset: Charset::Utf32,
        })
    };
    let mut doc = Document::new("text").unwrap();
    doc.add_dimension("n", Some(2)).unwrap();
    doc.add_dimension("m", Some(3)).unwrap();
    doc.add_variable("u", &utf32(5), "u_t", &["n"]).unwrap();
    doc.add_variable("u2", &utf32(2), "u2_t", &["n", "m"])
        .unwrap();
    doc.add_variable("s", &ascii(5), "s_t", &["n"]).unwrap();
    doc.add_variable("s2", &ascii(5), "s2_t", &["n", "m"])
        .unwrap();
    doc.add_variable("c", &ascii(1), "c_t", &["n"]).unwrap();
    let ours = doc.to_string();
    assert_eq!(
        ours,
        "netcdf text {\ndimensions:\n\tn = 2 ;\n\tm = 3 ;\n\tstring5 = 5 ;\nvariables:\n\
         \tstring u(n) ;\n\tstring u2(n, m) ;\n\tchar s(n, string5) ;\n\
         \tchar s2(n, m, string5) ;\n\tchar c(n) ;\n}\n"
    );
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(compile_cdl(&ours, dir.path(), "text"), ours);

    // A dimension of that name but another size is an error, not a lie.
    let mut doc = Document::new("clash").unwrap();
    doc.add_dimension("string5", Some(4)).unwrap();
    assert!(matches!(
        doc.add_variable("s", &ascii(5), "s_t", &["string5"]),
        Err(LangError::Shape { .. })
    ));
}

/// netCDF-C lets any of CDL's keywords name a variable, a dimension, an
/// attribute, a compound member or an enum member, and ncdump prints them
/// bare. ncgen 4.9 reads no spelling of them (its lexer takes a
/// backslash before punctuation and digits only), so we print what
/// ncdump prints and say so in a comment.
#[test]
fn keyword_names_print_as_ncdump_prints_them() {
    let dir = tempfile::tempdir().unwrap();
    let nc = dir.path().join("keywords.nc");
    ndl_testkit::python::run_with(
        &ndl_testkit::python::python312(),
        r#"
import sys, numpy as np, netCDF4
d = netCDF4.Dataset(sys.argv[1], "w")
d.createDimension("float", 2)
rec = d.createCompoundType(np.dtype([("int", "<i4"), ("x", "<f8")]), "rec_t")
for name in ["byte", "string"]:
    v = d.createVariable(name, "i4", ("float",))
    v.setncattr("NaN", 1)
d.createVariable("compound", rec, ("float",))
d.close()
"#,
        &[nc.to_str().unwrap()],
    );
    let dump = std::process::Command::new("ncdump")
        .arg("-h")
        .arg(&nc)
        .output()
        .expect("ncdump (Debian package netcdf-bin)");
    assert!(dump.status.success());
    let dump = String::from_utf8(dump.stdout).unwrap();

    let rec = Datatype::Compound(
        Compound::c_layout([("int", Datatype::Int32), ("x", Datatype::Float64)]).unwrap(),
    );
    let mut doc = Document::new("keywords").unwrap();
    doc.add_dimension("float", Some(2)).unwrap();
    for name in ["byte", "string"] {
        doc.add_variable(name, &Datatype::Int32, "", &["float"])
            .unwrap();
        doc.add_attribute(
            Some(name),
            "NaN",
            ndl_runtime::lang::cdl::AttrValue::Ints(IntType::Int64, vec![1]),
        )
        .unwrap();
    }
    doc.add_variable("compound", &rec, "rec_t", &["float"])
        .unwrap();
    let ours = doc.to_string();
    let (comment, body) = ours.split_once('\n').unwrap();
    assert_eq!(
        comment,
        "// ncgen reads these names as CDL keywords in every spelling: int, float, byte, \
         string, compound, NaN"
    );
    assert_eq!(body, dump);
    assert!(try_ncgen(&ours, dir.path(), "again").is_err());
}

/// Compound attributes print as ncdump prints them (a record too long for
/// the line on a line of its own), and ncgen compiles them back
/// to the same text; enum members print by name, arrays and nested records
/// in braces. (No `char` member: ncgen 4.9.0 misplaces the records after
/// the first of such an attribute.)
#[test]
fn compound_attributes_compile_and_dump_as_written() {
    use ndl_runtime::lang::cdl::{AttrValue, MemberValue as M};
    let pos = Datatype::Compound(
        Compound::c_layout([("lat", Datatype::Float32), ("lon", Datatype::Float32)]).unwrap(),
    );
    let cloud = Datatype::Enum(Enum {
        base: IntType::UInt8,
        members: vec![EnumMember::new("Clear", 0), EnumMember::new("Cumulus", 1)],
    });
    let rec = Datatype::Compound(
        Compound::c_layout([
            ("flag", Datatype::UInt8),
            ("value", Datatype::Float64),
            ("mat", Datatype::Int16.array_of(&[2, 3])),
            ("pos", pos),
            ("cloud", cloud),
            ("i64", Datatype::Int64),
        ])
        .unwrap(),
    );
    let one = |k: i128| {
        M::Record(vec![
            M::Int(k),
            M::Float(k as f64 / 3.0),
            M::List((0..6).map(M::Int).collect()),
            M::Record(vec![M::Float(0.5), M::Float(f64::NAN)]),
            M::Int(k % 2),
            M::Int(-(1 << 40)),
        ])
    };
    let mut doc = Document::new("attrs").unwrap();
    doc.add_dimension("n", Some(2)).unwrap();
    doc.add_variable("v", &Datatype::Int32, "v_t", &["n"])
        .unwrap();
    let value = |records| AttrValue::Compound {
        type_name: "rec_t".into(),
        datatype: rec.clone(),
        records,
    };
    doc.add_attribute(Some("v"), "recs", value(vec![one(1), one(2)]))
        .unwrap();
    doc.add_attribute(None, "one", value(vec![one(0)])).unwrap();
    let text = doc.to_string();
    assert!(
        text.contains(
            "\t\trec_t v:recs = \n    {1, 0.333333333333333, {0, 1, 2, 3, 4, 5}, {0.5, NaNf}, \
             Cumulus, -1099511627776}, \n    {2, "
        ),
        "{text}"
    );
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(compile_cdl(&text, dir.path(), "attrs"), text);
    // A record without the type's members is refused, not printed.
    let wrong = doc.add_attribute(None, "bad", value(vec![M::Record(vec![M::Int(1)])]));
    assert!(
        wrong
            .unwrap_err()
            .to_string()
            .contains("does not have the members of its compound type")
    );
}
