//! Writing records: the header, then the data, byte for byte as NumPy would.
//!
//! Records without padding in native byte order go out in one `write_all`
//! of the slice's memory. Otherwise records pass through a reused buffer:
//! only the bytes of fields are copied into it (padding is never read from
//! memory and stays zero), then numbers are byte-swapped there if needed.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::mem::MaybeUninit;
use std::path::{Path, PathBuf};
use std::sync::mpsc::sync_channel;

use super::layout::{CopyOp, Layout};
use super::{sidecar, ByteOrder, Error, Header, Result};
use crate::ndl::{Attribute, NameMap};
use crate::NdlType;

/// Bytes of records staged at a time when they cannot be written directly
/// (small enough to stay in cache between staging and writing).
const CHUNK_BYTES: usize = 256 << 10;
/// Data at least this large is staged on a helper thread.
const PIPELINE_MIN_BYTES: usize = 4 << 20;
/// Buffers in flight between the helper thread and the writer.
const PIPELINE_BUFFERS: usize = 3;

/// How to write an array: its shape, memory order and byte order.
///
/// Without options, [`write`](super::write) stores a 1-D array in native
/// byte order. The data is always the array's elements in the order the
/// header states: row-major (C) by default, column-major with
/// [`fortran_order(true)`](WriteOptions::fortran_order).
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
    pub(crate) fortran_order: bool,
    pub(crate) byte_order: ByteOrder,
    pub(crate) sidecar: bool,
    pub(crate) attributes: NameMap<Attribute>,
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
            fortran_order: false,
            byte_order: ByteOrder::NATIVE,
            sidecar: false,
            attributes: NameMap::new(),
        }
    }

    /// The array's shape; its product must equal the number of records
    /// (`&[]` is a 0-d array of one record). Default: `[records]`.
    pub fn shape(mut self, shape: &[u64]) -> WriteOptions {
        self.shape = Some(shape.to_vec());
        self
    }

    /// Whether the data is in Fortran (column-major) order. Like NumPy, the
    /// header says `True` only when that differs from C order, i.e. when
    /// more than one dimension is longer than 1 and none is 0.
    pub fn fortran_order(mut self, fortran_order: bool) -> WriteOptions {
        self.fortran_order = fortran_order;
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
        writer.write_all(&header)?;
        records.write(&mut writer, data)?;
        writer.flush()?;
        Ok(())
    }

    /// Writes `data` to the file at `path`, through a temporary file in
    /// the same directory that replaces `path` only once complete, so
    /// `path` never holds a partial array.
    ///
    /// ```
    /// use ndl_runtime::npy::{self, WriteOptions};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("m.npy");
    /// WriteOptions::new().shape(&[2, 2]).fortran_order(true).write_file(&path, &[1i64, 2, 3, 4])?;
    /// let m = npy::ReadOptions::new().read_file::<i64>(&path)?;
    /// assert!(m.fortran_order);
    /// // A shape that does not hold the data fails and leaves `path` as it was.
    /// assert!(WriteOptions::new().shape(&[3]).write_file(&path, &[1i64]).is_err());
    /// assert_eq!(npy::ReadOptions::new().read_file::<i64>(&path)?, m);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_file<T: NdlType>(&self, path: impl AsRef<Path>, data: &[T]) -> Result<()> {
        let path = path.as_ref();
        let run = || -> Result<()> {
            let tmp = temp_file_beside(path)?;
            let mut out = BufWriter::new(tmp);
            self.write(&mut out, data)?;
            let tmp = out.into_inner().map_err(|e| Error::from(e.into_error()))?;
            persist(tmp, path).map(drop)
        };
        run().map_err(|e| e.in_file(path))?;
        if self.sidecar {
            let header = self.header::<T>(data.len() as u64)?;
            sidecar::write::<T>(path, &header, &self.attributes)?;
        }
        Ok(())
    }

    /// The header for `records` records of `T` under these options.
    pub(crate) fn header<T: NdlType>(&self, records: u64) -> Result<Header> {
        let shape = self.shape.clone().unwrap_or_else(|| vec![records]);
        let expected = shape.iter().try_fold(1u64, |n, &d| n.checked_mul(d));
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
            fortran_order: self.fortran_order && !is_also_c_order(&shape),
            shape,
        })
    }
}

/// Whether C and Fortran order lay out an array of `shape` the same way:
/// NumPy then calls it C-contiguous and writes `fortran_order: False`.
pub(crate) fn is_also_c_order(shape: &[u64]) -> bool {
    shape.contains(&0) || shape.iter().filter(|&&d| d != 1).count() <= 1
}

/// A temporary file in `path`'s directory, created like an ordinary file
/// (mode 0666 less the umask) so the renamed result has the usual mode.
pub(crate) fn temp_file_beside(path: &Path) -> Result<tempfile::NamedTempFile> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".ndl-").suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    Ok(builder.tempfile_in(dir)?)
}

/// Moves a finished temporary file to `path`, replacing what was there.
pub(crate) fn persist(tmp: tempfile::NamedTempFile, path: &Path) -> Result<File> {
    tmp.persist(path).map_err(|e| Error::from(e.error))
}

/// Writes the data of records of `T` (no header), keeping its staging
/// buffer between calls so a stream of batches allocates once.
pub(crate) struct RecordWriter<T> {
    layout: Layout,
    staging: Staging,
    _records: std::marker::PhantomData<fn(&T)>,
}

impl<T: NdlType> RecordWriter<T> {
    /// A writer of `T` records in `order`.
    pub fn new(order: ByteOrder) -> Result<RecordWriter<T>> {
        let layout = Layout::new(&T::datatype(), order).ok_or_else(|| Error::NotWritable {
            field: String::new(),
            reason: "the datatype has no fixed size".into(),
        })?;
        if layout.itemsize != std::mem::size_of::<T>() {
            return Err(Error::NotWritable {
                field: String::new(),
                reason: format!(
                    "the datatype's size {} differs from the type's size {} (a wrong NdlType impl)",
                    layout.itemsize,
                    std::mem::size_of::<T>()
                ),
            });
        }
        Ok(RecordWriter {
            layout,
            staging: Staging::default(),
            _records: std::marker::PhantomData,
        })
    }

    /// Writes the records' bytes as the file stores them.
    pub fn write<W: Write>(&mut self, w: &mut W, data: &[T]) -> std::io::Result<()> {
        let size = self.layout.itemsize;
        if size == 0 || data.is_empty() {
            return Ok(());
        }
        let direct = self.layout.is_dense() && self.layout.swaps.is_empty();
        if direct {
            // SAFETY: the layout is dense, so fields cover every byte of
            // every record: no byte is padding, all are initialised.
            return w.write_all(unsafe { assume_init(record_bytes(data)) });
        }
        let chunk = (CHUNK_BYTES / size).max(1) * size;
        let bytes = record_bytes(data);
        if bytes.len() >= PIPELINE_MIN_BYTES && parallel() {
            return write_pipelined(&self.layout, w, bytes, chunk);
        }
        for c in bytes.chunks(chunk) {
            let buf = self.staging.fill(&self.layout, c);
            self.layout.swap(buf);
            w.write_all(buf)?;
        }
        Ok(())
    }
}

/// Whether another core can prepare chunks while this one writes.
fn parallel() -> bool {
    std::thread::available_parallelism().is_ok_and(|n| n.get() > 1)
}

/// Writes large data with the staging work on a helper thread: it copies
/// fields and swaps bytes into one buffer while this thread writes the
/// previous one, so the cost of preparing records hides behind the I/O.
/// `w` stays on this thread; the helper sees only the records' bytes.
fn write_pipelined<W: Write>(
    layout: &Layout,
    w: &mut W,
    bytes: &[MaybeUninit<u8>],
    chunk: usize,
) -> std::io::Result<()> {
    let (full_tx, full_rx) = sync_channel::<(Staging, usize)>(PIPELINE_BUFFERS);
    let (free_tx, free_rx) = sync_channel::<Staging>(PIPELINE_BUFFERS);
    for _ in 0..PIPELINE_BUFFERS {
        free_tx
            .send(Staging::default())
            .expect("the receiver is alive");
    }
    std::thread::scope(|scope| {
        scope.spawn(move || {
            for c in bytes.chunks(chunk) {
                // The writer hung up (an I/O error): stop.
                let Ok(mut staging) = free_rx.recv() else {
                    return;
                };
                layout.swap(staging.fill(layout, c));
                if full_tx.send((staging, c.len())).is_err() {
                    return;
                }
            }
        });
        // Returning (even early, on an error) drops both channel ends
        // here, which stops the helper before the scope joins it.
        let free_tx = free_tx;
        for (staging, n) in full_rx {
            w.write_all(staging.filled(n))?;
            let _ = free_tx.send(staging);
        }
        Ok(())
    })
}

/// A zero-initialised buffer that receives only the field bytes of records.
///
/// Invariant: every byte is initialised. It starts zeroed, and only bytes
/// of field spans (initialised in any valid record) are copied into it, so
/// padding positions keep their zeros.
#[derive(Default)]
struct Staging {
    buf: Vec<MaybeUninit<u8>>,
}

impl Staging {
    /// Copies the fields of `records` (whole records' memory) into the
    /// buffer and returns their bytes, ready to swap and write.
    fn fill(&mut self, layout: &Layout, records: &[MaybeUninit<u8>]) -> &mut [u8] {
        let n = records.len();
        if self.buf.len() < n {
            self.buf.resize(n, MaybeUninit::new(0));
        }
        let dst = &mut self.buf[..n];
        if layout.is_dense() {
            dst.copy_from_slice(records);
        } else {
            copy_fields(layout, dst, records);
        }
        // SAFETY: the buffer's invariant: zeros, or bytes of fields copied
        // above from valid records, which are initialised.
        unsafe { assume_init_mut(dst) }
    }

    /// The first `n` bytes, as last filled (and swapped).
    fn filled(&self, n: usize) -> &[u8] {
        // SAFETY: the buffer's invariant (all bytes initialised).
        unsafe { assume_init(&self.buf[..n]) }
    }
}

/// Copies the field spans of each record from `src` to `dst` (same length,
/// whole records), leaving `dst`'s padding bytes untouched.
///
/// One pass over the chunk per copy operation: each pass is a tight loop
/// of one constant-size move per record, and the chunk stays in cache.
fn copy_fields(layout: &Layout, dst: &mut [MaybeUninit<u8>], src: &[MaybeUninit<u8>]) {
    let size = layout.itemsize;
    for op in &layout.copies {
        let records = dst.chunks_exact_mut(size).zip(src.chunks_exact(size));
        match *op {
            CopyOp::Fixed { offset, len } => match len {
                1 => records.for_each(|(d, s)| d[offset] = s[offset]),
                2 => records.for_each(|(d, s)| copy_n::<2>(d, s, offset)),
                4 => records.for_each(|(d, s)| copy_n::<4>(d, s, offset)),
                8 => records.for_each(|(d, s)| copy_n::<8>(d, s, offset)),
                _ => records.for_each(|(d, s)| copy_n::<16>(d, s, offset)),
            },
            CopyOp::Span(ref r) => {
                records.for_each(|(d, s)| d[r.clone()].copy_from_slice(&s[r.clone()]))
            }
        }
    }
}

/// Copies `N` bytes at `offset`.
#[inline(always)]
fn copy_n<const N: usize>(d: &mut [MaybeUninit<u8>], s: &[MaybeUninit<u8>], offset: usize) {
    let from: &[MaybeUninit<u8>; N] = s[offset..offset + N].try_into().expect("N bytes");
    let to: &mut [MaybeUninit<u8>; N] = (&mut d[offset..offset + N]).try_into().expect("N bytes");
    *to = *from;
}

/// The memory of `records`, padding included, as possibly uninitialised bytes.
///
/// This is the one place records are viewed as bytes; readers of the
/// result may assume initialised only the bytes of fields.
pub(crate) fn record_bytes<T: NdlType>(records: &[T]) -> &[MaybeUninit<u8>] {
    // SAFETY: the pointer and length cover exactly the slice's memory,
    // which stays borrowed for the result's lifetime. `MaybeUninit<u8>`
    // has alignment 1 and admits any byte, initialised or not (padding),
    // so every byte of the slice is a valid element. Records are only
    // read while the shared borrow lasts; `T: Copy` may hold a `Cell`, but
    // nothing can mutate it during that time: the borrow's owner is the
    // thread blocked in the writer, and a `Cell` is on no other thread.
    // That is also why the bytes may be read by the writer's helper thread.
    unsafe {
        std::slice::from_raw_parts(
            records.as_ptr().cast::<MaybeUninit<u8>>(),
            std::mem::size_of_val(records),
        )
    }
}

/// # Safety
/// Every byte of `bytes` must be initialised.
unsafe fn assume_init(bytes: &[MaybeUninit<u8>]) -> &[u8] {
    // SAFETY: same layout; the caller guarantees initialisation.
    unsafe { &*(bytes as *const [MaybeUninit<u8>] as *const [u8]) }
}

/// # Safety
/// Every byte of `bytes` must be initialised.
unsafe fn assume_init_mut(bytes: &mut [MaybeUninit<u8>]) -> &mut [u8] {
    // SAFETY: same layout; the caller guarantees initialisation, and
    // writing initialised `u8`s keeps it so.
    unsafe { &mut *(bytes as *mut [MaybeUninit<u8>] as *mut [u8]) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Compound, Datatype};

    /// `{ a: u8, (7 bytes padding), b: f64 }` by hand.
    #[derive(Clone, Copy)]
    #[repr(C)]
    struct Padded {
        a: u8,
        b: f64,
    }

    // SAFETY: offsets from `offset_of!`, size from `size_of`; any bytes are
    // valid for u8 and f64.
    unsafe impl NdlType for Padded {
        fn datatype() -> Datatype {
            Datatype::Compound(Compound {
                size: std::mem::size_of::<Padded>(),
                members: vec![
                    crate::Member::new("a", std::mem::offset_of!(Padded, a), Datatype::UInt8),
                    crate::Member::new("b", std::mem::offset_of!(Padded, b), Datatype::Float64),
                ],
            })
        }
    }

    fn data_bytes<T: NdlType>(order: ByteOrder, data: &[T]) -> Vec<u8> {
        let mut out = Vec::new();
        RecordWriter::<T>::new(order)
            .unwrap()
            .write(&mut out, data)
            .unwrap();
        out
    }

    #[test]
    fn padding_is_written_as_zeros() {
        let recs: Vec<Padded> = (0..3)
            .map(|i| Padded {
                a: i as u8 + 1,
                b: 0.5,
            })
            .collect();
        let out = data_bytes(ByteOrder::NATIVE, &recs);
        assert_eq!(out.len(), 48);
        for (i, r) in out.chunks(16).enumerate() {
            assert_eq!(r[0], i as u8 + 1);
            assert_eq!(&r[1..8], &[0; 7]);
            assert_eq!(r[8..16], 0.5f64.to_ne_bytes());
        }
    }

    #[test]
    fn other_order_swaps() {
        let other = match ByteOrder::NATIVE {
            ByteOrder::Little => ByteOrder::Big,
            ByteOrder::Big => ByteOrder::Little,
        };
        let out = data_bytes(other, &[Padded { a: 9, b: 1.0 }]);
        let mut b = 1.0f64.to_ne_bytes();
        b.reverse();
        assert_eq!(&out[8..], &b);
        assert_eq!(
            data_bytes(other, &[0x0102u16]),
            0x0102u16.swap_bytes().to_ne_bytes()
        );
    }

    #[test]
    fn large_batches_span_several_chunks() {
        let n = CHUNK_BYTES / 16 * 2 + 5;
        let recs: Vec<Padded> = (0..n)
            .map(|i| Padded {
                a: i as u8,
                b: i as f64,
            })
            .collect();
        let out = data_bytes(ByteOrder::NATIVE, &recs);
        assert_eq!(out.len(), n * 16);
        let last = &out[(n - 1) * 16..];
        assert_eq!(last[0], (n - 1) as u8);
        assert_eq!(last[8..], ((n - 1) as f64).to_ne_bytes());
    }

    #[test]
    fn large_writes_are_pipelined_and_stop_on_errors() {
        /// Accepts `left` bytes, then fails.
        struct Failing {
            left: usize,
        }
        impl Write for Failing {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                if self.left == 0 {
                    return Err(std::io::Error::other("disk full"));
                }
                let n = buf.len().min(self.left);
                self.left -= n;
                Ok(n)
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let n = PIPELINE_MIN_BYTES / 16 * 4;
        let recs: Vec<Padded> = (0..n).map(|i| Padded { a: i as u8, b: 1.0 }).collect();
        let mut w = RecordWriter::<Padded>::new(ByteOrder::NATIVE).unwrap();
        let e = w.write(&mut Failing { left: 3 << 20 }, &recs).unwrap_err();
        assert_eq!(e.to_string(), "disk full");
        let out = data_bytes(ByteOrder::NATIVE, &recs);
        assert_eq!(out.len(), n * 16);
        assert!(out
            .chunks(16)
            .enumerate()
            .all(|(i, r)| r[0] == i as u8 && r[1..8] == [0; 7]));
    }

    #[test]
    fn array_records_need_c_order() {
        let mut out = Vec::new();
        let data = [[1u8, 2, 3]; 4];
        let e = WriteOptions::new()
            .shape(&[2, 2])
            .fortran_order(true)
            .write(&mut out, &data)
            .unwrap_err();
        assert!(matches!(e, Error::NotWritable { .. }), "{e}");
        // A 1-D array is both orders: written as C order, as NumPy does.
        WriteOptions::new()
            .fortran_order(true)
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

    #[test]
    fn fortran_flag_only_when_it_differs_from_c() {
        assert!(is_also_c_order(&[5]));
        assert!(is_also_c_order(&[3, 1]));
        assert!(is_also_c_order(&[0, 3]));
        assert!(!is_also_c_order(&[2, 3]));
    }
}
