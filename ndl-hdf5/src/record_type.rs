//! The HDF5 shape of a [`Record`] with variable-length members: a compound
//! whose `String`s are variable-length UTF-8 strings (a `char*` in
//! memory), whose `Vec`s are `H5T_VLEN` sequences (an `hvl_t`), nested
//! records nested compounds and `[T; N]` arrays, laid out in memory with
//! C's alignment. An `Option` is its value's type holding the field's
//! fill for `None`.
//!
//! The layout is read off the empty column the record's
//! [`Columns`](ndl_runtime::record::Columns) build: it names every field,
//! the kind of every value and each option's fill, which the record's
//! [`Datatype`] does not.

use std::ffi::CString;

use hdf5_sys::h5i::hid_t;
use hdf5_sys::h5t::{
    H5T_C_S1, H5T_VARIABLE, H5T_class_t, H5T_cset_t, H5Tarray_create2, H5Tclose, H5Tcopy,
    H5Tcreate, H5Tget_class, H5Tget_cset, H5Tget_member_index, H5Tget_member_name,
    H5Tget_member_type, H5Tget_nmembers, H5Tget_super, H5Tinsert, H5Tis_variable_str, H5Tpack,
    H5Tset_cset, H5Tset_size, H5Tvlen_create,
};
use ndl_runtime::record::{Column, Columns, Values};
use ndl_runtime::{ByteOrder, Datatype, Record};

use crate::h5type::{Orders, TypeError, profile_type};
use crate::raw_io::failed;

/// The memory layout of one value of a record or of a member.
#[derive(Clone, Debug)]
pub(crate) enum Node {
    /// A fixed-size value stored as its bytes: a number or an enum's
    /// integer ([`Column::Values`]), a `bool` (one byte), other packed
    /// values ([`Column::Plain`]). `template` is the empty column of its
    /// kind.
    Fixed {
        size: usize,
        datatype: Datatype,
        template: Column,
    },
    /// A `char*` to a NUL-terminated UTF-8 string.
    String,
    /// An `hvl_t`: a length and a pointer to that many items.
    Vlen(Box<Node>),
    /// `len` items back to back.
    Array { len: usize, item: Box<Node> },
    /// Named members at offsets, C's layout.
    Struct {
        size: usize,
        align: usize,
        fields: Vec<(String, usize, Node)>,
    },
    /// A value whose `None` is stored as `fill`, a one-record column.
    Optional { value: Box<Node>, fill: Box<Column> },
}

const POINTER: usize = std::mem::size_of::<usize>();

impl Node {
    /// The layout of `T`, or the dotted path of a field that HDF5 cannot
    /// hold and why (an `Option` with no fill).
    pub(crate) fn of<T: Record>() -> Result<Node, TypeError> {
        Node::from_column(&T::Columns::with_capacity(0).finish(), "")
    }

    /// The layout of the values of `column` (an empty column will do),
    /// `path` the dotted field it is, for errors.
    pub(crate) fn from_column(column: &Column, path: &str) -> Result<Node, TypeError> {
        let fixed = |datatype: Datatype, size: usize| Node::Fixed {
            size,
            datatype,
            template: column.clone(),
        };
        Ok(match column {
            Column::Values { datatype, values } => fixed(datatype.clone(), value_size(values)),
            Column::Bool(_) => fixed(Datatype::Bool, 1),
            Column::Plain { datatype, .. } => {
                let size = datatype
                    .size()
                    .filter(|&n| n > 0)
                    .ok_or_else(|| TypeError {
                        field: path.to_string(),
                        why: "a packed value without a size of one or more bytes".into(),
                    })?;
                fixed(datatype.clone(), size)
            }
            Column::Strings { .. } => Node::String,
            Column::List { values, .. } => Node::Vlen(Box::new(Node::from_column(values, path)?)),
            Column::FixedList { size, values } => Node::Array {
                len: *size,
                item: Box::new(Node::from_column(values, path)?),
            },
            Column::Struct { fields, .. } => struct_node(fields, path)?,
            Column::Nullable { values, fill, .. } => {
                let Some(fill) = fill else {
                    return Err(TypeError {
                        field: path.to_string(),
                        why: "an `Option` needs a value to stand for `None` in HDF5, which has \
                              no nulls: add `#[ndl(fill = ...)]` to the field"
                            .into(),
                    });
                };
                Node::Optional {
                    value: Box::new(Node::from_column(values, path)?),
                    fill: fill.clone(),
                }
            }
            _ => {
                return Err(TypeError {
                    field: path.to_string(),
                    why: "a kind of column HDF5 records do not hold".into(),
                });
            }
        })
    }

    /// The bytes of one value in memory.
    pub(crate) fn size(&self) -> usize {
        match self {
            Node::Fixed { size, .. } => *size,
            Node::String => POINTER,
            Node::Vlen(_) => 2 * POINTER,
            Node::Array { len, item } => len * item.size(),
            Node::Struct { size, .. } => *size,
            Node::Optional { value, .. } => value.size(),
        }
    }

    fn align(&self) -> usize {
        match self {
            Node::Fixed {
                size,
                template: Column::Values { .. },
                ..
            } => *size,
            Node::Fixed { .. } => 1,
            Node::String | Node::Vlen(_) => POINTER,
            Node::Array { item, .. } => item.align(),
            Node::Struct { align, .. } => *align,
            Node::Optional { value, .. } => value.align(),
        }
    }

    /// The HDF5 memory type of the layout.
    pub(crate) fn memory_type(&self) -> Result<hdf5::Datatype, TypeError> {
        self.memory_type_of(None)
    }

    /// The HDF5 memory type of the layout for reading the type `stored`:
    /// each string of the character set it is stored in. HDF5 converts
    /// no variable-length string of one set to the other (h5py's
    /// `string_dtype('ascii')` is stored ASCII), and the bytes are the
    /// same: the reader checks they are UTF-8.
    pub(crate) fn reading(&self, stored: &hdf5::Datatype) -> Result<hdf5::Datatype, TypeError> {
        self.memory_type_of(Some(stored.id()))
    }

    fn memory_type_of(&self, stored: Option<hid_t>) -> Result<hdf5::Datatype, TypeError> {
        hdf5::sync::sync(|| self.build("", stored)).and_then(|t| {
            // SAFETY: a new type handle we own, handed over to its owner.
            unsafe { hdf5::from_id::<hdf5::Datatype>(t.into_raw()) }.map_err(library(""))
        })
    }

    /// The type stored in the file: the memory type without padding.
    pub(crate) fn file_type(memory: &hdf5::Datatype) -> hdf5::Result<hdf5::Datatype> {
        hdf5::sync::sync(|| {
            // SAFETY: copying an open type gives a handle we own, which
            // is then only packed and handed over.
            unsafe {
                let copy = Owned(H5Tcopy(memory.id()));
                if copy.0 < 0 || H5Tpack(copy.0) < 0 {
                    return Err(failed());
                }
                hdf5::from_id::<hdf5::Datatype>(copy.into_raw())
            }
        })
    }

    /// Builds the memory type, each string in the character set of its
    /// counterpart in `stored` where there is one, else UTF-8.
    fn build(&self, path: &str, stored: Option<hid_t>) -> Result<Owned, TypeError> {
        let fail = || library(path)(failed());
        // SAFETY (every call below): the handles passed are open types we
        // own or predefined ones; each new handle is owned by an `Owned`.
        unsafe {
            match self {
                Node::Fixed { datatype, .. } => {
                    let t = profile_type(datatype, Orders::one(ByteOrder::NATIVE), false)
                        .map_err(|e| within(path, e))?;
                    let copy = Owned(H5Tcopy(t.id()));
                    (copy.0 >= 0).then_some(copy).ok_or_else(fail)
                }
                Node::String => {
                    let cset = stored
                        .filter(|&s| H5Tget_class(s) == H5T_class_t::H5T_STRING)
                        .map_or(H5T_cset_t::H5T_CSET_UTF8, |s| H5Tget_cset(s));
                    let cset = match cset {
                        H5T_cset_t::H5T_CSET_ASCII => cset,
                        _ => H5T_cset_t::H5T_CSET_UTF8,
                    };
                    let t = Owned(H5Tcopy(*H5T_C_S1));
                    if t.0 < 0 || H5Tset_size(t.0, H5T_VARIABLE) < 0 || H5Tset_cset(t.0, cset) < 0 {
                        return Err(fail());
                    }
                    Ok(t)
                }
                Node::Vlen(item) => {
                    let base = item.build(path, part_of(stored, H5T_class_t::H5T_VLEN).id())?;
                    let t = Owned(H5Tvlen_create(base.0));
                    (t.0 >= 0).then_some(t).ok_or_else(fail)
                }
                Node::Array { len, item } => {
                    let base = item.build(path, part_of(stored, H5T_class_t::H5T_ARRAY).id())?;
                    let dims = [*len as u64];
                    let t = Owned(H5Tarray_create2(base.0, 1, dims.as_ptr()));
                    (t.0 >= 0).then_some(t).ok_or_else(fail)
                }
                Node::Struct { size, fields, .. } => {
                    let t = Owned(H5Tcreate(H5T_class_t::H5T_COMPOUND, (*size).max(1)));
                    if t.0 < 0 {
                        return Err(fail());
                    }
                    for (name, offset, node) in fields {
                        let inner = dotted(path, name);
                        let counterpart = member_of(stored, name);
                        let member = node.build(&inner, counterpart.id())?;
                        let c_name = CString::new(name.as_str()).map_err(|_| TypeError {
                            field: inner.clone(),
                            why: "a name holding a NUL byte".into(),
                        })?;
                        if H5Tinsert(t.0, c_name.as_ptr(), *offset, member.0) < 0 {
                            return Err(library(&inner)(failed()));
                        }
                    }
                    Ok(t)
                }
                Node::Optional { value, .. } => value.build(path, stored),
            }
        }
    }

    /// Checks that the stored type `stored` has every member this layout
    /// reads, by name, and variable-length strings and sequences where it
    /// has them: HDF5 leaves a member missing from the file untouched, so
    /// the record would read as zeros. Gives the dotted field and why.
    pub(crate) fn check_stored(&self, stored: hid_t) -> Result<(), (String, String)> {
        hdf5::sync::sync(|| self.check(stored, ""))
    }

    fn check(&self, stored: hid_t, path: &str) -> Result<(), (String, String)> {
        let wrong = |what: &str| Err((path.to_string(), format!("the file stores {what}")));
        // SAFETY: `stored` is an open type; the handles of its parts are
        // owned by `Owned`s and only read.
        unsafe {
            let class = H5Tget_class(stored);
            match self {
                Node::Fixed { .. }
                    if class == H5T_class_t::H5T_VLEN
                        || (class == H5T_class_t::H5T_STRING && H5Tis_variable_str(stored) > 0) =>
                {
                    wrong("a variable-length value where the record has a fixed-size one")
                }
                Node::Fixed { .. } => Ok(()),
                Node::Optional { value, .. } => value.check(stored, path),
                Node::String if class == H5T_class_t::H5T_STRING => {
                    if H5Tis_variable_str(stored) > 0 {
                        Ok(())
                    } else {
                        wrong("a fixed-length string where the record has a `String`")
                    }
                }
                Node::String => wrong("no string where the record has a `String`"),
                Node::Vlen(item) if class == H5T_class_t::H5T_VLEN => {
                    item.check(Owned(H5Tget_super(stored)).0, path)
                }
                Node::Vlen(_) => wrong("no variable-length sequence where the record has a `Vec`"),
                Node::Array { item, .. } if class == H5T_class_t::H5T_ARRAY => {
                    item.check(Owned(H5Tget_super(stored)).0, path)
                }
                Node::Array { .. } => wrong("no array where the record has one"),
                Node::Struct { fields, .. } if class == H5T_class_t::H5T_COMPOUND => {
                    for (name, _, node) in fields {
                        let inner = dotted(path, name);
                        let c_name = CString::new(name.as_str()).unwrap_or_default();
                        let index = H5Tget_member_index(stored, c_name.as_ptr());
                        if index < 0 {
                            return Err((
                                inner,
                                format!(
                                    "the file's compound has no member `{name}` (it has: {})",
                                    member_names(stored).join(", ")
                                ),
                            ));
                        }
                        let member = Owned(H5Tget_member_type(stored, index as u32));
                        node.check(member.0, &inner)?;
                    }
                    Ok(())
                }
                Node::Struct { .. } => wrong("no compound where the record has one"),
            }
        }
    }
}

/// The type `stored` is of (a sequence's items, an array's elements),
/// where it is of `class`; none (a negative handle) where it is not.
fn part_of(stored: Option<hid_t>, class: H5T_class_t) -> Owned {
    // SAFETY: `stored` is an open type; the new handle is owned.
    Owned(stored.map_or(-1, |s| unsafe {
        match H5Tget_class(s) == class {
            true => H5Tget_super(s),
            false => -1,
        }
    }))
}

/// The type of the member `name` of `stored`, where it is a compound
/// with one; none (a negative handle) where it is not.
fn member_of(stored: Option<hid_t>, name: &str) -> Owned {
    let c_name = CString::new(name).unwrap_or_default();
    // SAFETY: `stored` is an open type; the new handle is owned.
    Owned(stored.map_or(-1, |s| unsafe {
        if H5Tget_class(s) != H5T_class_t::H5T_COMPOUND {
            return -1;
        }
        match H5Tget_member_index(s, c_name.as_ptr()) {
            index if index >= 0 => H5Tget_member_type(s, index as u32),
            _ => -1,
        }
    }))
}

/// A struct's layout: members in declared order at C's offsets.
fn struct_node(fields: &[(String, Column)], path: &str) -> Result<Node, TypeError> {
    let mut laid = Vec::with_capacity(fields.len());
    let (mut offset, mut align) = (0usize, 1usize);
    for (name, column) in fields {
        let node = Node::from_column(column, &dotted(path, name))?;
        let a = node.align().max(1);
        offset = offset.next_multiple_of(a);
        align = align.max(a);
        let size = node.size();
        laid.push((name.clone(), offset, node));
        offset += size;
    }
    Ok(Node::Struct {
        size: offset.next_multiple_of(align),
        align,
        fields: laid,
    })
}

fn value_size(values: &Values) -> usize {
    match values {
        Values::I8(_) | Values::U8(_) => 1,
        Values::I16(_) | Values::U16(_) => 2,
        Values::I32(_) | Values::U32(_) | Values::F32(_) => 4,
        _ => 8,
    }
}

/// The names of the members of the compound `stored`.
fn member_names(stored: hid_t) -> Vec<String> {
    // SAFETY: `stored` is an open compound; each name the library
    // allocates is copied and freed with its own free.
    unsafe {
        (0..H5Tget_nmembers(stored).max(0) as u32)
            .filter_map(|i| {
                let p = H5Tget_member_name(stored, i);
                if p.is_null() {
                    return None;
                }
                let name = std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned();
                hdf5_sys::h5::H5free_memory(p.cast());
                Some(name)
            })
            .collect()
    }
}

pub(crate) fn dotted(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

fn within(path: &str, e: TypeError) -> TypeError {
    TypeError {
        field: if e.field.is_empty() {
            path.to_string()
        } else {
            dotted(path, &e.field)
        },
        why: e.why,
    }
}

fn library(path: &str) -> impl Fn(hdf5::Error) -> TypeError + '_ {
    move |e| TypeError {
        field: path.to_string(),
        why: e.to_string(),
    }
}

/// A type handle we own, closed on drop unless handed over.
struct Owned(hid_t);

impl Owned {
    /// The handle, if it is one.
    fn id(&self) -> Option<hid_t> {
        (self.0 >= 0).then_some(self.0)
    }

    fn into_raw(self) -> hid_t {
        let id = self.0;
        std::mem::forget(self);
        id
    }
}

impl Drop for Owned {
    fn drop(&mut self) {
        if self.0 >= 0 {
            // SAFETY: a handle we own, closed once.
            unsafe { H5Tclose(self.0) };
        }
    }
}

/// `datatype` with every compound holding a variable-length member made
/// as [`Compound::variable`](ndl_runtime::Compound::variable) makes it
/// (no offsets: the layout is each format's), as a record type's is.
pub(crate) fn variable_compounds(datatype: Datatype) -> Datatype {
    match datatype {
        Datatype::Compound(c) => {
            let members: Vec<_> = c
                .members
                .iter()
                .cloned()
                .map(|m| ndl_runtime::Member {
                    datatype: variable_compounds(m.datatype),
                    ..m
                })
                .collect();
            match ndl_runtime::Compound::variable(members) {
                Ok(v) => Datatype::Compound(v),
                Err(_) => Datatype::Compound(c),
            }
        }
        Datatype::Vlen(item) => Datatype::Vlen(Box::new(variable_compounds(*item))),
        other => other,
    }
}

/// The node of one element of a variable: an option's value, an array's
/// item.
pub(crate) fn leaf_of(node: &Node) -> &Node {
    match node {
        Node::Optional { value, .. } => leaf_of(value),
        Node::Array { item, .. } => leaf_of(item),
        other => other,
    }
}

/// The memory type of one element: a bool as the `int8` it is stored as.
pub(crate) fn memory_type(leaf: &Node) -> Result<hdf5::Datatype, TypeError> {
    match leaf {
        Node::Fixed { datatype, .. } => {
            profile_type(&element(datatype), Orders::one(ByteOrder::NATIVE), true)
        }
        other => other.memory_type(),
    }
}

pub(crate) fn element(datatype: &Datatype) -> Datatype {
    match datatype {
        Datatype::Bool => Datatype::Int8,
        Datatype::Time(_) => Datatype::Int64,
        other => other.clone(),
    }
}
