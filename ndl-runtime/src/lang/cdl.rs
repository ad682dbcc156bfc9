//! netCDF-4 CDL: user-defined type definitions exactly as `ncdump -h`
//! prints them, and a small document builder (`netcdf name { types:
//! dimensions: variables: }`) that `ncgen -k nc4` compiles.
//!
//! | Datatype | CDL |
//! | --- | --- |
//! | `int8` `uint8` `int16` `uint16` `int32` `uint32` `int64` `uint64` | `byte` `ubyte` `short` `ushort` `int` `uint` `int64` `uint64` |
//! | `float32` / `float64` / `string` | `float` / `double` / `string` |
//! | `bool` | `byte enum bool_t {FALSE = 0, TRUE = 1} ;` (the h5py convention, so h5py reads it back as bool) |
//! | `complex64` / `complex128` | the nc-complex compounds `_PFNC_FLOAT_COMPLEX_TYPE` / `_PFNC_DOUBLE_COMPLEX_TYPE` with fields `r`, `i` |
//! | `enum` | `<base> enum <name> {A = 0, ...} ;` |
//! | `opaque` of `n` bytes | `opaque(n) <name> ;` (the tag is dropped) |
//! | `vlen` of `T` | `T(*) <name> ;` |
//! | `compound` | `compound <name> { ... }; // <name>` |
//! | array member of shape `(a, b)` | `T member(a, b) ;` |
//! | fixed ASCII string of `n` as a member | `char member(n) ;` |
//!
//! Errors: `float16`, UTF-32 strings, references, empty compounds and
//! enums, `opaque(0)`, a vlen of a fixed string or an array, and a
//! fixed string, array or `float16` used as a whole type (netCDF spells
//! those with dimensions of a variable).
//!
//! **Names.** The root type's name is the one given; a nested compound,
//! enum, opaque or vlen is named after its member, `<member>_t` (a vlen's
//! element `<member>_elem_t`), with `_2`, `_3` … inserted before `_t` when
//! that name already holds a different definition. A nested type identical
//! to one already defined is that type (structural sharing); the root type
//! always gets the name given. Names are checked as netCDF-C's `NC_check_name` does (not
//! empty, at most 256 bytes, no `/`, no control characters, no trailing
//! space, first character a letter, digit, `_` or non-ASCII) and CDL's
//! reserved words (`int`, `float`, `string`, `compound`, `NaN`, ...) are
//! refused, since `ncgen` has no escape for them. Names are escaped like
//! `ncdump` does, plus `%`, which `ncdump` leaves bare although `ncgen`
//! rejects a bare `%`.
//!
//! **Layout.** CDL has no offsets: `ncgen` lays compounds out with C
//! alignment. A compound's padding is therefore not described; a
//! `#[repr(C)]` record gets the same layout back, a packed or hand-placed
//! one does not.
//!
//! **Order.** `ncgen` sorts type definitions (first those built only from
//! primitive types, in order, then the rest as their dependencies allow) and
//! `ncdump` prints them in that order; the output is sorted the same way, so
//! it reproduces `ncdump -h` text, including where `ncdump` wraps long enum
//! lines.

use std::collections::HashSet;
use std::fmt;

use crate::lang::{child, LangError, Language};
use crate::{Charset, Datatype, EnumMember, IntType};

/// Words `ncgen` always reads as keywords, whatever escaping: they can
/// never name anything in CDL.
const RESERVED: [&str; 39] = [
    "byte",
    "char",
    "short",
    "int",
    "long",
    "integer",
    "float",
    "real",
    "double",
    "ubyte",
    "ushort",
    "uint",
    "ulong",
    "uinteger",
    "int64",
    "uint64",
    "string",
    "compound",
    "struct",
    "structure",
    "enum",
    "opaque",
    "unlimited",
    "UNLIMITED",
    "netcdf",
    "NETCDF",
    "netCDF",
    "NaN",
    "nan",
    "NaNf",
    "nanf",
    "Infinity",
    "Infinityf",
    "Inff",
    "DoubleInf",
    "FloatInf",
    "NIL",
    "nil",
    "Nil",
];

/// netCDF's `NC_MAX_NAME`, in bytes.
const MAX_NAME: usize = 256;

/// `ncdump` wraps enum lines longer than its default 80 columns minus 2.
const MAX_LINE: usize = 78;

/// Checks that `name` can name a netCDF object in CDL and returns it
/// escaped as `ncdump` prints it (and `%` escaped too, see the module
/// documentation). `role` says what the name names, for the error.
///
/// ```
/// use ndl_runtime::lang::cdl::escape_name;
///
/// assert_eq!(escape_name("my field", "variable").unwrap(), r"my\ field");
/// assert_eq!(escape_name("1st", "variable").unwrap(), r"\1st");
/// assert_eq!(escape_name("café.x-y", "variable").unwrap(), "café.x-y");
/// assert!(escape_name("float", "variable").is_err());
/// assert!(escape_name("a/b", "variable").is_err());
/// ```
pub fn escape_name(name: &str, role: &'static str) -> Result<String, LangError> {
    check_name(name, role)?;
    let mut out = String::with_capacity(name.len() + 2);
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        out.push('\\');
    }
    for c in name.chars() {
        if " !\"#$%&'()*,:;<=>?[\\]^`{|}~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    Ok(out)
}

fn check_name(name: &str, role: &'static str) -> Result<(), LangError> {
    let bad = |why: &str| {
        Err(LangError::BadName {
            language: Language::Cdl,
            role,
            name: name.to_string(),
            why: why.to_string(),
        })
    };
    let Some(first) = name.chars().next() else {
        return bad("netCDF names are not empty");
    };
    if name.len() > MAX_NAME {
        return bad("netCDF names are at most 256 bytes (NC_MAX_NAME)");
    }
    if name.contains('/') {
        return bad("`/` separates groups in netCDF names and cannot be escaped");
    }
    if name.chars().any(|c| c.is_ascii_control()) {
        return bad("netCDF names contain no control characters");
    }
    if !(first.is_ascii_alphanumeric() || first == '_' || !first.is_ascii()) {
        return bad("netCDF names start with a letter, a digit, `_` or a non-ASCII character");
    }
    if name.ends_with(' ') {
        return bad("netCDF names do not end with a space");
    }
    if RESERVED.contains(&name) {
        return bad("it is a CDL keyword, which ncgen cannot read as a name in any spelling");
    }
    Ok(())
}

/// A reference to a type: a CDL primitive or a defined type's raw name.
#[derive(Clone, Debug, PartialEq, Eq)]
enum TypeRef {
    Prim(&'static str),
    Named(String),
}

/// One compound field: its type, raw name and fixed dimensions.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Field {
    ty: TypeRef,
    name: String,
    dims: Vec<usize>,
}

/// A user-defined type's definition.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Def {
    Enum {
        base: &'static str,
        members: Vec<EnumMember>,
    },
    Opaque(usize),
    Vlen(TypeRef),
    Compound(Vec<Field>),
}

/// How to name a type that needs a definition.
enum Naming {
    /// Exactly this name; a different definition under it is an error.
    Exact(String),
    /// `first`, or `{stem}_{k}_t` for k = 2, 3, … when `first` is taken.
    Derived { first: String, stem: String },
}

impl Naming {
    fn member(stem: &str) -> Naming {
        Naming::Derived {
            first: format!("{stem}_t"),
            stem: stem.to_string(),
        }
    }
}

fn prim(dt: &Datatype) -> Option<&'static str> {
    Some(match dt {
        Datatype::Int8 => "byte",
        Datatype::UInt8 => "ubyte",
        Datatype::Int16 => "short",
        Datatype::UInt16 => "ushort",
        Datatype::Int32 => "int",
        Datatype::UInt32 => "uint",
        Datatype::Int64 => "int64",
        Datatype::UInt64 => "uint64",
        Datatype::Float32 => "float",
        Datatype::Float64 => "double",
        Datatype::String => "string",
        _ => return None,
    })
}

fn int_prim(t: IntType) -> &'static str {
    prim(&Datatype::from(t)).unwrap_or("int")
}

/// The user-defined types of one CDL group, in definition order
/// (dependencies first).
#[derive(Clone, Debug, Default)]
struct TypeSet {
    defs: Vec<(String, Def)>,
    /// Names given by the caller, which derived names must not take.
    reserved: HashSet<String>,
}

impl TypeSet {
    /// Defines `dt` (and everything it uses) under `name`, returning the
    /// reference a variable or field uses.
    fn add_root(&mut self, name: &str, dt: &Datatype) -> Result<TypeRef, LangError> {
        dt.validate()?;
        if let Some(p) = prim(dt) {
            return Ok(TypeRef::Prim(p));
        }
        // One byte of text: a `char` variable, its characters along its
        // last dimension (the netCDF character convention).
        if *dt
            == Datatype::FixedString(crate::FixedString {
                length: 1,
                charset: Charset::Ascii,
            })
        {
            return Ok(TypeRef::Prim("char"));
        }
        check_name(name, "type")?;
        self.reserved.insert(name.to_string());
        self.type_ref(dt, Naming::Exact(name.to_string()), &[])
    }

    fn type_ref(
        &mut self,
        dt: &Datatype,
        naming: Naming,
        path: &[String],
    ) -> Result<TypeRef, LangError> {
        if let Some(p) = prim(dt) {
            return Ok(TypeRef::Prim(p));
        }
        let unsupported = |why: &str| Err(LangError::unsupported(Language::Cdl, path, dt, why));
        let (naming, def) = match dt {
            Datatype::Bool => (
                Naming::member("bool"),
                Def::Enum {
                    base: "byte",
                    members: vec![EnumMember::new("FALSE", 0), EnumMember::new("TRUE", 1)],
                },
            ),
            Datatype::Complex64 | Datatype::Complex128 => {
                let (part, name) = if *dt == Datatype::Complex64 {
                    ("float", "_PFNC_FLOAT_COMPLEX_TYPE")
                } else {
                    ("double", "_PFNC_DOUBLE_COMPLEX_TYPE")
                };
                let field = |n: &str| Field {
                    ty: TypeRef::Prim(part),
                    name: n.into(),
                    dims: vec![],
                };
                let naming = Naming::Derived {
                    first: name.into(),
                    stem: name.into(),
                };
                (naming, Def::Compound(vec![field("r"), field("i")]))
            }
            Datatype::Enum(e) => {
                if e.members.is_empty() {
                    return unsupported("a netCDF enum needs at least one member");
                }
                for m in &e.members {
                    check_name(&m.name, "enum member")?;
                }
                let def = Def::Enum {
                    base: int_prim(e.base),
                    members: e.members.clone(),
                };
                (naming, def)
            }
            Datatype::Opaque(o) if o.size == 0 => {
                return unsupported("netCDF opaque types are at least 1 byte")
            }
            Datatype::Opaque(o) => (naming, Def::Opaque(o.size)),
            Datatype::Vlen(base) => {
                if matches!(**base, Datatype::FixedString(_) | Datatype::Array(_)) {
                    return unsupported(
                        "a netCDF vlen's base is a type, and fixed strings and arrays are only \
                         compound member dimensions; wrap the element in a compound",
                    );
                }
                let elem = match &naming {
                    Naming::Exact(n) => Naming::member(&format!("{n}_elem")),
                    Naming::Derived { stem, .. } => Naming::member(&format!("{stem}_elem")),
                };
                let base = self.type_ref(base, elem, path)?;
                (naming, Def::Vlen(base))
            }
            Datatype::Compound(c) => {
                if c.members.is_empty() {
                    return unsupported("a netCDF compound needs at least one field");
                }
                let mut fields = Vec::with_capacity(c.members.len());
                for m in &c.members {
                    check_name(&m.name, "compound member")?;
                    let p = child(path, &m.name);
                    let (ty, dims) = self.field_type(&m.datatype, &m.name, &p)?;
                    fields.push(Field {
                        ty,
                        name: m.name.clone(),
                        dims,
                    });
                }
                (naming, Def::Compound(fields))
            }
            Datatype::Float16 => return unsupported("netCDF has no 16-bit float type"),
            Datatype::FixedString(s) if s.charset == Charset::Utf32 => {
                return unsupported("netCDF has no UTF-32 type (char is one byte, string is UTF-8)")
            }
            Datatype::FixedString(_) | Datatype::Array(_) => {
                return unsupported(
                    "netCDF has no fixed-string or array type; write it as a compound member \
                     (char name(n) / T name(a, b)) or give the variable those dimensions",
                )
            }
            _ => return unsupported("netCDF-4 CDL has no reference types"),
        };
        self.define(naming, def).map(TypeRef::Named)
    }

    /// A compound field's type and dimensions: arrays become dimensions and
    /// an ASCII fixed string a trailing `char` dimension.
    fn field_type(
        &mut self,
        dt: &Datatype,
        member: &str,
        path: &[String],
    ) -> Result<(TypeRef, Vec<usize>), LangError> {
        match dt {
            Datatype::FixedString(s) if s.charset == Charset::Ascii => {
                Ok((TypeRef::Prim("char"), vec![s.length]))
            }
            Datatype::Array(a) => {
                let (ty, inner) = self.field_type(&a.base, member, path)?;
                let mut dims = a.shape.clone();
                dims.extend(inner);
                Ok((ty, dims))
            }
            other => Ok((self.type_ref(other, Naming::member(member), path)?, vec![])),
        }
    }

    /// Records `def` under a name chosen by `naming`, sharing an identical
    /// existing definition.
    fn define(&mut self, naming: Naming, def: Def) -> Result<String, LangError> {
        match naming {
            Naming::Exact(name) => match self.lookup(&name) {
                Some(existing) if *existing == def => Ok(name),
                Some(_) => Err(LangError::Duplicate {
                    language: Language::Cdl,
                    role: "type",
                    name,
                    scope: "the root group, by a different definition".into(),
                }),
                None => self.push(name, def),
            },
            Naming::Derived { first, stem } => {
                // The same structure is the same netCDF type, whatever
                // member it was first met under.
                if let Some((name, _)) = self.defs.iter().find(|(_, d)| *d == def) {
                    return Ok(name.clone());
                }
                let mut candidate = first;
                for k in 2.. {
                    match self.lookup(&candidate) {
                        Some(existing) if *existing == def => return Ok(candidate),
                        None if !self.reserved.contains(&candidate) => break,
                        _ => candidate = format!("{stem}_{k}_t"),
                    }
                }
                self.push(candidate, def)
            }
        }
    }

    fn push(&mut self, name: String, def: Def) -> Result<String, LangError> {
        check_name(&name, "type")?;
        self.defs.push((name.clone(), def));
        Ok(name)
    }

    fn lookup(&self, name: &str) -> Option<&Def> {
        self.defs.iter().find(|(n, _)| n == name).map(|(_, d)| d)
    }

    /// The definitions in the order `ncgen` creates them (and `ncdump`
    /// prints them): first every type built only from primitives, in
    /// order; then, pass after pass, each type whose dependencies are done.
    fn ncgen_order(&self) -> Vec<&(String, Def)> {
        let mut done: HashSet<&str> = HashSet::new();
        let ready = |r: &TypeRef, done: &HashSet<&str>| match r {
            TypeRef::Prim(_) => true,
            TypeRef::Named(n) => done.contains(n.as_str()),
        };
        let mut sorted = Vec::with_capacity(self.defs.len());
        let empty = HashSet::new();
        for entry in &self.defs {
            let primitive_only = match &entry.1 {
                Def::Enum { .. } | Def::Opaque(_) => true,
                Def::Vlen(b) => ready(b, &empty),
                Def::Compound(fields) => fields.iter().all(|f| ready(&f.ty, &empty)),
            };
            if primitive_only {
                done.insert(&entry.0);
                sorted.push(entry);
            }
        }
        loop {
            let mut added = false;
            for entry in &self.defs {
                if done.contains(entry.0.as_str()) {
                    continue;
                }
                let ok = match &entry.1 {
                    Def::Vlen(b) => ready(b, &done),
                    Def::Compound(fields) => fields.iter().all(|f| ready(&f.ty, &done)),
                    _ => true,
                };
                if ok {
                    done.insert(&entry.0);
                    sorted.push(entry);
                    added = true;
                }
            }
            if !added {
                return sorted;
            }
        }
    }

    /// The definitions as `ncdump -h` prints them in the root group.
    fn render(&self, out: &mut String) {
        let indent = "  ";
        let mut wrap = EnumWrap::new(indent.len());
        for (name, def) in self.ncgen_order() {
            let name = escape(name);
            match def {
                Def::Opaque(size) => out.push_str(&format!("{indent}opaque({size}) {name} ;\n")),
                Def::Vlen(base) => {
                    out.push_str(&format!("{indent}{}(*) {name} ;\n", type_text(base)))
                }
                Def::Compound(fields) => {
                    out.push_str(&format!("{indent}compound {name} {{\n"));
                    for f in fields {
                        out.push_str(&format!(
                            "{indent}  {} {}{} ;\n",
                            type_text(&f.ty),
                            escape(&f.name),
                            dims_text(&f.dims)
                        ));
                    }
                    out.push_str(&format!("{indent}}}; // {name}\n"));
                }
                Def::Enum { base, members } => {
                    out.push_str(indent);
                    wrap.start();
                    wrap.put(out, &format!("{base} enum {name} {{"));
                    for (i, m) in members.iter().enumerate() {
                        let delim = if i + 1 == members.len() {
                            "} ;\n"
                        } else {
                            ", "
                        };
                        wrap.put(out, &format!("{} = {}{delim}", escape(&m.name), m.value));
                    }
                }
            }
        }
    }
}

/// `ncdump`'s `lput` line wrapping of enum definitions: a piece that would
/// take the line past 78 columns (and is longer than 2 bytes) goes on a new
/// line indented by the group indent plus 4. `ncdump` measures from 0 for
/// its first enum and from the indent for later ones (measured with
/// netCDF 4.9.0; it keeps the position in a global).
struct EnumWrap {
    indent: usize,
    linep: usize,
    first: bool,
}

impl EnumWrap {
    fn new(indent: usize) -> EnumWrap {
        EnumWrap {
            indent,
            linep: 0,
            first: true,
        }
    }

    fn start(&mut self) {
        self.linep = if self.first { 0 } else { self.indent };
        self.first = false;
    }

    fn put(&mut self, out: &mut String, piece: &str) {
        // strlen: bytes, not characters.
        let n = piece.len();
        if n + self.linep > MAX_LINE && n > 2 {
            out.push('\n');
            out.push_str(&" ".repeat(self.indent));
            out.push_str("    ");
            self.linep = 4 + self.indent;
        }
        out.push_str(piece);
        self.linep += n;
    }
}

/// Escapes a name already checked by [`check_name`].
fn escape(name: &str) -> String {
    escape_name(name, "type").unwrap_or_else(|_| name.to_string())
}

fn type_text(r: &TypeRef) -> String {
    match r {
        TypeRef::Prim(p) => (*p).to_string(),
        TypeRef::Named(n) => escape(n),
    }
}

fn dims_text(dims: &[usize]) -> String {
    if dims.is_empty() {
        return String::new();
    }
    let list: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
    format!("({})", list.join(", "))
}

/// The CDL type definitions `dt` needs, named `name` (nested types after
/// their members), as the lines `ncdump -h` prints under `types:`. Empty
/// for a primitive datatype, which needs no definition.
///
/// ```
/// use ndl_runtime::lang::cdl::type_definitions;
/// use ndl_runtime::{Compound, Datatype};
///
/// let obs = Compound::c_layout([
///     ("lat", Datatype::Float32),
///     ("samples", Datatype::Vlen(Box::new(Datatype::Int32))),
/// ]);
/// // A vlen has no fixed size, so it cannot be a record member here;
/// // use an array member instead.
/// assert!(obs.is_err());
/// let rec = Compound::c_layout([
///     ("lat", Datatype::Float32),
///     ("mat", Datatype::Int16.array_of(&[2, 3])),
/// ])
/// .unwrap();
/// assert_eq!(
///     type_definitions("obs_t", &Datatype::Compound(rec)).unwrap(),
///     "  compound obs_t {\n    float lat ;\n    short mat(2, 3) ;\n  }; // obs_t\n"
/// );
/// ```
pub fn type_definitions(name: &str, dt: &Datatype) -> Result<String, LangError> {
    let mut types = TypeSet::default();
    types.add_root(name, dt)?;
    let mut out = String::new();
    types.render(&mut out);
    Ok(out)
}

/// A netCDF-4 CDL document with one (root) group: types, dimensions and
/// variables, printed as `ncdump -h` prints the file `ncgen` makes of it.
///
/// ```
/// use ndl_runtime::lang::cdl::Document;
/// use ndl_runtime::{Compound, Datatype};
///
/// let rec = Datatype::Compound(
///     Compound::c_layout([("id", Datatype::UInt32), ("t", Datatype::Float64)]).unwrap(),
/// );
/// let mut doc = Document::new("recs").unwrap();
/// doc.add_dimension("n", Some(3)).unwrap();
/// doc.add_variable("recs", &rec, "rec_t", &["n"]).unwrap();
/// assert_eq!(
///     doc.to_string(),
///     "netcdf recs {\ntypes:\n  compound rec_t {\n    uint id ;\n    double t ;\n  }; // rec_t\n\
///      dimensions:\n\tn = 3 ;\nvariables:\n\trec_t recs(n) ;\n}\n"
/// );
/// ```
#[derive(Clone, Debug)]
pub struct Document {
    name: String,
    types: TypeSet,
    dimensions: Vec<(String, Option<usize>)>,
    variables: Vec<(TypeRef, String, Vec<String>)>,
    /// `(variable, name, value)`; the variable is `None` for a global one.
    attributes: Vec<(Option<String>, String, AttrValue)>,
}

/// The value of a netCDF attribute, as CDL writes it.
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue {
    /// A `char` attribute: `"text"`.
    Text(String),
    /// Integers of one integer type (`0UB, 1UB`).
    Ints(crate::IntType, Vec<i128>),
    /// Doubles (`273.15, 1.5`).
    Doubles(Vec<f64>),
}

impl AttrValue {
    fn render(&self) -> String {
        match self {
            AttrValue::Text(t) => {
                let mut out = String::from("\"");
                for c in t.chars() {
                    match c {
                        '"' => out.push_str("\\\""),
                        '\\' => out.push_str("\\\\"),
                        '\n' => out.push_str("\\n"),
                        c => out.push(c),
                    }
                }
                out.push('"');
                out
            }
            AttrValue::Ints(t, values) => {
                let suffix = match t {
                    crate::IntType::Int8 => "b",
                    crate::IntType::UInt8 => "UB",
                    crate::IntType::Int16 => "s",
                    crate::IntType::UInt16 => "US",
                    crate::IntType::Int32 => "",
                    crate::IntType::UInt32 => "U",
                    crate::IntType::Int64 => "LL",
                    crate::IntType::UInt64 => "ULL",
                };
                let items: Vec<String> = values.iter().map(|v| format!("{v}{suffix}")).collect();
                items.join(", ")
            }
            AttrValue::Doubles(values) => {
                let items: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
                items.join(", ")
            }
        }
    }
}

impl Document {
    /// An empty document; `name` follows `netcdf`.
    pub fn new(name: &str) -> Result<Document, LangError> {
        check_name(name, "dataset")?;
        Ok(Document {
            name: name.to_string(),
            types: TypeSet::default(),
            dimensions: Vec::new(),
            variables: Vec::new(),
            attributes: Vec::new(),
        })
    }

    /// Adds the attribute `name` to the declared `variable`, or a global
    /// attribute for `None`.
    ///
    /// ```
    /// use ndl_runtime::lang::cdl::{AttrValue, Document};
    /// use ndl_runtime::{Datatype, IntType};
    ///
    /// let mut doc = Document::new("d").unwrap();
    /// doc.add_dimension("n", Some(2)).unwrap();
    /// doc.add_variable("ok", &Datatype::UInt8, "ok_t", &["n"]).unwrap();
    /// doc.add_attribute(Some("ok"), "flag_values", AttrValue::Ints(IntType::UInt8, vec![0, 1])).unwrap();
    /// doc.add_attribute(None, "title", AttrValue::Text("a \"test\"".into())).unwrap();
    /// assert!(doc.to_string().contains("\tubyte ok(n) ;\n\t\tok:flag_values = 0UB, 1UB ;\n"));
    /// assert!(doc.to_string().contains("\n// global attributes:\n\t\t:title = \"a \\\"test\\\"\" ;\n}"));
    /// ```
    pub fn add_attribute(
        &mut self,
        variable: Option<&str>,
        name: &str,
        value: AttrValue,
    ) -> Result<(), LangError> {
        check_name(name, "attribute")?;
        if let Some(v) = variable {
            if !self.variables.iter().any(|(_, n, _)| n == v) {
                return Err(LangError::Unresolved {
                    language: Language::Cdl,
                    what: "variable",
                    reference: v.to_string(),
                    why: format!("is not declared in netcdf {}", self.name),
                });
            }
        }
        let variable = variable.map(str::to_string);
        if self
            .attributes
            .iter()
            .any(|(v, n, _)| *v == variable && n == name)
        {
            return Err(self.duplicate("attribute", name));
        }
        self.attributes.push((variable, name.to_string(), value));
        Ok(())
    }

    /// Declares a dimension of `size`, or `UNLIMITED` for `None`.
    pub fn add_dimension(&mut self, name: &str, size: Option<usize>) -> Result<(), LangError> {
        check_name(name, "dimension")?;
        if size == Some(0) {
            return Err(LangError::Shape {
                language: Language::Cdl,
                why: format!(
                    "dimension {name:?} of size 0: a fixed netCDF dimension is at least 1 long \
                     (use None for UNLIMITED)"
                ),
            });
        }
        if self.dimensions.iter().any(|(n, _)| n == name) {
            return Err(self.duplicate("dimension", name));
        }
        self.dimensions.push((name.to_string(), size));
        Ok(())
    }

    /// Defines the types `dt` needs, `dt` itself under `name`, and returns
    /// the escaped type name to write (a primitive's own name for one).
    pub fn add_type(&mut self, name: &str, dt: &Datatype) -> Result<String, LangError> {
        Ok(type_text(&self.types.add_root(name, dt)?))
    }

    /// Declares variable `name` of datatype `dt` over the declared
    /// dimensions `dims` (none: a scalar). `type_name` names `dt`'s own
    /// definition when it needs one (a compound, enum, ...).
    pub fn add_variable(
        &mut self,
        name: &str,
        dt: &Datatype,
        type_name: &str,
        dims: &[&str],
    ) -> Result<(), LangError> {
        check_name(name, "variable")?;
        if self.variables.iter().any(|(_, n, _)| n == name) {
            return Err(self.duplicate("variable", name));
        }
        if let Some(d) = dims
            .iter()
            .find(|d| !self.dimensions.iter().any(|(n, _)| n == *d))
        {
            return Err(LangError::Unresolved {
                language: Language::Cdl,
                what: "dimension",
                reference: d.to_string(),
                why: format!("is not declared in netcdf {}", self.name),
            });
        }
        let ty = self.types.add_root(type_name, dt)?;
        let dims = dims.iter().map(|d| d.to_string()).collect();
        self.variables.push((ty, name.to_string(), dims));
        Ok(())
    }

    fn duplicate(&self, role: &'static str, name: &str) -> LangError {
        LangError::Duplicate {
            language: Language::Cdl,
            role,
            name: name.to_string(),
            scope: format!("netcdf {}", self.name),
        }
    }
}

impl fmt::Display for Document {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = format!("netcdf {} {{\n", escape(&self.name));
        if !self.types.defs.is_empty() {
            out.push_str("types:\n");
            self.types.render(&mut out);
        }
        if !self.dimensions.is_empty() {
            out.push_str("dimensions:\n");
            for (name, size) in &self.dimensions {
                match size {
                    Some(n) => out.push_str(&format!("\t{} = {n} ;\n", escape(name))),
                    None => out.push_str(&format!(
                        "\t{} = UNLIMITED ; // (0 currently)\n",
                        escape(name)
                    )),
                }
            }
        }
        if !self.variables.is_empty() {
            out.push_str("variables:\n");
            for (ty, name, dims) in &self.variables {
                let dims: Vec<String> = dims.iter().map(|d| escape(d)).collect();
                let dims = if dims.is_empty() {
                    String::new()
                } else {
                    format!("({})", dims.join(", "))
                };
                out.push_str(&format!("\t{} {}{dims} ;\n", type_text(ty), escape(name)));
                for (_, attr, value) in self
                    .attributes
                    .iter()
                    .filter(|(v, _, _)| v.as_deref() == Some(name))
                {
                    out.push_str(&format!(
                        "\t\t{}:{} = {} ;\n",
                        escape(name),
                        escape(attr),
                        value.render()
                    ));
                }
            }
        }
        let globals: Vec<_> = self
            .attributes
            .iter()
            .filter(|(v, _, _)| v.is_none())
            .collect();
        if !globals.is_empty() {
            out.push_str("\n// global attributes:\n");
            for (_, attr, value) in globals {
                out.push_str(&format!("\t\t:{} = {} ;\n", escape(attr), value.render()));
            }
        }
        out.push_str("}\n");
        f.write_str(&out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_ncdump_plus_percent() {
        for (raw, esc) in [
            ("a:b", r"a\:b"),
            ("hash#x", r"hash\#x"),
            ("paren(x)", r"paren\(x\)"),
            (r"back\slash", r"back\\slash"),
            ("dash-ok", "dash-ok"),
            ("at@ok", "at@ok"),
            ("plus+ok", "plus+ok"),
            ("a%b", r"a\%b"),
            ("9x", r"\9x"),
            ("INT", "INT"),
        ] {
            assert_eq!(escape_name(raw, "variable").unwrap(), esc, "{raw}");
        }
        for bad in [
            "", " x", "#x", "x ", "a\nb", "int", "NaN", "compound", "a/b",
        ] {
            assert!(escape_name(bad, "variable").is_err(), "{bad:?}");
        }
        assert!(escape_name(&"x".repeat(257), "variable").is_err());
        assert!(escape_name(&"x".repeat(256), "variable").is_ok());
    }

    #[test]
    fn enum_lines_wrap_like_ncdump() {
        let mut out = String::new();
        let mut w = EnumWrap::new(2);
        w.start();
        w.put(&mut out, &"a".repeat(70));
        w.put(&mut out, &"b".repeat(9));
        assert_eq!(out, format!("{}\n      {}", "a".repeat(70), "b".repeat(9)));
    }
}
