//! Datasets of any rank as bytes: elements laid out as their datatype
//! says, all numbers in one byte order, in C order, a block of rows at a
//! time. What format-agnostic code (conversion) reads and writes.

use std::path::{Path, PathBuf};

use ndl_runtime::{ByteOrder, Datatype};

use crate::error::hdf5_error;
use crate::error::{Error, Result};
use crate::h5type::{commit_type, hdf5_type};
use crate::options::WriteOptions;
use crate::raw_io::{read_rows, row_bytes, write_rows};
use crate::staging::Staged;
use crate::stored_type::{stored_type, StoredType};

/// A dataset opened to read its elements as bytes.
pub struct ArrayReader {
    _file: hdf5::File,
    dataset: hdf5::Dataset,
    memory_type: hdf5::Datatype,
    stored: StoredType,
    shape: Vec<u64>,
    next_row: u64,
    path: PathBuf,
    name: String,
}

impl ArrayReader {
    /// Opens `dataset` of the file at `path`. Its elements are read in
    /// their stored layout, every number in the order of the first (see
    /// [`StoredType`]); variable-length and reference types are refused.
    pub fn open(path: impl AsRef<Path>, dataset: &str) -> Result<ArrayReader> {
        let path = path.as_ref().to_path_buf();
        let file = crate::file::open(&path)?;
        let found = file.dataset(dataset).map_err(hdf5_error(&path, dataset))?;
        let dtype = found.dtype().map_err(hdf5_error(&path, dataset))?;
        let stored = stored_type(dtype.id()).map_err(|message| Error::Hdf5 {
            path: path.clone(),
            dataset: dataset.to_string(),
            message,
        })?;
        let memory_type =
            hdf5_type(&stored.datatype, stored.byte_order).map_err(|source| Error::Type {
                path: path.clone(),
                dataset: dataset.to_string(),
                source,
            })?;
        let shape = found.shape().iter().map(|&d| d as u64).collect();
        Ok(ArrayReader {
            _file: file,
            dataset: found,
            memory_type,
            stored,
            shape,
            next_row: 0,
            path,
            name: dataset.to_string(),
        })
    }

    /// The elements' type.
    pub fn stored(&self) -> &StoredType {
        &self.stored
    }

    /// The dataset's extents (empty for a scalar).
    pub fn shape(&self) -> &[u64] {
        &self.shape
    }

    /// The bytes of one row: the elements after the first dimension.
    pub fn row_bytes(&self) -> usize {
        row_bytes(&self.memory_type, &self.shape)
    }

    /// Fills the front of `buf` with the next whole rows (a scalar is one
    /// row); returns how many. 0 only at the end.
    pub fn read_rows(&mut self, buf: &mut [u8]) -> Result<usize> {
        let total = self.shape.first().copied().unwrap_or(1);
        let row = self.row_bytes();
        if row == 0 {
            return Ok(0);
        }
        let rows = ((buf.len() / row) as u64).min(total - self.next_row) as usize;
        let shape = if self.shape.is_empty() {
            vec![]
        } else {
            self.shape.clone()
        };
        read_rows(
            &self.dataset,
            &self.memory_type,
            &shape,
            self.next_row,
            &mut buf[..rows * row],
        )
        .map_err(hdf5_error(&self.path, &self.name))?;
        self.next_row += rows as u64;
        Ok(rows)
    }
}

/// A new file holding one dataset of any rank, written from bytes and
/// renamed into place by [`finish`](ArrayWriter::finish).
pub struct ArrayWriter {
    staged: Staged,
    dataset: hdf5::Dataset,
    memory_type: hdf5::Datatype,
    shape: Vec<u64>,
    next_row: u64,
    name: String,
}

impl ArrayWriter {
    /// Starts a new file at `path` with the dataset `dataset` of `shape`
    /// elements of `datatype`, written from elements in `byte_order`.
    /// A named datatype (compound, enum) is committed as `type_name`.
    pub fn create(
        path: impl AsRef<Path>,
        dataset: &str,
        datatype: &Datatype,
        byte_order: ByteOrder,
        shape: &[u64],
        type_name: &str,
        options: &WriteOptions,
    ) -> Result<ArrayWriter> {
        let staged = Staged::create(path.as_ref())?;
        let path = staged.path().to_path_buf();
        let type_error = |source| Error::Type {
            path: path.clone(),
            dataset: dataset.to_string(),
            source,
        };
        let memory_type = hdf5_type(datatype, byte_order).map_err(type_error)?;
        let file_type = if matches!(datatype, Datatype::Compound(_) | Datatype::Enum(_)) {
            commit_type(staged.file(), type_name, datatype, options.byte_order)
                .map_err(type_error)?
        } else {
            hdf5_type(datatype, options.byte_order).map_err(type_error)?
        };
        let size = datatype.size().unwrap_or(1).max(1);
        let created = options
            .fixed_builder(staged.file(), &file_type, size, shape)
            .create(dataset)
            .map_err(hdf5_error(&path, dataset))?;
        Ok(ArrayWriter {
            staged,
            dataset: created,
            memory_type,
            shape: shape.to_vec(),
            next_row: 0,
            name: dataset.to_string(),
        })
    }

    /// The bytes of one row: the elements after the first dimension.
    pub fn row_bytes(&self) -> usize {
        row_bytes(&self.memory_type, &self.shape)
    }

    /// Writes the next whole rows.
    pub fn write_rows(&mut self, bytes: &[u8]) -> Result<()> {
        let row = self.row_bytes().max(1);
        write_rows(
            &self.dataset,
            &self.memory_type,
            &self.shape,
            self.next_row,
            bytes,
        )
        .map_err(hdf5_error(self.staged.path(), &self.name))?;
        self.next_row += (bytes.len() / row) as u64;
        Ok(())
    }

    /// Closes the file and renames it into place.
    pub fn finish(self) -> Result<()> {
        drop(self.dataset);
        self.staged.publish()
    }
}
