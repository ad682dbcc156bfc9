//! Appending records to one array: full chunks are packed and stored in
//! parallel as soon as they are complete, a partial last chunk waits in
//! memory, and the metadata that sets the new length is written last.

use std::ops::Range;

use rayon::prelude::*;

use std::borrow::Cow;

use crate::chunks::{ChunkIo, parallel, with_buffer};
use crate::error::Result;
use crate::metadata::ArrayMeta;

/// Packs records `range` of the batch being appended into `out`.
pub(crate) type PackFn<'a> = dyn Fn(Range<usize>, &mut [u8]) + Sync + 'a;

/// Appends to one array, whatever its records are.
pub(crate) struct Appender {
    chunks: ChunkIo,
    meta: ArrayMeta,
    /// Records in the array once finished.
    pub len: u64,
    /// The records of the last chunk when it is partial (those from the
    /// last multiple of `chunk_len` up to `len`).
    tail: Vec<u8>,
    /// For a region writer, where its region ends: it writes chunks only,
    /// never the metadata.
    region_end: Option<u64>,
    /// Whether the array's metadata is not in the store yet: a new array
    /// that appears when `commit` writes it.
    unwritten: bool,
}

impl std::fmt::Debug for Appender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Appender")
            .field("chunks", &self.chunks)
            .field("len", &self.len)
            .finish()
    }
}

impl Appender {
    /// The appender of the array `meta` describes in the store of `chunks`.
    pub fn start(chunks: ChunkIo, meta: ArrayMeta) -> Result<Appender> {
        let mut appender = Appender {
            len: meta.len(),
            chunks,
            meta,
            tail: Vec::new(),
            region_end: None,
            unwritten: false,
        };
        appender.load_tail()?;
        Ok(appender)
    }

    /// The appender of a new, empty array `meta` describes, whose metadata
    /// is written now, or, `deferred`, by `commit` (or `resize`): the array
    /// appears in the store only then.
    pub fn create(chunks: ChunkIo, meta: ArrayMeta, deferred: bool) -> Result<Appender> {
        if !deferred {
            meta.write(&chunks.store, true)?;
        }
        Ok(Appender {
            len: 0,
            chunks,
            meta,
            tail: Vec::new(),
            region_end: None,
            unwritten: deferred,
        })
    }

    /// The writer of records `range` of the array, which must start and
    /// end on chunk boundaries (or end where the array ends): writers of
    /// disjoint regions then never write the same chunk.
    pub fn region(
        chunks: ChunkIo,
        meta: ArrayMeta,
        range: std::ops::Range<u64>,
    ) -> Result<Appender> {
        let len = meta.len();
        let c = chunks.chunk_len;
        let aligned =
            range.start.is_multiple_of(c) && (range.end.is_multiple_of(c) || range.end == len);
        if range.start > range.end || range.end > len || !aligned {
            return Err(crate::error::Error::Shape {
                store: chunks.store.name.clone(),
                message: format!(
                    "region {range:?} of an array of {len} records in chunks of {c}: a region starts on a chunk boundary and ends on one or at the array's end, so that no two writers share a chunk"
                ),
            });
        }
        Ok(Appender {
            len: range.start,
            chunks,
            meta,
            tail: Vec::new(),
            region_end: Some(range.end),
            unwritten: false,
        })
    }

    /// Sets the array's length without writing records: its chunks are the
    /// fill value until region writers store them.
    pub fn resize(mut self, len: u64) -> Result<()> {
        self.meta = self.meta.with_len(len);
        self.meta.write(&self.chunks.store, self.unwritten)
    }

    /// Appends after record `len`, fewer than the array holds: the records
    /// after it are rewritten by the append, and `commit` sets the length
    /// (to `len` when nothing is appended).
    pub fn rewind(&mut self, len: u64) -> Result<()> {
        if len >= self.len {
            return Ok(());
        }
        self.len = len;
        self.tail.clear();
        self.load_tail()
    }

    /// Reads the records of a partial last chunk, which an append rewrites.
    fn load_tail(&mut self) -> Result<()> {
        let in_tail = (self.len % self.chunks.chunk_len) as usize;
        if in_tail == 0 {
            return Ok(());
        }
        let mut records = self.chunks.read(self.len / self.chunks.chunk_len)?;
        records.truncate(in_tail * self.chunks.record);
        self.tail = records;
        Ok(())
    }

    /// Checks that `n` more records fit in the region being written.
    pub fn check_room(&self, n: usize) -> Result<()> {
        match self.region_end {
            Some(end) if self.len + n as u64 > end => Err(crate::error::Error::Shape {
                store: self.chunks.store.name.clone(),
                message: format!(
                    "{n} more records run past the region's end at record {end} (at {})",
                    self.len
                ),
            }),
            _ => Ok(()),
        }
    }

    /// The records per chunk.
    pub fn chunk_len(&self) -> u64 {
        self.chunks.chunk_len
    }

    /// The records of the partial last chunk that are not stored yet.
    pub fn tail_len(&self) -> usize {
        self.tail.len() / self.chunks.record.max(1)
    }

    /// The store the chunks go to.
    pub fn store(&self) -> &crate::store::Store {
        &self.chunks.store
    }

    /// Stores whole chunk `index` from its records, for a caller that packs
    /// chunks itself; [`advance`](Appender::advance) then counts them.
    pub fn store_chunk(&self, index: u64, records: &[u8]) -> Result<()> {
        self.chunks.write(index, Cow::Borrowed(records))
    }

    /// Counts `n` records stored by [`store_chunk`](Appender::store_chunk)
    /// as appended: whole chunks, after a last chunk that was whole.
    pub fn advance(&mut self, n: u64) {
        debug_assert!(self.tail.is_empty() && n.is_multiple_of(self.chunks.chunk_len));
        self.len += n;
    }

    /// Appends `n` records that `pack` packs.
    pub fn append_with(&mut self, n: usize, pack: &PackFn<'_>) -> Result<()> {
        self.check_room(n)?;
        let (chunk_len, record) = (self.chunks.chunk_len as usize, self.chunks.record);
        let mut done = 0;
        if !self.tail.is_empty() {
            let room = chunk_len - self.tail.len() / record;
            done = room.min(n);
            self.pack_into_tail(0..done, pack);
            if self.tail.len() / record < chunk_len {
                self.len += done as u64;
                return Ok(());
            }
            let tail = std::mem::take(&mut self.tail);
            self.chunks
                .write(self.len / self.chunks.chunk_len, Cow::Owned(tail))?;
            self.len += done as u64;
        }
        let whole = (n - done) / chunk_len;
        let first = self.len / self.chunks.chunk_len;
        let store_all = || {
            (0..whole).into_par_iter().try_for_each(|i| {
                let at = done + i * chunk_len;
                with_buffer(chunk_len * record, |packed| {
                    pack(at..at + chunk_len, packed);
                    self.chunks.write(first + i as u64, Cow::Borrowed(packed))
                })
            })
        };
        parallel(&self.chunks.store, store_all)?;
        done += whole * chunk_len;
        self.len += (whole * chunk_len) as u64;
        self.pack_into_tail(done..n, pack);
        self.len += (n - done) as u64;
        Ok(())
    }

    fn pack_into_tail(&mut self, range: Range<usize>, pack: &PackFn<'_>) {
        let at = self.tail.len();
        self.tail.resize(at + range.len() * self.chunks.record, 0);
        pack(range, &mut self.tail[at..]);
    }

    /// Stores the last, partial chunk. The array's length is not changed
    /// yet: [`commit`](Appender::commit) does that.
    pub fn flush(&mut self) -> Result<()> {
        if !self.tail.is_empty() {
            let tail = std::mem::take(&mut self.tail);
            self.chunks
                .write(self.len / self.chunks.chunk_len, Cow::Owned(tail))?;
        }
        Ok(())
    }

    /// Writes the metadata with the new length, once every chunk is stored.
    pub fn commit(mut self) -> Result<u64> {
        self.flush()?;
        if let Some(end) = self.region_end {
            if self.len != end {
                return Err(crate::error::Error::Shape {
                    store: self.chunks.store.name.clone(),
                    message: format!(
                        "the region ends at record {end}, but only {} were written",
                        self.len
                    ),
                });
            }
            return Ok(self.len);
        }
        if self.unwritten || self.len != self.meta.len() {
            self.meta = self.meta.with_len(self.len);
            self.meta.write(&self.chunks.store, self.unwritten)?;
        }
        Ok(self.len)
    }
}

#[cfg(test)]
mod tests {
    use ndl_runtime::Datatype;
    use serde_json::Map;

    use super::*;
    use crate::documents;
    use crate::options::WriteOptions;
    use crate::store::Store;

    /// A new array of `u16` in chunks of 3, its metadata written now.
    fn new_array(store: &Store) -> Appender {
        let options = WriteOptions::new();
        let meta = ArrayMeta::new(
            &options,
            &Datatype::UInt16,
            vec![0],
            3,
            Map::new(),
            vec!["d".into()],
        )
        .unwrap();
        Appender::create(ChunkIo::new(store, &meta).unwrap(), meta, false).unwrap()
    }

    fn append(appender: &mut Appender, values: &[u16]) {
        appender
            .append_with(values.len(), &|range, out| {
                let bytes: Vec<u8> = values[range].iter().flat_map(|v| v.to_ne_bytes()).collect();
                out.copy_from_slice(&bytes);
            })
            .unwrap();
    }

    #[test]
    fn the_length_changes_when_committed_and_appends_go_on_from_it() {
        let store = Store::memory("m");
        let mut appender = new_array(&store);
        append(&mut appender, &[1, 2, 3, 4]);
        append(&mut appender, &[5]);
        assert_eq!(
            ArrayMeta::read(&store).unwrap().len(),
            0,
            "not committed yet"
        );
        assert_eq!(appender.commit().unwrap(), 5);
        let meta = ArrayMeta::read(&store).unwrap();
        assert_eq!(meta.len(), 5);
        let mut again = Appender::start(ChunkIo::new(&store, &meta).unwrap(), meta).unwrap();
        assert_eq!(again.tail_len(), 2, "the partial last chunk is read back");
        append(&mut again, &[6, 7]);
        assert_eq!(again.commit().unwrap(), 7);
        let meta = ArrayMeta::read(&store).unwrap();
        let io = ChunkIo::new(&store, &meta).unwrap();
        let second: Vec<u8> = [4u16, 5, 6].iter().flat_map(|v| v.to_ne_bytes()).collect();
        assert_eq!(io.read(1).unwrap(), second);
        assert!(documents::read_group(&store).unwrap().is_none());
    }

    #[test]
    fn regions_are_whole_chunks_and_written_whole() {
        let store = Store::memory("m");
        new_array(&store).resize(7).unwrap();
        let open = |range: Range<u64>| {
            let meta = ArrayMeta::read(&store).unwrap();
            Appender::region(ChunkIo::new(&store, &meta).unwrap(), meta, range)
        };
        for bad in [1..3, 0..4, 3..8] {
            let e = open(bad.clone()).unwrap_err();
            assert!(e.to_string().contains("chunk boundary"), "{bad:?}: {e}");
        }
        let mut last = open(6..7).unwrap();
        assert!(last.check_room(2).is_err());
        append(&mut last, &[9]);
        assert_eq!(last.commit().unwrap(), 7);
        let short = open(3..6).unwrap();
        let e = short.commit().unwrap_err();
        assert!(e.to_string().contains("only 3 were written"), "{e}");
    }
}
