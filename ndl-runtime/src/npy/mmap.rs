//! Memory-mapped `.npy` files: the records as `&[T]`, without copying.

use std::fs::File;
use std::marker::PhantomData;
use std::path::Path;

use memmap2::Mmap;

use super::compare::{RecordShape, bad_value, check_datatype, file_layout_for};
use super::{ByteOrder, Error, Header, HeaderLimits, Result};
use crate::record_plan::RecordPlan;
use crate::{NdlType, Order};

/// A `.npy` file mapped into memory, viewed as a slice of `T`.
///
/// Opening checks the datatype like [`read_file`](super::read_file), then
/// requires what a zero-copy view needs: native byte order and data that
/// starts at an address aligned for `T` (NumPy ≥ 1.14 puts data at a
/// multiple of 64 bytes, so files it writes qualify). Types with bools or
/// enums have every record's values checked once at open, which reads the
/// whole file; for other types `open` reads only the header and costs the
/// same for any file size.
///
/// ```
/// use ndl_runtime::npy::{self, MmapArray};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("m.npy");
/// npy::write_file(&path, &[1.0f32, 2.0, 3.0])?;
/// // SAFETY: nothing modifies the file while it is mapped.
/// let array = unsafe { MmapArray::<f32>::open(&path)? };
/// assert_eq!(array.as_slice(), [1.0, 2.0, 3.0]);
/// assert_eq!(array.shape(), [3]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct MmapArray<T> {
    map: Mmap,
    offset: usize,
    len: usize,
    shape: Vec<u64>,
    order: Order,
    _records: PhantomData<T>,
}

impl<T> std::fmt::Debug for MmapArray<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MmapArray")
            .field("shape", &self.shape)
            .field("order", &self.order)
            .field("records", &self.len)
            .finish_non_exhaustive()
    }
}

impl<T: NdlType> MmapArray<T> {
    /// Maps the file at `path` with NumPy's header limits.
    ///
    /// # Safety
    ///
    /// The file must not be modified or truncated, by this process or any
    /// other, while the returned value lives: the slice would change under
    /// it (bools and enums could then hold unchecked values, and truncation
    /// makes access fault). This is the contract of [`memmap2::Mmap::map`].
    pub unsafe fn open(path: impl AsRef<Path>) -> Result<MmapArray<T>> {
        // SAFETY: passed on to our caller.
        unsafe { MmapArray::open_with_limits(path, &HeaderLimits::default()) }
    }

    /// Maps the file at `path`, accepting headers within `limits`.
    ///
    /// # Safety
    ///
    /// As for [`MmapArray::open`].
    pub unsafe fn open_with_limits(
        path: impl AsRef<Path>,
        limits: &HeaderLimits,
    ) -> Result<MmapArray<T>> {
        let path = path.as_ref();
        let run = || {
            let file = File::open(path)?;
            // SAFETY: the caller promises the file is not modified while
            // mapped (see `open`); memmap2 needs exactly that.
            let map = unsafe { Mmap::map(&file)? };
            let (header, offset) = Header::parse(&map, limits)?;
            MmapArray::from_map(map, header, offset, "read_file")
        };
        run().map_err(|e| e.in_file(path))
    }

    /// Views the records after the header (`offset` bytes long) at the
    /// start of `map`; `read_instead` names what reads the array when it
    /// cannot be mapped.
    pub(crate) fn from_map(
        map: Mmap,
        header: Header,
        offset: usize,
        read_instead: &str,
    ) -> Result<MmapArray<T>> {
        let expected = T::datatype();
        let RecordShape { shape, records } = check_datatype(&header, &expected)?;
        let layout = file_layout_for::<T>(&expected, &header)?;
        check_mappable::<T>(
            &header,
            &layout,
            map.as_ptr() as usize + offset,
            read_instead,
        )?;
        let data_len = records.checked_mul(layout.itemsize as u64);
        let left = (map.len() - offset) as u64;
        let len = match (data_len, usize::try_from(records)) {
            (Some(n), Ok(len)) if n <= left => len,
            _ => {
                return Err(Error::UnexpectedEof {
                    what: "array data",
                    offset: offset as u64,
                    expected: data_len.unwrap_or(u64::MAX),
                    got: left,
                });
            }
        };
        let data = &map[offset..offset + len * layout.itemsize];
        layout
            .validate(data)
            .map_err(|bad| bad_value(&expected, &layout, offset as u64, &bad))?;
        Ok(MmapArray {
            map,
            offset,
            len,
            shape,
            order: header.order,
            _records: PhantomData,
        })
    }

    /// The records, in the file's order.
    pub fn as_slice(&self) -> &[T] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: `from_map` checked that `len` records of `T` fit in the
        // map after `offset`, that this address is aligned for `T`, that the
        // file's datatype is `T`'s in native byte order, and that every bool
        // and enum holds a valid value; by the `NdlType` contract every
        // other byte pattern is a valid `T`. The map is read-only and lives
        // as long as `self`, and the caller of `open` promised the file
        // does not change meanwhile.
        unsafe {
            std::slice::from_raw_parts(self.map.as_ptr().add(self.offset).cast::<T>(), self.len)
        }
    }

    /// The shape, in records of `T`.
    pub fn shape(&self) -> &[u64] {
        &self.shape
    }

    /// The order of the records.
    pub fn order(&self) -> Order {
        self.order
    }
}

impl<T: NdlType> std::ops::Deref for MmapArray<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

/// Native byte order and an aligned data address, or why not.
fn check_mappable<T>(
    header: &Header,
    layout: &RecordPlan,
    data_addr: usize,
    read_instead: &str,
) -> Result<()> {
    if !layout.swaps.is_empty() {
        let reason = match header.other_order.is_empty() {
            true => format!(
                "the file is {}-endian and this machine is {}-endian; read it with {read_instead}, which converts",
                header.byte_order.name(),
                ByteOrder::NATIVE.name()
            ),
            false => format!(
                "the file's fields are in both byte orders and this machine is {}-endian; read it with {read_instead}, which converts",
                ByteOrder::NATIVE.name()
            ),
        };
        return Err(Error::NotMappable { reason });
    }
    let align = std::mem::align_of::<T>();
    if !data_addr.is_multiple_of(align) {
        return Err(Error::NotMappable {
            reason: format!(
                "the data starts at an address that is not a multiple of {align}, the alignment of the type; read it with {read_instead}"
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::npy::{self, WriteOptions};

    #[test]
    fn maps_and_checks_bools() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.npy");
        npy::write_file(&path, &[true, false, true]).unwrap();
        // SAFETY: the test owns the file and does not change it while mapped.
        let a = unsafe { MmapArray::<bool>::open(&path).unwrap() };
        assert_eq!(&a[..], [true, false, true]);
        drop(a);
        let mut bytes = std::fs::read(&path).unwrap();
        let n = bytes.len();
        bytes[n - 2] = 7;
        std::fs::write(&path, bytes).unwrap();
        // SAFETY: as above.
        let e = unsafe { MmapArray::<bool>::open(&path) }.err().unwrap();
        assert!(e.to_string().contains("record 1"), "{e}");
    }

    #[test]
    fn refuses_the_other_byte_order_and_short_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("o.npy");
        let other = ByteOrder::NATIVE.opposite();
        WriteOptions::new()
            .byte_order(other)
            .write_file(&path, &[1u32])
            .unwrap();
        // SAFETY: the test owns the file and does not change it while mapped.
        let e = unsafe { MmapArray::<u32>::open(&path) }.err().unwrap();
        assert!(
            matches!(e, Error::InFile { ref source, .. } if matches!(**source, Error::NotMappable { .. })),
            "{e}"
        );
        npy::write_file(&path, &[1u32, 2]).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        // SAFETY: as above.
        let e = unsafe { MmapArray::<u32>::open(&path) }.err().unwrap();
        assert!(e.to_string().contains("expected 8 bytes, got 7"), "{e}");
    }

    #[test]
    fn empty_and_zero_d() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("e.npy");
        npy::write_file::<f64>(&path, &[]).unwrap();
        // SAFETY: the test owns the file and does not change it while mapped.
        let a = unsafe { MmapArray::<f64>::open(&path).unwrap() };
        assert!(a.is_empty());
        WriteOptions::new()
            .shape(&[])
            .write_file(&path, &[4.5f64])
            .unwrap();
        // SAFETY: as above.
        let a = unsafe { MmapArray::<f64>::open(&path).unwrap() };
        assert_eq!((a.as_slice(), a.shape()), (&[4.5][..], &[][..]));
    }
}
