//! Fills for the options of records read: `--fill COLUMN=VALUE` gives the
//! value that stands for null in formats without nulls, and every batch
//! gets its fills put in its nulls' slots (a source's may hold anything).
//! Two kinds of option take no single value: an optional list takes `[]`
//! (its nulls are written as empty lists), and an optional record lends
//! its nulls to its fields, each then filled on its own
//! (`--fill venue.code=0`).

use ndl_runtime::Datatype;
use ndl_runtime::record::{Bitmap, Column};

use crate::column_rows::nulls_emptied;
use crate::error::{Error, Result};
use crate::records::{RecordOrigin, RecordSource};

/// A source whose options take the fills asked for.
pub(crate) struct Filled {
    inner: Box<dyn RecordSource>,
    datatype: Datatype,
    template: Column,
    /// What each batch undergoes, in the order the template did.
    steps: Vec<Step>,
    notes: Vec<String>,
}

/// One change `--fill` makes to the column at a dotted path.
enum Step {
    /// The option's nulls hold this value.
    Fill(String, Column),
    /// The optional list's nulls are empty lists; it is a plain list.
    EmptyLists(String),
    /// The optional record's nulls are its fields' nulls; it is a plain
    /// record of optional fields.
    NullFields(String),
}

impl Filled {
    /// `inner` with `fills` (`(column, value)`, as the command line gives
    /// them) set on its options.
    ///
    /// # Errors
    /// [`Error::Fill`] for a column that does not exist or a value that
    /// does not parse as the column's type.
    pub(crate) fn new(inner: Box<dyn RecordSource>, fills: &[(String, String)]) -> Result<Filled> {
        let origin = inner.origin();
        let mut datatype = origin.datatype.clone();
        let mut template = origin.template.clone();
        let mut steps = Vec::new();
        let mut notes = inner.notes().to_vec();
        for (column, value) in fills {
            let error = |message: String| Error::Fill {
                path: origin.location.to_path_buf(),
                column: column.clone(),
                message,
            };
            for record in optional_records_above(&mut template, column) {
                lend_nulls_to_fields(&mut template, &mut datatype, &record);
                notes.push(format!(
                    "--fill {column}: `{record}` may be null, so each of its fields is null \
                     where it is, and is read back so"
                ));
                steps.push(Step::NullFields(record));
            }
            let Some(found) = template.member_mut(column) else {
                return Err(error(format!(
                    "no such column; the columns are {}",
                    names(origin.template).join(", ")
                )));
            };
            let Column::Nullable { values, fill, .. } = found else {
                if crate::records::holds_null_items(found) {
                    return Err(error(
                        "its lists may hold null items, which no --fill stands for; convert to \
                         Parquet or Arrow IPC, which hold them"
                            .into(),
                    ));
                }
                notes.push(format!(
                    "--fill {column}: the column holds no nulls, so there is nothing to fill"
                ));
                continue;
            };
            match &**values {
                Column::List { .. } if value.trim() == "[]" => {
                    *found = take(values);
                    unwrap_option(&mut datatype, column);
                    notes.push(format!(
                        "--fill {column}=[]: its nulls are written as empty lists, and read \
                         back as empty lists"
                    ));
                    steps.push(Step::EmptyLists(column.clone()));
                }
                Column::List { .. } => {
                    return Err(error(
                        "a column of lists takes `[]`, which writes its nulls as empty lists"
                            .into(),
                    ));
                }
                Column::Struct { fields, .. } => {
                    let first = fields.first().map_or("FIELD", |(n, _)| n.as_str());
                    return Err(error(format!(
                        "a column of records takes a value for each of its fields, such as \
                         `--fill {column}.{first}=VALUE`"
                    )));
                }
                _ => {
                    let one = Column::parse_one(values, value).map_err(error)?;
                    *fill = Some(Box::new(one.clone()));
                    steps.push(Step::Fill(column.clone(), one));
                }
            }
        }
        Ok(Filled {
            inner,
            datatype,
            template,
            steps,
            notes,
        })
    }
}

impl RecordSource for Filled {
    fn origin(&self) -> RecordOrigin<'_> {
        RecordOrigin {
            datatype: &self.datatype,
            template: &self.template,
            ..self.inner.origin()
        }
    }

    fn attributes(&self) -> Option<&ndl_runtime::ndl::NameMap<ndl_runtime::ndl::Attribute>> {
        self.inner.attributes()
    }

    fn array_name(&self) -> String {
        self.inner.array_name()
    }

    fn notes(&self) -> &[String] {
        &self.notes
    }

    fn next_batch(&mut self) -> Result<Option<Column>> {
        let Some(mut batch) = self.inner.next_batch()? else {
            return Ok(None);
        };
        for step in &self.steps {
            match step {
                Step::Fill(column, one) => {
                    if let Some(Column::Nullable { fill, .. }) = batch.member_mut(column) {
                        *fill = Some(Box::new(one.clone()));
                    }
                }
                Step::EmptyLists(column) => {
                    if let Some(found) = batch.member_mut(column) {
                        *found = emptied(take(found));
                    }
                }
                Step::NullFields(column) => {
                    if let Some(found) = batch.member_mut(column) {
                        *found = nulls_in_fields(take(found));
                    }
                }
            }
        }
        batch.put_fills();
        Ok(Some(batch))
    }
}

/// The column, leaving a placeholder in its place.
fn take(column: &mut Column) -> Column {
    std::mem::replace(column, Column::Bool(Bitmap::default()))
}

/// The dotted paths of the optional records that `column` lies in, the
/// outermost first.
fn optional_records_above(template: &mut Column, column: &str) -> Vec<String> {
    let parts: Vec<&str> = column.split('.').collect();
    (1..parts.len())
        .map(|k| parts[..k].join("."))
        .filter(|above| {
            matches!(
                template.member_mut(above),
                Some(Column::Nullable { values, .. }) if matches!(**values, Column::Struct { .. })
            )
        })
        .collect()
}

/// Makes the optional record at `path` a record of optional fields, in the
/// template and the datatype.
fn lend_nulls_to_fields(template: &mut Column, datatype: &mut Datatype, path: &str) {
    if let Some(found) = template.member_mut(path) {
        *found = nulls_in_fields(take(found));
    }
    let Some(member) = datatype.member_mut(path) else {
        return;
    };
    if let Datatype::Optional(inner) = member
        && let Datatype::Compound(compound) = &mut **inner
    {
        for m in &mut compound.members {
            if !matches!(m.datatype, Datatype::Optional(_)) {
                m.datatype = Datatype::Optional(Box::new(m.datatype.clone()));
            }
        }
        let fields = std::mem::take(&mut compound.members);
        if let Ok(variable) = ndl_runtime::Compound::variable(fields) {
            *member = Datatype::Compound(variable);
        }
    }
}

/// Makes the option at `path` of `datatype` its value's type.
fn unwrap_option(datatype: &mut Datatype, path: &str) {
    if let Some(member) = datatype.member_mut(path)
        && let Datatype::Optional(inner) = member
    {
        *member = std::mem::replace(&mut **inner, Datatype::Bool);
    }
}

/// An optional list column with its nulls made empty lists.
fn emptied(column: Column) -> Column {
    match column {
        Column::Nullable {
            validity, values, ..
        } => match *values {
            Column::List { offsets, values } => nulls_emptied(&validity, offsets, *values),
            other => other,
        },
        other => other,
    }
}

/// An optional record column as a record of optional fields: each field
/// null where the record is, or where it was already.
fn nulls_in_fields(column: Column) -> Column {
    let Column::Nullable {
        validity, values, ..
    } = column
    else {
        return column;
    };
    let Column::Struct { len, fields } = *values else {
        return Column::Nullable {
            validity,
            values,
            fill: None,
        };
    };
    let fields = fields
        .into_iter()
        .map(|(name, field)| {
            let field = match field {
                Column::Nullable {
                    validity: own,
                    values,
                    fill,
                } => Column::Nullable {
                    validity: both(&validity, &own),
                    values,
                    fill,
                },
                plain => Column::Nullable {
                    validity: validity.clone(),
                    values: Box::new(plain),
                    fill: None,
                },
            };
            (name, field)
        })
        .collect();
    Column::Struct { len, fields }
}

/// Set where both bitmaps are.
fn both(a: &Bitmap, b: &Bitmap) -> Bitmap {
    let mut out = Bitmap::with_capacity(a.len());
    (0..a.len()).for_each(|i| out.push(a.get(i) && b.get(i)));
    out
}

/// The dotted paths of every leaf column of `template`, through options
/// and lists.
fn names(template: &Column) -> Vec<String> {
    match template {
        Column::Struct { fields, .. } => fields
            .iter()
            .flat_map(|(name, c)| {
                let inner = names(c);
                if inner.is_empty() {
                    vec![name.clone()]
                } else {
                    inner.into_iter().map(|i| format!("{name}.{i}")).collect()
                }
            })
            .collect(),
        Column::Nullable { values, .. }
        | Column::List { values, .. }
        | Column::FixedList { values, .. } => names(values),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use ndl_runtime::record::Values;
    use ndl_runtime::{Datatype, Record};

    use super::*;
    use crate::records::memory::MemorySource;

    #[derive(Clone, Record)]
    struct Venue {
        code: Option<u16>,
    }

    #[derive(Clone, Record)]
    struct Trade {
        id: u64,
        note: Option<String>,
        venue: Venue,
    }

    fn source() -> Box<dyn RecordSource> {
        let rows = [
            Trade {
                id: 1,
                note: None,
                venue: Venue { code: Some(3) },
            },
            Trade {
                id: 2,
                note: Some("x".into()),
                venue: Venue { code: None },
            },
        ];
        Box::new(MemorySource::new(&[&rows[..]]))
    }

    fn fills(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(c, v)| (c.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn fills_are_set_on_the_template_and_put_in_each_batch_nulls() {
        let mut filled =
            Filled::new(source(), &fills(&[("note", "-"), ("venue.code", "999")])).unwrap();
        assert_eq!(
            crate::records::first_unfilled(filled.origin().template),
            None
        );
        let Some(Column::Struct { fields, .. }) = filled.next_batch().unwrap() else {
            panic!("no batch")
        };
        let Column::Nullable { values, .. } = &fields[1].1 else {
            panic!("note is not optional")
        };
        assert_eq!(
            **values,
            Column::Strings {
                offsets: vec![0, 1, 2],
                data: b"-x".to_vec()
            }
        );
        let Column::Struct { fields: venue, .. } = &fields[2].1 else {
            panic!("venue is not a struct")
        };
        let Column::Nullable { values, .. } = &venue[0].1 else {
            panic!("code is not optional")
        };
        let Column::Values { values, .. } = &**values else {
            panic!("code holds no numbers")
        };
        assert_eq!(*values, Values::U16(vec![3, 999]));
    }

    #[test]
    fn an_unknown_column_is_refused_listing_the_columns() {
        let e = Filled::new(source(), &fills(&[("nope", "1")]))
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("--fill nope") && e.contains("id, note, venue.code"),
            "{e}"
        );
    }

    #[test]
    fn a_value_of_another_type_is_refused() {
        let e = Filled::new(source(), &fills(&[("venue.code", "-1")]))
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("`-1` is not a value of the column's type (u16)"),
            "{e}"
        );
    }

    #[test]
    fn a_column_without_nulls_is_noted_not_refused() {
        let filled = Filled::new(source(), &fills(&[("id", "0")])).unwrap();
        assert!(
            filled.notes()[0].contains("holds no nulls"),
            "{:?}",
            filled.notes()
        );
    }

    #[derive(Clone, Record)]
    struct Place {
        code: u16,
        name: Option<String>,
    }

    #[derive(Clone, Record)]
    struct Leg {
        qty: Option<i32>,
    }

    #[derive(Clone, Record)]
    struct Trip {
        tags: Option<Vec<i32>>,
        place: Option<Place>,
        legs: Vec<Leg>,
    }

    fn trips() -> Box<dyn RecordSource> {
        let place = |code, name: Option<&str>| Place {
            code,
            name: name.map(str::to_string),
        };
        let rows = [
            Trip {
                tags: Some(vec![1, 2]),
                place: Some(place(3, Some("x"))),
                legs: vec![Leg { qty: Some(5) }, Leg { qty: None }],
            },
            Trip {
                tags: None,
                place: None,
                legs: vec![],
            },
            Trip {
                tags: Some(vec![]),
                place: Some(place(4, None)),
                legs: vec![Leg { qty: None }],
            },
        ];
        Box::new(MemorySource::new(&[&rows[..]]))
    }

    fn member<'a>(batch: &'a mut Column, path: &str) -> &'a Column {
        batch.member_mut(path).unwrap()
    }

    #[test]
    fn an_optional_list_takes_empty_lists_for_its_nulls_and_becomes_a_list() {
        let mut filled = Filled::new(trips(), &fills(&[("tags", "[]")])).unwrap();
        let Datatype::Compound(c) = filled.origin().datatype else {
            panic!("no compound")
        };
        assert_eq!(
            c.members[0].datatype,
            Datatype::Vlen(Box::new(Datatype::Int32))
        );
        assert!(filled.notes()[0].contains("written as empty lists"));
        let mut batch = filled.next_batch().unwrap().unwrap();
        let Column::List { offsets, .. } = member(&mut batch, "tags") else {
            panic!("tags is no list")
        };
        assert_eq!(*offsets, vec![0, 2, 2, 2]);
        let e = Filled::new(trips(), &fills(&[("tags", "[1]")]))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("a column of lists takes `[]`"), "{e}");
    }

    #[test]
    fn an_optional_records_nulls_are_lent_to_its_fields_each_filled() {
        let e = Filled::new(trips(), &fills(&[("place", "0")]))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("such as `--fill place.code=VALUE`"), "{e}");
        let mut filled = Filled::new(
            trips(),
            &fills(&[("place.code", "0"), ("place.name", "-"), ("tags", "[]")]),
        )
        .unwrap();
        assert_eq!(
            crate::records::first_unfilled(filled.origin().template),
            Some("legs.qty".into())
        );
        let Datatype::Compound(c) = filled.origin().datatype else {
            panic!("no compound")
        };
        let Datatype::Compound(place) = &c.members[1].datatype else {
            panic!("place is still optional: {:?}", c.members[1].datatype)
        };
        assert_eq!(
            place.members[0].datatype,
            Datatype::Optional(Box::new(Datatype::UInt16))
        );
        let mut batch = filled.next_batch().unwrap().unwrap();
        let Column::Nullable {
            validity, values, ..
        } = member(&mut batch, "place.code")
        else {
            panic!("place.code is not optional")
        };
        assert_eq!(
            (0..3).map(|i| validity.get(i)).collect::<Vec<_>>(),
            [true, false, true]
        );
        let Column::Values { values, .. } = &**values else {
            panic!("place.code holds no numbers")
        };
        assert_eq!(*values, Values::U16(vec![3, 0, 4]));
        let Column::Nullable { values, .. } = member(&mut batch, "place.name") else {
            panic!("place.name is not optional")
        };
        assert_eq!(
            **values,
            Column::Strings {
                offsets: vec![0, 1, 2, 3],
                data: b"x--".to_vec()
            }
        );
    }

    #[test]
    fn an_option_inside_a_list_of_records_is_named_and_filled() {
        let e = Filled::new(trips(), &fills(&[("nope", "1")]))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("tags, place.code, place.name, legs.qty"), "{e}");
        let mut filled = Filled::new(trips(), &fills(&[("legs.qty", "-1")])).unwrap();
        let mut batch = filled.next_batch().unwrap().unwrap();
        let Column::Nullable { values, .. } = member(&mut batch, "legs.qty") else {
            panic!("legs.qty is not optional")
        };
        let Column::Values { values, .. } = &**values else {
            panic!("legs.qty holds no numbers")
        };
        assert_eq!(*values, Values::I32(vec![5, -1, -1]));
    }
}
