//! Variable records between their columns and HDF5's memory form, a block
//! at a time: `char*` strings and `hvl_t` sequences pointing into buffers
//! this module owns while writing, and into memory HDF5 allocates while
//! reading, always reclaimed.
//!
//! # Bounded memory on reading
//! HDF5 reads a variable-length value by allocating room for the length
//! its element stores, then copying the heap object in. Every allocation
//! it makes for the values handed to us goes through [`Budget`], which
//! refuses any that would take the block past a bound derived from the
//! file's size (no value holds more than the file does, a few times over
//! for pointers and alignment): a damaged length then fails the read, as
//! an error, instead of allocating what it claims. HDF5 1.10 sizes its own
//! temporary conversion buffer from the same length before calling the
//! allocator; that buffer is freed within the call, and a length no
//! memory holds fails there as an allocation error.

use std::cell::Cell;
use std::ffi::CStr;
use std::os::raw::c_void;

use hdf5_sys::h5d::H5Dvlen_reclaim;
use hdf5_sys::h5i::hid_t;
use hdf5_sys::h5p::{H5P_CLS_DATASET_XFER, H5Pclose, H5Pcreate, H5Pset_vlen_mem_manager};
use hdf5_sys::h5s::{H5Sclose, H5Screate_simple};
use ndl_runtime::record::{Bitmap, Column, RecordError, Values};

use crate::raw_io::failed;
use crate::record_type::Node;

/// Memory laid out for `hvl_t`, `char*` and numbers: 8-byte aligned.
pub(crate) struct Buffer(Vec<u64>);

impl Buffer {
    pub(crate) fn zeroed(bytes: usize) -> Buffer {
        Buffer(vec![0; bytes.div_ceil(8)])
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        bytemuck::cast_slice(&self.0)
    }

    pub(crate) fn bytes_mut(&mut self) -> &mut [u8] {
        bytemuck::cast_slice_mut(&mut self.0)
    }
}

/// What the pointers of an encoded block point into: kept alive until
/// the block is written. Moving a `Vec` does not move its heap memory.
#[derive(Default)]
pub(crate) struct Arena {
    strings: Vec<Vec<u8>>,
    items: Vec<Buffer>,
}

/// Encodes `column` into `buf`, value `i` at byte `slots[i]`, laid out as
/// `node` says. Errors name the field (relative) and the value.
pub(crate) fn encode(
    node: &Node,
    column: &Column,
    buf: &mut [u8],
    slots: &[usize],
    arena: &mut Arena,
) -> Result<(), RecordError> {
    match (node, column) {
        (Node::Fixed { size, .. }, Column::Values { values, .. }) => {
            put_values(values, buf, slots, *size);
            Ok(())
        }
        (Node::Fixed { .. }, Column::Bool(bits)) => {
            for (i, &s) in slots.iter().enumerate() {
                buf[s] = u8::from(bits.get(i));
            }
            Ok(())
        }
        (Node::Fixed { size, .. }, Column::Plain { bytes, .. }) => {
            for (value, &s) in bytes.chunks_exact(*size).zip(slots) {
                buf[s..s + size].copy_from_slice(value);
            }
            Ok(())
        }
        (Node::String, Column::Strings { offsets, data }) => {
            encode_strings(offsets, data, buf, slots, arena)
        }
        (Node::Vlen(item), Column::List { offsets, values }) => {
            let size = item.size();
            let mut items = Buffer::zeroed(values.len() * size);
            let inner: Vec<usize> = (0..values.len()).map(|j| j * size).collect();
            encode(item, values, items.bytes_mut(), &inner, arena)
                .map_err(|e| at_item(e, offsets))?;
            let base = items.bytes().as_ptr() as usize;
            for (i, &s) in slots.iter().enumerate() {
                let (from, to) = (offsets[i] as usize, offsets[i + 1] as usize);
                let p = if to > from { base + from * size } else { 0 };
                buf[s..s + POINTER].copy_from_slice(&(to - from).to_ne_bytes());
                buf[s + POINTER..s + 2 * POINTER].copy_from_slice(&p.to_ne_bytes());
            }
            arena.items.push(items);
            Ok(())
        }
        (Node::Array { len, item }, Column::FixedList { values, .. }) => {
            let size = item.size();
            let inner: Vec<usize> = slots
                .iter()
                .flat_map(|&s| (0..*len).map(move |k| s + k * size))
                .collect();
            encode(item, values, buf, &inner, arena).map_err(|e| match e.record() {
                Some(j) => e.at(j / len.max(&1)),
                None => e,
            })
        }
        (
            Node::Struct { fields, .. },
            Column::Struct {
                fields: columns, ..
            },
        ) => {
            if fields.len() != columns.len() {
                return Err(RecordError::new(format!(
                    "{} members found where the record has {}",
                    columns.len(),
                    fields.len()
                )));
            }
            for ((name, offset, node), (found, column)) in fields.iter().zip(columns) {
                if name != found {
                    return Err(RecordError::new(format!(
                        "a member `{found}` found where the record has `{name}`"
                    )));
                }
                let inner: Vec<usize> = slots.iter().map(|&s| s + offset).collect();
                encode(node, column, buf, &inner, arena).map_err(|e| e.in_field(name))?;
            }
            Ok(())
        }
        (
            Node::Optional { value, fill },
            Column::Nullable {
                validity, values, ..
            },
        ) => {
            if let Some(i) = column.fill_clash() {
                return Err(RecordError::new(
                    "holds `Some` of the field's fill value, which HDF5 stores for `None`: \
                     it would read back as `None`",
                )
                .at(i));
            }
            encode(value, values, buf, slots, arena)?;
            put_fill(value, fill, validity, buf, slots, arena)
        }
        _ => Err(RecordError::new(
            "the column does not have the record's shape",
        )),
    }
}

const POINTER: usize = std::mem::size_of::<usize>();

/// Puts `fill` at the slots of the nulls: a column from another format
/// holds a placeholder there, not necessarily the fill. The fill's
/// pointers, encoded once, are shared by every null (HDF5 only reads
/// them).
fn put_fill(
    value: &Node,
    fill: &Column,
    validity: &Bitmap,
    buf: &mut [u8],
    slots: &[usize],
    arena: &mut Arena,
) -> Result<(), RecordError> {
    let nulls: Vec<usize> = (0..slots.len()).filter(|&i| !validity.get(i)).collect();
    if nulls.is_empty() {
        return Ok(());
    }
    let size = value.size();
    let mut one = Buffer::zeroed(size);
    encode(value, fill, one.bytes_mut(), &[0], arena)
        .map_err(|e| RecordError::new(format!("its fill: {}", e.message())))?;
    for i in nulls {
        buf[slots[i]..slots[i] + size].copy_from_slice(&one.bytes()[..size]);
    }
    Ok(())
}

fn encode_strings(
    offsets: &[i64],
    data: &[u8],
    buf: &mut [u8],
    slots: &[usize],
    arena: &mut Arena,
) -> Result<(), RecordError> {
    // One NUL-terminated copy of every string, made at its full size
    // before any pointer into it is taken.
    let mut copy = Vec::with_capacity(data.len() + slots.len());
    let mut starts = Vec::with_capacity(slots.len());
    for i in 0..slots.len() {
        let s = &data[offsets[i] as usize..offsets[i + 1] as usize];
        if s.contains(&0) {
            return Err(RecordError::new(
                "the string holds a NUL character, which ends an HDF5 variable-length string",
            )
            .at(i));
        }
        starts.push(copy.len());
        copy.extend_from_slice(s);
        copy.push(0);
    }
    let base = copy.as_ptr() as usize;
    for (&s, start) in slots.iter().zip(starts) {
        buf[s..s + POINTER].copy_from_slice(&(base + start).to_ne_bytes());
    }
    arena.strings.push(copy);
    Ok(())
}

/// An item's error as the error of the list holding it.
fn at_item(e: RecordError, offsets: &[i64]) -> RecordError {
    match e.record() {
        Some(j) => {
            let i = offsets
                .partition_point(|&o| o as usize <= j)
                .saturating_sub(1);
            e.at(i)
        }
        None => e,
    }
}

macro_rules! numbers {
    ($($variant:ident($t:ty)),*) => {
        fn put_values(values: &Values, buf: &mut [u8], slots: &[usize], size: usize) {
            match values {
                $(Values::$variant(v) => {
                    for (x, &s) in v.iter().zip(slots) {
                        buf[s..s + size].copy_from_slice(&x.to_ne_bytes());
                    }
                })*
                _ => {}
            }
        }

        /// The values at `slots`, of the same kind as `template`.
        ///
        /// # Safety
        /// Every slot points at a readable value of the template's size.
        unsafe fn take_values(template: &Values, slots: &[*const u8]) -> Values {
            match template {
                $(Values::$variant(_) => Values::$variant(
                    slots
                        .iter()
                        // SAFETY: as the caller promises.
                        .map(|&p| unsafe { p.cast::<$t>().read_unaligned() })
                        .collect(),
                ),)*
                other => other.clone(),
            }
        }
    };
}

numbers!(
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    F32(f32),
    F64(f64)
);

/// The column of the values at `slots`, laid out as `node`.
///
/// # Safety
/// Every slot points at a readable value of `node`'s layout whose
/// pointers (strings, sequences) are NULL or point at what HDF5 read.
pub(crate) unsafe fn decode(node: &Node, slots: &[*const u8]) -> Column {
    // SAFETY (every read below): as the caller promises; a sequence's
    // `len` items are in the memory its pointer gives.
    unsafe {
        match node {
            Node::Fixed { size, template, .. } => match template {
                Column::Values { datatype, values } => Column::Values {
                    datatype: datatype.clone(),
                    values: take_values(values, slots),
                },
                Column::Bool(_) => {
                    let mut bits = Bitmap::with_capacity(slots.len());
                    slots.iter().for_each(|&p| bits.push(p.read() != 0));
                    Column::Bool(bits)
                }
                Column::Plain { datatype, .. } => {
                    let mut bytes = Vec::with_capacity(slots.len() * size);
                    for &p in slots {
                        bytes.extend_from_slice(std::slice::from_raw_parts(p, *size));
                    }
                    Column::Plain {
                        datatype: datatype.clone(),
                        bytes,
                    }
                }
                other => other.clone(),
            },
            Node::String => {
                let mut offsets = Vec::with_capacity(slots.len() + 1);
                let mut data = Vec::new();
                offsets.push(0);
                for &p in slots {
                    data.extend_from_slice(c_string(p));
                    offsets.push(data.len() as i64);
                }
                Column::Strings { offsets, data }
            }
            Node::Vlen(item) => {
                let size = item.size();
                let mut offsets = Vec::with_capacity(slots.len() + 1);
                let mut inner = Vec::new();
                offsets.push(0);
                for &p in slots {
                    let (len, items) = sequence(p);
                    if !items.is_null() {
                        inner.extend((0..len).map(|k| items.add(k * size)));
                    }
                    offsets.push(inner.len() as i64);
                }
                Column::List {
                    offsets,
                    values: Box::new(decode(item, &inner)),
                }
            }
            Node::Array { len, item } => {
                let size = item.size();
                let inner: Vec<*const u8> = slots
                    .iter()
                    .flat_map(|&p| (0..*len).map(move |k| p.add(k * size)))
                    .collect();
                Column::FixedList {
                    size: *len,
                    values: Box::new(decode(item, &inner)),
                }
            }
            Node::Struct { fields, .. } => Column::Struct {
                len: slots.len(),
                fields: fields
                    .iter()
                    .map(|(name, offset, node)| {
                        let inner: Vec<*const u8> = slots.iter().map(|&p| p.add(*offset)).collect();
                        (name.clone(), decode(node, &inner))
                    })
                    .collect(),
            },
            Node::Optional { value, fill } => decode_optional(value, fill, slots),
        }
    }
}

/// An option's column: a value equal to the fill is `None`.
///
/// # Safety
/// As [`decode`].
unsafe fn decode_optional(value: &Node, fill: &Column, slots: &[*const u8]) -> Column {
    let mut arena = Arena::default();
    let mut one = Buffer::zeroed(value.size());
    let encoded = encode(value, fill, one.bytes_mut(), &[0], &mut arena).is_ok();
    let fill_at = one.bytes().as_ptr();
    let mut validity = Bitmap::with_capacity(slots.len());
    for &p in slots {
        // SAFETY: `p` as the caller promises; `fill_at` an encoded value
        // whose pointers point into `arena`, alive here.
        validity.push(!(encoded && unsafe { same(value, p, fill_at) }));
    }
    Column::Nullable {
        validity,
        // SAFETY: as the caller promises.
        values: Box::new(unsafe { decode(value, slots) }),
        fill: None,
    }
}

/// Whether the values at `a` and `b`, laid out as `node`, are equal, bit
/// for bit (a NaN fill matches the same NaN).
///
/// # Safety
/// As [`decode`], for both.
unsafe fn same(node: &Node, a: *const u8, b: *const u8) -> bool {
    // SAFETY: as the caller promises.
    unsafe {
        match node {
            Node::Fixed { size, .. } => {
                std::slice::from_raw_parts(a, *size) == std::slice::from_raw_parts(b, *size)
            }
            Node::String => c_string(a) == c_string(b),
            Node::Vlen(item) => {
                let ((la, pa), (lb, pb)) = (sequence(a), sequence(b));
                let size = item.size();
                la == lb
                    && (la == 0 || (0..la).all(|k| same(item, pa.add(k * size), pb.add(k * size))))
            }
            Node::Array { len, item } => {
                let size = item.size();
                (0..*len).all(|k| same(item, a.add(k * size), b.add(k * size)))
            }
            Node::Struct { fields, .. } => fields
                .iter()
                .all(|(_, offset, node)| same(node, a.add(*offset), b.add(*offset))),
            Node::Optional { value, .. } => same(value, a, b),
        }
    }
}

/// The bytes of the `char*` at `p`; NULL (a value never written) is the
/// empty string, as h5py reads it.
///
/// # Safety
/// `p` holds NULL or a pointer to a NUL-terminated string.
unsafe fn c_string<'a>(p: *const u8) -> &'a [u8] {
    // SAFETY: as the caller promises.
    unsafe {
        let s = p.cast::<*const std::os::raw::c_char>().read_unaligned();
        if s.is_null() {
            &[]
        } else {
            CStr::from_ptr(s).to_bytes()
        }
    }
}

/// The length and items of the `hvl_t` at `p`.
///
/// # Safety
/// `p` points at an `hvl_t`.
unsafe fn sequence(p: *const u8) -> (usize, *const u8) {
    // SAFETY: as the caller promises: `len` then `p`, each pointer-sized.
    unsafe {
        (
            p.cast::<usize>().read_unaligned(),
            p.add(POINTER).cast::<*const u8>().read_unaligned(),
        )
    }
}

/// The bytes HDF5 may allocate for one block's variable-length values.
pub(crate) struct Budget {
    left: Cell<usize>,
}

impl Budget {
    pub(crate) fn new(bytes: usize) -> Budget {
        Budget {
            left: Cell::new(bytes),
        }
    }
}

/// HDF5's allocator for the values it reads: refuses past the budget.
extern "C" fn budget_alloc(size: libc::size_t, info: *mut c_void) -> *mut c_void {
    // SAFETY: `info` is the `Budget` the transfer list was made with,
    // alive for the read (see `Transfer`).
    let budget = unsafe { &*info.cast::<Budget>() };
    let left = budget.left.get();
    if size > left {
        return std::ptr::null_mut();
    }
    budget.left.set(left - size);
    // SAFETY: a plain allocation, freed by `budget_free`.
    unsafe { libc::malloc(size.max(1)) }
}

extern "C" fn budget_free(p: *mut c_void, _info: *mut c_void) {
    // SAFETY: `p` came from `budget_alloc`'s `malloc`.
    unsafe { libc::free(p) }
}

/// A dataset transfer property list whose variable-length values are
/// allocated within a [`Budget`].
pub(crate) struct Transfer<'b> {
    id: hid_t,
    _budget: &'b Budget,
}

impl<'b> Transfer<'b> {
    pub(crate) fn new(budget: &'b Budget) -> hdf5::Result<Transfer<'b>> {
        let info = std::ptr::from_ref(budget).cast_mut().cast::<c_void>();
        // SAFETY: a new list we own; the allocator's `info` is `budget`,
        // which outlives the list (the borrow).
        unsafe {
            let id = H5Pcreate(*H5P_CLS_DATASET_XFER);
            if id < 0 {
                return Err(failed());
            }
            let t = Transfer {
                id,
                _budget: budget,
            };
            if H5Pset_vlen_mem_manager(id, Some(budget_alloc), info, Some(budget_free), info) < 0 {
                return Err(failed());
            }
            Ok(t)
        }
    }

    pub(crate) fn id(&self) -> hid_t {
        self.id
    }
}

impl Drop for Transfer<'_> {
    fn drop(&mut self) {
        // SAFETY: a list we own, closed once.
        unsafe { H5Pclose(self.id) };
    }
}

/// Frees, on drop, the variable-length values HDF5 read into `buf` (`n`
/// elements of `memory_type`), whatever happens after the read.
pub(crate) struct Reclaim<'a> {
    pub(crate) memory_type: hid_t,
    pub(crate) transfer: &'a Transfer<'a>,
    pub(crate) n: u64,
    pub(crate) buf: *mut c_void,
}

impl Drop for Reclaim<'_> {
    fn drop(&mut self) {
        if self.n == 0 {
            return;
        }
        hdf5::sync::sync(|| {
            // SAFETY: `buf` holds `n` elements of `memory_type`, zeroed
            // before the read, so each pointer is NULL or one HDF5
            // allocated through the transfer list's allocator, freed here
            // once with the same list.
            unsafe {
                let space = H5Screate_simple(1, &self.n, std::ptr::null());
                if space >= 0 {
                    H5Dvlen_reclaim(self.memory_type, space, self.transfer.id(), self.buf);
                    H5Sclose(space);
                }
            }
        });
    }
}
