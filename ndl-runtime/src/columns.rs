//! A record's fields as columns: one array per leaf field, all sharing the
//! record dimension, as netCDF and xarray lay out a table. Plain data that
//! every columns layout (Zarr's, netCDF-4's) builds on; each format then
//! picks its element types and attributes.
//!
//! - Each leaf field is a column named by its dotted path (`p.x`); nested
//!   records are split into their fields.
//! - Its dimensions after the record dimension are one per axis of an
//!   array field (`<field>_dim<k>`, or the names of `#[ndl(dims = [...])]`),
//!   then for a fixed ASCII string netCDF's character dimension
//!   `<field>_strlen`, and for opaque bytes `<field>_bytes`.
//! - A field of no bytes has no column; an array of records is refused.
//!
//! ```
//! use ndl_runtime::columns::plan;
//! use ndl_runtime::{Compound, Datatype};
//!
//! let xy = Compound::c_layout([("x", Datatype::Float32), ("y", Datatype::Float32)]).unwrap();
//! let rec = Compound::c_layout([
//!     ("id", Datatype::UInt16),
//!     ("pos", Datatype::Compound(xy)),
//!     ("m", Datatype::Int8.array_of(&[2, 3])),
//! ])
//! .unwrap();
//! let columns = plan(&Datatype::Compound(rec)).unwrap();
//! let names: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
//! assert_eq!(names, ["id", "pos.x", "pos.y", "m"]);
//! assert_eq!(columns[3].inner, [2, 3]);
//! assert_eq!(columns[3].dims, ["m_dim0", "m_dim1"]);
//! assert_eq!(columns[2].offset, 8);
//! ```

use std::collections::BTreeMap;

use crate::{Charset, Datatype};

/// One leaf field of a record and the column that holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// The column's name: the field's dotted path.
    pub name: String,
    /// Where the field's bytes are in a record.
    pub offset: usize,
    /// The bytes of one value.
    pub size: usize,
    /// The field's datatype, as the record has it (an array field's
    /// whole array).
    pub leaf: Datatype,
    /// The datatype of one element of the column: the field's, or its
    /// array's base.
    pub base: Datatype,
    /// The column's extents after the record dimension.
    pub inner: Vec<u64>,
    /// Their names.
    pub dims: Vec<String>,
    /// The field's description (its doc comment).
    pub description: Option<String>,
    /// The field's units.
    pub units: Option<String>,
}

/// Why a record has no columns layout, in one sentence.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ColumnsError(pub String);

/// The columns of records of `dt` (a compound in its own layout), in
/// field order.
pub fn plan(dt: &Datatype) -> Result<Vec<Column>, ColumnsError> {
    let Datatype::Compound(c) = dt else {
        return Err(ColumnsError(
            "the columns layout stores the fields of a record; this type has none (use the records layout)".into(),
        ));
    };
    let mut columns = Vec::new();
    for m in &c.members {
        let leaf = Leaf {
            path: m.name.clone(),
            offset: m.offset,
            dims: &m.dims,
            description: m.description.as_deref(),
            units: m.units.as_deref(),
        };
        add(&leaf, &m.datatype, &mut columns)?;
    }
    check_dims(&columns)?;
    Ok(columns)
}

/// A field on the way down to its leaves.
struct Leaf<'a> {
    path: String,
    offset: usize,
    dims: &'a [String],
    description: Option<&'a str>,
    units: Option<&'a str>,
}

fn add(leaf: &Leaf, dt: &Datatype, out: &mut Vec<Column>) -> Result<(), ColumnsError> {
    if let Datatype::Compound(c) = dt {
        for m in &c.members {
            let sub = Leaf {
                path: format!("{}.{}", leaf.path, m.name),
                offset: leaf.offset + m.offset,
                dims: &m.dims,
                description: m.description.as_deref(),
                units: m.units.as_deref(),
            };
            add(&sub, &m.datatype, out)?;
        }
        return Ok(());
    }
    if dt.size() == Some(0) {
        // Nothing to store: an empty array field has no column.
        return Ok(());
    }
    let (base, shape): (&Datatype, &[usize]) = match dt {
        Datatype::Array(a) => (&a.base, &a.shape),
        other => (other, &[]),
    };
    let mut inner: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    let mut dims: Vec<String> = match leaf.dims {
        [] => (0..shape.len())
            .map(|k| format!("{}_dim{k}", leaf.path))
            .collect(),
        named => named.to_vec(),
    };
    match base {
        Datatype::Compound(_) => {
            return Err(ColumnsError(format!(
                "field `{}` is an array of records, which the columns layout does not split into columns; use the records layout",
                leaf.path
            )));
        }
        Datatype::FixedString(s) if s.charset == Charset::Ascii => {
            inner.push(s.length as u64);
            dims.push(format!("{}_strlen", leaf.path));
        }
        Datatype::Opaque(o) => {
            inner.push(o.size as u64);
            dims.push(format!("{}_bytes", leaf.path));
        }
        _ => {}
    }
    out.push(Column {
        name: leaf.path.clone(),
        offset: leaf.offset,
        size: dt.size().unwrap_or(0),
        leaf: dt.clone(),
        base: base.clone(),
        inner,
        dims,
        description: leaf.description.map(str::to_string),
        units: leaf.units.map(str::to_string),
    });
    Ok(())
}

/// A dimension named twice must have one length.
fn check_dims(columns: &[Column]) -> Result<(), ColumnsError> {
    let mut seen: BTreeMap<&str, (u64, &str)> = BTreeMap::new();
    for c in columns {
        for (name, &len) in c.dims.iter().zip(&c.inner) {
            match seen.get(name.as_str()) {
                Some(&(other_len, other)) if other_len != len => {
                    return Err(ColumnsError(format!(
                        "dimension `{name}` is {other_len} long for field `{other}` but {len} for field `{}`",
                        c.name
                    )));
                }
                _ => {
                    seen.insert(name, (len, &c.name));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Compound, FixedString, Member};

    #[test]
    fn strings_and_bytes_get_a_last_dimension_of_their_length() {
        let rec = Compound::c_layout([
            (
                "name",
                Datatype::FixedString(FixedString {
                    length: 4,
                    charset: Charset::Ascii,
                }),
            ),
            (
                "raw",
                Datatype::Opaque(crate::Opaque { size: 3, tag: None }),
            ),
        ])
        .unwrap();
        let columns = plan(&Datatype::Compound(rec)).unwrap();
        assert_eq!(columns[0].inner, [4]);
        assert_eq!(columns[0].dims, ["name_strlen"]);
        assert_eq!(columns[1].inner, [3]);
        assert_eq!(columns[1].dims, ["raw_bytes"]);
    }

    #[test]
    fn a_dimension_of_two_lengths_is_refused_naming_both_fields() {
        let mut a = Member::new("a", 0, Datatype::UInt8.array_of(&[2]));
        a.dims = vec!["n".into()];
        let mut b = Member::new("b", 2, Datatype::UInt8.array_of(&[3]));
        b.dims = vec!["n".into()];
        let rec = Compound {
            size: 5,
            members: vec![a, b],
        };
        let e = plan(&Datatype::Compound(rec)).unwrap_err();
        assert!(
            e.0.contains("`n` is 2 long for field `a` but 3 for field `b`"),
            "{e}"
        );
    }

    #[test]
    fn arrays_of_records_and_plain_numbers_have_no_columns() {
        assert!(plan(&Datatype::Float64).is_err());
        let inner = Compound::c_layout([("x", Datatype::UInt8)]).unwrap();
        let rec = Compound::c_layout([("xs", Datatype::Compound(inner).array_of(&[2]))]).unwrap();
        let e = plan(&Datatype::Compound(rec)).unwrap_err();
        assert!(e.0.contains("field `xs` is an array of records"), "{e}");
    }
}
