//! Fills for the options of records read: `--fill COLUMN=VALUE` gives the
//! value that stands for null in formats without nulls, and every batch
//! gets its fills put in its nulls' slots (a source's may hold anything).

use ndl_runtime::record::Column;

use crate::error::{Error, Result};
use crate::records::{RecordOrigin, RecordSource};

/// A source whose options take the fills asked for.
pub(crate) struct Filled {
    inner: Box<dyn RecordSource>,
    template: Column,
    /// Each fill asked for: the column's dotted path and its fill.
    fills: Vec<(String, Column)>,
    notes: Vec<String>,
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
        let mut template = origin.template.clone();
        let mut parsed = Vec::new();
        let mut notes = inner.notes().to_vec();
        for (column, value) in fills {
            let error = |message: String| Error::Fill {
                path: origin.location.to_path_buf(),
                column: column.clone(),
                message,
            };
            let Some(found) = template.member_mut(column) else {
                return Err(error(format!(
                    "no such column; the columns are {}",
                    names(origin.template).join(", ")
                )));
            };
            let Column::Nullable { values, fill, .. } = found else {
                notes.push(format!(
                    "--fill {column}: the column holds no nulls, so there is nothing to fill"
                ));
                continue;
            };
            let one = Column::parse_one(values, value).map_err(error)?;
            *fill = Some(Box::new(one.clone()));
            parsed.push((column.clone(), one));
        }
        Ok(Filled {
            inner,
            template,
            fills: parsed,
            notes,
        })
    }
}

impl RecordSource for Filled {
    fn origin(&self) -> RecordOrigin<'_> {
        RecordOrigin {
            template: &self.template,
            ..self.inner.origin()
        }
    }

    fn attributes(&self) -> Option<&ndl_runtime::ndl::NameMap<ndl_runtime::ndl::Attribute>> {
        self.inner.attributes()
    }

    fn notes(&self) -> &[String] {
        &self.notes
    }

    fn next_batch(&mut self) -> Result<Option<Column>> {
        let Some(mut batch) = self.inner.next_batch()? else {
            return Ok(None);
        };
        for (column, one) in &self.fills {
            if let Some(Column::Nullable { fill, .. }) = batch.member_mut(column) {
                *fill = Some(Box::new(one.clone()));
            }
        }
        batch.put_fills();
        Ok(Some(batch))
    }
}

/// The dotted paths of every leaf column of `template`.
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
        Column::Nullable { values, .. } => names(values),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use ndl_runtime::Record;
    use ndl_runtime::record::Values;

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
}
