//! An attribute of any datatype written as it is typed: what
//! [`DocumentWriter::attribute`](crate::DocumentWriter::attribute) and
//! [`ArrayWriter::attribute`](crate::ArrayWriter::attribute) write.

use hdf5::types::VarLenUnicode;
use hdf5_sys::h5a::{H5Aclose, H5Acreate2, H5Awrite};
use hdf5_sys::h5p::H5P_DEFAULT;
use hdf5_sys::h5s::{H5S_class_t, H5Sclose, H5Screate, H5Screate_simple};
use ndl_runtime::{ByteOrder, Datatype};

use crate::elements::{Elements, to_unicode};
use crate::h5type::{Orders, profile_type};
use crate::raw_io::failed;

/// Why an attribute was not written.
pub(crate) enum Failed {
    /// Its datatype has no HDF5 type.
    Type(crate::TypeError),
    /// HDF5 refused it.
    Hdf5(hdf5::Error),
}

impl Failed {
    /// The error of the attribute at `at` (`object@name`) of the file at
    /// `path`.
    pub(crate) fn at(self, path: &std::path::Path, at: &str) -> crate::Error {
        match self {
            Failed::Type(source) => crate::Error::Type {
                path: path.to_path_buf(),
                dataset: at.to_string(),
                source,
            },
            Failed::Hdf5(e) => crate::error::hdf5_error(path, at)(e),
        }
    }
}

impl From<hdf5::Error> for Failed {
    fn from(e: hdf5::Error) -> Failed {
        Failed::Hdf5(e)
    }
}

/// Writes the attribute `name` of `shape` elements of `datatype` on
/// `location`: a scalar string as netCDF's text where `netcdf` (CF
/// readers expect `char`), strings otherwise as variable-length UTF-8
/// ones (h5py's `str`), anything else of its datatype.
pub(crate) fn write(
    location: &hdf5::Location,
    (name, datatype, shape): (&str, &Datatype, &[u64]),
    values: Elements<'_>,
    netcdf: bool,
) -> Result<(), Failed> {
    match values {
        Elements::Column(_) => Err(hdf5::Error::from(
            "attributes of variable-length sequences are not written",
        ))?,
        Elements::Strings([text]) if shape.is_empty() && netcdf => {
            crate::cf::text_attr(location, name, text)?
        }
        Elements::Strings([text]) if shape.is_empty() => to_unicode(std::slice::from_ref(text))
            .and_then(|s| {
                location
                    .new_attr::<VarLenUnicode>()
                    .create(name)?
                    .write_scalar(&s[0])
            })?,
        Elements::Strings(strings) => to_unicode(strings).and_then(|s| {
            location
                .new_attr::<VarLenUnicode>()
                .shape(shape.iter().map(|&d| d as usize).collect::<Vec<_>>())
                .create(name)?
                .write_raw(&s)
        })?,
        Elements::Bytes(bytes) => {
            // netCDF-C skips an attribute of an enum type it has not
            // named, which h5py's bool is: netCDF4-python stores NumPy's
            // bools as `byte`, 0 and 1.
            let datatype = match datatype {
                Datatype::Bool if netcdf => &Datatype::Int8,
                other => other,
            };
            let memory_type = profile_type(datatype, Orders::one(ByteOrder::NATIVE), netcdf)
                .map_err(Failed::Type)?;
            // netCDF-C reads an attribute of a record, enum or complex
            // type it has not named as nothing at all; a variable's
            // `_FillValue` is of the variable's own, named, type.
            if netcdf && !is_netcdf_atomic(datatype) {
                let Some(own) = (name == "_FillValue").then(|| own_type(location)).flatten() else {
                    Err(hdf5::Error::from(
                        "netCDF-4 reads attributes of its atomic types (numbers and text) only, \
                         where the type is not one the file names",
                    ))?
                };
                return Ok(raw_attribute_as(
                    location,
                    name,
                    (&own, &memory_type),
                    shape,
                    bytes,
                )?);
            }
            raw_attribute(location, name, &memory_type, shape, bytes)?
        }
        Elements::Fill => {}
    }
    Ok(())
}

/// Whether `datatype` (or its arrays' elements) is one of netCDF-4's
/// atomic types, which an attribute may be of without a named type.
fn is_netcdf_atomic(datatype: &Datatype) -> bool {
    let (element, _) = datatype.innermost();
    element.as_int().is_some()
        || matches!(
            element,
            Datatype::Float32 | Datatype::Float64 | Datatype::String | Datatype::FixedString(_)
        )
}

/// The type of the dataset at `location`, where it is one: a named type
/// where the dataset's is.
fn own_type(location: &hdf5::Location) -> Option<hdf5::Datatype> {
    hdf5::sync::sync(|| {
        // SAFETY: `location` is open; the type handle is handed to its
        // owner, which closes it.
        unsafe {
            if hdf5_sys::h5i::H5Iget_type(location.id()) != hdf5_sys::h5i::H5I_type_t::H5I_DATASET {
                return None;
            }
            let id = hdf5_sys::h5d::H5Dget_type(location.id());
            (id >= 0)
                .then(|| hdf5::from_id::<hdf5::Datatype>(id).ok())
                .flatten()
        }
    })
}

/// Writes the attribute `name` of `shape` elements of `memory_type` from
/// `bytes`, in the same type.
pub(crate) fn raw_attribute(
    location: &hdf5::Location,
    name: &str,
    memory_type: &hdf5::Datatype,
    shape: &[u64],
    bytes: &[u8],
) -> hdf5::Result<()> {
    raw_attribute_as(location, name, (memory_type, memory_type), shape, bytes)
}

/// Writes the attribute `name` of `shape` elements of `file_type` from
/// `bytes`, elements of `memory_type`, which HDF5 converts.
fn raw_attribute_as(
    location: &hdf5::Location,
    name: &str,
    (file_type, memory_type): (&hdf5::Datatype, &hdf5::Datatype),
    shape: &[u64],
    bytes: &[u8],
) -> hdf5::Result<()> {
    let c_name = std::ffi::CString::new(name).map_err(|e| hdf5::Error::from(e.to_string()))?;
    let elements: u64 = shape.iter().product();
    if bytes.len() as u64 != elements * memory_type.size() as u64 {
        return Err(hdf5::Error::from(format!(
            "{} bytes for {elements} elements of {} bytes",
            bytes.len(),
            memory_type.size()
        )));
    }
    hdf5::sync::sync(|| {
        // SAFETY: each handle made here is closed here; `bytes` holds the
        // attribute's elements of `memory_type`, as checked above.
        unsafe {
            let space = match shape.is_empty() {
                true => H5Screate(H5S_class_t::H5S_SCALAR),
                false => H5Screate_simple(shape.len() as i32, shape.as_ptr(), std::ptr::null()),
            };
            if space < 0 {
                return Err(failed());
            }
            let attr = H5Acreate2(
                location.id(),
                c_name.as_ptr(),
                file_type.id(),
                space,
                H5P_DEFAULT,
                H5P_DEFAULT,
            );
            let written = if attr >= 0 {
                H5Awrite(attr, memory_type.id(), bytes.as_ptr().cast())
            } else {
                -1
            };
            if attr >= 0 {
                H5Aclose(attr);
            }
            H5Sclose(space);
            if written < 0 {
                return Err(failed());
            }
        }
        Ok(())
    })
}
