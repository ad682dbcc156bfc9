//! The user-defined types a datatype needs in CDL: each nested type
//! named after its member, identical ones shared.

use std::collections::HashSet;

use super::name::check_name;
use crate::lang::{LangError, Language, child};
use crate::{Charset, Datatype, EnumMember, FixedString, IntType};

/// A reference to a type: a CDL primitive or a defined type's raw name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum TypeRef {
    Prim(&'static str),
    Named(String),
}

/// One compound field: its type, raw name and fixed dimensions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Field {
    pub(super) ty: TypeRef,
    pub(super) name: String,
    pub(super) dims: Vec<usize>,
}

/// A user-defined type's definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Def {
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
        // A time is its count; the variable's CF attributes say of what
        // (a compound member has none: its unit is not described).
        Datatype::Int64 | Datatype::Time(_) => "int64",
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
pub(super) struct TypeSet {
    pub(super) defs: Vec<(String, Def)>,
    /// Names given by the caller, which derived names must not take.
    reserved: HashSet<String>,
    /// The definitions of the enclosing groups, nearest first, which this
    /// group uses by name rather than define again.
    outer: Vec<(String, Def)>,
}

impl TypeSet {
    /// Defines `dt` (and everything it uses) under `name`, returning the
    /// reference a variable or field uses.
    pub(super) fn add_root(&mut self, name: &str, dt: &Datatype) -> Result<TypeRef, LangError> {
        dt.validate()?;
        if let Some(p) = prim(dt) {
            return Ok(TypeRef::Prim(p));
        }
        // One byte of text: a `char` variable, its characters along its
        // last dimension (the netCDF character convention).
        if *dt
            == Datatype::FixedString(FixedString {
                length: 1,
                charset: Charset::Ascii,
            })
        {
            return Ok(TypeRef::Prim("char"));
        }
        // Text of any length as a whole variable: netCDF's string, as
        // ncdump shows NumPy's `U` (a compound member of it stays an error:
        // netCDF compounds hold no strings).
        if let Datatype::FixedString(FixedString {
            charset: Charset::Utf32,
            ..
        }) = dt
        {
            return Ok(TypeRef::Prim("string"));
        }
        check_name(name, "type")?;
        // bool and complex have names of their own (`bool_t`, nc-complex's):
        // the name given is not theirs to keep from them.
        if !matches!(
            dt,
            Datatype::Bool | Datatype::Complex64 | Datatype::Complex128
        ) {
            self.reserved.insert(name.to_string());
        }
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
                return unsupported("netCDF opaque types are at least 1 byte");
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
                return unsupported(
                    "netCDF has no UTF-32 type (char is one byte, string is UTF-8)",
                );
            }
            Datatype::FixedString(_) | Datatype::Array(_) => {
                return unsupported(
                    "netCDF has no fixed-string or array type; write it as a compound member \
                     (char name(n) / T name(a, b)) or give the variable those dimensions",
                );
            }
            Datatype::Optional(_) => {
                return unsupported(
                    "netCDF-4 has no optional type; give the variable a `_FillValue` for the \
                     missing values",
                );
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
                None if self.outer.iter().any(|(n, d)| *n == name && *d == def) => Ok(name),
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
                let mut known = self.defs.iter().chain(&self.outer);
                if let Some((name, _)) = known.find(|(_, d)| *d == def) {
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

    /// Every name the definitions hold: the types', their fields' and
    /// their enum members'.
    pub(super) fn names(&self) -> impl Iterator<Item = &str> {
        self.defs.iter().flat_map(|(name, def)| {
            let inner: Vec<&str> = match def {
                Def::Compound(fields) => fields.iter().map(|f| f.name.as_str()).collect(),
                Def::Enum { members, .. } => members.iter().map(|m| m.name.as_str()).collect(),
                Def::Opaque(_) | Def::Vlen(_) => vec![],
            };
            std::iter::once(name.as_str()).chain(inner)
        })
    }

    /// Lets this set use the definitions of `enclosing`, the set of a group
    /// around this one, and those it could use.
    pub(super) fn see_outer(&mut self, enclosing: &TypeSet) {
        self.outer = enclosing.defs.clone();
        self.outer.extend(enclosing.outer.iter().cloned());
    }

    /// Whether no type needs a definition.
    pub(super) fn is_empty(&self) -> bool {
        self.defs.is_empty()
    }

    fn lookup(&self, name: &str) -> Option<&Def> {
        self.defs.iter().find(|(n, _)| n == name).map(|(_, d)| d)
    }
}
