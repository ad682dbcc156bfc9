//! Whole records moved between memory and a one-dimensional dataset, as
//! bytes of a runtime type: hdf5-metno's typed readers and writers need a
//! compile-time `H5Type`, so the byte copies go through `H5Dwrite` and
//! `H5Dread` with the type's handle.

use hdf5_sys::h5d::{H5Dread, H5Dwrite};
use hdf5_sys::h5p::H5P_DEFAULT;

/// Where `first..first + n` of a dataset is, in the file and in memory.
fn spaces(
    dset: &hdf5::Dataset,
    first: u64,
    n: u64,
) -> hdf5::Result<(hdf5::Dataspace, hdf5::Dataspace)> {
    let file = dset.space()?.select(first as usize..(first + n) as usize)?;
    let memory = hdf5::Dataspace::try_new(n as usize)?;
    Ok((file, memory))
}

/// Writes `bytes`, records of `memory_type`, as records `first..` of `dset`.
pub(crate) fn write(
    dset: &hdf5::Dataset,
    memory_type: &hdf5::Datatype,
    first: u64,
    bytes: &[u8],
) -> hdf5::Result<()> {
    let size = memory_type.size().max(1);
    assert_eq!(bytes.len() % size, 0, "whole records");
    let n = (bytes.len() / size) as u64;
    if n == 0 {
        return Ok(());
    }
    let (file, memory) = spaces(dset, first, n)?;
    hdf5::sync::sync(|| {
        // SAFETY: `bytes` holds `n` elements of `memory_type`, the memory
        // space selects `n` elements, and every handle is open.
        let status = unsafe {
            H5Dwrite(
                dset.id(),
                memory_type.id(),
                memory.id(),
                file.id(),
                H5P_DEFAULT,
                bytes.as_ptr().cast(),
            )
        };
        if status < 0 {
            return Err(hdf5::Error::query().unwrap_or_else(|e| e));
        }
        Ok(())
    })
}

/// Reads records `first..` of `dset` into `out`, whole records of
/// `memory_type`, which the library converts them to (by field name for
/// compounds, and to the memory's byte order).
pub(crate) fn read(
    dset: &hdf5::Dataset,
    memory_type: &hdf5::Datatype,
    first: u64,
    out: &mut [u8],
) -> hdf5::Result<()> {
    let size = memory_type.size().max(1);
    assert_eq!(out.len() % size, 0, "whole records");
    let n = (out.len() / size) as u64;
    if n == 0 {
        return Ok(());
    }
    let (file, memory) = spaces(dset, first, n)?;
    hdf5::sync::sync(|| {
        // SAFETY: `out` has room for `n` elements of `memory_type`, which
        // the memory space selects, and every handle is open.
        let status = unsafe {
            H5Dread(
                dset.id(),
                memory_type.id(),
                memory.id(),
                file.id(),
                H5P_DEFAULT,
                out.as_mut_ptr().cast(),
            )
        };
        if status < 0 {
            return Err(hdf5::Error::query().unwrap_or_else(|e| e));
        }
        Ok(())
    })
}
