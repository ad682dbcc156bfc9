//! NumPy `.npz` archives: several named `.npy` arrays in one zip file.
//!
//! As `np.savez` and `np.savez_compressed` write them: the array `x` is the
//! zip member `x.npy`, stored or deflated, every member with zip64 extras
//! (NumPy forces zip64 on every member too). As `np.load` reads them: every
//! member is listed, with one `.npy` suffix stripped, and an array is found
//! by that name or by its full member name.
//!
//! Array names may contain `/`; [`group_path`] maps them onto NDL groups.
//!
//! [`NpzWriter::create`] aligns every member's records to 64 bytes, so
//! [`NpzReader::mmap`] can view them in place, without copying.
//!
//! # What is checked when
//!
//! Every member carries the CRC-32 of its bytes in the zip directory.
//! - [`read`](NpzReader::read), [`read_array`](NpzReader::read_array) and
//!   [`member_bytes`](NpzReader::member_bytes) read the whole member and
//!   check its CRC at its end: a changed member is an error.
//! - [`mmap_checked`](NpzReader::mmap_checked) checks the CRC over the
//!   mapped bytes before handing out the records.
//! - [`mmap`](NpzReader::mmap) and [`header`](NpzReader::header) read only
//!   the header (and, for bools and enums, the values), so they do not
//!   check it; nor does [`read_member`](NpzReader::read_member) unless its
//!   function reads the member to the end.
//!
//! ```
//! use ndl_runtime::npz::{NpzReader, NpzWriter};
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("data.npz");
//! let mut w = NpzWriter::create(&path)?;
//! w.add("t", &[0.5f64, 1.5])?;
//! w.add("sensors/id", &[7u32, 9])?;
//! w.finish()?;
//!
//! let mut r = NpzReader::open(&path)?;
//! assert_eq!(r.names(), ["t", "sensors/id"]);
//! assert_eq!(r.read::<u32>("sensors/id")?, [7, 9]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};

use memmap2::MmapOptions;
use tempfile::NamedTempFile;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

use crate::npy::{
    Error, Header, HeaderLimits, MmapArray, NpyArray, ReadOptions, Result, WriteOptions,
};
use crate::NdlType;

/// What the zip directory says of a member.
#[derive(Clone, Copy)]
struct MemberInfo {
    /// Its uncompressed size.
    size: u64,
    /// Whether it is stored, not compressed.
    stored: bool,
}

/// The suffix of array members.
const NPY_SUFFIX: &str = ".npy";

/// Where [`NpzWriter::create`] puts every member's data. A `.npy` header
/// is a multiple of 64 bytes long, so the records start at a multiple of
/// 64 too: aligned for every type, and for SIMD loads.
const MEMBER_ALIGNMENT: u16 = 64;

/// Writes a `.npz` archive; the file appears at its path only when
/// [`finish`](NpzWriter::finish) succeeds.
pub struct NpzWriter {
    zip: ZipWriter<BufWriter<NamedTempFile>>,
    dest: PathBuf,
    options: SimpleFileOptions,
    sync: bool,
}

impl NpzWriter {
    /// An archive of uncompressed members, as `np.savez` writes, except
    /// that every member's records start at a file offset that is a
    /// multiple of 64 (the zip local header's extra field is padded), so
    /// [`NpzReader::mmap`] can view them. NumPy reads these archives as any
    /// other.
    pub fn create(path: impl AsRef<Path>) -> Result<NpzWriter> {
        NpzWriter::with_method(path.as_ref(), CompressionMethod::Stored)
    }

    /// An archive of deflated members, as `np.savez_compressed` writes.
    ///
    /// ```
    /// use ndl_runtime::npz::{NpzReader, NpzWriter};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("z.npz");
    /// let mut w = NpzWriter::create_compressed(&path)?;
    /// w.add("zeros", &[0u64; 1000])?;
    /// w.finish()?;
    /// assert!(std::fs::metadata(&path)?.len() < 1000);
    /// assert_eq!(NpzReader::open(&path)?.read::<u64>("zeros")?.len(), 1000);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create_compressed(path: impl AsRef<Path>) -> Result<NpzWriter> {
        NpzWriter::with_method(path.as_ref(), CompressionMethod::Deflated)
    }

    fn with_method(dest: &Path, method: CompressionMethod) -> Result<NpzWriter> {
        let tmp = crate::npy::io::temp_file_beside(dest).map_err(|e| e.in_file(dest))?;
        let mut options = SimpleFileOptions::default()
            .compression_method(method)
            .large_file(true)
            .unix_permissions(0o600);
        if method == CompressionMethod::Stored {
            options = options.with_alignment(MEMBER_ALIGNMENT);
        }
        Ok(NpzWriter {
            zip: ZipWriter::new(BufWriter::with_capacity(1 << 20, tmp)),
            dest: dest.to_path_buf(),
            options,
            sync: false,
        })
    }

    /// Whether [`finish`](NpzWriter::finish) waits until the archive and its
    /// name are on the disk (`fsync`), as
    /// [`WriteOptions::sync`](crate::npy::WriteOptions::sync) does for
    /// `.npy` files. Default: `false`.
    ///
    /// ```
    /// use ndl_runtime::npz::{NpzReader, NpzWriter};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("s.npz");
    /// let mut w = NpzWriter::create(&path)?.sync(true);
    /// w.add("x", &[1u8])?;
    /// w.finish()?;
    /// assert_eq!(NpzReader::open(&path)?.read::<u8>("x")?, [1]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn sync(mut self, sync: bool) -> NpzWriter {
        self.sync = sync;
        self
    }

    /// Adds `data` as the 1-D array `name` (member `name.npy`).
    pub fn add<T: NdlType>(&mut self, name: &str, data: &[T]) -> Result<()> {
        self.add_with(name, &WriteOptions::new(), data)
    }

    /// Adds `data` as the array `name`, with a shape, memory order and byte
    /// order from `options`.
    pub fn add_with<T: NdlType>(
        &mut self,
        name: &str,
        options: &WriteOptions,
        data: &[T],
    ) -> Result<()> {
        let member = format!("{name}{NPY_SUFFIX}");
        let zip_err = |source| Error::Zip {
            member: Some(member.clone()),
            source,
        };
        // A member starts only for data its header can describe, and a
        // member that fails is taken out again: `finish` never writes a
        // partial array.
        options
            .header::<T>(data.len() as u64)
            .and_then(|h| h.to_bytes())
            .map_err(|e| e.in_file(self.dest.join(&member)))?;
        self.zip
            .start_file(member.as_str(), self.options)
            .map_err(zip_err)
            .map_err(|e| e.in_file(&self.dest))?;
        if let Err(e) = options.write(&mut self.zip, data) {
            // The archive is abandoned anyway if this fails too.
            let _ = self.zip.abort_file();
            return Err(e.in_file(self.dest.join(&member)));
        }
        Ok(())
    }

    /// Adds the array `name` from a header and the data `data` writes, in
    /// the header's datatype and byte order, which must be exactly the
    /// bytes the header announces (else the member is taken out again).
    ///
    /// ```
    /// use ndl_runtime::npy::Header;
    /// use ndl_runtime::npz::{NpzReader, NpzWriter};
    /// use ndl_runtime::Datatype;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("s.npz");
    /// let mut w = NpzWriter::create(&path)?;
    /// w.add_stream("x", &Header::new(Datatype::UInt8, vec![3]), |w| Ok(w.write_all(&[7, 8, 9])?))?;
    /// assert!(w.add_stream("y", &Header::new(Datatype::UInt8, vec![3]), |w| Ok(w.write_all(&[7])?)).is_err());
    /// w.finish()?;
    /// let mut r = NpzReader::open(&path)?;
    /// assert_eq!((r.names(), r.read::<u8>("x")?), (vec!["x".to_string()], vec![7, 8, 9]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_stream(
        &mut self,
        name: &str,
        header: &Header,
        data: impl FnOnce(&mut dyn Write) -> Result<()>,
    ) -> Result<()> {
        let member = format!("{name}{NPY_SUFFIX}");
        header
            .to_bytes()
            .map_err(|e| e.in_file(self.dest.join(&member)))?;
        self.zip
            .start_file(member.as_str(), self.options)
            .map_err(|source| Error::Zip {
                member: Some(member.clone()),
                source,
            })
            .map_err(|e| e.in_file(&self.dest))?;
        if let Err(e) = crate::npy::write::write_announced(&mut self.zip, header, data) {
            let _ = self.zip.abort_file();
            return Err(e.in_file(self.dest.join(&member)));
        }
        Ok(())
    }

    /// Writes the zip directory and moves the archive to its path.
    ///
    /// ```
    /// use ndl_runtime::npy::WriteOptions;
    /// use ndl_runtime::npz::{NpzReader, NpzWriter};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("a.npz");
    /// let mut w = NpzWriter::create(&path)?;
    /// // A shape that does not hold the data adds nothing to the archive.
    /// assert!(w.add_with("bad", &WriteOptions::new().shape(&[3]), &[1u8]).is_err());
    /// w.add("good", &[1u8])?;
    /// w.finish()?;
    /// assert_eq!(NpzReader::open(&path)?.names(), ["good"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn finish(self) -> Result<()> {
        let dest = self.dest;
        let run = || -> Result<()> {
            let out = self.zip.finish().map_err(|source| Error::Zip {
                member: None,
                source,
            })?;
            let tmp = out.into_inner().map_err(|e| Error::from(e.into_error()))?;
            crate::npy::io::persist(tmp, &dest, self.sync).map(drop)
        };
        run().map_err(|e| e.in_file(&dest))
    }
}

/// Reads arrays from a `.npz` archive, one at a time, by name.
pub struct NpzReader<R> {
    zip: ZipArchive<R>,
    /// Shown in errors: the archive's path, when known.
    source: PathBuf,
    options: ReadOptions,
    /// The archive, for mapping members: only when opened by path.
    file: Option<File>,
}

impl<R: Read + Seek> std::fmt::Debug for NpzReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NpzReader")
            .field("source", &self.source)
            .field("members", &self.zip.len())
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for NpzWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NpzWriter")
            .field("dest", &self.dest)
            .finish_non_exhaustive()
    }
}

impl NpzReader<BufReader<File>> {
    /// Opens the archive at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<NpzReader<BufReader<File>>> {
        let path = path.as_ref();
        let run = || -> Result<_> {
            let file = File::open(path)?;
            // The clone shares the read position, which maps and `fstat`
            // never use.
            let for_maps = file.try_clone()?;
            let zip = ZipArchive::new(BufReader::new(file)).map_err(|source| Error::Zip {
                member: None,
                source,
            })?;
            Ok((zip, for_maps))
        };
        let (zip, file) = run().map_err(|e| e.in_file(path))?;
        Ok(NpzReader {
            zip,
            source: path.to_path_buf(),
            options: ReadOptions::new(),
            file: Some(file),
        })
    }

    /// Maps the array `name` into memory and views its records as `&[T]`
    /// without copying, as [`MmapArray::open`] does for a `.npy` file.
    ///
    /// The member must be stored (not compressed) and its records must
    /// start at a file offset aligned for `T`: [`NpzWriter::create`] writes
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

impl<R: Read + Seek> NpzReader<R> {
    /// Reads the archive from `reader` (e.g. a `Cursor` over bytes).
    ///
    /// ```
    /// use ndl_runtime::npz::NpzReader;
    ///
    /// // An empty `np.savez` archive: just the end-of-directory record.
    /// let mut empty = b"PK\x05\x06".to_vec();
    /// empty.extend([0; 18]);
    /// let r = NpzReader::new(std::io::Cursor::new(empty))?;
    /// assert!(r.names().is_empty());
    /// # Ok::<(), ndl_runtime::npy::Error>(())
    /// ```
    pub fn new(reader: R) -> Result<NpzReader<R>> {
        let zip = ZipArchive::new(reader).map_err(|source| Error::Zip {
            member: None,
            source,
        })?;
        Ok(NpzReader {
            zip,
            source: PathBuf::new(),
            options: ReadOptions::new(),
            file: None,
        })
    }

    /// Accepts array headers up to `max_header_size` characters
    /// (NumPy's `max_header_size`, default 10000).
    pub fn max_header_size(mut self, max_header_size: usize) -> NpzReader<R> {
        self.options = self.options.max_header_size(max_header_size);
        self
    }

    /// Whether members are read by field name, as
    /// [`ReadOptions::by_name`]: `T` may hold some of a member's fields, in
    /// any order.
    ///
    /// ```
    /// use ndl_runtime::npz::{NpzReader, NpzWriter};
    /// use ndl_runtime::NdlType;
    ///
    /// #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
    /// #[repr(C)]
    /// struct Full { id: u32, x: f32, y: f32 }
    ///
    /// #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
    /// #[repr(C)]
    /// struct Ys { y: f32, id: u32 }
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("a.npz");
    /// let mut w = NpzWriter::create(&path)?;
    /// w.add("full", &[Full { id: 7, x: 1.0, y: 2.0 }])?;
    /// w.finish()?;
    /// let mut r = NpzReader::open(&path)?.by_name(true);
    /// assert_eq!(r.read::<Ys>("full")?, [Ys { y: 2.0, id: 7 }]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn by_name(mut self, by_name: bool) -> NpzReader<R> {
        self.options = self.options.by_name(by_name);
        self
    }

    /// The names of all members, with one `.npy` suffix stripped, in
    /// archive order (as NumPy's `NpzFile.files`).
    pub fn names(&self) -> Vec<String> {
        self.zip
            .file_names()
            .map(|n| n.strip_suffix(NPY_SUFFIX).unwrap_or(n).to_string())
            .collect()
    }

    /// Reads the 1-D array `name` as records of `T`, checking the member's
    /// CRC-32.
    pub fn read<T: NdlType>(&mut self, name: &str) -> Result<Vec<T>> {
        let options = ReadOptions {
            rank: Some(1),
            ..self.options.clone()
        };
        Ok(self.read_with(name, &options)?.data)
    }

    /// Reads the array `name`, of any shape, as records of `T`, checking the
    /// member's CRC-32.
    pub fn read_array<T: NdlType>(&mut self, name: &str) -> Result<NpyArray<T>> {
        let options = self.options.clone();
        self.read_with(name, &options)
    }

    /// A stored member's size is bytes the archive holds, so the data can
    /// be allocated at once; a deflated one's is only a claim (a small
    /// member may say it inflates to gigabytes), so it is read as data
    /// arrives. The member is then read to its end, past any bytes after
    /// the data, because the zip reader checks the CRC-32 only there.
    fn read_with<T: NdlType>(&mut self, name: &str, options: &ReadOptions) -> Result<NpyArray<T>> {
        self.with_member(name, |r, member| {
            let known = (member.stored).then_some(member.size);
            let array = crate::npy::read::read_array(&mut *r, options, known)?;
            std::io::copy(r, &mut std::io::sink())?;
            Ok(array)
        })
    }

    /// Reads the header of the array `name`: its datatype, shape and order.
    ///
    /// ```
    /// use ndl_runtime::npz::{NpzReader, NpzWriter};
    /// use ndl_runtime::{npy::WriteOptions, Datatype};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("h.npz");
    /// let mut w = NpzWriter::create(&path)?;
    /// w.add_with("img", &WriteOptions::new().shape(&[2, 3]), &[0u16; 6])?;
    /// w.finish()?;
    /// let h = NpzReader::open(&path)?.header("img")?;
    /// assert_eq!((h.datatype, h.shape), (Datatype::UInt16, vec![2, 3]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn header(&mut self, name: &str) -> Result<Header> {
        let limits = HeaderLimits {
            max_header_size: self.options.limits.max_header_size,
        };
        self.with_member(name, |r, member| {
            let mut r = crate::npy::io::Counting { inner: r, count: 0 };
            let header = Header::read(&mut r, &limits)?;
            // The directory says how much data follows: a member cut short
            // is refused here, before anyone reads it.
            let available = member.size.saturating_sub(r.count);
            let needed = header.data_len()?;
            if needed > available {
                return Err(Error::UnexpectedEof {
                    what: "array data",
                    offset: r.count,
                    expected: needed,
                    got: available,
                });
            }
            Ok(header)
        })
    }

    /// The raw bytes of the member for `name` (with or without `.npy`), as
    /// `np.load` returns a member that is not a `.npy` file.
    ///
    /// ```
    /// use ndl_runtime::npz::{NpzReader, NpzWriter};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("b.npz");
    /// let mut w = NpzWriter::create(&path)?;
    /// w.add("x", &[1u8])?;
    /// w.finish()?;
    /// let bytes = NpzReader::open(&path)?.member_bytes("x")?;
    /// assert_eq!(&bytes[..6], b"\x93NUMPY");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn member_bytes(&mut self, name: &str) -> Result<Vec<u8>> {
        self.with_member(name, |r, _| {
            let mut bytes = Vec::new();
            r.read_to_end(&mut bytes)?;
            Ok(bytes)
        })
    }

    /// Runs `f` on a reader of the member for `name` (with or without
    /// `.npy`): the whole `.npy` stream, header first, read as it is
    /// inflated, so a large member never has to fit in memory.
    ///
    /// ```
    /// use std::io::Read;
    /// use ndl_runtime::npz::{NpzReader, NpzWriter};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("s.npz");
    /// let mut w = NpzWriter::create_compressed(&path)?;
    /// w.add("x", &[1u8, 2])?;
    /// w.finish()?;
    /// let magic = NpzReader::open(&path)?.read_member("x", |r| {
    ///     let mut magic = [0; 6];
    ///     r.read_exact(&mut magic)?;
    ///     Ok(magic)
    /// })?;
    /// assert_eq!(&magic, b"\x93NUMPY");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_member<V>(
        &mut self,
        name: &str,
        f: impl FnOnce(&mut dyn Read) -> Result<V>,
    ) -> Result<V> {
        self.with_member(name, |r, _| f(r))
    }

    /// Runs `f` on the member for `name`; errors carry the member's path.
    fn with_member<V>(
        &mut self,
        name: &str,
        f: impl FnOnce(&mut dyn Read, MemberInfo) -> Result<V>,
    ) -> Result<V> {
        let member = self.member_name(name)?;
        let path = self.member_path(&member);
        let mut file = self
            .zip
            .by_name(&member)
            .map_err(|source| Error::Zip {
                member: Some(member.clone()),
                source,
            })
            .map_err(|e| e.in_file(&self.source))?;
        let info = MemberInfo {
            size: file.size(),
            stored: file.compression() == CompressionMethod::Stored,
        };
        f(&mut file, info).map_err(|e| e.in_file(path))
    }

    /// The member holding `name`: the name itself, or with `.npy` added.
    fn member_name(&self, name: &str) -> Result<String> {
        let with_suffix = format!("{name}{NPY_SUFFIX}");
        let mut names = self.zip.file_names();
        if names.any(|n| n == name) {
            return Ok(name.to_string());
        }
        if self.zip.file_names().any(|n| n == with_suffix) {
            return Ok(with_suffix);
        }
        Err(Error::NoSuchArray {
            name: name.to_string(),
            available: self.names(),
        }
        .in_file(&self.source))
    }

    fn member_path(&self, member: &str) -> PathBuf {
        self.source.join(member)
    }
}

/// The NDL group path and array name of an `.npz` array name: the part
/// after the last `/` is the array, the rest the group.
///
/// ```
/// use ndl_runtime::npz::group_path;
///
/// assert_eq!(group_path("a/b/x"), ("/a/b".to_string(), "x".to_string()));
/// assert_eq!(group_path("x"), ("/".to_string(), "x".to_string()));
/// ```
pub fn group_path(name: &str) -> (String, String) {
    match name.rsplit_once('/') {
        Some((group, array)) => {
            let group = group.trim_matches('/');
            (format!("/{group}"), array.to_string())
        }
        None => ("/".to_string(), name.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_lookups() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.npz");
        let mut w = NpzWriter::create(&path).unwrap();
        w.add("x", &[1i8]).unwrap();
        w.add("y.npy", &[2i8]).unwrap();
        let e = w.add("x", &[9i8]).unwrap_err();
        assert!(e.to_string().contains("x.npy"), "{e}");
        w.add_with("m", &WriteOptions::new().shape(&[1, 2]), &[3i8, 4])
            .unwrap();
        w.finish().unwrap();
        let mut r = NpzReader::open(&path).unwrap();
        assert_eq!(r.names(), ["x", "y.npy", "m"]);
        assert_eq!(r.read::<i8>("x").unwrap(), [1]);
        assert_eq!(r.read::<i8>("x.npy").unwrap(), [1]);
        assert_eq!(r.read::<i8>("y.npy").unwrap(), [2]);
        let e = r.read::<i8>("y").unwrap_err();
        assert!(e.to_string().contains("no array named 'y'"), "{e}");
        let e = r.read::<i8>("m").unwrap_err();
        assert!(e.to_string().contains("a.npz/m.npy"), "{e}");
        assert_eq!(r.header("m").unwrap().shape, [1, 2]);
    }

    #[test]
    fn unfinished_writers_leave_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = NpzWriter::create(dir.path().join("a.npz")).unwrap();
        w.add("x", &[1u8]).unwrap();
        drop(w);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn group_paths() {
        assert_eq!(group_path("/a/x"), ("/a".into(), "x".into()));
        assert_eq!(group_path("a/"), ("/a".into(), "".into()));
    }
}
