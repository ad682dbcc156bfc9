//! The same datatype in the other description languages: Datashape, Zarr,
//! netCDF CDL and the NCZarr data model.
//!
//! One module per language:
//!
//! * [`datashape`]: [`Datatype::to_datashape`] (total, lossy where
//!   Datashape has no counterpart) and [`Datatype::try_to_datashape`].
//! * [`zarr`]: Zarr v2 `.zarray` dtypes and Zarr v3 `data_type`s (the
//!   `struct` extension), plus whole array metadata documents.
//! * [`cdl`]: netCDF-4 CDL type definitions exactly as `ncdump -h` prints
//!   them, and a small CDL document builder.
//! * [`nczarr`]: the NCZarr data model (dataset, group, dimension,
//!   variable) with fully qualified names.
//! * [`rust`]: Rust source of the `#[derive(NdlType)]` / `#[derive(Record)]`
//!   types that read a datatype's values exactly.
//!
//! A datatype a language cannot hold is a [`LangError`] that names the
//! language, the member path and the reason; nothing panics.
//!
//! ```
//! use ndl_runtime::{Compound, Datatype};
//!
//! let rec = Datatype::Compound(
//!     Compound::c_layout([("id", Datatype::UInt32), ("t", Datatype::Float64)]).unwrap(),
//! );
//! assert_eq!(rec.to_datashape(), "{id: uint32, t: float64}");
//! ```

pub mod cdl;
pub mod datashape;
pub mod nczarr;
pub mod rust;
pub mod zarr;

use std::fmt;

use crate::{Charset, Datatype, DatatypeError};

/// The languages of this module, as named in errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Language {
    /// Blaze Datashape.
    Datashape,
    /// Zarr v2 `.zarray` dtype.
    ZarrV2,
    /// Zarr v3 `data_type`.
    ZarrV3,
    /// netCDF-4 CDL (`ncgen`/`ncdump`).
    Cdl,
    /// The NCZarr data model.
    NcZarr,
    /// Rust source: `#[derive(NdlType)]` and `#[derive(Record)]` types.
    Rust,
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Language::Datashape => "Datashape",
            Language::ZarrV2 => "Zarr v2",
            Language::ZarrV3 => "Zarr v3",
            Language::Cdl => "netCDF CDL",
            Language::NcZarr => "NCZarr",
            Language::Rust => "Rust",
        })
    }
}

/// Why a datatype or a name cannot be written in a language.
///
/// `path` fields hold compound member names from the outermost record
/// inwards; an empty path is the datatype itself.
///
/// ```
/// use ndl_runtime::lang::{LangError, Language};
/// use ndl_runtime::Datatype;
///
/// let err = Datatype::ObjRef.try_to_datashape().unwrap_err();
/// assert!(matches!(err, LangError::Unsupported { language: Language::Datashape, .. }));
/// assert!(err.to_string().contains("objref"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LangError {
    /// The language has no form for this datatype (at this place).
    #[error("{language}: {}: {what} cannot be expressed: {why}", location(.path))]
    Unsupported {
        /// The target language.
        language: Language,
        /// Member names leading to the datatype; empty for the datatype itself.
        path: Vec<String>,
        /// The datatype, described.
        what: String,
        /// The reason, and what to do instead where there is a choice.
        why: String,
    },
    /// A name the language cannot hold.
    #[error("{language}: {role} name {name:?} is not allowed: {why}")]
    BadName {
        /// The target language.
        language: Language,
        /// What the name names (`compound member`, `dimension`, ...).
        role: &'static str,
        /// The name as given.
        name: String,
        /// The rule it breaks.
        why: String,
    },
    /// Two things in one scope share a name.
    #[error("{language}: {role} name {name:?} is already used in {scope}")]
    Duplicate {
        /// The target language.
        language: Language,
        /// What the name names.
        role: &'static str,
        /// The name.
        name: String,
        /// The scope, e.g. `group "/"`.
        scope: String,
    },
    /// A reference (a dimension name or FQN) that does not resolve.
    #[error("{language}: {what} {reference:?} {why}")]
    Unresolved {
        /// The target language.
        language: Language,
        /// What is referenced (`dimension`, ...).
        what: &'static str,
        /// The reference as given.
        reference: String,
        /// Why it does not resolve.
        why: String,
    },
    /// An array or chunk shape the language cannot take.
    #[error("{language}: {why}")]
    Shape {
        /// The target language.
        language: Language,
        /// What is wrong with the shape.
        why: String,
    },
    /// The datatype itself is not well formed.
    #[error("the datatype is not well formed: {0}")]
    Invalid(#[from] DatatypeError),
}

impl LangError {
    /// An [`LangError::Unsupported`] for `dt` at `path`.
    pub(crate) fn unsupported(
        language: Language,
        path: &[String],
        dt: &Datatype,
        why: impl Into<String>,
    ) -> LangError {
        LangError::Unsupported {
            language,
            path: path.to_vec(),
            what: describe(dt),
            why: why.into(),
        }
    }
}

/// `the datatype` or ``member `a.b` `` for an error message.
fn location(path: &[String]) -> String {
    if path.is_empty() {
        "the datatype".into()
    } else {
        format!("member `{}`", path.join("."))
    }
}

/// A short description of a datatype for error messages: its NDL keyword
/// or its kind with the parameters that matter.
pub(crate) fn describe(dt: &Datatype) -> String {
    if let Some(k) = dt.keyword() {
        return k.to_string();
    }
    match dt {
        Datatype::FixedString(s) => format!(
            "fixed-length {} string of {} characters",
            match s.charset {
                Charset::Ascii => "ASCII",
                Charset::Utf32 => "UTF-32",
            },
            s.length
        ),
        Datatype::Opaque(o) => format!("opaque of {} bytes", o.size),
        Datatype::Enum(e) => format!("enum (base {})", e.base),
        Datatype::RegRef(_) => "regref".into(),
        Datatype::Compound(c) => format!("compound of {} members", c.members.len()),
        Datatype::Vlen(b) => format!("vlen of {}", describe(b)),
        Datatype::Optional(b) => format!("optional {}", describe(b)),
        Datatype::Array(a) => format!("array {:?} of {}", a.shape, describe(&a.base)),
        other => format!("{other:?}"),
    }
}

/// `path` with `name` appended, for descending into a member.
pub(crate) fn child(path: &[String], name: &str) -> Vec<String> {
    let mut p = path.to_vec();
    p.push(name.to_string());
    p
}
