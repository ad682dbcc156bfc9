//! The [`Datatype`] of a type in a file, whoever wrote it: the inverse of
//! [`h5type`](crate::h5type), and more, since other writers use types we
//! never write (variable-length strings and sequences, references,
//! bitfields, mixed byte orders).

use std::ffi::CStr;
use std::ops::Range;

use hdf5_sys::h5::H5free_memory;
use hdf5_sys::h5i::hid_t;
use hdf5_sys::h5t::{
    H5T_class_t, H5T_order_t, H5T_sign_t, H5Tclose, H5Tget_array_dims2, H5Tget_array_ndims,
    H5Tget_class, H5Tget_member_name, H5Tget_member_offset, H5Tget_member_type,
    H5Tget_member_value, H5Tget_nmembers, H5Tget_order, H5Tget_sign, H5Tget_size, H5Tget_super,
    H5Tget_tag, H5Tis_variable_str,
};
use ndl_runtime::npy::parse_scalar_typestr;
use ndl_runtime::{
    ByteOrder, Charset, Compound, Datatype, Enum, EnumMember, FixedString, IntType, Member, Opaque,
    Selection,
};

/// A stored type as our model has it: the datatype, the byte order of its
/// multi-byte numbers (the first one's, where they differ), and the byte
/// ranges of the numbers stored in the other order.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredType {
    /// The datatype, with the file's offsets and sizes.
    pub datatype: Datatype,
    /// The order of the element's multi-byte numbers.
    pub byte_order: ByteOrder,
    /// Byte ranges of numbers stored in the order opposite to
    /// `byte_order`.
    pub other_order: Vec<Range<usize>>,
    /// Whether a fixed string of `datatype` is stored as netCDF's array of
    /// `char` (netCDF-4's form inside a compound): reads then ask for
    /// netCDF's types.
    pub netcdf_chars: bool,
}

impl StoredType {
    /// Opaque bytes of `size` standing for a type that has no datatype
    /// here, tagged with `why`.
    pub(crate) fn opaque(size: usize, why: &str) -> StoredType {
        StoredType {
            datatype: Datatype::Opaque(Opaque {
                size,
                tag: Some(why.to_string()),
            }),
            byte_order: ByteOrder::NATIVE,
            other_order: Vec::new(),
            netcdf_chars: false,
        }
    }
}

/// The stored type of the type handle `id`.
pub(crate) fn stored_type(id: hid_t) -> Result<StoredType, String> {
    let mut found = Found::default();
    let datatype = hdf5::sync::sync(|| walk(id, 0, &mut found))?;
    let byte_order = found.numbers.first().map_or(ByteOrder::NATIVE, |(_, o)| *o);
    let other_order = found
        .numbers
        .into_iter()
        .filter(|(_, o)| *o != byte_order)
        .map(|(r, _)| r)
        .collect();
    Ok(StoredType {
        datatype,
        byte_order,
        other_order,
        netcdf_chars: found.chars,
    })
}

/// What a walk over a type finds besides its datatype.
#[derive(Default)]
struct Found {
    /// Each multi-byte number's bytes and order.
    numbers: Vec<(Range<usize>, ByteOrder)>,
    /// Whether an array of netCDF `char` was read as a fixed string.
    chars: bool,
}

/// A type handle the library gave us, closed on drop.
struct Owned(hid_t);

impl Drop for Owned {
    fn drop(&mut self) {
        // SAFETY: a handle the library gave us, closed once.
        unsafe { H5Tclose(self.0) };
    }
}

/// The datatype of `id` at byte `offset` of the element; each multi-byte
/// number's bytes and order go to `numbers`.
fn walk(id: hid_t, offset: usize, found: &mut Found) -> Result<Datatype, String> {
    // SAFETY: `id` is an open type handle; these only read it.
    let (class, size) = unsafe { (H5Tget_class(id), H5Tget_size(id)) };
    let number = |found: &mut Found| {
        if size > 1 {
            found.numbers.push((offset..offset + size, order_of(id)));
        }
    };
    Ok(match class {
        H5T_class_t::H5T_INTEGER => {
            number(found);
            Datatype::from(int_type(id, size)?)
        }
        H5T_class_t::H5T_FLOAT => {
            number(found);
            match size {
                2 => Datatype::Float16,
                4 => Datatype::Float32,
                8 => Datatype::Float64,
                n => return Err(format!("HDF5 float of {n} bytes has no NumPy type")),
            }
        }
        H5T_class_t::H5T_STRING => {
            // SAFETY: `id` is a string type.
            if unsafe { H5Tis_variable_str(id) } > 0 {
                Datatype::String
            } else {
                // ASCII or UTF-8 alike: `size` bytes, NumPy's `S<size>`.
                Datatype::FixedString(FixedString {
                    length: size,
                    charset: Charset::Ascii,
                })
            }
        }
        // h5py reads a bitfield as the unsigned integer of its size.
        H5T_class_t::H5T_BITFIELD => match unsigned_of(size) {
            Some(int) => {
                number(found);
                Datatype::from(int)
            }
            None => Datatype::Opaque(Opaque {
                size,
                tag: Some(format!("HDF5 bitfield of {size} bytes")),
            }),
        },
        H5T_class_t::H5T_OPAQUE => opaque(id, size, offset, found),
        H5T_class_t::H5T_COMPOUND => compound(id, size, offset, found)?,
        H5T_class_t::H5T_ENUM => {
            number(found);
            enumeration(id, size)?
        }
        H5T_class_t::H5T_ARRAY => {
            // SAFETY: `id` is an array type; the base is a new handle.
            let base = Owned(unsafe { H5Tget_super(id) });
            // SAFETY: as above.
            let rank = unsafe { H5Tget_array_ndims(id) }.max(0) as usize;
            let mut dims = vec![0u64; rank];
            // SAFETY: `dims` has room for `rank` extents.
            unsafe { H5Tget_array_dims2(id, dims.as_mut_ptr()) };
            // SAFETY: `base` is open.
            let base_size = unsafe { H5Tget_size(base.0) };
            if let Some(length) = dims.last().filter(|_| is_char(base.0)) {
                // netCDF's characters of a string, which NumPy knows as
                // one `S<length>` (the same bytes).
                found.chars = true;
                let string = Datatype::FixedString(FixedString {
                    length: *length as usize,
                    charset: Charset::Ascii,
                });
                let outer: Vec<usize> = dims[..rank - 1].iter().map(|&d| d as usize).collect();
                return Ok(if outer.is_empty() {
                    string
                } else {
                    string.array_of(&outer)
                });
            }
            let elements = dims.iter().try_fold(1u64, |n, &d| n.checked_mul(d));
            let elements = elements
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| format!("an array type of extents {dims:?}: too many elements"))?;
            let mut first = Found::default();
            let element = walk(base.0, offset, &mut first)?;
            found.chars |= first.chars;
            array_numbers(found, first.numbers, (elements, base_size))?;
            let shape: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
            element.array_of(&shape)
        }
        H5T_class_t::H5T_VLEN => {
            // SAFETY: `id` is a vlen type; the base is a new handle.
            let base = Owned(unsafe { H5Tget_super(id) });
            Datatype::Vlen(Box::new(walk(base.0, 0, &mut Found::default())?))
        }
        H5T_class_t::H5T_REFERENCE => {
            if size <= 8 {
                Datatype::ObjRef
            } else {
                Datatype::RegRef(Selection::Block)
            }
        }
        other => return Err(format!("HDF5 type class {other:?} has no NumPy type")),
    })
}

/// Adds to `found` the numbers of an array of `elements` elements of
/// `size` bytes each, laid out as the first, whose numbers are `first`.
/// Where they are all of one order and it is the element's (as they are
/// but in a compound of mixed orders), the first element's stand for all:
/// an array type of 10^10 elements is described at once, not walked.
fn array_numbers(
    found: &mut Found,
    first: Vec<(Range<usize>, ByteOrder)>,
    (elements, size): (usize, usize),
) -> Result<(), String> {
    let order = found.numbers.first().or(first.first()).map(|(_, o)| *o);
    if elements <= 1 || first.iter().all(|(_, o)| Some(*o) == order) {
        found.numbers.extend(first);
        return Ok(());
    }
    if elements.saturating_mul(first.len()) > MAX_MIXED_NUMBERS {
        return Err(format!(
            "an array of {elements} elements whose numbers are of mixed byte orders: too many to read"
        ));
    }
    for k in 0..elements {
        let at = k * size;
        found
            .numbers
            .extend(first.iter().map(|(r, o)| (r.start + at..r.end + at, *o)));
    }
    Ok(())
}

/// The most numbers of the other byte order a type may hold, each of which
/// is swapped on its own.
const MAX_MIXED_NUMBERS: usize = 1 << 20;

/// Whether `id` is netCDF's `char`: a fixed string of one byte.
pub(crate) fn is_char(id: hid_t) -> bool {
    // SAFETY: `id` is an open type handle; these only read it.
    unsafe {
        H5Tget_class(id) == H5T_class_t::H5T_STRING
            && H5Tget_size(id) == 1
            && H5Tis_variable_str(id) <= 0
    }
}

fn order_of(id: hid_t) -> ByteOrder {
    // SAFETY: `id` is an atomic type.
    match unsafe { H5Tget_order(id) } {
        H5T_order_t::H5T_ORDER_BE => ByteOrder::Big,
        _ => ByteOrder::Little,
    }
}

/// The unsigned integer of `size` bytes, where NumPy has one.
fn unsigned_of(size: usize) -> Option<IntType> {
    Some(match size {
        1 => IntType::UInt8,
        2 => IntType::UInt16,
        4 => IntType::UInt32,
        8 => IntType::UInt64,
        _ => return None,
    })
}

fn int_type(id: hid_t, size: usize) -> Result<IntType, String> {
    // SAFETY: `id` is an integer type.
    let signed = unsafe { H5Tget_sign(id) } == H5T_sign_t::H5T_SGN_2;
    Ok(match (size, signed) {
        (1, true) => IntType::Int8,
        (1, false) => IntType::UInt8,
        (2, true) => IntType::Int16,
        (2, false) => IntType::UInt16,
        (4, true) => IntType::Int32,
        (4, false) => IntType::UInt32,
        (8, true) => IntType::Int64,
        (8, false) => IntType::UInt64,
        (n, _) => return Err(format!("HDF5 integer of {n} bytes has no NumPy type")),
    })
}

/// An opaque type. One tagged with a NumPy type string of its size
/// (`NUMPY:<M8[ns]`, as `h5py.opaque_dtype` writes times; `NUMPY:|S4`) is
/// that type, as h5py reads it.
fn opaque(id: hid_t, size: usize, offset: usize, found: &mut Found) -> Datatype {
    // SAFETY: `id` is an opaque type; the tag is the library's allocation,
    // read once and freed with its own free.
    let tag = unsafe {
        let raw = H5Tget_tag(id);
        if raw.is_null() {
            None
        } else {
            let tag = CStr::from_ptr(raw).to_string_lossy().into_owned();
            H5free_memory(raw.cast());
            Some(tag)
        }
    };
    if let Some(code) = tag.as_deref().and_then(|t| t.strip_prefix("NUMPY:"))
        && let Some((datatype, order)) = numpy_scalar(code, size)
    {
        let order = order.unwrap_or(ByteOrder::NATIVE);
        found
            .numbers
            .extend(number_ranges(&datatype, offset).map(|r| (r, order)));
        return datatype;
    }
    Datatype::Opaque(Opaque {
        size,
        tag: tag.filter(|t| !t.is_empty()),
    })
}

/// The datatype of the NumPy type string `code` when it is a scalar of
/// `size` bytes that we read as NumPy does (UTF-32 strings, whose
/// characters each have a byte order, stay opaque), with its stated order.
fn numpy_scalar(code: &str, size: usize) -> Option<(Datatype, Option<ByteOrder>)> {
    let (datatype, order) = parse_scalar_typestr(code)?;
    let utf32 = matches!(
        datatype,
        Datatype::FixedString(FixedString {
            charset: Charset::Utf32,
            ..
        })
    );
    (datatype.size() == Some(size) && !utf32).then_some((datatype, order))
}

/// The byte ranges of the multi-byte numbers of a scalar `datatype` at
/// `offset`: a complex number's two halves, or the whole.
fn number_ranges(datatype: &Datatype, offset: usize) -> impl Iterator<Item = Range<usize>> + use<> {
    let size = datatype.size().unwrap_or(0);
    let parts = match datatype {
        Datatype::Complex64 | Datatype::Complex128 => 2,
        _ if datatype.has_multibyte_numbers() => 1,
        _ => 0,
    };
    let step = size / parts.max(1);
    (0..parts).map(move |k| offset + k * step..offset + (k + 1) * step)
}

/// A compound with its members in the file's member-index order, which
/// h5py's dtype keeps, whatever their offsets.
fn compound(id: hid_t, size: usize, offset: usize, found: &mut Found) -> Result<Datatype, String> {
    // SAFETY: `id` is a compound type.
    let n = unsafe { H5Tget_nmembers(id) }.max(0) as u32;
    let mut members = Vec::with_capacity(n as usize);
    for i in 0..n {
        let name = member_name(id, i)?;
        // SAFETY: `i` is a member index; the type is a new handle.
        let (at, member) = unsafe {
            (
                H5Tget_member_offset(id, i),
                Owned(H5Tget_member_type(id, i)),
            )
        };
        let datatype =
            walk(member.0, offset + at, found).map_err(|e| format!("member `{name}`: {e}"))?;
        members.push(Member::new(name, at, datatype));
    }
    if let Some(complex) = complex_of(&members, size) {
        return Ok(complex);
    }
    Ok(Datatype::Compound(Compound { size, members }))
}

/// h5py's complex numbers: a compound of exactly `r` then `i`, both
/// float32 or both float64, packed.
fn complex_of(members: &[Member], size: usize) -> Option<Datatype> {
    let [r, i] = members else {
        return None;
    };
    let half = size / 2;
    if r.name != "r" || i.name != "i" || r.offset != 0 || i.offset != half {
        return None;
    }
    match (&r.datatype, &i.datatype, size) {
        (Datatype::Float32, Datatype::Float32, 8) => Some(Datatype::Complex64),
        (Datatype::Float64, Datatype::Float64, 16) => Some(Datatype::Complex128),
        _ => None,
    }
}

fn enumeration(id: hid_t, size: usize) -> Result<Datatype, String> {
    // SAFETY: `id` is an enum type; its base is a new handle.
    let base = Owned(unsafe { H5Tget_super(id) });
    let base_type = int_type(base.0, size)?;
    let big = order_of(base.0) == ByteOrder::Big;
    // SAFETY: as above.
    let n = unsafe { H5Tget_nmembers(id) }.max(0) as u32;
    let mut members = Vec::with_capacity(n as usize);
    for i in 0..n {
        let name = member_name(id, i)?;
        let mut bytes = [0u8; 8];
        // SAFETY: the value is `size` bytes (at most 8) of the base type.
        unsafe { H5Tget_member_value(id, i, bytes.as_mut_ptr().cast()) };
        members.push(EnumMember::new(name, value(&bytes[..size], base_type, big)));
    }
    // h5py's bool: an int8 enum of exactly FALSE = 0 and TRUE = 1.
    let is_bool = base_type == IntType::Int8
        && members.len() == 2
        && members.iter().any(|m| m.name == "FALSE" && m.value == 0)
        && members.iter().any(|m| m.name == "TRUE" && m.value == 1);
    if is_bool {
        return Ok(Datatype::Bool);
    }
    Ok(Datatype::Enum(Enum {
        base: base_type,
        members,
    }))
}

/// An enum value stored in `bytes`, of `base`, big-endian or not.
fn value(bytes: &[u8], base: IntType, big: bool) -> i128 {
    let mut wide = [0u8; 16];
    let negative = match (base, big) {
        (IntType::Int8 | IntType::Int16 | IntType::Int32 | IntType::Int64, true) => {
            bytes[0] & 0x80 != 0
        }
        (IntType::Int8 | IntType::Int16 | IntType::Int32 | IntType::Int64, false) => {
            bytes[bytes.len() - 1] & 0x80 != 0
        }
        _ => false,
    };
    if negative {
        wide = [0xFF; 16];
    }
    if big {
        wide[16 - bytes.len()..].copy_from_slice(bytes);
        i128::from_be_bytes(wide)
    } else {
        wide[..bytes.len()].copy_from_slice(bytes);
        i128::from_le_bytes(wide)
    }
}

fn member_name(id: hid_t, i: u32) -> Result<String, String> {
    // SAFETY: `i` is a member index; the name is the library's allocation,
    // read once and freed with its own free.
    unsafe {
        let raw = H5Tget_member_name(id, i);
        if raw.is_null() {
            return Err(format!("member {i} has no name"));
        }
        let name = CStr::from_ptr(raw).to_string_lossy().into_owned();
        H5free_memory(raw.cast());
        Ok(name)
    }
}
