//! Opening HDF5 files, with their descriptor closed on exec, and locked
//! only where a lock guards something.
//!
//! The library opens files without `O_CLOEXEC` and locks them with
//! `flock`. A child process started by another thread meanwhile would
//! inherit the descriptor, and with it the lock, for as long as it runs:
//! h5py or ncdump in that child, or after us, then cannot open the file.
//! So reads take no lock (they change nothing), nor do new files (built
//! under a hidden name no one else opens); appends do, against a second
//! writer, and set close-on-exec at once.

use std::os::raw::c_void;
use std::path::Path;

use hdf5_sys::h5f::H5Fget_vfd_handle;
use hdf5_sys::h5p::H5P_DEFAULT;

use crate::error::Result;
use crate::error::hdf5_error;

/// Opens the file at `path` to read, without a lock.
pub(crate) fn open(path: &Path) -> Result<hdf5::File> {
    crate::filters::register();
    let file = hdf5::File::with_options()
        .with_fapl(|p| p.file_locking(false))
        .open(path)
        .map_err(hdf5_error(path, ""))?;
    close_on_exec(&file);
    Ok(file)
}

/// Opens the file at `path` to read and write.
pub(crate) fn open_rw(path: &Path) -> Result<hdf5::File> {
    let file = hdf5::File::open_rw(path).map_err(hdf5_error(path, ""))?;
    close_on_exec(&file);
    Ok(file)
}

/// Marks the descriptor of `file` (the default `sec2` driver's) close on
/// exec; for another driver, leaves it.
pub(crate) fn close_on_exec(file: &hdf5::File) {
    let mut handle: *mut c_void = std::ptr::null_mut();
    // SAFETY: `file` is open; the library writes a pointer to its driver's
    // handle, which for `sec2` is the `int` descriptor, valid while open.
    let fd = hdf5::sync::sync(|| unsafe {
        let status = H5Fget_vfd_handle(file.id(), H5P_DEFAULT, &mut handle);
        (status >= 0 && !handle.is_null()).then(|| *(handle as *const i32))
    });
    if let Some(fd) = fd {
        // SAFETY: setting a flag on a descriptor the library holds open.
        unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    }
}
