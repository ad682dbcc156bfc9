//! Records with variable-length members (`String`, `Vec`, `Option` with a
//! fill) in a one-dimensional, chunked, extendable dataset of the
//! compound [`Node`] lays out; plain records never come here.

use std::marker::PhantomData;
use std::os::raw::c_void;
use std::path::{Path, PathBuf};

use hdf5_sys::h5d::{H5Dget_space, H5Dread};
use hdf5_sys::h5s::{H5S_seloper_t, H5Sclose, H5Screate_simple};
use ndl_runtime::record::{self, RecordError};
use ndl_runtime::Record;

use crate::error::{hdf5_error, Error, Result};
use crate::h5type::TypeError;
use crate::lookup::dataset_path;
use crate::options::WriteOptions;
use crate::raw_io::{self, failed, select_box};
use crate::record_io::{decode, encode, Arena, Budget, Buffer, Reclaim, Transfer};
use crate::record_type::Node;
use crate::staging::Staged;

/// Records encoded, written or read at a time: about this many bytes of
/// HDF5's memory form, at most [`MAX_BLOCK`] records.
const BLOCK_BYTES: usize = 4 << 20;
const MAX_BLOCK: usize = 1 << 16;

/// Streams records of `T` into a dataset of variable-length members.
pub(crate) struct VariableWriter<T> {
    staged: Option<Staged>,
    file: Option<hdf5::File>,
    dataset: hdf5::Dataset,
    node: Node,
    memory_type: hdf5::Datatype,
    len: u64,
    path: PathBuf,
    name: String,
    _records: PhantomData<fn(&T)>,
}

fn type_error<'a>(path: &'a Path, dataset: &'a str) -> impl Fn(TypeError) -> Error + 'a {
    let dataset = dataset.to_string();
    move |source| Error::Type {
        path: path.to_path_buf(),
        dataset: dataset.clone(),
        source,
    }
}

impl<T: Record> VariableWriter<T> {
    /// A new file at `path` (published by `finish`) holding the empty
    /// dataset `dataset`; an `Option` without a fill is refused first.
    pub(crate) fn create(path: &Path, dataset: &str, options: &WriteOptions) -> Result<Self> {
        let node = Node::of::<T>().map_err(type_error(path, dataset))?;
        if options.is_netcdf(path) {
            return Err(type_error(path, dataset)(TypeError {
                field: String::new(),
                why: "netCDF4-python reads no compound holding variable-length members: write \
                      records with `String`, `Vec` or `Option` fields to netCDF-4 with \
                      write_columns, as one variable per field"
                    .into(),
            }));
        }
        let memory_type = node.memory_type().map_err(type_error(path, dataset))?;
        let file_type = Node::file_type(&memory_type).map_err(hdf5_error(path, dataset))?;
        let staged = Staged::create(path, options.durable)?;
        let created = options
            .builder(staged.file(), &file_type, file_type.size())
            .create(dataset)
            .map_err(hdf5_error(path, dataset))?;
        crate::user_attributes::write(&created, &options.attributes)
            .map_err(hdf5_error(path, dataset))?;
        Ok(VariableWriter {
            staged: Some(staged),
            file: None,
            dataset: created,
            node,
            memory_type,
            len: 0,
            path: path.to_path_buf(),
            name: dataset.to_string(),
            _records: PhantomData,
        })
    }

    /// Appends in place to the dataset `dataset` of `file` (or of the
    /// copy `staged`), whose members must be `T`'s.
    pub(crate) fn open(
        staged: Option<Staged>,
        file: Option<hdf5::File>,
        path: &Path,
        dataset: &str,
    ) -> Result<Self> {
        let node = Node::of::<T>().map_err(type_error(path, dataset))?;
        let memory_type = node.memory_type().map_err(type_error(path, dataset))?;
        let opened = staged.as_ref().map(Staged::file).or(file.as_ref());
        let Some(handle) = opened else {
            unreachable!("a file or a copy to open the dataset in")
        };
        let stored_at = dataset_path(handle, path, dataset)?;
        let found = handle
            .dataset(&stored_at)
            .map_err(hdf5_error(path, dataset))?;
        check_dataset(path, dataset, &found, &node)?;
        let len = found.shape().first().copied().unwrap_or(0) as u64;
        Ok(VariableWriter {
            staged,
            file,
            dataset: found,
            node,
            memory_type,
            len,
            path: path.to_path_buf(),
            name: dataset.to_string(),
            _records: PhantomData,
        })
    }

    /// Appends `records` a block at a time: each block is built into
    /// columns, checked (a `Some` of a fill, a string holding NUL) and
    /// encoded before the dataset grows for it.
    pub(crate) fn append(&mut self, records: &[T]) -> Result<()> {
        let size = self.node.size().max(1);
        let per_block = (BLOCK_BYTES / size).clamp(1, MAX_BLOCK);
        for (b, block) in records.chunks(per_block).enumerate() {
            let column = record::columns(block);
            let mut buf = Buffer::zeroed(block.len() * size);
            let mut arena = Arena::default();
            let slots: Vec<usize> = (0..block.len()).map(|i| i * size).collect();
            encode(&self.node, &column, buf.bytes_mut(), &slots, &mut arena)
                .map_err(|e| self.invalid(e, (b * per_block) as u64))?;
            let end = self.len + block.len() as u64;
            self.dataset
                .resize(end as usize)
                .map_err(hdf5_error(&self.path, &self.name))?;
            let bytes = &buf.bytes()[..block.len() * size];
            raw_io::write_rows(&self.dataset, &self.memory_type, &[end], self.len, bytes)
                .map_err(hdf5_error(&self.path, &self.name))?;
            self.len = end;
        }
        Ok(())
    }

    fn invalid(&self, e: RecordError, first: u64) -> Error {
        Error::InvalidValue {
            path: self.path.clone(),
            dataset: self.name.clone(),
            record: first + e.record().unwrap_or(0) as u64,
            field: e.field(),
            offset: field_offset(&self.node, &e.field()),
            message: e.message().to_string(),
        }
    }

    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    pub(crate) fn finish(self) -> Result<u64> {
        drop(self.dataset);
        if let Some(staged) = self.staged {
            staged.publish()?;
        }
        if let Some(file) = self.file {
            file.flush().map_err(hdf5_error(&self.path, &self.name))?;
            file.close().map_err(hdf5_error(&self.path, &self.name))?;
        }
        Ok(self.len)
    }
}

/// The byte offset, in HDF5's memory form, of the dotted field `field`.
pub(crate) fn field_offset(node: &Node, field: &str) -> usize {
    let mut offset = 0;
    let mut at = node;
    for name in field.split('.').filter(|n| !n.is_empty()) {
        let Node::Struct { fields, .. } = at else {
            break;
        };
        let Some((_, o, inner)) = fields.iter().find(|(n, _, _)| n == name) else {
            break;
        };
        offset += o;
        at = inner;
    }
    offset
}

/// Refuses a dataset that is not one-dimensional or lacks a member of
/// `node`, naming the field.
fn check_dataset(path: &Path, dataset: &str, found: &hdf5::Dataset, node: &Node) -> Result<()> {
    let mismatch = |field: String, message: String| Error::TypeMismatch {
        path: path.to_path_buf(),
        dataset: dataset.to_string(),
        field,
        message,
    };
    if found.ndim() != 1 {
        return Err(mismatch(
            String::new(),
            format!(
                "the dataset has shape {:?}; records are one-dimensional",
                found.shape()
            ),
        ));
    }
    let stored = found.dtype().map_err(hdf5_error(path, dataset))?;
    node.check_stored(stored.id())
        .map_err(|(field, why)| mismatch(field, why))
}

/// Reads the records of `T` from the one-dimensional dataset `dataset`,
/// its members matched by name.
pub(crate) fn read<T: Record>(path: &Path, dataset: &str) -> Result<Vec<T>> {
    let node = Node::of::<T>().map_err(type_error(path, dataset))?;
    let memory_type = node.memory_type().map_err(type_error(path, dataset))?;
    let file = crate::file::open(path)?;
    let stored_at = dataset_path(&file, path, dataset)?;
    let found = raw_io::open_uncached(&file, &stored_at).map_err(hdf5_error(path, dataset))?;
    crate::filters::check_available(path, dataset, &found)?;
    check_dataset(path, dataset, &found, &node)?;
    let n = found.shape()[0] as u64;
    let stored_size = found.dtype().map_err(hdf5_error(path, dataset))?.size() as u64;
    crate::extent::check_extent(path, dataset, &found, n, stored_size, node.size() as u64)?;
    let file_len = std::fs::metadata(path)
        .map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?
        .len() as usize;
    crate::vlen_check::check(path, dataset, &found, file_len as u64)?;
    let size = node.size().max(1);
    let per_block = (BLOCK_BYTES / size).clamp(1, MAX_BLOCK) as u64;
    let mut records = Vec::new();
    let mut first = 0;
    while first < n {
        let rows = per_block.min(n - first);
        let column = read_block(&found, &node, &memory_type, (first, rows), file_len)
            .map_err(hdf5_error(path, dataset))?;
        let block = record::read::<T>(&column.view()).map_err(|e| Error::InvalidValue {
            path: path.to_path_buf(),
            dataset: dataset.to_string(),
            record: first + e.record().unwrap_or(0) as u64,
            field: e.field(),
            offset: field_offset(&node, &e.field()),
            message: e.message().to_string(),
        })?;
        records.extend(block);
        first += rows;
    }
    Ok(records)
}

/// Rows `first..first + rows` as a column, HDF5's memory for them freed
/// before returning.
pub(crate) fn read_block(
    found: &hdf5::Dataset,
    node: &Node,
    memory_type: &hdf5::Datatype,
    (first, rows): (u64, u64),
    file_len: usize,
) -> hdf5::Result<ndl_runtime::record::Column> {
    let size = node.size();
    let mut buf = Buffer::zeroed(rows as usize * size);
    // The values of a block hold no more than the file does, in memory
    // at most 8 times over (a compound of a byte and an 8-byte number is
    // 9 bytes stored, 16 in memory), plus a NUL per string.
    let budget = Budget::new(file_len.saturating_mul(8).saturating_add(1 << 20));
    let transfer = Transfer::new(&budget)?;
    let out = buf.bytes_mut().as_mut_ptr().cast::<c_void>();
    let _reclaim = Reclaim {
        memory_type: memory_type.id(),
        transfer: &transfer,
        n: rows,
        buf: out,
    };
    hdf5::sync::sync(|| {
        // SAFETY: `found` is open; the spaces are ours, closed below.
        unsafe {
            let file_space = H5Dget_space(found.id());
            if file_space < 0 {
                return Err(failed());
            }
            let selected = select_box(file_space, H5S_seloper_t::H5S_SELECT_SET, &[first], &[rows]);
            let memory_space = H5Screate_simple(1, &rows, std::ptr::null());
            let status = match selected {
                Ok(()) if memory_space >= 0 => H5Dread(
                    found.id(),
                    memory_type.id(),
                    memory_space,
                    file_space,
                    transfer.id(),
                    out,
                ),
                _ => -1,
            };
            H5Sclose(file_space);
            if memory_space >= 0 {
                H5Sclose(memory_space);
            }
            if status < 0 {
                return Err(failed());
            }
            Ok(())
        }
    })?;
    let base = buf.bytes().as_ptr();
    // SAFETY: row `i` is at `i * size` of `buf`, filled by the read (or
    // zero), its pointers NULL or HDF5's, freed only when `_reclaim` drops
    // after the column is copied out.
    let slots: Vec<*const u8> = (0..rows as usize)
        .map(|i| unsafe { base.add(i * size) })
        .collect();
    // SAFETY: as above.
    Ok(unsafe { decode(node, &slots) })
}
