//! `.npy` files as a [`Source`] and a [`Sink`].

use ndl_runtime::ndl::{Attribute, NameMap};
use std::fs::File;
use std::io::{BufReader, Read, Seek, Write};
use std::path::{Path, PathBuf};

use ndl_runtime::npy::{self, Header, HeaderLimits};

use crate::contents::{Arrangement, Contents, Entry, stem};
use crate::error::{Error, Result};
use crate::format::FormatInfo;
use crate::sink::{Progress, Sink, refuse_existing, settle, stopped};
use crate::source::{Origin, Source, for_each_batch};
use ndl_runtime::ArraySpec;

/// The spec of the array a `.npy` header announces.
pub(crate) fn spec_of(header: &Header) -> ArraySpec {
    ArraySpec {
        datatype: header.datatype.clone(),
        byte_order: header.byte_order,
        other_order: header.other_order.clone(),
        order: header.order,
        shape: header.shape.clone(),
    }
}

/// The `.npy` header of an array of `spec`.
pub(crate) fn header_of(spec: &ArraySpec) -> Header {
    let mut header = Header::new(spec.datatype.clone(), spec.shape.clone());
    header.byte_order = spec.byte_order;
    header.other_order.clone_from(&spec.other_order);
    header.order = spec.order;
    header
}

/// Reads the header of the `.npy` file at `path` and checks that the file
/// holds all the data it announces: NumPy could not load a file cut
/// short, so neither is it described nor converted.
pub(crate) fn read_header(path: &Path, limits: &HeaderLimits) -> Result<(Header, BufReader<File>)> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(io)?;
    let file_len = file.metadata().map_err(io)?.len();
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let header = Header::read(&mut reader, limits).map_err(|e| e.in_file(path))?;
    let data_start = reader.stream_position().map_err(io)?;
    let data_len = header.data_len().map_err(|e| e.in_file(path))?;
    let available = file_len.saturating_sub(data_start);
    if available < data_len {
        return Err(npy::Error::UnexpectedEof {
            what: "array data",
            offset: data_start,
            expected: data_len,
            got: available,
        }
        .in_file(path)
        .into());
    }
    Ok((header, reader))
}

/// The elements of a `.npy` stream, read in order.
pub struct NpySource<R> {
    reader: R,
    spec: ArraySpec,
    /// Shown in errors.
    path: PathBuf,
    left: u64,
    done: u64,
}

impl NpySource<BufReader<File>> {
    /// Opens the `.npy` file at `path`.
    pub fn open(path: &Path, limits: &HeaderLimits) -> Result<NpySource<BufReader<File>>> {
        let (header, reader) = read_header(path, limits)?;
        NpySource::after_header(reader, &header, path)
    }
}

impl<R: Read> NpySource<R> {
    /// The elements that follow `header` in `reader`, which is named
    /// `path` in errors.
    pub fn after_header(reader: R, header: &Header, path: &Path) -> Result<NpySource<R>> {
        let left = header.element_count().map_err(|e| e.in_file(path))?;
        Ok(NpySource {
            reader,
            spec: spec_of(header),
            path: path.to_path_buf(),
            left,
            done: 0,
        })
    }
}

impl<R: Read> Source for NpySource<R> {
    fn origin(&self) -> Origin<'_> {
        Origin::new(&self.spec, &self.path)
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize> {
        let size = self.spec.element_size().max(1);
        let n = ((buf.len() / size) as u64).min(self.left) as usize;
        self.reader
            .read_exact(&mut buf[..n * size])
            .map_err(|_| Error::EndsEarly {
                path: self.path.clone(),
                record: self.done,
            })?;
        self.left -= n as u64;
        self.done += n as u64;
        Ok(n)
    }
}

/// A `.npy` file to be written, appearing only once complete.
pub struct NpySink {
    path: PathBuf,
    header: Header,
}

impl NpySink {
    /// A sink for an array of `spec` at `path`, which must not exist.
    pub fn create(path: &Path, spec: &ArraySpec) -> Result<NpySink> {
        refuse_existing(path)?;
        Ok(NpySink {
            path: path.to_path_buf(),
            header: header_of(spec),
        })
    }
}

impl Sink for NpySink {
    fn notes(&self) -> Vec<String> {
        header_size_note(&self.path, &self.header)
            .into_iter()
            .collect()
    }

    fn write_from(self: Box<Self>, source: &mut dyn Source, progress: Progress<'_>) -> Result<u64> {
        let mut written = Ok(0);
        let result = npy::write_file_with(&self.path, &self.header, |w| {
            written = pass_through(source, progress, w);
            written.as_ref().map(drop).map_err(|_| stopped())
        });
        let n = settle(written, result)?;
        let attributes = source.attributes().cloned().unwrap_or_default();
        if needs_sidecar(&self.header, &attributes) {
            npy::write_sidecar(&self.path, &self.header, &attributes, false)?;
        }
        Ok(n)
    }
}

/// Whether the `.npy` file of `header` needs an NDL sidecar to keep what
/// its header cannot hold: attributes, or a datatype that NumPy's `descr`
/// loses part of (enum members, descriptions, units).
fn needs_sidecar(header: &Header, attributes: &NameMap<Attribute>) -> bool {
    if !attributes.is_empty() {
        return true;
    }
    let read_back = header
        .to_bytes()
        .ok()
        .and_then(|bytes| npy::read_header(&mut &bytes[..]).ok());
    read_back.is_some_and(|h| h.datatype != header.datatype)
}

/// What to know where the header written at `path` is longer than NumPy
/// reads without being asked (`np.load`'s `max_header_size`, a guard
/// against crafted files): a record of many fields, such as a whole-file
/// table, can have one.
pub(crate) fn header_size_note(path: &Path, header: &Header) -> Option<String> {
    let bytes = header.to_bytes().ok()?;
    let length_field = if bytes[6] == 1 { 2 } else { 4 };
    let len = bytes.len() - 8 - length_field;
    (len > npy::DEFAULT_MAX_HEADER_SIZE).then(|| {
        format!(
            "{}: its .npy header is {len} characters, more than the {} NumPy reads by default: \
             load it with np.load(path, max_header_size={len}) and describe it with \
             ndl describe --max-header-size {len}",
            path.display(),
            npy::DEFAULT_MAX_HEADER_SIZE
        )
    })
}

/// Copies every element of `source` to `w`. The source's own error is
/// returned as is; the writer's closure only learns that it stopped.
pub(crate) fn pass_through(
    source: &mut dyn Source,
    progress: Progress<'_>,
    w: &mut dyn Write,
) -> Result<u64> {
    for_each_batch(source, |bytes, done| {
        w.write_all(bytes).map_err(npy::Error::from)?;
        progress(done);
        Ok(())
    })
}

/// The one array of the `.npy` file at `path`.
pub fn contents(path: &Path, limits: &HeaderLimits) -> Result<Contents> {
    let (header, _) = read_header(path, limits)?;
    Ok(Contents::new(
        Arrangement::One,
        vec![entry("/".into(), stem(path), &header)],
    ))
}

/// The entry of an array with `header`.
pub(crate) fn entry(group: String, name: String, header: &Header) -> Entry {
    let storage = npy::storage_of(header, &header.datatype);
    Entry::new(group, name, spec_of(header), storage)
}

/// The `.npy` format, as the [registry](crate::FORMATS) lists it.
pub(crate) static FORMAT: FormatInfo = FormatInfo {
    name: "npy",
    noun: ".npy file",
    endings: &["npy"],
    members: false,
    sidecar: true,
    crash_prone: false,
    settings: &[],
    recognises: |_, start| Ok(start.starts_with(npy::MAGIC)),
    configure: |_, _, _| Ok(()),
    open: |path, options| {
        let source = NpySource::open(path, &options.limits)?;
        Ok(crate::sidecar::described(
            Box::new(source),
            path,
            &crate::contents::join("/", &stem(path)),
        ))
    },
    create: Some(|path, source, _| Ok(Box::new(NpySink::create(path, source.spec())?))),
    open_records: None,
    create_records: Some(|path, source, _| {
        Ok(Box::new(crate::npy_records::NpyRecordSink::create(
            path, source,
        )?))
    }),
    keeps_mixed_byte_orders: |_, _| true,
    contents,
    batch_file: None,
};
