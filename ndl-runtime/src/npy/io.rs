//! The file and stream primitives under reading and writing: filling a
//! buffer despite short reads, counting bytes, and publishing a file only
//! once its new content is complete.

use std::fs::File;
use std::io::{ErrorKind, Read};
use std::path::Path;

use super::Result;

/// Fills `buf` from `r` unless the input ends first; the bytes read.
pub(crate) fn read_full<R: Read>(r: &mut R, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match r.read(&mut buf[done..]) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

/// A reader that counts the bytes read through it.
pub(crate) struct Counting<R> {
    pub inner: R,
    pub count: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count += n as u64;
        Ok(n)
    }
}

/// A hidden file beside `path` to write it in (see
/// [`crate::staging::hidden_file_beside`]).
pub(crate) fn temp_file_beside(path: &Path) -> Result<tempfile::NamedTempFile> {
    Ok(crate::staging::hidden_file_beside(path)?)
}

/// Reserves `len` bytes of disk space at `offset` of `file` before they are written, as
/// NumPy's `tofile` does: on Linux, writing into space already allocated
/// skips the file system's per-page block reservation, which makes writes
/// into the page cache ~1.4 times as fast (64 MiB: 13.6 to 9.6 ms; 1 MiB:
/// 147 to 96 µs). `FALLOC_FL_KEEP_SIZE` leaves the file's size alone, so
/// nothing changes if the write fails or is shorter. Only a hint: errors
/// (a file system without `fallocate`) are ignored.
pub(crate) fn preallocate(file: &File, offset: u64, len: usize) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let (Ok(offset), Ok(len)) = (libc::off_t::try_from(offset), libc::off_t::try_from(len))
        else {
            return;
        };
        // SAFETY: a plain system call on a file descriptor `file` owns and
        // keeps open for the call; it touches no memory of this process.
        unsafe { libc::fallocate(file.as_raw_fd(), libc::FALLOC_FL_KEEP_SIZE, offset, len) };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (file, offset, len);
}

/// Publishes the finished temporary file `tmp` at `path`, durably if
/// asked (see [`crate::staging::publish`]).
pub(crate) fn publish(tmp: tempfile::NamedTempFile, path: &Path, durable: bool) -> Result<()> {
    Ok(crate::staging::publish(
        tmp.into_temp_path(),
        path,
        durable,
    )?)
}
