//! Describing a file or store in each language: its [`Contents`] read
//! once, rendered by one module per language.

mod cdl;
mod ndl;
mod numpy;
mod sidecar;
mod zarr;

use std::fmt::Write as _;
use std::path::Path;

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
}

impl Default for DescribeOptions {
    fn default() -> DescribeOptions {
        DescribeOptions {
            limits: HeaderLimits::default(),
            sidecar: true,
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
        Language::Numpy => numpy::dicts(path, &contents)?,
        Language::Datashape => {
            let notes = contents.entries.iter().filter_map(numpy::datashape_note);
            let notes: Vec<String> = notes.collect();
            contents.warnings.extend(notes);
            listing(&contents, numpy::datashape)
        }
        Language::Zarr => zarr::metadata(path, &contents)?,
        Language::Cdl => cdl::document(path, &contents)?,
    };
    Ok(Description {
        text,
        warnings: contents.warnings,
    })
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

/// The number a JSON value of a float attribute holds: a number, or
/// NaN or an infinity, which JSON holds as text (`NaN`, `inf`, `-inf`).
fn float_of(value: &serde_json::Value) -> Option<f64> {
    match value {
        serde_json::Value::String(s) => match s.as_str() {
            "NaN" | "nan" => Some(f64::NAN),
            "inf" | "Infinity" => Some(f64::INFINITY),
            "-inf" | "-Infinity" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        other => other.as_f64(),
    }
}

/// A language's error about one array.
fn in_entry(path: &Path, e: &Entry) -> impl Fn(ndl_runtime::lang::LangError) -> Error {
    let (path, array) = (path.to_path_buf(), e.label());
    move |source| Error::Language {
        path: path.clone(),
        array: array.clone(),
        source: Box::new(source),
    }
}
