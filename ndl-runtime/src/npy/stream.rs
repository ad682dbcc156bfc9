//! Writing a `.npy` file in batches whose total is known only at the end.
//!
//! The header is written first with a growing dimension of 0, the data is
//! appended batch by batch, and [`StreamWriter::finish`] rewrites the
//! header with the final count. NumPy's headers keep room for 21 digits in
//! the growing dimension, so the rewritten header has the same length and
//! the data never moves. [`StreamWriter::open`] continues an existing
//! file the same way, in place: batches go past its data, and `finish`
//! rewrites only the count in its header.

use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use tempfile::{NamedTempFile, TempPath};

use super::append::Growing;
use super::io::{publish, temp_file_beside};
use super::record_writer::RecordWriter;
use super::shape::checked_product;
use super::{AppendOptions, Error, Header, Result, WriteOptions, sidecar};
use crate::ndl::{Attribute, NameMap};
use std::marker::PhantomData;

use super::ByteOrder;
use super::variable::{Cx, stored, write_rows};
use crate::record::{Columns, PlainVisitor, Record, same_slice};
use crate::{Datatype, NdlType};

/// Size of the write buffer between batches and the file.
const BUFFER_BYTES: usize = 1 << 20;

/// The stream of a plain record type, written as its `NdlType`.
struct PlainStream<T> {
    out: BufWriter<File>,
    dest: PathBuf,
    target: Target,
    header: Header,
    header_len: usize,
    /// Elements per step of the growing dimension (product of the others).
    row: u64,
    records: u64,
    data: RecordWriter<T>,
    /// The sidecar's attributes, when one is to be written on `finish`.
    sidecar: Option<NameMap<Attribute>>,
    /// Whether `finish` waits for the disk.
    durable: bool,
}

/// Where the records go.
enum Target {
    /// A new file beside the destination, renamed onto it by `finish`.
    New(TempPath),
    /// The existing file at the destination, whose count `finish` updates.
    Existing(Growing, AppendOptions),
}

impl<T> std::fmt::Debug for PlainStream<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlainStream")
            .field("dest", &self.dest)
            .field("records", &self.records)
            .finish_non_exhaustive()
    }
}

impl<T: NdlType> PlainStream<T> {
    /// See [`StreamWriter::create_with`].
    fn create_with(dest: PathBuf, options: &WriteOptions) -> Result<PlainStream<T>> {
        PlainStream::start(dest.clone(), options).map_err(|e| e.in_file(dest))
    }

    fn start(dest: PathBuf, options: &WriteOptions) -> Result<PlainStream<T>> {
        let mut shape = options.shape.clone().unwrap_or_else(|| vec![0]);
        if shape.is_empty() {
            return Err(Error::NotWritable {
                field: String::new(),
                reason: "a streamed array needs at least one dimension to grow".into(),
            });
        }
        *grow_dim(&mut shape, options.order.is_fortran()) = 1;
        let row = checked_product(&shape).ok_or(Error::ShapeOverflow {
            shape: shape.clone(),
            itemsize: std::mem::size_of::<T>() as u64,
        })?;
        let header = Header {
            datatype: T::datatype(),
            byte_order: options.byte_order,
            other_order: Vec::new(),
            // Decided again at `finish`, from the final shape.
            order: options.order,
            shape,
        };
        let first = PlainStream::<T>::header_bytes(&header, 0)?;
        let data = RecordWriter::new(options.byte_order)?.starting_at(first.len());
        let (file, tmp) = temp_file_beside(&dest)?.into_parts();
        let mut out = BufWriter::with_capacity(BUFFER_BYTES, file);
        out.write_all(&first)?;
        Ok(PlainStream {
            out,
            dest,
            target: Target::New(tmp),
            header_len: first.len(),
            header,
            row,
            records: 0,
            data,
            sidecar: options.sidecar.then(|| options.attributes.clone()),
            durable: options.durable,
        })
    }

    /// See [`StreamWriter::open_with`].
    fn open_with(dest: PathBuf, options: &AppendOptions) -> Result<PlainStream<T>> {
        PlainStream::continue_file(dest.clone(), options).map_err(|e| e.in_file(dest))
    }

    fn continue_file(dest: PathBuf, options: &AppendOptions) -> Result<PlainStream<T>> {
        let growing = Growing::open::<T>(&dest, &options.limits)?;
        let end = growing.data_end();
        let mut file = growing.file.try_clone()?;
        file.seek(SeekFrom::Start(end))?;
        let data = RecordWriter::new(growing.header.byte_order)?
            .starting_at(usize::try_from(end).unwrap_or(0));
        Ok(PlainStream {
            out: BufWriter::with_capacity(BUFFER_BYTES, file),
            dest,
            header: growing.header.clone(),
            header_len: 0,
            row: growing.row,
            records: 0,
            data,
            sidecar: None,
            durable: options.durable,
            target: Target::Existing(growing, options.clone()),
        })
    }

    /// The header for `rows` rows in all. The Fortran flag stays as asked
    /// whatever the count: `np.save` would write `False` for 0 or 1 rows,
    /// where both orders lay the data out alike, but `True` is one letter
    /// shorter and could shrink the padded header by 64 bytes after the
    /// data is already written. NumPy reads either spelling the same.
    fn header_bytes(template: &Header, rows: u64) -> Result<Vec<u8>> {
        let mut h = template.clone();
        *grow_dim(&mut h.shape, h.order.is_fortran()) = rows;
        h.to_bytes()
    }

    fn append(&mut self, records: &[T]) -> Result<()> {
        self.data
            .write(&mut self.out, records)
            .map_err(|e| Error::from(e).in_file(&self.dest))?;
        self.records += records.len() as u64;
        Ok(())
    }

    fn finish(self) -> Result<u64> {
        let dest = self.dest.clone();
        self.complete().map_err(|e| e.in_file(dest))
    }

    fn complete(mut self) -> Result<u64> {
        let tmp = match self.target {
            Target::New(tmp) => tmp,
            Target::Existing(growing, options) => {
                self.out.flush()?;
                return finish_append(&growing, self.records, &options);
            }
        };
        // With an empty row (another dimension is 0) no record fits.
        let rows = self.records.checked_div(self.row).unwrap_or(0);
        if rows * self.row != self.records || (self.row == 0 && self.records != 0) {
            let mut shape = self.header.shape.clone();
            *grow_dim(&mut shape, self.header.order.is_fortran()) = rows + 1;
            return Err(Error::ShapeMismatch {
                expected: (rows + 1) * self.row,
                shape,
                got: self.records,
            });
        }
        let header = PlainStream::<T>::header_bytes(&self.header, rows)?;
        if header.len() != self.header_len {
            // NumPy's growth padding keeps the length for any u64 count.
            return Err(Error::NotWritable {
                field: String::new(),
                reason: format!(
                    "the final header is {} bytes, not {}",
                    header.len(),
                    self.header_len
                ),
            });
        }
        let file = self
            .out
            .into_inner()
            .map_err(|e| Error::from(e.into_error()))?;
        let mut tmp = NamedTempFile::from_parts(file, tmp);
        rewrite_start(tmp.as_file_mut(), &header)?;
        publish(tmp, &self.dest, self.durable)?;
        if let Some(attributes) = &self.sidecar {
            let mut final_header = self.header.clone();
            *grow_dim(&mut final_header.shape, final_header.order.is_fortran()) = rows;
            sidecar::write::<T>(&self.dest, &final_header, attributes, self.durable)?;
        }
        Ok(self.records)
    }
}

/// Makes `added` records written past the data of the file part of it.
fn finish_append(growing: &Growing, added: u64, options: &AppendOptions) -> Result<u64> {
    let count = growing.count_after(added)?;
    match growing.header_with(count) {
        Some(prefix) => growing.set_header(&prefix, added, options.durable),
        None if options.rewrite => growing.rewrite(count, added, |_| Ok(()), options.durable),
        None => Err(Error::NoGrowthRoom { count }),
    }
}

/// Overwrites the start of `file` with `bytes`.
fn rewrite_start(file: &mut File, bytes: &[u8]) -> Result<()> {
    file.seek(SeekFrom::Start(0))?;
    file.write_all(bytes)?;
    file.flush()?;
    Ok(())
}

/// The dimension that grows: the first in C order, the last in Fortran order.
fn grow_dim(shape: &mut [u64], fortran_order: bool) -> &mut u64 {
    let i = if fortran_order { shape.len() - 1 } else { 0 };
    &mut shape[i]
}

/// Appends batches of records to a `.npy` file; the destination appears
/// only when [`finish`](StreamWriter::finish) succeeds.
///
/// Dropped without `finish` (or after an error), it leaves nothing at the
/// destination: the data lives in a temporary file beside it until then.
///
/// ```
/// use ndl_runtime::npy::{self, StreamWriter};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("log.npy");
/// let mut w = StreamWriter::<u32>::create(&path)?;
/// w.append(&[1, 2])?;
/// w.append(&[3])?;
/// assert_eq!(w.finish()?, 3);
/// assert_eq!(npy::read_file::<u32>(&path)?, [1, 2, 3]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct StreamWriter<T> {
    inner: Inner<T>,
}

enum Inner<T> {
    /// A plain record type, streamed as its `NdlType` (zero-copy).
    Plain(Box<dyn Appender<T>>),
    /// Records with `String` or `Option` fields, through their columns.
    Variable(Box<VariableStream<T>>),
}

impl<T> std::fmt::Debug for StreamWriter<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let records = match &self.inner {
            Inner::Plain(p) => p.records(),
            Inner::Variable(v) => v.records,
        };
        f.debug_struct("StreamWriter")
            .field("records", &records)
            .finish_non_exhaustive()
    }
}

impl<T: Record> StreamWriter<T> {
    /// A 1-D array in native byte order, to be written to `path`.
    pub fn create(path: impl AsRef<Path>) -> Result<StreamWriter<T>> {
        StreamWriter::create_with(path, &WriteOptions::new())
    }

    /// An array with `options`' byte order and memory order. With a shape,
    /// the first dimension (the last one in Fortran order) grows with the
    /// data and its value in `options` is ignored; the others stay fixed,
    /// and the total must be a whole number of rows at `finish`.
    ///
    /// ```
    /// use ndl_runtime::npy::{ReadOptions, StreamWriter, WriteOptions};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("rows.npy");
    /// let mut w = StreamWriter::<f32>::create_with(&path, &WriteOptions::new().shape(&[0, 2]))?;
    /// w.append(&[1.0, 2.0, 3.0, 4.0])?;
    /// w.finish()?;
    /// assert_eq!(ReadOptions::new().read_file::<f32>(&path)?.shape, [2, 2]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// Records that are not plain (`String`, `Option` fields; see
    /// [`write_file`](super::write_file)) stream as a 1-D array in native
    /// byte order without sidecar, and other options are refused. The
    /// header is written before the data, so the first batch fixes each
    /// string field's `U n`: a later, longer string is refused, naming the
    /// field and record, and leaves the stream as it was. Start with a
    /// batch holding the longest strings, or use [`write_file`](super::write_file),
    /// which sees them all.
    ///
    /// ```
    /// use ndl_runtime::npy::{self, StreamWriter};
    /// use ndl_runtime::Record;
    ///
    /// #[derive(Debug, PartialEq, Record)]
    /// struct Tick { symbol: String, price: f64 }
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("ticks.npy");
    /// let mut w = StreamWriter::<Tick>::create(&path)?;
    /// w.append(&[Tick { symbol: "ABCD".into(), price: 1.5 }])?;
    /// assert!(w.append(&[Tick { symbol: "TOOLONG".into(), price: 2.0 }]).is_err());
    /// w.append(&[Tick { symbol: "XY".into(), price: 2.5 }])?;
    /// assert_eq!(w.finish()?, 2);
    /// assert_eq!(npy::read_file::<Tick>(&path)?[1], Tick { symbol: "XY".into(), price: 2.5 });
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create_with(path: impl AsRef<Path>, options: &WriteOptions) -> Result<StreamWriter<T>> {
        let dest = path.as_ref().to_path_buf();
        let open = OpenPlain {
            dest: dest.clone(),
            how: How::Create(options),
            record: PhantomData,
        };
        let inner = match T::visit_plain(open) {
            Some(plain) => Inner::Plain(plain?),
            None => Inner::Variable(Box::new(
                VariableStream::start(dest.clone(), options).map_err(|e| e.in_file(dest))?,
            )),
        };
        Ok(StreamWriter { inner })
    }

    /// Continues the existing C-order `.npy` file at `path`: batches are
    /// written past its data, in its byte order, and
    /// [`finish`](StreamWriter::finish) updates the first dimension in its
    /// header, as [`AppendOptions::append_file`] does. The file's datatype
    /// must be `T`'s, a plain record type. Dropped without `finish`, the
    /// file reads as before (the bytes written past its data are ignored,
    /// and overwritten by the next append).
    ///
    /// ```
    /// use ndl_runtime::npy::{self, StreamWriter};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("log.npy");
    /// npy::write_file(&path, &[1u16, 2])?;
    /// let mut w = StreamWriter::<u16>::open(&path)?;
    /// w.append(&[3, 4])?;
    /// w.append(&[5])?;
    /// assert_eq!(w.finish()?, 5); // records in the file
    /// assert_eq!(npy::read_file::<u16>(&path)?, [1, 2, 3, 4, 5]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(path: impl AsRef<Path>) -> Result<StreamWriter<T>> {
        StreamWriter::open_with(path, &AppendOptions::new())
    }

    /// [`open`](StreamWriter::open) with `options`: with
    /// [`rewrite`](AppendOptions::rewrite), a header without room for the
    /// final count is rewritten by `finish`.
    pub fn open_with(path: impl AsRef<Path>, options: &AppendOptions) -> Result<StreamWriter<T>> {
        let dest = path.as_ref().to_path_buf();
        let open = OpenPlain {
            dest: dest.clone(),
            how: How::Continue(options),
            record: PhantomData,
        };
        match T::visit_plain(open) {
            Some(plain) => Ok(StreamWriter {
                inner: Inner::Plain(plain?),
            }),
            None => Err(Error::NotAppendable {
                reason: format!(
                    "`{}` has `String` or `Option` fields, whose `U n` widths and fills the file fixed; write a new file with `StreamWriter::create`",
                    std::any::type_name::<T>()
                ),
            }
            .in_file(dest)),
        }
    }

    /// Appends records.
    pub fn append(&mut self, records: &[T]) -> Result<()> {
        match &mut self.inner {
            Inner::Plain(p) => p.append(records),
            Inner::Variable(v) => v.append(records),
        }
    }

    /// The number of records written so far.
    pub fn records(&self) -> u64 {
        match &self.inner {
            Inner::Plain(p) => p.records(),
            Inner::Variable(v) => v.records,
        }
    }

    /// Writes the final header and moves the file to its destination;
    /// returns the number of records (in the whole file, when appending).
    pub fn finish(self) -> Result<u64> {
        match self.inner {
            Inner::Plain(p) => p.finish(),
            Inner::Variable(v) => v.finish(),
        }
    }
}

/// A plain stream, seen through the `Record` type it was made for.
trait Appender<R> {
    fn append(&mut self, records: &[R]) -> Result<()>;
    fn records(&self) -> u64;
    fn finish(self: Box<Self>) -> Result<u64>;
}

impl<P: NdlType, R: 'static> Appender<R> for PlainStream<P> {
    fn append(&mut self, records: &[R]) -> Result<()> {
        let records = same_slice::<R, P>(records).ok_or_else(|| Error::NotWritable {
            field: String::new(),
            reason: "a `Record`'s `visit_plain` visited another type than itself".into(),
        })?;
        PlainStream::append(self, records)
    }

    fn records(&self) -> u64 {
        self.records
    }

    fn finish(self: Box<Self>) -> Result<u64> {
        PlainStream::finish(*self)
    }
}

/// How a plain stream starts.
enum How<'a> {
    Create(&'a WriteOptions),
    Continue(&'a AppendOptions),
}

/// Starts the plain stream of the `NdlType` a `Record` type `R` is.
struct OpenPlain<'a, R> {
    dest: PathBuf,
    how: How<'a>,
    record: PhantomData<fn() -> R>,
}

impl<R: 'static> PlainVisitor for OpenPlain<'_, R> {
    type Output = Result<Box<dyn Appender<R>>>;

    fn visit<P: NdlType>(self) -> Self::Output {
        Ok(match self.how {
            How::Create(o) => Box::new(PlainStream::<P>::create_with(self.dest, o)?),
            How::Continue(o) => Box::new(PlainStream::<P>::open_with(self.dest, o)?),
        })
    }
}

/// The stream of records that are not plain: 1-D, native byte order; the
/// first batch fixes the header's datatype.
struct VariableStream<T> {
    dest: PathBuf,
    durable: bool,
    cx: Cx,
    /// The datatype before any batch: every string `U1`.
    empty: Datatype,
    /// Created by the first batch.
    file: Option<Started>,
    records: u64,
    record: PhantomData<fn(&T)>,
}

/// A variable stream's file, once its datatype is fixed.
struct Started {
    out: BufWriter<File>,
    tmp: TempPath,
    datatype: Datatype,
    header_len: usize,
}

impl<T: Record> VariableStream<T> {
    fn start(dest: PathBuf, options: &WriteOptions) -> Result<VariableStream<T>> {
        let one_d = options.shape.as_ref().is_none_or(|s| s.len() == 1);
        if !one_d || options.byte_order != ByteOrder::NATIVE || options.sidecar {
            return Err(Error::NotWritable {
                field: String::new(),
                reason: format!(
                    "`{}` has `String` or `Option` fields: it streams as a 1-D array in native byte order, without sidecar",
                    std::any::type_name::<T>()
                ),
            });
        }
        let cx = Cx::of::<T>();
        // Refuses `Vec`s and `Option`s without fill before any batch.
        let mut template = T::Columns::with_capacity(1);
        template.push_null();
        stored(&T::datatype(), &template.finish(), &cx)?;
        let empty = stored(&T::datatype(), &crate::record::columns::<T>(&[]), &cx)?;
        Ok(VariableStream {
            dest,
            durable: options.durable,
            cx,
            empty,
            file: None,
            records: 0,
            record: PhantomData,
        })
    }

    fn append(&mut self, records: &[T]) -> Result<()> {
        if records.is_empty() {
            // Its widths would fix every string at `U1`.
            return Ok(());
        }
        let column = crate::record::columns(records);
        let cx = self.cx.counting_from(self.records);
        let run = |file: &mut Option<Started>| -> Result<()> {
            let datatype = stored(&T::datatype(), &column, &cx)?;
            let started = match file {
                Some(s) => s,
                None => file.insert(Started::new(&self.dest, datatype)?),
            };
            // Encoded whole first: a string too long for the file's `U n`
            // leaves nothing of the batch in the file.
            let mut bytes = Vec::new();
            write_rows(
                &column,
                &started.datatype,
                0..records.len(),
                &mut bytes,
                &cx,
            )?;
            started.out.write_all(&bytes)?;
            Ok(())
        };
        run(&mut self.file).map_err(|e| e.in_file(&self.dest))?;
        self.records += records.len() as u64;
        Ok(())
    }

    fn finish(mut self) -> Result<u64> {
        let dest = self.dest.clone();
        let mut run = || -> Result<u64> {
            let started = match self.file.take() {
                Some(s) => s,
                None => Started::new(&self.dest, self.empty.clone())?,
            };
            let header = Header::new(started.datatype.clone(), vec![self.records]).to_bytes()?;
            if header.len() != started.header_len {
                return Err(Error::NotWritable {
                    field: String::new(),
                    reason: format!(
                        "the final header is {} bytes, not {}",
                        header.len(),
                        started.header_len
                    ),
                });
            }
            let file = started
                .out
                .into_inner()
                .map_err(|e| Error::from(e.into_error()))?;
            let mut tmp = NamedTempFile::from_parts(file, started.tmp);
            rewrite_start(tmp.as_file_mut(), &header)?;
            publish(tmp, &self.dest, self.durable)?;
            Ok(self.records)
        };
        run().map_err(|e| e.in_file(dest))
    }
}

impl Started {
    /// A temporary file beside `dest` holding the header of an empty array.
    fn new(dest: &Path, datatype: Datatype) -> Result<Started> {
        let header = Header::new(datatype.clone(), vec![0]).to_bytes()?;
        let (file, tmp) = temp_file_beside(dest)?.into_parts();
        let mut out = BufWriter::with_capacity(BUFFER_BYTES, file);
        out.write_all(&header)?;
        Ok(Started {
            out,
            tmp,
            datatype,
            header_len: header.len(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Order;
    use crate::npy::{self, ReadOptions};

    #[test]
    fn fortran_streams_keep_their_header_length() {
        // 11 + the header text is a multiple of 64 here, so the shorter
        // spelling `True` would take 64 bytes of padding away.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.npy");
        let mut shape = vec![2u64; 12];
        shape.extend([222, 0]);
        let opts = WriteOptions::new().shape(&shape).order(Order::Fortran);
        let mut w = StreamWriter::<u8>::create_with(&path, &opts).unwrap();
        w.append(&vec![7u8; 909_312]).unwrap();
        assert_eq!(w.finish().unwrap(), 909_312);
        let back = ReadOptions::new().read_file::<u8>(&path).unwrap();
        assert_eq!(back.shape.last(), Some(&1));
        assert!(back.order.is_fortran());
        assert!(back.data.iter().all(|&b| b == 7));
    }

    #[test]
    fn dropping_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.npy");
        let mut w = StreamWriter::<u8>::create(&path).unwrap();
        w.append(&[1, 2, 3]).unwrap();
        drop(w);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn partial_rows_fail_and_leave_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.npy");
        let opts = WriteOptions::new().shape(&[7, 3]);
        let mut w = StreamWriter::<u8>::create_with(&path, &opts).unwrap();
        w.append(&[1, 2, 3, 4]).unwrap();
        let e = w.finish().unwrap_err();
        assert!(e.to_string().contains("holds 6 elements, but 4"), "{e}");
        assert!(!path.exists());
    }

    #[test]
    fn fortran_order_grows_the_last_dimension() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.npy");
        let opts = WriteOptions::new().shape(&[2, 0]).order(Order::Fortran);
        let mut w = StreamWriter::<i16>::create_with(&path, &opts).unwrap();
        for i in 0..5 {
            w.append(&[i, -i]).unwrap();
        }
        assert_eq!(w.finish().unwrap(), 10);
        let a = ReadOptions::new().read_file::<i16>(&path).unwrap();
        assert_eq!((a.shape, a.order.is_fortran()), (vec![2, 5], true));
        assert_eq!(a.data[..4], [0, 0, 1, -1]);
    }

    #[test]
    fn same_bytes_as_a_single_write() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.npy"), dir.path().join("b.npy"));
        let data: Vec<u64> = (0..1000).collect();
        let mut w = StreamWriter::<u64>::create(&a).unwrap();
        for c in data.chunks(77) {
            w.append(c).unwrap();
        }
        w.finish().unwrap();
        npy::write_file(&b, &data).unwrap();
        assert_eq!(std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
    }
}
