//! Reading the columns layout back into records, as a [`PartSource`]: each
//! part of the records takes its values from every column, which are
//! checked, then interleaved.

use std::ops::Range;

use ndl_runtime::records::{PackedLayout, Packer, RecordsMut};
use ndl_runtime::schema::first_difference;
use ndl_runtime::time::CfCounts;
use ndl_runtime::{Charset, Datatype, NdlType};

use super::cf_time::time_decoding;
use super::{Column, Style, plan};
use crate::chunks::ChunkIo;
use crate::error::{Error, Result};
use crate::metadata::ArrayMeta;
use crate::part_reader::{PartSource, invalid};
use crate::store::Store;

/// Checks that the array `meta` holds the values of column `c`.
pub(crate) fn check_column(store: &Store, meta: &ArrayMeta, c: &Column) -> Result<()> {
    let mismatch = |message: String| Error::TypeMismatch {
        store: store.name.clone(),
        field: c.name.clone(),
        message,
    };
    if meta.shape.get(1..) != Some(c.inner.as_slice()) {
        return Err(mismatch(format!(
            "the array has shape {:?}, the field needs [n] followed by {:?}",
            meta.shape, c.inner
        )));
    }
    let stored = &meta.stored;
    let chars = Datatype::FixedString(ndl_runtime::FixedString {
        length: 1,
        charset: Charset::Ascii,
    });
    let accepted = match (&c.leaf, &c.element) {
        // Characters either way, bools as xarray writes them too. A UTF-32
        // string is one value, not characters: it is compared below.
        (Datatype::FixedString(s), _) if s.charset == Charset::Ascii => {
            *stored == chars || *stored == Datatype::UInt8
        }
        (Datatype::Bool, _) => *stored == Datatype::UInt8 || *stored == Datatype::Bool,
        // CF counts, decoded by `time_decoding`.
        (Datatype::Time(_), _) => CfCounts::of(stored).is_some(),
        _ => first_difference(stored, &c.element).is_none(),
    };
    if !accepted {
        return Err(mismatch(format!(
            "the array holds {}, the field needs {}",
            ndl_runtime::schema::describe(stored),
            ndl_runtime::schema::describe(&c.element)
        )));
    }
    Ok(())
}

/// A column opened for reading.
struct Opened {
    column: Column,
    chunks: ChunkIo,
    /// The field's own checks (bools, enums).
    checks: PackedLayout,
    /// A time column's decoding to the field's unit, unless it holds the
    /// field's counts already.
    time: Option<ndl_runtime::time::CfValues>,
    /// A time column's counts where they are narrower than the int64 or
    /// float64 a time field is decoded from (`int32` days, `float32`).
    narrow: Option<CfCounts>,
}

impl Opened {
    /// The values of records `range`, in native byte order, checked.
    fn read(&self, range: Range<u64>) -> Result<Vec<u8>> {
        let size = self.column.size;
        let mut out = Vec::with_capacity((range.end - range.start) as usize * size);
        let chunk_len = self.chunks.chunk_len;
        let mut at = range.start;
        while at < range.end {
            let chunk = at / chunk_len;
            let from = (at - chunk * chunk_len) as usize;
            let to = ((range.end - chunk * chunk_len).min(chunk_len)) as usize;
            self.chunks.with_decoded(chunk, |decoded| {
                match self.narrow {
                    Some(counts) => {
                        let per_record = size / 8 * counts.size();
                        counts.widen(&decoded[from * per_record..to * per_record], &mut out);
                    }
                    None => out.extend_from_slice(&decoded[from * size..to * size]),
                }
                Ok(())
            })?;
            at = chunk * chunk_len + to as u64;
        }
        if let Some(time) = &self.time {
            time.apply(&mut out).map_err(|(i, e)| Error::InvalidValue {
                store: self.chunks.store.name.clone(),
                chunk: (range.start + i as u64) / chunk_len,
                record: range.start + i as u64,
                field: self.column.name.clone(),
                offset: self.column.offset,
                message: e.to_string(),
            })?;
        }
        self.checks.check(&out).map_err(|bad| {
            let field = match bad.field.as_str() {
                "" => self.column.name.clone(),
                f if f.starts_with('[') => format!("{}{f}", self.column.name),
                f => format!("{}.{f}", self.column.name),
            };
            Error::InvalidValue {
                store: self.chunks.store.name.clone(),
                chunk: (range.start + bad.record as u64) / chunk_len,
                record: range.start + bad.record as u64,
                field,
                offset: bad.offset,
                message: bad.message,
            }
        })?;
        Ok(out)
    }
}

/// The columns of `plan` in `store`, opened and checked, and the number of
/// records they all hold.
fn open_columns(store: &Store, plan: Vec<Column>) -> Result<(Vec<Opened>, u64)> {
    let mut opened = Vec::new();
    let mut len = u64::MAX;
    for column in plan {
        let child = store.child(&column.name);
        let meta = ArrayMeta::read(&child)?;
        check_column(&child, &meta, &column)?;
        let time = time_decoding(&child, &meta, &column)?;
        let narrow = match column.leaf {
            Datatype::Time(_) => CfCounts::of(&meta.stored).filter(|c| !c.is_wide()),
            _ => None,
        };
        let checks = PackedLayout::new(&column.leaf).map_err(|e| Error::TypeMismatch {
            store: store.name.clone(),
            field: column.name.clone(),
            message: e.to_string(),
        })?;
        // Columns of different lengths are what a crash between two
        // columns' appends leaves: the records are those all columns hold.
        len = len.min(meta.len());
        let chunks = ChunkIo::new(&child, &meta)?;
        opened.push(Opened {
            column,
            chunks,
            checks,
            time,
            narrow,
        });
    }
    let len = if opened.is_empty() { 0 } else { len };
    Ok((opened, len))
}

/// A columns store opened for reading records of one datatype: its
/// columns, interleaved into records (of `record` bytes each, each column
/// at its field's offset).
pub(crate) struct ColumnsSource {
    store: Store,
    opened: Vec<Opened>,
    len: u64,
    record: usize,
}

impl ColumnsSource {
    /// The columns of `store` that records of `datatype` (in its own
    /// layout, `record` bytes each) take their fields from, opened and
    /// checked.
    pub fn open(store: &Store, datatype: &Datatype, record: usize) -> Result<ColumnsSource> {
        let (opened, len) = open_columns(store, plan(datatype, READING)?)?;
        Ok(ColumnsSource {
            store: store.clone(),
            opened,
            len,
            record,
        })
    }

    /// The number of records: those every column holds.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Each column's values of records `first..first + count`.
    fn values(&self, first: u64, count: usize) -> Result<Vec<Vec<u8>>> {
        self.opened
            .iter()
            .map(|o| o.read(first..first + count as u64))
            .collect()
    }

    /// Copies each column's `values` into `records`.
    fn interleave(&self, values: &[Vec<u8>], records: &mut [u8]) {
        let fields: Vec<_> = self
            .opened
            .iter()
            .map(|o| o.column.offset..o.column.offset + o.column.size)
            .collect();
        let columns: Vec<&[u8]> = values.iter().map(Vec::as_slice).collect();
        ndl_runtime::records::scatter(&columns, &fields, records, self.record);
    }
}

impl PartSource for ColumnsSource {
    fn store(&self) -> &Store {
        &self.store
    }

    /// The first column's: parts are aligned to its chunks.
    fn chunk_len(&self) -> u64 {
        self.opened.first().map_or(1, |o| o.chunks.chunk_len)
    }

    fn record_size(&self) -> usize {
        self.record
    }

    fn packed(&self, first: u64, out: &mut [u8]) -> Result<()> {
        let values = self.values(first, out.len() / self.record.max(1))?;
        self.interleave(&values, out);
        Ok(())
    }

    fn typed<T: NdlType>(
        &self,
        packer: &Packer<T>,
        first: u64,
        part: &mut RecordsMut<'_, T>,
    ) -> Result<()> {
        let values = self.values(first, part.len())?;
        packer
            .fill(part, |bytes| self.interleave(&values, bytes))
            .map_err(|bad| invalid(&self.store, self.chunk_len(), first, bad))
    }
}

/// Columns are read whatever their characters' element type.
const READING: Style = Style {
    chars_as_u1: false,
    order: ndl_runtime::ByteOrder::Little,
};

#[cfg(test)]
mod tests {
    use ndl_runtime::{Compound, FixedString};
    use serde_json::Map;

    use super::*;
    use crate::options::WriteOptions;

    /// The array a new columns store holds for each column of `record`,
    /// checked as a reader checks it.
    fn check_new_columns(record: &Datatype, options: &WriteOptions) -> Result<()> {
        let store = Store::memory("m");
        for c in plan(record, READING)? {
            let shape = std::iter::once(0).chain(c.inner.iter().copied()).collect();
            let meta = ArrayMeta::new(options, &c.element, shape, 4, Map::new(), vec![])?;
            check_column(&store, &meta, &c)?;
        }
        Ok(())
    }

    #[test]
    fn every_kind_of_column_a_writer_stores_is_read_back() {
        let text = |length, charset| Datatype::FixedString(FixedString { length, charset });
        let record = Datatype::Compound(
            Compound::c_layout([
                ("ok", Datatype::Bool),
                ("ascii", text(3, Charset::Ascii)),
                ("utf32", text(2, Charset::Utf32)),
                ("xy", Datatype::Float32.array_of(&[2])),
            ])
            .unwrap(),
        );
        check_new_columns(&record, &WriteOptions::new()).unwrap();
        check_new_columns(&record, &WriteOptions::new().chars_as_u1(true)).unwrap();
    }

    #[test]
    fn a_column_of_another_type_is_refused_naming_its_field() {
        let column = Column {
            name: "t".into(),
            offset: 0,
            size: 8,
            leaf: Datatype::Float64,
            element: Datatype::Float64,
            inner: vec![],
            dims: vec![],
            attributes: Map::new(),
            time: None,
        };
        let meta = ArrayMeta::new(
            &WriteOptions::new(),
            &Datatype::Int64,
            vec![0],
            4,
            Map::new(),
            vec![],
        )
        .unwrap();
        let e = check_column(&Store::memory("m"), &meta, &column).unwrap_err();
        assert!(
            matches!(e, Error::TypeMismatch { ref field, .. } if field == "t"),
            "{e}"
        );
    }
}
