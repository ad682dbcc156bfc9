//! The NCZarr data model (Unidata, "NetCDF ZARR Data Model Specification"):
//! a dataset is a root group; groups hold dimensions, variables and
//! groups; a variable has an atomic type and dimension references, each an
//! anonymous size or the fully qualified name (FQN) of a dimension.
//!
//! **Types.** NCZarr is "netCDF-4 minus the user-defined types": only the
//! atomic types `byte` … `uint64`, `float`, `double`, `char` and `string`
//! ([`AtomicType`]). The spec text lists the integers and `char`; netCDF-C's
//! NCZarr code also maps `float`, `double` and `string`, so they are
//! included. Compounds, enums, opaques, vlens, arrays, references, `bool`,
//! `float16`, complex and UTF-32 strings are errors; an ASCII fixed string
//! of one character is `char` (longer ones are `char` with a dimension).
//!
//! **Names and FQNs.** A name is one or more characters, none of them a
//! control character (U+0000–U+001F). The FQN of a dimension or variable
//! is `/` followed by the names of the enclosing groups and its own name,
//! separated by `/`; the dataset's own name is ignored (the root is `/`).
//! In an FQN each name escapes `/` as `\/`, `\` as `\\` and a blank as
//! `\ `. (netCDF-C itself forbids `/` in names; the spec's escape is
//! followed here.)
//!
//! **Scope.** A named dimension reference must resolve to a dimension of
//! the variable's group or of one of its ancestors, as in netCDF-4.
//!
//! ```
//! use ndl_runtime::lang::nczarr::{Dataset, DimRef};
//! use ndl_runtime::Datatype;
//!
//! let mut ds = Dataset::new("obs").unwrap();
//! let time = ds.root_mut().add_dimension("time", 10).unwrap();
//! let g = ds.root_mut().add_group("my group").unwrap();
//! let v = g.add_variable("t/2", &Datatype::Float64, vec![DimRef::Named(time.clone()), DimRef::Size(3)]).unwrap();
//! assert_eq!(time.to_string(), "/time");
//! assert_eq!(v.to_string(), r"/my\ group/t\/2");
//! ds.validate().unwrap();
//! ```

use std::fmt;

use crate::lang::{LangError, Language};
use crate::{Charset, Datatype};

/// The atomic types NCZarr variables can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicType {
    /// `byte`: signed 8-bit integer.
    Byte,
    /// `ubyte`: unsigned 8-bit integer.
    UByte,
    /// `short`: signed 16-bit integer.
    Short,
    /// `ushort`: unsigned 16-bit integer.
    UShort,
    /// `int`: signed 32-bit integer.
    Int,
    /// `uint`: unsigned 32-bit integer.
    UInt,
    /// `int64`: signed 64-bit integer.
    Int64,
    /// `uint64`: unsigned 64-bit integer.
    UInt64,
    /// `float`: IEEE single precision.
    Float,
    /// `double`: IEEE double precision.
    Double,
    /// `char`: one 8-bit character (NCZarr treats it as `ubyte`).
    Char,
    /// `string`: variable-length string (stored as fixed `|S<n>` in Zarr v2).
    String,
}

impl AtomicType {
    /// The netCDF/CDL name: `byte`, `ubyte`, …, `char`, `string`.
    ///
    /// ```
    /// use ndl_runtime::lang::nczarr::AtomicType;
    /// assert_eq!(AtomicType::UShort.name(), "ushort");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            AtomicType::Byte => "byte",
            AtomicType::UByte => "ubyte",
            AtomicType::Short => "short",
            AtomicType::UShort => "ushort",
            AtomicType::Int => "int",
            AtomicType::UInt => "uint",
            AtomicType::Int64 => "int64",
            AtomicType::UInt64 => "uint64",
            AtomicType::Float => "float",
            AtomicType::Double => "double",
            AtomicType::Char => "char",
            AtomicType::String => "string",
        }
    }
}

impl fmt::Display for AtomicType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl TryFrom<&Datatype> for AtomicType {
    type Error = LangError;

    /// The NCZarr atomic type of a datatype, or why it has none.
    ///
    /// ```
    /// use ndl_runtime::lang::nczarr::AtomicType;
    /// use ndl_runtime::Datatype;
    ///
    /// assert_eq!(AtomicType::try_from(&Datatype::Int16).unwrap(), AtomicType::Short);
    /// assert!(AtomicType::try_from(&Datatype::Bool).is_err());
    /// ```
    fn try_from(dt: &Datatype) -> Result<AtomicType, LangError> {
        let why = match dt {
            Datatype::Int8 => return Ok(AtomicType::Byte),
            Datatype::UInt8 => return Ok(AtomicType::UByte),
            Datatype::Int16 => return Ok(AtomicType::Short),
            Datatype::UInt16 => return Ok(AtomicType::UShort),
            Datatype::Int32 => return Ok(AtomicType::Int),
            Datatype::UInt32 => return Ok(AtomicType::UInt),
            Datatype::Int64 => return Ok(AtomicType::Int64),
            Datatype::UInt64 => return Ok(AtomicType::UInt64),
            Datatype::Float32 => return Ok(AtomicType::Float),
            Datatype::Float64 => return Ok(AtomicType::Double),
            Datatype::String => return Ok(AtomicType::String),
            Datatype::FixedString(s) if s.charset == Charset::Ascii && s.length == 1 => {
                return Ok(AtomicType::Char);
            }
            Datatype::FixedString(s) if s.charset == Charset::Ascii => {
                "char holds one character; give the variable a trailing dimension of the \
                 string length and type char"
            }
            Datatype::Compound(_) | Datatype::Enum(_) | Datatype::Opaque(_) | Datatype::Vlen(_) => {
                "NCZarr excludes netCDF-4's user-defined types (compound, enum, opaque, vlen)"
            }
            Datatype::Array(_) => "NCZarr has no array type; use the variable's dimensions",
            Datatype::Optional(_) => {
                "NCZarr has no optional type; give the variable a `_FillValue` for the missing \
                 values"
            }
            Datatype::ObjRef | Datatype::RegRef(_) => "NCZarr has no reference types",
            Datatype::FixedString(_) => "NCZarr has no UTF-32 type",
            Datatype::Time(_) => {
                "netCDF has no time type: store the counts as an int64 variable with CF \
                 `units` and `calendar` attributes, as the columns layout does"
            }
            _ => "not a netCDF atomic type (netCDF has no bool, float16 or complex)",
        };
        Err(LangError::unsupported(Language::NcZarr, &[], dt, why))
    }
}

/// Escapes one name for use in an FQN: `/` → `\/`, `\` → `\\`, blank → `\ `.
///
/// ```
/// use ndl_runtime::lang::nczarr::escape_name;
/// assert_eq!(escape_name(r"a/b\c d"), r"a\/b\\c\ d");
/// ```
pub fn escape_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if matches!(c, '/' | '\\' | ' ') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn check_name(name: &str, role: &'static str) -> Result<(), LangError> {
    let why = if name.is_empty() {
        "an NCZarr NAME has at least one character"
    } else if name.chars().any(|c| (c as u32) < 0x20) {
        "an NCZarr NAME contains no control characters (U+0000-U+001F)"
    } else {
        return Ok(());
    };
    Err(LangError::BadName {
        language: Language::NcZarr,
        role,
        name: name.to_string(),
        why: why.into(),
    })
}

/// A fully qualified name: the names of the groups from the root down,
/// then the object's own name. Displays in the escaped `/a/b` form.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Fqn(Vec<String>);

impl Fqn {
    /// The FQN of the object `segments` names from the root (empty: the
    /// root group itself, `/`).
    pub fn new(segments: Vec<String>) -> Fqn {
        Fqn(segments)
    }

    /// Parses the escaped form (`/`, `/a`, `/g\ 1/x\/y`).
    ///
    /// ```
    /// use ndl_runtime::lang::nczarr::Fqn;
    ///
    /// let f = Fqn::parse(r"/g\ 1/x\/y").unwrap();
    /// assert_eq!(f.segments(), ["g 1", "x/y"]);
    /// assert_eq!(f.to_string(), r"/g\ 1/x\/y");
    /// assert!(Fqn::parse("a/b").is_err());
    /// ```
    pub fn parse(s: &str) -> Result<Fqn, LangError> {
        let bad = |why: &str| LangError::Unresolved {
            language: Language::NcZarr,
            what: "FQN",
            reference: s.to_string(),
            why: why.to_string(),
        };
        let rest = s
            .strip_prefix('/')
            .ok_or_else(|| bad("does not start with `/`"))?;
        if rest.is_empty() {
            return Ok(Fqn(Vec::new()));
        }
        let mut segments = Vec::new();
        let mut current = String::new();
        let mut chars = rest.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some(e @ ('/' | '\\' | ' ')) => current.push(e),
                    _ => return Err(bad("has a `\\` not followed by `/`, `\\` or a blank")),
                },
                '/' => segments.push(std::mem::take(&mut current)),
                c => current.push(c),
            }
        }
        segments.push(current);
        for seg in &segments {
            if seg.is_empty() {
                return Err(bad("has an empty name between `/`s"));
            }
            check_name(seg, "FQN segment")?;
        }
        Ok(Fqn(segments))
    }

    /// The unescaped names, outermost group first.
    pub fn segments(&self) -> &[String] {
        &self.0
    }
}

impl fmt::Display for Fqn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("/");
        }
        for s in &self.0 {
            write!(f, "/{}", escape_name(s))?;
        }
        Ok(())
    }
}

/// A dimension: a name and a size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dimension {
    /// The dimension's name.
    pub name: String,
    /// Its size.
    pub size: u64,
}

/// One dimension of a variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DimRef {
    /// An anonymous dimension of this size.
    Size(u64),
    /// A named dimension, by FQN.
    Named(Fqn),
}

/// A variable: a name, an atomic type and its dimensions (none: a scalar).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variable {
    /// The variable's name.
    pub name: String,
    /// Its type.
    pub atomic_type: AtomicType,
    /// Its dimensions, outermost first.
    pub dims: Vec<DimRef>,
}

/// A group: dimensions, variables and subgroups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    path: Vec<String>,
    dimensions: Vec<Dimension>,
    variables: Vec<Variable>,
    groups: Vec<Group>,
}

impl Group {
    fn new(path: Vec<String>) -> Group {
        Group {
            path,
            dimensions: Vec::new(),
            variables: Vec::new(),
            groups: Vec::new(),
        }
    }

    /// The group's FQN (`/` for the root).
    pub fn fqn(&self) -> Fqn {
        Fqn(self.path.clone())
    }

    /// The dimensions, in declaration order.
    pub fn dimensions(&self) -> &[Dimension] {
        &self.dimensions
    }

    /// The variables, in declaration order.
    pub fn variables(&self) -> &[Variable] {
        &self.variables
    }

    /// The subgroups, in declaration order.
    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    fn child_fqn(&self, name: &str) -> Fqn {
        let mut p = self.path.clone();
        p.push(name.to_string());
        Fqn(p)
    }

    fn duplicate(&self, role: &'static str, name: &str) -> LangError {
        LangError::Duplicate {
            language: Language::NcZarr,
            role,
            name: name.to_string(),
            scope: format!("group {}", self.fqn()),
        }
    }

    /// Adds a subgroup and returns it. Groups and variables share one
    /// namespace per group (as in netCDF-4).
    pub fn add_group(&mut self, name: &str) -> Result<&mut Group, LangError> {
        check_name(name, "group")?;
        if self
            .groups
            .iter()
            .any(|g| g.path.last().map(String::as_str) == Some(name))
            || self.variables.iter().any(|v| v.name == name)
        {
            return Err(self.duplicate("group", name));
        }
        let group = Group::new(self.child_fqn(name).0);
        self.groups.push(group);
        let last = self.groups.len() - 1;
        Ok(&mut self.groups[last])
    }

    /// Adds a dimension and returns its FQN.
    pub fn add_dimension(&mut self, name: &str, size: u64) -> Result<Fqn, LangError> {
        check_name(name, "dimension")?;
        if self.dimensions.iter().any(|d| d.name == name) {
            return Err(self.duplicate("dimension", name));
        }
        self.dimensions.push(Dimension {
            name: name.to_string(),
            size,
        });
        Ok(self.child_fqn(name))
    }

    /// Adds a variable of `datatype` (which must be an NCZarr atomic type)
    /// over `dims`, and returns its FQN. Named dimensions are checked by
    /// [`Dataset::validate`], once the whole dataset is built.
    pub fn add_variable(
        &mut self,
        name: &str,
        datatype: &Datatype,
        dims: Vec<DimRef>,
    ) -> Result<Fqn, LangError> {
        check_name(name, "variable")?;
        let atomic_type = AtomicType::try_from(datatype).map_err(|e| match e {
            LangError::Unsupported { what, why, .. } => LangError::Unsupported {
                language: Language::NcZarr,
                path: vec![name.to_string()],
                what,
                why,
            },
            other => other,
        })?;
        if self.variables.iter().any(|v| v.name == name)
            || self
                .groups
                .iter()
                .any(|g| g.path.last().map(String::as_str) == Some(name))
        {
            return Err(self.duplicate("variable", name));
        }
        self.variables.push(Variable {
            name: name.to_string(),
            atomic_type,
            dims,
        });
        Ok(self.child_fqn(name))
    }

    fn group_at(&self, segments: &[String]) -> Option<&Group> {
        match segments.split_first() {
            None => Some(self),
            Some((first, rest)) => self
                .groups
                .iter()
                .find(|g| g.path.last() == Some(first))?
                .group_at(rest),
        }
    }
}

/// A dataset: a name (not part of any FQN) and its root group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dataset {
    name: String,
    root: Group,
}

impl Dataset {
    /// An empty dataset.
    pub fn new(name: &str) -> Result<Dataset, LangError> {
        check_name(name, "dataset")?;
        Ok(Dataset {
            name: name.to_string(),
            root: Group::new(Vec::new()),
        })
    }

    /// The dataset's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The root group.
    pub fn root(&self) -> &Group {
        &self.root
    }

    /// The root group, to add to.
    pub fn root_mut(&mut self) -> &mut Group {
        &mut self.root
    }

    /// The group with this FQN, if any.
    pub fn group(&self, fqn: &Fqn) -> Option<&Group> {
        self.root.group_at(fqn.segments())
    }

    /// The dimension with this FQN, if any.
    pub fn dimension(&self, fqn: &Fqn) -> Option<&Dimension> {
        let (name, groups) = fqn.segments().split_last()?;
        self.root
            .group_at(groups)?
            .dimensions
            .iter()
            .find(|d| &d.name == name)
    }

    /// The FQNs of every dimension and variable, depth first.
    pub fn fqns(&self) -> Vec<Fqn> {
        fn walk(g: &Group, out: &mut Vec<Fqn>) {
            out.extend(g.dimensions.iter().map(|d| g.child_fqn(&d.name)));
            out.extend(g.variables.iter().map(|v| g.child_fqn(&v.name)));
            g.groups.iter().for_each(|c| walk(c, out));
        }
        let mut out = Vec::new();
        walk(&self.root, &mut out);
        out
    }

    /// Checks every named dimension reference: it must name a dimension
    /// of the variable's group or of an ancestor group.
    pub fn validate(&self) -> Result<(), LangError> {
        self.validate_group(&self.root)
    }

    fn validate_group(&self, g: &Group) -> Result<(), LangError> {
        for v in &g.variables {
            for d in &v.dims {
                let DimRef::Named(fqn) = d else { continue };
                let unresolved = |why: String| LangError::Unresolved {
                    language: Language::NcZarr,
                    what: "dimension",
                    reference: fqn.to_string(),
                    why,
                };
                if self.dimension(fqn).is_none() {
                    return Err(unresolved(format!(
                        "of variable {} names no dimension",
                        g.child_fqn(&v.name)
                    )));
                }
                let owner = &fqn.segments()[..fqn.segments().len() - 1];
                if !g.path.starts_with(owner) {
                    return Err(unresolved(format!(
                        "is not in scope for variable {}: a variable sees the dimensions of \
                         its group and its ancestors",
                        g.child_fqn(&v.name)
                    )));
                }
            }
        }
        g.groups.iter().try_for_each(|c| self.validate_group(c))
    }
}
