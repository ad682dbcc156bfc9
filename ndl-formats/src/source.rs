//! A source of records: any format's array, read element by element in
//! storage order, in bounded memory.

use std::path::Path;

use crate::error::Result;
use ndl_runtime::ArraySpec;
use ndl_runtime::ndl::{Attribute, NameMap, Storage};

/// About this many bytes of elements are moved at a time.
pub const BATCH_BYTES: usize = 32 << 20;

/// What a [`Source`] reads, and where: what every error and sink asks of it.
#[derive(Clone, Copy, Debug)]
pub struct Origin<'a> {
    /// What the array holds; the elements read are laid out so.
    pub spec: &'a ArraySpec,
    /// Where the elements come from, as errors about them name it.
    pub location: &'a Path,
}

impl<'a> Origin<'a> {
    /// The array `spec` read from `location`.
    pub fn new(spec: &'a ArraySpec, location: &'a Path) -> Origin<'a> {
        Origin { spec, location }
    }
}

/// An array being read: its [`ArraySpec`], then its elements in the
/// spec's order, a batch at a time.
///
/// Every format implements it once; [`open`](crate::open) picks the one
/// for a path, and [`convert`](crate::convert) drains it into any
/// [`Sink`](crate::Sink).
pub trait Source {
    /// What the array holds and where it comes from.
    fn origin(&self) -> Origin<'_>;

    /// What the array holds; the elements read are laid out so.
    fn spec(&self) -> &ArraySpec {
        self.origin().spec
    }

    /// Where the elements come from, as errors about them name it.
    fn location(&self) -> &Path {
        self.origin().location
    }

    /// The source this one reads through, where it wraps one (to decode,
    /// reorder or describe its elements): what it does not say itself,
    /// the wrapped source says, by the defaults below.
    fn wrapped(&self) -> Option<&dyn Source> {
        None
    }

    /// The array's name, as a destination that names its arrays (HDF5,
    /// netCDF-4, `.npz`) calls it: the dataset or variable read from a
    /// file of several, else the file's name without its ending.
    fn array_name(&self) -> String {
        match self.wrapped() {
            Some(inner) => inner.array_name(),
            None => crate::contents::stem(self.location()),
        }
    }

    /// The names of the array's dimensions, one per axis, where it has
    /// them (a netCDF variable's, a Zarr array's): what a destination that
    /// names dimensions calls them.
    fn dimension_names(&self) -> Option<Vec<String>> {
        self.wrapped()?.dimension_names()
    }

    /// The array's own attributes that a conversion carries (an NDL
    /// sidecar's, beside a `.npy`), where it has some.
    fn attributes(&self) -> Option<&NameMap<Attribute>> {
        self.wrapped()?.attributes()
    }

    /// What the reader should know about how the array was read, one
    /// sentence each (a command prints them on stderr).
    fn notes(&self) -> &[String] {
        self.wrapped().map_or(&[], |inner| inner.notes())
    }

    /// Where the array's values are variable-length strings, handed out at
    /// the narrowest fixed width (`U<n>`, `S<n>`) that holds them all: a
    /// note saying so, which a conversion prints unless its sink stores
    /// them variable-length again ([`Sink::variable_strings`](crate::Sink::variable_strings)).
    fn narrowed_strings(&self) -> Option<&str> {
        self.wrapped()?.narrowed_strings()
    }

    /// Where the array's values are variable-length (see
    /// [`narrowed_strings`](Self::narrowed_strings)), hands each value not
    /// yet read to `each`, in order, as it is stored (UTF-8 text, or
    /// bytes), trailing NULs and all, and returns how many it handed;
    /// `None` where they are not, or this source cannot. A sink that stores
    /// values variable-length again takes them so: the padding [`read`](Self::read)
    /// gives them loses trailing NULs, as NumPy's fixed strings do.
    fn each_value(&mut self, each: &mut dyn FnMut(&[u8]) -> Result<()>) -> Option<Result<u64>> {
        let _ = each;
        None
    }

    /// Whether what is read is a dataset another tool wrote, or part of
    /// one: its variables along one dimension read as a table (a netCDF
    /// or HDF5 file's, a Zarr group's), or its one data variable, read as
    /// the file's only array while its coordinate variables stand beside
    /// it. A destination that holds a dataset (a Zarr store, an HDF5 or
    /// netCDF-4 file) takes the whole dataset, unless a layout is asked
    /// for ([`SinkOptions::layout_of_formats`](crate::SinkOptions::layout_of_formats)).
    fn is_part_of_dataset(&self) -> bool {
        self.wrapped()
            .is_some_and(|inner| inner.is_part_of_dataset())
    }

    /// How the array is stored, where a destination that stores arrays
    /// alike may keep it (an HDF5 dataset's chunks and filters, as
    /// `nccopy` keeps them).
    fn storage(&self) -> Option<&Storage> {
        self.wrapped()?.storage()
    }

    /// Whether [`storage`](Self::storage) is a Zarr array's, whose chunks
    /// and codec another Zarr store keeps as they are (as xarray keeps
    /// them). An HDF5 dataset's chunks, sized for the HDF5 library's cache
    /// and often one element along an unlimited dimension, are not carried
    /// to Zarr, where each chunk is an object of its own.
    fn is_stored_in_zarr(&self) -> bool {
        self.wrapped()
            .is_some_and(|inner| inner.is_stored_in_zarr())
    }

    /// Whether the array's first dimension grows without limit (netCDF's
    /// unlimited dimension), which a destination that has them keeps.
    fn is_unlimited_first(&self) -> bool {
        self.wrapped()
            .is_some_and(|inner| inner.is_unlimited_first())
    }

    /// How many elements a read should ask for at once so that each stored
    /// chunk is decoded once: batches are made a multiple of it.
    fn batch_hint(&self) -> u64 {
        self.wrapped().map_or(1, |inner| inner.batch_hint())
    }

    /// Fills the front of `buf` with the next whole elements, as many as
    /// fit and remain; returns how many. Returns 0 only at the end.
    fn read(&mut self, buf: &mut [u8]) -> Result<usize>;
}

/// Reads every element of `source` in batches of about [`BATCH_BYTES`],
/// whole stored chunks at a time, and hands each batch to `each` with the
/// number of elements read so far; returns the number of elements.
pub fn for_each_batch(
    source: &mut dyn Source,
    mut each: impl FnMut(&[u8], u64) -> Result<()>,
) -> Result<u64> {
    let size = source.spec().element_size().max(1);
    let hint = source.batch_hint().max(1);
    let per_batch = ((BATCH_BYTES / size) as u64 / hint).max(1) * hint;
    let mut buf = vec![0; per_batch as usize * size];
    let mut done = 0u64;
    loop {
        let n = source.read(&mut buf)?;
        if n == 0 {
            return Ok(done);
        }
        done += n as u64;
        each(&buf[..n * size], done)?;
    }
}

/// Batches of elements that a reader hands out whole, given out again in
/// the sizes [`Source::read`] asks for.
#[derive(Debug, Default)]
pub(crate) struct Handover {
    current: Vec<u8>,
    at: usize,
}

impl Handover {
    /// Fills the front of `buf` with whole elements of `size` bytes from
    /// the batches `next` gives, until `buf` is full or `next` gives
    /// `None`; returns the number of elements.
    pub(crate) fn fill(
        &mut self,
        buf: &mut [u8],
        size: usize,
        mut next: impl FnMut() -> Result<Option<Vec<u8>>>,
    ) -> Result<usize> {
        let want = buf.len() / size * size;
        let mut filled = 0;
        while filled < want {
            if self.at == self.current.len() {
                // The batch given out is let go before the next is made.
                (self.current, self.at) = (Vec::new(), 0);
                match next()? {
                    Some(batch) => (self.current, self.at) = (batch, 0),
                    None => break,
                }
            }
            let n = (want - filled).min(self.current.len() - self.at);
            buf[filled..filled + n].copy_from_slice(&self.current[self.at..self.at + n]);
            (filled, self.at) = (filled + n, self.at + n);
        }
        Ok(filled / size)
    }
}
