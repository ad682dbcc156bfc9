//! Converting one array (or its variable records) between any two
//! formats: a source drained into a sink, in bounded memory.

use std::path::Path;

use crate::conversion::{ConvertOptions, Progress};
use crate::error::Result;
use crate::fill::Filled;
use crate::format::Format;
use crate::one_order::in_one_order;
use crate::options::ReadOptions;
use crate::records::RecordSource;
use crate::registry::{create_as, create_records_as, keeps_mixed_byte_orders, open, open_records};

/// Converts what `read` picks at `src` (its array, or its variable
/// records) into a new file or store of `format` at `dst`.
pub(crate) fn convert_to(
    format: Format,
    (src, read): (&Path, &ReadOptions),
    dst: &Path,
    options: &ConvertOptions,
    progress: &dyn Fn(Progress),
) -> Result<u64> {
    if let Some(records) = open_records(src, read)? {
        return convert_records(format, (src, read), dst, records, options, progress);
    }
    let mut source = open(src, read)?;
    if !options.fills.is_empty() {
        progress(Progress::Note(format!(
            "--fill applies to records with optional members, and {} holds none",
            src.display()
        )));
    }
    if !keeps_mixed_byte_orders(format, dst, &options.write) {
        source = in_one_order(source);
    }
    for note in source.notes() {
        progress(Progress::Note(note.clone()));
    }
    let sink = create_as(format, dst, source.as_ref(), &options.write)?;
    if let Some(note) = source
        .narrowed_strings()
        .filter(|_| !sink.variable_strings())
    {
        progress(Progress::Note(note.to_owned()));
    }
    for note in sink.notes() {
        progress(Progress::Note(note));
    }
    progress(Progress::Total(source.spec().len().unwrap_or(0)));
    sink.write_from(source.as_mut(), &|done| progress(Progress::Done(done)))
}

/// Converts the variable records of `source`, read from `src` as `read`
/// says, into `dst`.
fn convert_records(
    format: Format,
    (src, read): (&Path, &ReadOptions),
    dst: &Path,
    source: Box<dyn RecordSource>,
    options: &ConvertOptions,
    progress: &dyn Fn(Progress),
) -> Result<u64> {
    let mut source = Filled::new(source, &options.fills)?;
    for note in source.notes() {
        progress(Progress::Note(note.clone()));
    }
    let sink = create_records_as(format, dst, &source, &options.write)?;
    for note in sink.notes() {
        progress(Progress::Note(note));
    }
    progress(Progress::Total(source.origin().len.unwrap_or(0)));
    let reopen = || -> Result<Box<dyn RecordSource>> {
        let again = open_records(src, read)?.ok_or_else(|| crate::Error::Unsupported {
            path: src.to_path_buf(),
            message: "changed while it was read: it no longer holds variable records".into(),
        })?;
        Ok(Box::new(Filled::new(again, &options.fills)?))
    };
    sink.write_from(&mut source, &reopen, &|done| progress(Progress::Done(done)))
}
