//! A sink of records: any format's array being written from a
//! [`Source`], which appears at its destination only once complete.

use std::path::Path;

use ndl_runtime::npy;

use crate::error::{Error, Result};
use crate::source::Source;

/// Called with the number of elements written so far.
pub type Progress<'a> = &'a dyn Fn(u64);

/// A destination created for one [`ArraySpec`](ndl_runtime::ArraySpec): it takes
/// elements laid out as that spec says, converts them to what its format
/// stores, and publishes the whole array at once.
///
/// Every format implements it once; [`create`](crate::create) picks the
/// one for a path.
pub trait Sink {
    /// What to know about how the array will be written (a reader that
    /// skips part of it), one sentence each.
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }

    /// Whether it stores fixed strings as variable-length ones, their
    /// padding trimmed: what undoes a source's
    /// [`narrowed_strings`](Source::narrowed_strings).
    fn variable_strings(&self) -> bool {
        false
    }

    /// Writes every element of `source` and publishes the array; returns
    /// the number of elements. Nothing appears at the destination when it
    /// fails.
    fn write_from(self: Box<Self>, source: &mut dyn Source, progress: Progress<'_>) -> Result<u64>;
}

/// What a writer's closure returns when its source failed: the writer
/// then removes what it wrote, and the source's error is reported.
pub(crate) fn stopped() -> npy::Error {
    npy::Error::from(std::io::Error::other("the source failed"))
}

/// The source's error first (it is why the writer stopped), else the
/// writer's, else the count.
pub(crate) fn settle(written: Result<u64>, result: npy::Result<()>) -> Result<u64> {
    let n = written?;
    result?;
    Ok(n)
}

/// Refuses a destination that exists: the command writes nothing where
/// anything of that name is.
pub(crate) fn refuse_existing(path: &Path) -> Result<()> {
    if path.exists() {
        return Err(Error::Exists {
            path: path.to_path_buf(),
        });
    }
    Ok(())
}
