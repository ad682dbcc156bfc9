//! Errors of NDL documents, each carrying where in the document it is.

use std::fmt;

use serde_yaml::Value;

/// Why an NDL document was rejected, and where.
///
/// The location names the group path (in a path-keyed document), the
/// entity and the key, e.g. `/group2/subgroup1: ndarray `nd`: shape[1]`.
///
/// ```
/// use ndl_runtime::ndl::{File, NdlErrorKind};
///
/// let err = File::from_yaml("ndarrays:\n  z:\n    shape: [10, -1]\n    type: float64\n").unwrap_err();
/// assert_eq!(err.location(), "ndarray `z`: shape[1]");
/// assert!(matches!(err.kind(), NdlErrorKind::Expected { .. }));
/// assert_eq!(
///     err.to_string(),
///     "ndarray `z`: shape[1]: expected a size, null (unlimited) or a dimcoord name, found the number -1"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct NdlError {
    location: String,
    kind: NdlErrorKind,
}

impl NdlError {
    /// Where in the document: segments joined by `: `, empty for the whole document.
    pub fn location(&self) -> &str {
        &self.location
    }

    /// What is wrong.
    pub fn kind(&self) -> &NdlErrorKind {
        &self.kind
    }
}

impl fmt::Display for NdlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.location.is_empty() {
            write!(f, "{}", self.kind)
        } else {
            write!(f, "{}: {}", self.location, self.kind)
        }
    }
}

/// What is wrong with an NDL document.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NdlErrorKind {
    /// The text is not one YAML document.
    #[error("not a YAML document: {0}")]
    Yaml(String),
    /// A value of the wrong kind.
    #[error("expected {expected}, found {found}")]
    Expected {
        /// What the key takes.
        expected: &'static str,
        /// What was there.
        found: String,
    },
    /// A key the entity does not have.
    #[error("unknown key {key}; expected one of: {}", allowed.join(", "))]
    UnknownKey {
        /// The key, described.
        key: String,
        /// The keys allowed here.
        allowed: &'static [&'static str],
    },
    /// A required key is missing.
    #[error("missing key `{0}`")]
    MissingKey(&'static str),
    /// The top level has both group paths and root-group keys.
    #[error(
        "the top level mixes group paths (`/...`) with the root-group key `{0}`; put it under `/`"
    )]
    MixedTopLevel(String),
    /// A group path that does not start with `/` or has an empty segment.
    #[error(
        "`{0}` is not a group path: a group path starts with `/` and has no empty segment or trailing `/`"
    )]
    BadGroupPath(String),
    /// A flat (non-hierarchical) file with a group other than the root.
    #[error("a flat file holds only the root group, not `{0}`")]
    GroupInFlatFile(String),
    /// An ndarray or dimcoord name that cannot be part of a path name.
    #[error("`{0}` is not an ndarray or dimcoord name: a name is not empty and holds no `/`")]
    BadName(String),
    /// A dimcoord reference in a shape that is not a path.
    #[error("`{0}` is not a dimcoord name or path")]
    BadDimReference(String),
    /// A dimcoord reference in a shape that names no dimcoord.
    #[error("`{0}` names no dimcoord")]
    UnresolvedDim(String),
    /// The `type:` value is not a datatype.
    #[error("{0}")]
    Datatype(String),
    /// `endian` other than `little` or `big`.
    #[error("unknown endian `{0}`; expected little or big")]
    UnknownEndian(String),
    /// `order` other than `C` or `F` (extension).
    #[error("unknown order `{0}`; expected C (row-major) or F (column-major)")]
    UnknownOrder(String),
    /// A storage directive where the spec does not allow it.
    #[error("the `{directive}` storage directive is only allowed for {allowed_for}")]
    DirectiveNotAllowed {
        /// The directive.
        directive: &'static str,
        /// Where it is allowed.
        allowed_for: &'static str,
    },
    /// A dimcoord of size 0.
    #[error("a dimcoord size is a positive integer or null")]
    ZeroSize,
    /// A list whose length must equal a rank.
    #[error("has {found} entries, but the rank is {rank}")]
    RankMismatch {
        /// The rank.
        rank: usize,
        /// The list's length.
        found: usize,
    },
    /// A stored extent larger than the declared one.
    #[error("{stored} exceeds the declared extent {declared}")]
    ExceedsExtent {
        /// The stored extent.
        stored: usize,
        /// The declared extent.
        declared: usize,
    },
    /// A value list whose length is not the extent of its dimension.
    #[error("a list of {expected} values was expected, found {found}")]
    LengthMismatch {
        /// The extent.
        expected: usize,
        /// The list's length.
        found: usize,
    },
    /// A value that is not a value of the datatype.
    #[error("{found} is not a value of {datatype}")]
    NotOfDatatype {
        /// The datatype's keyword.
        datatype: &'static str,
        /// The value, described.
        found: String,
    },
    /// A short-form attribute whose value is not a scalar.
    #[error(
        "{0} cannot be a short-form attribute, which is a scalar; use the long form {{shape, type, value}}"
    )]
    NoShortForm(String),
}

/// A location being built while walking a document.
#[derive(Clone, Debug, Default)]
pub(crate) struct Ctx {
    segments: Vec<String>,
}

impl Ctx {
    /// The whole document.
    pub(crate) fn root() -> Ctx {
        Ctx::default()
    }

    /// A location one segment deeper.
    pub(crate) fn at(&self, segment: impl fmt::Display) -> Ctx {
        let mut segments = self.segments.clone();
        segments.push(segment.to_string());
        Ctx { segments }
    }

    /// A location with `suffix` glued to the last segment: `shape` → `shape[1]`.
    pub(crate) fn suffixed(&self, suffix: impl fmt::Display) -> Ctx {
        let mut segments = self.segments.clone();
        match segments.last_mut() {
            Some(last) => last.push_str(&suffix.to_string()),
            None => segments.push(suffix.to_string()),
        }
        Ctx { segments }
    }

    /// An error at this location.
    pub(crate) fn err(&self, kind: NdlErrorKind) -> NdlError {
        NdlError {
            location: self.segments.join(": "),
            kind,
        }
    }

    /// An [`NdlErrorKind::Expected`] error at this location.
    pub(crate) fn expected(&self, expected: &'static str, found: &Value) -> NdlError {
        self.err(NdlErrorKind::Expected {
            expected,
            found: describe_value(found),
        })
    }
}

/// A short description of a YAML value for error messages.
pub(crate) fn describe_value(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {s:?}"),
        Value::Sequence(_) => "a list".into(),
        Value::Mapping(_) => "a mapping".into(),
        Value::Tagged(t) => format!("a value tagged {}", t.tag),
    }
}
