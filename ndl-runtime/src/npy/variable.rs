//! Records that are not plain (`String`, `Option` fields): stored through
//! their columns, as NumPy holds such data in a `.npy` file.
//!
//! NumPy's `.npy` has fixed-size records and no nulls (object arrays need
//! pickle), so a `String` is stored as the narrowest `U n` holding the
//! values (UTF-32, NUL-padded, read back with the padding trimmed), an
//! `Option` with a fill as its fill, and a record as a packed structured
//! dtype. `Vec`s and `Option`s without a fill are refused by field.

use std::fs::File;
use std::io::{BufReader, Read, Seek, Write};
use std::ops::Range;
use std::path::Path;

use super::{Error, Header, HeaderLimits, Result};
use crate::record::{Bitmap, Column, Columns, Record, RecordError, Values};
use crate::record_plan::RecordPlan;
use crate::{Array, Charset, Compound, Datatype, FixedString, Member};

/// Where value `j` of a column starts in a buffer of whole records.
type Place<'a> = &'a dyn Fn(usize) -> usize;

/// Records per buffer when encoding: about 1 MiB of them.
const CHUNK_BYTES: usize = 1 << 20;

/// The record type and the field being worked on, for errors.
#[derive(Clone, Debug)]
pub(crate) struct Cx {
    record: String,
    field: String,
    /// The index of the first record of the buffer being encoded.
    first: u64,
    /// The size of one stored record, once known.
    itemsize: usize,
}

impl Cx {
    pub(crate) fn of<T>() -> Cx {
        let full = std::any::type_name::<T>();
        // The last path segment, generics kept: `Trade`, not `my::mod::Trade`.
        let end = full.find('<').unwrap_or(full.len());
        let start = full[..end].rfind("::").map_or(0, |i| i + 2);
        Cx {
            record: full[start..].to_owned(),
            field: String::new(),
            first: 0,
            itemsize: 0,
        }
    }

    /// The context of records known by `name` (a file's, which have no
    /// Rust type).
    pub(crate) fn named(name: &str) -> Cx {
        Cx {
            record: name.to_owned(),
            field: String::new(),
            first: 0,
            itemsize: 0,
        }
    }

    /// The context of records counted from `first`.
    pub(crate) fn counting_from(&self, first: u64) -> Cx {
        Cx {
            first,
            ..self.clone()
        }
    }

    /// The record whose stored bytes hold buffer offset `place`.
    fn record_at(&self, place: usize) -> u64 {
        self.first + (place / self.itemsize.max(1)) as u64
    }

    fn field(&self, name: &str) -> Cx {
        let field = if self.field.is_empty() {
            name.to_owned()
        } else {
            format!("{}.{name}", self.field)
        };
        Cx {
            field,
            ..self.clone()
        }
    }

    fn refuse(&self, reason: impl std::fmt::Display) -> Error {
        Error::NotWritable {
            field: self.field.clone(),
            reason: format!("in `{}`: {reason}", self.record),
        }
    }

    fn mismatch(&self, message: impl Into<String>) -> Error {
        Error::TypeMismatch {
            field: self.field.clone(),
            message: message.into(),
        }
    }
}

/// The `.npy` datatype that stores `column`, whose records `dt` describes:
/// every refusal (a `Vec`, an `Option` without fill, a `Some(fill)`) is
/// found here, before anything is written.
pub(crate) fn stored(dt: &Datatype, column: &Column, cx: &Cx) -> Result<Datatype> {
    match (dt, column) {
        (Datatype::Vlen(_), _) | (_, Column::List { .. }) => Err(cx.refuse(
            "a `Vec` (NDL `vlen`) has no place in a `.npy` file, whose records have a fixed size; \
             write it to Zarr, HDF5 or Arrow, or make the field a fixed-size `[T; N]`",
        )),
        (_, Column::Nullable { values, fill, .. }) => {
            if fill.is_none() {
                return Err(cx.refuse(
                    "an `Option` without a fill has no place in a `.npy` file, which has no nulls; \
                     add `#[ndl(fill = ...)]` to the field: the value that stands for `None`",
                ));
            }
            if let Some(r) = column.fill_clash() {
                return Err(cx.refuse(format!(
                    "record {r} holds `Some` of the field's fill value, which would read back as `None`; nothing was written"
                )));
            }
            let inner = match dt {
                Datatype::Optional(inner) => inner,
                other => other,
            };
            stored(inner, values, cx)
        }
        (_, Column::Strings { offsets, data }) => {
            let longest = (0..offsets.len().saturating_sub(1))
                .map(|i| chars(string_at(offsets, data, i)))
                .max()
                .unwrap_or(0);
            Ok(unicode(longest.max(1)))
        }
        (Datatype::Compound(c), Column::Struct { fields, .. }) => packed(c, fields, cx),
        (Datatype::Array(a), Column::FixedList { size, values }) => {
            Ok(stored(&peel(a), values, cx)?.array_of(&[*size]))
        }
        (_, Column::Values { datatype, .. }) => Ok(datatype.clone()),
        (_, Column::Bool(_)) => Ok(Datatype::Bool),
        (_, Column::Plain { datatype, .. }) => Ok(datatype.clone()),
        _ => Err(cx.refuse(format!("its columns do not match its datatype {dt:?}"))),
    }
}

/// A compound of the members' stored datatypes, back to back as NumPy
/// lays out a structured dtype without `align=True`.
fn packed(c: &Compound, fields: &[(String, Column)], cx: &Cx) -> Result<Datatype> {
    let mut offset = 0;
    let mut members = Vec::with_capacity(c.members.len());
    for (m, (_, column)) in c.members.iter().zip(fields) {
        let datatype = stored(&m.datatype, column, &cx.field(&m.name))?;
        let size = datatype.size().unwrap_or(0);
        members.push(Member {
            offset,
            datatype,
            ..m.clone()
        });
        offset += size;
    }
    Ok(Datatype::Compound(Compound {
        size: offset,
        members,
    }))
}

fn unicode(length: usize) -> Datatype {
    Datatype::FixedString(FixedString {
        length,
        charset: Charset::Utf32,
    })
}

/// An array's element: its base, or an array of the remaining dimensions.
fn peel(a: &Array) -> Datatype {
    match a.shape.get(1..) {
        Some(rest) if !rest.is_empty() => (*a.base).clone().array_of(rest),
        _ => (*a.base).clone(),
    }
}

fn string_at<'a>(offsets: &[i64], data: &'a [u8], i: usize) -> &'a [u8] {
    let at = |k: usize| offsets.get(k).map_or(0, |&o| o as usize);
    data.get(at(i)..at(i + 1)).unwrap_or_default()
}

/// Code points in UTF-8 bytes: every byte that does not continue a
/// character starts one.
fn chars(utf8: &[u8]) -> usize {
    utf8.iter().filter(|&&b| (b as i8) >= -0x40).count()
}

/// Writes records `rows` of `column` (stored as `dt`) into `out`, record
/// `j`'s value at `place(j)`; fails on a string longer than its `U n`.
fn scatter(
    column: &Column,
    dt: &Datatype,
    rows: Range<usize>,
    out: &mut [u8],
    place: Place<'_>,
    cx: &Cx,
) -> Result<()> {
    match column {
        Column::Values { values, .. } => {
            scatter_values(values, rows, out, place);
            Ok(())
        }
        Column::Bool(bits) => {
            for j in rows {
                out[place(j)] = u8::from(bits.get(j));
            }
            Ok(())
        }
        Column::Plain { bytes, datatype } => {
            let n = datatype.size().unwrap_or(0);
            for j in rows {
                let p = place(j);
                out[p..p + n].copy_from_slice(&bytes[j * n..(j + 1) * n]);
            }
            Ok(())
        }
        Column::Strings { offsets, data } => {
            let Datatype::FixedString(fs) = dt else {
                return Err(cx.refuse("strings need a `U` datatype"));
            };
            for j in rows {
                let s = String::from_utf8_lossy(string_at(offsets, data, j));
                let p = place(j);
                for (k, c) in s.chars().enumerate() {
                    if k == fs.length {
                        return Err(cx.refuse(format!(
                            "record {}: a string of {} characters does not fit the file's `<U{}` (the first batch fixed the width): {s:?}",
                            cx.record_at(p),
                            s.chars().count(),
                            fs.length
                        )));
                    }
                    out[p + 4 * k..p + 4 * k + 4].copy_from_slice(&(c as u32).to_ne_bytes());
                }
            }
            Ok(())
        }
        Column::FixedList { size, values } => {
            let Datatype::Array(a) = dt else {
                return Err(cx.refuse("fixed-size lists need an array datatype"));
            };
            let (size, item) = (*size, peel(a));
            let width = item.size().unwrap_or(0);
            let inner = |j: usize| place(j / size) + (j % size) * width;
            scatter(
                values,
                &item,
                rows.start * size..rows.end * size,
                out,
                &inner,
                cx,
            )
        }
        Column::Struct { fields, .. } => {
            let Datatype::Compound(c) = dt else {
                return Err(cx.refuse("records need a compound datatype"));
            };
            for (m, (_, column)) in c.members.iter().zip(fields) {
                let inner = |j: usize| place(j) + m.offset;
                scatter(
                    column,
                    &m.datatype,
                    rows.clone(),
                    out,
                    &inner,
                    &cx.field(&m.name),
                )?;
            }
            Ok(())
        }
        Column::Nullable { values, .. } => scatter(values, dt, rows, out, place, cx),
        _ => Err(cx.refuse("a `Vec` has no place in a `.npy` file")),
    }
}

fn scatter_values(values: &Values, rows: Range<usize>, out: &mut [u8], place: Place<'_>) {
    let (size, bytes) = (values.value_size(), values.as_bytes());
    for j in rows {
        let p = place(j);
        out[p..p + size].copy_from_slice(&bytes[j * size..(j + 1) * size]);
    }
}

/// Writes records `rows` of `column`, stored as `dt` (whose size is
/// `itemsize`), to `w` a chunk at a time.
pub(crate) fn write_rows(
    column: &Column,
    dt: &Datatype,
    rows: Range<usize>,
    w: &mut dyn Write,
    cx: &Cx,
) -> Result<()> {
    let itemsize = dt.size().unwrap_or(0);
    let chunk = (CHUNK_BYTES / itemsize.max(1)).max(1);
    let mut buf = Vec::new();
    let mut start = rows.start;
    while start < rows.end {
        let end = rows.end.min(start + chunk);
        buf.clear();
        buf.resize((end - start) * itemsize, 0);
        let cx = Cx {
            first: cx.first + start as u64,
            itemsize,
            ..cx.clone()
        };
        scatter(
            column,
            dt,
            start..end,
            &mut buf,
            &|j| (j - start) * itemsize,
            &cx,
        )?;
        w.write_all(&buf)?;
        start = end;
    }
    Ok(())
}

/// Writes `data` to the file at `path` as a 1-D array; the file appears
/// only once complete, and not at all if a field is refused.
pub(crate) fn write_file<T: Record>(path: &Path, data: &[T]) -> Result<()> {
    let column = crate::record::columns(data);
    let cx = Cx::of::<T>();
    let dt = stored(&T::datatype(), &column, &cx).map_err(|e| e.in_file(path))?;
    let header = Header::new(dt.clone(), vec![data.len() as u64]);
    super::write_file_with(path, &header, |w| {
        write_rows(&column, &dt, 0..data.len(), w, &cx)
    })
}

/// Reads a 1-D array of `T` records from the file at `path`.
pub(crate) fn read_file<T: Record>(path: &Path) -> Result<Vec<T>> {
    read_records::<T>(path).map_err(|e| e.in_file(path))
}

fn read_records<T: Record>(path: &Path) -> Result<Vec<T>> {
    let file = File::open(path)?;
    let total = file.metadata()?.len();
    let mut r = BufReader::new(file);
    let header = Header::read(&mut r, &HeaderLimits::default())?;
    let data_offset = r.stream_position()?;
    let [records] = header.shape[..] else {
        return Err(Error::RankMismatch {
            expected: 1,
            shape: header.shape,
        });
    };
    let data_len = header.data_len()?;
    let left = total.saturating_sub(data_offset);
    // Checked before allocating: a header can claim any size.
    if left < data_len {
        return Err(Error::UnexpectedEof {
            what: "array data",
            offset: data_offset,
            expected: data_len,
            got: left,
        });
    }
    let mut bytes = vec![0u8; data_len as usize];
    r.read_exact(&mut bytes)?;
    let itemsize = header.datatype.size().unwrap_or(0);
    if let Some(plan) = RecordPlan::with_orders(&header.datatype, &|at| header.byte_order_at(at)) {
        plan.swap(&mut bytes);
    }
    let mut template = T::Columns::with_capacity(1);
    template.push_null();
    let src = Source {
        bytes: &bytes,
        data_offset,
        itemsize,
    };
    let records = records as usize;
    let column = gather(
        &T::datatype(),
        &template.finish(),
        &header.datatype,
        records,
        &|j| j * itemsize,
        &src,
        &Cx::of::<T>(),
    )?;
    let bad = |e: RecordError| src.invalid(&e);
    let reader = T::reader(&column.view()).map_err(bad)?;
    (0..records)
        .map(|i| crate::record::ColumnReader::get(&reader, i).map_err(bad))
        .collect()
}

/// The data of a file, in native byte order.
struct Source<'a> {
    bytes: &'a [u8],
    data_offset: u64,
    itemsize: usize,
}

impl Source<'_> {
    fn at(&self, place: usize) -> u64 {
        self.data_offset + place as u64
    }

    fn invalid(&self, e: &RecordError) -> Error {
        let record = e.record().unwrap_or(0);
        Error::InvalidValue {
            record: record as u64,
            offset: self.at(record * self.itemsize),
            field: e.field(),
            message: e.message().to_owned(),
        }
    }

    fn bad_value(&self, cx: &Cx, place: usize, message: String) -> Error {
        Error::InvalidValue {
            record: (place / self.itemsize.max(1)) as u64,
            offset: self.at(place),
            field: cx.field.clone(),
            message,
        }
    }
}

/// The column of `n` values of `want` stored as `file` in `src` (value
/// `j` at `place(j)`), in the shape `template` (a column of one
/// placeholder record of the type) has.
fn gather(
    want: &Datatype,
    template: &Column,
    file: &Datatype,
    n: usize,
    place: Place<'_>,
    src: &Source<'_>,
    cx: &Cx,
) -> Result<Column> {
    match template {
        Column::Nullable { values, fill, .. } => {
            let inner = match want {
                Datatype::Optional(inner) => inner,
                other => other,
            };
            let column = gather(inner, values, file, n, place, src, cx)?;
            let validity = validity(fill.as_deref(), file, n, place, src, cx);
            Ok(Column::Nullable {
                validity,
                values: Box::new(column),
                fill: None,
            })
        }
        Column::Values { datatype, values } => {
            if !same_number(datatype, file) {
                return Err(leaf_mismatch(cx, want, file));
            }
            Ok(Column::Values {
                datatype: datatype.clone(),
                values: gather_values(values, n, place, src.bytes),
            })
        }
        Column::Bool(_) => {
            if *file != Datatype::Bool {
                return Err(leaf_mismatch(cx, want, file));
            }
            let mut bits = Bitmap::with_capacity(n);
            for j in 0..n {
                match src.bytes[place(j)] {
                    b @ (0 | 1) => bits.push(b == 1),
                    b => {
                        return Err(src.bad_value(
                            cx,
                            place(j),
                            format!("a bool holds {b}, not 0 or 1"),
                        ));
                    }
                }
            }
            Ok(Column::Bool(bits))
        }
        Column::Plain { datatype, .. } => {
            if datatype != file {
                return Err(leaf_mismatch(cx, datatype, file));
            }
            let size = datatype.size().unwrap_or(0);
            let mut bytes = Vec::with_capacity(n * size);
            for j in 0..n {
                bytes.extend_from_slice(&src.bytes[place(j)..place(j) + size]);
            }
            Ok(Column::Plain {
                datatype: datatype.clone(),
                bytes,
            })
        }
        Column::Strings { .. } => gather_strings(file, n, place, src, cx),
        Column::Struct { fields, .. } => {
            let (Datatype::Compound(c), Datatype::Compound(fc)) = (want, file) else {
                return Err(leaf_mismatch(cx, want, file));
            };
            let mut columns = Vec::with_capacity(fields.len());
            for (m, (name, template)) in c.members.iter().zip(fields) {
                let cx = cx.field(&m.name);
                let Some(fm) = fc.members.iter().find(|f| f.name == m.name) else {
                    let names: Vec<&str> = fc.members.iter().map(|f| f.name.as_str()).collect();
                    return Err(cx.mismatch(format!(
                        "the file's record has no field of this name; its fields are [{}]",
                        names.join(", ")
                    )));
                };
                let inner = |j: usize| place(j) + fm.offset;
                let column = gather(&m.datatype, template, &fm.datatype, n, &inner, src, &cx)?;
                columns.push((name.clone(), column));
            }
            Ok(Column::Struct {
                len: n,
                fields: columns,
            })
        }
        Column::FixedList { size, values } => {
            let (Datatype::Array(a), Datatype::Array(fa)) = (want, &file.folded()) else {
                return Err(leaf_mismatch(cx, want, file));
            };
            if a.shape != fa.shape {
                return Err(cx.mismatch(format!(
                    "the type has an array of shape {:?}, the file {:?}",
                    a.shape, fa.shape
                )));
            }
            let (item, file_item) = (peel(a), peel(fa));
            let (size, width) = (*size, file_item.size().unwrap_or(0));
            let inner = |j: usize| place(j / size) + (j % size) * width;
            let column = gather(&item, values, &file_item, n * size, &inner, src, cx)?;
            Ok(Column::FixedList {
                size,
                values: Box::new(column),
            })
        }
        _ => Err(cx.mismatch(
            "a `Vec` cannot be read from a `.npy` file, which has no variable-length lists",
        )),
    }
}

/// Whether values of a number column of `want` (a number, an enum's
/// integer, a time count) can be read from the file's `file`.
fn same_number(want: &Datatype, file: &Datatype) -> bool {
    match want {
        Datatype::Enum(e) => Datatype::from(e.base) == *file || want == file,
        _ => want == file,
    }
}

fn leaf_mismatch(cx: &Cx, want: &Datatype, file: &Datatype) -> Error {
    let descr = |dt: &Datatype| {
        Header::new(dt.clone(), vec![])
            .descr()
            .unwrap_or_else(|_| format!("{dt:?}"))
    };
    cx.mismatch(format!(
        "the type expects {}, the file has {}",
        descr(want),
        descr(file)
    ))
}

fn gather_values(template: &Values, n: usize, place: Place<'_>, bytes: &[u8]) -> Values {
    let size = template.value_size();
    let mut packed = Vec::with_capacity(n * size);
    for j in 0..n {
        let p = place(j);
        packed.extend_from_slice(&bytes[p..p + size]);
    }
    Values::from_ne_bytes(template, &packed)
}

/// Strings from `U n` (UTF-32) or `S n` (bytes, which must be UTF-8)
/// values, their trailing NULs trimmed.
fn gather_strings(
    file: &Datatype,
    n: usize,
    place: Place<'_>,
    src: &Source<'_>,
    cx: &Cx,
) -> Result<Column> {
    let Datatype::FixedString(fs) = file else {
        return Err(cx.mismatch(format!(
            "the type has a `String`, the file {}",
            Header::new(file.clone(), vec![])
                .descr()
                .unwrap_or_default()
        )));
    };
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0i64);
    let mut data = Vec::new();
    for j in 0..n {
        let p = place(j);
        let raw = &src.bytes[p..p + fs.length * fs.charset.width()];
        match fs.charset {
            Charset::Utf32 => push_utf32(raw, &mut data).map_err(|(k, u)| {
                src.bad_value(cx, p + 4 * k, format!("U+{u:X} is not a character"))
            })?,
            Charset::Ascii => {
                let end = raw.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
                let s = std::str::from_utf8(&raw[..end]).map_err(|e| {
                    src.bad_value(
                        cx,
                        p + e.valid_up_to(),
                        format!("the string is not UTF-8: {e}"),
                    )
                })?;
                data.extend_from_slice(s.as_bytes());
            }
        }
        offsets.push(data.len() as i64);
    }
    Ok(Column::Strings { offsets, data })
}

/// Appends the UTF-32 (native order) characters of `raw` but its trailing
/// NULs, as UTF-8; a value that is no character gives its index and value.
fn push_utf32(raw: &[u8], out: &mut Vec<u8>) -> std::result::Result<(), (usize, u32)> {
    for c in crate::utf32::chars(raw, crate::ByteOrder::NATIVE) {
        let mut buf = [0u8; 4];
        out.extend_from_slice(c?.encode_utf8(&mut buf).as_bytes());
    }
    Ok(())
}

/// The validity of an `Option`'s values: unset where the stored bytes are
/// the fill's (a fill the file cannot hold, or no fill: every value set).
fn validity(
    fill: Option<&Column>,
    file: &Datatype,
    n: usize,
    place: Place<'_>,
    src: &Source<'_>,
    cx: &Cx,
) -> Bitmap {
    let size = file.size().unwrap_or(0);
    let mut fill_bytes = vec![0u8; size];
    let encoded = fill.map(|f| scatter(f, file, 0..1, &mut fill_bytes, &|_| 0, cx));
    let mut bits = Bitmap::with_capacity(n);
    for j in 0..n {
        let null = matches!(encoded, Some(Ok(())))
            && src.bytes[place(j)..place(j) + size] == fill_bytes[..];
        bits.push(!null);
    }
    bits
}
