//! A CDL document of one group: types, dimensions, variables and
//! attributes, printed as `ncdump -h` prints it.

use std::fmt;

use super::name::{check_name, escape, is_keyword};
use super::print::{Lput, type_text};
use super::types::{TypeRef, TypeSet};
use super::value::{MemberValue, c_general};
use crate::lang::{LangError, Language};
use crate::time::{CfEncoding, NAT};
use crate::{Charset, Datatype, FixedString, IntType, TimeType};

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
    /// Each dimension and its length: fixed, or `UNLIMITED` with the
    /// records it holds (`None`, `Some(n)`).
    dimensions: Vec<(String, Length)>,
    variables: Vec<(TypeRef, String, Vec<String>)>,
    /// `(variable, name, value)`; the variable is `None` for a global one.
    attributes: Vec<(Option<String>, String, AttrValue)>,
    /// Subgroups (netCDF-4), in the order added.
    groups: Vec<Document>,
    /// `(variable, attribute)` that `add_variable` added, which an
    /// attribute added by name replaces: a time variable's CF attributes.
    implied: Vec<(String, String)>,
    /// Dimensions an enclosing group declares, which this group's
    /// variables may use (netCDF-4 scoping).
    outer_dimensions: Vec<String>,
}

/// A dimension's length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Length {
    Fixed(usize),
    Unlimited(usize),
}

/// The value of a netCDF attribute, as CDL writes it.
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue {
    /// A `char` attribute: `"text"`.
    Text(String),
    /// Integers of one integer type (`0UB, 1UB`).
    Ints(IntType, Vec<i128>),
    /// Doubles (`273.15, 1.5`).
    Doubles(Vec<f64>),
    /// Floats (`273.15f, 1.5f`).
    Floats(Vec<f32>),
    /// netCDF-4 `string`s (variable-length): `string :name = "a", "b"`.
    Strings(Vec<String>),
    /// Values of a compound type, each a [`MemberValue::Record`]:
    /// `pair_t v:pair = {1, 2.5}, {-3, 0.125}`. The document defines the
    /// type under `type_name` with its other types.
    Compound {
        /// The name of the compound type.
        type_name: String,
        /// The compound datatype.
        datatype: Datatype,
        /// One record per value.
        records: Vec<MemberValue>,
    },
}

impl AttrValue {
    /// The values as `ncdump` prints them; compound ones through `lput`,
    /// which may wrap them.
    fn render(&self, lput: &mut Lput, out: &mut String) {
        let text = match self {
            AttrValue::Compound {
                datatype, records, ..
            } => {
                for (i, record) in records.iter().enumerate() {
                    let delim = if i + 1 == records.len() { "" } else { ", " };
                    let value = record.render(datatype).unwrap_or_default();
                    lput.put(out, &format!("{value}{delim}"));
                }
                return;
            }
            AttrValue::Text(t) => quoted(t),
            AttrValue::Strings(items) => {
                let items: Vec<String> = items.iter().map(|t| quoted(t)).collect();
                items.join(", ")
            }
            AttrValue::Ints(t, values) => {
                let suffix = match t {
                    IntType::Int8 => "b",
                    IntType::UInt8 => "UB",
                    IntType::Int16 => "s",
                    IntType::UInt16 => "US",
                    IntType::Int32 => "",
                    IntType::UInt32 => "U",
                    IntType::Int64 => "LL",
                    IntType::UInt64 => "ULL",
                };
                let items: Vec<String> = values.iter().map(|v| format!("{v}{suffix}")).collect();
                items.join(", ")
            }
            AttrValue::Doubles(values) => {
                let items: Vec<String> =
                    values.iter().map(|&v| c_general(v, 15, "", true)).collect();
                items.join(", ")
            }
            AttrValue::Floats(values) => {
                let items: Vec<String> = values
                    .iter()
                    .map(|&v| c_general(f64::from(v), 7, "f", true))
                    .collect();
                items.join(", ")
            }
        };
        out.push_str(&text);
    }

    /// What `ncdump` writes before an attribute's name to give its type
    /// where the value alone does not: `string` for netCDF-4 strings, the
    /// type's name for user-defined ones.
    fn type_prefix(&self) -> String {
        match self {
            AttrValue::Strings(_) => "string ".into(),
            AttrValue::Compound { type_name, .. } => format!("{} ", escape(type_name)),
            _ => String::new(),
        }
    }
}

/// Text in CDL's double quotes, with its escapes.
fn quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
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
            groups: Vec::new(),
            implied: Vec::new(),
            outer_dimensions: Vec::new(),
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
        if let Some(v) = variable
            && !self.variables.iter().any(|(_, n, _)| n == v)
        {
            return Err(LangError::Unresolved {
                language: Language::Cdl,
                what: "variable",
                reference: v.to_string(),
                why: format!("is not declared in netcdf {}", self.name),
            });
        }
        let value = self.typed(value)?;
        let variable = variable.map(str::to_string);
        // An attribute given replaces one `add_variable` implied.
        if let Some(v) = &variable {
            let key = (v.clone(), name.to_string());
            if let Some(i) = self.implied.iter().position(|k| *k == key) {
                self.implied.remove(i);
                self.attributes
                    .retain(|(av, an, _)| !(av.as_ref() == Some(v) && an == name));
            }
        }
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

    /// `value` with its compound type defined in this document, under the
    /// name the type set gives it; an error where the records are not of
    /// that type.
    fn typed(&mut self, value: AttrValue) -> Result<AttrValue, LangError> {
        let AttrValue::Compound {
            type_name,
            datatype,
            records,
        } = value
        else {
            return Ok(value);
        };
        if !matches!(datatype, Datatype::Compound(_)) {
            return Err(LangError::unsupported(
                Language::Cdl,
                &[],
                &datatype,
                "a compound attribute's type is a compound",
            ));
        }
        if records.iter().any(|r| r.render(&datatype).is_none()) {
            return Err(LangError::unsupported(
                Language::Cdl,
                &[],
                &datatype,
                "an attribute value does not have the members of its compound type",
            ));
        }
        let type_name = match self.types.add_root(&type_name, &datatype)? {
            TypeRef::Named(n) => n,
            TypeRef::Prim(p) => p.to_string(),
        };
        Ok(AttrValue::Compound {
            type_name,
            datatype,
            records,
        })
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
        let length = size.map_or(Length::Unlimited(0), Length::Fixed);
        self.push_dimension(name, length)
    }

    /// Declares an `UNLIMITED` dimension holding `current` records, which
    /// `ncdump` shows as `UNLIMITED ; // (3 currently)`.
    pub fn add_unlimited_dimension(&mut self, name: &str, current: usize) -> Result<(), LangError> {
        check_name(name, "dimension")?;
        self.push_dimension(name, Length::Unlimited(current))
    }

    /// Lets this group's variables use the dimension `name`, which an
    /// enclosing group declares (netCDF-4 dimensions are seen in every
    /// group below their own).
    pub fn add_outer_dimension(&mut self, name: &str) {
        if !self.outer_dimensions.iter().any(|n| n == name) {
            self.outer_dimensions.push(name.to_string());
        }
    }

    /// Lets this group's variables, attributes and types use the types
    /// `enclosing` (a group around this one) defines or can use, by name,
    /// rather than define them again (netCDF-4 types are seen in every
    /// group below their own). Those `enclosing` defines later are not
    /// seen.
    pub fn add_outer_types(&mut self, enclosing: &Document) {
        self.types.see_outer(&enclosing.types);
    }

    fn push_dimension(&mut self, name: &str, length: Length) -> Result<(), LangError> {
        if self.dimensions.iter().any(|(n, _)| n == name) {
            return Err(self.duplicate("dimension", name));
        }
        self.dimensions.push((name.to_string(), length));
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
    ///
    /// A time variable is an `int64` with CF attributes, as xarray writes
    /// it: `units` (`seconds since 1970-01-01 00:00:00`, or `seconds` for
    /// durations), `calendar = "proleptic_gregorian"` for instants, and
    /// `_FillValue` = NaT. An attribute of the same name added later
    /// replaces one of these.
    ///
    /// ```
    /// use ndl_runtime::lang::cdl::Document;
    /// use ndl_runtime::Datatype;
    ///
    /// let mut doc = Document::new("d").unwrap();
    /// doc.add_dimension("n", Some(2)).unwrap();
    /// doc.add_variable("t", &Datatype::Time("M8[s]".parse().unwrap()), "t_t", &["n"]).unwrap();
    /// assert!(doc.to_string().contains(
    ///     "\tint64 t(n) ;\n\t\tt:units = \"seconds since 1970-01-01 00:00:00\" ;\n\
    ///      \t\tt:calendar = \"proleptic_gregorian\" ;\n\
    ///      \t\tt:_FillValue = -9223372036854775808LL ;\n"
    /// ));
    /// ```
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
        if let Some(d) = dims.iter().find(|d| {
            !self.dimensions.iter().any(|(n, _)| n == *d)
                && !self.outer_dimensions.contains(&d.to_string())
        }) {
            return Err(LangError::Unresolved {
                language: Language::Cdl,
                what: "dimension",
                reference: d.to_string(),
                why: format!("is not declared in netcdf {}", self.name),
            });
        }
        let mut dims: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
        let ty = match dt {
            Datatype::FixedString(s) if s.charset == Charset::Ascii && s.length > 1 => {
                dims.push(self.string_dimension(s.length)?);
                self.types.add_root(type_name, &CHAR)?
            }
            _ => self.types.add_root(type_name, dt)?,
        };
        let time = match dt {
            Datatype::Time(t) => Some(cf_time_attributes(*t)),
            _ => None,
        };
        self.variables.push((ty, name.to_string(), dims));
        for (attr, value) in time.into_iter().flatten() {
            self.attributes
                .push((Some(name.to_string()), attr.to_string(), value));
            self.implied.push((name.to_string(), attr.to_string()));
        }
        Ok(())
    }

    /// The dimension that holds the characters of a fixed string of
    /// `length` bytes, `string<length>` as xarray names it, declared the
    /// first time a variable needs it.
    fn string_dimension(&mut self, length: usize) -> Result<String, LangError> {
        let name = format!("string{length}");
        match self.dimensions.iter().find(|(n, _)| *n == name) {
            Some((_, Length::Fixed(size))) if *size == length => {}
            Some(_) => {
                return Err(LangError::Shape {
                    language: Language::Cdl,
                    why: format!(
                        "dimension {name:?} is declared with another size than the {length} \
                         characters of the strings it would hold"
                    ),
                });
            }
            None => self.add_dimension(&name, Some(length))?,
        }
        Ok(name)
    }

    /// The names in this document and its groups that CDL reads as
    /// keywords, each once, in the order met.
    fn keyword_names(&self) -> Vec<String> {
        let mut names: Vec<&str> = vec![self.name.as_str()];
        names.extend(self.types.names());
        names.extend(self.dimensions.iter().map(|(n, _)| n.as_str()));
        names.extend(self.variables.iter().map(|(_, n, _)| n.as_str()));
        names.extend(self.attributes.iter().map(|(_, n, _)| n.as_str()));
        let mut found: Vec<String> = Vec::new();
        let nested = self.groups.iter().flat_map(Document::keyword_names);
        for name in names.into_iter().map(str::to_string).chain(nested) {
            if is_keyword(&name) && !found.contains(&name) {
                found.push(name);
            }
        }
        found
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

/// The CF attributes of a time variable ([`CfEncoding`]), `units` first.
fn cf_time_attributes(t: TimeType) -> Vec<(&'static str, AttrValue)> {
    let mut attrs: Vec<(&'static str, AttrValue)> = CfEncoding::of(t)
        .attributes()
        .into_iter()
        .map(|(name, value)| (name, AttrValue::Text(value)))
        .collect();
    attrs.sort_by_key(|(name, _)| *name != "units");
    attrs.push((
        "_FillValue",
        AttrValue::Ints(IntType::Int64, vec![NAT.into()]),
    ));
    attrs
}

/// A one-byte text character: with a trailing dimension, a fixed string.
const CHAR: Datatype = Datatype::FixedString(FixedString {
    length: 1,
    charset: Charset::Ascii,
});

/// The document as `ncdump -h` prints it. Names that are CDL keywords are
/// printed bare, as `ncdump` prints them, since `ncgen` has no escape for
/// them; a first comment line names them.
impl fmt::Display for Document {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let keywords = self.keyword_names();
        if !keywords.is_empty() {
            writeln!(
                f,
                "// ncgen reads these names as CDL keywords in every spelling: {}",
                keywords.join(", ")
            )?;
        }
        f.write_str(&self.body(&mut Lput::default(), 0))
    }
}

impl Document {
    /// `netcdf name {` ... `}`, without the keyword comment, for a group
    /// `depth` deep, with `ncdump`'s line position so far.
    fn body(&self, lput: &mut Lput, depth: usize) -> String {
        let mut out = format!("netcdf {} {{\n", escape(&self.name));
        if !self.types.is_empty() {
            out.push_str("types:\n");
            lput.at(depth, 2);
            self.types.render(&mut out, lput);
        }
        lput.at(depth, 0);
        if !self.dimensions.is_empty() {
            out.push_str("dimensions:\n");
            for (name, length) in &self.dimensions {
                match length {
                    Length::Fixed(n) => out.push_str(&format!("\t{} = {n} ;\n", escape(name))),
                    Length::Unlimited(n) => out.push_str(&format!(
                        "\t{} = UNLIMITED ; // ({n} currently)\n",
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
                        "\t\t{}{}:{} = ",
                        value.type_prefix(),
                        escape(name),
                        escape(attr),
                    ));
                    value.render(lput, &mut out);
                    out.push_str(" ;\n");
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
                out.push_str(&format!("\t\t{}:{} = ", value.type_prefix(), escape(attr)));
                value.render(lput, &mut out);
                out.push_str(" ;\n");
            }
        }
        for group in &self.groups {
            group.render_nested(&mut out, lput, depth + 1);
        }
        out.push_str("}\n");
        out
    }

    /// Adds `group` as a subgroup, printed after the variables and global
    /// attributes, where CDL puts groups.
    pub fn add_group(&mut self, group: Document) {
        self.groups.push(group);
    }

    /// This document as a subgroup: `group: name {` ... `} // group name`,
    /// its lines indented as `ncdump` indents nested groups.
    fn render_nested(&self, out: &mut String, lput: &mut Lput, depth: usize) {
        let text = self.body(lput, depth);
        let body = text
            .strip_prefix("netcdf ")
            .and_then(|t| t.strip_suffix("}\n"))
            .expect("a document is `netcdf name {` ... `}`");
        let mut lines = body.lines();
        let first = lines.next().unwrap_or_default();
        out.push_str(&format!("\ngroup: {first}\n"));
        for line in lines {
            let indent = if line.is_empty() { "" } else { "  " };
            // A group's own attributes are its group attributes.
            let line = match line {
                "// global attributes:" => "// group attributes:",
                other => other,
            };
            out.push_str(&format!("{indent}{line}\n"));
        }
        out.push_str(&format!("  }} // group {}\n", escape(&self.name)));
    }
}
