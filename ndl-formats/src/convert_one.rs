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
use crate::source::Source;

/// What `read` picks at `src`, opened: its variable records, or its
/// array.
pub(crate) enum Opened {
    Records(Box<dyn RecordSource>),
    Array(Box<dyn Source>),
}

impl Opened {
    /// Opens what `read` picks at `src`.
    pub(crate) fn open(src: &Path, read: &ReadOptions) -> Result<Opened> {
        Ok(match open_records(src, read)? {
            Some(records) => Opened::Records(records),
            None => Opened::Array(open(src, read)?),
        })
    }

    /// Whether it is a dataset another tool wrote, or part of one (see
    /// [`Source::is_part_of_dataset`]): its variables along one dimension,
    /// strings among them, too.
    pub(crate) fn is_part_of_dataset(&self) -> bool {
        match self {
            Opened::Records(records) => records.is_part_of_dataset(),
            Opened::Array(array) => array.is_part_of_dataset(),
        }
    }
}

/// Converts what `read` picks at `src` (its array, or its variable
/// records) into a new file or store of `format` at `dst`.
pub(crate) fn convert_to(
    format: Format,
    (src, read): (&Path, &ReadOptions),
    dst: &Path,
    options: &ConvertOptions,
    progress: &dyn Fn(Progress),
) -> Result<u64> {
    let opened = Opened::open(src, read)?;
    convert_opened(format, (src, read), opened, dst, options, progress)
}

/// Converts `opened`, which `read` picked at `src`, into a new file or
/// store of `format` at `dst`.
pub(crate) fn convert_opened(
    format: Format,
    (src, read): (&Path, &ReadOptions),
    opened: Opened,
    dst: &Path,
    options: &ConvertOptions,
    progress: &dyn Fn(Progress),
) -> Result<u64> {
    let mut source = match opened {
        Opened::Records(records) => {
            return convert_records(format, (src, read), dst, records, options, progress);
        }
        Opened::Array(source) => source,
    };
    let spec = source.spec();
    if spec.datatype.size() == Some(0) && spec.len() != Some(0) {
        // A `.npy` of `S0` or `V0`, which NumPy cannot load either: a
        // record of no bytes cannot be counted in the bytes read.
        return Err(crate::Error::Unsupported {
            path: src.to_path_buf(),
            message: "its elements are of no bytes (as NumPy's `S0` or `V0`): there is \
                      nothing to convert"
                .into(),
        });
    }
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
