//! Records whose type is known only at run time (a file's, as
//! `ndl convert` reads them), written to a `.npy` file from batches of
//! their columns: the same storage as typed records get (strings as the
//! narrowest `U n`, options as their fill, records packed), with the width
//! of each string field measured over every batch first.

use std::io::Write;

use crate::record::Column;
use crate::{Datatype, FixedString};

use super::Result;
use super::header::Header;
use super::variable::{Cx, stored, write_rows};

/// How records of a datatype are stored in a `.npy` file, widened batch by
/// batch until every value fits: [`measure`](RecordLayout::measure) each
/// batch, then write the [`header`](RecordLayout::header) and
/// [`write`](RecordLayout::write) each batch again.
///
/// ```
/// use ndl_runtime::npy::RecordLayout;
/// use ndl_runtime::record::Columns;
/// use ndl_runtime::Record;
///
/// #[derive(Record)]
/// struct Tag {
///     id: u32,
///     name: String,
/// }
///
/// let batch = |tags: &[Tag]| {
///     let mut columns = <Tag as Record>::Columns::with_capacity(tags.len());
///     columns.extend(tags);
///     columns.finish()
/// };
/// let batches = [
///     batch(&[Tag { id: 1, name: "ab".into() }]),
///     batch(&[Tag { id: 2, name: "abcd".into() }, Tag { id: 3, name: "".into() }]),
/// ];
/// let mut layout = RecordLayout::new(Tag::datatype(), "Tag");
/// for b in &batches {
///     layout.measure(b)?;
/// }
/// let header = layout.header();
/// assert_eq!(header.shape, [3]);
/// assert_eq!(header.datatype.size(), Some(4 + 16)); // uint32, then <U4
///
/// let mut out = header.to_bytes()?;
/// let mut first = 0;
/// for b in &batches {
///     layout.write(b, first, &mut out)?;
///     first += b.len() as u64;
/// }
/// assert_eq!(out.len(), header.to_bytes()?.len() + 3 * 20);
/// # Ok::<(), ndl_runtime::npy::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct RecordLayout {
    datatype: Datatype,
    stored: Option<Datatype>,
    records: u64,
    cx: Cx,
}

impl RecordLayout {
    /// The layout of records of `datatype`, which errors call `name`.
    pub fn new(datatype: Datatype, name: &str) -> RecordLayout {
        RecordLayout {
            datatype,
            stored: None,
            records: 0,
            cx: Cx::named(name),
        }
    }

    /// Widens the layout to hold the records of `batch`.
    ///
    /// # Errors
    /// [`Error::NotWritable`](super::Error::NotWritable) naming the field:
    /// a `vlen` (no place in fixed records), an option without a fill (no
    /// nulls in `.npy`), or a present value equal to its option's fill
    /// (it would read back as none).
    pub fn measure(&mut self, batch: &Column) -> Result<()> {
        let cx = self.cx.counting_from(self.records);
        let this = stored(&self.datatype, batch, &cx)?;
        self.stored = Some(match self.stored.take() {
            Some(before) => wider(&before, &this),
            None => this,
        });
        self.records += batch.len() as u64;
        Ok(())
    }

    /// The header of a 1-D array of every record measured (before any
    /// batch: of no records, each string one character wide).
    pub fn header(&self) -> Header {
        let datatype = match &self.stored {
            Some(dt) => dt.clone(),
            None => Column::template(&self.datatype)
                .ok()
                .and_then(|t| stored(&self.datatype, &t, &self.cx).ok())
                .unwrap_or_else(|| self.datatype.clone()),
        };
        Header::new(datatype, vec![self.records])
    }

    /// Writes the records of `batch`, the first of which is record `first`
    /// of the file, to `w` in the layout measured.
    ///
    /// # Errors
    /// As [`measure`](RecordLayout::measure), and if a string is wider
    /// than measured (the batch was not measured), or `w` fails.
    pub fn write(&self, batch: &Column, first: u64, w: &mut dyn Write) -> Result<()> {
        let stored = self.header().datatype;
        write_rows(
            batch,
            &stored,
            0..batch.len(),
            w,
            &self.cx.counting_from(first),
        )
    }
}

/// The stored datatype holding the values of both `a` and `b` (each the
/// stored datatype of some batch of the same records): the longer of each
/// string, members packed again.
fn wider(a: &Datatype, b: &Datatype) -> Datatype {
    match (a, b) {
        (Datatype::FixedString(x), Datatype::FixedString(y)) => {
            Datatype::FixedString(FixedString {
                length: x.length.max(y.length),
                ..*x
            })
        }
        (Datatype::Array(x), Datatype::Array(y)) => wider(&x.base, &y.base).array_of(&x.shape),
        (Datatype::Compound(x), Datatype::Compound(y)) => {
            let mut offset = 0;
            let mut c = x.clone();
            for (m, n) in c.members.iter_mut().zip(&y.members) {
                m.datatype = wider(&m.datatype, &n.datatype);
                m.offset = offset;
                offset += m.datatype.size().unwrap_or(0);
            }
            c.size = offset;
            Datatype::Compound(c)
        }
        _ => a.clone(),
    }
}
