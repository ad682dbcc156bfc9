//! Reading a `descr` as NumPy's `descr_to_dtype` does.

use std::collections::HashSet;
use std::ops::Range;

use crate::npy::literal::{Lit, Value};
use crate::npy::repr::py_repr_str;
use crate::npy::{ByteOrder, Error, Result, parse_scalar_typestr};
use crate::record_plan::merge_spans;
use crate::schema::join_field;
use crate::time::TimeError;
use crate::{Array, Charset, Compound, Datatype, Member, TimeType};

/// Reads a parsed `descr` the way NumPy's `descr_to_dtype` does: offsets
/// are cumulative, `('', '|Vn')` entries are padding that is skipped but
/// counted, titles give way to names.
///
/// Each field may have its own byte order, as in NumPy: the reader notes
/// the order of every number, by byte range, while it reads.
pub(crate) struct DescrReader<'a> {
    /// Maps a position in the header text to a byte offset in the file.
    to_offset: &'a dyn Fn(usize) -> u64,
    /// Where the datatype being read starts, in bytes from the start of the
    /// whole datatype.
    at: usize,
    /// The byte order of the numbers read so far, by byte range, in order.
    orders: Vec<(Range<usize>, ByteOrder)>,
}

/// The most byte ranges a subarray of records in both byte orders may
/// spell out: one per number of each record, so a header of a few bytes
/// cannot claim gigabytes of them.
const MAX_ORDER_RANGES: usize = 1 << 16;

/// A datatype as a `descr` spells it.
pub(crate) struct Descr {
    /// The datatype.
    pub datatype: Datatype,
    /// The byte order of its first multi-byte number (native when it has none).
    pub byte_order: ByteOrder,
    /// The byte ranges of the numbers stored in the other order, merged.
    pub other_order: Vec<Range<usize>>,
}

impl<'a> DescrReader<'a> {
    pub(crate) fn new(to_offset: &'a dyn Fn(usize) -> u64) -> DescrReader<'a> {
        DescrReader {
            to_offset,
            at: 0,
            orders: Vec::new(),
        }
    }

    /// The datatype of `descr` and the byte order of each of its numbers.
    pub(crate) fn read(mut self, descr: &Lit) -> Result<Descr> {
        let datatype = self.datatype(descr, "")?;
        let byte_order = self.orders.first().map_or(ByteOrder::NATIVE, |(_, o)| *o);
        let other = self.orders.into_iter().filter(|(_, o)| *o != byte_order);
        Ok(Descr {
            datatype,
            byte_order,
            other_order: merge_spans(other.map(|(r, _)| r).collect()),
        })
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
                let mark = self.orders.len();
                let base = self.datatype(&items[0], field)?;
                let shape = self.subarray_shape(&items[1], field)?;
                let array = subarray(base, shape);
                self.repeat_orders(mark, &array, lit, field)?;
                Ok(array)
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
        let body = s.trim_start_matches(['<', '>', '|', '=']);
        if body.starts_with("M8") || body.starts_with("m8") {
            // Time codes have their own errors. NumPy refuses
            // `M8[fortnight]` too, but reads the generic `M8` and `M8[0s]`,
            // which describe no time here.
            if let Err(e) = body.parse::<TimeType>() {
                let numpy_reads = match &e {
                    TimeError::NoUnit(_) => true,
                    TimeError::Multiple { multiple, .. } => multiple.bytes().all(|b| b == b'0'),
                    _ => false,
                };
                if !numpy_reads {
                    return Err(self.invalid(lit, field, e.to_string()));
                }
                return Err(Error::UnsupportedDescr {
                    offset: (self.to_offset)(lit.pos),
                    field: field.to_string(),
                    descr: py_repr_str(s),
                    reason: e.to_string(),
                });
            }
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
            let end = self.at + dt.size().unwrap_or(0);
            let order = stated.unwrap_or(ByteOrder::NATIVE);
            self.orders.push((self.at..end, order));
        }
        Ok(dt)
    }

    /// Extends the orders noted since `mark`, those of an array's first
    /// element, to the whole `array`: one range when they agree, else
    /// each element's own.
    fn repeat_orders(
        &mut self,
        mark: usize,
        array: &Datatype,
        lit: &Lit,
        field: &str,
    ) -> Result<()> {
        let Datatype::Array(a) = array else {
            return Ok(());
        };
        let first = self.orders.split_off(mark);
        let (Some(step), Some(n), Some(len)) = (a.base.size(), a.element_count(), array.size())
        else {
            return Err(self.invalid(lit, field, "the subarray size overflows".into()));
        };
        let Some(&(_, order)) = first.first() else {
            return Ok(());
        };
        if n == 0 {
            return Ok(());
        }
        if first.iter().all(|(_, o)| *o == order) {
            self.orders
                .push((self.at..self.at.saturating_add(len), order));
            return Ok(());
        }
        if first.len().saturating_mul(n) > MAX_ORDER_RANGES {
            return Err(Error::UnsupportedDescr {
                offset: (self.to_offset)(lit.pos),
                field: field.to_string(),
                descr: lit.value.repr(),
                reason: format!(
                    "a subarray of {n} records whose fields are in both byte orders; \
                     at most {MAX_ORDER_RANGES} numbers in the other order are read"
                ),
            });
        }
        for i in 0..n {
            let shift = i * step;
            let ranges = first
                .iter()
                .map(|(r, o)| (r.start + shift..r.end + shift, *o));
            self.orders.extend(ranges);
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
        let start = self.at;
        for entry in entries {
            self.at = start + offset;
            let field = self.field(entry, parent);
            self.at = start;
            let field = field?;
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
            other => return Err(self.invalid(
                entry,
                parent,
                format!(
                    "a field entry must be a (name, type) or (name, type, shape) tuple, found {}",
                    other.repr()
                ),
            )),
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
        let mark = self.orders.len();
        let mut datatype = self.datatype(&items[1], &path)?;
        if let Some(shape) = items.get(2) {
            datatype = subarray(datatype, self.subarray_shape(shape, &path)?);
            self.repeat_orders(mark, &datatype, entry, &path)?;
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
        'f' if body == "f16" || body == "f12" => {
            Some("extended-precision floats (long double) have no datatype in the NDL model")
        }
        'c' if body == "c32" || body == "c24" => Some(
            "extended-precision complex numbers (long double) have no datatype in the NDL model",
        ),
        _ => None,
    }
}
