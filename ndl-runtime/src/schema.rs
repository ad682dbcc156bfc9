//! Whether one datatype holds another's records: the check every reader
//! makes before it turns stored bytes into values of a Rust type.
//!
//! Names, offsets, record sizes, nested compounds and arrays must match.
//! Enums are stored as their base integer, so an enum of the type matches
//! the stored integer of that base (values are checked per record). The
//! byte order is not compared: readers convert it.

use crate::{Charset, Datatype};

/// Where and how a stored datatype differs from the expected one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// The dotted path of the field (`pos.x`, empty for the whole record).
    pub field: String,
    /// What differs.
    pub message: String,
}

/// The first difference between a stored datatype and the expected one.
///
/// ```
/// use ndl_runtime::schema::first_difference;
/// use ndl_runtime::{Compound, Datatype};
///
/// let stored = Compound::c_layout([("id", Datatype::UInt32), ("t", Datatype::Float32)])?;
/// let wanted = Compound::c_layout([("id", Datatype::UInt32), ("t", Datatype::Float64)])?;
/// let d = first_difference(&Datatype::Compound(stored), &Datatype::Compound(wanted)).unwrap();
/// assert_eq!(d.field, "t");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn first_difference(stored: &Datatype, expected: &Datatype) -> Option<Difference> {
    compare(stored, expected, "", 0).map(|(field, message)| Difference { field, message })
}

/// The path of member `name` of the field at `parent` (`a.b`).
pub(crate) fn join_field(parent: &str, name: &str) -> String {
    if parent.is_empty() {
        name.to_string()
    } else {
        format!("{parent}.{name}")
    }
}

/// The first difference between the file's datatype and the expected one,
/// as (field path, message). `at` is the offset of both within the record.
fn compare(
    file: &Datatype,
    expected: &Datatype,
    path: &str,
    at: usize,
) -> Option<(String, String)> {
    match (file, expected) {
        (Datatype::Compound(f), Datatype::Compound(e)) => {
            for em in &e.members {
                let sub = join_field(path, &em.name);
                let Some(fm) = f.member(&em.name) else {
                    return Some((
                        sub,
                        format!("missing in the file, which has fields {}", names(f)),
                    ));
                };
                if fm.offset != em.offset || !same_kind(&fm.datatype, &em.datatype) {
                    return Some((
                        sub,
                        format!(
                            "file has {} at offset {}, type expects {} at offset {}",
                            describe(&fm.datatype),
                            at + fm.offset,
                            describe(&em.datatype),
                            at + em.offset
                        ),
                    ));
                }
                if let Some(d) = compare(&fm.datatype, &em.datatype, &sub, at + em.offset) {
                    return Some(d);
                }
            }
            if let Some(extra) = f.members.iter().find(|m| e.member(&m.name).is_none()) {
                return Some((
                    join_field(path, &extra.name),
                    format!(
                        "the file has this field ({} at offset {}), the type does not",
                        describe(&extra.datatype),
                        at + extra.offset
                    ),
                ));
            }
            (f.size != e.size).then(|| {
                (
                    path.to_string(),
                    format!(
                        "file records are {} bytes, the type's are {}",
                        f.size, e.size
                    ),
                )
            })
        }
        (Datatype::Array(f), Datatype::Array(e)) if f.shape == e.shape => {
            compare(&f.base, &e.base, &format!("{path}[..]"), at)
        }
        _ if same_scalar(file, expected) => None,
        _ => Some((
            path.to_string(),
            format!(
                "file has {}, type expects {}",
                describe(file),
                describe(expected)
            ),
        )),
    }
}

/// Whether two datatypes may match after a deeper look (both compounds,
/// arrays of one shape) or match as scalars.
fn same_kind(file: &Datatype, expected: &Datatype) -> bool {
    match (file, expected) {
        (Datatype::Compound(_), Datatype::Compound(_)) => true,
        (Datatype::Array(f), Datatype::Array(e)) => {
            f.shape == e.shape && same_kind(&f.base, &e.base)
        }
        _ => same_scalar(file, expected),
    }
}

/// Scalar equality as a file can express it: enums are their base, an
/// opaque type's tag is not stored.
pub(crate) fn same_scalar(file: &Datatype, expected: &Datatype) -> bool {
    match (file, expected) {
        (f, Datatype::Enum(e)) => *f == Datatype::from(e.base),
        (Datatype::Opaque(f), Datatype::Opaque(e)) => f.size == e.size,
        (Datatype::Compound(_) | Datatype::Array(_), _) => false,
        (f, e) => f == e,
    }
}

fn names(c: &crate::Compound) -> String {
    let list: Vec<String> = c.members.iter().map(|m| format!("`{}`", m.name)).collect();
    if list.is_empty() {
        "none".into()
    } else {
        list.join(", ")
    }
}

/// A short human description: `float32`, `enum of int16`, `S5`, `int32[2][3]`,
/// `vlen of vlen of int32`, `optional string`.
///
/// ```
/// use ndl_runtime::schema::describe;
/// use ndl_runtime::Datatype;
///
/// assert_eq!(describe(&Datatype::Int32.array_of(&[2, 3])), "int32[2][3]");
/// let nested = Datatype::Vlen(Box::new(Datatype::Vlen(Box::new(Datatype::Int32))));
/// assert_eq!(describe(&nested), "vlen of vlen of int32");
/// assert_eq!(describe(&Datatype::Optional(Box::new(Datatype::String))), "optional string");
/// ```
pub fn describe(dt: &Datatype) -> String {
    match dt {
        Datatype::Enum(e) => format!("enum of {}", e.base),
        Datatype::FixedString(s) => match s.charset {
            Charset::Ascii => format!("bytes S{}", s.length),
            Charset::Utf32 => format!("unicode U{}", s.length),
        },
        Datatype::Opaque(o) => format!("opaque V{}", o.size),
        Datatype::Time(t) => format!("{} {t}", t.kind.numpy_name()),
        Datatype::Compound(c) if c.is_variable() => {
            "a compound with variable-length members".into()
        }
        Datatype::Compound(c) => format!("a {}-byte compound", c.size),
        Datatype::Vlen(base) => format!("vlen of {}", describe(base)),
        Datatype::Optional(base) => format!("optional {}", describe(base)),
        Datatype::Array(a) => {
            let dims: String = a.shape.iter().map(|d| format!("[{d}]")).collect();
            format!("{}{dims}", describe(&a.base))
        }
        other => other.keyword().unwrap_or("an unsupported type").to_string(),
    }
}
