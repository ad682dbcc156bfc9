//! Variable records written to a `.npy` file, or as the one member of a
//! new `.npz` archive: strings as the narrowest `U n` holding every value
//! (a first pass over the records measures them), options as their fill,
//! lists refused naming the column.

use std::path::{Path, PathBuf};

use ndl_runtime::npy::{self, RecordLayout};
use ndl_runtime::npz::NpzWriter;

use crate::error::{Error, Result};
use crate::records::{RecordSink, RecordSource, Reopen, require_fills};
use crate::sink::Progress;
use crate::sink::{refuse_existing, settle, stopped};

/// A `.npy` file, or a `.npz` archive's member, being written from
/// variable records.
pub(crate) struct NpyRecordSink {
    path: PathBuf,
    /// The member of a new `.npz` archive at `path` the records are;
    /// `None` for a `.npy` file.
    member: Option<String>,
}

impl NpyRecordSink {
    /// A sink at `path`, which must not exist, for the records of `source`:
    /// refused at once where a member has no place in a `.npy` file.
    pub(crate) fn create(path: &Path, source: &dyn RecordSource) -> Result<NpyRecordSink> {
        NpyRecordSink::new(path, source, None)
    }

    /// A sink for the records of `source` as the one member of a new
    /// `.npz` archive at `path`, named after the source.
    pub(crate) fn create_npz(path: &Path, source: &dyn RecordSource) -> Result<NpyRecordSink> {
        let member = crate::contents::stem(source.origin().location);
        NpyRecordSink::new(path, source, Some(member))
    }

    fn new(
        path: &Path,
        source: &dyn RecordSource,
        member: Option<String>,
    ) -> Result<NpyRecordSink> {
        refuse_existing(path)?;
        let origin = source.origin();
        let noun = match member {
            Some(_) => "a `.npz` archive",
            None => "a `.npy` file",
        };
        require_fills(path, &origin, noun)?;
        if let Some(list) = crate::records::first_list(origin.template) {
            return Err(Error::Unsupported {
                path: path.to_path_buf(),
                message: format!(
                    "column `{list}` of {} holds variable-length lists, which have no place in \
                     {noun} (its records have a fixed size); convert to Parquet, HDF5, \
                     netCDF-4 or Zarr",
                    origin.location.display()
                ),
            });
        }
        Ok(NpyRecordSink {
            path: path.to_path_buf(),
            member,
        })
    }
}

impl RecordSink for NpyRecordSink {
    fn write_from(
        self: Box<Self>,
        source: &mut dyn RecordSource,
        reopen: Reopen<'_>,
        progress: Progress<'_>,
    ) -> Result<u64> {
        let origin = source.origin();
        let name = origin.location.display().to_string();
        let mut layout = RecordLayout::new(origin.datatype.clone(), &name);
        while let Some(batch) = source.next_batch()? {
            layout.measure(&batch).map_err(|e| e.in_file(&self.path))?;
        }
        let header = layout.header();
        let mut again = reopen()?;
        let mut written = Ok(0);
        let body = |w: &mut dyn std::io::Write| {
            written = (|| {
                let mut done = 0u64;
                while let Some(batch) = again.next_batch()? {
                    layout.write(&batch, done, w)?;
                    done += batch.len() as u64;
                    progress(done);
                }
                Ok(done)
            })();
            written.as_ref().map(drop).map_err(|_| stopped())
        };
        let result = match &self.member {
            None => npy::write_file_with(&self.path, &header, body),
            Some(member) => NpzWriter::create(&self.path).and_then(|mut archive| {
                archive.add_stream(member, &header, body)?;
                archive.finish()
            }),
        };
        settle(written, result)
    }
}

#[cfg(test)]
mod tests {
    use ndl_runtime::Record;

    use super::*;
    use crate::records::memory::MemorySource;

    #[derive(Clone, Debug, PartialEq, Record)]
    struct Trade {
        id: u64,
        symbol: String,
        #[ndl(fill = -1)]
        venue: Option<i32>,
    }

    fn trade(id: u64, symbol: &str, venue: Option<i32>) -> Trade {
        Trade {
            id,
            symbol: symbol.into(),
            venue,
        }
    }

    fn write<T: Record + Clone>(path: &Path, batches: &[&[T]]) -> Result<u64> {
        let owned: Vec<Vec<T>> = batches.iter().map(|b| b.to_vec()).collect();
        let source = || {
            let slices: Vec<&[T]> = owned.iter().map(Vec::as_slice).collect();
            MemorySource::new(&slices)
        };
        let mut first = source();
        let sink = Box::new(NpyRecordSink::create(path, &first)?);
        let reopen = || -> Result<Box<dyn RecordSource>> { Ok(Box::new(source())) };
        sink.write_from(&mut first, &reopen, &|_| {})
    }

    #[test]
    fn strings_take_the_width_of_the_widest_in_any_batch() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.npy");
        let first = [trade(1, "ab", Some(3)), trade(2, "", None)];
        let second = [trade(3, "Ünïcødé", Some(4))];
        assert_eq!(write(&path, &[&first, &second]).unwrap(), 3);
        let header = npy::read_header_file(&path).unwrap();
        assert_eq!(header.shape, [3]);
        let back: Vec<Trade> = npy::read_file(&path).unwrap();
        assert_eq!(back, [&first[..], &second[..]].concat());
    }

    #[derive(Clone, Record)]
    struct Listed {
        id: u64,
        levels: Vec<f32>,
    }

    #[test]
    fn a_list_is_refused_naming_its_column_before_anything_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.npy");
        let listed = [Listed {
            id: 1,
            levels: vec![1.0],
        }];
        let e = write(&path, &[&listed]).unwrap_err().to_string();
        assert!(
            e.contains("`levels`") && e.contains("variable-length lists"),
            "{e}"
        );
        assert!(!path.exists());
    }

    #[derive(Clone, Record)]
    struct Unfilled {
        id: u64,
        note: Option<String>,
    }

    #[test]
    fn an_option_without_a_fill_is_refused_saying_how_to_give_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.npy");
        let rows = [Unfilled { id: 1, note: None }];
        let e = write(&path, &[&rows]).unwrap_err().to_string();
        assert!(e.contains("--fill note=VALUE"), "{e}");
        assert!(!path.exists());
    }
}
