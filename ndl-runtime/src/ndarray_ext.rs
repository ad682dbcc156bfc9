//! `ndarray` arrays of records in and out of `.npy` files (feature
//! `ndarray`), in the spirit of `ndarray-npy`'s `WriteNpyExt`,
//! `ReadNpyExt` and `ViewNpyExt`, for any [`NdlType`].
//!
//! - [`WriteNpyExt`] writes any `ArrayBase` with its shape: a C-order array
//!   as it is, a Fortran-order array as a `fortran_order: True` file (as
//!   `np.save` does, without copying), any other layout (transposed axes,
//!   slices with steps) in C order, copied in batches of ~256 KiB.
//! - [`ReadNpyExt`] reads into `Array<T, D>` (the file's rank must be `D`'s)
//!   or `ArrayD<T>`, in either memory order;
//!   [`NpyArray::into_ndarray`] converts what [`ReadOptions`] or an
//!   [`NpzReader`](crate::npz::NpzReader) read.
//! - [`MmapArray::view`] views a memory-mapped file as an `ArrayView`.
//! - [`NpzWriter::add_ndarray`] adds one to a `.npz` archive.
//!
//! ```
//! use ndarray::{array, Array2};
//! use ndl_runtime::ndarray_ext::{ReadNpyExt, WriteNpyExt};
//!
//! let a = array![[1.0f64, 2.0, 3.0], [4.0, 5.0, 6.0]];
//! let mut file = Vec::new();
//! a.t().write_npy(&mut file)?; // Fortran order: `fortran_order: True`
//! assert_eq!(Array2::<f64>::read_npy(&file[..])?, a.t());
//! # Ok::<(), ndl_runtime::npy::Error>(())
//! ```

use std::io::{Read, Write};
use std::path::Path;

use ndarray::{Array, ArrayBase, ArrayView, Data, Dimension, IxDyn, ShapeBuilder};

use crate::npy::record_writer::RecordWriter;
use crate::npy::write::write_announced;
use crate::npy::{
    self, ByteOrder, Error, Header, MmapArray, NpyArray, ReadOptions, Result, WriteOptions,
};
use crate::npz::NpzWriter;
use crate::{NdlType, Order};

/// How many bytes of records a non-contiguous array is copied in at a time.
const BATCH_BYTES: usize = 256 << 10;

/// Writes an `ndarray` array of records as a `.npy` file, with its shape.
pub trait WriteNpyExt {
    /// Writes the array to `writer` in native byte order.
    ///
    /// ```
    /// use ndarray::{array, s};
    /// use ndl_runtime::ndarray_ext::WriteNpyExt;
    /// use ndl_runtime::npy::ReadOptions;
    ///
    /// let a = array![[1u16, 2, 3], [4, 5, 6]];
    /// let mut file = Vec::new();
    /// a.slice(s![.., ..;2]).write_npy(&mut file)?; // not contiguous: copied
    /// let back = ReadOptions::new().read::<u16, _>(&file[..])?;
    /// assert_eq!((back.shape, back.data), (vec![2, 2], vec![1, 3, 4, 6]));
    /// # Ok::<(), ndl_runtime::npy::Error>(())
    /// ```
    fn write_npy<W: Write>(&self, writer: W) -> Result<()>;

    /// Writes the array to `writer` with numbers in `byte_order`.
    ///
    /// ```
    /// use ndarray::array;
    /// use ndl_runtime::ndarray_ext::WriteNpyExt;
    /// use ndl_runtime::npy::{read_header, ByteOrder};
    ///
    /// let mut file = Vec::new();
    /// array![1u32, 2].write_npy_in(ByteOrder::Big, &mut file)?;
    /// assert_eq!(read_header(&mut &file[..])?.descr()?, "'>u4'");
    /// # Ok::<(), ndl_runtime::npy::Error>(())
    /// ```
    fn write_npy_in<W: Write>(&self, byte_order: ByteOrder, writer: W) -> Result<()>;

    /// Writes the array to the file at `path` in native byte order,
    /// replacing it only once the new file is complete.
    ///
    /// ```
    /// use ndarray::{arr0, ArrayD};
    /// use ndl_runtime::ndarray_ext::{ReadNpyExt, WriteNpyExt};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("z.npy");
    /// arr0(2.5f32).write_npy_file(&path)?;
    /// assert_eq!(ArrayD::<f32>::read_npy_file(&path)?, arr0(2.5).into_dyn());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn write_npy_file(&self, path: impl AsRef<Path>) -> Result<()>;
}

impl<T: NdlType, S: Data<Elem = T>, D: Dimension> WriteNpyExt for ArrayBase<S, D> {
    fn write_npy<W: Write>(&self, writer: W) -> Result<()> {
        self.write_npy_in(ByteOrder::NATIVE, writer)
    }

    fn write_npy_in<W: Write>(&self, byte_order: ByteOrder, mut writer: W) -> Result<()> {
        let options = WriteOptions::new()
            .byte_order(byte_order)
            .shape(&shape_of(self));
        if let Some((data, fortran_order)) = in_memory_order(self) {
            return options
                .order(Order::from_fortran(fortran_order))
                .write(writer, data);
        }
        let header = options.header::<T>(self.len() as u64)?;
        write_announced(&mut writer, &header, |w| write_c_order(self, &header, w))?;
        writer.flush()?;
        Ok(())
    }

    fn write_npy_file(&self, path: impl AsRef<Path>) -> Result<()> {
        let options = WriteOptions::new().shape(&shape_of(self));
        if let Some((data, fortran_order)) = in_memory_order(self) {
            return options
                .order(Order::from_fortran(fortran_order))
                .write_file(path, data);
        }
        let header = options.header::<T>(self.len() as u64)?;
        npy::write_file_with(path, &header, |w| write_c_order(self, &header, w))
    }
}

/// Reads a `.npy` file into an owned `ndarray` array.
pub trait ReadNpyExt: Sized {
    /// Reads the array from `reader`. The file's datatype must be the
    /// element type's ([`Error::TypeMismatch`] otherwise) and its rank the
    /// dimension type's ([`Error::RankMismatch`], checked before any data
    /// is read); `IxDyn` takes any rank. Fortran-order files give arrays
    /// in Fortran memory order.
    ///
    /// ```
    /// use ndarray::{Array1, Array2, ArrayD};
    /// use ndl_runtime::ndarray_ext::ReadNpyExt;
    /// use ndl_runtime::npy::{Error, WriteOptions};
    ///
    /// let mut file = Vec::new();
    /// WriteOptions::new().shape(&[2, 2]).write(&mut file, &[1i8, 2, 3, 4])?;
    /// assert_eq!(Array2::<i8>::read_npy(&file[..])?[[1, 0]], 3);
    /// assert_eq!(ArrayD::<i8>::read_npy(&file[..])?.shape(), [2, 2]);
    /// let e = Array1::<i8>::read_npy(&file[..]).unwrap_err();
    /// assert!(matches!(e, Error::RankMismatch { expected: 1, .. }));
    /// # Ok::<(), ndl_runtime::npy::Error>(())
    /// ```
    fn read_npy<R: Read>(reader: R) -> Result<Self>;

    /// Reads the array from the file at `path`, as
    /// [`read_npy`](ReadNpyExt::read_npy) does.
    ///
    /// ```
    /// use ndarray::{array, Array2};
    /// use ndl_runtime::ndarray_ext::{ReadNpyExt, WriteNpyExt};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("m.npy");
    /// array![[1u8, 2], [3, 4]].write_npy_file(&path)?;
    /// assert_eq!(Array2::<u8>::read_npy_file(&path)?, array![[1, 2], [3, 4]]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn read_npy_file(path: impl AsRef<Path>) -> Result<Self>;
}

impl<T: NdlType, D: Dimension> ReadNpyExt for Array<T, D> {
    fn read_npy<R: Read>(reader: R) -> Result<Self> {
        options_for::<D>().read(reader)?.into_ndarray()
    }

    fn read_npy_file(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let array = options_for::<D>().read_file(path)?;
        array.into_ndarray().map_err(|e| e.in_file(path))
    }
}

impl<T> NpyArray<T> {
    /// The records as an `ndarray` array of the same shape and memory
    /// order, without copying them.
    ///
    /// ```
    /// use ndarray::{array, Ix2};
    /// use ndl_runtime::npy::{ReadOptions, WriteOptions};
    /// use ndl_runtime::Order;
    ///
    /// let mut file = Vec::new();
    /// WriteOptions::new().shape(&[2, 2]).order(Order::Fortran).write(&mut file, &[1u8, 2, 3, 4])?;
    /// let a = ReadOptions::new().read::<u8, _>(&file[..])?.into_ndarray::<Ix2>()?;
    /// assert_eq!(a, array![[1, 3], [2, 4]]);
    /// # Ok::<(), ndl_runtime::npy::Error>(())
    /// ```
    pub fn into_ndarray<D: Dimension>(self) -> Result<Array<T, D>> {
        let dim = dimension::<D>(&self.shape)?;
        let got = self.data.len() as u64;
        Array::from_shape_vec(dim.set_f(self.order.is_fortran()), self.data)
            .map_err(|_| shape_mismatch(&self.shape, got))
    }
}

impl<T: NdlType> MmapArray<T> {
    /// The mapped records as an `ndarray` view of the file's shape and
    /// memory order (`IxDyn` for any rank).
    ///
    /// ```
    /// use ndarray::{array, Ix2};
    /// use ndl_runtime::ndarray_ext::WriteNpyExt;
    /// use ndl_runtime::npy::MmapArray;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("v.npy");
    /// let a = array![[1.5f64, 2.5], [3.5, 4.5]];
    /// a.write_npy_file(&path)?;
    /// // SAFETY: nothing modifies the file while it is mapped.
    /// let map = unsafe { MmapArray::<f64>::open(&path)? };
    /// assert_eq!(map.view::<Ix2>()?, a);
    /// assert!(map.view::<ndarray::Ix1>().is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn view<D: Dimension>(&self) -> Result<ArrayView<'_, T, D>> {
        let dim = dimension::<D>(self.shape())?;
        ArrayView::from_shape(dim.set_f(self.order().is_fortran()), self.as_slice())
            .map_err(|_| shape_mismatch(self.shape(), self.len() as u64))
    }
}

impl NpzWriter {
    /// Adds `array` as the array `name` (member `name.npy`), with its shape,
    /// as [`WriteNpyExt::write_npy`] writes it.
    ///
    /// ```
    /// use ndarray::{array, Array2};
    /// use ndl_runtime::npz::{NpzReader, NpzWriter};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("a.npz");
    /// let mut w = NpzWriter::create(&path)?;
    /// w.add_ndarray("m", &array![[1i16, 2], [3, 4]].t())?;
    /// w.finish()?;
    /// let m = NpzReader::open(&path)?.read_array::<i16>("m")?.into_ndarray::<ndarray::Ix2>()?;
    /// assert_eq!(m, array![[1, 3], [2, 4]]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_ndarray<T: NdlType, S: Data<Elem = T>, D: Dimension>(
        &mut self,
        name: &str,
        array: &ArrayBase<S, D>,
    ) -> Result<()> {
        let options = WriteOptions::new().shape(&shape_of(array));
        if let Some((data, fortran_order)) = in_memory_order(array) {
            return self.add_with(
                name,
                &options.order(Order::from_fortran(fortran_order)),
                data,
            );
        }
        let header = options.header::<T>(array.len() as u64)?;
        self.add_stream(name, &header, |w| write_c_order(array, &header, w))
    }
}

/// The array's data in memory order and whether that is Fortran order,
/// when it is C or Fortran order without gaps.
fn in_memory_order<T, S: Data<Elem = T>, D: Dimension>(
    a: &ArrayBase<S, D>,
) -> Option<(&[T], bool)> {
    if let Some(data) = a.as_slice() {
        return Some((data, false));
    }
    // A transpose in standard layout means positive Fortran strides, so
    // memory order is exactly Fortran order.
    if a.t().is_standard_layout() {
        return a.as_slice_memory_order().map(|data| (data, true));
    }
    None
}

/// Writes the array's records in C (logical) order, in bounded batches.
fn write_c_order<T: NdlType, S: Data<Elem = T>, D: Dimension>(
    a: &ArrayBase<S, D>,
    header: &Header,
    mut w: &mut dyn Write,
) -> Result<()> {
    let mut records =
        RecordWriter::<T>::new(header.byte_order)?.starting_at(header.to_bytes()?.len());
    let batch = (BATCH_BYTES / std::mem::size_of::<T>().max(1)).max(1);
    let mut buf = Vec::with_capacity(batch.min(a.len()));
    let mut items = a.iter().copied();
    loop {
        buf.clear();
        buf.extend(items.by_ref().take(batch));
        if buf.is_empty() {
            return Ok(());
        }
        records.write(&mut w, &buf)?;
    }
}

fn shape_of<S: Data, D: Dimension>(a: &ArrayBase<S, D>) -> Vec<u64> {
    a.shape().iter().map(|&d| d as u64).collect()
}

/// Read options that require `D`'s rank.
fn options_for<D: Dimension>() -> ReadOptions {
    ReadOptions {
        rank: D::NDIM,
        ..ReadOptions::new()
    }
}

/// A file's shape as the dimension `D`, or why not.
fn dimension<D: Dimension>(shape: &[u64]) -> Result<D> {
    let dims = shape
        .iter()
        .map(|&d| usize::try_from(d))
        .collect::<std::result::Result<Vec<usize>, _>>()
        .map_err(|_| Error::ShapeOverflow {
            shape: shape.to_vec(),
            itemsize: 1,
        })?;
    D::from_dimension(&IxDyn(&dims)).ok_or_else(|| Error::RankMismatch {
        expected: D::NDIM.unwrap_or(dims.len()),
        shape: shape.to_vec(),
    })
}

fn shape_mismatch(shape: &[u64], got: u64) -> Error {
    Error::ShapeMismatch {
        shape: shape.to_vec(),
        expected: shape
            .iter()
            .try_fold(1u64, |n, &d| n.checked_mul(d))
            .unwrap_or(u64::MAX),
        got,
    }
}
