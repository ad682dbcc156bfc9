//! `ndarray` arrays of any rank in and out of Zarr stores (feature
//! `ndarray`), as `ndl_runtime::ndarray_ext` does for `.npy` files: one
//! array of records, chunked in every dimension.

use crate::GridWriter;
use std::path::Path;

use ndarray::{Array, ArrayBase, Data, Dimension, IxDyn, ShapeBuilder};
use ndl_runtime::NdlType;
use ndl_runtime::Order;
use ndl_runtime::records::{Packer, RecordBuf};

use crate::error::{Error, Result};
use crate::grid::GridReader;
use crate::layout::records::{check_type, packer};
use crate::options::{ReadOptions, WriteOptions};
use crate::part_reader::invalid;
use crate::store::Store;

/// Elements packed and appended at a time.
const BATCH_BYTES: usize = 8 << 20;

/// Writes `array`, of any rank and layout, as a new store at `dir` (which
/// must not exist, or be an empty directory) holding one array of records
/// of its shape, chunked in every dimension ([`WriteOptions::chunks`], or
/// the [default rule](crate::default_chunk_shape)). The store appears only
/// once complete.
///
/// A C-contiguous array is stored in C order and a Fortran-contiguous one
/// (a transposed view, `.reversed_axes()`) in Fortran order, as NumPy saves
/// them; any other view (sliced with steps, axes permuted otherwise) is
/// stored in C order, copied a batch at a time.
///
/// ```
/// use ndarray::{array, Array2};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("m.zarr");
/// let a = array![[1.0f64, 2.0, 3.0], [4.0, 5.0, 6.0]];
/// ndl_zarr::write_ndarray(&path, &a.t(), &ndl_zarr::WriteOptions::new())?;
/// let back: Array2<f64> = ndl_zarr::read_ndarray(&path, &ndl_zarr::ReadOptions::new())?;
/// assert_eq!(back, a.t());
/// assert!(back.t().is_standard_layout()); // read back in Fortran order
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_ndarray<T, S, D>(
    dir: impl AsRef<Path>,
    array: &ArrayBase<S, D>,
    options: &WriteOptions,
) -> Result<()>
where
    T: NdlType + Send + Sync,
    S: Data<Elem = T>,
    D: Dimension,
{
    let dir = dir.as_ref();
    let packer = packer::<T>(&dir.display().to_string())?;
    let shape: Vec<u64> = array.shape().iter().map(|&d| d as u64).collect();
    let (in_order, order) = match in_memory_order(array) {
        Some((data, order)) => (Some(data), order),
        None => (None, Order::C),
    };
    let options = options.clone().publish_on_finish(true);
    let mut writer = GridWriter::create_with(dir, &T::datatype(), &shape, order, &options)?;
    let batch = (BATCH_BYTES / packer.layout().size().max(1)).max(1);
    let mut packed = Vec::new();
    let mut append = |records: &[T]| {
        packed.resize(records.len() * packer.layout().size(), 0);
        packer.pack(records, &mut packed);
        writer.append(&packed)
    };
    match in_order {
        Some(data) => data.chunks(batch).try_for_each(&mut append)?,
        None => {
            let mut records = Vec::with_capacity(batch.min(array.len()));
            for &record in array.iter() {
                records.push(record);
                if records.len() == batch {
                    append(&records)?;
                    records.clear();
                }
            }
            append(&records)?;
        }
    }
    writer.finish().map(drop)
}

/// Reads the array of records at `dir` into an owned `ndarray` array of
/// `T`, in the order the store keeps (C, or Fortran for a v2 `order: "F"`
/// store or a v3 one whose `transpose` reverses the dimensions). `D` must
/// have the store's rank; `IxDyn` takes any. The stored datatype must be
/// `T`'s, checked as [`read`](crate::read) checks it; bools and enums are
/// checked. Reads by name ([`ReadOptions::by_name`]) are not offered here.
///
/// # Errors
/// As [`read`](crate::read); a rank that is not `D`'s; a columns store.
pub fn read_ndarray<T, D>(dir: impl AsRef<Path>, options: &ReadOptions) -> Result<Array<T, D>>
where
    T: NdlType + Send + Sync,
    D: Dimension,
{
    let store = Store::open(dir.as_ref())?;
    if options.by_name {
        return Err(Error::Unsupported {
            message: format!(
                "{}: an ndarray is read with its exact type, not by name",
                store.name
            ),
        });
    }
    let packer: Packer<T> = packer(&store.name)?;
    let mut reader = GridReader::read(&store)?;
    check_type(&store, reader.stored_datatype(), &packer)?;
    let shape: Vec<usize> = reader.shape().iter().map(|&d| d as usize).collect();
    if D::NDIM.is_some_and(|n| n != shape.len()) {
        return Err(Error::Shape {
            store: store.name.clone(),
            message: format!(
                "the array has shape {shape:?}, not the {} dimensions asked for",
                D::NDIM.unwrap_or(0)
            ),
        });
    }
    let fortran = reader.order() == Order::Fortran;
    let packed = reader.read_all()?;
    let n: usize = shape.iter().product();
    let memory = |e: std::io::Error| Error::Shape {
        store: store.name.clone(),
        message: format!("{n} records do not fit in memory: {e}"),
    };
    let mut records = RecordBuf::<T>::zeroed(n).map_err(memory)?;
    for mut part in records.parts_mut(n.max(1)) {
        packer
            .unpack(&packed, &mut part)
            .map_err(|bad| invalid(&store, u64::MAX, 0, bad))?;
    }
    let data = records.into_vec().unwrap_or_default();
    let dyn_shape = IxDyn(&shape);
    let array = if fortran {
        Array::from_shape_vec(dyn_shape.f(), data)
    } else {
        Array::from_shape_vec(dyn_shape, data)
    };
    let shape_error = |e: ndarray::ShapeError| Error::Shape {
        store: store.name.clone(),
        message: e.to_string(),
    };
    array
        .map_err(shape_error)?
        .into_dimensionality::<D>()
        .map_err(shape_error)
}

/// The array's records as they lie in memory when that is C or Fortran
/// order, and which.
fn in_memory_order<T, S: Data<Elem = T>, D: Dimension>(
    a: &ArrayBase<S, D>,
) -> Option<(&[T], Order)> {
    if let Some(data) = a.as_slice() {
        return Some((data, Order::C));
    }
    // A transpose in standard layout means positive Fortran strides, so
    // memory order is exactly Fortran order.
    if a.t().is_standard_layout() {
        return a.as_slice_memory_order().map(|data| (data, Order::Fortran));
    }
    None
}
