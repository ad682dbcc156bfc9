//! Mapping a stored member of an archive opened by path, its CRC-32
//! checked first when asked.

use std::fs::File;
use std::io::{BufReader, Read, Seek};

use memmap2::MmapOptions;
use zip::{CompressionMethod, ZipArchive};

use super::NpzReader;
use crate::NdlType;
use crate::npy::{Error, Header, HeaderLimits, MmapArray, Result};

impl NpzReader<BufReader<File>> {
    /// Maps the array `name` into memory and views its records as `&[T]`
    /// without copying, as [`MmapArray::open`] does for a `.npy` file.
    ///
    /// The member must be stored (not compressed) and its records must
    /// start at a file offset aligned for `T`: [`NpzWriter::create`](super::NpzWriter::create) writes
    /// such archives; `np.savez` does not align its members and
    /// `np.savez_compressed` deflates them. Other members are refused with
    /// [`Error::NotMappable`], saying to [`read`](NpzReader::read) them
    /// instead. The header is checked as `MmapArray::open` checks it: `T`'s
    /// datatype, native byte order, and valid bools and enums.
    ///
    /// The member's CRC-32 is not checked: that would read every byte,
    /// which mapping exists to avoid (bools and enums aside, only the
    /// header is read). A member changed or damaged since it was written
    /// maps without an error; [`mmap_checked`](NpzReader::mmap_checked)
    /// checks the CRC first, and [`read`](NpzReader::read) checks it as it
    /// reads.
    ///
    /// # Safety
    ///
    /// As for [`MmapArray::open`]: the archive must not be modified or
    /// truncated, by this process or any other, while the returned value
    /// lives.
    ///
    /// ```
    /// use ndl_runtime::npz::{NpzReader, NpzWriter};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("m.npz");
    /// let mut w = NpzWriter::create(&path)?;
    /// w.add("t", &[0.5f64, 1.5])?;
    /// w.finish()?;
    /// let mut r = NpzReader::open(&path)?;
    /// // SAFETY: nothing modifies the archive while it is mapped.
    /// let t = unsafe { r.mmap::<f64>("t")? };
    /// assert_eq!(t.as_slice(), [0.5, 1.5]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub unsafe fn mmap<T: NdlType>(&mut self, name: &str) -> Result<MmapArray<T>> {
        // SAFETY: our caller's promise, passed on.
        unsafe { self.map_member(name, false) }
    }

    /// [`mmap`](NpzReader::mmap), after checking the member's CRC-32
    /// against the zip directory's: one pass over the mapped bytes (a
    /// gigabyte takes a few tenths of a second), before any record is
    /// handed out. A member whose bytes changed after writing is refused
    /// with [`Error::Checksum`]. The check covers the bytes as they are
    /// when it runs; later changes to the file are what the safety
    /// contract forbids.
    ///
    /// # Safety
    ///
    /// As for [`mmap`](NpzReader::mmap).
    ///
    /// ```
    /// use ndl_runtime::npz::{NpzReader, NpzWriter};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("m.npz");
    /// let mut w = NpzWriter::create(&path)?;
    /// w.add("t", &[0.5f64, 1.5])?;
    /// w.finish()?;
    /// let mut r = NpzReader::open(&path)?;
    /// // SAFETY: nothing modifies the archive while it is mapped.
    /// let t = unsafe { r.mmap_checked::<f64>("t")? };
    /// assert_eq!(t.as_slice(), [0.5, 1.5]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub unsafe fn mmap_checked<T: NdlType>(&mut self, name: &str) -> Result<MmapArray<T>> {
        // SAFETY: our caller's promise, passed on.
        unsafe { self.map_member(name, true) }
    }

    /// Maps the member for `name`, checking its CRC-32 first with `crc`.
    ///
    /// # Safety
    ///
    /// As for [`mmap`](NpzReader::mmap).
    unsafe fn map_member<T: NdlType>(&mut self, name: &str, crc: bool) -> Result<MmapArray<T>> {
        let member = self.member_name(name)?;
        let limits = HeaderLimits {
            max_header_size: self.options.limits.max_header_size,
        };
        let path = self.member_path(&member);
        let mut run = || -> Result<MmapArray<T>> {
            let Some(file) = &self.file else {
                return Err(Error::NotMappable {
                    reason: "the archive was opened from a reader; open it by path with NpzReader::open to map its members".into(),
                });
            };
            let span = stored_span(&mut self.zip, &member, file.metadata()?.len())?;
            // SAFETY: our caller promises the archive is not modified while
            // mapped; `stored_span` checked the member lies within it.
            let map = unsafe {
                MmapOptions::new()
                    .offset(span.start)
                    .len(span.len)
                    .map(file)?
            };
            if crc {
                check_crc(&member, &map, span.crc32)?;
            }
            let (header, offset) = Header::parse(&map, &limits)?;
            check_member_aligned::<T>(span.start + offset as u64)?;
            MmapArray::from_map(map, header, offset, "NpzReader::read")
        };
        run().map_err(|e| e.in_file(path))
    }
}

/// Where a stored member's bytes are in the archive file.
struct StoredSpan {
    /// The file offset of the first byte.
    start: u64,
    /// The number of bytes.
    len: usize,
    /// The CRC-32 the zip directory records for them.
    crc32: u32,
}

/// The span of a stored member's bytes, checked to lie within the
/// archive's `file_len` bytes.
fn stored_span<R: Read + Seek>(
    zip: &mut ZipArchive<R>,
    member: &str,
    file_len: u64,
) -> Result<StoredSpan> {
    let f = zip.by_name(member).map_err(|source| Error::Zip {
        member: Some(member.to_string()),
        source,
    })?;
    if f.compression() != CompressionMethod::Stored {
        return Err(Error::NotMappable {
            reason: format!(
                "the member is compressed ({}); read it with NpzReader::read, which inflates it",
                f.compression()
            ),
        });
    }
    let (start, len, crc32) = (f.data_start(), f.compressed_size(), f.crc32());
    let got = file_len.saturating_sub(start);
    if f.size() != len || len > got {
        return Err(Error::UnexpectedEof {
            what: "stored member",
            offset: 0,
            expected: len.max(f.size()),
            got: got.min(len),
        });
    }
    let len = usize::try_from(len).map_err(|_| Error::NotMappable {
        reason: format!("the member's {len} bytes do not fit in the address space"),
    })?;
    Ok(StoredSpan { start, len, crc32 })
}

/// Checks a member's bytes against the CRC-32 its directory entry records.
fn check_crc(member: &str, bytes: &[u8], stored: u32) -> Result<()> {
    let computed = crc32fast::hash(bytes);
    if computed != stored {
        return Err(Error::Checksum {
            member: member.to_string(),
            stored,
            computed,
        });
    }
    Ok(())
}

/// Records at `records_start` in the archive, or why they cannot be viewed
/// as `T` in place.
fn check_member_aligned<T>(records_start: u64) -> Result<()> {
    let align = std::mem::align_of::<T>() as u64;
    if records_start.is_multiple_of(align) {
        return Ok(());
    }
    Err(Error::NotMappable {
        reason: format!(
            "the records start at byte {records_start} of the archive, not a multiple of {align} (the alignment of the type): np.savez does not align members, NpzWriter::create does; read it with NpzReader::read"
        ),
    })
}
