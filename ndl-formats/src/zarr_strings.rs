//! Zarr arrays of variable-length strings and bytes as a [`Source`] and a
//! [`Sink`], and as an entry of a description.
//!
//! Reading, values become the narrowest fixed NumPy type that holds every
//! one: `U<n>` for text (v3 `string`, v2 `vlen-utf8`), `S<n>` for bytes
//! (v3 `variable_length_bytes`, v2 `vlen-bytes`), found by a first pass
//! over the chunks. Writing (`ndl convert --strings variable`), fixed `U`
//! and `S` values become variable-length ones, their trailing NULs
//! trimmed as NumPy trims them; values of another store are taken as
//! stored ([`Source::each_value`]), trailing NULs and all.

use std::path::{Path, PathBuf};

use ndl_runtime::ndl::Storage;
use ndl_runtime::{ByteOrder, Charset, Datatype, FixedString};
use ndl_zarr::{VlenKind, VlenReader, VlenValues, WriteOptions};

use crate::contents::{Arrangement, Contents, Entry, stem};
use crate::error::{Error, Result};
use crate::sink::refuse_existing;
use crate::sink::{Progress, Sink};
use crate::source::{Origin, Source, for_each_batch};
use ndl_runtime::{ArraySpec, Order};

/// A fixed width is refused when its padded values would be this many
/// times the bytes of the values as stored...
const MAX_PADDING_RATIO: u64 = 256;
/// ...and more than this many bytes in all.
const PADDING_FLOOR: u64 = 1 << 30;

/// The values of a variable-length array, padded to the narrowest fixed
/// width that holds them all, a slab of chunk rows at a time.
pub struct VlenSource {
    path: PathBuf,
    spec: ArraySpec,
    reader: VlenReader,
    narrowed: String,
    /// The slab being handed out, and the next of its values.
    slab: Option<(VlenValues, usize)>,
}

impl VlenSource {
    /// The attributes of the array another tool wrote, as a destination
    /// carries them; `None` for ours, which names its type.
    pub(crate) fn foreign_attributes(&self) -> Option<&serde_json::Map<String, serde_json::Value>> {
        let attributes = self.reader.attributes();
        (!attributes.contains_key("ndl_datatype")).then_some(attributes)
    }

    /// Opens the store at `path` and finds its widest value (one pass over
    /// every chunk).
    ///
    /// # Errors
    /// If the store holds no variable-length array, a chunk or value is
    /// corrupt, or the width would make the padded values more than 256
    /// times (and more than 1 GiB beyond) the values as stored: the error
    /// names the widest element and its chunk.
    pub fn open(path: &Path) -> Result<VlenSource> {
        let reader = VlenReader::open(path)?;
        let widest = reader.widest()?;
        let kind = reader.kind();
        let chunks: Vec<u64> = (widest.index.iter().zip(reader.chunk_shape()))
            .map(|(i, c)| i / c)
            .collect();
        let widest = Widest {
            len: widest.len,
            at: format!("element {:?} (chunk {chunks:?})", widest.index),
            total_bytes: widest.total_bytes,
        };
        let text = kind == VlenKind::Text;
        let (spec, note) = fixed_strings(path, text, &widest, reader.shape().to_vec())?;
        Ok(VlenSource {
            path: path.to_path_buf(),
            spec,
            reader,
            narrowed: note,
            slab: None,
        })
    }
}

/// The widest of a variable-length array's values.
pub(crate) struct Widest {
    /// Its length: characters for text, bytes otherwise.
    pub len: u64,
    /// Where it is, in words (`element [3] (chunk [0])`).
    pub at: String,
    /// The bytes of every value of the array.
    pub total_bytes: u64,
}

/// The array of `shape` of the narrowest fixed NumPy type that holds the
/// values whose widest is `widest` (`U` for text, `S` for bytes), with a
/// note saying so.
///
/// # Errors
/// When the width would make the padded values more than 256 times (and
/// more than 1 GiB beyond) the values as stored.
pub(crate) fn fixed_strings(
    path: &Path,
    text: bool,
    widest: &Widest,
    shape: Vec<u64>,
) -> Result<(ArraySpec, String)> {
    let charset = if text { Charset::Utf32 } else { Charset::Ascii };
    let units = if text { "characters" } else { "bytes" };
    let length = usize::try_from(widest.len.max(1)).unwrap_or(usize::MAX);
    let datatype = Datatype::FixedString(FixedString { length, charset });
    let spec = ArraySpec::new(datatype, shape);
    let n = spec.len().unwrap_or(u64::MAX);
    let item = (length as u64).saturating_mul(charset.width() as u64);
    let padded = n.saturating_mul(item);
    let stored = widest.total_bytes.saturating_add(n.saturating_mul(4));
    if item > i32::MAX as u64 || (padded > PADDING_FLOOR && padded / MAX_PADDING_RATIO > stored) {
        return Err(Error::Unsupported {
            path: path.to_path_buf(),
            message: format!(
                "{} holds {} {units}: a fixed width that holds it, for all {n} elements, makes {padded} bytes of {} from {stored} bytes of values; convert to a format with variable-length strings (Parquet, Arrow, Zarr)",
                widest.at,
                widest.len,
                spec.datatype.numpy_descr(),
            ),
        });
    }
    let note = format!(
        "{}: {} values are variable-length, and are converted as {}, the narrowest fixed width that holds every value (the longest, {}, has {} {units}){}",
        path.display(),
        if text {
            "the string"
        } else {
            "the byte-string"
        },
        spec.datatype.numpy_descr(),
        widest.at,
        widest.len,
        if text {
            "; trailing NUL characters are lost, as NumPy strips them"
        } else {
            "; trailing NUL bytes are lost, as NumPy strips them"
        },
    );
    Ok((spec, note))
}

impl Source for VlenSource {
    fn origin(&self) -> Origin<'_> {
        Origin::new(&self.spec, &self.path)
    }

    fn dimension_names(&self) -> Option<Vec<String>> {
        self.reader.dimension_names()?.iter().cloned().collect()
    }

    fn batch_hint(&self) -> u64 {
        self.reader.slab_len().max(1)
    }

    fn narrowed_strings(&self) -> Option<&str> {
        Some(&self.narrowed)
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize> {
        let size = self.spec.element_size().max(1);
        let text = self.reader.kind() == VlenKind::Text;
        let mut n = 0;
        'elements: for out in buf.chunks_exact_mut(size) {
            loop {
                if let Some((slab, at)) = &mut self.slab
                    && *at < slab.len()
                {
                    pad(slab.get(*at), out, text);
                    (*at, n) = (*at + 1, n + 1);
                    continue 'elements;
                }
                match self.reader.next_slab()? {
                    Some(slab) => self.slab = Some((slab, 0)),
                    None => break 'elements,
                }
            }
        }
        Ok(n)
    }

    fn each_value(&mut self, each: &mut dyn FnMut(&[u8]) -> Result<()>) -> Option<Result<u64>> {
        Some(self.each_left(each))
    }
}

impl VlenSource {
    /// Hands `each` the values not yet read, as stored.
    fn each_left(&mut self, each: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<u64> {
        let mut n = 0;
        loop {
            if let Some((slab, at)) = &mut self.slab {
                for i in *at..slab.len() {
                    each(slab.get(i))?;
                    (*at, n) = (i + 1, n + 1);
                }
            }
            match self.reader.next_slab()? {
                Some(slab) => self.slab = Some((slab, 0)),
                None => return Ok(n),
            }
        }
    }
}

/// Writes `value` into the fixed-width element `out`, zero-padded: text
/// as native UTF-32 code units, bytes as they are.
pub(crate) fn pad(value: &[u8], out: &mut [u8], text: bool) {
    out.fill(0);
    if !text {
        out[..value.len()].copy_from_slice(value);
        return;
    }
    // The chunk was checked to be UTF-8 when decoded.
    let chars = String::from_utf8_lossy(value);
    for (c, unit) in chars.chars().zip(out.chunks_exact_mut(4)) {
        unit.copy_from_slice(&u32::from(c).to_ne_bytes());
    }
}

/// A new Zarr store of variable-length values from a source of fixed
/// `U` / `S` strings, published whole once complete.
pub struct VlenSink {
    path: PathBuf,
    spec: ArraySpec,
    kind: VlenKind,
    options: WriteOptions,
}

impl VlenSink {
    /// A sink at `path` for the fixed strings of `source`.
    ///
    /// # Errors
    /// If the source's elements are not fixed strings, or are in Fortran
    /// order with two or more dimensions.
    pub fn create(path: &Path, source: &dyn Source, options: &WriteOptions) -> Result<VlenSink> {
        let spec = source.spec().clone();
        let unsupported = |message: String| Error::Unsupported {
            path: path.to_path_buf(),
            message,
        };
        let kind = match &spec.datatype {
            Datatype::FixedString(s) if s.charset == Charset::Utf32 => VlenKind::Text,
            Datatype::FixedString(_) => VlenKind::Bytes,
            other => {
                return Err(unsupported(format!(
                    "variable-length strings are written from arrays of fixed strings (NumPy U or S), not {}",
                    other.numpy_descr()
                )));
            }
        };
        if spec.order == Order::Fortran && spec.shape.len() > 1 {
            return Err(unsupported(
                "variable-length strings are written in C order; this array is in Fortran order"
                    .into(),
            ));
        }
        if !crate::location::is_remote(path) {
            refuse_existing(path)?;
        }
        Ok(VlenSink {
            path: path.to_path_buf(),
            spec,
            kind,
            options: options.clone(),
        })
    }
}

impl Sink for VlenSink {
    fn variable_strings(&self) -> bool {
        true
    }

    fn write_from(self: Box<Self>, source: &mut dyn Source, progress: Progress<'_>) -> Result<u64> {
        let options = self.options.clone().publish_on_finish(true);
        let mut writer = options.create_vlen(&self.path, self.kind, &self.spec.shape)?;
        if let Some(n) = self.values_as_stored(source, &mut writer, progress) {
            let n = n?;
            writer.finish()?;
            progress(n);
            return Ok(n);
        }
        let size = self.spec.element_size().max(1);
        let from = source.location().to_path_buf();
        let mut text = String::new();
        let n = for_each_batch(source, |bytes, done| {
            let first = done - (bytes.len() / size) as u64;
            for (i, element) in bytes.chunks_exact(size).enumerate() {
                let value = match self.kind {
                    VlenKind::Bytes => trim_nuls(element, 1),
                    VlenKind::Text => {
                        utf32(element, self.spec.byte_order, &mut text).map_err(|message| {
                            Error::InvalidValue {
                                path: from.clone(),
                                record: first + i as u64,
                                field: String::new(),
                                message,
                            }
                        })?;
                        text.as_bytes()
                    }
                };
                writer.append(value)?;
            }
            progress(done);
            Ok(())
        })?;
        writer.finish()?;
        Ok(n)
    }
}

impl VlenSink {
    /// Appends the values of a source of variable-length values as they
    /// are stored, where it hands them so: of this sink's kind, since both
    /// take their kind from the same fixed type (`U` is text, `S` bytes).
    fn values_as_stored(
        &self,
        source: &mut dyn Source,
        writer: &mut ndl_zarr::VlenWriter,
        progress: Progress<'_>,
    ) -> Option<Result<u64>> {
        let mut n = 0u64;
        source.each_value(&mut |value| {
            writer.append(value)?;
            n += 1;
            if n.is_multiple_of(PROGRESS_EVERY) {
                progress(n);
            }
            Ok(())
        })
    }
}

/// How many values a copy of values as stored writes between two reports
/// of its progress.
const PROGRESS_EVERY: u64 = 1 << 16;

/// `element` without its trailing NUL units of `width` bytes.
fn trim_nuls(element: &[u8], width: usize) -> &[u8] {
    let mut end = element.len();
    while end >= width && element[end - width..end].iter().all(|&b| b == 0) {
        end -= width;
    }
    &element[..end]
}

/// Decodes the UTF-32 `element` in `order`, trailing NULs trimmed, into
/// `out`.
fn utf32(element: &[u8], order: ByteOrder, out: &mut String) -> std::result::Result<(), String> {
    out.clear();
    for c in ndl_runtime::utf32::chars(element, order) {
        out.push(c.map_err(|(_, code)| format!("U+{code:04X} is not a Unicode scalar value"))?);
    }
    Ok(())
}

/// The one variable-length array of the store at `path`, as a description
/// shows it: the NDL datatype `string` (text) or a vlen of `uint8`
/// (bytes), the store's own metadata document.
pub fn contents(path: &Path) -> Result<Contents> {
    let reader = VlenReader::open(path)?;
    Ok(Contents::new(
        Arrangement::One,
        vec![entry(&reader, stem(path))],
    ))
}

/// The entry, named `name`, of the variable-length array `reader` reads.
pub(crate) fn entry(reader: &VlenReader, name: String) -> Entry {
    let spec = ArraySpec::new(reader.kind().datatype(), reader.shape().to_vec());
    let filter: Vec<serde_yaml::Value> = reader
        .compressors()
        .iter()
        .filter_map(|c| serde_yaml::to_value(c).ok())
        .collect();
    let storage = Storage {
        chunk: Some(reader.chunk_shape().iter().map(|&c| c as usize).collect()),
        filter: (!filter.is_empty()).then_some(filter),
        ..Storage::default()
    };
    let mut entry = Entry::new("/".into(), name, spec, storage);
    (entry.attributes, entry.attribute_types) =
        crate::attribute_json::from_zarr(reader.attributes());
    entry.dimension_names = reader.dimension_names().map(<[_]>::to_vec);
    entry.native_metadata = Some(reader.metadata().clone());
    entry
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailing_nuls_are_trimmed_as_numpy_trims_them() {
        assert_eq!(trim_nuls(b"ab\0\0", 1), b"ab");
        assert_eq!(trim_nuls(b"\0a\0", 1), b"\0a");
        assert_eq!(trim_nuls(b"\0\0", 1), b"");
        let mut s = String::new();
        let mut e = Vec::new();
        for c in ['é', 'x', '\0'] {
            e.extend_from_slice(&u32::from(c).to_be_bytes());
        }
        utf32(&e, ByteOrder::Big, &mut s).unwrap();
        assert_eq!(s, "éx");
        let bad = 0xD800u32.to_le_bytes();
        assert!(
            utf32(&bad, ByteOrder::Little, &mut s)
                .unwrap_err()
                .contains("U+D800")
        );
    }

    #[test]
    fn values_are_padded_to_the_width() {
        let mut out = [9u8; 8];
        pad("é".as_bytes(), &mut out, true);
        assert_eq!(out[..4], u32::from('é').to_ne_bytes());
        assert_eq!(out[4..], [0; 4]);
        let mut out = [9u8; 3];
        pad(b"\x01", &mut out, false);
        assert_eq!(out, [1, 0, 0]);
    }
}
