//! Every [`Datatype`] as the HDF5 type h5py writes for the same NumPy
//! dtype: compounds with our exact offsets and size, enums with their
//! base, bool as h5py's `FALSE`/`TRUE` enum, complex as the compound
//! `{r, i}`, `S<n>` as a null-padded ASCII string, opaque with its tag,
//! time as an opaque tagged `NUMPY:<M8[ns]`, and both byte orders.
//!
//! The types are built with the C library's `H5T` calls: hdf5-metno's
//! type descriptors cannot say byte order, opaque tags or
//! multi-dimensional array members.

use std::ffi::{CString, c_void};
use std::ops::Range;

use hdf5::globals::*;
use hdf5_sys::h5i::hid_t;
use hdf5_sys::h5l::H5Lexists;
use hdf5_sys::h5p::H5P_DEFAULT;
use hdf5_sys::h5t::{
    H5T_VARIABLE, H5T_class_t, H5T_cset_t, H5T_order_t, H5T_str_t, H5Tarray_create2, H5Tclose,
    H5Tcommit2, H5Tcopy, H5Tcreate, H5Tenum_create, H5Tenum_insert, H5Tinsert, H5Topen2,
    H5Tset_cset, H5Tset_ebias, H5Tset_fields, H5Tset_order, H5Tset_precision, H5Tset_size,
    H5Tset_strpad, H5Tset_tag, H5Tvlen_create,
};
use ndl_runtime::{ByteOrder, Charset, Datatype, IntType};

/// Why a datatype has no HDF5 type here, and where in it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{why}", if field.is_empty() { String::new() } else { format!("field `{field}`: ") })]
pub struct TypeError {
    /// The dotted path of the member, empty for the whole type.
    pub field: String,
    /// What is missing.
    pub why: String,
}

/// The byte order of each number of a type: `base`, but the numbers in the
/// byte ranges `other` (within the whole element) in the opposite order,
/// as a compound's members may each have their own. `at` is where the
/// part being built starts in the element.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Orders<'a> {
    base: ByteOrder,
    other: &'a [Range<usize>],
    at: usize,
}

impl<'a> Orders<'a> {
    /// Every number in `order`.
    pub fn one(order: ByteOrder) -> Orders<'static> {
        Orders::mixed(order, &[])
    }

    /// Numbers in `base`, those in the byte ranges `other` in the other.
    pub fn mixed(base: ByteOrder, other: &'a [Range<usize>]) -> Orders<'a> {
        Orders { base, other, at: 0 }
    }

    /// The order of the number where the part being built starts.
    fn here(self) -> ByteOrder {
        self.base.at(self.other, self.at)
    }

    /// The orders of the part `offset` bytes further on.
    fn at(self, offset: usize) -> Orders<'a> {
        Orders {
            at: self.at + offset,
            ..self
        }
    }

    /// The ranges of the other order within the `size` bytes of the part
    /// being built, from its start: with its first number's order, what
    /// tells two parts of one datatype apart.
    fn within(self, size: usize) -> (ByteOrder, Vec<Range<usize>>) {
        let end = self.at + size;
        let ranges = self
            .other
            .iter()
            .filter(|r| r.start < end && r.end > self.at)
            .map(|r| r.start.max(self.at) - self.at..r.end.min(end) - self.at)
            .collect();
        (self.here(), ranges)
    }
}

/// The HDF5 type of `dt` with every multi-byte number in `order`.
///
/// ```
/// use ndl_runtime::{ByteOrder, Compound, Datatype};
///
/// let rec = Compound::c_layout([("id", Datatype::UInt8), ("t", Datatype::Float64)]).unwrap();
/// let t = ndl_hdf5::hdf5_type(&Datatype::Compound(rec), ByteOrder::Little).unwrap();
/// assert_eq!(t.size(), 16);
/// assert!(ndl_hdf5::hdf5_type(&Datatype::String, ByteOrder::Little).is_err());
/// ```
pub fn hdf5_type(dt: &Datatype, order: ByteOrder) -> Result<hdf5::Datatype, TypeError> {
    profile_type(dt, Orders::one(order), false)
}

/// The HDF5 type of `dt` in `order`, netCDF-4's with `netcdf` (see
/// [`commit_type`]), not committed: the memory type of a netCDF variable.
pub(crate) fn profile_type(
    dt: &Datatype,
    orders: Orders<'_>,
    netcdf: bool,
) -> Result<hdf5::Datatype, TypeError> {
    hdf5::sync::sync(|| Built::build(dt, orders, "", netcdf, None)?.into_datatype(""))
}

/// HDF5's variable-length UTF-8 string type: h5py's `string_dtype()`,
/// netCDF-4's `string`.
pub(crate) fn variable_utf8() -> Result<hdf5::Datatype, TypeError> {
    hdf5::sync::sync(|| utf8_string("")?.into_datatype(""))
}

/// The type of `dt` in `order`, committed to `file` under `name` when it
/// is a user-defined type (a number or a string is not: netCDF-C fails on
/// a file holding a committed atomic type, where h5py commits none), with
/// every user-defined type inside it (enums, bools, nested compounds,
/// complex numbers, opaque) committed first, each once, under its
/// member's name (`<member>_t`, `_2`, `_3` … before `_t` when another
/// definition holds the name; `bool_t` for bools and nc-complex's
/// `_PFNC_FLOAT_COMPLEX_TYPE` / `_PFNC_DOUBLE_COMPLEX_TYPE`, as the CDL
/// description names them): netCDF-C reads a compound only when its
/// member types are committed types.
///
/// With `netcdf`, the type is netCDF-4's: a fixed string inside a compound
/// is an array of characters (netCDF-C reads a longer string member as
/// one character), and f16, which netCDF has no type for, is refused.
pub(crate) fn commit_type(
    file: &hdf5::File,
    name: &str,
    dt: &Datatype,
    orders: Orders<'_>,
    netcdf: bool,
) -> Result<hdf5::Datatype, TypeError> {
    hdf5::sync::sync(|| {
        let mut committer = Committer {
            file: file.id(),
            named: Vec::new(),
        };
        let id = Built::build(dt, orders, "", netcdf, Some(&mut committer))?;
        if is_user_defined(dt) {
            // A member's type may have taken the name (a record `when_t`
            // of a time field `when`, itself `when_t`).
            let name = committer.free_name(name, "")?;
            committer.commit(&id, &name, "")?;
        }
        id.into_datatype("")
    })
}

/// The types of one file's variables, each user-defined type in them
/// committed once, as [`commit_type`] commits a record's member types.
pub(crate) struct FileTypes(Committer);

impl FileTypes {
    pub fn new(file: &hdf5::File) -> FileTypes {
        FileTypes(Committer {
            file: file.id(),
            named: Vec::new(),
        })
    }

    /// The netCDF-4 type of the variable `name` of `dt` in `order`: a
    /// user-defined type committed under `<name>_t` (`bool_t`, ...), or
    /// the one committed before for the same definition.
    pub fn netcdf(
        &mut self,
        dt: &Datatype,
        order: ByteOrder,
        name: &str,
    ) -> Result<hdf5::Datatype, TypeError> {
        hdf5::sync::sync(|| {
            let id = Built::build(dt, Orders::one(order), name, true, Some(&mut self.0))?;
            id.into_datatype(name)
        })
    }
}

/// A datatype with the order of its first number and the ranges of the
/// other order within it.
type TypeKey = (Datatype, (ByteOrder, Vec<Range<usize>>));

/// The user-defined types committed to one file so far.
struct Committer {
    file: hid_t,
    /// Each committed definition, by datatype and the orders of its
    /// numbers, and its name.
    named: Vec<(TypeKey, String)>,
}

impl Committer {
    fn commit(&mut self, t: &Built, name: &str, field: &str) -> Result<(), TypeError> {
        let c_name = c_name(name, field)?;
        // SAFETY: `t` is a transient type we own; the file is open.
        let status = unsafe {
            H5Tcommit2(
                self.file,
                c_name.as_ptr(),
                t.0,
                H5P_DEFAULT,
                H5P_DEFAULT,
                H5P_DEFAULT,
            )
        };
        check(status, field, "H5Tcommit2")
    }

    /// `name` (`<stem>_t`) where no type or object has it, else the first
    /// free `<stem>_<k>_t`.
    fn free_name(&self, name: &str, field: &str) -> Result<String, TypeError> {
        self.free_name_from(name, name.trim_end_matches("_t"), field)
    }

    fn free_name_from(&self, first: &str, stem: &str, field: &str) -> Result<String, TypeError> {
        let mut name = first.to_string();
        for k in 2.. {
            if !self.named.iter().any(|(_, n)| *n == name) && !self.holds(&name, field)? {
                break;
            }
            name = format!("{stem}_{k}_t");
        }
        Ok(name)
    }

    /// Whether the file's root group holds a link `name` already: a type
    /// another variable's committer named, or an object.
    fn holds(&self, name: &str, field: &str) -> Result<bool, TypeError> {
        let c = c_name(name, field)?;
        // SAFETY: the file is open; `c` is a C string.
        let found = unsafe { H5Lexists(self.file, c.as_ptr(), H5P_DEFAULT) };
        match found {
            n if n < 0 => Err(TypeError {
                field: field.to_string(),
                why: "H5Lexists failed".into(),
            }),
            n => Ok(n > 0),
        }
    }

    /// The committed type of the member at `field` of datatype `dt`, built
    /// by `build`: the one committed before for the same definition, or a
    /// new one under a free name.
    fn member(
        &mut self,
        dt: &Datatype,
        orders: Orders<'_>,
        field: &str,
        build: impl FnOnce(&mut Committer) -> Result<Built, TypeError>,
    ) -> Result<Built, TypeError> {
        let key = (dt.clone(), orders.within(dt.size().unwrap_or(0)));
        if let Some((_, name)) = self.named.iter().find(|(k, _)| *k == key) {
            let c = c_name(name, field)?;
            // SAFETY: opening a type this committer committed to the file.
            let id = unsafe { H5Topen2(self.file, c.as_ptr(), H5P_DEFAULT) };
            return check_id(id, field, "H5Topen2");
        }
        let t = build(self)?;
        let stem = field.rsplit('.').next().unwrap_or(field);
        let (first, stem) = match well_known_name(dt) {
            Some(name) => (name.to_string(), name.trim_end_matches("_t")),
            None => (format!("{stem}_t"), stem),
        };
        let name = self.free_name_from(&first, stem, field)?;
        self.commit(&t, &name, field)?;
        self.named.push((key, name));
        Ok(t)
    }
}

/// Whether `dt` is a user-defined type of netCDF-4, which netCDF-C reads
/// only when committed.
pub(crate) fn is_user_defined(dt: &Datatype) -> bool {
    matches!(
        dt,
        Datatype::Bool
            | Datatype::Enum(_)
            | Datatype::Compound(_)
            | Datatype::Complex64
            | Datatype::Complex128
            | Datatype::Opaque(_)
            | Datatype::Time(_)
            | Datatype::Vlen(_)
    )
}

/// The dotted path of the first field of the record `dt` that is an enum
/// or a bool (or an array of them), at any depth: netCDF4-python (and
/// xarray through it) skips a compound variable holding one, with a
/// warning, though `ncdump` and netCDF-C read it. `None` for a type that
/// is no compound, or holds none.
///
/// ```
/// use ndl_runtime::{Compound, Datatype};
///
/// let inner = Compound::c_layout([("ok", Datatype::Bool)]).unwrap();
/// let rec = Compound::c_layout([("x", Datatype::Float64), ("pos", Datatype::Compound(inner))]).unwrap();
/// assert_eq!(ndl_hdf5::netcdf4_python_skips(&Datatype::Compound(rec)).as_deref(), Some("pos.ok"));
/// assert_eq!(ndl_hdf5::netcdf4_python_skips(&Datatype::Bool), None);
/// ```
pub fn netcdf4_python_skips(dt: &Datatype) -> Option<String> {
    let Datatype::Compound(c) = dt else {
        return None;
    };
    c.members.iter().find_map(|m| {
        let mut base = &m.datatype;
        while let Datatype::Array(a) = base {
            base = &a.base;
        }
        match base {
            Datatype::Enum(_) | Datatype::Bool => Some(m.name.clone()),
            inner => netcdf4_python_skips(inner).map(|path| format!("{}.{path}", m.name)),
        }
    })
}

/// The name a type is committed under wherever it is, as the CDL
/// description names it: h5py's bool, and nc-complex's compounds, which
/// netCDF tools know as complex numbers.
pub(crate) fn well_known_name(dt: &Datatype) -> Option<&'static str> {
    match dt {
        Datatype::Bool => Some("bool_t"),
        Datatype::Complex64 => Some("_PFNC_FLOAT_COMPLEX_TYPE"),
        Datatype::Complex128 => Some("_PFNC_DOUBLE_COMPLEX_TYPE"),
        _ => None,
    }
}

/// A type handle being built, closed on drop unless handed over.
struct Built(hid_t);

impl Drop for Built {
    fn drop(&mut self) {
        if self.0 >= 0 {
            // SAFETY: a handle we created and still own.
            unsafe { H5Tclose(self.0) };
        }
    }
}

impl Built {
    fn into_raw(mut self) -> hid_t {
        std::mem::replace(&mut self.0, -1)
    }

    /// The handle as the hdf5 crate's datatype, which takes over its
    /// reference; an error names `field`.
    fn into_datatype(self, field: &str) -> Result<hdf5::Datatype, TypeError> {
        // SAFETY: `self` is a type handle that we own; the datatype takes
        // over its single reference.
        unsafe { hdf5::from_id::<hdf5::Datatype>(self.into_raw()) }.map_err(|e| TypeError {
            field: field.to_string(),
            why: e.to_string(),
        })
    }

    /// The type of `dt` at member path `field`; with a `committer`, every
    /// user-defined type inside it is committed.
    fn build(
        dt: &Datatype,
        orders: Orders<'_>,
        field: &str,
        netcdf: bool,
        mut committer: Option<&mut Committer>,
    ) -> Result<Built, TypeError> {
        let user_defined = is_user_defined(dt);
        match committer.as_deref_mut() {
            Some(c) if user_defined && !field.is_empty() => c.member(dt, orders, field, |c| {
                Built::transient(dt, orders, field, netcdf, Some(c))
            }),
            _ => Built::transient(dt, orders, field, netcdf, committer),
        }
    }

    /// The type of `dt` itself, not committed; its members as
    /// [`build`](Built::build) makes them.
    fn transient(
        dt: &Datatype,
        orders: Orders<'_>,
        field: &str,
        netcdf: bool,
        committer: Option<&mut Committer>,
    ) -> Result<Built, TypeError> {
        let order = orders.here();
        let fail = |why: &str| TypeError {
            field: field.to_string(),
            why: why.to_string(),
        };
        let id = match dt {
            Datatype::Float16 if netcdf => {
                return Err(fail(
                    "netCDF-4 has no 16-bit float (netCDF4-python fails to open a file holding one); write an .h5 file",
                ));
            }
            Datatype::FixedString(s)
                if netcdf && !field.is_empty() && s.charset == Charset::Ascii =>
            {
                characters(&[s.length as u64], field)?
            }
            Datatype::Array(a) if netcdf => match a.base.as_ref() {
                Datatype::FixedString(s) if s.charset == Charset::Ascii => {
                    let mut dims: Vec<u64> = a.shape.iter().map(|&d| d as u64).collect();
                    dims.push(s.length as u64);
                    characters(&dims, field)?
                }
                _ => array(a, orders, field, netcdf, committer)?,
            },
            Datatype::Int8 => copy(*H5T_STD_I8LE, field)?,
            Datatype::UInt8 => copy(*H5T_STD_U8LE, field)?,
            Datatype::Int16 => ordered(*H5T_STD_I16LE, order, field)?,
            Datatype::UInt16 => ordered(*H5T_STD_U16LE, order, field)?,
            Datatype::Int32 => ordered(*H5T_STD_I32LE, order, field)?,
            Datatype::UInt32 => ordered(*H5T_STD_U32LE, order, field)?,
            Datatype::Int64 => ordered(*H5T_STD_I64LE, order, field)?,
            Datatype::UInt64 => ordered(*H5T_STD_U64LE, order, field)?,
            Datatype::Float32 => ordered(*H5T_IEEE_F32LE, order, field)?,
            Datatype::Float64 => ordered(*H5T_IEEE_F64LE, order, field)?,
            Datatype::Float16 => half(order, field)?,
            Datatype::Bool => {
                enumeration(IntType::Int8, &[("FALSE", 0), ("TRUE", 1)], order, field)?
            }
            Datatype::Enum(e) => {
                let members: Vec<(&str, i128)> = e
                    .members
                    .iter()
                    .map(|m| (m.name.as_str(), m.value))
                    .collect();
                enumeration(e.base, &members, order, field)?
            }
            Datatype::Complex64 | Datatype::Complex128 => {
                let part = if *dt == Datatype::Complex64 {
                    Datatype::Float32
                } else {
                    Datatype::Float64
                };
                let half = part.size().unwrap_or(0);
                let c = ndl_runtime::Compound {
                    size: 2 * half,
                    members: vec![
                        ndl_runtime::Member::new("r", 0, part.clone()),
                        ndl_runtime::Member::new("i", half, part),
                    ],
                };
                compound(&c, orders, field, netcdf, committer)?
            }
            Datatype::FixedString(s) if s.charset == Charset::Ascii => string(s.length, field)?,
            Datatype::FixedString(_) => {
                return Err(fail(
                    "NumPy's `U` (UTF-32) has no HDF5 type; h5py refuses it too",
                ));
            }
            Datatype::Opaque(o) => opaque(o.size, o.tag.as_deref(), field)?,
            Datatype::Time(t) => {
                let tag = format!(
                    "NUMPY:{}{t}",
                    if order == ByteOrder::Big { '>' } else { '<' }
                );
                opaque(8, Some(&tag), field)?
            }
            Datatype::Array(a) => array(a, orders, field, netcdf, committer)?,
            Datatype::Compound(c) => compound(c, orders, field, netcdf, committer)?,
            Datatype::Vlen(base) => vlen(base, order, field, netcdf, committer)?,
            _ => {
                return Err(fail(
                    "variable-length and reference datatypes are not written to HDF5 here",
                ));
            }
        };
        Ok(id)
    }
}

/// Checks that an element of `size` bytes has an HDF5 type: HDF5 has none
/// of 0 bytes, and keeps a type's size in 32 bits (a size of `usize::MAX` would even
/// make a fixed string variable-length).
fn sized(size: usize, what: &str, field: &str) -> Result<(), TypeError> {
    let why = match size {
        0 => format!("{what} of no bytes has no HDF5 type"),
        n if n > u32::MAX as usize => {
            format!("{what} of {n} bytes is larger than HDF5's largest type (4 GiB)")
        }
        _ => return Ok(()),
    };
    Err(TypeError {
        field: field.to_string(),
        why,
    })
}

fn check_id(id: hid_t, field: &str, call: &str) -> Result<Built, TypeError> {
    if id < 0 {
        return Err(TypeError {
            field: field.to_string(),
            why: format!("{call} failed"),
        });
    }
    Ok(Built(id))
}

fn check(status: i32, field: &str, call: &str) -> Result<(), TypeError> {
    if status < 0 {
        return Err(TypeError {
            field: field.to_string(),
            why: format!("{call} failed"),
        });
    }
    Ok(())
}

fn copy(base: hid_t, field: &str) -> Result<Built, TypeError> {
    // SAFETY: `base` is one of the library's predefined types.
    check_id(unsafe { H5Tcopy(base) }, field, "H5Tcopy")
}

/// A copy of a little-endian predefined type in `order`.
fn ordered(base: hid_t, order: ByteOrder, field: &str) -> Result<Built, TypeError> {
    let t = copy(base, field)?;
    set_order(&t, order, field)?;
    Ok(t)
}

fn set_order(t: &Built, order: ByteOrder, field: &str) -> Result<(), TypeError> {
    let o = match order {
        ByteOrder::Big => H5T_order_t::H5T_ORDER_BE,
        ByteOrder::Little => H5T_order_t::H5T_ORDER_LE,
    };
    // SAFETY: `t` is an atomic type we own.
    check(unsafe { H5Tset_order(t.0, o) }, field, "H5Tset_order")
}

/// IEEE half precision, built as h5py builds it: a float of 16 bits, sign
/// bit 15, exponent at 10 of 5 bits, mantissa at 0 of 10, bias 15.
fn half(order: ByteOrder, field: &str) -> Result<Built, TypeError> {
    let t = copy(*H5T_IEEE_F32LE, field)?;
    // SAFETY: `t` is a float type we own; the fields fit 16 bits, set
    // before the size and precision shrink to them.
    unsafe {
        check(H5Tset_fields(t.0, 15, 10, 5, 0, 10), field, "H5Tset_fields")?;
        check(H5Tset_size(t.0, 2), field, "H5Tset_size")?;
        check(H5Tset_precision(t.0, 16), field, "H5Tset_precision")?;
        check(H5Tset_ebias(t.0, 15), field, "H5Tset_ebias")?;
    }
    set_order(&t, order, field)?;
    Ok(t)
}

fn int_base(base: IntType, order: ByteOrder, field: &str) -> Result<Built, TypeError> {
    match base {
        IntType::Int8 => copy(*H5T_STD_I8LE, field),
        IntType::UInt8 => copy(*H5T_STD_U8LE, field),
        IntType::Int16 => ordered(*H5T_STD_I16LE, order, field),
        IntType::UInt16 => ordered(*H5T_STD_U16LE, order, field),
        IntType::Int32 => ordered(*H5T_STD_I32LE, order, field),
        IntType::UInt32 => ordered(*H5T_STD_U32LE, order, field),
        IntType::Int64 => ordered(*H5T_STD_I64LE, order, field),
        IntType::UInt64 => ordered(*H5T_STD_U64LE, order, field),
    }
}

/// An enum of `base`; each value is given to the library in the base's
/// own layout (its size and `order`), as `H5Tenum_insert` takes it.
fn enumeration(
    base: IntType,
    members: &[(&str, i128)],
    order: ByteOrder,
    field: &str,
) -> Result<Built, TypeError> {
    if members.is_empty() {
        // The library crashes on one inside a compound.
        return Err(TypeError {
            field: field.to_string(),
            why: "an enum with no members has no HDF5 type".into(),
        });
    }
    let base_type = int_base(base, order, field)?;
    // SAFETY: `base_type` is an integer type we own.
    let t = check_id(
        unsafe { H5Tenum_create(base_type.0) },
        field,
        "H5Tenum_create",
    )?;
    let size = Datatype::from(base).size().unwrap_or(1);
    for &(name, value) in members {
        let mut bytes = match order {
            ByteOrder::Big => value.to_be_bytes()[16 - size..].to_vec(),
            ByteOrder::Little => value.to_le_bytes()[..size].to_vec(),
        };
        let name = c_name(name, field)?;
        // SAFETY: `bytes` holds one value of the enum's base, in its order.
        let status =
            unsafe { H5Tenum_insert(t.0, name.as_ptr(), bytes.as_mut_ptr() as *const c_void) };
        check(status, field, "H5Tenum_insert")?;
    }
    Ok(t)
}

/// An array of `a.shape` elements of its base.
/// Every element is in the orders of the first: HDF5 arrays have one type.
fn array(
    a: &ndl_runtime::Array,
    orders: Orders<'_>,
    field: &str,
    netcdf: bool,
    committer: Option<&mut Committer>,
) -> Result<Built, TypeError> {
    let base = Built::build(&a.base, orders, field, netcdf, committer)?;
    let dims: Vec<u64> = a.shape.iter().map(|&d| d as u64).collect();
    array_of(&base, &dims, field)
}

/// A variable-length sequence of `base` (netCDF-4's `NC_VLEN`), its items
/// in `order`; a sequence of strings holds variable-length UTF-8 ones, as
/// h5py writes them. A user-defined base of a sequence at the top is
/// committed as `element_t`: netCDF-C reads a vlen whose base is named.
fn vlen(
    base: &Datatype,
    order: ByteOrder,
    field: &str,
    netcdf: bool,
    committer: Option<&mut Committer>,
) -> Result<Built, TypeError> {
    let item_field = match field {
        "" => "element".to_string(),
        f => format!("{f}.element"),
    };
    let item = match base {
        Datatype::String => utf8_string(field)?,
        Datatype::Optional(_) | Datatype::ObjRef | Datatype::RegRef(_) => {
            return Err(TypeError {
                field: field.to_string(),
                why: format!(
                    "a sequence of {} has no HDF5 type here",
                    base.keyword().unwrap_or("this datatype")
                ),
            });
        }
        _ => Built::build(base, Orders::one(order), &item_field, netcdf, committer)?,
    };
    // SAFETY: `item` is a type handle we own; the library copies it.
    check_id(unsafe { H5Tvlen_create(item.0) }, field, "H5Tvlen_create")
}

/// A variable-length UTF-8 string (a `char*` in memory), h5py's `str`.
fn utf8_string(field: &str) -> Result<Built, TypeError> {
    let t = copy(*H5T_C_S1, field)?;
    // SAFETY: `t` is a string type we own.
    unsafe {
        check(H5Tset_size(t.0, H5T_VARIABLE), field, "H5Tset_size")?;
        check(
            H5Tset_cset(t.0, H5T_cset_t::H5T_CSET_UTF8),
            field,
            "H5Tset_cset",
        )?;
    }
    Ok(t)
}

fn array_of(base: &Built, dims: &[u64], field: &str) -> Result<Built, TypeError> {
    // SAFETY: `dims` holds `rank` extents and outlives the call.
    let id = unsafe { H5Tarray_create2(base.0, dims.len() as u32, dims.as_ptr()) };
    check_id(id, field, "H5Tarray_create2")
}

/// netCDF's `char` as a type handle.
pub(crate) fn netcdf_char() -> Result<hdf5::Datatype, TypeError> {
    hdf5::sync::sync(|| character("")?.into_datatype(""))
}

/// netCDF's `char`: a null-terminated ASCII string of one byte.
fn character(field: &str) -> Result<Built, TypeError> {
    let t = copy(*H5T_C_S1, field)?;
    // SAFETY: `t` is a string type we own.
    check(
        unsafe { H5Tset_cset(t.0, H5T_cset_t::H5T_CSET_ASCII) },
        field,
        "H5Tset_cset",
    )?;
    Ok(t)
}

/// An array of `dims` netCDF characters, the last the string's length.
fn characters(dims: &[u64], field: &str) -> Result<Built, TypeError> {
    array_of(&character(field)?, dims, field)
}

/// A null-padded ASCII string of `length` bytes, NumPy's `S<length>`.
fn string(length: usize, field: &str) -> Result<Built, TypeError> {
    sized(length, "a fixed string", field)?;
    let t = copy(*H5T_C_S1, field)?;
    // SAFETY: `t` is a string type we own.
    unsafe {
        check(H5Tset_size(t.0, length), field, "H5Tset_size")?;
        check(
            H5Tset_strpad(t.0, H5T_str_t::H5T_STR_NULLPAD),
            field,
            "H5Tset_strpad",
        )?;
        check(
            H5Tset_cset(t.0, H5T_cset_t::H5T_CSET_ASCII),
            field,
            "H5Tset_cset",
        )?;
    }
    Ok(t)
}

fn opaque(size: usize, tag: Option<&str>, field: &str) -> Result<Built, TypeError> {
    sized(size, "an opaque value", field)?;
    // SAFETY: creating a new opaque type of `size` bytes.
    let t = check_id(
        unsafe { H5Tcreate(H5T_class_t::H5T_OPAQUE, size) },
        field,
        "H5Tcreate",
    )?;
    if let Some(tag) = tag {
        let tag = c_name(tag, field)?;
        // SAFETY: `t` is our opaque type; the tag is a C string.
        check(
            unsafe { H5Tset_tag(t.0, tag.as_ptr()) },
            field,
            "H5Tset_tag",
        )?;
    }
    Ok(t)
}

/// A compound of `c`'s exact size with each member at its offset.
fn compound(
    c: &ndl_runtime::Compound,
    orders: Orders<'_>,
    field: &str,
    netcdf: bool,
    mut committer: Option<&mut Committer>,
) -> Result<Built, TypeError> {
    if c.members.is_empty() || c.size == 0 {
        return Err(TypeError {
            field: field.to_string(),
            why: "HDF5 compounds have at least one member and one byte".into(),
        });
    }
    // SAFETY: creating a new compound type of `c.size` bytes.
    let t = check_id(
        unsafe { H5Tcreate(H5T_class_t::H5T_COMPOUND, c.size) },
        field,
        "H5Tcreate",
    )?;
    for m in &c.members {
        let path = if field.is_empty() {
            m.name.clone()
        } else {
            format!("{field}.{}", m.name)
        };
        let at = orders.at(m.offset);
        let member = Built::build(&m.datatype, at, &path, netcdf, committer.as_deref_mut())?;
        let name = c_name(&m.name, &path)?;
        // SAFETY: `member` is a type we own, copied into the compound.
        let status = unsafe { H5Tinsert(t.0, name.as_ptr(), m.offset, member.0) };
        check(status, &path, "H5Tinsert")?;
    }
    Ok(t)
}

fn c_name(name: &str, field: &str) -> Result<CString, TypeError> {
    CString::new(name).map_err(|_| TypeError {
        field: field.to_string(),
        why: format!("the name {name:?} holds a NUL byte, which HDF5 names cannot"),
    })
}

#[cfg(test)]
mod tests {
    use ndl_runtime::{Compound, Enum, FixedString, Member, Opaque};

    use super::*;

    fn why(dt: &Datatype) -> String {
        profile_type(dt, Orders::one(ByteOrder::Little), false)
            .unwrap_err()
            .to_string()
    }

    /// Types HDF5 has none for are refused before the library is asked: it
    /// crashed on an empty enum inside a compound, and took a fixed string
    /// of `usize::MAX` bytes for a variable-length one.
    #[test]
    fn types_of_no_bytes_or_past_4_gib_and_empty_enums_are_refused() {
        let empty = Datatype::Enum(Enum {
            base: IntType::Int8,
            members: Vec::new(),
        });
        let compound = Datatype::Compound(Compound {
            size: 1,
            members: vec![Member::new("x", 0, empty)],
        });
        assert_eq!(
            why(&compound),
            "field `x`: an enum with no members has no HDF5 type"
        );
        let string = |length| {
            Datatype::FixedString(FixedString {
                length,
                charset: Charset::Ascii,
            })
        };
        assert!(why(&string(0)).contains("a fixed string of no bytes"));
        assert!(why(&string(usize::MAX)).contains("larger than HDF5's largest type"));
        let opaque = Datatype::Opaque(Opaque { size: 0, tag: None });
        assert!(why(&opaque).contains("an opaque value of no bytes"));
        assert!(profile_type(&string(3), Orders::one(ByteOrder::Little), false).is_ok());
    }
}
