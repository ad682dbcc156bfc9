//! Where a value of a nested column lies: its dotted path, and the record
//! an item of a list belongs to, so that errors name both.

use arrow_buffer::OffsetBuffer;

use crate::error::Error;

/// The lists around a column, outermost first: how an item's index leads
/// back to its record's.
#[derive(Clone, Debug, Default)]
pub(crate) struct Rows(Vec<Level>);

#[derive(Clone, Debug)]
enum Level {
    Small(OffsetBuffer<i32>),
    Large(OffsetBuffer<i64>),
    Fixed(usize),
}

impl Rows {
    /// The rows of the items of lists with `offsets` at this level.
    pub fn small(&self, offsets: &OffsetBuffer<i32>) -> Rows {
        self.with(Level::Small(offsets.clone()))
    }

    /// As [`small`](Self::small), for 64-bit offsets.
    pub fn large(&self, offsets: &OffsetBuffer<i64>) -> Rows {
        self.with(Level::Large(offsets.clone()))
    }

    /// The rows of the items of lists of `size` items each.
    pub fn fixed(&self, size: usize) -> Rows {
        self.with(Level::Fixed(size))
    }

    fn with(&self, level: Level) -> Rows {
        let mut levels = self.0.clone();
        levels.push(level);
        Rows(levels)
    }

    /// The record value `index` of this level belongs to.
    pub fn record(&self, index: usize) -> usize {
        self.0.iter().rev().fold(index, |i, level| match level {
            Level::Small(o) => list_of(o, i as i64),
            Level::Large(o) => list_of(o, i as i64),
            Level::Fixed(size) => i.checked_div(*size).unwrap_or(0),
        })
    }
}

/// The list whose items include item `i`: the last that starts at or
/// before it (empty lists start where the next one does).
fn list_of<O: Copy + Into<i64>>(offsets: &[O], i: i64) -> usize {
    offsets
        .partition_point(|&o| o.into() <= i)
        .saturating_sub(1)
}

/// A place in the records: the column's path and how its values lead back
/// to records.
#[derive(Clone, Debug)]
pub(crate) struct Place {
    pub path: String,
    pub rows: Rows,
}

impl Place {
    /// The place of top-level column `name`.
    pub fn column(name: &str) -> Place {
        Place {
            path: name.to_owned(),
            rows: Rows::default(),
        }
    }

    /// The place of field `name` of a struct here.
    pub fn field(&self, name: &str) -> Place {
        Place {
            path: format!("{}.{name}", self.path),
            rows: self.rows.clone(),
        }
    }

    /// The place of items whose lists lead back through `rows`.
    pub fn items(&self, rows: Rows) -> Place {
        Place {
            path: self.path.clone(),
            rows,
        }
    }

    /// An error about value `index` of this place.
    pub fn invalid(&self, index: usize, message: impl Into<String>) -> Error {
        Error::InvalidValue {
            record: self.rows.record(index),
            column: self.path.clone(),
            message: message.into(),
        }
    }

    /// An error the records-as-bytes path raised about the records of
    /// one value here (its column `value`, or a compound's members),
    /// about this place instead.
    pub fn moved(&self, error: Error, compound: bool) -> Error {
        let path = |column: String| match column.strip_prefix(crate::schema::VALUE_COLUMN) {
            Some(rest) if !compound => format!("{}{rest}", self.path),
            _ => format!("{}.{column}", self.path),
        };
        match error {
            Error::InvalidValue {
                record,
                column,
                message,
            } => Error::InvalidValue {
                record: self.rows.record(record),
                column: path(column),
                message,
            },
            Error::TypeMismatch { column, message } => Error::TypeMismatch {
                column: path(column),
                message,
            },
            Error::TooLarge { column } => Error::TooLarge {
                column: path(column),
            },
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_buffer::ScalarBuffer;

    #[test]
    fn items_lead_back_to_their_records() {
        let offsets = OffsetBuffer::new(ScalarBuffer::from(vec![0i32, 2, 2, 5]));
        let rows = Rows::default().small(&offsets);
        assert_eq!(
            (0..5).map(|i| rows.record(i)).collect::<Vec<_>>(),
            [0, 0, 2, 2, 2]
        );
        let inner = rows.fixed(2);
        assert_eq!(inner.record(5), 2);
    }
}
