//! Blosc2 (32026), through C-Blosc2.

use std::ffi::CStr;

use super::Chunk;

/// A super-chunk C-Blosc2 made of a frame, freed on drop (the frame
/// itself stays ours: it is read in place).
struct SuperChunk(*mut blosc2_sys::blosc2_schunk);

impl Drop for SuperChunk {
    fn drop(&mut self) {
        // SAFETY: a super-chunk from `blosc2_schunk_from_buffer`, freed once.
        unsafe { blosc2_sys::blosc2_schunk_free(self.0) };
    }
}

/// Blosc2 as hdf5plugin's filter writes it: each HDF5 chunk is a Blosc2
/// frame of one chunk, which C-Blosc2 decodes. With a `b2nd` metalayer
/// (as hdf5plugin writes) the chunk is laid out in blocks, which are put
/// back in C order here.
pub(super) fn decode(chunk: &Chunk<'_>) -> Result<Vec<u8>, String> {
    let mut frame = chunk.input.to_vec();
    let len = i64::try_from(frame.len()).map_err(|_| "a chunk too large".to_string())?;
    // SAFETY: `frame` outlives the super-chunk, which reads it in place
    // and does not free it (`copy` false).
    let schunk = unsafe { blosc2_sys::blosc2_schunk_from_buffer(frame.as_mut_ptr(), len, false) };
    if schunk.is_null() {
        return Err("the chunk is no Blosc2 frame".into());
    }
    let schunk = SuperChunk(schunk);
    // SAFETY: a valid super-chunk, read only.
    let s = unsafe { &*schunk.0 };
    if s.nchunks != 1 || s.typesize < 1 {
        return Err(format!(
            "the Blosc2 frame holds {} chunks of elements of {} bytes, not one",
            s.nchunks, s.typesize
        ));
    }
    let typesize = s.typesize as usize;
    let layout = b2nd_layout(s)?;
    let bound = match &layout {
        Some(layout) => layout.stored_elements()?.saturating_mul(typesize),
        None => chunk.limit,
    };
    let stored = usize::try_from(s.nbytes)
        .ok()
        .filter(|&n| n <= bound && i32::try_from(n).is_ok())
        .ok_or_else(|| {
            format!(
                "the Blosc2 frame declares {} decoded bytes, more than the {bound} of a chunk",
                s.nbytes
            )
        })?;
    let mut out = vec![0u8; stored];
    // SAFETY: `out` holds the `stored` bytes it is told of.
    let n = unsafe {
        blosc2_sys::blosc2_schunk_decompress_chunk(
            schunk.0,
            0,
            out.as_mut_ptr().cast(),
            stored as i32,
        )
    };
    if usize::try_from(n).ok() != Some(stored) {
        return Err(format!("C-Blosc2 could not decode the chunk (error {n})"));
    }
    match layout {
        Some(layout) if stored == bound => Ok(layout.to_c_order(&out, typesize)),
        Some(_) => Err(format!(
            "the Blosc2 frame declares {stored} decoded bytes, not the {bound} of its blocks"
        )),
        None => Ok(out),
    }
}

/// The shape of a `b2nd` array of one chunk and of its blocks.
struct B2ndLayout {
    shape: Vec<usize>,
    blocks: Vec<usize>,
}

impl B2ndLayout {
    /// The elements the chunk stores: its shape rounded up to whole blocks.
    fn stored_elements(&self) -> Result<usize, String> {
        self.shape
            .iter()
            .zip(&self.blocks)
            .try_fold(1usize, |n, (&d, &b)| n.checked_mul(d.div_ceil(b) * b))
            .ok_or_else(|| "a b2nd chunk too large".to_string())
    }

    /// `stored`, blocks one after another (each in C order), as the
    /// chunk's elements in C order.
    fn to_c_order(&self, stored: &[u8], typesize: usize) -> Vec<u8> {
        let grid: Vec<usize> = self
            .shape
            .iter()
            .zip(&self.blocks)
            .map(|(&d, &b)| d.div_ceil(b))
            .collect();
        let per_block: usize = self.blocks.iter().product();
        let count: usize = self.shape.iter().product();
        let mut out = Vec::with_capacity(count * typesize);
        let mut index = vec![0usize; self.shape.len()];
        for _ in 0..count {
            let (mut block, mut within) = (0, 0);
            for (k, &i) in index.iter().enumerate() {
                block = block * grid[k] + i / self.blocks[k];
                within = within * self.blocks[k] + i % self.blocks[k];
            }
            let at = (block * per_block + within) * typesize;
            out.extend_from_slice(&stored[at..at + typesize]);
            for k in (0..index.len()).rev() {
                index[k] += 1;
                if index[k] < self.shape[k] {
                    break;
                }
                index[k] = 0;
            }
        }
        out
    }
}

/// The `b2nd` metalayer of `s`, if it has one: MessagePack of version,
/// rank, shape (int64s), chunk shape and block shape (int32s), ...
fn b2nd_layout(s: &blosc2_sys::blosc2_schunk) -> Result<Option<B2ndLayout>, String> {
    let count = usize::from(s.nmetalayers).min(s.metalayers.len());
    let found = s.metalayers[..count].iter().find_map(|&m| {
        // SAFETY: the super-chunk's metalayers, valid while it is.
        let m = unsafe { m.as_ref()? };
        // SAFETY: as above; names are NUL-terminated.
        let name = unsafe { CStr::from_ptr(m.name) };
        let len = usize::try_from(m.content_len).ok()?;
        (name.to_bytes() == b"b2nd" && !m.content.is_null())
            // SAFETY: as above, `content_len` bytes.
            .then(|| unsafe { std::slice::from_raw_parts(m.content, len) })
    });
    let Some(meta) = found else {
        return Ok(None);
    };
    let bad = || "the chunk's b2nd metalayer is damaged".to_string();
    let mut at = 0;
    let mut byte = || {
        let b = meta.get(at).copied().ok_or_else(bad);
        at += 1;
        b
    };
    if !(0x90..=0x9f).contains(&byte()?) {
        return Err(bad());
    }
    let _version = byte()?;
    let ndim = usize::from(byte()?);
    if ndim == 0 || ndim > 8 {
        return Err(bad());
    }
    let mut dims = |tag: u8, width: usize| -> Result<Vec<usize>, String> {
        if byte()? != 0x90 + ndim as u8 {
            return Err(bad());
        }
        (0..ndim)
            .map(|_| {
                if byte()? != tag {
                    return Err(bad());
                }
                let n = (0..width)
                    .try_fold(0u64, |n, _| Ok::<_, String>(n << 8 | u64::from(byte()?)))?;
                usize::try_from(n)
                    .ok()
                    .filter(|&n| n > 0 && n < 1 << 31)
                    .ok_or_else(bad)
            })
            .collect()
    };
    let shape = dims(0xd3, 8)?;
    let chunks = dims(0xd2, 4)?;
    let blocks = dims(0xd2, 4)?;
    if shape != chunks || blocks.iter().zip(&shape).any(|(b, d)| b > d) {
        return Err(format!(
            "a b2nd chunk of shape {shape:?} in chunks of {chunks:?} and blocks of {blocks:?}: \
             not one chunk of whole blocks"
        ));
    }
    Ok(Some(B2ndLayout { shape, blocks }))
}
