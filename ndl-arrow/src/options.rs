//! How files are written and read, as plain data.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::SchemaRef;
use ndl_runtime::ByteOrder;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

/// The properties Parquet files are written with unless told otherwise:
/// zstd at level 1 (most of zstd's gain at a fraction of its time), row
/// groups of at most 1 Mi rows or 128 MiB.
///
/// ```
/// use ndl_arrow::parquet::basic::Compression;
/// use ndl_arrow::parquet::schema::types::ColumnPath;
///
/// let props = ndl_arrow::default_writer_properties();
/// assert!(matches!(props.compression(&ColumnPath::from("x")), Compression::ZSTD(_)));
/// ```
pub fn default_writer_properties() -> WriterProperties {
    WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .set_max_row_group_row_count(Some(1 << 20))
        .set_max_row_group_bytes(Some(128 << 20))
        .build()
}

/// How a Parquet or Arrow IPC file is written.
///
/// ```
/// use ndl_arrow::parquet::basic::Compression;
/// use ndl_arrow::parquet::file::properties::WriterProperties;
/// use ndl_arrow::{ParquetWriter, WriteOptions};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("n.parquet");
/// let props = WriterProperties::builder().set_compression(Compression::SNAPPY).build();
/// let options = WriteOptions::new().parquet_properties(props).durable(true);
/// let mut w = ParquetWriter::<u32>::create_with(&path, &options)?;
/// w.append(&[1, 2, 3])?;
/// assert_eq!(w.finish()?, 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct WriteOptions {
    pub(crate) properties: WriterProperties,
    pub(crate) durable: bool,
    pub(crate) metadata: HashMap<String, String>,
}

impl Default for WriteOptions {
    /// [`default_writer_properties`], not durable.
    fn default() -> WriteOptions {
        WriteOptions {
            properties: default_writer_properties(),
            durable: false,
            metadata: HashMap::new(),
        }
    }
}

impl WriteOptions {
    /// The [defaults](#impl-Default-for-WriteOptions).
    pub fn new() -> WriteOptions {
        WriteOptions::default()
    }

    /// The properties of a Parquet file (its codec, row groups,
    /// statistics); an Arrow IPC file has none.
    pub fn parquet_properties(mut self, properties: WriterProperties) -> WriteOptions {
        self.properties = properties;
        self
    }

    /// Whether the data and the file's directory entry are flushed to the
    /// disk (`fsync`) before `finish` or a one-shot write returns: then a
    /// power loss, not only a crash, leaves no file or a whole one.
    /// Default: `false`, as pyarrow.
    pub fn durable(mut self, durable: bool) -> WriteOptions {
        self.durable = durable;
        self
    }

    /// Adds `key`: `value` to the file's schema metadata (pyarrow's
    /// `schema.metadata`), beside the keys this crate writes itself
    /// ([`DATATYPE_KEY`](crate::DATATYPE_KEY)), which win over these.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("t.parquet");
    /// let options = ndl_arrow::WriteOptions::new().metadata("units", "K");
    /// let mut w = ndl_arrow::ParquetWriter::<f64>::create_with(&path, &options)?;
    /// w.append(&[280.5])?;
    /// w.finish()?;
    /// let file = std::fs::File::open(&path)?;
    /// let reader = ndl_arrow::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)?;
    /// assert_eq!(reader.schema().metadata()["units"], "K");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn metadata(mut self, key: &str, value: &str) -> WriteOptions {
        self.metadata.insert(key.to_string(), value.to_string());
        self
    }

    /// `schema` with this metadata added, its own keys kept.
    pub(crate) fn with_metadata(&self, schema: SchemaRef) -> SchemaRef {
        if self.metadata.is_empty() {
            return schema;
        }
        let mut metadata = self.metadata.clone();
        metadata.extend(schema.metadata().clone());
        Arc::new(schema.as_ref().clone().with_metadata(metadata))
    }
}

/// How Arrow data written by others is matched against a datatype.
///
/// ```
/// let options = ndl_arrow::ReadOptions::new().ignore_extra_columns(true);
/// assert_ne!(options, ndl_arrow::ReadOptions::new());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadOptions {
    pub(crate) ignore_extra_columns: bool,
    pub(crate) byte_order: ByteOrder,
}

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        ReadOptions::new()
    }
}

impl ReadOptions {
    /// Every column must be a member's; records as bytes in native order.
    pub fn new() -> ReadOptions {
        ReadOptions {
            ignore_extra_columns: false,
            byte_order: ByteOrder::NATIVE,
        }
    }

    /// Whether columns (and struct fields) the datatype has no member for
    /// are skipped, rather than refused.
    pub fn ignore_extra_columns(mut self, ignore: bool) -> ReadOptions {
        self.ignore_extra_columns = ignore;
        self
    }

    /// The byte order of the numbers of records read as bytes; typed
    /// records are always native.
    pub fn byte_order(mut self, byte_order: ByteOrder) -> ReadOptions {
        self.byte_order = byte_order;
        self
    }
}
