//! Which format a path holds, and the one place where each format is
//! plugged in: its source, its sink, its contents.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use ndl_runtime::npy::{self, HeaderLimits};
use ndl_runtime::npz::NpzReader;

use crate::arrow::{ColumnFile, ColumnFileSink, ColumnFileSource};
use crate::contents::{join, stem};
use crate::error::{Error, Result};
use crate::hdf5::{Hdf5Sink, Hdf5SinkOptions};
use crate::npy::{NpySink, NpySource};
use crate::npz::{NpzSink, NpzSource};
use crate::sink::Sink;
use crate::source::Source;
use crate::zarr::{is_remote, ZarrSink, ZarrSinkOptions, ZarrSource};
use crate::zarr_strings::{VlenSink, VlenSource};
use ndl_zarr::VlenReader;

/// The formats of arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// A NumPy `.npy` file: one array.
    Npy,
    /// A NumPy `.npz` archive: named arrays.
    Npz,
    /// A Zarr store (v2 or v3): an array of records, or a group of columns.
    Zarr,
    /// A Parquet file: a table of records.
    Parquet,
    /// An Arrow IPC file (`.arrow`, Feather v2) or stream (`.arrows`): a
    /// table of records. Feather v1 files are known, to be refused by
    /// name.
    Arrow,
    /// An HDF5 file (`.h5`, `.hdf5`; netCDF-4's `.nc` is one): datasets
    /// in groups.
    Hdf5,
    /// A netCDF-3 file (CDF-1 classic, CDF-2 64-bit offset, CDF-5 64-bit
    /// data; also named `.nc`): variables over shared dimensions. Read
    /// only: a `.nc` destination is written as netCDF-4.
    Netcdf3,
}

impl Format {
    /// The format of what is at `path`: a directory or an `s3://` prefix is
    /// a Zarr store, a file is known by its first bytes, and a zip file by
    /// its members (an `.npz` archive or a Zarr zip store).
    pub fn of_existing(path: &Path) -> Result<Format> {
        if path.is_dir() || is_remote(path) {
            return Ok(Format::Zarr);
        }
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut start = Vec::with_capacity(8);
        File::open(path)
            .map_err(io)?
            .take(8)
            .read_to_end(&mut start)
            .map_err(io)?;
        if start.as_slice() == crate::hdf5::SIGNATURE {
            return Ok(Format::Hdf5);
        }
        if crate::netcdf3::SIGNATURES
            .iter()
            .any(|s| start.starts_with(*s))
        {
            return Ok(Format::Netcdf3);
        }
        let start = &start[..start.len().min(6)];
        if start == npy::MAGIC {
            return Ok(Format::Npy);
        }
        if start.starts_with(b"PAR1") {
            return Ok(Format::Parquet);
        }
        // An IPC stream starts with the continuation marker; Feather v1
        // is taken in only for ndl-arrow to refuse it by its name.
        if start == b"ARROW1" || start.starts_with(&[0xFF; 4]) || start.starts_with(b"FEA1") {
            return Ok(Format::Arrow);
        }
        if start.starts_with(b"PK\x03\x04") || start.starts_with(b"PK\x05\x06") {
            return zip_format(path);
        }
        if crate::hdf5::signature_after_user_block(path)? {
            return Ok(Format::Hdf5);
        }
        Err(Error::UnknownFormat {
            path: path.to_path_buf(),
            reason: not_an_array_file(start),
        })
    }

    /// The format a new file or store at `path` is written in, by its
    /// name's ending (`.npy`, `.npz`, `.zarr`) or an `s3://` prefix.
    pub fn of_destination(path: &Path) -> Result<Format> {
        match path.extension().and_then(|e| e.to_str()) {
            Some("npy") => Ok(Format::Npy),
            Some("npz") => Ok(Format::Npz),
            Some("zarr") => Ok(Format::Zarr),
            Some("parquet") => Ok(Format::Parquet),
            Some("arrow" | "arrows" | "feather") => Ok(Format::Arrow),
            Some("h5" | "hdf5" | "nc") => Ok(Format::Hdf5),
            _ if is_remote(path) => Ok(Format::Zarr),
            _ => Err(Error::UnknownFormat {
                path: path.to_path_buf(),
                reason: "not a .npy, .npz, .parquet, .arrow, .arrows, .h5 or .nc file nor a .zarr store \
                         (say which by the name's ending)"
                    .into(),
            }),
        }
    }
}

impl Format {
    /// Whether a file of this format holds named arrays, one of which
    /// `ReadOptions::member` picks.
    fn has_members(self) -> bool {
        matches!(self, Format::Npz | Format::Hdf5 | Format::Netcdf3)
    }

    /// What a file or store of this format is called in messages.
    pub fn noun(self) -> &'static str {
        match self {
            Format::Npy => ".npy file",
            Format::Npz => ".npz archive",
            Format::Zarr => "Zarr store",
            Format::Parquet => "Parquet file",
            Format::Arrow => "Arrow IPC file or stream",
            Format::Hdf5 => "HDF5 or netCDF-4 file",
            Format::Netcdf3 => "netCDF-3 file",
        }
    }
}

/// The metadata documents at a Zarr store's root, v3 and v2.
const ZARR_ROOT: [&str; 4] = ["zarr.json", ".zarray", ".zgroup", ".zattrs"];

/// What a zip file at `path` is, by its members: a Zarr zip store (Zarr
/// metadata at its root), or an `.npz` archive (`.npy` members, or none,
/// as an empty `np.savez` writes).
fn zip_format(path: &Path) -> Result<Format> {
    let members = NpzReader::open(path)?.member_names();
    if members.iter().any(|m| ZARR_ROOT.contains(&m.as_str())) {
        return Ok(Format::Zarr);
    }
    // NumPy loads an archive with other members too (as bytes); describing
    // one leaves them out with a warning.
    if members.is_empty() || members.iter().any(|m| m.ends_with(".npy")) {
        return Ok(Format::Npz);
    }
    let mut shown: Vec<&str> = members.iter().take(5).map(String::as_str).collect();
    if members.len() > shown.len() {
        shown.push("…");
    }
    Err(Error::UnknownFormat {
        path: path.to_path_buf(),
        reason: format!(
            "a zip file that is neither an .npz archive (.npy members) nor a Zarr zip store \
             (zarr.json, .zarray or .zgroup at its root); it holds {}",
            shown.join(", ")
        ),
    })
}

/// Why a file's first bytes are no array file's.
fn not_an_array_file(start: &[u8]) -> String {
    if start.is_empty() {
        return "the file is empty".into();
    }
    // `np.load` takes anything else for a pickle; say so when it is one.
    let pickle = match start {
        [0x80, 2..=5, ..] => " (a Python pickle, which is not described)",
        _ => "",
    };
    let escaped: String = start
        .iter()
        .flat_map(|b| b.escape_ascii())
        .map(char::from)
        .collect();
    format!(
        "not a .npy file (which starts with \\x93NUMPY), a .npz archive (a zip file), a Parquet, Arrow IPC, HDF5 or netCDF-3 file nor a .zarr store (a directory); it starts with b\"{escaped}\"{pickle}"
    )
}

/// How to read a source.
#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    /// Bounds on a `.npy` header.
    pub limits: HeaderLimits,
    /// The member of an archive to read, when it has more than one.
    pub member: Option<String>,
}

/// How to write a sink.
#[derive(Clone, Debug, Default)]
pub struct SinkOptions {
    /// How a Zarr store is written.
    pub zarr: ZarrSinkOptions,
    /// How an HDF5 or netCDF-4 file is written.
    pub hdf5: Hdf5SinkOptions,
}

/// Whether a sink at `path`, written with `options`, keeps each number of
/// an element in its own byte order, as a `.npy` record may have them:
/// `.npy`, `.npz`, Zarr v2's records layout and HDF5 datasets of records
/// (not netCDF-4's, whose data model has no byte order per member). Sinks
/// of the others take elements in one order, and
/// [`convert`](crate::convert) puts them so.
pub(crate) fn keeps_mixed_byte_orders(path: &Path, options: &SinkOptions) -> Result<bool> {
    Ok(match Format::of_destination(path)? {
        Format::Npy | Format::Npz => true,
        Format::Zarr => {
            let zarr = &options.zarr;
            zarr.keep_byte_order && !zarr.variable_strings && zarr.zarr.keeps_mixed_byte_orders()
        }
        Format::Hdf5 => !options.hdf5.columns && !options.hdf5.options.is_netcdf(path),
        Format::Parquet | Format::Arrow | Format::Netcdf3 => false,
    })
}

/// Opens the array at `path`, whatever its format.
pub fn open(path: &Path, options: &ReadOptions) -> Result<Box<dyn Source>> {
    let format = Format::of_existing(path)?;
    if let (Some(member), false) = (&options.member, format.has_members()) {
        return Err(Error::Member {
            path: path.to_path_buf(),
            message: format!(
                "member `{member}` asked for, but a {} holds one array and no members \
                 (members are those of .npz archives and HDF5 and netCDF files)",
                format.noun()
            ),
        });
    }
    Ok(match format {
        Format::Npy => {
            let source = NpySource::open(path, &options.limits)?;
            crate::sidecar::described(Box::new(source), path, &join("/", &stem(path)))
        }
        Format::Npz => {
            let source = NpzSource::open(path, options.member.as_deref(), &options.limits)?;
            let array_path = source.array_path().to_owned();
            crate::sidecar::described(Box::new(source), path, &array_path)
        }
        Format::Zarr if VlenReader::probe(path)?.is_some() => Box::new(VlenSource::open(path)?),
        Format::Zarr => Box::new(ZarrSource::open(path)?),
        Format::Parquet => Box::new(ColumnFileSource::open(path, ColumnFile::Parquet)?),
        Format::Arrow => Box::new(ColumnFileSource::open(path, ColumnFile::Ipc)?),
        Format::Hdf5 => crate::hdf5::open(path, options.member.as_deref())?,
        Format::Netcdf3 => crate::netcdf3::open(path, options.member.as_deref())?,
    })
}

/// Creates a sink at `path`, in the format its name says, for the array of
/// `source`; an `.npz` member is named after the source's file.
pub fn create(path: &Path, source: &dyn Source, options: &SinkOptions) -> Result<Box<dyn Sink>> {
    let spec = source.spec();
    let format = Format::of_destination(path)?;
    if spec.mixes_byte_orders() && !keeps_mixed_byte_orders(path, options)? {
        return Err(Error::Unsupported {
            path: path.to_path_buf(),
            message: format!(
                "{} mixes byte orders within an element, which this format does not keep; \
                 `convert` puts them in one",
                source.location().display()
            ),
        });
    }
    Ok(match format {
        Format::Npy => Box::new(NpySink::create(path, spec)?),
        Format::Npz => Box::new(NpzSink::create(path, &stem(source.location()), spec)?),
        Format::Zarr if options.zarr.variable_strings => {
            Box::new(VlenSink::create(path, source, &options.zarr.zarr)?)
        }
        Format::Zarr => Box::new(ZarrSink::create(path, source, &options.zarr)?),
        Format::Parquet => Box::new(ColumnFileSink::create(path, spec, ColumnFile::Parquet)?),
        Format::Arrow => Box::new(ColumnFileSink::create(path, spec, ColumnFile::Ipc)?),
        Format::Hdf5 => Box::new(Hdf5Sink::create(path, spec, &options.hdf5)?),
        // No destination's name picks it (`.nc` is written as netCDF-4).
        Format::Netcdf3 => {
            return Err(Error::Unsupported {
                path: path.to_path_buf(),
                message: "netCDF-3 files are read, not written".into(),
            })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A zip file at `path` with members `names` (one byte each).
    fn zip(path: &Path, names: &[&str]) {
        ndl_testkit::python::run_python(
            "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z:\n    for n in sys.argv[2:]:\n        z.writestr(n, b'x')",
            &[&[path.to_str().unwrap()], names].concat(),
        );
    }

    #[test]
    fn a_zip_is_known_by_its_members() {
        let dir = tempfile::tempdir().unwrap();
        let at = |name: &str, members: &[&str]| {
            let path = dir.path().join(name);
            zip(&path, members);
            Format::of_existing(&path)
        };
        assert_eq!(at("a.zip", &["zarr.json", "c/0"]).unwrap(), Format::Zarr);
        assert_eq!(
            at("b.zip", &[".zgroup", "x/.zarray"]).unwrap(),
            Format::Zarr
        );
        assert_eq!(at("c.npz", &["a.npy", "b.npy"]).unwrap(), Format::Npz);
        assert_eq!(at("d.npz", &[]).unwrap(), Format::Npz);
        assert_eq!(at("e.npz", &["a.npy", "notes.txt"]).unwrap(), Format::Npz);
        let e = at("e.zip", &["readme.txt", "notes.txt"])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("neither an .npz") && e.contains("notes.txt"),
            "{e}"
        );
        let e = at("f.zip", &["s/zarr.json"]).unwrap_err().to_string();
        assert!(e.contains("s/zarr.json"), "{e}");
    }
}
