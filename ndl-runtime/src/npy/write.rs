//! Writing an array: the options, the header, then the data (see
//! [`record_writer`](super::record_writer)), to a stream or to a file that
//! replaces the old one only once complete.

use crate::Order;
use std::fs::File;
use std::io::Write;
use std::path::Path;

use super::io::{preallocate, publish, temp_file_beside};
use super::record_writer::RecordWriter;
use super::shape::{checked_product, is_also_c_order};
use super::{ByteOrder, Error, Header, Result, sidecar};
use crate::NdlType;
use crate::ndl::{Attribute, NameMap};

/// How to write an array: its shape, memory order and byte order.
///
/// Without options, [`write`](super::write) stores a 1-D array in native
/// byte order. The data is always the array's elements in the order the
/// header states: row-major (C) by default, column-major with
/// [`order(Order::Fortran)`](WriteOptions::order).
///
/// ```
/// use ndl_runtime::npy::{self, ByteOrder, WriteOptions};
///
/// let mut file = Vec::new();
/// WriteOptions::new()
///     .shape(&[2, 3])
///     .byte_order(ByteOrder::Big)
///     .write(&mut file, &[1u16, 2, 3, 4, 5, 6])?;
/// let array = npy::ReadOptions::new().read::<u16, _>(&file[..])?;
/// assert_eq!(array.shape, [2, 3]);
/// assert_eq!(array.data, [1, 2, 3, 4, 5, 6]);
/// # Ok::<(), npy::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteOptions {
    pub(crate) shape: Option<Vec<u64>>,
    pub(crate) order: Order,
    pub(crate) byte_order: ByteOrder,
    pub(crate) sidecar: bool,
    pub(crate) attributes: NameMap<Attribute>,
    pub(crate) durable: bool,
}

impl Default for WriteOptions {
    fn default() -> WriteOptions {
        WriteOptions::new()
    }
}

impl WriteOptions {
    /// A 1-D array in C order and native byte order.
    pub fn new() -> WriteOptions {
        WriteOptions {
            shape: None,
            order: Order::C,
            byte_order: ByteOrder::NATIVE,
            sidecar: false,
            attributes: NameMap::new(),
            durable: false,
        }
    }

    /// The array's shape; its product must equal the number of records
    /// (`&[]` is a 0-d array of one record). Default: `[records]`.
    pub fn shape(mut self, shape: &[u64]) -> WriteOptions {
        self.shape = Some(shape.to_vec());
        self
    }

    /// The order of the data's elements. Like NumPy, the header says
    /// `fortran_order: True` only when Fortran order differs from C order,
    /// i.e. when more than one dimension is longer than 1 and none is 0.
    pub fn order(mut self, order: Order) -> WriteOptions {
        self.order = order;
        self
    }

    /// The byte order of numbers in the file. Default: the machine's.
    pub fn byte_order(mut self, byte_order: ByteOrder) -> WriteOptions {
        self.byte_order = byte_order;
        self
    }

    /// Whether [`write_file`](WriteOptions::write_file) also writes the
    /// file's NDL document beside it (`readings.npy` gives `readings.yaml`):
    /// the datatype with enum member names and field descriptions, the
    /// type's description, and the [attributes](WriteOptions::attribute).
    ///
    /// ```
    /// use ndl_runtime::npy::{sidecar_path, WriteOptions};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("t.npy");
    /// WriteOptions::new().sidecar(true).attribute("units", "K").write_file(&path, &[280.5f64, 281.0])?;
    /// let yaml = std::fs::read_to_string(sidecar_path(&path))?;
    /// assert!(yaml.contains("units: K"), "{yaml}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn sidecar(mut self, sidecar: bool) -> WriteOptions {
        self.sidecar = sidecar;
        self
    }

    /// Whether [`write_file`](WriteOptions::write_file) (and a
    /// [`StreamWriter`](super::StreamWriter)'s `finish`) waits until the
    /// file, its sidecar and their names are on the disk (`fsync`). Without
    /// it a file is never partial after its process dies, but a power loss
    /// may leave the old or an empty one, as the filesystem decides.
    /// Default: `false`, as `np.save`.
    ///
    /// ```
    /// use ndl_runtime::npy::{self, WriteOptions};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("d.npy");
    /// WriteOptions::new().durable(true).write_file(&path, &[1u8, 2])?;
    /// assert_eq!(npy::read_file::<u8>(&path)?, [1, 2]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn durable(mut self, durable: bool) -> WriteOptions {
        self.durable = durable;
        self
    }

    /// Adds an attribute to the array's NDL sidecar (and turns the sidecar on).
    pub fn attribute(mut self, name: &str, value: impl Into<Attribute>) -> WriteOptions {
        self.attributes.insert(name, value.into());
        self.sidecar = true;
        self
    }

    /// Writes `data` as a `.npy` file to `writer`.
    pub fn write<T: NdlType, W: Write>(&self, mut writer: W, data: &[T]) -> Result<()> {
        let header = self.header::<T>(data.len() as u64)?.to_bytes()?;
        let mut records = RecordWriter::<T>::new(self.byte_order)?;
        records.write_after(&mut writer, &header, data)?;
        writer.flush()?;
        Ok(())
    }

    /// Writes `data` to the file at `path`, through a temporary file in
    /// the same directory that replaces `path` only once complete, so
    /// `path` never holds a partial array.
    ///
    /// ```
    /// use ndl_runtime::npy::{self, WriteOptions};
    /// use ndl_runtime::Order;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("m.npy");
    /// WriteOptions::new().shape(&[2, 2]).order(Order::Fortran).write_file(&path, &[1i64, 2, 3, 4])?;
    /// let m = npy::ReadOptions::new().read_file::<i64>(&path)?;
    /// assert_eq!(m.order, Order::Fortran);
    /// // A shape that does not hold the data fails and leaves `path` as it was.
    /// assert!(WriteOptions::new().shape(&[3]).write_file(&path, &[1i64]).is_err());
    /// assert_eq!(npy::ReadOptions::new().read_file::<i64>(&path)?, m);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_file<T: NdlType>(&self, path: impl AsRef<Path>, data: &[T]) -> Result<()> {
        let path = path.as_ref();
        let run = || -> Result<()> {
            let mut tmp = temp_file_beside(path)?;
            write_new_file(self, tmp.as_file_mut(), data)?;
            publish(tmp, path, self.durable)
        };
        run().map_err(|e| e.in_file(path))?;
        if self.sidecar {
            let header = self.header::<T>(data.len() as u64)?;
            sidecar::write::<T>(path, &header, &self.attributes, self.durable)?;
        }
        Ok(())
    }

    /// The header for `records` records of `T` under these options.
    pub(crate) fn header<T: NdlType>(&self, records: u64) -> Result<Header> {
        let shape = self.shape.clone().unwrap_or_else(|| vec![records]);
        let expected = checked_product(&shape);
        if expected != Some(records) {
            return Err(Error::ShapeMismatch {
                expected: expected.unwrap_or(u64::MAX),
                shape,
                got: records,
            });
        }
        Ok(Header {
            datatype: T::datatype(),
            byte_order: self.byte_order,
            other_order: Vec::new(),
            order: Order::from_fortran(self.order.is_fortran() && !is_also_c_order(&shape)),
            shape,
        })
    }
}

/// Writes a `.npy` file at `path` from a header and the data `data`
/// writes, in the header's datatype and byte order: for data that is not a
/// slice of a Rust type (converted, streamed). The file replaces `path`
/// only once complete, and only if `data` wrote exactly the bytes the
/// header announces.
///
/// ```
/// use ndl_runtime::npy::{self, Header};
/// use ndl_runtime::Datatype;
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("s.npy");
/// let header = Header::new(Datatype::UInt16, vec![2]);
/// npy::write_file_with(&path, &header, |w| Ok(w.write_all(&[1, 0, 2, 0])?))?;
/// assert_eq!(npy::read_file::<u16>(&path)?, [1, 2]);
/// // One byte short: refused, and `path` keeps the old file.
/// assert!(npy::write_file_with(&path, &header, |w| Ok(w.write_all(&[1, 0, 2])?)).is_err());
/// assert_eq!(npy::read_file::<u16>(&path)?, [1, 2]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_file_with(
    path: impl AsRef<Path>,
    header: &Header,
    data: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    let path = path.as_ref();
    let run = || -> Result<()> {
        let mut tmp = temp_file_beside(path)?;
        let mut out = std::io::BufWriter::with_capacity(1 << 20, tmp.as_file_mut());
        write_announced(&mut out, header, data)?;
        out.flush()?;
        drop(out);
        publish(tmp, path, false)
    };
    run().map_err(|e| e.in_file(path))
}

/// Writes `header`, then what `data` writes, which must be exactly the
/// data length the header announces.
pub(crate) fn write_announced(
    w: &mut dyn Write,
    header: &Header,
    data: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    w.write_all(&header.to_bytes()?)?;
    let mut counted = Counted { inner: w, count: 0 };
    data(&mut counted)?;
    let expected = header.data_len()?;
    if counted.count != expected {
        let itemsize = header.datatype.size().unwrap_or(1).max(1) as u64;
        return Err(Error::ShapeMismatch {
            shape: header.shape.clone(),
            expected: expected / itemsize,
            got: counted.count / itemsize,
        });
    }
    Ok(())
}

/// A writer that counts the bytes written through it.
struct Counted<'a> {
    inner: &'a mut dyn Write,
    count: u64,
}

impl Write for Counted<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.count += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// What [`WriteOptions::write`] does, into a new, empty `file`, whose
/// whole length is reserved first (see [`preallocate`]). Unbuffered: the
/// header goes out with the data.
fn write_new_file<T: NdlType>(options: &WriteOptions, file: &mut File, data: &[T]) -> Result<()> {
    let header = options.header::<T>(data.len() as u64)?.to_bytes()?;
    let mut records = RecordWriter::<T>::new(options.byte_order)?;
    preallocate(file, 0, header.len() + std::mem::size_of_val(data));
    records.write_after(file, &header, data)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_records_need_c_order() {
        let mut out = Vec::new();
        let data = [[1u8, 2, 3]; 4];
        let e = WriteOptions::new()
            .shape(&[2, 2])
            .order(Order::Fortran)
            .write(&mut out, &data)
            .unwrap_err();
        assert!(matches!(e, Error::NotWritable { .. }), "{e}");
        // A 1-D array is both orders: written as C order, as NumPy does.
        WriteOptions::new()
            .order(Order::Fortran)
            .write(&mut out, &data)
            .unwrap();
    }

    #[test]
    fn shape_must_hold_the_records() {
        let e = WriteOptions::new()
            .shape(&[2, 2])
            .header::<u8>(3)
            .unwrap_err();
        assert!(matches!(
            e,
            Error::ShapeMismatch {
                expected: 4,
                got: 3,
                ..
            }
        ));
        let h = WriteOptions::new().shape(&[]).header::<u8>(1).unwrap();
        assert!(h.shape.is_empty());
    }
}
