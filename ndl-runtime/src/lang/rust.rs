//! Rust source of the types that read a datatype's values exactly:
//! `#[derive(NdlType)]` structs and enums for fixed layouts,
//! `#[derive(Record)]` structs for records with variable-length or
//! nullable members.
//!
//! A fixed compound becomes a `#[repr(C)]` struct whose fields sit at the
//! members' offsets: where C layout would not put a field at its offset,
//! or the record is longer than C layout makes it, a `#[ndl(padding)]`
//! `[u8; N]` field takes the bytes; where no `#[repr(C)]` struct can have
//! the layout (a member at an offset that is not a multiple of its
//! alignment, a record size that is not one), the struct is
//! `#[repr(C, packed)]` with padding fields wherever the file has gaps.
//! Either way the derived datatype has the file's offsets and size.
//!
//! ```
//! use ndl_runtime::{Compound, Datatype};
//!
//! let rec = Datatype::Compound(
//!     Compound::c_layout([("id", Datatype::UInt32), ("type", Datatype::Float64)]).unwrap(),
//! );
//! let text = ndl_runtime::lang::rust::to_rust(&rec, "Reading").unwrap();
//! assert!(text.contains("pub struct Reading {\n    pub id: u32,\n    pub r#type: f64,\n}"));
//! ```

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt::Write as _;

use super::{LangError, Language, child};
use crate::time::{BaseUnit, TimeKind};
use crate::{Charset, Compound, Datatype, Enum, Member};

/// The Rust source, `use` lines included, of a type named after
/// `type_name` (made UpperCamelCase) whose values are `dt`'s, exactly:
/// a struct for a compound, an enum for an enum, a type alias otherwise.
/// Nested compounds and enums become types named after their members.
///
/// A datatype Rust cannot hold (overlapping members, references, a time
/// unit without a marker type, UTF-32 strings or opaque bytes inside an
/// array) is a [`LangError::Unsupported`] naming the member.
pub fn to_rust(dt: &Datatype, type_name: &str) -> Result<String, LangError> {
    dt.validate().map_err(LangError::Invalid)?;
    let mut out = Printer::default();
    let top = out.unique_type(type_name);
    match dt {
        Datatype::Compound(c) => out.compound(c, &top, &[]).map(drop)?,
        Datatype::Enum(e) => out.enumeration(e, &top, &[])?,
        other => {
            let ty = out.type_of(other, &top, &[])?;
            let mut item = String::new();
            feature_note(&mut item, other, "");
            writeln!(item, "pub type {top} = {};", ty.text).expect("writing to a String");
            out.items.push(item);
        }
    }
    Ok(out.finish())
}

/// Names the source brings in with `use`, so no generated type takes them.
const IMPORTED: [&str; 16] = [
    "NdlType",
    "Record",
    "FixedStr",
    "DateTime64",
    "TimeDelta64",
    "Days",
    "Hours",
    "Minutes",
    "Seconds",
    "Millis",
    "Micros",
    "Nanos",
    "Complex",
    "String",
    "Vec",
    "Option",
];

#[derive(Default)]
struct Printer {
    /// `use` paths by crate path: `ndl_runtime` → {`NdlType`, ...}.
    uses: BTreeMap<&'static str, BTreeSet<&'static str>>,
    /// Type names taken.
    types: HashSet<String>,
    /// Type definitions, innermost first.
    items: Vec<String>,
}

/// A field's Rust type and what its field needs besides.
struct FieldType {
    text: String,
    /// `#[ndl(string)]` or `#[ndl(opaque...)]`, where the type alone does
    /// not say it.
    storage: Option<String>,
    /// The alignment of the Rust type.
    align: usize,
    /// Whether it is `Copy` (fixed size): a struct of such fields is an
    /// `NdlType`.
    fixed: bool,
}

impl FieldType {
    fn plain(text: impl Into<String>, align: usize) -> FieldType {
        FieldType {
            text: text.into(),
            storage: None,
            align,
            fixed: true,
        }
    }
}

impl Printer {
    fn uses(&mut self, path: &'static str, name: &'static str) {
        self.uses.entry(path).or_default().insert(name);
    }

    /// `name` made an UpperCamelCase identifier no other type has.
    fn unique_type(&mut self, name: &str) -> String {
        let base = type_ident(name);
        let mut candidate = base.clone();
        let mut n = 2;
        while self.types.contains(&candidate) || IMPORTED.contains(&candidate.as_str()) {
            candidate = format!("{base}{n}");
            n += 1;
        }
        self.types.insert(candidate.clone());
        candidate
    }

    fn finish(self) -> String {
        let mut out = String::new();
        for (path, names) in &self.uses {
            let names: Vec<&str> = names.iter().copied().collect();
            match names.as_slice() {
                [one] => writeln!(out, "use {path}::{one};"),
                many => writeln!(out, "use {path}::{{{}}};", many.join(", ")),
            }
            .expect("writing to a String");
        }
        for item in &self.items {
            out.push('\n');
            out.push_str(item);
        }
        out
    }

    /// The Rust type of a value of `dt`; `name` names a nested type.
    fn type_of(
        &mut self,
        dt: &Datatype,
        name: &str,
        path: &[String],
    ) -> Result<FieldType, LangError> {
        let unsupported = |why: &str| LangError::unsupported(Language::Rust, path, dt, why);
        if let Some(int) = dt.as_int() {
            return Ok(FieldType::plain(int_type(int), dt.alignment()));
        }
        Ok(match dt {
            Datatype::Float32 => FieldType::plain("f32", 4),
            Datatype::Float64 => FieldType::plain("f64", 8),
            Datatype::Bool => FieldType::plain("bool", 1),
            Datatype::Float16 => {
                self.uses("half", "f16");
                FieldType::plain("f16", 2)
            }
            Datatype::Complex64 | Datatype::Complex128 => {
                self.uses("num_complex", "Complex");
                let (part, align) = if *dt == Datatype::Complex64 {
                    ("f32", 4)
                } else {
                    ("f64", 8)
                };
                FieldType::plain(format!("Complex<{part}>"), align)
            }
            Datatype::FixedString(s) => match s.charset {
                Charset::Ascii => {
                    self.uses("ndl_runtime", "FixedStr");
                    FieldType::plain(format!("FixedStr<{}>", s.length), 1)
                }
                Charset::Utf32 => FieldType {
                    storage: Some("string".into()),
                    ..FieldType::plain(format!("[u32; {}]", s.length), 4)
                },
            },
            Datatype::Opaque(o) => FieldType {
                storage: Some(match &o.tag {
                    Some(tag) => format!("opaque = {tag:?}"),
                    None => "opaque".into(),
                }),
                ..FieldType::plain(format!("[u8; {}]", o.size), 1)
            },
            Datatype::Time(t) => {
                let Some(unit) = unit_marker(t.unit.unit()).filter(|_| t.unit.multiple() == 1)
                else {
                    return Err(unsupported(&format!(
                        "ndl_runtime::time has no marker type for the unit `{}`; read the member as `i64` counts",
                        t.unit
                    )));
                };
                let kind = match t.kind {
                    TimeKind::DateTime => "DateTime64",
                    TimeKind::TimeDelta => "TimeDelta64",
                };
                self.uses("ndl_runtime::time", kind);
                self.uses("ndl_runtime::time", unit);
                FieldType::plain(format!("{kind}<{unit}>"), 8)
            }
            Datatype::Enum(e) => {
                let ty = self.unique_type(name);
                self.enumeration(e, &ty, path)?;
                FieldType::plain(ty, e.base.size())
            }
            Datatype::Compound(c) => {
                let ty = self.unique_type(name);
                let (align, fixed) = self.compound(c, &ty, path)?;
                FieldType {
                    fixed,
                    ..FieldType::plain(ty, align)
                }
            }
            Datatype::Array(a) => {
                let base = self.type_of(&a.base, name, path)?;
                if base.storage.is_some() {
                    return Err(unsupported(
                        "an array of UTF-32 strings or of opaque bytes has no Rust field type the derive reads",
                    ));
                }
                let text = a
                    .shape
                    .iter()
                    .rev()
                    .fold(base.text, |t, n| format!("[{t}; {n}]"));
                FieldType { text, ..base }
            }
            Datatype::String => FieldType {
                fixed: false,
                ..FieldType::plain("String", 8)
            },
            Datatype::Vlen(base) => {
                let base = self.variable_base(base, name, path)?;
                FieldType {
                    fixed: false,
                    ..FieldType::plain(format!("Vec<{base}>"), 8)
                }
            }
            Datatype::Optional(base) => {
                let base = self.variable_base(base, name, path)?;
                FieldType {
                    fixed: false,
                    ..FieldType::plain(format!("Option<{base}>"), 8)
                }
            }
            Datatype::ObjRef | Datatype::RegRef(_) => {
                return Err(unsupported(
                    "a reference is the file's own business; no Rust type reads it",
                ));
            }
            _ => return Err(unsupported("ndl has no Rust type for it")),
        })
    }

    /// The element type of a `Vec` or `Option`, which cannot carry a
    /// field attribute.
    fn variable_base(
        &mut self,
        dt: &Datatype,
        name: &str,
        path: &[String],
    ) -> Result<String, LangError> {
        let base = self.type_of(dt, name, path)?;
        if base.storage.is_some() {
            return Err(LangError::unsupported(
                Language::Rust,
                path,
                dt,
                "a UTF-32 string or opaque bytes inside a `Vec` or `Option` has no Rust type the derive reads",
            ));
        }
        Ok(base.text)
    }

    fn enumeration(&mut self, e: &Enum, ty: &str, path: &[String]) -> Result<(), LangError> {
        if e.members.is_empty() {
            return Err(LangError::unsupported(
                Language::Rust,
                path,
                &Datatype::Enum(e.clone()),
                "a Rust enum without variants has no values to read",
            ));
        }
        let mut item = String::new();
        let w = &mut item;
        self.uses("ndl_runtime", "NdlType");
        writeln!(w, "#[derive(Clone, Copy, Debug, PartialEq, Eq, NdlType)]").expect("String");
        writeln!(w, "#[repr({})]", int_type(e.base)).expect("String");
        writeln!(w, "pub enum {ty} {{").expect("String");
        let mut taken = HashSet::new();
        for m in &e.members {
            let ident = unique(type_ident(&m.name), "", &mut taken);
            if ident != m.name {
                writeln!(w, "    #[ndl(rename = {:?})]", m.name).expect("String");
            }
            writeln!(w, "    {ident} = {},", m.value).expect("String");
        }
        w.push_str("}\n");
        self.items.push(item);
        Ok(())
    }

    /// Writes the struct `ty` of `c`; gives its alignment and whether it
    /// has a fixed layout (`NdlType`) or is a `Record`.
    fn compound(
        &mut self,
        c: &Compound,
        ty: &str,
        path: &[String],
    ) -> Result<(usize, bool), LangError> {
        let members = c.by_offset();
        let mut fields = Vec::new();
        let mut taken = HashSet::new();
        for m in &members {
            let at = child(path, &m.name);
            let field_type = self.type_of(&m.datatype, &m.name, &at)?;
            fields.push((
                *m,
                unique(field_ident(&m.name), "_", &mut taken),
                field_type,
            ));
        }
        let fixed = fields.iter().all(|(_, _, t)| t.fixed);
        let mut item = String::new();
        let align = if fixed {
            self.uses("ndl_runtime", "NdlType");
            self.fixed_struct(&mut item, c, ty, path, &fields, &mut taken)?
        } else {
            self.uses("ndl_runtime", "Record");
            writeln!(item, "#[derive(Clone, Debug, PartialEq, Record)]").expect("String");
            writeln!(item, "pub struct {ty} {{").expect("String");
            for (m, ident, t) in &fields {
                write_field(&mut item, m, ident, t);
            }
            item.push_str("}\n");
            8
        };
        self.items.push(item);
        Ok((align, fixed))
    }

    /// A `#[derive(NdlType)]` struct with `c`'s offsets and size.
    fn fixed_struct(
        &mut self,
        item: &mut String,
        c: &Compound,
        ty: &str,
        path: &[String],
        fields: &[(&Member, String, FieldType)],
        taken: &mut HashSet<String>,
    ) -> Result<usize, LangError> {
        let align = fields.iter().map(|(_, _, t)| t.align).max().unwrap_or(1);
        let packed = needs_packing(c, fields, align);
        let mut body = String::new();
        let mut end = 0;
        let mut pad = |body: &mut String, bytes: usize| {
            let ident = unique("_pad".into(), "", taken);
            writeln!(body, "    #[ndl(padding)]\n    pub {ident}: [u8; {bytes}],").expect("String");
        };
        for (m, ident, t) in fields {
            if m.offset < end {
                return Err(LangError::unsupported(
                    Language::Rust,
                    &child(path, &m.name),
                    &m.datatype,
                    format!(
                        "it overlaps the member before it (bytes {}..{end}), which no Rust struct can do",
                        m.offset
                    ),
                ));
            }
            let natural = if packed { end } else { round_up(end, t.align) };
            if m.offset != natural {
                pad(&mut body, m.offset - end);
            }
            write_field(&mut body, m, ident, t);
            end = m.offset + m.datatype.size().unwrap_or(0);
        }
        let natural_end = if packed { end } else { round_up(end, align) };
        if c.size != natural_end {
            pad(&mut body, c.size - end);
        }
        writeln!(item, "#[derive(Clone, Copy, Debug, PartialEq, NdlType)]").expect("String");
        writeln!(item, "#[repr(C{})]", if packed { ", packed" } else { "" }).expect("String");
        writeln!(item, "pub struct {ty} {{\n{body}}}").expect("String");
        Ok(if packed { 1 } else { align })
    }
}

/// Whether no `#[repr(C)]` struct (with padding fields) has `c`'s layout:
/// a member off its alignment, or a size not a multiple of the struct's.
fn needs_packing(c: &Compound, fields: &[(&Member, String, FieldType)], align: usize) -> bool {
    let misplaced = fields
        .iter()
        .any(|(m, _, t)| !m.offset.is_multiple_of(t.align));
    misplaced || !c.size.is_multiple_of(align)
}

fn write_field(out: &mut String, m: &Member, ident: &str, t: &FieldType) {
    let w = out;
    if let Some(d) = &m.description {
        for line in d.lines() {
            writeln!(w, "    ///{}{line}", if line.is_empty() { "" } else { " " }).expect("String");
        }
    }
    feature_note(w, &m.datatype, "    ");
    let mut attrs = Vec::new();
    if ident.trim_start_matches("r#") != m.name {
        attrs.push(format!("rename = {:?}", m.name));
    }
    attrs.extend(t.storage.clone());
    if let Some(units) = &m.units {
        attrs.push(format!("units = {units:?}"));
    }
    if !m.dims.is_empty() {
        let dims: Vec<String> = m.dims.iter().map(|d| format!("{d:?}")).collect();
        attrs.push(format!("dims = [{}]", dims.join(", ")));
    }
    if !attrs.is_empty() {
        writeln!(w, "    #[ndl({})]", attrs.join(", ")).expect("String");
    }
    writeln!(w, "    pub {ident}: {},", t.text).expect("String");
}

/// A comment naming the cargo feature a type needs.
fn feature_note(out: &mut String, dt: &Datatype, indent: &str) {
    let leaf = match dt {
        Datatype::Array(a) => &*a.base,
        other => other,
    };
    let feature = match leaf {
        Datatype::Float16 => "half",
        Datatype::Complex64 | Datatype::Complex128 => "num-complex",
        _ => return,
    };
    writeln!(out, "{indent}// Needs ndl-runtime's `{feature}` feature.").expect("String");
}

fn int_type(int: crate::IntType) -> &'static str {
    use crate::IntType::*;
    match int {
        Int8 => "i8",
        UInt8 => "u8",
        Int16 => "i16",
        UInt16 => "u16",
        Int32 => "i32",
        UInt32 => "u32",
        Int64 => "i64",
        UInt64 => "u64",
    }
}

/// The marker type of a unit `ndl_runtime::time` has one for.
fn unit_marker(unit: BaseUnit) -> Option<&'static str> {
    Some(match unit {
        BaseUnit::Days => "Days",
        BaseUnit::Hours => "Hours",
        BaseUnit::Minutes => "Minutes",
        BaseUnit::Seconds => "Seconds",
        BaseUnit::Millis => "Millis",
        BaseUnit::Micros => "Micros",
        BaseUnit::Nanos => "Nanos",
        _ => return None,
    })
}

fn round_up(n: usize, align: usize) -> usize {
    n.div_ceil(align) * align
}

/// `base`, or `base{sep}2`, `base{sep}3`, ... if taken; records it as taken.
fn unique(base: String, sep: &str, taken: &mut HashSet<String>) -> String {
    let mut candidate = base.clone();
    let mut n = 2;
    while taken.contains(&candidate) {
        candidate = format!("{base}{sep}{n}");
        n += 1;
    }
    taken.insert(candidate.clone());
    candidate
}

/// The words of a name: runs of ASCII letters and digits, split at
/// lower-to-upper case changes (`sensorID2` → `sensor`, `ID2`).
fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            words.extend((!word.is_empty()).then(|| std::mem::take(&mut word)));
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower {
            words.push(std::mem::take(&mut word));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        word.push(c);
    }
    words.extend((!word.is_empty()).then_some(word));
    words
}

/// A snake_case field identifier for a member name: `type` → `r#type`,
/// `Sensor ID` → `sensor_id`, `1x` → `_1x`.
fn field_ident(name: &str) -> String {
    let words: Vec<String> = words(name).iter().map(|w| w.to_ascii_lowercase()).collect();
    let mut ident = words.join("_");
    if ident.is_empty() {
        ident = "field".into();
    }
    if ident.starts_with(|c: char| c.is_ascii_digit()) {
        ident.insert(0, '_');
    }
    match ident.as_str() {
        "self" | "super" | "crate" | "_" => ident + "_",
        k if KEYWORDS.contains(&k) => format!("r#{ident}"),
        _ => ident,
    }
}

/// An UpperCamelCase type or variant identifier: `sensor_reading` →
/// `SensorReading`, `RED` → `Red`, `1x` → `T1x`.
fn type_ident(name: &str) -> String {
    let mut ident: String = words(name)
        .iter()
        .map(|w| {
            let mut chars = w.chars();
            let first = chars.next().map(|c| c.to_ascii_uppercase());
            first
                .into_iter()
                .chain(chars.map(|c| c.to_ascii_lowercase()))
                .collect::<String>()
        })
        .collect();
    if ident.is_empty() {
        ident = "Type".into();
    }
    if ident.starts_with(|c: char| c.is_ascii_digit()) {
        ident.insert(0, 'T');
    }
    if ident == "Self" {
        ident.push('_');
    }
    ident
}

/// Rust's strict and reserved keywords (2021 edition), which a field takes
/// as a raw identifier.
const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "else", "enum", "extern", "false", "fn", "for", "if",
    "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static",
    "struct", "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn",
    "abstract", "become", "box", "do", "final", "macro", "override", "priv", "typeof", "unsized",
    "virtual", "yield", "try", "gen",
];

#[cfg(test)]
mod tests;
