//! Reading the arrays of a `.npz` archive by name, as `np.load` does.

use std::fs::File;
use std::io::{BufReader, Read, Seek};
use std::path::{Path, PathBuf};

use zip::{CompressionMethod, ZipArchive};

use super::NPY_SUFFIX;
use crate::NdlType;
use crate::npy::{Error, Header, HeaderLimits, NpyArray, ReadOptions, Result};

/// What the zip directory says of a member.
#[derive(Clone, Copy)]
struct MemberInfo {
    /// Its uncompressed size.
    size: u64,
    /// Whether it is stored, not compressed.
    stored: bool,
}

/// Reads arrays from a `.npz` archive, one at a time, by name.
pub struct NpzReader<R> {
    pub(super) zip: ZipArchive<R>,
    /// Shown in errors: the archive's path, when known.
    pub(super) source: PathBuf,
    pub(super) options: ReadOptions,
    /// The archive, for mapping members: only when opened by path.
    pub(super) file: Option<File>,
}

impl<R: Read + Seek> std::fmt::Debug for NpzReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NpzReader")
            .field("source", &self.source)
            .field("members", &self.zip.len())
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

    /// The names of all members as stored, in archive order: an archive
    /// NumPy wrote holds only `.npy` members.
    ///
    /// ```
    /// use ndl_runtime::npz::{NpzReader, NpzWriter};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("a.npz");
    /// let mut w = NpzWriter::create(&path)?;
    /// w.add("x", &[1u8])?;
    /// w.finish()?;
    /// assert_eq!(NpzReader::open(&path)?.member_names(), ["x.npy"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn member_names(&self) -> Vec<String> {
        self.zip.file_names().map(str::to_string).collect()
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
    pub(super) fn member_name(&self, name: &str) -> Result<String> {
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

    pub(super) fn member_path(&self, member: &str) -> PathBuf {
        self.source.join(member)
    }
}
