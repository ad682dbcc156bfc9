//! Reading records: header, datatype check, data, byte swap, value checks.
//!
//! The data is read straight into the memory of the returned `Vec<T>`:
//! a zeroed `Vec<MaybeUninit<T>>` whose bytes receive the file's bytes,
//! are swapped to native order and checked (bools 0/1, enum members) in
//! place, and only then become `T`s. Nothing is allocated before the data
//! is known to exist: a file's length is checked first; a plain reader's
//! data is read in bounded chunks, the vector growing as bytes arrive.

use crate::Order;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use super::compare::{RecordShape, bad_value, element, file_layout_for, layout_for, record_shape};
use super::io::{Counting, read_full};
use super::record_vec::RecordVec;
use super::{ByteOrder, Error, Header, HeaderLimits, Result, sidecar};
use crate::field_map::FieldMap;
use crate::record_plan::{BadValue, RecordPlan};
use crate::schema::first_difference;
use crate::{Datatype, NdlType};

/// Records converted and checked at a time, small enough to stay in cache.
const PASS_CHUNK_BYTES: usize = 256 << 10;
/// File records read at a time when reading by name: the buffer they go
/// through stays in the core's cache, and is large enough that each read
/// call moves a good deal (64 KiB made the 8 MiB read 1.4x slower).
const BY_NAME_CHUNK_BYTES: usize = 256 << 10;
/// The first chunk read from a reader of unknown length; later chunks
/// double, so memory grows with the data that actually arrives, whatever
/// the header claims.
const FIRST_CHUNK_BYTES: usize = 64 << 10;
/// The largest chunk read at once from a reader of unknown length.
const MAX_CHUNK_BYTES: usize = 64 << 20;

/// An array read from a `.npy` file: records of `T` and the array's shape.
///
/// `shape` counts records of `T`: when `T` is itself an array type such as
/// `[f32; 3]`, the file's trailing `3` is part of `T`, not of `shape`.
///
/// ```
/// use ndl_runtime::npy::{ReadOptions, WriteOptions};
///
/// let mut file = Vec::new();
/// WriteOptions::new().shape(&[2, 3]).write(&mut file, &[0u8, 1, 2, 3, 4, 5])?;
/// let rows = ReadOptions::new().read::<[u8; 3], _>(&file[..])?;
/// assert_eq!(rows.shape, [2]);
/// assert_eq!(rows.data, [[0, 1, 2], [3, 4, 5]]);
/// # Ok::<(), ndl_runtime::npy::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct NpyArray<T> {
    /// The shape, in records of `T`; empty for a 0-d array.
    pub shape: Vec<u64>,
    /// The order of `data`'s elements.
    pub order: Order,
    /// The byte order the file used (the data is converted to native).
    pub byte_order: ByteOrder,
    /// The records, in the file's order.
    pub data: Vec<T>,
}

/// How to read: header limits, and (through [`ReadOptions::read`]) any shape.
///
/// ```
/// use ndl_runtime::npy::{self, ReadOptions, WriteOptions};
/// use ndl_runtime::Order;
///
/// let mut file = Vec::new();
/// WriteOptions::new().shape(&[2, 2]).order(Order::Fortran).write(&mut file, &[1i32, 2, 3, 4])?;
/// let array = ReadOptions::new().max_header_size(1000).read::<i32, _>(&file[..])?;
/// assert_eq!((array.shape, array.order), (vec![2, 2], Order::Fortran));
/// assert_eq!(array.data, [1, 2, 3, 4]);
/// # Ok::<(), npy::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    pub(crate) limits: HeaderLimits,
    /// The number of dimensions required (in records), checked before
    /// any data is read; `None` accepts any.
    pub(crate) rank: Option<usize>,
    /// Whether to leave an NDL sidecar beside the file unchecked.
    pub(crate) ignore_sidecar: bool,
    /// Whether fields are matched by name rather than by exact layout.
    pub(crate) by_name: bool,
}

impl ReadOptions {
    /// NumPy's defaults: headers up to 10000 characters.
    pub fn new() -> ReadOptions {
        ReadOptions::default()
    }

    /// The largest header to accept, in characters (NumPy's `max_header_size`).
    pub fn max_header_size(mut self, max_header_size: usize) -> ReadOptions {
        self.limits.max_header_size = max_header_size;
        self
    }

    /// Whether [`read_file`](ReadOptions::read_file) checks the NDL sidecar
    /// beside the file (see [`sidecar_path`](super::sidecar_path)) when there
    /// is one: it must describe `T`'s layout, and its enums must have exactly
    /// the members of the Rust enums. Default: `true`.
    ///
    /// ```
    /// use ndl_runtime::npy::{self, sidecar_path, ReadOptions};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("n.npy");
    /// npy::write_file(&path, &[1u32, 2])?;
    /// std::fs::write(sidecar_path(&path), "ndarrays: {n: {shape: [2], type: float32}}\n")?;
    /// assert!(npy::read_file::<u32>(&path).is_err());
    /// assert_eq!(ReadOptions::new().sidecar(false).read_file::<u32>(&path)?.data, [1, 2]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn sidecar(mut self, check: bool) -> ReadOptions {
        self.ignore_sidecar = !check;
        self
    }

    /// Whether to match the type's fields to the file's by name: the type
    /// may then hold any subset of the file's fields, in any order and at
    /// any offsets, nested compounds included; the file's other fields are
    /// skipped. Types still match field by field (an enum matches its base
    /// integer), bools and enums are still checked, and the byte order is
    /// converted. A missing field is [`Error::MissingField`], a field of
    /// another type [`Error::TypeMismatch`], both naming its dotted path.
    /// A file of exactly the type's layout is read as fast as without it.
    /// Default: `false` (the layouts must be equal). [`MmapArray`] always
    /// needs the exact layout.
    ///
    /// [`MmapArray`]: super::MmapArray
    ///
    /// ```
    /// use ndl_runtime::npy::{self, Error, ReadOptions};
    /// use ndl_runtime::NdlType;
    ///
    /// #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
    /// #[repr(C)]
    /// struct Full { id: u32, x: f32, y: f32 }
    ///
    /// #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
    /// #[repr(C)]
    /// struct Ys { y: f32, id: u32 }
    ///
    /// let mut file = Vec::new();
    /// npy::write(&mut file, &[Full { id: 7, x: 1.0, y: 2.0 }])?;
    /// assert!(npy::read::<Ys, _>(&file[..]).is_err()); // not the same layout
    /// let ys = ReadOptions::new().by_name(true).read::<Ys, _>(&file[..])?;
    /// assert_eq!(ys.data, [Ys { y: 2.0, id: 7 }]);
    ///
    /// #[derive(Clone, Copy, Debug, NdlType)]
    /// #[repr(C)]
    /// struct Zs { z: f32 }
    /// let err = ReadOptions::new().by_name(true).read::<Zs, _>(&file[..]).unwrap_err();
    /// assert!(matches!(err, Error::MissingField { ref field, .. } if field == "z"));
    /// # Ok::<(), npy::Error>(())
    /// ```
    pub fn by_name(mut self, by_name: bool) -> ReadOptions {
        self.by_name = by_name;
        self
    }

    /// Reads an array of any shape from `reader`. Bytes after the data are
    /// not read.
    pub fn read<T: NdlType, R: Read>(&self, reader: R) -> Result<NpyArray<T>> {
        read_array(reader, self, None)
    }

    /// Reads an array of any shape from the file at `path`.
    ///
    /// ```
    /// use ndl_runtime::npy::{ByteOrder, ReadOptions, WriteOptions};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("grid.npy");
    /// WriteOptions::new().shape(&[2, 2]).byte_order(ByteOrder::Big).write_file(&path, &[1.0f32, 2.0, 3.0, 4.0])?;
    /// let grid = ReadOptions::new().read_file::<f32>(&path)?;
    /// assert_eq!((grid.shape, grid.byte_order), (vec![2, 2], ByteOrder::Big));
    /// assert_eq!(grid.data, [1.0, 2.0, 3.0, 4.0]); // converted to native order
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_file<T: NdlType>(&self, path: impl AsRef<Path>) -> Result<NpyArray<T>> {
        let path = path.as_ref();
        let run = || {
            let file = File::open(path)?;
            let meta = file.metadata()?;
            // Only a regular file's length says how many bytes there are.
            let len = meta.is_file().then_some(meta.len());
            read_array(BufReader::new(file), self, len)
        };
        if !self.ignore_sidecar {
            sidecar::check::<T>(path)?;
        }
        run().map_err(|e| e.in_file(path))
    }
}

/// Reads a 1-D array of `T` from `reader`; see [`read_file`](super::read_file).
pub(crate) fn read_1d<T: NdlType, R: Read>(reader: R) -> Result<Vec<T>> {
    Ok(ReadOptions::one_dimensional().read(reader)?.data)
}

/// Reads a 1-D array of `T` from the file at `path`.
pub(crate) fn read_file_1d<T: NdlType>(path: &Path) -> Result<Vec<T>> {
    Ok(ReadOptions::one_dimensional().read_file(path)?.data)
}

impl ReadOptions {
    /// NumPy's limits, and only 1-D arrays.
    pub(crate) fn one_dimensional() -> ReadOptions {
        ReadOptions {
            rank: Some(1),
            ..ReadOptions::default()
        }
    }
}

/// Reads a header and the array after it. `total_len` is the length of the
/// whole input when known (a regular file).
pub(crate) fn read_array<T: NdlType, R: Read>(
    reader: R,
    options: &ReadOptions,
    total_len: Option<u64>,
) -> Result<NpyArray<T>> {
    let mut r = Counting {
        inner: reader,
        count: 0,
    };
    let header = Header::read(&mut r, &options.limits)?;
    let data_offset = r.count;
    let expected = T::datatype();
    let RecordShape { shape, records } = record_shape(&header, &expected)?;
    let by_name = field_map_for(&header, &expected, options.by_name)?;
    if options.rank.is_some_and(|rank| rank != shape.len()) {
        return Err(Error::RankMismatch {
            expected: options.rank.unwrap_or(0),
            shape: header.shape,
        });
    }
    // By name, numbers are swapped while the fields are copied; the
    // record plan is then only checks.
    let layout = match by_name {
        Some(_) => layout_for::<T>(&expected, ByteOrder::NATIVE)?,
        None => file_layout_for::<T>(&expected, &header)?,
    };
    let file_record = match &by_name {
        Some(map) => map.file_record_size() * element(&expected).1.iter().product::<usize>(),
        None => layout.itemsize,
    };
    let data_len = records
        .checked_mul(file_record as u64)
        .ok_or_else(|| Error::ShapeOverflow {
            shape: header.shape.clone(),
            itemsize: file_record as u64,
        })?;
    let eof = |got: u64| Error::UnexpectedEof {
        what: "array data",
        offset: data_offset,
        expected: data_len,
        got,
    };
    let records = usize::try_from(records).map_err(|_| eof(0))?;
    if let Some(total) = total_len {
        // Refuse before allocating: a header can claim any size.
        let left = total.saturating_sub(data_offset);
        if left < data_len {
            return Err(eof(left));
        }
    }
    let known_len = total_len.is_some();
    let data = match &by_name {
        None => read_records(&mut r.inner, records, &layout, known_len),
        Some(map) => {
            let one_order = header.other_order_plan();
            let plans = ByName {
                map,
                one_order: one_order.as_ref(),
                layout: &layout,
            };
            read_records_by_name(&mut r.inner, records, plans, known_len)
        }
    };
    let data = data.map_err(|stop| match (stop, &by_name) {
        (Stop::Io(e), _) => Error::from(e),
        (Stop::Eof(got), _) => eof(got),
        (Stop::Bad(bad), None) => bad_value(&expected, &layout, data_offset, &bad),
        (Stop::Bad(bad), Some(map)) => bad_value_by_name(&expected, map, data_offset, &bad),
    })?;
    Ok(NpyArray {
        shape,
        order: header.order,
        byte_order: header.byte_order,
        data,
    })
}

/// The field map for reading records of `expected` from the file of
/// `header`: `None` when the layouts are equal (read as is); else an error,
/// or with `by_name` the map by field name.
fn field_map_for(header: &Header, expected: &Datatype, by_name: bool) -> Result<Option<FieldMap>> {
    let element = element(expected).0;
    // A Rust type's datatype folds arrays of arrays; the file's may not.
    let stored = header.datatype.folded();
    let Some(d) = first_difference(&stored, element) else {
        return Ok(None);
    };
    if !by_name {
        let hint = crate::field_map::by_name_hint(&stored, element).unwrap_or_default();
        return Err(Error::TypeMismatch {
            field: d.field,
            message: d.message + hint,
        });
    }
    Ok(Some(FieldMap::new(&stored, header.byte_order, element)?))
}

/// The error for a bad value found in a record read by name: the field
/// path in `T`, the byte offset where the file holds it.
fn bad_value_by_name(dt: &Datatype, map: &FieldMap, data_offset: u64, bad: &BadValue) -> Error {
    let (field, message) = bad.explain(dt);
    // A top-level array type holds several elements of the mapped record.
    let (to, from) = (map.target_record_size(), map.file_record_size());
    let per_record = element(dt).1.iter().product::<usize>();
    let (i, within) = match to {
        0 => (0, 0),
        _ => (bad.offset / to, bad.offset % to),
    };
    let in_file = (bad.record * per_record + i) * from + map.file_offset(within).unwrap_or(0);
    Error::InvalidValue {
        record: bad.record as u64,
        offset: data_offset + in_file as u64,
        field,
        message,
    }
}

/// Why reading records stopped early.
enum Stop {
    Io(std::io::Error),
    /// End of input after this many data bytes.
    Eof(u64),
    /// A value that is not valid for its type.
    Bad(BadValue),
}

/// Reads `records` records of the plan `layout` (in the file's byte order)
/// into a vector, converting and checking them chunk by chunk while the
/// bytes are still in cache.
///
/// With `known_len` the input is known to hold the data (a file whose
/// length was checked): the vector is allocated at once. Otherwise it only
/// grows as data arrives, so a lying header cannot make it allocate.
fn read_records<T: NdlType, R: Read>(
    r: &mut R,
    records: usize,
    layout: &RecordPlan,
    known_len: bool,
) -> std::result::Result<Vec<T>, Stop> {
    let itemsize = layout.itemsize;
    if itemsize == 0 {
        let mut recs = RecordVec::zeroed(records).map_err(Stop::Io)?;
        recs.check(layout, records).map_err(Stop::Bad)?;
        return Ok(recs.into_vec());
    }
    let needs_pass = !layout.swaps.is_empty() || layout.has_checks();
    let (recs, step) = match (known_len, needs_pass) {
        // One read straight into the vector.
        (true, false) => (RecordVec::zeroed(records), records),
        (true, true) => (RecordVec::zeroed(records), PASS_CHUNK_BYTES / itemsize),
        (false, _) => (RecordVec::zeroed(0), FIRST_CHUNK_BYTES / itemsize),
    };
    let mut recs = recs.map_err(Stop::Io)?;
    let mut step = step.max(1);
    let mut done = 0;
    while done < records {
        let n = step.min(records - done);
        if !known_len {
            recs.grow_zeroed(n);
        }
        let got = read_full(r, &mut recs.bytes_mut(done)[..n * itemsize]).map_err(Stop::Io)?;
        if got < n * itemsize {
            return Err(Stop::Eof((done * itemsize + got) as u64));
        }
        // Convert in cache-sized pieces right after they arrive.
        let mut at = done;
        while at < done + n {
            let m = (PASS_CHUNK_BYTES / itemsize).max(1).min(done + n - at);
            recs.check(layout, m).map_err(Stop::Bad)?;
            at += m;
        }
        done += n;
        if !known_len {
            step = (step * 2).min((MAX_CHUNK_BYTES / itemsize).max(1));
        }
    }
    Ok(recs.into_vec())
}

/// [`read_records`] by field name: the file's records are read a chunk
/// at a time into a buffer, and `map` copies their fields into the
/// vector's records; `layout` (of `T`, native order) then checks them.
/// What reading by name does to each chunk of records.
struct ByName<'a> {
    /// The file's fields to `T`'s.
    map: &'a FieldMap,
    /// Puts the numbers stored in the file's other byte order into its
    /// main one, which `map` converts from; `None` when all share one.
    one_order: Option<&'a RecordPlan>,
    /// `T`'s checks.
    layout: &'a RecordPlan,
}

fn read_records_by_name<T: NdlType, R: Read>(
    r: &mut R,
    records: usize,
    ByName {
        map,
        one_order,
        layout,
    }: ByName,
    known_len: bool,
) -> std::result::Result<Vec<T>, Stop> {
    let to = layout.itemsize;
    // Elements of the mapped record in one `T` (several for an array type).
    let per_record = to.checked_div(map.target_record_size()).unwrap_or(1);
    let from = map.file_record_size() * per_record;
    let mut recs = RecordVec::zeroed(if known_len { records } else { 0 }).map_err(Stop::Io)?;
    let step = (BY_NAME_CHUNK_BYTES / from.max(to).max(1)).clamp(1, records.max(1));
    let mut buf = vec![0u8; step * from];
    let mut done = 0;
    while done < records {
        let n = step.min(records - done);
        let src = &mut buf[..n * from];
        let got = read_full(r, src).map_err(Stop::Io)?;
        if got < src.len() {
            return Err(Stop::Eof((done * from + got) as u64));
        }
        if !known_len {
            recs.grow_zeroed(n);
        }
        if let Some(plan) = one_order {
            plan.swap(src);
        }
        map.apply(src, &mut recs.bytes_mut(done)[..n * to]);
        recs.check(layout, n).map_err(Stop::Bad)?;
        done += n;
    }
    Ok(recs.into_vec())
}

/// Reads the header of a `.npy` stream, leaving `reader` at the first data byte.
///
/// ```
/// use ndl_runtime::{npy, Datatype};
///
/// let mut file = Vec::new();
/// npy::write(&mut file, &[1.5f64, 2.5])?;
/// let header = npy::read_header(&mut &file[..])?;
/// assert_eq!((header.datatype, header.shape), (Datatype::Float64, vec![2]));
/// # Ok::<(), npy::Error>(())
/// ```
pub fn read_header<R: Read>(reader: &mut R) -> Result<Header> {
    Header::read(reader, &HeaderLimits::default())
}

/// Reads the header of the `.npy` file at `path`.
///
/// ```
/// use ndl_runtime::{npy, Datatype};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("h.npy");
/// npy::WriteOptions::new().shape(&[2, 1]).write_file(&path, &[1u8, 2])?;
/// let header = npy::read_header_file(&path)?;
/// assert_eq!((header.datatype, header.shape), (Datatype::UInt8, vec![2, 1]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_header_file(path: impl AsRef<Path>) -> Result<Header> {
    let path = path.as_ref();
    let run = || {
        let mut r = BufReader::new(File::open(path)?);
        Header::read(&mut r, &HeaderLimits::default())
    };
    run().map_err(|e| e.in_file(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_stop_at_the_end_of_input() {
        let bytes = [1u8; 10];
        let layout = RecordPlan::new(&Datatype::UInt32, ByteOrder::NATIVE).unwrap();
        match read_records::<u32, _>(&mut &bytes[..], 1_000_000_000, &layout, false) {
            Err(Stop::Eof(got)) => assert_eq!(got, 10),
            _ => panic!("expected a short read"),
        }
    }

    #[test]
    fn conversion_happens_chunk_by_chunk() {
        // More records than one pass chunk, in the other byte order.
        let other = ByteOrder::NATIVE.opposite();
        let n = PASS_CHUNK_BYTES / 4 * 3 + 1;
        let bytes: Vec<u8> = (0..n as u32)
            .flat_map(|i| i.swap_bytes().to_ne_bytes())
            .collect();
        let layout = RecordPlan::new(&Datatype::UInt32, other).unwrap();
        for known in [true, false] {
            let got = match read_records::<u32, _>(&mut &bytes[..], n, &layout, known) {
                Ok(v) => v,
                Err(Stop::Eof(got)) => panic!("eof after {got}"),
                Err(Stop::Bad(bad)) => panic!("bad {bad:?}"),
                Err(Stop::Io(e)) => panic!("{e}"),
            };
            assert!(got.iter().enumerate().all(|(i, &v)| v == i as u32));
        }
    }
}
