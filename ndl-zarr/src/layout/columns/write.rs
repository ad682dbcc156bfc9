//! Writing the columns layout: a group, and an appender per column.

use std::ops::Range;

use ndl_runtime::lang::zarr::ZarrFormat;
use ndl_runtime::time::CfEncoding;
use ndl_runtime::{ByteOrder, Datatype};
use rayon::prelude::*;
use serde_json::{Map, json};

use std::collections::BTreeMap;

use super::{Column, Extra, NCZARR_ATTR, NCZARR_ATTR_LOWER, Style, plan};
use crate::append::Appender;
use crate::chunks::{ChunkIo, parallel, with_buffer};
use crate::documents::{consolidate, read_group, write_group};
use crate::error::{Error, Result};
use crate::metadata::{ArrayMeta, NDL_DATATYPE};
use crate::options::WriteOptions;
use crate::store::Store;

/// Copies records `range` of the batch being appended, byte ranges
/// `fields` of each record (columns' fields), into `outs`, one column each.
pub(crate) type GatherFn<'a> = dyn Fn(Range<usize>, &[Range<usize>], &mut [&mut [u8]]) + Sync + 'a;

/// Appends records to a columns store: chunk by chunk in parallel, every
/// column of a chunk gathered in one pass over the records.
pub(crate) struct ColumnsWriter {
    columns: Vec<(Column, Appender)>,
    /// Each column's bytes in a record.
    fields: Vec<Range<usize>>,
    /// The group's metadata of a new store, when it is written last (after
    /// the columns') by `finish`, not at creation.
    group: Option<Box<Group>>,
    /// The group's node and format, whose consolidated metadata `finish`
    /// rewrites; none for a region writer, which leaves the metadata (and
    /// runs beside other region writers of the same store).
    root: Option<(Store, ZarrFormat)>,
}

/// A group's metadata not yet in its store.
struct Group {
    store: Store,
    format: ZarrFormat,
    attributes: Map<String, serde_json::Value>,
}

impl Group {
    fn write(self) -> Result<()> {
        write_group(&self.store, self.format, self.attributes)
    }
}

impl std::fmt::Debug for ColumnsWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ColumnsWriter")
            .field("columns", &self.columns.len())
            .field("len", &self.len())
            .finish()
    }
}

impl ColumnsWriter {
    /// Creates a group at the root of the empty `store` for records of `dt`
    /// (in its own layout, which the gather functions read), described by
    /// `title`, and an array per column, all of length 0. The group's
    /// `ndl_datatype` is `written`: `dt`, or the layout of the records
    /// `dt` packs.
    pub fn create(
        options: &WriteOptions,
        store: &Store,
        (dt, written): (&Datatype, &Datatype),
        title: Option<&str>,
        dimension: &str,
        extra: &BTreeMap<String, Extra>,
    ) -> Result<ColumnsWriter> {
        if options.format == ZarrFormat::V2 && options.order() == ndl_runtime::ByteOrder::Big {
            return Err(Error::Unsupported {
                message: "the columns layout writes Zarr v2 little-endian, as netCDF-C reads it \
                          (Debian's ncdump 4.9 misreads big-endian values): leave the byte order, \
                          or write Zarr v3"
                    .into(),
            });
        }
        let style = Style {
            chars_as_u1: options.chars_as_u1,
            order: options.order(),
        };
        let columns = plan(dt, style)?;
        let record: usize = columns.iter().map(|c| c.size).sum();
        let chunk_len = options.chunk_len_for(record)?;
        let mut attributes = options.attributes.clone();
        if let Some(title) = title {
            attributes.insert("title".into(), json!(title));
        }
        attributes.insert(NDL_DATATYPE.into(), json!(written));
        let group = Group {
            store: store.clone(),
            format: options.format,
            attributes,
        };
        let deferred = options.publish_on_finish;
        let group = if deferred {
            Some(Box::new(group))
        } else {
            group.write()?;
            None
        };
        let mut appenders = Vec::with_capacity(columns.len());
        for c in columns {
            let column = store.child(&c.name);
            let mut attributes = c.attributes.clone();
            if options.format == ZarrFormat::V3 {
                // netCDF-C reads no v3 store: its type map would only clutter.
                attributes.remove(NCZARR_ATTR);
                attributes.remove(NCZARR_ATTR_LOWER);
            }
            let shape = std::iter::once(0).chain(c.inner.iter().copied()).collect();
            let dims = std::iter::once(dimension.to_string())
                .chain(c.dims.iter().cloned())
                .collect();
            let more = extra.get(&c.name);
            if let Some(more) = more {
                attributes.extend(more.attributes.clone());
            }
            let mut meta = ArrayMeta::new(options, &c.element, shape, chunk_len, attributes, dims)
                .map_err(|e| in_column(&c, e))?;
            if let Some(fill) = more.and_then(|m| m.fill.clone()) {
                meta.set_fill(fill).map_err(|e| in_column(&c, e))?;
            }
            let appender = Appender::create(ChunkIo::new(&column, &meta)?, meta, deferred)?;
            appenders.push((c, appender));
        }
        let mut writer = ColumnsWriter::new(appenders, Some((store.clone(), options.format)));
        writer.group = group;
        Ok(writer)
    }

    fn new(columns: Vec<(Column, Appender)>, root: Option<(Store, ZarrFormat)>) -> ColumnsWriter {
        let fields = columns
            .iter()
            .map(|(c, _)| c.offset..c.offset + c.size)
            .collect();
        ColumnsWriter {
            columns,
            fields,
            group: None,
            root,
        }
    }

    /// The writer that appends to the columns store `store` of records of
    /// `dt`: each column must be there, holding the values of its field
    /// (characters as `|S1` or `|u1`: both hold the same bytes).
    ///
    /// Columns of different lengths (a crash between two columns' length
    /// updates) hold as many records as the shortest, as readers see them:
    /// the append goes on from there, rewriting what the longer columns
    /// hold beyond it, and `finish` sets every column to one length.
    pub fn open(store: &Store, dt: &Datatype) -> Result<ColumnsWriter> {
        let mut writer = ColumnsWriter::open_with(store, dt, Appender::start)?;
        writer.root = read_group(store)?.map(|(format, _)| (store.clone(), format));
        let len = writer.len();
        for (_, a) in &mut writer.columns {
            a.rewind(len)?;
        }
        Ok(writer)
    }

    /// The writer of records `range` of every column (see
    /// [`Appender::region`]): within every column's length.
    pub fn region(store: &Store, dt: &Datatype, range: Range<u64>) -> Result<ColumnsWriter> {
        ColumnsWriter::open_with(store, dt, |chunks, meta| {
            Appender::region(chunks, meta, range.clone())
        })
    }

    /// Sets every column's length (see [`Appender::resize`]).
    pub fn resize(self, len: u64) -> Result<()> {
        let consolidate = self.consolidation();
        self.columns
            .into_iter()
            .try_for_each(|(_, a)| a.resize(len))?;
        self.group.map_or(Ok(()), |g| g.write())?;
        consolidate()
    }

    /// The column names, and the group's consolidated metadata to rewrite
    /// from their documents once written.
    fn consolidation(&self) -> impl FnOnce() -> Result<()> + use<> {
        let names: Vec<String> = self.columns.iter().map(|(c, _)| c.name.clone()).collect();
        let root = self.root.clone();
        move || {
            let Some((store, format)) = root else {
                return Ok(());
            };
            consolidate(&store, format, names.iter().map(String::as_str))
        }
    }

    fn open_with(
        store: &Store,
        dt: &Datatype,
        start: impl Fn(ChunkIo, ArrayMeta) -> Result<Appender>,
    ) -> Result<ColumnsWriter> {
        let style = Style {
            chars_as_u1: false,
            order: ndl_runtime::ByteOrder::Little,
        };
        let mut appenders = Vec::new();
        for c in plan(dt, style)? {
            let column = store.child(&c.name);
            let meta = ArrayMeta::read(&column)?;
            super::read::check_column(&column, &meta, &c)?;
            check_time_units(&column, &meta, &c)?;
            let appender = start(ChunkIo::new(&column, &meta)?, meta)?;
            appenders.push((c, appender));
        }
        Ok(ColumnsWriter::new(appenders, None))
    }

    /// The number of records once finished.
    pub fn len(&self) -> u64 {
        self.columns.iter().map(|(_, a)| a.len).min().unwrap_or(0)
    }

    /// Appends `n` records whose columns `gather` copies out: first those
    /// that complete the columns' partial last chunks, then whole chunks,
    /// then the rest into the columns' tails.
    ///
    /// Time counts stored in a coarser CF unit are multiplied on the way;
    /// if one overflows, nothing is appended.
    pub fn append_with(&mut self, n: usize, gather: &GatherFn<'_>) -> Result<()> {
        let scaled: Vec<(Range<usize>, CfEncoding)> = self
            .scaled_times()
            .into_iter()
            .map(|(_, f, e)| (f.clone(), e))
            .collect();
        if scaled.is_empty() {
            return self.append_gathered(n, gather);
        }
        self.check_time_range(n, gather)?;
        self.append_gathered(n, &|range, fields, outs| {
            gather(range, fields, outs);
            for (field, out) in fields.iter().zip(outs) {
                if let Some((_, encoding)) = scaled.iter().find(|(f, _)| f == field) {
                    let scaled = encoding.scale(out, ByteOrder::NATIVE);
                    scaled.expect("check_time_range found every count scales");
                }
            }
        })
    }

    /// The time columns whose counts are stored in a coarser CF unit, with
    /// their fields and encodings.
    fn scaled_times(&self) -> Vec<(&(Column, Appender), &Range<usize>, CfEncoding)> {
        self.columns
            .iter()
            .zip(&self.fields)
            .filter_map(|(c, f)| Some((c, f, c.0.time.filter(|e| e.factor() != 1)?)))
            .collect()
    }

    /// Finds the first time count of the `n` records that `gather` copies
    /// out whose product with its column's factor overflows, before any is
    /// stored: the error names its record and field.
    fn check_time_range(&self, n: usize, gather: &GatherFn<'_>) -> Result<()> {
        const BLOCK: usize = 1 << 16;
        let scaled = self.scaled_times();
        let fields: Vec<Range<usize>> = scaled.iter().map(|(_, f, _)| (*f).clone()).collect();
        for start in (0..n).step_by(BLOCK) {
            let end = (start + BLOCK).min(n);
            let mut buffers: Vec<Vec<u8>> = fields
                .iter()
                .map(|f| vec![0; (end - start) * f.len()])
                .collect();
            let mut outs: Vec<&mut [u8]> = buffers.iter_mut().map(Vec::as_mut_slice).collect();
            gather(start..end, &fields, &mut outs);
            for (((c, a), _, encoding), values) in scaled.iter().zip(&mut buffers) {
                if let Err(u) = encoding.scale(values, ByteOrder::NATIVE) {
                    let per_record = c.size / 8;
                    return Err(Error::ValueOutOfRange {
                        store: a.store().name.clone(),
                        record: self.len() + (start + u.index / per_record) as u64,
                        field: c.name.clone(),
                        message: encoding.unscalable_message(u),
                    });
                }
            }
        }
        Ok(())
    }

    /// Appends the `n` records `gather` copies out, as they are.
    fn append_gathered(&mut self, n: usize, gather: &GatherFn<'_>) -> Result<()> {
        let Some((_, first)) = self.columns.first() else {
            return Ok(());
        };
        // Every column has the same length, chunks and region.
        first.check_room(n)?;
        let chunk_len = first.chunk_len() as usize;
        let head = match first.tail_len() {
            0 => 0,
            in_tail => (chunk_len - in_tail).min(n),
        };
        self.append_per_column(0..head, gather)?;
        let whole = (n - head) / chunk_len;
        self.store_whole_chunks(head, whole, chunk_len, gather)?;
        self.append_per_column(head + whole * chunk_len..n, gather)
    }

    /// Appends records `range` of the batch column by column, through each
    /// column's appender (into its tail, mostly).
    fn append_per_column(&mut self, range: Range<usize>, gather: &GatherFn<'_>) -> Result<()> {
        if range.is_empty() {
            return Ok(());
        }
        self.columns
            .par_iter_mut()
            .zip(&self.fields)
            .try_for_each(|((_, a), field)| {
                a.append_with(range.len(), &|r, out| {
                    let batch = range.start + r.start..range.start + r.end;
                    gather(batch, std::slice::from_ref(field), &mut [out])
                })
            })
    }

    /// Stores `whole` chunks of every column from records `at..` of the
    /// batch, in parallel: each gathers its columns in one pass.
    fn store_whole_chunks(
        &mut self,
        at: usize,
        whole: usize,
        chunk_len: usize,
        gather: &GatherFn<'_>,
    ) -> Result<()> {
        let Some((_, first)) = self.columns.first() else {
            return Ok(());
        };
        if whole == 0 {
            return Ok(());
        }
        let first_chunk = first.len / chunk_len as u64;
        let (columns, fields) = (&self.columns, &self.fields);
        // Each column's bytes in a chunk.
        let widths: Vec<usize> = fields.iter().map(|f| chunk_len * f.len()).collect();
        let chunk_bytes = widths.iter().sum();
        parallel(first.store(), || {
            (0..whole).into_par_iter().try_for_each(|i| {
                let start = at + i * chunk_len;
                with_buffer(chunk_bytes, |buffer| {
                    let mut outs = Vec::with_capacity(widths.len());
                    let mut rest = buffer;
                    for &w in &widths {
                        let (out, after) = rest.split_at_mut(w);
                        outs.push(out);
                        rest = after;
                    }
                    gather(start..start + chunk_len, fields, &mut outs);
                    columns
                        .iter()
                        .zip(outs)
                        .try_for_each(|((_, a), out)| a.store_chunk(first_chunk + i as u64, out))
                })
            })
        })?;
        for (_, a) in &mut self.columns {
            a.advance((whole * chunk_len) as u64);
        }
        Ok(())
    }

    /// Stores every column's last chunk, then sets every column's length:
    /// a crash between two columns' metadata leaves columns of different
    /// lengths, which readers take up to the shortest, and the next append
    /// evens out.
    pub fn finish(mut self) -> Result<u64> {
        self.columns
            .par_iter_mut()
            .try_for_each(|(_, a)| a.flush())?;
        let len = self.len();
        let consolidate = self.consolidation();
        for (_, a) in self.columns {
            a.commit()?;
        }
        self.group.map_or(Ok(()), |g| g.write())?;
        consolidate()?;
        Ok(len)
    }
}

/// Appending to a time column needs the CF units this writer stores its
/// counts in: a store written otherwise (by another tool, or with other
/// units) would get counts of another unit.
fn check_time_units(store: &Store, meta: &ArrayMeta, c: &Column) -> Result<()> {
    if !matches!(c.leaf, Datatype::Time(_)) {
        return Ok(());
    }
    let (theirs, ours) = (meta.attributes.get("units"), c.attributes.get("units"));
    if theirs == ours && meta.stored == Datatype::Int64 {
        return Ok(());
    }
    let show = |u: Option<&serde_json::Value>| u.map_or("none".to_string(), |u| u.to_string());
    Err(Error::TypeMismatch {
        store: store.name.clone(),
        field: c.name.clone(),
        message: format!(
            "the time column's `units` are {}, appending stores int64 counts in {}: \
             rewrite the store to append to it",
            show(theirs),
            show(ours)
        ),
    })
}

fn in_column(c: &Column, e: Error) -> Error {
    match e {
        Error::Unsupported { message } => Error::Unsupported {
            message: format!("field `{}`: {message}", c.name),
        },
        other => other,
    }
}
