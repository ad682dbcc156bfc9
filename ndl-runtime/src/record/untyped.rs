//! Records whose type is known only at run time, from a file's datatype:
//! the column shape they take ([`Column::template`]) and owned copies of
//! borrowed columns in that shape ([`Column::copied`]). This is how
//! `ndl convert` carries variable-length and nullable records between
//! formats without a Rust type: every format crate already turns columns
//! of this shape into its own storage and back.

use std::ops::Range;

use crate::{Datatype, IntType};

use super::{Bitmap, Column, ColumnView, Offsets, RecordError, Values, ValuesView};

impl Column {
    /// The empty column that records of `datatype` are held in, shaped as
    /// a `#[derive(Record)]` type of that datatype builds them: numbers,
    /// enums (their base integer) and time (its `i64` count) as
    /// [`Column::Values`], `bool` as [`Column::Bool`], strings as
    /// [`Column::Strings`], `vlen` as [`Column::List`], arrays as
    /// [`Column::FixedList`]s (one per dimension), `optional` as
    /// [`Column::Nullable`] without a fill, other fixed-size values as
    /// [`Column::Plain`]. A compound is a [`Column::Struct`] of its
    /// members, fixed or not, so every format sees its fields by name.
    ///
    /// ```
    /// use ndl_runtime::record::Column;
    /// use ndl_runtime::{Datatype, Record};
    ///
    /// #[derive(Record)]
    /// struct Trade {
    ///     symbol: String,
    ///     levels: Vec<f32>,
    ///     venue: Option<i32>,
    /// }
    ///
    /// let template = Column::template(&Trade::datatype())?;
    /// let built = <Trade as Record>::Columns::with_capacity(0);
    /// use ndl_runtime::record::Columns;
    /// assert_eq!(template, built.finish());
    /// # Ok::<(), ndl_runtime::record::RecordError>(())
    /// ```
    ///
    /// # Errors
    /// References (`objref`, `regref`) have no column.
    pub fn template(datatype: &Datatype) -> Result<Column, RecordError> {
        let values = |values: Values| Column::Values {
            datatype: datatype.clone(),
            values,
        };
        Ok(match datatype {
            Datatype::Int8 => values(Values::I8(Vec::new())),
            Datatype::Int16 => values(Values::I16(Vec::new())),
            Datatype::Int32 => values(Values::I32(Vec::new())),
            Datatype::Int64 => values(Values::I64(Vec::new())),
            Datatype::UInt8 => values(Values::U8(Vec::new())),
            Datatype::UInt16 => values(Values::U16(Vec::new())),
            Datatype::UInt32 => values(Values::U32(Vec::new())),
            Datatype::UInt64 => values(Values::U64(Vec::new())),
            Datatype::Float32 => values(Values::F32(Vec::new())),
            Datatype::Float64 => values(Values::F64(Vec::new())),
            Datatype::Enum(e) => values(int_values(e.base)),
            Datatype::Time(_) => values(Values::I64(Vec::new())),
            Datatype::Bool => Column::Bool(Bitmap::default()),
            Datatype::String => Column::Strings {
                offsets: vec![0],
                data: Vec::new(),
            },
            Datatype::Vlen(items) => Column::List {
                offsets: vec![0],
                values: Box::new(Column::template(items)?),
            },
            Datatype::Array(a) => {
                a.shape
                    .iter()
                    .rev()
                    .try_fold(Column::template(&a.base)?, |values, &size| {
                        Ok::<_, RecordError>(Column::FixedList {
                            size,
                            values: Box::new(values),
                        })
                    })?
            }
            Datatype::Optional(base) => Column::Nullable {
                validity: Bitmap::default(),
                values: Box::new(Column::template(base)?),
                fill: None,
            },
            Datatype::Compound(c) => Column::Struct {
                len: 0,
                fields: c
                    .members
                    .iter()
                    .map(|m| {
                        let column = Column::template(&m.datatype).map_err(|e| e.in_field(&m.name));
                        Ok((m.name.clone(), column?))
                    })
                    .collect::<Result<_, RecordError>>()?,
            },
            Datatype::ObjRef | Datatype::RegRef(_) => {
                return Err(RecordError::new(
                    "references point into their own file, so no record holds one",
                ));
            }
            _ => Column::Plain {
                datatype: datatype.clone(),
                bytes: Vec::new(),
            },
        })
    }

    /// An owned copy of the records of `view`, in the shape of `template`
    /// (what [`Column::template`] or a record type's `Columns` give):
    /// values keep the template's datatype, struct fields are found by
    /// name and put in the template's order, offsets start at 0, and an
    /// option takes the template's fill.
    ///
    /// ```
    /// use ndl_runtime::record::{Column, ColumnView, Offsets};
    /// use ndl_runtime::Datatype;
    ///
    /// // Two strings, as a library might hold them: 32-bit offsets not
    /// // starting at 0.
    /// let view = ColumnView::Strings { offsets: Offsets::I32(&[2, 5, 6]), data: b"xxabcd" };
    /// let copy = Column::copied(&Column::template(&Datatype::String)?, &view)?;
    /// assert_eq!(copy, Column::Strings { offsets: vec![0, 3, 4], data: b"abcd".to_vec() });
    /// # Ok::<(), ndl_runtime::record::RecordError>(())
    /// ```
    ///
    /// # Errors
    /// If `view` is not of the template's shape (another kind of column,
    /// another number type, a field missing, a null where the template is
    /// not an option), or its offsets are out of bounds or descending.
    pub fn copied(template: &Column, view: &ColumnView<'_>) -> Result<Column, RecordError> {
        copy_range(template, view, 0..view_len(template, view))
    }
}

impl Column {
    /// Puts each option's fill in the slots of its nulls, so that a format
    /// storing the values as they are stores the fill there (a source's
    /// null slots may hold anything). Options without a fill, and lists
    /// under a null, are left as they are.
    ///
    /// ```
    /// use ndl_runtime::record::{Bitmap, Column, Values};
    /// use ndl_runtime::Datatype;
    ///
    /// let mut validity = Bitmap::default();
    /// [true, false].into_iter().for_each(|b| validity.push(b));
    /// let numbers = |v: Vec<i32>| Column::Values { datatype: Datatype::Int32, values: Values::I32(v) };
    /// let mut column = Column::Nullable {
    ///     validity,
    ///     values: Box::new(numbers(vec![7, 0])),
    ///     fill: Some(Box::new(numbers(vec![-1]))),
    /// };
    /// column.put_fills();
    /// let Column::Nullable { values, .. } = &column else { unreachable!() };
    /// assert_eq!(**values, numbers(vec![7, -1]));
    /// ```
    pub fn put_fills(&mut self) {
        match self {
            Column::Nullable {
                validity,
                values,
                fill,
            } => {
                values.put_fills();
                if let Some(fill) = fill {
                    let nulls: Vec<usize> =
                        (0..validity.len()).filter(|&i| !validity.get(i)).collect();
                    if !nulls.is_empty() {
                        values.fill_slots(&nulls, fill);
                    }
                }
            }
            Column::Struct { fields, .. } => fields.iter_mut().for_each(|(_, c)| c.put_fills()),
            Column::List { values, .. } | Column::FixedList { values, .. } => values.put_fills(),
            _ => {}
        }
    }

    /// Puts record 0 of `fill` in each slot of `slots` (ascending).
    fn fill_slots(&mut self, slots: &[usize], fill: &Column) {
        match (self, fill) {
            (Column::Values { values, .. }, Column::Values { values: f, .. }) => {
                slots.iter().for_each(|&i| values.set_from(i, f, 0));
            }
            (Column::Bool(bits), Column::Bool(f)) => {
                let mut copy = Bitmap::with_capacity(bits.len());
                (0..bits.len()).for_each(|i| {
                    copy.push(if slots.binary_search(&i).is_ok() {
                        f.get(0)
                    } else {
                        bits.get(i)
                    })
                });
                *bits = copy;
            }
            (Column::Plain { datatype, bytes }, Column::Plain { bytes: f, .. }) => {
                let n = datatype.size().unwrap_or(0);
                for &i in slots {
                    if let (Some(slot), Some(v)) = (bytes.get_mut(i * n..(i + 1) * n), f.get(..n)) {
                        slot.copy_from_slice(v);
                    }
                }
            }
            (
                Column::Strings { offsets, data },
                Column::Strings {
                    offsets: fo,
                    data: fd,
                },
            ) => {
                let value = fd.get(range_of(fo, 0)).unwrap_or_default();
                let mut new_data = Vec::with_capacity(data.len());
                let mut new_offsets = Vec::with_capacity(offsets.len());
                new_offsets.push(0);
                for i in 0..offsets.len().saturating_sub(1) {
                    if slots.binary_search(&i).is_ok() {
                        new_data.extend_from_slice(value);
                    } else {
                        new_data
                            .extend_from_slice(data.get(range_of(offsets, i)).unwrap_or_default());
                    }
                    new_offsets.push(new_data.len() as i64);
                }
                (*offsets, *data) = (new_offsets, new_data);
            }
            _ => {}
        }
    }
}

fn range_of(offsets: &[i64], i: usize) -> Range<usize> {
    let at = |k: usize| {
        offsets
            .get(k)
            .map_or(0, |&o| usize::try_from(o).unwrap_or(0))
    };
    at(i)..at(i + 1).max(at(i))
}

fn int_values(base: IntType) -> Values {
    match base {
        IntType::Int8 => Values::I8(Vec::new()),
        IntType::Int16 => Values::I16(Vec::new()),
        IntType::Int32 => Values::I32(Vec::new()),
        IntType::Int64 => Values::I64(Vec::new()),
        IntType::UInt8 => Values::U8(Vec::new()),
        IntType::UInt16 => Values::U16(Vec::new()),
        IntType::UInt32 => Values::U32(Vec::new()),
        IntType::UInt64 => Values::U64(Vec::new()),
    }
}

/// The number of records of `view`, read as `template` says (a plain
/// view's length is in bytes).
fn view_len(template: &Column, view: &ColumnView<'_>) -> usize {
    match (template, view) {
        (_, ColumnView::Values(v)) => v.len(),
        (_, ColumnView::Bool(bits)) => bits.len(),
        (Column::Plain { datatype, .. }, ColumnView::Plain(bytes)) => {
            bytes.len() / datatype.size().unwrap_or(1).max(1)
        }
        (_, ColumnView::Plain(bytes)) => bytes.len(),
        (_, ColumnView::Strings { offsets, .. } | ColumnView::List { offsets, .. }) => {
            offsets.len().saturating_sub(1)
        }
        (Column::FixedList { values: t, .. }, ColumnView::FixedList { size, values }) => {
            view_len(t, values).checked_div(*size).unwrap_or(0)
        }
        (_, ColumnView::FixedList { size, values }) => {
            view_len(template, values).checked_div(*size).unwrap_or(0)
        }
        (_, ColumnView::Struct { len, .. }) => *len,
        (_, ColumnView::Nullable { validity, .. }) => validity.len(),
    }
}

fn wrong_shape(template: &Column, view: &ColumnView<'_>) -> RecordError {
    RecordError::new(format!(
        "{} found where {} were expected",
        view_kind(view),
        column_kind(template)
    ))
}

fn column_kind(column: &Column) -> &'static str {
    match column {
        Column::Values { .. } => "numbers",
        Column::Bool(_) => "booleans",
        Column::Plain { .. } => "fixed-size values",
        Column::Strings { .. } => "strings",
        Column::List { .. } => "lists",
        Column::FixedList { .. } => "fixed-size lists",
        Column::Struct { .. } => "records",
        Column::Nullable { .. } => "optional values",
    }
}

fn view_kind(view: &ColumnView<'_>) -> &'static str {
    match view {
        ColumnView::Values(_) => "numbers",
        ColumnView::Bool(_) => "booleans",
        ColumnView::Plain(_) => "fixed-size values",
        ColumnView::Strings { .. } => "strings",
        ColumnView::List { .. } => "lists",
        ColumnView::FixedList { .. } => "fixed-size lists",
        ColumnView::Struct { .. } => "records",
        ColumnView::Nullable { .. } => "optional values",
    }
}

/// Records `range` of `view`, copied in the shape of `template`.
fn copy_range(
    template: &Column,
    view: &ColumnView<'_>,
    range: Range<usize>,
) -> Result<Column, RecordError> {
    match (template, view) {
        (
            Column::Nullable { fill, values, .. },
            ColumnView::Nullable {
                validity,
                values: v,
            },
        ) => {
            if range.end > validity.len() {
                return Err(out_of_bounds(range.end, validity.len()));
            }
            let mut copy = Bitmap::with_capacity(range.len());
            range.clone().for_each(|i| copy.push(validity.get(i)));
            Ok(Column::Nullable {
                validity: copy,
                values: Box::new(copy_range(values, v, range)?),
                fill: fill.clone(),
            })
        }
        (Column::Nullable { fill, values, .. }, _) => {
            let mut validity = Bitmap::with_capacity(range.len());
            range.clone().for_each(|_| validity.push(true));
            Ok(Column::Nullable {
                validity,
                values: Box::new(copy_range(values, view, range)?),
                fill: fill.clone(),
            })
        }
        (_, ColumnView::Nullable { validity, values }) => {
            if let Some(i) = range.clone().find(|&i| !validity.get(i)) {
                return Err(RecordError::new("a null where the field is not optional").at(i));
            }
            copy_range(template, values, range)
        }
        (Column::Values { datatype, values }, ColumnView::Values(v)) => Ok(Column::Values {
            datatype: datatype.clone(),
            values: copy_values(values, v, range)?,
        }),
        (Column::Bool(_), ColumnView::Bool(bits)) => {
            if range.end > bits.len() {
                return Err(out_of_bounds(range.end, bits.len()));
            }
            let mut copy = Bitmap::with_capacity(range.len());
            range.for_each(|i| copy.push(bits.get(i)));
            Ok(Column::Bool(copy))
        }
        (Column::Plain { datatype, .. }, ColumnView::Plain(bytes)) => {
            let size = datatype.size().unwrap_or(0);
            if size == 0 || bytes.len() % size != 0 {
                return Err(RecordError::new(format!(
                    "{} bytes are not a whole number of {size}-byte values",
                    bytes.len()
                )));
            }
            let whole = range.start * size..range.end * size;
            let Some(bytes) = bytes.get(whole.clone()) else {
                return Err(out_of_bounds(whole.end, bytes.len()));
            };
            Ok(Column::Plain {
                datatype: datatype.clone(),
                bytes: bytes.to_vec(),
            })
        }
        (Column::Strings { .. }, ColumnView::Strings { offsets, data }) => {
            let (offsets, within) = rebased(offsets, range)?;
            let Some(data) = data.get(within.clone()) else {
                return Err(out_of_bounds(within.end, data.len()));
            };
            Ok(Column::Strings {
                offsets,
                data: data.to_vec(),
            })
        }
        (Column::List { values, .. }, ColumnView::List { offsets, values: v }) => {
            let (offsets, within) = rebased(offsets, range)?;
            if within.end > view_len(values, v) {
                return Err(out_of_bounds(within.end, view_len(values, v)));
            }
            Ok(Column::List {
                offsets,
                values: Box::new(copy_range(values, v, within)?),
            })
        }
        (Column::FixedList { size, values }, ColumnView::FixedList { size: s, values: v })
            if size == s =>
        {
            let items = range.start * size..range.end * size;
            Ok(Column::FixedList {
                size: *size,
                values: Box::new(copy_range(values, v, items)?),
            })
        }
        (Column::Struct { fields, .. }, ColumnView::Struct { len, fields: found }) => {
            if range.end > *len {
                return Err(out_of_bounds(range.end, *len));
            }
            let fields = fields
                .iter()
                .map(|(name, template)| {
                    let Some((_, view)) = found.iter().find(|(n, _)| n == name) else {
                        return Err(RecordError::new("no such field").in_field(name));
                    };
                    let copy = copy_range(template, view, range.clone());
                    Ok((name.clone(), copy.map_err(|e| e.in_field(name))?))
                })
                .collect::<Result<_, _>>()?;
            Ok(Column::Struct {
                len: range.len(),
                fields,
            })
        }
        _ => Err(wrong_shape(template, view)),
    }
}

fn out_of_bounds(end: usize, len: usize) -> RecordError {
    RecordError::new(format!("values up to {end} asked of {len}"))
}

/// Offsets `range.start..=range.end` of `offsets`, made to start at 0, and
/// the range of values they cover.
fn rebased(
    offsets: &Offsets<'_>,
    range: Range<usize>,
) -> Result<(Vec<i64>, Range<usize>), RecordError> {
    let picked: Vec<i64> = match offsets {
        Offsets::I32(o) => o
            .get(range.start..=range.end)
            .map(|o| o.iter().map(|&x| i64::from(x)).collect()),
        Offsets::I64(o) => o.get(range.start..=range.end).map(<[i64]>::to_vec),
    }
    .ok_or_else(|| out_of_bounds(range.end + 1, offsets.len()))?;
    let first = picked[0];
    if let Some(k) = picked.windows(2).position(|w| w[1] < w[0]) {
        return Err(RecordError::new("offsets descend").at(range.start + k));
    }
    let (Ok(start), Ok(end)) = (
        usize::try_from(first),
        usize::try_from(picked[picked.len() - 1]),
    ) else {
        return Err(RecordError::new("a negative offset").at(range.start));
    };
    Ok((picked.iter().map(|o| o - first).collect(), start..end))
}

macro_rules! copy_values {
    ($($variant:ident),*) => {
        fn copy_values(
            like: &Values,
            view: &ValuesView<'_>,
            range: Range<usize>,
        ) -> Result<Values, RecordError> {
            match (like, view) {
                $((Values::$variant(_), ValuesView::$variant(v)) => match v.get(range.clone()) {
                    Some(v) => Ok(Values::$variant(v.to_vec())),
                    None => Err(out_of_bounds(range.end, v.len())),
                },)*
                _ => Err(RecordError::new(format!(
                    "{} values found where another number type was expected",
                    view.type_name()
                ))),
            }
        }
    };
}

copy_values!(I8, I16, I32, I64, U8, U16, U32, U64, F32, F64);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Columns, Record};

    #[derive(Clone, Debug, PartialEq, crate::Record)]
    struct Inner {
        code: u16,
        tags: Vec<String>,
    }

    #[derive(Clone, Debug, PartialEq, crate::Record)]
    struct Trade {
        id: u64,
        symbol: String,
        ok: bool,
        pair: [f32; 2],
        venue: Option<i32>,
        inner: Inner,
    }

    fn trades() -> Vec<Trade> {
        (0..5)
            .map(|i| Trade {
                id: i,
                symbol: "s".repeat(i as usize),
                ok: i % 2 == 0,
                pair: [i as f32, 0.5],
                venue: (i % 3 != 0).then_some(i as i32),
                inner: Inner {
                    code: i as u16,
                    tags: vec!["t".into(); i as usize],
                },
            })
            .collect()
    }

    #[test]
    fn the_template_of_a_record_datatype_is_its_empty_columns() {
        let built = <Trade as Record>::Columns::with_capacity(0).finish();
        assert_eq!(Column::template(&Trade::datatype()).unwrap(), built);
    }

    #[test]
    fn a_copy_of_a_view_is_the_column_it_views() {
        let mut columns = <Trade as Record>::Columns::with_capacity(5);
        columns.extend(&trades());
        let column = columns.finish();
        let template = Column::template(&Trade::datatype()).unwrap();
        assert_eq!(Column::copied(&template, &column.view()).unwrap(), column);
    }

    #[test]
    fn a_copy_of_part_of_a_list_rebases_its_offsets() {
        let items = Column::Values {
            datatype: Datatype::Int32,
            values: Values::I32(vec![1, 2, 3, 4, 5]),
        };
        let view = ColumnView::List {
            offsets: Offsets::I32(&[1, 3, 5]),
            values: Box::new(items.view()),
        };
        let template = Column::template(&Datatype::Vlen(Box::new(Datatype::Int32))).unwrap();
        let copy = Column::copied(&template, &view).unwrap();
        let Column::List { offsets, values } = copy else {
            panic!("not a list")
        };
        assert_eq!(offsets, [0, 2, 4]);
        assert_eq!(
            values.view(),
            ColumnView::Values(ValuesView::I32(&[2, 3, 4, 5]))
        );
    }

    #[test]
    fn a_null_where_the_template_has_no_option_names_the_record_and_field() {
        let template = Column::template(&Trade::datatype()).unwrap();
        let mut columns = <Trade as Record>::Columns::with_capacity(5);
        columns.extend(&trades());
        let Column::Struct { len, mut fields } = columns.finish() else {
            unreachable!()
        };
        // `venue` is an option: make the template say it is not.
        let Column::Struct { fields: t, .. } = &template else {
            unreachable!()
        };
        let mut t = t.clone();
        t[4].1 = Column::template(&Datatype::Int32).unwrap();
        let template = Column::Struct { len: 0, fields: t };
        fields.truncate(6);
        let column = Column::Struct { len, fields };
        let e = Column::copied(&template, &column.view()).unwrap_err();
        assert_eq!((e.field(), e.record()), ("venue".into(), Some(0)));
    }

    #[test]
    fn offsets_out_of_bounds_are_an_error_not_a_panic() {
        let view = ColumnView::Strings {
            offsets: Offsets::I64(&[0, 9]),
            data: b"abc",
        };
        assert!(Column::copied(&Column::template(&Datatype::String).unwrap(), &view).is_err());
        let view = ColumnView::Strings {
            offsets: Offsets::I64(&[3, 1]),
            data: b"abc",
        };
        assert!(Column::copied(&Column::template(&Datatype::String).unwrap(), &view).is_err());
    }
}
