//! `.npz` archives as a [`Source`] (one member) and a [`Sink`] (an
//! archive of one member).
//!
//! A member is read on a thread of its own: the zip reader lends its
//! decompressing stream only inside a call, and the thread turns that call
//! into batches handed over a channel of one slot, so that memory stays
//! bounded and decompression overlaps the writing.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use ndl_runtime::npy::{self, Header, HeaderLimits};
use ndl_runtime::npz::{NpzReader, NpzWriter};

use crate::contents::{Arrangement, Contents};
use crate::error::{Error, Result};
use crate::format::FormatInfo;
use crate::npy::{NpySource, header_of, pass_through, spec_of};
use crate::sink::{Progress, Sink};
use crate::sink::{refuse_existing, settle, stopped};
use crate::source::{Handover, Origin, Source};
use ndl_runtime::ArraySpec;

/// Bytes of elements the reading thread hands over at a time.
const HANDOVER_BYTES: usize = 8 << 20;

/// What the reading thread sends: the header first, then batches.
enum Message {
    Header(Header),
    Batch(Vec<u8>),
    Failed(Error),
}

/// The member of an archive to read: the one named, or the only one.
pub fn choose_member(path: &Path, names: &[String], named: Option<&str>) -> Result<String> {
    if let Some(name) = named {
        return Ok(name.to_owned());
    }
    match names {
        [only] => Ok(only.clone()),
        names => Err(Error::SeveralArrays {
            path: path.to_path_buf(),
            what: format!("the archive has {} arrays", names.len()),
            names: names.to_vec(),
        }),
    }
}

/// The elements of one member of a `.npz` archive.
pub struct NpzSource {
    /// The member's path: the archive's joined with the member's name.
    path: PathBuf,
    /// The member's array path, `/group/name`, as a sidecar names it.
    array_path: String,
    spec: ArraySpec,
    batches: Receiver<Message>,
    pending: Handover,
    thread: Option<JoinHandle<()>>,
}

impl NpzSource {
    /// The member's array path, `/group/name`, as a sidecar names it.
    pub(crate) fn array_path(&self) -> &str {
        &self.array_path
    }

    /// Opens member `member` (or the only one) of the archive at `path`.
    pub fn open(path: &Path, member: Option<&str>, limits: &HeaderLimits) -> Result<NpzSource> {
        let archive = NpzReader::open(path)?.max_header_size(limits.max_header_size);
        let name = choose_member(path, &archive.names(), member)?;
        let (send, batches) = sync_channel(1);
        let member_path = path.join(&name);
        let (group, array) = ndl_runtime::npz::group_path(&name);
        let array_path = crate::contents::join(&group, &array);
        let (archive_path, limits) = (path.to_path_buf(), limits.clone());
        let thread =
            std::thread::spawn(move || read_member(archive, &name, &archive_path, &limits, &send));
        let spec = match batches.recv() {
            Ok(Message::Header(header)) => spec_of(&header),
            Ok(Message::Failed(e)) => return Err(e),
            Ok(Message::Batch(_)) | Err(_) => {
                return Err(Error::Unsupported {
                    path: member_path,
                    message: "the member's reader stopped before its header".into(),
                });
            }
        };
        Ok(NpzSource {
            path: member_path,
            array_path,
            spec,
            batches,
            pending: Handover::default(),
            thread: Some(thread),
        })
    }
}

/// The reading thread: sends the member's header, then its elements.
fn read_member(
    mut archive: NpzReader<std::io::BufReader<std::fs::File>>,
    name: &str,
    path: &Path,
    limits: &HeaderLimits,
    send: &SyncSender<Message>,
) {
    let member_path = path.join(name);
    let mut failure = None;
    let outcome = archive.read_member(name, |r| {
        let header = Header::read(&mut &mut *r, limits)?;
        let mut source = match NpySource::after_header(r, &header, &member_path) {
            Ok(source) => source,
            Err(e) => {
                failure = Some(e);
                return Ok(());
            }
        };
        if send.send(Message::Header(header)).is_err() {
            return Ok(());
        }
        failure = send_batches(&mut source, send).err();
        Ok(())
    });
    let failure = match outcome {
        Err(e) => Some(Error::from(e)),
        Ok(()) => failure,
    };
    if let Some(e) = failure {
        // The receiver may be gone: then no one waits for the error.
        let _ = send.send(Message::Failed(e));
    }
}

/// Sends every element of `source` in batches of about
/// [`HANDOVER_BYTES`]; stops quietly when the receiver is gone.
fn send_batches(source: &mut dyn Source, send: &SyncSender<Message>) -> Result<()> {
    let size = source.spec().element_size().max(1);
    let per_batch = (HANDOVER_BYTES / size).max(1) * size;
    loop {
        let mut batch = vec![0; per_batch];
        let n = source.read(&mut batch)?;
        batch.truncate(n * size);
        if n == 0 || send.send(Message::Batch(batch)).is_err() {
            return Ok(());
        }
    }
}

impl Source for NpzSource {
    fn origin(&self) -> Origin<'_> {
        Origin::new(&self.spec, &self.path)
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize> {
        let size = self.spec.element_size().max(1);
        let batches = &self.batches;
        self.pending.fill(buf, size, || match batches.recv() {
            Ok(Message::Batch(batch)) => Ok(Some(batch)),
            Ok(Message::Failed(e)) => Err(e),
            // The thread has sent everything.
            Ok(Message::Header(_)) | Err(_) => Ok(None),
        })
    }
}

impl Drop for NpzSource {
    fn drop(&mut self) {
        // Hanging up stops the thread at its next send.
        let (_, hung_up) = sync_channel(0);
        self.batches = hung_up;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A `.npz` archive of one member to be written, appearing only once
/// complete.
pub struct NpzSink {
    path: PathBuf,
    member: String,
    header: Header,
}

impl NpzSink {
    /// A sink for an array of `spec` stored as member `member` of a new
    /// archive at `path`, which must not exist.
    pub fn create(path: &Path, member: &str, spec: &ArraySpec) -> Result<NpzSink> {
        refuse_existing(path)?;
        Ok(NpzSink {
            path: path.to_path_buf(),
            member: member.to_owned(),
            header: header_of(spec),
        })
    }
}

impl Sink for NpzSink {
    fn notes(&self) -> Vec<String> {
        let member = self.path.join(&self.member);
        crate::npy::header_size_note(&member, &self.header)
            .into_iter()
            .collect()
    }

    fn write_from(self: Box<Self>, source: &mut dyn Source, progress: Progress<'_>) -> Result<u64> {
        let mut written = Ok(0);
        let result = NpzWriter::create(&self.path).and_then(|mut archive| {
            archive.add_stream(&self.member, &self.header, |w| {
                written = pass_through(source, progress, w);
                written.as_ref().map(drop).map_err(|_| stopped())
            })?;
            archive.finish()
        });
        settle(written, result)
    }
}

/// The arrays of the `.npz` archive at `path`. As `np.load` does, a member
/// without the whole magic string is not an array (NumPy returns its
/// bytes) and is left out with a warning; one that has the magic but is
/// broken after it is a broken array.
pub fn contents(path: &Path, limits: &HeaderLimits) -> Result<Contents> {
    let mut archive = NpzReader::open(path)?.max_header_size(limits.max_header_size);
    let mut entries = Vec::new();
    let mut warnings = Vec::new();
    for name in archive.names() {
        let header = match archive.header(&name) {
            Ok(h) => h,
            Err(e) if is_not_an_array(e.kind()) => {
                warnings.push(format!(
                    "{}: member `{name}` is not a .npy array; left out",
                    path.display()
                ));
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        let (group, name) = ndl_runtime::npz::group_path(&name);
        entries.push(crate::npy::entry(group, name, &header));
    }
    Ok(Contents {
        warnings,
        ..Contents::new(Arrangement::Archive, entries)
    })
}

fn is_not_an_array(e: &npy::Error) -> bool {
    matches!(
        e,
        npy::Error::BadMagic { .. }
            | npy::Error::UnexpectedEof {
                what: "magic string",
                got: 0..=5,
                ..
            }
    )
}

/// The `.npz` format, as the [registry](crate::FORMATS) lists it.
pub(crate) static FORMAT: FormatInfo = FormatInfo {
    name: "npz",
    noun: ".npz archive",
    endings: &["npz"],
    members: true,
    sidecar: true,
    crash_prone: false,
    settings: &[],
    recognises: |path, start| Ok(is_zip(start) && zip_holds(path)? == ZipHolds::Npz),
    configure: |_, _, _| Ok(()),
    open: |path, options| {
        let source = NpzSource::open(path, options.member.as_deref(), &options.limits)?;
        let array_path = source.array_path().to_owned();
        Ok(crate::sidecar::described(
            Box::new(source),
            path,
            &array_path,
        ))
    },
    create: Some(|path, source, _| {
        let member = source.array_name();
        Ok(Box::new(NpzSink::create(path, &member, source.spec())?))
    }),
    open_records: None,
    create_records: Some(|path, source, _| {
        Ok(Box::new(crate::npy_records::NpyRecordSink::create_npz(
            path, source,
        )?))
    }),
    keeps_mixed_byte_orders: |_, _| true,
    contents,
    batch_file: None,
};

/// Whether a file's first bytes are a zip file's.
pub(crate) fn is_zip(start: &[u8]) -> bool {
    start.starts_with(b"PK\x03\x04") || start.starts_with(b"PK\x05\x06")
}

/// What a zip file holds, by its members.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ZipHolds {
    /// A Zarr zip store: Zarr metadata at its root.
    Zarr,
    /// An `.npz` archive: `.npy` members, or none, as an empty `np.savez`
    /// writes (NumPy loads one with other members too, as bytes).
    Npz,
    /// Neither: the first few members, for the error.
    Neither(Vec<String>),
}

/// The metadata documents at a Zarr store's root, v3 and v2.
const ZARR_ROOT: [&str; 4] = ["zarr.json", ".zarray", ".zgroup", ".zattrs"];

/// What the zip file at `path` holds.
pub(crate) fn zip_holds(path: &Path) -> Result<ZipHolds> {
    let members = NpzReader::open(path)?.member_names();
    if members.iter().any(|m| ZARR_ROOT.contains(&m.as_str())) {
        return Ok(ZipHolds::Zarr);
    }
    if members.is_empty() || members.iter().any(|m| m.ends_with(".npy")) {
        return Ok(ZipHolds::Npz);
    }
    let mut shown: Vec<String> = members.iter().take(5).cloned().collect();
    if members.len() > shown.len() {
        shown.push("…".into());
    }
    Ok(ZipHolds::Neither(shown))
}
