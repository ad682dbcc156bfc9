//! netCDF-3 variables as [`Source`]s: one variable in its own big-endian
//! values, or the variables along one dimension as records (numbers in
//! native order, text as fixed strings, CF times decoded into time
//! fields), a block of rows at a time.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::file::{Netcdf3File, malformed};
use super::header::{Attribute, NcType};
use super::layout::Layout;
use super::values::text;
use crate::error::{Error, Result};
use crate::source::{BATCH_BYTES, Handover, Origin, Source};
use ndl_runtime::ArraySpec;
use ndl_runtime::time::{CfCounts, CfTimeUnits, CfValues};
use ndl_runtime::{ByteOrder, Charset, Datatype, FixedString, TimeType};

/// The values of one netCDF-3 variable, in the file's (big-endian) byte
/// order; a `char` variable's are fixed strings of its last dimension.
pub struct Netcdf3Source {
    path: PathBuf,
    /// The variable's name.
    name: String,
    /// Its dimensions' names, one per axis of `spec`.
    dimensions: Vec<String>,
    file: File,
    layout: Layout,
    spec: ArraySpec,
    next_row: u64,
    pending: Handover,
}

impl Netcdf3Source {
    /// The variable at `index` of `nc`.
    pub(crate) fn new(nc: Netcdf3File, index: usize) -> Result<Netcdf3Source> {
        let variable = &nc.header.variables[index];
        let layout = nc.layouts[index].clone();
        let mut spec = match (variable.kind, layout.shape.split_last()) {
            (NcType::Char, Some((&length, outer))) => {
                ArraySpec::new(fixed_string(length as usize), outer.to_vec())
            }
            (kind, _) => ArraySpec::new(kind.datatype(), layout.shape.clone()),
        };
        spec.byte_order = ByteOrder::Big;
        // A `char` variable's last dimension is its strings' length.
        let dimensions = variable
            .dimensions
            .iter()
            .take(spec.shape.len())
            .filter_map(|&d| nc.header.dimensions.get(d).map(|d| d.name.clone()))
            .collect();
        Ok(Netcdf3Source {
            name: variable.name.clone(),
            dimensions,
            file: open_data(&nc.path)?,
            path: nc.path,
            layout,
            spec,
            next_row: 0,
            pending: Handover::default(),
        })
    }
}

impl Source for Netcdf3Source {
    fn origin(&self) -> Origin<'_> {
        Origin::new(&self.spec, &self.path)
    }

    fn array_name(&self) -> String {
        self.name.clone()
    }

    fn dimension_names(&self) -> Option<Vec<String>> {
        Some(self.dimensions.clone())
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize> {
        let size = self.spec.element_size().max(1);
        let (file, layout, next_row, path) =
            (&mut self.file, &self.layout, &mut self.next_row, &self.path);
        self.pending.fill(buf, size, || {
            let left = layout.rows - *next_row;
            if left == 0 || layout.row_bytes == 0 {
                return Ok(None);
            }
            let n = (BATCH_BYTES as u64 / layout.row_bytes).clamp(1, left);
            let block = read_rows(file, layout, *next_row, n).map_err(|e| data_error(path, e))?;
            *next_row += n;
            Ok(Some(block))
        })
    }
}

/// One field of a table: which variable fills it, and how.
struct Column {
    name: String,
    layout: Layout,
    kind: NcType,
    offset: usize,
    /// Where the field is a time: how its stored counts are widened, and
    /// decoded into the field's counts where they are not those already.
    time: Option<(CfCounts, Option<CfValues>)>,
}

/// The variables of a netCDF-3 file along one first dimension as
/// records: a field per variable, in the file's order.
pub struct Netcdf3TableSource {
    path: PathBuf,
    file: File,
    columns: Vec<Column>,
    spec: ArraySpec,
    next_row: u64,
    pending: Handover,
}

impl Netcdf3TableSource {
    /// The table of `nc` whose record is `record`, a compound with a
    /// field named after each variable.
    pub(crate) fn new(nc: Netcdf3File, record: Datatype) -> Result<Netcdf3TableSource> {
        let Datatype::Compound(compound) = &record else {
            return Err(malformed(
                &nc.path,
                "a table's record is no compound".into(),
            ));
        };
        let mut columns = Vec::with_capacity(compound.members.len());
        for m in &compound.members {
            let index = nc.variable(&m.name)?;
            let variable = &nc.header.variables[index];
            let time = match m.datatype.innermost().0 {
                Datatype::Time(t) => Some(
                    time_decoding(*t, variable.kind, &variable.attributes)
                        .map_err(|e| malformed(&nc.path, format!("variable `{}`: {e}", m.name)))?,
                ),
                _ => None,
            };
            columns.push(Column {
                name: m.name.clone(),
                layout: nc.layouts[index].clone(),
                kind: variable.kind,
                offset: m.offset,
                time,
            });
        }
        let rows = columns.first().map_or(0, |c| c.layout.rows);
        Ok(Netcdf3TableSource {
            file: open_data(&nc.path)?,
            path: nc.path,
            columns,
            spec: ArraySpec::new(record, vec![rows]),
            next_row: 0,
            pending: Handover::default(),
        })
    }

    /// Records `start..start + n`, each field from its variable.
    fn records(&mut self, start: u64, n: u64) -> Result<Vec<u8>> {
        let size = self.spec.element_size();
        let mut out = vec![0u8; n as usize * size];
        for c in &self.columns {
            let stored = read_rows(&mut self.file, &c.layout, start, n)
                .map_err(|e| data_error(&self.path, e))?;
            let field = field_values(c, stored, start)
                .map_err(|e| malformed(&self.path, format!("variable `{}`, {e}", c.name)))?;
            let width = field.len() / n as usize;
            for (row, values) in field.chunks_exact(width.max(1)).enumerate() {
                let at = row * size + c.offset;
                out[at..at + width].copy_from_slice(values);
            }
        }
        Ok(out)
    }
}

impl Source for Netcdf3TableSource {
    fn origin(&self) -> Origin<'_> {
        Origin::new(&self.spec, &self.path)
    }

    fn is_part_of_dataset(&self) -> bool {
        true
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize> {
        let size = self.spec.element_size().max(1);
        let rows = self.spec.shape[0];
        let mut pending = std::mem::take(&mut self.pending);
        let filled = pending.fill(buf, size, || {
            let left = rows - self.next_row;
            if left == 0 {
                return Ok(None);
            }
            let n = (BATCH_BYTES / size) as u64;
            let n = n.clamp(1, left);
            let block = self.records(self.next_row, n)?;
            self.next_row += n;
            Ok(Some(block))
        });
        self.pending = pending;
        filled
    }
}

/// A column's stored values, of the records from `start` on, as its
/// field holds them: numbers in native order, text as it is, times as
/// int64 counts of the field's unit.
fn field_values(c: &Column, mut stored: Vec<u8>, start: u64) -> Result<Vec<u8>, String> {
    let size = c.kind.size();
    if size > 1 && ByteOrder::NATIVE == ByteOrder::Little {
        stored.chunks_exact_mut(size).for_each(<[u8]>::reverse);
    }
    let Some((counts_of, time)) = &c.time else {
        return Ok(stored);
    };
    let mut counts = Vec::new();
    counts_of.widen(&stored, &mut counts);
    if let Some(values) = time {
        values.apply(&mut counts).map_err(|(i, e)| {
            let per_record = (c.layout.row_bytes as usize / size).max(1);
            let record = start + (i / per_record) as u64;
            format!("record {record}: {e}")
        })?;
    }
    Ok(counts)
}

/// How a time variable of `kind` with `attributes` is widened to int64 or
/// float64 counts, and decoded into counts of `t`: `None` where the int64
/// values are those counts already.
fn time_decoding(
    t: TimeType,
    kind: NcType,
    attributes: &[Attribute],
) -> Result<(CfCounts, Option<CfValues>), String> {
    let counts = CfCounts::of(&kind.datatype())
        .ok_or("a time field is stored as integer or float counts")?;
    let text_of = |name: &str| {
        attributes
            .iter()
            .find(|a| a.name == name && a.kind == NcType::Char)
            .map(|a| text(&a.values))
    };
    let units = text_of("units").ok_or("a time without CF `units`")?;
    let cf =
        CfTimeUnits::parse(&units, text_of("calendar").as_deref()).map_err(|e| e.to_string())?;
    // The fill widened as the values are, so that it compares equal.
    let fill = ["_FillValue", "missing_value"]
        .iter()
        .find_map(|k| attributes.iter().find(|a| a.name == *k && a.kind == kind))
        .and_then(|a| a.values.get(..kind.size()))
        .map(|v| {
            let mut native = v.to_vec();
            native.reverse();
            let mut wide = Vec::with_capacity(8);
            counts.widen(&native, &mut wide);
            <[u8; 8]>::try_from(wide).expect("one count widens to 8 bytes")
        });
    let float = counts.is_float();
    let fill_float = fill.filter(|_| float).map(f64::from_ne_bytes);
    let fill_int = fill.filter(|_| !float).map(i64::from_ne_bytes);
    let values = CfValues::new(t, &cf, float, fill_float, fill_int).map_err(|e| e.to_string())?;
    Ok((counts, values))
}

fn fixed_string(length: usize) -> Datatype {
    Datatype::FixedString(FixedString {
        length,
        charset: Charset::Ascii,
    })
}

/// The file at `path`, opened again for its data.
fn open_data(path: &Path) -> Result<File> {
    File::open(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Rows `start..start + n` of a variable placed by `layout`, as stored:
/// one read where they follow each other, else one per row.
fn read_rows(file: &mut File, layout: &Layout, start: u64, n: u64) -> std::io::Result<Vec<u8>> {
    let row = layout.row_bytes as usize;
    let mut out = vec![0u8; n as usize * row];
    if layout.stride == layout.row_bytes {
        file.seek(SeekFrom::Start(layout.begin + start * layout.stride))?;
        file.read_exact(&mut out)?;
        return Ok(out);
    }
    for (k, chunk) in out.chunks_exact_mut(row.max(1)).enumerate() {
        file.seek(SeekFrom::Start(
            layout.begin + (start + k as u64) * layout.stride,
        ))?;
        file.read_exact(chunk)?;
    }
    Ok(out)
}

/// A read of a variable's data that failed: the file changed or shrank
/// since its header was read.
fn data_error(path: &Path, e: std::io::Error) -> Error {
    malformed(path, format!("reading a variable's data: {e}"))
}
