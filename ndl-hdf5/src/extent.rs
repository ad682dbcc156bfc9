//! How many records a dataset's extent claims against what its file can
//! hold: checked before a reader allocates for them.

use std::path::Path;

use hdf5::dataset::Layout;

use crate::error::{Error, Result};

/// The most memory a read gives to records the file stores no data for
/// (chunks never written, or contiguous storage never allocated), which
/// read as the fill value. Such a dataset is legitimate, h5py makes one
/// with `create_dataset(name, shape, dtype)`, but its extent is then
/// nothing but a number in the header: past this bound it is more likely
/// a corrupt or hostile header than data, and is refused before any
/// memory is allocated.
pub const MAX_FILL_BYTES: u64 = 1 << 30;

/// Refuses a dataset of `n` elements of `stored_size` bytes that the file
/// cannot hold: contiguous storage past the file's end, or more than
/// [`MAX_FILL_BYTES`] in memory (`memory_size` bytes an element) of
/// elements with no stored data. A damaged header can claim trillions of
/// records; a reader would allocate, or a conversion write, their fill.
pub(crate) fn check_extent(
    path: &Path,
    dataset: &str,
    found: &hdf5::Dataset,
    n: u64,
    stored_size: u64,
    memory_size: u64,
) -> Result<()> {
    let too_large = |message: String| Error::TooLarge {
        path: path.to_path_buf(),
        dataset: dataset.to_string(),
        records: n,
        message,
    };
    let stored_bytes = n.saturating_mul(stored_size);
    let backed = match found.layout() {
        Layout::Contiguous => match found.offset() {
            Some(offset) => {
                let file_len = std::fs::metadata(path)
                    .map_err(|source| Error::Io {
                        path: path.to_path_buf(),
                        source,
                    })?
                    .len();
                let end = offset.saturating_add(stored_bytes);
                if end > file_len {
                    return Err(too_large(format!(
                        "its {n} records of {stored_size} bytes would end at byte {end}, \
                         past the end of the file ({file_len} bytes): the file is truncated \
                         or its header is wrong"
                    )));
                }
                n
            }
            None => 0,
        },
        Layout::Chunked => {
            let chunk = found.chunk().unwrap_or_default();
            let per_chunk = chunk.iter().map(|&d| d as u64).product::<u64>();
            let chunks = found.num_chunks().unwrap_or(0) as u64;
            n.min(chunks.saturating_mul(per_chunk))
        }
        _ => n,
    };
    let fill_bytes = (n - backed).saturating_mul(memory_size);
    if fill_bytes > MAX_FILL_BYTES {
        return Err(too_large(format!(
            "it declares {n} records but the file stores data for {backed}; the other {} \
             would be {fill_bytes} bytes of fill values, more than the {MAX_FILL_BYTES} \
             a read allocates for records with no stored data",
            n - backed
        )));
    }
    Ok(())
}
