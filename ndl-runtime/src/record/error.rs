//! Why a column does not read back as records.

use std::fmt;

/// Why a column does not read back as records of a type: what is wrong,
/// in which field (a dotted path from the record) and at which record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError {
    field: Vec<String>,
    record: Option<usize>,
    message: String,
}

impl RecordError {
    /// An error without field or record; readers add them as the error
    /// leaves each level.
    pub fn new(message: impl Into<String>) -> RecordError {
        RecordError {
            field: Vec::new(),
            record: None,
            message: message.into(),
        }
    }

    /// The error at record `index` of the level it leaves: each level
    /// replaces the index of the level inside it, so the outermost, the
    /// record's, remains.
    pub fn at(mut self, index: usize) -> RecordError {
        self.record = Some(index);
        self
    }

    /// The error inside field `name`.
    pub fn in_field(mut self, name: &str) -> RecordError {
        self.field.insert(0, name.to_owned());
        self
    }

    /// The dotted path of the field (`venue.code`), empty for the record
    /// itself.
    pub fn field(&self) -> String {
        self.field.join(".")
    }

    /// The record, if the error is about one.
    pub fn record(&self) -> Option<usize> {
        self.record
    }

    /// What is wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.field.is_empty() {
            write!(f, "field `{}`", self.field())?;
            f.write_str(if self.record.is_some() { ", " } else { ": " })?;
        }
        if let Some(r) = self.record {
            write!(f, "record {r}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for RecordError {}
