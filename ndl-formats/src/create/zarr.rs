//! A planned document as a Zarr store (v3, or v2): a group per group path
//! with its attributes, an array per dimcoord and ndarray, named in the
//! `dimension_names` (v2: `_ARRAY_DIMENSIONS`) of the arrays shaped by
//! it; an extent given by its size is named as in netCDF-4 (`dim_<size>`,
//! `<ndarray>_<k>` when unlimited). An unlimited dimension is made empty.
//! The store is built in a hidden directory beside the destination and
//! renamed into place whole.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use ndl_runtime::lang::zarr::{v2_group, v3_group};
use ndl_runtime::record::Column;
use ndl_runtime::records::PackedLayout;
use ndl_runtime::{Datatype, Order};
use ndl_zarr::{Codec, GridWriter, VlenKind, WriteOptions, ZarrFormat};
use serde_json::{Map, Value as Json, json};

use super::plan::{Filter, Plan, PlannedArray, PlannedAttribute};
use super::values::{Values, encode};
use crate::error::{Error, Result};

/// What Zarr cannot hold that the document has: `vlen` sequences (v3 has
/// no such data type, and zarr-python reads no v2 `vlen-array`), and
/// compounds holding `string` or `vlen` members (the struct data type's
/// members have a fixed size).
pub(super) fn check(plan: &Plan, doc: &Path) -> Result<()> {
    let refused = |a: &PlannedArray, message: &str| Error::Document {
        path: doc.to_path_buf(),
        location: format!("{}: type", a.at),
        message: message.into(),
    };
    for (_, a) in plan.arrays() {
        if matches!(a.datatype, Datatype::Vlen(_)) {
            return Err(refused(
                a,
                "Zarr has no variable-length sequence data type (v3 has none, and \
                 zarr-python reads no v2 `vlen-array`): make an .h5 or .nc file",
            ));
        }
        if a.is_records() {
            return Err(refused(
                a,
                "Zarr's struct data type holds members of a fixed size, not `string` or \
                 `vlen` ones: make an .h5 file, or give each member an ndarray of its own",
            ));
        }
    }
    let lengths = unlimited_lengths(plan);
    for (_, a) in plan.arrays().filter(|(_, a)| a.value.is_some()) {
        let grown = grown_extents(a, &lengths);
        if grown.get(1..) != a.extents.get(1..) {
            return Err(Error::Document {
                path: doc.to_path_buf(),
                location: format!("{}: value", a.at),
                message: "an unlimited dimension after the first is longer in another array, and \
                          Zarr arrays along one dimension have one length: give every array \
                          along it as many values"
                    .into(),
            });
        }
    }
    Ok(())
}

/// Writes `plan` as a new store at `dest`, published whole.
pub(super) fn write(plan: &Plan, dest: &Path, format: u8) -> Result<()> {
    let io = |source| Error::Io {
        path: dest.to_path_buf(),
        source,
    };
    let parent = dest
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = dest.file_name().and_then(|n| n.to_str()).unwrap_or("store");
    let building = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .tempdir_in(parent)
        .map_err(io)?;
    let root = building.path().join("store");
    let format = if format == 2 {
        ZarrFormat::V2
    } else {
        ZarrFormat::V3
    };
    for g in &plan.groups {
        // A group's ancestors are groups too, with no attributes of
        // their own unless the document gives them some.
        for above in ancestors(&g.path).filter(|p| plan.groups.iter().all(|g| g.path != *p)) {
            group(&root.join(above.trim_start_matches('/')), &[], format).map_err(io)?;
        }
        group(
            &root.join(g.path.trim_start_matches('/')),
            &g.attributes,
            format,
        )
        .map_err(io)?;
    }
    // A dimension alone is the name its ndarrays give it, as xarray
    // writes a dimension without a coordinate.
    let lengths = unlimited_lengths(plan);
    for (_, a) in plan.arrays().filter(|(g, a)| !a.is_dimension_only(g)) {
        let extents = grown_extents(a, &lengths);
        array(
            &root.join(a.path.trim_start_matches('/')),
            a,
            &extents,
            format,
        )?;
    }
    ndl_runtime::staging::publish_dir(&root, dest, false).map_err(io)
}

/// Each unlimited dimcoord's length, by group path and name: the longest
/// extent any array has along it, as netCDF's unlimited dimension is.
fn unlimited_lengths(plan: &Plan) -> HashMap<(String, String), u64> {
    let mut lengths = HashMap::new();
    for (_, a) in plan.arrays() {
        for ((dim, max), &extent) in a.dims.iter().zip(&a.max).zip(&a.extents) {
            if let (Some(dim), None) = (dim, max) {
                let length = lengths.entry(dim.clone()).or_insert(0);
                *length = extent.max(*length);
            }
        }
    }
    lengths
}

/// `a`'s extents, each along an unlimited dimcoord grown to the
/// dimcoord's length: xarray refuses arrays of one dimension whose
/// lengths differ.
fn grown_extents(a: &PlannedArray, lengths: &HashMap<(String, String), u64>) -> Vec<u64> {
    let along = |k: usize| a.dims[k].as_ref().filter(|_| a.max[k].is_none());
    (0..a.extents.len())
        .map(|k| match along(k).and_then(|dim| lengths.get(dim)) {
            Some(&length) => length.max(a.extents[k]),
            None => a.extents[k],
        })
        .collect()
}

/// The paths of the groups above the group at `path`, the root first.
fn ancestors(path: &str) -> impl Iterator<Item = String> + '_ {
    let cuts = path.match_indices('/').map(|(i, _)| i).filter(|&i| i > 0);
    std::iter::once("/".to_string())
        .filter(move |_| path != "/")
        .chain(cuts.map(move |i| path[..i].to_string()))
}

fn group(dir: &Path, attrs: &[PlannedAttribute], format: ZarrFormat) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let attributes = json_attributes(attrs);
    let write =
        |name: &str, doc: Json| std::fs::write(dir.join(name), ndl_zarr::document_bytes(&doc));
    match format {
        ZarrFormat::V3 => write("zarr.json", v3_group(&attributes)),
        ZarrFormat::V2 => {
            write(".zgroup", v2_group())?;
            write(".zattrs", Json::Object(attributes))
        }
    }
}

/// The attributes `attrs` as a Zarr node's: a list of one as its element,
/// as `convert` and xarray write netCDF's attributes (every one a list
/// there, a scalar's of one), which describe gives as `shape: [1]`.
fn json_attributes(attrs: &[PlannedAttribute]) -> Map<String, Json> {
    use crate::attribute_json::{zarr_attribute, zarr_json};
    attrs
        .iter()
        .map(|a| (a.name.clone(), zarr_attribute(zarr_json(&a.value))))
        .collect()
}

/// Writes the array `a` at `dir`, its extents `extents` (its own, or
/// grown along unlimited dimcoords: the elements past its values are its
/// fill).
fn array(dir: &Path, a: &PlannedArray, extents: &[u64], format: ZarrFormat) -> Result<()> {
    let flat;
    let a = match &a.datatype {
        // zarr-python 3 reads no subarray data types.
        Datatype::Array(_) => {
            flat = a.without_array_type();
            &flat
        }
        _ => a,
    };
    // An array type's dimensions come last, never grown; only the first
    // grows where values are given (see `check`).
    let extents = [extents, &a.extents[extents.len()..]].concat();
    let mut options = WriteOptions::new()
        .zarr_format(format)
        .byte_order(a.byte_order)
        .codec(codec(&a.filters));
    if let Some(chunk) = &a.chunk {
        options = options.chunks(chunk);
    }
    for (name, value) in json_attributes(&a.attributes) {
        options = options.attribute(&name, value);
    }
    if a.datatype == Datatype::String {
        strings(dir, a, &extents, &options)?;
        return name_dimensions(dir, &dimension_names(a), format).map_err(|source| Error::Io {
            path: dir.to_path_buf(),
            source,
        });
    }
    let packed = PackedLayout::new(&a.datatype).map_err(|source| Error::Pack {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut w = GridWriter::create_with(dir, &a.datatype, &extents, Order::C, &options)?;
    match &a.value {
        // Zarr stores records packed: the value again, in that layout.
        Some(v) => match encode(v, &a.extents, packed.datatype(), a.nulls(), "value") {
            Ok(Values::Bytes(mut bytes)) => {
                // Rows past the values, where the first dimension grew.
                let fill = a.fill.clone().unwrap_or_else(|| vec![0; packed.size()]);
                let all = extents.iter().product::<u64>() as usize;
                let given = a.extents.iter().product::<u64>() as usize;
                for _ in given..all {
                    bytes.extend_from_slice(&fill);
                }
                w.append(&bytes)?;
                w.finish()?
            }
            _ => {
                return Err(Error::Unsupported {
                    path: dir.to_path_buf(),
                    message: format!("{}: the value does not pack", a.at),
                });
            }
        },
        // Every element reads as the array's `fill_value` (the fill, set
        // below, else zeros) from chunks never stored.
        None => w.finish_unwritten()?,
    };
    let io = |source| Error::Io {
        path: dir.to_path_buf(),
        source,
    };
    if let Some(fill) = &a.fill {
        set_fill(dir, a, fill, format).map_err(io)?;
    }
    name_dimensions(dir, &dimension_names(a), format).map_err(io)
}

/// Sets the array's `fill_value` to `fill`, and its `_FillValue`
/// attribute, which xarray masks, in v3 and where it is masked (an
/// `optional`'s, one given as the attribute).
fn set_fill(dir: &Path, a: &PlannedArray, fill: &[u8], format: ZarrFormat) -> std::io::Result<()> {
    let column = Column::template(&a.datatype)
        .ok()
        .and_then(|t| match t {
            Column::Values { datatype, values } => Some(Column::Values {
                datatype,
                values: ndl_runtime::record::Values::from_ne_bytes(&values, fill),
            }),
            _ => None,
        })
        .ok_or_else(|| std::io::Error::other("a fill of a number only"))?;
    let (fill_value, attribute) = ndl_zarr::fill_metadata(&column, format);
    let edit = |file: PathBuf, key: &str, value: Json| {
        edit_document(&file, |meta| match format {
            ZarrFormat::V3 if key == "_FillValue" => {
                let attrs = meta.entry("attributes").or_insert_with(|| json!({}));
                attrs[key] = value;
            }
            _ => {
                meta.insert(key.into(), value);
            }
        })
    };
    let (array_file, attrs_file) = match format {
        ZarrFormat::V3 => (dir.join("zarr.json"), dir.join("zarr.json")),
        ZarrFormat::V2 => (dir.join(".zarray"), dir.join(".zattrs")),
    };
    edit(array_file, "fill_value", fill_value)?;
    // xarray masks a v2 array's `fill_value`, and a v3 array's
    // `_FillValue` attribute only: a v3 fill says so there too, as the
    // fill of a netCDF variable does.
    if a.masked || format == ZarrFormat::V3 {
        edit(attrs_file, "_FillValue", attribute)?;
    }
    Ok(())
}

/// A `string` array: v3 `string`, v2 `|O` with `vlen-utf8`, as
/// zarr-python writes them; an element without a value is the empty
/// string (zarr-python's fill of a string array).
fn strings(dir: &Path, a: &PlannedArray, extents: &[u64], options: &WriteOptions) -> Result<()> {
    let given: &[String] = match &a.values {
        Values::Strings(v) => v,
        _ => &[],
    };
    let mut w = options.create_vlen(dir, VlenKind::Text, extents)?;
    for i in 0..extents.iter().product::<u64>() {
        let value = usize::try_from(i).ok().and_then(|i| given.get(i));
        w.append(value.map_or(&b""[..], |v| v.as_bytes()))?;
    }
    w.finish()?;
    Ok(())
}

fn codec(filters: &[Filter]) -> Codec {
    filters
        .iter()
        .find_map(|f| match f {
            Filter::Deflate(level) => Some(Codec::Zlib(u32::from(*level))),
            Filter::Zarr(codec) => Some(*codec),
            Filter::Shuffle => None,
        })
        .unwrap_or(Codec::None)
}

fn dimension_names(a: &PlannedArray) -> Vec<String> {
    a.dims
        .iter()
        .enumerate()
        .map(|(k, d)| match d {
            Some((_, name)) => name.clone(),
            None => a.anonymous_dimension(k),
        })
        .collect()
}

/// Sets the array's dimension names in its metadata.
fn name_dimensions(dir: &Path, names: &[String], format: ZarrFormat) -> std::io::Result<()> {
    let (file, key) = match format {
        ZarrFormat::V3 => (dir.join("zarr.json"), "dimension_names"),
        ZarrFormat::V2 => (dir.join(".zattrs"), "_ARRAY_DIMENSIONS"),
    };
    edit_document(&file, |meta| {
        meta.insert(key.into(), json!(names));
    })
}

/// Changes the metadata document `file` (a new one where there is none)
/// as `change` says; floats JSON has no number for stay Python's bare
/// words, as zarr-python reads them.
fn edit_document(file: &Path, change: impl FnOnce(&mut Map<String, Json>)) -> std::io::Result<()> {
    let text = match std::fs::read(file) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => b"{}".to_vec(),
        read => read?,
    };
    let mut meta = match ndl_zarr::parse_document(&text).map_err(std::io::Error::other)? {
        Json::Object(meta) => meta,
        _ => return Err(std::io::Error::other("the metadata is not a JSON object")),
    };
    change(&mut meta);
    std::fs::write(file, ndl_zarr::document_bytes(&Json::Object(meta)))
}
