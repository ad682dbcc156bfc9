//! `ndl convert`: `.npy`/`.npz` to Zarr stores and back, streaming in
//! bounded memory: a batch of about [`BATCH_BYTES`] is held at a time,
//! never the whole array.

use std::cell::RefCell;
use std::fs::File;
use std::io::{BufReader, IsTerminal, Read};
use std::path::Path;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ndl_runtime::npy::{self, Header, HeaderLimits};
use ndl_runtime::npz::{NpzReader, NpzWriter};
use ndl_runtime::records::Repacker;
use ndl_runtime::ByteOrder;
use ndl_zarr::{StoreInfo, WriteOptions};

/// About this many bytes of records are converted at a time.
const BATCH_BYTES: usize = 32 << 20;

/// How to convert.
pub struct Options {
    /// How a Zarr destination is written.
    pub zarr: WriteOptions,
    /// The `.npz` member to convert, when the archive has more than one.
    pub member: Option<String>,
    /// Whether a store keeps the `.npy` file's byte order (the records
    /// layout); columns are little-endian, as netCDF-C reads them.
    pub keep_byte_order: bool,
}

/// What a path names.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Npy,
    Npz,
    Store,
}

fn kind(path: &Path) -> Result<Kind, String> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("npy") => Ok(Kind::Npy),
        Some("npz") => Ok(Kind::Npz),
        Some("zarr") => Ok(Kind::Store),
        _ if path.is_dir() || crate::is_remote(path) => Ok(Kind::Store),
        _ => Err(format!(
            "{}: not a .npy or .npz file nor a .zarr store (say which by the name's ending)",
            path.display()
        )),
    }
}

/// Converts `src` to `dst`; returns the number of records.
pub fn convert(src: &Path, dst: &Path, options: &Options) -> Result<u64, String> {
    match (kind(src)?, kind(dst)?) {
        (Kind::Store, Kind::Store) | (Kind::Npy | Kind::Npz, Kind::Npy | Kind::Npz) => {
            Err(format!(
                "{} to {}: convert converts between .npy/.npz files and Zarr stores",
                src.display(),
                dst.display()
            ))
        }
        (Kind::Npy, Kind::Store) => {
            let file = File::open(src).map_err(|e| format!("{}: {e}", src.display()))?;
            let mut reader = BufReader::with_capacity(1 << 20, file);
            to_store(&mut reader, src, dst, options)
        }
        (Kind::Npz, Kind::Store) => {
            let mut archive = NpzReader::open(src).map_err(|e| e.to_string())?;
            let member = member(&archive, src, options)?;
            let result = RefCell::new(None);
            archive
                .read_member(&member, |r| {
                    *result.borrow_mut() = Some(to_store(r, &src.join(&member), dst, options));
                    Ok(())
                })
                .map_err(|e| e.to_string())?;
            result
                .into_inner()
                .unwrap_or_else(|| Err(format!("{}: member `{member}` not read", src.display())))
        }
        (Kind::Store, to) => from_store(src, dst, to == Kind::Npz),
    }
}

/// The member to convert: the one named, or the only one.
fn member<R: Read + std::io::Seek>(
    archive: &NpzReader<R>,
    src: &Path,
    options: &Options,
) -> Result<String, String> {
    if let Some(m) = &options.member {
        return Ok(m.clone());
    }
    match archive.names().as_slice() {
        [only] => Ok(only.clone()),
        names => Err(format!(
            "{}: the archive has {} arrays ({}); choose one with --member",
            src.display(),
            names.len(),
            names.join(", ")
        )),
    }
}

fn progress(records: u64) -> ProgressBar {
    let target = if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(Some(records), target);
    if let Ok(style) = ProgressStyle::with_template(
        "{bar:40} {human_pos}/{human_len} records, {per_sec}, {eta} left",
    ) {
        bar.set_style(style);
    }
    bar
}

/// Writes a store at `dst` from the `.npy` stream `r` (named `src`), which
/// appears there only once complete.
fn to_store(r: &mut dyn Read, src: &Path, dst: &Path, options: &Options) -> Result<u64, String> {
    let shown = src.display();
    let header = Header::read(&mut &mut *r, &HeaderLimits::default())
        .map_err(|e| e.in_file(src).to_string())?;
    let [n] = header.shape[..] else {
        return Err(format!(
            "{shown}: the array has shape {:?}; only one-dimensional arrays of records convert",
            header.shape
        ));
    };
    // Stricter than the library, which fills an empty directory: the
    // command writes nothing where anything of that name is.
    if !crate::is_remote(dst) && dst.exists() {
        return Err(format!(
            "{}: already exists; remove it or write elsewhere",
            dst.display()
        ));
    }
    let repacker = Repacker::new(&header.datatype).map_err(|e| format!("{shown}: {e}"))?;
    let layout = repacker.layout();
    let swap = header.byte_order != ByteOrder::NATIVE;
    let mut zarr = options.zarr.clone().expected_len(n).publish_on_finish(true);
    if options.keep_byte_order {
        zarr = zarr.byte_order(header.byte_order);
    }
    let mut writer = zarr
        .create_packed(dst, &header.datatype)
        .map_err(|e| in_dst(dst, &e))?;
    let (record, packed_size) = (repacker.record_size().max(1), layout.size());
    let per_batch = (BATCH_BYTES / record).max(1);
    let mut raw = vec![0; per_batch * record];
    let mut packed = vec![0; per_batch * packed_size];
    let bar = progress(n);
    let mut done = 0u64;
    while done < n {
        let k = per_batch.min((n - done) as usize);
        r.read_exact(&mut raw[..k * record]).map_err(|e| {
            format!("{shown}: the array data ends early, in record {done} or after: {e}")
        })?;
        let packed = &mut packed[..k * packed_size];
        repacker.pack(&raw[..k * record], packed);
        if swap {
            layout.swap(packed);
        }
        layout.check(packed).map_err(|bad| {
            let record = done + bad.record as u64;
            format!(
                "{shown}: record {record}, field `{}`: {}",
                bad.field, bad.message
            )
        })?;
        writer.append(packed).map_err(|e| in_dst(dst, &e))?;
        done += k as u64;
        bar.set_position(done);
    }
    bar.finish_and_clear();
    writer.finish().map_err(|e| in_dst(dst, &e))?;
    Ok(n)
}

/// A store's error for the command line: advice in the command's words,
/// and the destination named where the library's message does not.
fn in_dst(dst: &Path, e: &ndl_zarr::Error) -> String {
    let message = e
        .to_string()
        .replace("Layout::Columns", "--layout columns")
        .replace("ZarrFormat::V2", "--zarr-format 2")
        .replace("Layout::Records", "--layout records");
    match e {
        ndl_zarr::Error::Unsupported { .. } => format!("{}: {message}", dst.display()),
        _ => message,
    }
}

/// Writes the array of records of the store `src` as a `.npy` file, or as
/// the only member of a `.npz` archive, at `dst`: packed records in the
/// store's byte order.
fn from_store(src: &Path, dst: &Path, npz: bool) -> Result<u64, String> {
    if dst.exists() {
        return Err(format!(
            "{}: already exists; remove it or write elsewhere",
            dst.display()
        ));
    }
    let (n, stored, byte_order, chunk) = match StoreInfo::open(src).map_err(|e| e.to_string())? {
        StoreInfo::Array(info) => {
            let [n] = info.shape()[..] else {
                return Err(format!(
                    "{}: the array has shape {:?}; only one-dimensional arrays of records convert",
                    src.display(),
                    info.shape()
                ));
            };
            let chunk = info.inner_chunks().unwrap_or(info.chunks())[0];
            (n, info.stored_datatype().clone(), info.byte_order(), chunk)
        }
        // Columns: the records of the group's `ndl_datatype`, packed.
        StoreInfo::Group(group) => {
            let datatype = group.datatype().ok_or_else(|| {
                format!(
                    "{}: a group without an ndl_datatype attribute (not written by ndl) has no record type to convert",
                    src.display()
                )
            })?;
            let packed = Repacker::new(&datatype).map_err(|e| format!("{}: {e}", src.display()))?;
            let chunk = group.arrays().first().map_or(1, |(_, a)| a.chunks()[0]);
            (
                group.len(),
                packed.layout().datatype().clone(),
                ByteOrder::Little,
                chunk,
            )
        }
    };
    let repacker = Repacker::new(&stored).map_err(|e| format!("{}: {e}", src.display()))?;
    let mut header = Header::new(stored, vec![n]);
    header.byte_order = byte_order;
    let swap = header.byte_order != ByteOrder::NATIVE;
    let size = repacker.layout().size().max(1) as u64;
    // Whole chunks per batch: each is decoded once.
    let batch = ((BATCH_BYTES as u64 / size) / chunk).max(1) * chunk;
    let failure = RefCell::new(None);
    let bar = progress(n);
    let write = |w: &mut dyn std::io::Write| -> npy::Result<()> {
        let mut start = 0;
        while start < n {
            let end = (start + batch).min(n);
            let mut bytes = ndl_zarr::read_packed(src, start..end).map_err(|e| {
                let message = e.to_string();
                *failure.borrow_mut() = Some(e);
                std::io::Error::other(message)
            })?;
            if swap {
                repacker.layout().swap(&mut bytes);
            }
            w.write_all(&bytes)?;
            start = end;
            bar.set_position(start);
        }
        Ok(())
    };
    let written = if npz {
        let name = src.file_stem().and_then(|s| s.to_str()).unwrap_or("array");
        NpzWriter::create(dst).and_then(|mut archive| {
            archive.add_stream(name, &header, write)?;
            archive.finish()
        })
    } else {
        npy::write_file_with(dst, &header, write)
    };
    bar.finish_and_clear();
    if let Some(e) = failure.into_inner() {
        return Err(e.to_string());
    }
    written.map_err(|e| e.to_string())?;
    Ok(n)
}
