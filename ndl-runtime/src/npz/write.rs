//! Writing `.npz` archives as `np.savez` does, members aligned for maps.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

use super::NPY_SUFFIX;
use crate::NdlType;
use crate::npy::{Error, Header, Result, WriteOptions};

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
    durable: bool,
}

impl NpzWriter {
    /// An archive of uncompressed members, as `np.savez` writes, except
    /// that every member's records start at a file offset that is a
    /// multiple of 64 (the zip local header's extra field is padded), so
    /// [`NpzReader::mmap`](super::NpzReader::mmap) can view them. NumPy reads these archives as any
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
            durable: false,
        })
    }

    /// Whether [`finish`](NpzWriter::finish) waits until the archive and its
    /// name are on the disk (`fsync`), as
    /// [`WriteOptions::durable`](crate::npy::WriteOptions::durable) does for
    /// `.npy` files. Default: `false`.
    ///
    /// ```
    /// use ndl_runtime::npz::{NpzReader, NpzWriter};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("s.npz");
    /// let mut w = NpzWriter::create(&path)?.durable(true);
    /// w.add("x", &[1u8])?;
    /// w.finish()?;
    /// assert_eq!(NpzReader::open(&path)?.read::<u8>("x")?, [1]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn durable(mut self, durable: bool) -> NpzWriter {
        self.durable = durable;
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
            crate::npy::io::publish(tmp, &dest, self.durable)
        };
        run().map_err(|e| e.in_file(&dest))
    }
}

impl std::fmt::Debug for NpzWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NpzWriter")
            .field("dest", &self.dest)
            .finish_non_exhaustive()
    }
}
