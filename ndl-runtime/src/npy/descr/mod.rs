//! NumPy `descr`: the type description in a `.npy` header, written with
//! Python's `repr` rules and read back by NumPy's `descr_to_dtype` rules.

use std::collections::HashSet;
use std::fmt::Write as _;

mod read;

pub(crate) use read::{Descr, DescrReader};

use super::repr::py_repr_str;
use super::{ByteOrder, Error, Result, scalar_typestr};
use crate::schema::join_field;
use crate::{Compound, Datatype};

impl Datatype {
    /// The NumPy `descr` of this datatype in native byte order, exactly as
    /// `np.save` writes it in a `.npy` header: a type string such as `'<u4'`
    /// or a list of fields with explicit `('', '|Vn')` padding entries.
    ///
    /// An enum is written as its base integer type, an array as NumPy's
    /// `(base, shape)` tuple. Datatypes without a fixed size (`string`,
    /// `vlen`) and references have no NumPy layout; they are shown as
    /// `'|O'`, NumPy's object type, which [`Header::to_bytes`](super::Header::to_bytes)
    /// refuses. Use [`Datatype::numpy_descr_with_order`] for the checked form.
    ///
    /// ```
    /// use ndl_runtime::{Compound, Datatype};
    ///
    /// assert_eq!(Datatype::UInt8.numpy_descr(), "'|u1'");
    /// let c = Compound::c_layout([("id", Datatype::UInt32), ("t", Datatype::Float64)]).unwrap();
    /// # if cfg!(target_endian = "little") {
    /// assert_eq!(Datatype::UInt32.numpy_descr(), "'<u4'");
    /// assert_eq!(
    ///     Datatype::Compound(c).numpy_descr(),
    ///     "[('id', '<u4'), ('', '|V4'), ('t', '<f8')]"
    /// );
    /// # }
    /// ```
    pub fn numpy_descr(&self) -> String {
        let mut out = String::new();
        match write_descr(self, &|_| ByteOrder::NATIVE, "", &mut out) {
            Ok(()) => out,
            Err(_) => "'|O'".to_string(),
        }
    }

    /// The NumPy `descr` with every multi-byte number in `order`, or an
    /// error naming the field NumPy cannot store without pickling (a
    /// variable-length or reference datatype) or a compound whose members
    /// overlap.
    ///
    /// ```
    /// use ndl_runtime::npy::ByteOrder;
    /// use ndl_runtime::{Compound, Datatype};
    ///
    /// let c = Compound::c_layout([("a", Datatype::Int16), ("b", Datatype::Bool)]).unwrap();
    /// assert_eq!(
    ///     Datatype::Compound(c).numpy_descr_with_order(ByteOrder::Big).unwrap(),
    ///     "[('a', '>i2'), ('b', '|b1'), ('', '|V1')]"
    /// );
    /// assert!(Datatype::String.numpy_descr_with_order(ByteOrder::Little).is_err());
    /// ```
    pub fn numpy_descr_with_order(&self, order: ByteOrder) -> Result<String> {
        let mut out = String::new();
        write_descr(self, &|_| order, "", &mut out)?;
        Ok(out)
    }
}

/// The byte order of the number at each byte offset of a datatype.
pub(crate) type Orders<'a> = &'a dyn Fn(usize) -> ByteOrder;

/// Appends the descr of `dt` to `out`, each number in the order `orders`
/// gives for its offset; `field` is the dotted path for errors.
pub(crate) fn write_descr(
    dt: &Datatype,
    orders: Orders,
    field: &str,
    out: &mut String,
) -> Result<()> {
    Writer { orders, out }.datatype(dt, 0, field)
}

/// Appends descrs to `out`.
struct Writer<'a> {
    orders: Orders<'a>,
    out: &'a mut String,
}

impl Writer<'_> {
    /// The descr of `dt`, which starts at byte `at`.
    fn datatype(&mut self, dt: &Datatype, at: usize, field: &str) -> Result<()> {
        match dt {
            Datatype::Compound(c) => self.compound(c, at, field),
            Datatype::Array(a) => {
                self.out.push('(');
                self.datatype(&a.base, at, field)?;
                self.out.push_str(", ");
                write_shape(a.shape.iter().map(|&d| d as u64), self.out);
                self.out.push(')');
                Ok(())
            }
            other => {
                let order = (self.orders)(at);
                let s = scalar_typestr(other, order).ok_or_else(|| not_writable(other, field))?;
                self.out.push_str(&py_repr_str(&s));
                Ok(())
            }
        }
    }

    fn compound(&mut self, c: &Compound, at: usize, field: &str) -> Result<()> {
        let mut entries = Entries { first: true };
        let mut pos = 0usize;
        let mut names = HashSet::new();
        self.out.push('[');
        // NumPy's descr places its fields back to back, so a record whose
        // fields are declared out of offset order lists them by offset:
        // the same bytes, the only order the format can say.
        for m in c.by_offset() {
            let path = join_field(field, &m.name);
            if !names.insert(m.name.as_str()) {
                return Err(Error::NotWritable {
                    field: path,
                    reason: "the name occurs more than once in the record".into(),
                });
            }
            let size = m
                .datatype
                .size()
                .ok_or_else(|| not_writable(&m.datatype, &path))?;
            if m.offset < pos {
                return Err(Error::NotWritable {
                    field: path,
                    reason: format!(
                        "the member at offset {} overlaps the member below it, which ends at {pos}; \
                         NumPy's descr cannot express overlapping fields",
                        m.offset
                    ),
                });
            }
            self.gap(&mut entries, m.offset - pos);
            entries.next(self.out);
            self.member(&m.name, &m.datatype, at + m.offset, &path)?;
            pos = m
                .offset
                .checked_add(size)
                .ok_or_else(|| Error::NotWritable {
                    field: path.clone(),
                    reason: "the member's end overflows".into(),
                })?;
        }
        if pos > c.size {
            return Err(Error::NotWritable {
                field: field.to_string(),
                reason: format!(
                    "the members end at byte {pos}, past the record size {}",
                    c.size
                ),
            });
        }
        self.gap(&mut entries, c.size - pos);
        self.out.push(']');
        Ok(())
    }

    /// NumPy's entry for `gap` bytes of padding, if there are any.
    fn gap(&mut self, entries: &mut Entries, gap: usize) {
        if gap > 0 {
            entries.next(self.out);
            let _ = write!(self.out, "('', '|V{gap}')");
        }
    }

    /// One field entry: `(name, type)` or, for an array member, `(name, base, shape)`.
    fn member(&mut self, name: &str, dt: &Datatype, at: usize, path: &str) -> Result<()> {
        self.out.push('(');
        self.out.push_str(&py_repr_str(name));
        self.out.push_str(", ");
        match dt {
            Datatype::Array(a) => {
                self.datatype(&a.base, at, path)?;
                self.out.push_str(", ");
                write_shape(a.shape.iter().map(|&d| d as u64), self.out);
            }
            other => self.datatype(other, at, path)?,
        }
        self.out.push(')');
        Ok(())
    }
}

fn not_writable(dt: &Datatype, field: &str) -> Error {
    let what = match dt {
        Datatype::String => "a variable-length string",
        Datatype::Vlen(_) => "a variable-length sequence",
        Datatype::Optional(_) => "an optional value (NumPy has no nulls; use a fill value)",
        Datatype::ObjRef | Datatype::RegRef(_) => "a reference",
        _ => "this datatype",
    };
    Error::NotWritable {
        field: field.to_string(),
        reason: format!(
            "{what} has no fixed-size NumPy dtype (NumPy would pickle it as an object array)"
        ),
    }
}

/// The separators of a list's entries.
struct Entries {
    first: bool,
}

impl Entries {
    /// Starts the next entry.
    fn next(&mut self, out: &mut String) {
        if !std::mem::take(&mut self.first) {
            out.push_str(", ");
        }
    }
}

/// Python's tuple repr of a shape: `()`, `(5,)`, `(3, 4)`.
pub(crate) fn write_shape(shape: impl ExactSizeIterator<Item = u64>, out: &mut String) {
    let n = shape.len();
    out.push('(');
    for (i, d) in shape.enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{d}");
    }
    if n == 1 {
        out.push(',');
    }
    out.push(')');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Array, Charset, FixedString, Member};

    #[test]
    fn padded_nested_and_array_members() {
        let inner = Compound {
            size: 16,
            members: vec![
                Member::new("x", 0, Datatype::Int8),
                Member::new("y", 8, Datatype::Int64),
            ],
        };
        let c = Compound {
            size: 24 + 12 + 8,
            members: vec![
                Member::new("a", 0, Datatype::Int8),
                Member::new("n", 8, Datatype::Compound(inner)),
                Member::new("v", 24, Datatype::Float32.array_of(&[3])),
                Member::new(
                    "s",
                    36,
                    Datatype::FixedString(FixedString {
                        length: 2,
                        charset: Charset::Utf32,
                    }),
                ),
            ],
        };
        assert_eq!(
            Datatype::Compound(c)
                .numpy_descr_with_order(ByteOrder::Big)
                .unwrap(),
            "[('a', '|i1'), ('', '|V7'), ('n', [('x', '|i1'), ('', '|V7'), ('y', '>i8')]), \
             ('v', '>f4', (3,)), ('s', '>U2')]"
        );
    }

    #[test]
    fn members_out_of_offset_order_are_listed_by_offset() {
        let c = Compound {
            size: 16,
            members: vec![
                Member::new("b", 8, Datatype::Float64),
                Member::new("a", 0, Datatype::Int32),
            ],
        };
        assert_eq!(
            Datatype::Compound(c)
                .numpy_descr_with_order(ByteOrder::Little)
                .unwrap(),
            "[('a', '<i4'), ('', '|V4'), ('b', '<f8')]"
        );
    }

    #[test]
    fn arrays_of_compounds_and_top_level_arrays() {
        let inner = Compound::c_layout([("a", Datatype::Int8)]).unwrap();
        let dt = Datatype::Compound(Compound {
            size: 3,
            members: vec![Member::new(
                "x",
                0,
                Datatype::Compound(inner).array_of(&[3]),
            )],
        });
        assert_eq!(
            dt.numpy_descr_with_order(ByteOrder::Little).unwrap(),
            "[('x', [('a', '|i1')], (3,))]"
        );
        let a = Datatype::Array(Array {
            base: Box::new(Datatype::Float64),
            shape: vec![2, 3],
        });
        assert_eq!(
            a.numpy_descr_with_order(ByteOrder::Little).unwrap(),
            "('<f8', (2, 3))"
        );
    }

    #[test]
    fn unwritable_datatypes_name_the_field() {
        let c = Compound {
            size: 8,
            members: vec![Member::new("s", 0, Datatype::String)],
        };
        let err = Datatype::Compound(c)
            .numpy_descr_with_order(ByteOrder::Little)
            .unwrap_err();
        assert!(err.to_string().contains("field 's'"), "{err}");
        assert_eq!(
            Datatype::Vlen(Box::new(Datatype::Int8)).numpy_descr(),
            "'|O'"
        );
        let overlap = Compound {
            size: 8,
            members: vec![
                Member::new("a", 0, Datatype::Int32),
                Member::new("b", 2, Datatype::Int32),
            ],
        };
        assert!(
            Datatype::Compound(overlap)
                .numpy_descr_with_order(ByteOrder::Little)
                .is_err()
        );
        let mut twice = Compound::c_layout([("a", Datatype::Int8)]).unwrap();
        twice.members.push(Member::new("a", 1, Datatype::Int8));
        twice.size = 2;
        assert!(
            Datatype::Compound(twice)
                .numpy_descr_with_order(ByteOrder::Little)
                .is_err()
        );
    }
}
