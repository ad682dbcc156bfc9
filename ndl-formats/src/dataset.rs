//! A file of several arrays that are no table, converted whole into a
//! Zarr group or an HDF5 or netCDF-4 file: an xarray dataset's variables
//! and coordinates, an HDF5 file's datasets, an `.npz` archive's members,
//! a Zarr group's arrays.
//!
//! Each array is read as `--member` reads it (its values as stored, its
//! dimensions named, its attributes and CF encodings carried, unless
//! `--decode-cf` undoes them) and written at the path it has in the file;
//! the file's root attributes, but its bookkeeping, are the
//! destination's, and the groups between keep theirs. The destination
//! appears whole: a Zarr group with consolidated metadata, so that
//! `xr.open_zarr` opens it as the file's dataset; a netCDF-4 file whose
//! variables share their dimensions, so that `ncdump` and
//! `xr.open_dataset` do.

use std::path::Path;

use ndl_hdf5::DocumentWriter;
use ndl_runtime::Datatype;

use crate::attribute_json::zarr_typed;
use crate::carried::group_attributes;
use crate::contents::{Contents, Entry};
use crate::conversion::{ConvertOptions, Progress};
use crate::convert_one::{Opened, convert_to};
use crate::error::{Error, Result, in_hdf5};
use crate::fill::Filled;
use crate::format::Format;
use crate::one_order::in_one_order;
use crate::records::{RecordSource, require_fills};
use crate::source::Source;

/// Whether a destination of `format` takes a whole file of arrays: a
/// Zarr store, an HDF5 or netCDF-4 file.
pub(crate) fn takes(format: Format) -> bool {
    [ZARR, HDF5].iter().any(|f| f.name() == format.name())
}

const ZARR: Format = Format(&crate::zarr::FORMAT);
const HDF5: Format = Format(&crate::hdf5::FORMAT);

/// Converts every array of the file at `src` into a new Zarr group, or
/// HDF5 or netCDF-4 file, of `format` at `dst`; returns the number of
/// elements.
///
/// # Errors
/// As a conversion of each array alone (`--member`); nothing appears at
/// `dst` when one fails.
pub(crate) fn convert(
    format: Format,
    src: &Path,
    dst: &Path,
    options: &ConvertOptions,
    progress: &dyn Fn(Progress),
) -> Result<u64> {
    let contents = Format::of_existing(src)?.contents(src, &options.read.limits)?;
    for warning in &contents.warnings {
        progress(Progress::Note(warning.clone()));
    }
    progress(Progress::Total(total(&contents)));
    match format.name() == ZARR.name() {
        true => to_zarr(src, dst, &contents, options, progress),
        false => to_hdf5(src, dst, &contents, options, progress),
    }
}

/// The arrays of `contents`, at `src`, as the arrays of a new Zarr group
/// at `dst`.
fn to_zarr(
    src: &Path,
    dst: &Path,
    contents: &Contents,
    options: &ConvertOptions,
    progress: &dyn Fn(Progress),
) -> Result<u64> {
    let mut group_options = options.write.zarr.zarr.clone();
    for (name, value) in group_attributes(&contents.attributes) {
        let stored = contents.attribute_types.get(&name);
        group_options = group_options.attribute(&name, zarr_typed(value, stored));
    }
    let mut group = ndl_zarr::GroupWriter::create(dst, &group_options)?;
    for g in contents.groups.iter().filter(|g| g.path != "/") {
        let attributes = group_attributes(&g.attributes).into_iter();
        group.group(
            &g.path,
            attributes
                .map(|(k, v)| {
                    let value = zarr_typed(v, g.attribute_types.get(&k));
                    (k, value)
                })
                .collect(),
        );
    }
    let mut done = 0;
    for entry in &contents.entries {
        let name = entry.label();
        let at = group.array_location(&name)?;
        let read = whole_file_member(options, entry);
        let progress = after(done, progress);
        let options = for_rank(options, entry.spec.shape.len());
        done += convert_to(ZARR, (src, &read), &at, &options, &progress)?;
    }
    group.finish()?;
    Ok(done)
}

/// `options` for an array of `rank` dimensions: `--chunks` of another
/// rank chunks it by default, as HDF5 destinations do.
fn for_rank(options: &ConvertOptions, rank: usize) -> ConvertOptions {
    let mut options = options.clone();
    let zarr = &mut options.write.zarr.zarr;
    *zarr = std::mem::take(zarr).chunks_for_rank(rank);
    options
}

/// The arrays of `contents`, at `src`, as the datasets of a new HDF5 or
/// netCDF-4 file at `dst`, sharing its dimensions: the coordinate
/// variables first, as netCDF-C makes them.
fn to_hdf5(
    src: &Path,
    dst: &Path,
    contents: &Contents,
    options: &ConvertOptions,
    progress: &dyn Fn(Progress),
) -> Result<u64> {
    let mut options = options.clone();
    let hdf5 = &mut options.write.hdf5.options;
    let asked = hdf5.netcdf_said().is_some() || hdf5.is_netcdf(dst);
    let named = contents.entries.iter().any(|e| e.dimension_names.is_some());
    if !asked && named {
        match no_netcdf_type(contents) {
            None => *hdf5 = std::mem::take(hdf5).netcdf(true),
            Some(why) => progress(Progress::Note(format!(
                "{}: the arrays' dimension names are left out: they come with netCDF-4's \
                 dimension scales, and {why}, which netCDF has no type for",
                dst.display()
            ))),
        }
    }
    let options = &options;
    let hdf5 = &options.write.hdf5.options;
    let mut file = DocumentWriter::create_with(dst, hdf5).map_err(in_hdf5(dst))?;
    let root = (&contents.attributes, &contents.attribute_types);
    let mut notes = crate::hdf5_attributes::write_group(dst, &file, "/", root)?;
    for g in contents.groups.iter().filter(|g| g.path != "/") {
        file.group(&g.path).map_err(in_hdf5(dst))?;
        let attributes = (&g.attributes, &g.attribute_types);
        notes.extend(crate::hdf5_attributes::write_group(
            dst, &file, &g.path, attributes,
        )?);
    }
    for note in notes {
        progress(Progress::Note(note));
    }
    let (coordinates, variables): (Vec<&Entry>, Vec<&Entry>) =
        contents.entries.iter().partition(|e| is_coordinate(e));
    let mut done = 0;
    for entry in coordinates.into_iter().chain(variables) {
        let progress = after(done, progress);
        done += match Opened::open(src, &whole_file_member(options, entry))? {
            Opened::Array(source) => {
                array_into(&mut file, (dst, entry), source, options, &progress)?
            }
            Opened::Records(records) => {
                records_into(&mut file, (dst, entry), records, options, &progress)?
            }
        };
    }
    file.finish().map_err(in_hdf5(dst))?;
    Ok(done)
}

/// Writes the array `source`, the file's `entry`, as a dataset of `file`
/// at `dst`; returns its number of elements.
fn array_into(
    file: &mut DocumentWriter,
    (dst, entry): (&Path, &Entry),
    source: Box<dyn Source>,
    options: &ConvertOptions,
    progress: &dyn Fn(Progress),
) -> Result<u64> {
    let mut source = in_one_order(source);
    for note in source.notes() {
        progress(Progress::Note(note.clone()));
    }
    let spec = source.spec().clone();
    crate::hdf5::refuse_fortran_order(dst, &spec)?;
    let mut dataset_options = crate::hdf5::dataset_options(source.as_ref(), &options.write.hdf5);
    if entry.unlimited.first() == Some(&true) {
        dataset_options = dataset_options.unlimited_first(true);
    }
    let element = (&spec.datatype, spec.byte_order, &spec.shape[..]);
    let mut writer = file
        .array(&entry.label(), element, &dataset_options)
        .map_err(in_hdf5(dst))?;
    crate::hdf5_attributes::write(dst, &writer, source.as_ref())?;
    let report = |n| progress(Progress::Done(n));
    let done = crate::hdf5::write_rows(dst, source.as_mut(), &mut writer, &report)?;
    writer.finish().map_err(in_hdf5(dst))?;
    Ok(done)
}

/// Writes the variable records `source` (an HDF5 compound holding
/// strings, sequences or options), the file's `entry`, as a dataset of
/// `file` at `dst` with the attributes it carries, options filled as
/// `--fill` says; returns their number. A netCDF-4 file takes none
/// (netCDF4-python reads no such compound).
fn records_into(
    file: &mut DocumentWriter,
    (dst, entry): (&Path, &Entry),
    source: Box<dyn RecordSource>,
    options: &ConvertOptions,
    progress: &dyn Fn(Progress),
) -> Result<u64> {
    let name = &entry.label();
    if options.write.hdf5.options.is_netcdf(dst) {
        return Err(Error::Unsupported {
            path: dst.to_path_buf(),
            message: format!(
                "`{name}` holds records with strings, lists or options, which netCDF4-python \
                 reads in no compound: convert the file to an .h5 file or a Zarr store, or \
                 `{name}` alone with --member {name} --layout columns"
            ),
        });
    }
    let mut source = Filled::new(source, &options.fills)?;
    for note in source.notes() {
        progress(Progress::Note(note.clone()));
    }
    let origin = source.origin();
    require_fills(dst, &origin, "an HDF5 file")?;
    let template = (origin.datatype.clone(), origin.template.clone());
    let mut writer = file
        .records(name, &template.0, &template.1, &options.write.hdf5.options)
        .map_err(in_hdf5(dst))?;
    while let Some(batch) = source.next_batch()? {
        writer.append(&batch).map_err(in_hdf5(dst))?;
        progress(Progress::Done(writer.len()));
    }
    crate::hdf5_attributes::write_records(dst, &writer, &source)?;
    writer.finish().map_err(in_hdf5(dst))
}

/// The array of `contents`, and what it holds, that netCDF-4 has no type
/// for, if any: variable records, a 16-bit float, a compound holding an
/// enum or bool (which netCDF4-python skips). A file of arrays that name
/// their dimensions copied to HDF5 takes the netCDF-4 profile otherwise,
/// as HDF5 names dimensions only with dimension scales (netCDF-4's, which
/// xarray and h5netcdf read), though the file's name does not end in
/// `.nc`.
fn no_netcdf_type(contents: &Contents) -> Option<String> {
    contents.entries.iter().find_map(|e| {
        let dt = &e.spec.datatype;
        let why = if matches!(dt, Datatype::Compound(c) if c.is_variable()) {
            "holds records of strings, lists or options".to_string()
        } else if holds_f16(dt) {
            "holds 16-bit floats".to_string()
        } else {
            let field = ndl_hdf5::netcdf4_python_skips(dt)?;
            format!("holds records whose `{field}` is an enum or bool")
        };
        Some(format!("`{}` {why}", e.label()))
    })
}

/// Whether `dt` holds a 16-bit float anywhere.
fn holds_f16(dt: &Datatype) -> bool {
    match dt {
        Datatype::Float16 => true,
        Datatype::Compound(c) => c.members.iter().any(|m| holds_f16(&m.datatype)),
        Datatype::Array(a) => holds_f16(&a.base),
        Datatype::Vlen(base) | Datatype::Optional(base) => holds_f16(base),
        _ => false,
    }
}

/// How the member `name` of a file copied whole is read: as `options`
/// say, the variables its `coordinates` name coming along.
fn whole_file_member(options: &ConvertOptions, entry: &Entry) -> crate::ReadOptions {
    let mut read = options.read.clone().member(entry.label());
    read.whole_file = true;
    read.shape = Some(entry.spec.shape.clone());
    read
}

/// Whether `entry` is a coordinate variable: one dimension, named as
/// itself.
fn is_coordinate(entry: &Entry) -> bool {
    matches!(entry.dimension_names.as_deref(), Some([Some(d)]) if *d == entry.name)
}

/// `progress` of one array, after `done` elements of the others: its
/// counts added to theirs, its total left out (the whole's is given).
fn after(done: u64, progress: &dyn Fn(Progress)) -> impl Fn(Progress) + '_ {
    move |p| match p {
        Progress::Total(_) => {}
        Progress::Done(n) => progress(Progress::Done(done + n)),
        note => progress(note),
    }
}

/// The elements of every array of `contents`.
fn total(contents: &Contents) -> u64 {
    contents
        .entries
        .iter()
        .map(|e| e.spec.len().unwrap_or(0))
        .sum()
}
