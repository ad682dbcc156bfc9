//! The registry of formats: the one list of them, and what is done by
//! going through it: which format a path holds or names, opening sources,
//! creating sinks, the sink options a command line's settings make.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::column_file::ColumnFile;
use crate::contents::Contents;
use crate::error::{Error, Result};
use crate::format::{Format, FormatInfo};
use crate::npz::{ZipHolds, is_zip, zip_holds};
use crate::options::{ReadOptions, SinkOptions, WriteSettings};
use crate::records::RecordSink;
use crate::records::RecordSource;
use crate::sink::Sink;
use crate::source::Source;

/// Every format, in the order files are recognised: by their first
/// bytes, HDF5 last (it also looks past a user block).
pub static FORMATS: [&FormatInfo; 7] = [
    &crate::npy::FORMAT,
    &crate::npz::FORMAT,
    &crate::zarr::FORMAT,
    &crate::arrow::PARQUET,
    &crate::arrow::IPC,
    &crate::netcdf3::FORMAT,
    &crate::hdf5::FORMAT,
];

impl Format {
    /// Every format of the registry.
    pub fn all() -> impl Iterator<Item = Format> {
        FORMATS.iter().map(|info| Format(info))
    }

    /// The format of what is at `path`: a directory or an `s3://` prefix is
    /// a Zarr store, a file is known by its first bytes, and a zip file by
    /// its members (an `.npz` archive or a Zarr zip store).
    pub fn of_existing(path: &Path) -> Result<Format> {
        let start = first_bytes(path)?;
        for format in Format::all() {
            if (format.info().recognises)(path, &start)? {
                return Ok(format);
            }
        }
        Err(Error::UnknownFormat {
            path: path.to_path_buf(),
            reason: not_an_array_file(path, &start)?,
        })
    }

    /// The format a new file or store at `path` is written in, by its
    /// name's ending, or an `s3://` prefix (a Zarr store).
    pub fn of_destination(path: &Path) -> Result<Format> {
        // A zip store (zarr-python's `ZipStore`), not an archive of `.npy`s.
        if path.to_string_lossy().ends_with(".zarr.zip") {
            return Ok(Format(&crate::zarr::FORMAT));
        }
        let ending = path.extension().and_then(|e| e.to_str());
        let by_ending =
            Format::all().find(|f| ending.is_some_and(|e| f.info().endings.contains(&e)));
        if let Some(format) = by_ending {
            return Ok(format);
        }
        if crate::location::is_remote(path) {
            return Ok(Format(&crate::zarr::FORMAT));
        }
        Err(Error::UnknownFormat {
            path: path.to_path_buf(),
            reason: format!(
                "not a {} (say which by the name's ending)",
                either(Format::written())
            ),
        })
    }

    /// The destinations, by their endings: `.npy file`, `.zarr store` ...
    pub fn written() -> Vec<String> {
        Format::all()
            .filter(|f| !f.info().endings.is_empty())
            .map(|f| {
                let endings: Vec<String> =
                    f.info().endings.iter().map(|e| format!(".{e}")).collect();
                format!("{} ({})", f.noun(), endings.join(", "))
            })
            .collect()
    }

    /// What a file or store of it holds, for descriptions.
    pub fn contents(
        self,
        path: &Path,
        limits: &ndl_runtime::npy::HeaderLimits,
    ) -> Result<Contents> {
        (self.info().contents)(path, limits)
    }
}

/// Up to 8 first bytes of the file at `path`; none for a directory or an
/// object-storage prefix.
fn first_bytes(path: &Path) -> Result<Vec<u8>> {
    if path.is_dir() || crate::location::is_remote(path) {
        return Ok(Vec::new());
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
    Ok(start)
}

/// Why the file at `path`, whose first bytes are `start`, is no format's.
fn not_an_array_file(path: &Path, start: &[u8]) -> Result<String> {
    if start.is_empty() {
        return Ok("the file is empty".into());
    }
    if is_zip(start)
        && let ZipHolds::Neither(shown) = zip_holds(path)?
    {
        return Ok(format!(
            "a zip file that is neither an .npz archive (.npy members) nor a Zarr zip store \
                 (zarr.json, .zarray or .zgroup at its root); it holds {}",
            shown.join(", ")
        ));
    }
    // `np.load` takes anything else for a pickle; say so when it is one.
    let pickle = match start {
        [0x80, 2..=5, ..] => " (a Python pickle, which is not described)",
        _ => "",
    };
    let escaped: String = start[..start.len().min(6)]
        .iter()
        .flat_map(|b| b.escape_ascii())
        .map(char::from)
        .collect();
    let nouns = Format::all().map(|f| f.noun().to_string()).collect();
    Ok(format!(
        "not a {} (a .zarr store is a directory); it starts with b\"{escaped}\"{pickle}",
        either(nouns)
    ))
}

/// `a, b or c`.
fn either(mut items: Vec<String>) -> String {
    match items.pop() {
        Some(last) if !items.is_empty() => format!("{} or {last}", items.join(", ")),
        Some(last) => last,
        None => String::new(),
    }
}

/// The sink options `settings` make for a destination at `path`: the
/// settings its format does not take are refused, naming the first (a
/// setting silently ignored would leave the user believing it applied).
pub fn sink_options(path: &Path, settings: &WriteSettings) -> Result<SinkOptions> {
    let format = Format::of_destination(path)?;
    if let Some(setting) = settings.given().into_iter().find(|s| !format.takes(*s)) {
        return Err(Error::Unsupported {
            path: path.to_path_buf(),
            message: format!(
                "{} does not apply to a {}; leave it out",
                setting.flag(),
                format.noun()
            ),
        });
    }
    let mut options = SinkOptions::default();
    (format.info().configure)(settings, path, &mut options)?;
    options.layout_said = settings.layout.is_some();
    Ok(options)
}

/// Whether a sink at `path`, written with `options`, keeps each number of
/// an element in its own byte order, as a `.npy` record may have them.
/// Sinks of the others take elements in one order, and
/// [`convert`](crate::convert) puts them so.
pub(crate) fn keeps_mixed_byte_orders(format: Format, path: &Path, options: &SinkOptions) -> bool {
    (format.info().keeps_mixed_byte_orders)(path, options)
}

/// Opens the array at `path`, whatever its format.
pub fn open(path: &Path, options: &ReadOptions) -> Result<Box<dyn Source>> {
    let format = readable(path, options)?;
    (format.info().open)(path, options)
}

/// Opens the records at `path` as a source of variable records, when what
/// `options` pick there holds strings, lists or options (`None`: it holds
/// fixed-size elements, which [`open`] reads).
pub fn open_records(path: &Path, options: &ReadOptions) -> Result<Option<Box<dyn RecordSource>>> {
    let format = readable(path, options)?;
    match format.info().open_records {
        Some(open) => open(path, options),
        None => Ok(None),
    }
}

/// The files of Arrow record batches at `src` and `dst`, when both are
/// such files: what a conversion copies batch by batch.
pub(crate) fn batch_files(
    src: &Path,
    dst: &Path,
    options: &ReadOptions,
) -> Result<Option<(ColumnFile, ColumnFile)>> {
    let from = readable(src, options)?.info().batch_file;
    let to = Format::of_destination(dst)?.info().batch_file;
    Ok(from.zip(to))
}

/// The format of what is at `path`, when `options` ask it for what it
/// has: no member of a format without members.
fn readable(path: &Path, options: &ReadOptions) -> Result<Format> {
    let format = Format::of_existing(path)?;
    if let (Some(member), false) = (&options.member, format.info().members) {
        let with = Format::all()
            .filter(|f| f.info().members)
            .map(|f| format!("{}s", f.noun()));
        return Err(Error::Member {
            path: path.to_path_buf(),
            message: format!(
                "member `{member}` asked for, but a {} holds one array and no members \
                 (members are those of {})",
                format.noun(),
                either(with.collect())
            ),
        });
    }
    Ok(format)
}

/// Creates a sink at `path`, in the format its name says, for the variable
/// records of `source`.
pub fn create_records(
    path: &Path,
    source: &dyn RecordSource,
    options: &SinkOptions,
) -> Result<Box<dyn RecordSink>> {
    create_records_as(Format::of_destination(path)?, path, source, options)
}

/// As [`create_records`], in `format` whatever the path's name.
pub(crate) fn create_records_as(
    format: Format,
    path: &Path,
    source: &dyn RecordSource,
    options: &SinkOptions,
) -> Result<Box<dyn RecordSink>> {
    let Some(create) = format.info().create_records else {
        return Err(Error::Unsupported {
            path: path.to_path_buf(),
            message: format!(
                "{} holds records with variable-length or optional members, which a {} \
                 does not hold",
                source.origin().location.display(),
                format.noun()
            ),
        });
    };
    create(path, source, options)
}

/// Creates a sink at `path`, in the format its name says, for the array of
/// `source`; an `.npz` member is named after the source's file.
pub fn create(path: &Path, source: &dyn Source, options: &SinkOptions) -> Result<Box<dyn Sink>> {
    create_as(Format::of_destination(path)?, path, source, options)
}

/// As [`create`], in `format` whatever the path's name.
pub(crate) fn create_as(
    format: Format,
    path: &Path,
    source: &dyn Source,
    options: &SinkOptions,
) -> Result<Box<dyn Sink>> {
    if source.spec().mixes_byte_orders() && !(format.info().keeps_mixed_byte_orders)(path, options)
    {
        return Err(Error::Unsupported {
            path: path.to_path_buf(),
            message: format!(
                "{} mixes byte orders within an element, which this format does not keep; \
                 `convert` puts them in one",
                source.location().display()
            ),
        });
    }
    let Some(create) = format.info().create else {
        return Err(Error::Unsupported {
            path: path.to_path_buf(),
            message: format!("{}s are read, not written", format.noun()),
        });
    };
    create(path, source, options)
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
        assert_eq!(at("a.zip", &["zarr.json", "c/0"]).unwrap().name(), "zarr");
        assert_eq!(
            at("b.zip", &[".zgroup", "x/.zarray"]).unwrap().name(),
            "zarr"
        );
        assert_eq!(at("c.npz", &["a.npy", "b.npy"]).unwrap().name(), "npz");
        assert_eq!(at("d.npz", &[]).unwrap().name(), "npz");
        assert_eq!(at("e.npz", &["a.npy", "notes.txt"]).unwrap().name(), "npz");
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
