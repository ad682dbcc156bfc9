//! Whether a dataset's stored type holds the fields a record type asks
//! for: every field present by name and of the same kind, and no number
//! narrowed. HDF5 would convert the rest silently (a missing field left
//! as it was, an int64 clipped into an int16), so this check comes first.

use std::ffi::CStr;

use hdf5_sys::h5::H5free_memory;
use hdf5_sys::h5i::hid_t;
use hdf5_sys::h5t::{
    H5T_class_t, H5Tclose, H5Tget_class, H5Tget_member_name, H5Tget_member_type, H5Tget_nmembers,
    H5Tget_size, H5Tget_super,
};
use ndl_runtime::Datatype;

use crate::stored_type::{is_char, stored_type};

/// `Err((field, why))` where `stored` cannot give `wanted`.
pub(crate) fn compare(stored: &hdf5::Datatype, wanted: &Datatype) -> Result<(), (String, String)> {
    hdf5::sync::sync(|| walk(stored.id(), wanted, ""))
}

/// A type handle we own, closed on drop.
struct Owned(hid_t);

impl Drop for Owned {
    fn drop(&mut self) {
        // SAFETY: a handle the library gave us, closed once.
        unsafe { H5Tclose(self.0) };
    }
}

fn walk(stored: hid_t, wanted: &Datatype, field: &str) -> Result<(), (String, String)> {
    let fail = |why: String| Err((field.to_string(), why));
    // SAFETY: `stored` is an open type handle.
    let (class, size) = unsafe { (H5Tget_class(stored), H5Tget_size(stored)) };
    let text = match wanted {
        Datatype::Array(a) => a.base.as_ref(),
        other => other,
    };
    if class == H5T_class_t::H5T_ARRAY && matches!(text, Datatype::FixedString(_)) {
        // SAFETY: `stored` is an array type; its base is a new handle.
        let base = Owned(unsafe { H5Tget_super(stored) });
        if is_char(base.0) {
            // netCDF's characters of a string: read as netCDF types.
            return Ok(());
        }
    }
    let expected = class_of(wanted);
    if class != expected {
        return fail(format!(
            "stored as an HDF5 {}, asked for as {}",
            class_name(class),
            wanted.keyword().unwrap_or("a different kind of datatype")
        ));
    }
    match wanted {
        Datatype::Compound(c) => {
            for m in &c.members {
                let path = if field.is_empty() {
                    m.name.clone()
                } else {
                    format!("{field}.{}", m.name)
                };
                let Some(member) = member_type(stored, &m.name) else {
                    return Err((path, "the dataset's records have no such field".into()));
                };
                walk(member.0, &m.datatype, &path)?;
            }
            Ok(())
        }
        Datatype::Enum(_) | Datatype::Bool => {
            let ours: Vec<String> = match wanted {
                Datatype::Enum(e) => e.members.iter().map(|m| m.name.clone()).collect(),
                _ => vec!["FALSE".into(), "TRUE".into()],
            };
            if let Some(extra) = member_names(stored).into_iter().find(|n| !ours.contains(n)) {
                return fail(format!(
                    "the dataset's enum has a member `{extra}`, which the type asked for lacks"
                ));
            }
            match (stored_type(stored).map(|s| s.datatype), wanted) {
                (Ok(Datatype::Enum(file)), Datatype::Enum(ours)) => {
                    other_value(&file, ours).map_or(Ok(()), fail)
                }
                _ => Ok(()),
            }
        }
        Datatype::Array(a) => {
            // SAFETY: `stored` is an array type; its base is a new handle.
            let base = Owned(unsafe { H5Tget_super(stored) });
            walk(base.0, &a.base, field)
        }
        _ if matches!(class, H5T_class_t::H5T_INTEGER | H5T_class_t::H5T_FLOAT) => {
            let want = wanted.size().unwrap_or(0);
            if size > want {
                return fail(format!(
                    "stored in {size} bytes, more than the {want} asked for"
                ));
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Why a file's enum and the type's are not one: a member of the same
/// name with another value. Enums are matched by name and value in every
/// format that stores both; HDF5 would otherwise convert by name, and a
/// `.npy` or Zarr reader of the same records would see other numbers.
fn other_value(file: &ndl_runtime::Enum, ours: &ndl_runtime::Enum) -> Option<String> {
    file.members.iter().find_map(|m| {
        let theirs = ours.members.iter().find(|o| o.name == m.name)?;
        (theirs.value != m.value).then(|| {
            format!(
                "the dataset's enum gives `{}` the value {}, the type gives it {}",
                m.name, m.value, theirs.value
            )
        })
    })
}

/// The names of the members of the compound or enum `stored`, in order.
fn member_names(stored: hid_t) -> Vec<String> {
    // SAFETY: `stored` is an open compound or enum type.
    let n = unsafe { H5Tget_nmembers(stored) };
    (0..n.max(0) as u32)
        .map(|i| {
            // SAFETY: `i` is a member index; the name is the library's
            // allocation, read once and freed with its own free.
            unsafe {
                let raw = H5Tget_member_name(stored, i);
                if raw.is_null() {
                    return String::new();
                }
                let name = CStr::from_ptr(raw).to_string_lossy().into_owned();
                H5free_memory(raw.cast());
                name
            }
        })
        .collect()
}

/// The type of the member called `name` of the compound `stored`.
fn member_type(stored: hid_t, name: &str) -> Option<Owned> {
    let i = member_names(stored).iter().position(|n| n == name)?;
    // SAFETY: `i` is a member index; the type is a new handle we own.
    Some(Owned(unsafe { H5Tget_member_type(stored, i as u32) }))
}

fn class_of(dt: &Datatype) -> H5T_class_t {
    match dt {
        Datatype::Int8
        | Datatype::UInt8
        | Datatype::Int16
        | Datatype::UInt16
        | Datatype::Int32
        | Datatype::UInt32
        | Datatype::Int64
        | Datatype::UInt64 => H5T_class_t::H5T_INTEGER,
        Datatype::Float16 | Datatype::Float32 | Datatype::Float64 => H5T_class_t::H5T_FLOAT,
        Datatype::Bool | Datatype::Enum(_) => H5T_class_t::H5T_ENUM,
        Datatype::Complex64 | Datatype::Complex128 | Datatype::Compound(_) => {
            H5T_class_t::H5T_COMPOUND
        }
        Datatype::FixedString(_) => H5T_class_t::H5T_STRING,
        Datatype::Opaque(_) | Datatype::Time(_) => H5T_class_t::H5T_OPAQUE,
        Datatype::Array(_) => H5T_class_t::H5T_ARRAY,
        _ => H5T_class_t::H5T_NO_CLASS,
    }
}

fn class_name(class: H5T_class_t) -> &'static str {
    match class {
        H5T_class_t::H5T_INTEGER => "integer",
        H5T_class_t::H5T_FLOAT => "float",
        H5T_class_t::H5T_STRING => "string",
        H5T_class_t::H5T_BITFIELD => "bitfield",
        H5T_class_t::H5T_OPAQUE => "opaque",
        H5T_class_t::H5T_COMPOUND => "compound",
        H5T_class_t::H5T_REFERENCE => "reference",
        H5T_class_t::H5T_ENUM => "enum",
        H5T_class_t::H5T_VLEN => "vlen",
        H5T_class_t::H5T_ARRAY => "array",
        _ => "type of unknown class",
    }
}
