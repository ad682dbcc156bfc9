//! NumPy `descr`: the type description in a `.npy` header, written with
//! Python's `repr` rules and read back by NumPy's `descr_to_dtype` rules.

use std::collections::HashSet;
use std::fmt::Write as _;

use super::literal::{Lit, Value};
use super::repr::py_repr_str;
use super::{parse_scalar_typestr, scalar_typestr, ByteOrder, Error, Result};
use crate::schema::join_field;
use crate::{Array, Charset, Compound, Datatype, Member};

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
        match write_descr(self, ByteOrder::NATIVE, "", &mut out) {
            Ok(()) => out,
            Err(_) => "'|O'".to_string(),
        }
    }

    /// The NumPy `descr` with every multi-byte number in `order`, or an
    /// error naming the field NumPy cannot store without pickling (a
    /// variable-length or reference datatype) or a compound whose members
    /// overlap or are out of order.
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
        write_descr(self, order, "", &mut out)?;
        Ok(out)
    }
}

/// Appends the descr of `dt` to `out`; `field` is the dotted path for errors.
pub(crate) fn write_descr(
    dt: &Datatype,
    order: ByteOrder,
    field: &str,
    out: &mut String,
) -> Result<()> {
    match dt {
        Datatype::Compound(c) => write_compound(c, order, field, out),
        Datatype::Array(a) => {
            out.push('(');
            write_descr(&a.base, order, field, out)?;
            out.push_str(", ");
            write_shape(a.shape.iter().map(|&d| d as u64), out);
            out.push(')');
            Ok(())
        }
        other => {
            let s = scalar_typestr(other, order).ok_or_else(|| not_writable(other, field))?;
            out.push_str(&py_repr_str(&s));
            Ok(())
        }
    }
}

fn not_writable(dt: &Datatype, field: &str) -> Error {
    let what = match dt {
        Datatype::String => "a variable-length string",
        Datatype::Vlen(_) => "a variable-length sequence",
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

fn write_compound(c: &Compound, order: ByteOrder, field: &str, out: &mut String) -> Result<()> {
    let mut entries = Vec::new();
    let mut pos = 0usize;
    let mut names = HashSet::new();
    for m in &c.members {
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
                    "the member at offset {} overlaps or precedes the previous one, which ends at {pos}; \
                     NumPy's descr cannot express overlapping or out-of-order fields",
                    m.offset
                ),
            });
        }
        push_gap(&mut entries, m.offset - pos);
        entries.push(member_entry(&m.name, &m.datatype, order, &path)?);
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
    push_gap(&mut entries, c.size - pos);
    out.push('[');
    out.push_str(&entries.join(", "));
    out.push(']');
    Ok(())
}

fn push_gap(entries: &mut Vec<String>, gap: usize) {
    if gap > 0 {
        entries.push(format!("('', '|V{gap}')"));
    }
}

/// One field entry: `(name, type)` or, for an array member, `(name, base, shape)`.
fn member_entry(name: &str, dt: &Datatype, order: ByteOrder, path: &str) -> Result<String> {
    let mut s = String::from("(");
    s.push_str(&py_repr_str(name));
    s.push_str(", ");
    match dt {
        Datatype::Array(a) => {
            write_descr(&a.base, order, path, &mut s)?;
            s.push_str(", ");
            write_shape(a.shape.iter().map(|&d| d as u64), &mut s);
        }
        other => write_descr(other, order, path, &mut s)?,
    }
    s.push(')');
    Ok(s)
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

/// Reads a parsed `descr` the way NumPy's `descr_to_dtype` does: offsets
/// are cumulative, `('', '|Vn')` entries are padding that is skipped but
/// counted, titles give way to names.
pub(crate) struct DescrReader<'a> {
    /// Maps a position in the header text to a byte offset in the file.
    to_offset: &'a dyn Fn(usize) -> u64,
    /// The byte order of the first multi-byte field, and that field's path.
    order: Option<(ByteOrder, String)>,
}

impl<'a> DescrReader<'a> {
    pub(crate) fn new(to_offset: &'a dyn Fn(usize) -> u64) -> DescrReader<'a> {
        DescrReader {
            to_offset,
            order: None,
        }
    }

    /// The datatype of `descr` and the byte order its multi-byte numbers share
    /// (native when it has none).
    pub(crate) fn read(mut self, descr: &Lit) -> Result<(Datatype, ByteOrder)> {
        let dt = self.datatype(descr, "")?;
        let order = self.order.map_or(ByteOrder::NATIVE, |(o, _)| o);
        Ok((dt, order))
    }

    fn invalid(&self, lit: &Lit, field: &str, message: String) -> Error {
        Error::InvalidDescr {
            offset: (self.to_offset)(lit.pos),
            field: field.to_string(),
            message,
        }
    }

    fn datatype(&mut self, lit: &Lit, field: &str) -> Result<Datatype> {
        match &lit.value {
            Value::Str(s) => self.typestr(s, lit, field),
            Value::List(entries) => self.compound(entries, field),
            Value::Tuple(items) if items.len() == 2 => {
                let base = self.datatype(&items[0], field)?;
                let shape = self.subarray_shape(&items[1], field)?;
                Ok(subarray(base, shape))
            }
            other => Err(self.invalid(
                lit,
                field,
                format!("{} is not a valid dtype descriptor (expected a type string, a list of fields or a (descr, shape) tuple)", other.repr()),
            )),
        }
    }

    fn typestr(&mut self, s: &str, lit: &Lit, field: &str) -> Result<Datatype> {
        if let Some(reason) = unsupported_reason(s) {
            return Err(Error::UnsupportedDescr {
                offset: (self.to_offset)(lit.pos),
                field: field.to_string(),
                descr: py_repr_str(s),
                reason: reason.to_string(),
            });
        }
        // parse_scalar_typestr slices by bytes; valid type strings are ASCII.
        let parsed = if s.is_ascii() {
            parse_scalar_typestr(s)
        } else {
            None
        };
        let (dt, stated) = parsed.ok_or_else(|| {
            self.invalid(
                lit,
                field,
                format!("{} is not a valid NumPy type string", py_repr_str(s)),
            )
        })?;
        if order_matters(&dt) {
            self.note_order(stated.unwrap_or(ByteOrder::NATIVE), lit, field)?;
        }
        Ok(dt)
    }

    fn note_order(&mut self, order: ByteOrder, lit: &Lit, field: &str) -> Result<()> {
        match &self.order {
            None => self.order = Some((order, field.to_string())),
            Some((first, _)) if *first != order => {
                return Err(Error::MixedByteOrder {
                    offset: (self.to_offset)(lit.pos),
                    field: field.to_string(),
                    first: *first,
                    found: order,
                })
            }
            Some(_) => {}
        }
        Ok(())
    }

    /// A subarray shape: an int or a tuple of ints, none negative.
    fn subarray_shape(&self, lit: &Lit, field: &str) -> Result<Vec<usize>> {
        let dims: Vec<&Lit> = match &lit.value {
            Value::Tuple(items) | Value::List(items) => items.iter().collect(),
            _ => vec![lit],
        };
        dims.into_iter()
            .map(|d| match &d.value {
                Value::Int(n) if *n >= 0 => usize::try_from(*n).map_err(|_| {
                    self.invalid(d, field, format!("subarray dimension {n} is too large"))
                }),
                Value::Int(n) => Err(self.invalid(
                    d,
                    field,
                    format!("invalid subarray shape: dimension {n} is negative"),
                )),
                other => Err(self.invalid(
                    d,
                    field,
                    format!(
                        "invalid subarray shape: {} is not a non-negative integer",
                        other.repr()
                    ),
                )),
            })
            .collect()
    }

    fn compound(&mut self, entries: &[Lit], parent: &str) -> Result<Datatype> {
        let mut members = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        let mut offset = 0usize;
        for entry in entries {
            let field = self.field(entry, parent)?;
            let size = field
                .datatype
                .size()
                .ok_or_else(|| self.invalid(entry, parent, "a field has no fixed size".into()))?;
            if !(field.name.is_empty() && is_void(&field.datatype)) {
                for key in std::iter::once(&field.name).chain(field.title.as_ref()) {
                    if !seen.insert(key.clone()) {
                        return Err(Error::DuplicateField {
                            offset: (self.to_offset)(entry.pos),
                            name: key.clone(),
                        });
                    }
                }
                members.push(Member::new(field.name, offset, field.datatype));
            }
            offset = offset
                .checked_add(size)
                .ok_or_else(|| self.invalid(entry, parent, "the record size overflows".into()))?;
        }
        Ok(Datatype::Compound(Compound {
            size: offset,
            members,
        }))
    }

    /// One `(name, type)` or `(name, type, shape)` entry.
    fn field(&mut self, entry: &Lit, parent: &str) -> Result<Field> {
        let items = match &entry.value {
            Value::Tuple(items) | Value::List(items) => items,
            other => {
                return Err(self.invalid(
                    entry,
                    parent,
                    format!(
                    "a field entry must be a (name, type) or (name, type, shape) tuple, found {}",
                    other.repr()
                ),
                ))
            }
        };
        if !(2..=3).contains(&items.len()) {
            return Err(self.invalid(
                entry,
                parent,
                format!(
                    "a field entry has {} items, expected 2 or 3: {}",
                    items.len(),
                    entry.value.repr()
                ),
            ));
        }
        let (title, name) = self.field_name(&items[0], parent)?;
        let path = join_field(parent, &name);
        let mut datatype = self.datatype(&items[1], &path)?;
        if let Some(shape) = items.get(2) {
            datatype = subarray(datatype, self.subarray_shape(shape, &path)?);
        }
        Ok(Field {
            title,
            name,
            datatype,
        })
    }

    /// `name` or `(title, name)`; a title that is not a string is ignored.
    fn field_name(&self, lit: &Lit, parent: &str) -> Result<(Option<String>, String)> {
        match &lit.value {
            Value::Str(name) => Ok((None, name.clone())),
            Value::Tuple(pair) if pair.len() == 2 => match (&pair[0].value, &pair[1].value) {
                (Value::Str(title), Value::Str(name)) => Ok((Some(title.clone()), name.clone())),
                (_, Value::Str(name)) => Ok((None, name.clone())),
                (_, other) => Err(self.invalid(
                    &pair[1],
                    parent,
                    format!("field names must be strings, found {}", other.repr()),
                )),
            },
            other => Err(self.invalid(
                lit,
                parent,
                format!(
                    "field names must be strings or (title, name) tuples, found {}",
                    other.repr()
                ),
            )),
        }
    }
}

/// `shape` elements of `base`, as NumPy's `(base, shape)`: a subarray of a
/// subarray keeps its nesting, as NumPy prints it back
/// (`('c', ('<f8', (5,)), (2,))`), and an empty shape is the base itself.
fn subarray(base: Datatype, shape: Vec<usize>) -> Datatype {
    if shape.is_empty() {
        return base;
    }
    Datatype::Array(Array {
        base: Box::new(base),
        shape,
    })
}

struct Field {
    title: Option<String>,
    name: String,
    datatype: Datatype,
}

/// A void type without fields: what an empty name turns into padding.
fn is_void(dt: &Datatype) -> bool {
    match dt {
        Datatype::Opaque(_) => true,
        Datatype::Array(a) => is_void(&a.base),
        _ => false,
    }
}

/// Whether the byte order of a scalar changes its bytes.
fn order_matters(dt: &Datatype) -> bool {
    match dt {
        Datatype::FixedString(s) => s.charset == Charset::Utf32,
        Datatype::Opaque(_) => false,
        other => other.size().is_some_and(|s| s > 1),
    }
}

/// Why a valid NumPy type string has no datatype here, if it is one of those.
fn unsupported_reason(s: &str) -> Option<&'static str> {
    let body = s.trim_start_matches(['<', '>', '|', '=']);
    let kind = body.chars().next()?;
    let digits_ok = |rest: &str| rest.is_empty() || rest.bytes().all(|b| b.is_ascii_digit());
    match kind {
        'O' if digits_ok(&body[1..]) => {
            Some("object arrays cannot be read: the data is a Python pickle")
        }
        'T' if body.len() == 1 => {
            Some("NumPy StringDType arrays are stored as a Python pickle and cannot be read")
        }
        'M' | 'm' if body.starts_with("M8") || body.starts_with("m8") => {
            Some("datetime64/timedelta64 have no datatype in the NDL model")
        }
        'f' if body == "f16" || body == "f12" => {
            Some("extended-precision floats (long double) have no datatype in the NDL model")
        }
        'c' if body == "c32" || body == "c24" => Some(
            "extended-precision complex numbers (long double) have no datatype in the NDL model",
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Array, FixedString};

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
        assert!(Datatype::Compound(overlap)
            .numpy_descr_with_order(ByteOrder::Little)
            .is_err());
        let mut twice = Compound::c_layout([("a", Datatype::Int8)]).unwrap();
        twice.members.push(Member::new("a", 1, Datatype::Int8));
        twice.size = 2;
        assert!(Datatype::Compound(twice)
            .numpy_descr_with_order(ByteOrder::Little)
            .is_err());
    }
}
