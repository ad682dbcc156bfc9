//! Describing a file or store in each language: its [`Contents`] read
//! once, rendered by one module per language.

mod cdl;
mod ndl;
mod numpy;
mod rust;
mod sidecar;
mod zarr;

use std::fmt::Write as _;
use std::path::Path;

use ndl_runtime::Datatype;

use ndl_runtime::npy::HeaderLimits;

use crate::contents::{Arrangement, Contents, Entry};
use crate::error::{Error, Result};
use crate::format::Format;

/// The languages a description is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Language {
    /// NDL YAML: the whole file as one document.
    Ndl,
    /// The NumPy header dict of each array: descr, fortran_order, shape.
    Numpy,
    /// A Datashape for each array: `3 * {id: uint32, t: float64}`.
    Datashape,
    /// Zarr metadata for each array (JSON): a store's own, else the
    /// `.zarray` of a store holding the array.
    Zarr,
    /// A netCDF-4 CDL document with a variable for each array.
    Cdl,
    /// The Rust source of the type that reads one array's records
    /// exactly (`#[derive(NdlType)]`, or `#[derive(Record)]` for
    /// variable-length and nullable members); see
    /// [`DescribeOptions::member`] and [`DescribeOptions::type_name`].
    Rust,
}

/// How to describe.
///
/// ```
/// use ndl_formats::DescribeOptions;
///
/// let options = DescribeOptions::new().sidecar(false);
/// # let _ = options;
/// ```
#[derive(Clone, Debug)]
pub struct DescribeOptions {
    pub(crate) limits: HeaderLimits,
    pub(crate) sidecar: bool,
    pub(crate) member: Option<String>,
    pub(crate) type_name: Option<String>,
}

impl Default for DescribeOptions {
    fn default() -> DescribeOptions {
        DescribeOptions {
            limits: HeaderLimits::default(),
            sidecar: true,
            member: None,
            type_name: None,
        }
    }
}

impl DescribeOptions {
    /// The defaults: NumPy's header bounds, sidecars used.
    pub fn new() -> DescribeOptions {
        DescribeOptions::default()
    }

    /// Bounds on a `.npy` header.
    pub fn limits(mut self, limits: HeaderLimits) -> DescribeOptions {
        self.limits = limits;
        self
    }

    /// Whether an NDL sidecar beside a `.npy`/`.npz` file adds what the
    /// file cannot hold: enum names, descriptions, attributes.
    pub fn sidecar(mut self, sidecar: bool) -> DescribeOptions {
        self.sidecar = sidecar;
        self
    }

    /// The array [`Language::Rust`] describes, by its label (`group/name`
    /// below the root, or the `.npz` member): needed when there are several.
    pub fn member(mut self, member: impl Into<String>) -> DescribeOptions {
        self.member = Some(member.into());
        self
    }

    /// The name of [`Language::Rust`]'s top-level type (made
    /// UpperCamelCase); the file's name without extension by default.
    pub fn type_name(mut self, name: impl Into<String>) -> DescribeOptions {
        self.type_name = Some(name.into());
        self
    }
}

/// A description, and what its reader should know about it.
#[derive(Clone, Debug)]
pub struct Description {
    /// The text in the language asked for.
    pub text: String,
    /// Arrays left out, sidecars not used.
    pub warnings: Vec<String>,
}

/// Describes the file or store at `path` in `language`.
pub fn describe(path: &Path, language: Language, options: &DescribeOptions) -> Result<Description> {
    let format = Format::of_existing(path)?;
    let mut contents = read_contents(path, format, options)?;
    let sidecar = if options.sidecar && format.info().sidecar {
        sidecar::read(path, &mut contents.warnings)
    } else {
        None
    };
    if let Some(sidecar) = &sidecar {
        sidecar::adopt_datatypes(sidecar, &mut contents);
    }
    let text = match language {
        Language::Ndl => {
            let mut doc = ndl::document(path, &contents)?;
            if let Some(sidecar) = &sidecar {
                sidecar::merge_attributes(sidecar, &mut doc, &mut contents.warnings);
            }
            doc.to_yaml()
        }
        Language::Numpy => {
            let notes = contents.entries.iter().filter_map(numpy::objects_note);
            let notes: Vec<String> = notes.collect();
            contents.warnings.extend(notes);
            numpy::dicts(path, &contents)?
        }
        Language::Datashape => {
            let notes = contents.entries.iter().filter_map(numpy::datashape_note);
            let notes: Vec<String> = notes.collect();
            contents.warnings.extend(notes);
            listing(&contents, numpy::datashape)
        }
        Language::Zarr => {
            if let (Arrangement::One, [e]) = (contents.arrangement, contents.entries.as_slice())
                && let Some(why) = zarr::cannot_say(e)
            {
                return Err(Error::Description {
                    path: path.to_path_buf(),
                    message: format!("`{}`: Zarr: {why}", e.label()),
                });
            }
            let said = said_in(&mut contents, "Zarr", zarr::cannot_say);
            zarr::metadata(path, &said)?
        }
        Language::Cdl => {
            cdl::values_for_nulls(&mut contents);
            cdl::leave_out_nulls(&mut contents);
            let said = said_in(&mut contents, "netCDF CDL", cdl::cannot_say);
            cdl::document(path, &said)?
        }
        Language::Rust => match table_of(path, format, &contents, options)? {
            Some(datatype) => rust::of_table(path, &datatype, options.type_name.as_deref())?,
            None => rust::source(
                path,
                &contents,
                options.member.as_deref(),
                options.type_name.as_deref(),
            )?,
        },
    };
    Ok(Description {
        text,
        warnings: contents.warnings,
    })
}

/// The records of a file of several arrays that are one table's columns
/// (a netCDF-4 file whose variables share a record dimension, as xarray
/// writes a table), when no member is asked for: what `ndl convert`
/// reads as records.
fn table_of(
    path: &Path,
    format: Format,
    contents: &Contents,
    options: &DescribeOptions,
) -> Result<Option<Datatype>> {
    let Some(open) = format.info().open_records else {
        return Ok(None);
    };
    if options.member.is_some() || contents.entries.len() < 2 {
        return Ok(None);
    }
    let source = open(path, &crate::options::ReadOptions::default())?;
    Ok(source.map(|s| s.origin().datatype.clone()))
}

/// What the file or store at `path`, of `format`, holds.
pub fn read_contents(path: &Path, format: Format, options: &DescribeOptions) -> Result<Contents> {
    format.contents(path, &options.limits)
}

/// One line for a single array; `name: text` lines for several.
fn listing(contents: &Contents, render: impl Fn(&Entry) -> String) -> String {
    let mut out = String::new();
    for e in &contents.entries {
        let text = render(e);
        match contents.arrangement {
            Arrangement::One => writeln!(out, "{text}"),
            Arrangement::Archive | Arrangement::Group => writeln!(out, "{}: {text}", e.label()),
        }
        .expect("writing to a String");
    }
    out
}

/// `contents` without the arrays `language` cannot say (`cannot_say`
/// gives why), each left out with a warning, so the rest of a file is
/// described; a lone array is kept, for the language's own error.
fn said_in(
    contents: &mut Contents,
    language: &str,
    cannot_say: fn(&Entry) -> Option<String>,
) -> Contents {
    let mut said = contents.clone();
    if said.arrangement == Arrangement::One {
        return said;
    }
    said.entries.retain(|e| match cannot_say(e) {
        Some(why) => {
            contents
                .warnings
                .push(format!("`{}`: {language}: {why}; left out", e.label()));
            false
        }
        None => true,
    });
    said
}

/// Whether `dt` holds no fixed-size bytes: a variable-length string or
/// sequence, or a reference (what h5py reads as Python objects).
pub(crate) fn is_object(dt: &Datatype) -> bool {
    matches!(
        dt,
        Datatype::String | Datatype::Vlen(_) | Datatype::ObjRef | Datatype::RegRef(_)
    )
}

/// The members of `dt` (dotted paths, `""` for `dt` itself) that are
/// [objects](is_object), and what each is, in NumPy's descr order.
pub(crate) fn object_parts(dt: &Datatype) -> Vec<(String, String)> {
    fn walk(dt: &Datatype, at: &str, out: &mut Vec<(String, String)>) {
        match dt {
            _ if is_object(dt) => out.push((at.to_string(), object_kind(dt))),
            // A table's column with nulls: its values' objects, or the
            // fields of its records; else an object of its own (a value
            // or None).
            Datatype::Optional(base) if is_object(base) || !is_plain_value(base) => {
                walk(base, at, out)
            }
            Datatype::Optional(base) => {
                out.push((at.to_string(), format!("optional {}", object_kind(base))))
            }
            Datatype::Array(a) => walk(&a.base, at, out),
            Datatype::Compound(c) => {
                for m in c.by_offset() {
                    let path = if at.is_empty() {
                        m.name.clone()
                    } else {
                        format!("{at}.{}", m.name)
                    };
                    walk(&m.datatype, &path, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(dt, "", &mut out);
    out
}

/// Whether `dt` is a plain value that a column with nulls makes an
/// object of its own: not a record (whose fields are looked into) nor
/// bytes tagged `arrow:` (which NumPy's note names by their Arrow type).
fn is_plain_value(dt: &Datatype) -> bool {
    match dt {
        Datatype::Compound(_) => false,
        Datatype::Opaque(o) => !o.tag.as_deref().is_some_and(|t| t.starts_with("arrow:")),
        _ => true,
    }
}

/// What an [object](is_object) is, in words: `vlen of float32`.
fn object_kind(dt: &Datatype) -> String {
    match dt {
        Datatype::String => "string".into(),
        Datatype::Vlen(base) => format!("vlen of {}", object_kind(base)),
        Datatype::ObjRef => "object reference".into(),
        Datatype::RegRef(_) => "region reference".into(),
        Datatype::Compound(c) if c.is_variable() => "record with variable-length members".into(),
        other => ndl_runtime::schema::describe(other),
    }
}

/// `` `sym` (string), `lv` (vlen of float32) ``.
pub(crate) fn listed_parts(parts: &[(String, String)]) -> String {
    let each: Vec<String> = parts
        .iter()
        .map(|(name, what)| format!("`{name}` ({what})"))
        .collect();
    each.join(", ")
}

/// A language's error about one array.
fn in_entry(path: &Path, e: &Entry) -> impl Fn(ndl_runtime::lang::LangError) -> Error + use<> {
    let (path, array) = (path.to_path_buf(), e.label());
    move |source| Error::Language {
        path: path.clone(),
        array: array.clone(),
        source: Box::new(source),
    }
}
