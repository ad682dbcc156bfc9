//! What the readers of records as bytes share, whatever file they read:
//! the one interface a caller needs, `ndl convert` among them.

use ndl_runtime::{ByteOrder, Datatype};

use crate::error::Error;

/// Reads the records of a file of columns as bytes of their datatype, a
/// batch at a time: [`ParquetRecordReader`](crate::ParquetRecordReader)
/// and [`IpcRecordReader`](crate::IpcRecordReader) alike.
pub trait RecordReader {
    /// The records' datatype.
    fn datatype(&self) -> &Datatype;
    /// The byte order the records were written in, as the file's
    /// metadata says; `None` for files others wrote.
    fn stored_byte_order(&self) -> Option<ByteOrder>;
    /// The records in the file.
    fn len(&self) -> u64;
    /// Whether the file holds no records.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The next batch of records; `None` at the end.
    fn next_records(&mut self) -> Result<Option<Vec<u8>>, Error>;
}

/// Implements [`RecordReader`] for a reader by its inherent methods.
macro_rules! record_reader {
    ($reader:ty) => {
        impl $crate::RecordReader for $reader {
            fn datatype(&self) -> &ndl_runtime::Datatype {
                <$reader>::datatype(self)
            }
            fn stored_byte_order(&self) -> Option<ndl_runtime::ByteOrder> {
                <$reader>::stored_byte_order(self)
            }
            fn len(&self) -> u64 {
                <$reader>::len(self)
            }
            fn next_records(&mut self) -> Result<Option<Vec<u8>>, $crate::Error> {
                <$reader>::next_records(self)
            }
        }
    };
}

record_reader!(crate::ParquetRecordReader);
record_reader!(crate::IpcRecordReader);
