//! Records out of a one-dimensional dataset, checked against the type
//! asked for: the library converts compounds by field name and numbers to
//! native byte order, so another field order, packing or byte order reads
//! into `T`; a field that is missing or of another kind is an error here,
//! before any record is read.
//!
//! Records are read straight into the memory returned, as `T` lays them
//! out: when the stored type is `T`'s own, the library copies the bytes
//! with no conversion, and the only other pass over them checks bools and
//! enums.

use std::path::Path;

use ndl_runtime::records::{Packer, RecordBuf, RecordsMut};
use std::marker::PhantomData;

use ndl_runtime::record::{PlainVisitor, same_vec};
use ndl_runtime::{ByteOrder, NdlType, Record};

use crate::error::hdf5_error;
use crate::error::{Error, Result};
use crate::h5type::{Orders, profile_type};
use crate::lookup::dataset_path;
use crate::raw_io;
use crate::shape_check::compare;
use crate::stored_type::stored_type;

/// Records read at a time: each block is checked while still in cache.
const BLOCK_BYTES: usize = 8 << 20;

/// Reads the one-dimensional dataset `dataset` of the HDF5 file at `path`
/// into records of `T`. See [`write()`](crate::write()) for an example.
///
/// # Errors
/// Besides a file that is no HDF5, a missing dataset or one of another
/// type: [`Error::TooLarge`] when the dataset's extent is more than the
/// file holds, before memory is allocated for it: contiguous storage that
/// would end past the file's end, or more than [`MAX_FILL_BYTES`](crate::MAX_FILL_BYTES) of
/// records in chunks or storage never written.
///
/// Records with `String`, `Vec` or `Option` fields (`#[derive(Record)]`)
/// read from a compound holding variable-length strings and sequences,
/// members matched by name in any order, as h5py writes them; a value
/// equal to an `Option` field's fill reads as `None`. A member missing
/// from the file is [`Error::TypeMismatch`] naming the field; a string
/// that is not UTF-8 is [`Error::InvalidValue`] naming record and field.
pub fn read<T: Record + Send>(path: impl AsRef<Path>, dataset: &str) -> Result<Vec<T>> {
    let path = path.as_ref();
    let visitor = PlainRead::<T> {
        path,
        dataset,
        _records: PhantomData,
    };
    match T::visit_plain(visitor) {
        Some(records) => records,
        None => crate::variable::read::<T>(path, dataset),
    }
}

/// Reads plain records as the `NdlType` they are.
struct PlainRead<'a, T> {
    path: &'a Path,
    dataset: &'a str,
    _records: PhantomData<fn() -> T>,
}

impl<T: Record + Send> PlainVisitor for PlainRead<'_, T> {
    type Output = Result<Vec<T>>;

    fn visit<U: NdlType>(self) -> Result<Vec<T>> {
        let another = || Error::TypeMismatch {
            path: self.path.to_path_buf(),
            dataset: self.dataset.to_string(),
            field: String::new(),
            message: "a plain record visited as another type".into(),
        };
        // `read_plain` sends records to a second thread: only `T`'s,
        // which are `Send`.
        if std::any::TypeId::of::<U>() != std::any::TypeId::of::<T>() {
            return Err(another());
        }
        same_vec(read_plain::<U>(self.path, self.dataset)?).map_err(|_| another())
    }
}

fn read_plain<T: NdlType>(path: &Path, dataset: &str) -> Result<Vec<T>> {
    let file = crate::file::open(path)?;
    let stored_at = dataset_path(&file, path, dataset)?;
    let found = raw_io::open_uncached(&file, &stored_at).map_err(hdf5_error(path, dataset))?;
    crate::filters::check_available(path, dataset, &found)?;
    let mismatch = |field: &str, message: String| Error::TypeMismatch {
        path: path.to_path_buf(),
        dataset: dataset.to_string(),
        field: field.to_string(),
        message,
    };
    if found.ndim() != 1 {
        return Err(mismatch(
            "",
            format!(
                "the dataset has shape {:?}; records are read from one-dimensional datasets",
                found.shape()
            ),
        ));
    }
    let packer = Packer::<T>::new().map_err(|e| mismatch("", e.to_string()))?;
    let stored = found.dtype().map_err(hdf5_error(path, dataset))?;
    let netcdf_chars = stored_type(stored.id()).is_ok_and(|s| s.netcdf_chars);
    let memory_type = profile_type(&T::datatype(), Orders::one(ByteOrder::NATIVE), netcdf_chars)
        .map_err(|source| Error::Type {
            path: path.to_path_buf(),
            dataset: dataset.to_string(),
            source,
        })?;
    compare(&stored, &T::datatype()).map_err(|(field, message)| mismatch(&field, message))?;

    let n = found.shape()[0];
    crate::extent::check_extent(
        path,
        dataset,
        &found,
        n as u64,
        stored.size() as u64,
        std::mem::size_of::<T>() as u64,
    )?;
    let mut records = RecordBuf::<T>::zeroed(n).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    // Blocks of whole chunks: none is read (or decoded) twice.
    let per_record = std::mem::size_of::<T>().max(1);
    let per_block = match found.chunk().and_then(|c| c.first().copied()) {
        Some(chunk) if chunk > 0 => (BLOCK_BYTES / (chunk * per_record)).max(1) * chunk,
        _ => (BLOCK_BYTES / per_record).max(1),
    };
    // Two workers take the blocks in turn: while one checks the bools and
    // enums of its block, the other reads the next (HDF5 itself runs one
    // call at a time).
    let parts = records.parts_mut(per_block);
    let fill = |mut part: RecordsMut<'_, T>| -> Result<()> {
        let first = part.start() as u64;
        let mut failed = None;
        let checked = packer.fill(&mut part, |bytes| {
            failed = raw_io::read_rows(&found, &memory_type, &[n as u64], first, bytes).err();
        });
        if let Some(e) = failed {
            return Err(hdf5_error(path, dataset)(e));
        }
        checked.map_err(|bad| Error::InvalidValue {
            path: path.to_path_buf(),
            dataset: dataset.to_string(),
            record: first + bad.record as u64,
            field: bad.field,
            offset: bad.offset,
            message: bad.message,
        })
    };
    let (even, odd): (Vec<_>, Vec<_>) =
        parts.into_iter().enumerate().partition(|(i, _)| i % 2 == 0);
    // Each worker stops at its first error; the one of the earlier block wins.
    let run = |blocks: Vec<(usize, RecordsMut<'_, T>)>| {
        for (i, part) in blocks {
            fill(part).map_err(|e| (i, e))?;
        }
        Ok::<(), (usize, Error)>(())
    };
    let job_is_empty = odd.is_empty();
    let (a, b) = std::thread::scope(|s| {
        let other = (!job_is_empty).then(|| s.spawn(|| run(odd)));
        let mine = run(even);
        let theirs = other.map_or(Ok(()), |t| {
            t.join().unwrap_or_else(|p| std::panic::resume_unwind(p))
        });
        (mine, theirs)
    });
    match (a, b) {
        (Err((i, e)), Err((j, _))) if i < j => return Err(e),
        (_, Err((_, e))) | (Err((_, e)), _) => return Err(e),
        _ => {}
    }
    records
        .into_vec()
        .ok_or_else(|| mismatch("", "not every record was read".into()))
}
