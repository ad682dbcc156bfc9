//! A dataset's fill: the value HDF5 gives an element never written, which
//! netCDF's `_FillValue` states too.

use hdf5::types::OwnedDynValue;
use ndl_runtime::Datatype;

/// `builder` with the fill `bytes`, where given: one value of the number
/// datatype `datatype` in native order.
///
/// # Errors
/// Bytes that are no such value, saying why.
pub(crate) fn with_fill(
    builder: hdf5::DatasetBuilderEmptyShape,
    datatype: &Datatype,
    bytes: Option<&[u8]>,
) -> Result<hdf5::DatasetBuilderEmptyShape, crate::TypeError> {
    let Some(bytes) = bytes else {
        return Ok(builder);
    };
    let fill = fill_value(datatype, bytes).ok_or_else(|| non_number_fill(datatype, bytes.len()))?;
    Ok(builder.fill_value(fill))
}

/// netCDF-C's default fill of a variable of the number `datatype`
/// (`NC_FILL_INT` …), one value in native order: what netCDF-C stores,
/// and reads where nothing was written, for a variable without a
/// `_FillValue`. `None` for other datatypes.
///
/// ```
/// use ndl_runtime::Datatype;
/// let fill = ndl_hdf5::netcdf_default_fill(&Datatype::Int32).unwrap();
/// assert_eq!(i32::from_ne_bytes(fill.try_into().unwrap()), -2147483647);
/// assert_eq!(ndl_hdf5::netcdf_default_fill(&Datatype::Bool), None);
/// ```
pub fn netcdf_default_fill(datatype: &Datatype) -> Option<Vec<u8>> {
    let bytes = match datatype {
        Datatype::Int8 => (-127i8).to_ne_bytes().to_vec(),
        Datatype::UInt8 => 255u8.to_ne_bytes().to_vec(),
        Datatype::Int16 => (-32767i16).to_ne_bytes().to_vec(),
        Datatype::UInt16 => 65535u16.to_ne_bytes().to_vec(),
        Datatype::Int32 => (-2147483647i32).to_ne_bytes().to_vec(),
        Datatype::UInt32 => 4294967295u32.to_ne_bytes().to_vec(),
        Datatype::Int64 => (-9223372036854775806i64).to_ne_bytes().to_vec(),
        Datatype::UInt64 => 18446744073709551614u64.to_ne_bytes().to_vec(),
        Datatype::Float32 => 9.969_21e36_f32.to_ne_bytes().to_vec(),
        Datatype::Float64 => 9.969_209_968_386_869e36_f64.to_ne_bytes().to_vec(),
        _ => return None,
    };
    Some(bytes)
}

/// `builder` with netCDF-C's default fill of a number `datatype`, where
/// HDF5's is zero.
pub(crate) fn with_netcdf_default(
    builder: hdf5::DatasetBuilderEmptyShape,
    datatype: &Datatype,
) -> hdf5::DatasetBuilderEmptyShape {
    let fill = netcdf_default_fill(datatype).and_then(|bytes| fill_value(datatype, &bytes));
    match fill {
        Some(fill) => builder.fill_value(fill),
        None => builder,
    }
}

/// `bytes`, one value of the number datatype `datatype` in native order,
/// as the dataset fill HDF5 takes; `None` for another datatype.
fn fill_value(datatype: &Datatype, bytes: &[u8]) -> Option<OwnedDynValue> {
    fn value<T: hdf5::H5Type + bytemuck::Pod>(bytes: &[u8]) -> Option<OwnedDynValue> {
        bytemuck::try_pod_read_unaligned::<T>(bytes)
            .ok()
            .map(OwnedDynValue::from)
    }
    match datatype {
        Datatype::Int8 => value::<i8>(bytes),
        Datatype::UInt8 => value::<u8>(bytes),
        Datatype::Int16 => value::<i16>(bytes),
        Datatype::UInt16 => value::<u16>(bytes),
        Datatype::Int32 => value::<i32>(bytes),
        Datatype::UInt32 => value::<u32>(bytes),
        Datatype::Int64 => value::<i64>(bytes),
        Datatype::UInt64 => value::<u64>(bytes),
        Datatype::Float32 => value::<f32>(bytes),
        Datatype::Float64 => value::<f64>(bytes),
        _ => None,
    }
}

/// Why `len` bytes are no fill of `datatype`: not a number, or not one
/// number's bytes.
fn non_number_fill(datatype: &Datatype, len: usize) -> crate::TypeError {
    let name = datatype.keyword().unwrap_or("this datatype");
    let why = match datatype.size() {
        Some(size) if size != len && fill_value(datatype, &vec![0; size]).is_some() => {
            format!("a fill of {len} bytes for {name}, whose values are {size} bytes")
        }
        _ => format!("a fill of {len} bytes for {name}: fills are set for numbers only"),
    };
    crate::TypeError {
        field: String::new(),
        why,
    }
}

/// The value netCDF reads where `dataset` holds nothing (past its
/// extents along an unlimited dimension another variable has grown): its
/// `_FillValue`, else the dataset's fill where one is set, else netCDF's
/// default for the number `datatype` stored in `order`, else zeros; one
/// element of `memory_type`.
pub(crate) fn read_fill(
    dataset: &hdf5::Dataset,
    memory_type: &hdf5::Datatype,
    datatype: &Datatype,
    order: ndl_runtime::ByteOrder,
) -> Vec<u8> {
    let mut fill = vec![0u8; memory_type.size()];
    if attribute_fill(dataset, memory_type, &mut fill)
        || dataset_fill(dataset, memory_type, &mut fill)
    {
        return fill;
    }
    if let Some(mut default) = netcdf_default_fill(datatype).filter(|d| d.len() == fill.len()) {
        if order != ndl_runtime::ByteOrder::NATIVE {
            default.reverse();
        }
        return default;
    }
    fill
}

/// Reads the `_FillValue` of `dataset`, a single value, into `out` as
/// `memory_type`; whether there is one HDF5 converts.
fn attribute_fill(dataset: &hdf5::Dataset, memory_type: &hdf5::Datatype, out: &mut [u8]) -> bool {
    let Ok(attr) = dataset.attr("_FillValue") else {
        return false;
    };
    if attr.size() != 1 {
        return false;
    }
    hdf5::sync::sync(|| {
        // SAFETY: `out` holds one element of `memory_type`, the one
        // element the attribute has; both handles are open.
        unsafe { hdf5_sys::h5a::H5Aread(attr.id(), memory_type.id(), out.as_mut_ptr().cast()) >= 0 }
    })
}

/// Reads the fill set on `dataset` (HDF5's, which netCDF-C sets to the
/// variable's fill), into `out` as `memory_type`; whether one is set.
fn dataset_fill(dataset: &hdf5::Dataset, memory_type: &hdf5::Datatype, out: &mut [u8]) -> bool {
    use hdf5::plist::dataset_create::FillValue;
    let Ok(dcpl) = dataset.dcpl() else {
        return false;
    };
    if dcpl.fill_value_defined() != FillValue::UserDefined {
        return false;
    }
    hdf5::sync::sync(|| {
        // SAFETY: `out` holds one element of `memory_type`; both handles
        // are open.
        unsafe {
            hdf5_sys::h5p::H5Pget_fill_value(dcpl.id(), memory_type.id(), out.as_mut_ptr().cast())
                >= 0
        }
    })
}
