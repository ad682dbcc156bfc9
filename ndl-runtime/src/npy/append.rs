//! Appending records to an existing `.npy` file in place.
//!
//! The records go after the data, then the first dimension in the header
//! is rewritten in the room NumPy (≥ 1.24) and this crate leave for it:
//! headers are padded so that the count can grow to 21 digits without
//! moving the data. Until the header changes, the new bytes lie past the
//! data the header announces, which readers ignore (NumPy's `np.load`
//! reads `count` records, ours read exactly the announced bytes): a crash
//! at any point leaves the file as it was before or as it is after. The
//! header change is a single write of a few bytes within the header.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::compare::{RecordShape, check_datatype};
use super::header::{count_digits, with_count};
use super::io::{Counting, preallocate, publish, temp_file_beside};
use super::record_writer::RecordWriter;
use super::shape::checked_product;
use super::write::write_announced;
use super::{Error, Header, HeaderLimits, Result, sidecar};
use crate::NdlType;

/// How to append to an existing `.npy` file: whether to wait for the disk,
/// and what to do with a file whose header has no room for the new count.
///
/// ```
/// use ndl_runtime::npy::{self, AppendOptions};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("log.npy");
/// npy::write_file(&path, &[1u32, 2])?;
/// assert_eq!(AppendOptions::new().durable(true).append_file(&path, &[3u32])?, 3);
/// assert_eq!(npy::read_file::<u32>(&path)?, [1, 2, 3]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AppendOptions {
    pub(crate) durable: bool,
    pub(crate) rewrite: bool,
    pub(crate) limits: HeaderLimits,
}

impl AppendOptions {
    /// In place only, without waiting for the disk.
    pub fn new() -> AppendOptions {
        AppendOptions::default()
    }

    /// Whether to wait until the data is on the disk (`fsync`) before the
    /// header's count changes, and until the count is before returning:
    /// then a power loss, not only a crash, leaves the file as before or
    /// as after. Default: `false`.
    pub fn durable(mut self, durable: bool) -> AppendOptions {
        self.durable = durable;
        self
    }

    /// Whether a file whose header has no room for the new count (written
    /// by NumPy < 1.24, without growth padding) is rewritten: to a
    /// temporary file in the same directory, with a header that has the
    /// room, renamed over the file once complete. It costs a copy of the
    /// whole file. Default: `false`, such a file is [`Error::NoGrowthRoom`].
    ///
    /// ```
    /// use ndl_runtime::npy::{self, AppendOptions, Error};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("old.npy");
    /// // A header as old NumPy wrote it: no spaces to grow into.
    /// let text = "{'descr': '|u1', 'fortran_order': False, 'shape': (9,), }\n";
    /// let mut file = b"\x93NUMPY\x01\x00".to_vec();
    /// file.extend_from_slice(&(text.len() as u16).to_le_bytes());
    /// file.extend_from_slice(text.as_bytes());
    /// file.extend_from_slice(&[7; 9]);
    /// std::fs::write(&path, &file)?;
    ///
    /// let err = npy::append_file(&path, &[8u8]).unwrap_err();
    /// assert!(matches!(err.kind(), Error::NoGrowthRoom { count: 10 }));
    /// assert_eq!(std::fs::read(&path)?, file); // untouched
    /// AppendOptions::new().rewrite(true).append_file(&path, &[8u8])?;
    /// assert_eq!(npy::read_file::<u8>(&path)?, [7, 7, 7, 7, 7, 7, 7, 7, 7, 8]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn rewrite(mut self, rewrite: bool) -> AppendOptions {
        self.rewrite = rewrite;
        self
    }

    /// The largest header to accept, in characters (NumPy's `max_header_size`).
    pub fn max_header_size(mut self, max_header_size: usize) -> AppendOptions {
        self.limits.max_header_size = max_header_size;
        self
    }

    /// Appends `data` to the C-order `.npy` file at `path`, along its first
    /// dimension; returns the number of records of `T` in the file after.
    ///
    /// The file's datatype must be `T`'s, as for reading (a difference is
    /// [`Error::TypeMismatch`] naming the field); the records are written
    /// in the file's byte order, each field in its own where the file's
    /// fields have their own (`[('a', '<u8'), ('b', '>f8')]`). With more than one dimension, `data` must
    /// be whole rows. Fortran order, 0-d arrays and files with an NDL
    /// sidecar (which records the shape) are [`Error::NotAppendable`]. On
    /// any error before the count changes, the file reads as before.
    ///
    /// One appender at a time: two processes appending to one file at
    /// once would write over each other's records.
    pub fn append_file<T: NdlType>(&self, path: impl AsRef<Path>, data: &[T]) -> Result<u64> {
        let path = path.as_ref();
        let run = || {
            let growing = Growing::open::<T>(path, &self.limits)?;
            let added = data.len() as u64;
            let count = growing.count_after(added)?;
            let records = |w: &mut dyn Write| -> Result<()> {
                let start = growing.data_end();
                let mut writer = RecordWriter::<T>::for_header(&growing.header)?
                    .starting_at(usize::try_from(start).unwrap_or(0));
                Ok(writer.write(&mut &mut *w, data)?)
            };
            match growing.header_with(count) {
                Some(prefix) => {
                    let mut file = &growing.file;
                    file.seek(SeekFrom::Start(growing.data_end()))?;
                    preallocate(file, growing.data_end(), std::mem::size_of_val(data));
                    records(&mut file)?;
                    growing.set_header(&prefix, added, self.durable)
                }
                None if self.rewrite => growing.rewrite(count, 0, records, self.durable),
                None => Err(Error::NoGrowthRoom { count }),
            }
        };
        run().map_err(|e| e.in_file(path))
    }
}

/// An existing `.npy` file open for appending, checked against the record
/// type: its header, and where its data ends.
#[derive(Debug)]
pub(crate) struct Growing {
    pub file: File,
    path: PathBuf,
    pub header: Header,
    /// The file's bytes before the data: the header as written.
    prefix: Vec<u8>,
    /// Records of the type per step of the first dimension.
    pub row: u64,
    /// Bytes of one record of the type in the file.
    record_size: u64,
}

impl Growing {
    /// Opens the file at `path` and checks it can take records of `T`.
    pub fn open<T: NdlType>(path: &Path, limits: &HeaderLimits) -> Result<Growing> {
        let mut file = File::options().read(true).write(true).open(path)?;
        let mut r = Counting {
            inner: BufReader::new(&file),
            count: 0,
        };
        let header = Header::read(&mut r, limits)?;
        let data_offset = r.count;
        let refuse = |reason: &str| {
            Err(Error::NotAppendable {
                reason: reason.into(),
            })
        };
        if header.order.is_fortran() {
            return refuse(
                "the file is in Fortran order, whose data does not end with its first dimension's last step",
            );
        }
        let RecordShape { shape, .. } = check_datatype(&header, &T::datatype())?;
        if shape.is_empty() {
            return refuse(
                "the file holds a single record (a 0-d array), which has no dimension to grow",
            );
        }
        if let Some((sidecar, _)) = sidecar::described(path) {
            return Err(Error::NotAppendable {
                reason: format!(
                    "the NDL sidecar {} records the array's shape, which an append would make stale",
                    sidecar.display()
                ),
            });
        }
        let row = checked_product(&shape[1..]).ok_or(Error::ShapeOverflow {
            shape: header.shape.clone(),
            itemsize: std::mem::size_of::<T>() as u64,
        })?;
        let mut prefix = vec![0; usize::try_from(data_offset).unwrap_or(usize::MAX)];
        file.seek(SeekFrom::Start(0))?;
        file.read_exact(&mut prefix)?;
        let growing = Growing {
            path: path.to_path_buf(),
            header,
            prefix,
            row,
            record_size: std::mem::size_of::<T>() as u64,
            file,
        };
        growing.check_length()?;
        Ok(growing)
    }

    /// The file must hold the data its header announces (more is fine: a
    /// crashed append leaves bytes past it, which the next one overwrites).
    fn check_length(&self) -> Result<()> {
        let len = self.file.metadata()?.len();
        let offset = self.prefix.len() as u64;
        let expected = self.data_end() - offset;
        if len < offset + expected {
            return Err(Error::UnexpectedEof {
                what: "array data",
                offset,
                expected,
                got: len.saturating_sub(offset),
            });
        }
        Ok(())
    }

    /// The file offset just past the data the header announces.
    pub fn data_end(&self) -> u64 {
        let records = self.header.shape[0] * self.row;
        self.prefix.len() as u64 + records * self.record_size
    }

    /// The first dimension after `added` more records, which must be whole rows.
    pub fn count_after(&self, added: u64) -> Result<u64> {
        let rows = self.header.shape[0];
        let whole = match self.row {
            0 => (added == 0).then_some(0),
            row => added.is_multiple_of(row).then_some(added / row),
        };
        whole.and_then(|n| rows.checked_add(n)).ok_or_else(|| {
            // The rows the records would need, as the shape of the block.
            let mut shape = self.header.shape.clone();
            shape[0] = added.checked_div(self.row).unwrap_or(0) + 1;
            Error::ShapeMismatch {
                expected: shape[0].saturating_mul(self.row),
                shape,
                got: added,
            }
        })
    }

    /// The header bytes with the first dimension `count`, the same length
    /// as now; `None` when it has no room for it.
    pub fn header_with(&self, count: u64) -> Option<Vec<u8>> {
        let digits = count_digits(&self.prefix, self.header.shape[0])?;
        let prefix = with_count(&self.prefix, digits, count)?;
        // Never write a header that reads as anything but the new count.
        let (back, len) = Header::parse(
            &prefix,
            &HeaderLimits {
                max_header_size: usize::MAX,
            },
        )
        .ok()?;
        let mut expected = self.header.clone();
        expected.shape[0] = count;
        (back == expected && len == prefix.len()).then_some(prefix)
    }

    /// Makes `added` records written past the data part of it: writes
    /// the header bytes that differ from `prefix` (after the data reached
    /// the disk, with `durable`), then drops bytes left past the new end by
    /// an earlier crash; returns the records in the file.
    pub fn set_header(&self, prefix: &[u8], added: u64, durable: bool) -> Result<u64> {
        let end = self.data_end() + added * self.record_size;
        let mut file = &self.file;
        if durable {
            file.sync_data()?;
        }
        let from = self
            .prefix
            .iter()
            .zip(prefix)
            .position(|(a, b)| a != b)
            .unwrap_or(prefix.len());
        file.seek(SeekFrom::Start(from as u64))?;
        file.write_all(&prefix[from..])?;
        if file.metadata()?.len() > end {
            file.set_len(end)?;
        }
        if durable {
            file.sync_all()?;
        }
        Ok(self.header.shape[0] * self.row + added)
    }

    /// Writes the file again, with a header that has room to grow and
    /// the first dimension `count`, through a temporary file renamed over
    /// it: the data it announces now, `extra` records already written past
    /// it, then what `more` writes.
    pub fn rewrite(
        &self,
        count: u64,
        extra: u64,
        more: impl FnOnce(&mut dyn Write) -> Result<()>,
        durable: bool,
    ) -> Result<u64> {
        let mut header = self.header.clone();
        header.shape[0] = count;
        let mut tmp = temp_file_beside(&self.path)?;
        let start = self.prefix.len() as u64;
        let copy = self.data_end() - start + extra * self.record_size;
        {
            let mut out = std::io::BufWriter::with_capacity(1 << 20, tmp.as_file_mut());
            write_announced(&mut out, &header, |w| {
                let mut file = &self.file;
                file.seek(SeekFrom::Start(start))?;
                std::io::copy(&mut file.take(copy), w)?;
                more(w)
            })?;
            out.flush()?;
        }
        publish(tmp, &self.path, durable)?;
        Ok(count * self.row)
    }
}
