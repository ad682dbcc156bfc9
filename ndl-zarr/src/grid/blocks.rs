//! Rectangular blocks of elements held in C order, as plain arithmetic:
//! the slabs an array is streamed in, copying a region from one block into
//! another, and reversing a block's axes (C order to Fortran order and
//! back). Nothing here reads or writes a store.

/// A block of an array: where it starts and its extent in each dimension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Block {
    pub origin: Vec<u64>,
    pub extent: Vec<u64>,
}

impl Block {
    /// The number of elements.
    pub fn len(&self) -> u64 {
        self.extent.iter().product()
    }

    /// Where `self` and `other` overlap, if they do.
    pub fn overlap(&self, other: &Block) -> Option<Block> {
        let mut origin = Vec::with_capacity(self.origin.len());
        let mut extent = Vec::with_capacity(self.origin.len());
        for d in 0..self.origin.len() {
            let start = self.origin[d].max(other.origin[d]);
            let end = (self.origin[d] + self.extent[d]).min(other.origin[d] + other.extent[d]);
            if end <= start {
                return None;
            }
            origin.push(start);
            extent.push(end - start);
        }
        Some(Block { origin, extent })
    }
}

/// The slabs of an array of `shape` in C order: consecutive runs of its
/// elements that are blocks, each one index of the dimensions before
/// `axis`, `step` indices of `axis` (fewer at its end), whole along the
/// dimensions after it. A 0-dimensional array is one slab of one element;
/// an array with an empty dimension has none.
pub(crate) fn slabs(shape: &[u64], axis: usize, step: u64) -> Slabs {
    Slabs {
        shape: shape.to_vec(),
        axis,
        step: step.max(1),
        prefix: vec![0; axis.min(shape.len())],
        at: 0,
        done: shape.contains(&0),
    }
}

/// The iterator of [`slabs`].
#[derive(Clone, Debug)]
pub(crate) struct Slabs {
    shape: Vec<u64>,
    axis: usize,
    step: u64,
    /// The indices of the dimensions before `axis` of the next slab.
    prefix: Vec<u64>,
    /// Where along `axis` the next slab starts.
    at: u64,
    done: bool,
}

impl Iterator for Slabs {
    type Item = Block;

    fn next(&mut self) -> Option<Block> {
        if self.done {
            return None;
        }
        let Some(&len) = self.shape.get(self.axis) else {
            self.done = true;
            return Some(Block {
                origin: vec![],
                extent: vec![],
            });
        };
        let n = self.step.min(len - self.at);
        let after = &self.shape[self.axis + 1..];
        let mut origin = self.prefix.clone();
        origin.push(self.at);
        origin.extend(std::iter::repeat_n(0, after.len()));
        let mut extent = vec![1; self.axis];
        extent.push(n);
        extent.extend_from_slice(after);
        self.at += n;
        if self.at == len {
            self.at = 0;
            self.done = !next_index(&mut self.prefix, &self.shape[..self.axis]);
        }
        Some(Block { origin, extent })
    }
}

/// The chunk indices of the chunks of extent `chunks` that `block` touches.
pub(crate) fn chunks_touched(block: &Block, chunks: &[u64]) -> Vec<Vec<u64>> {
    let first: Vec<u64> = block
        .origin
        .iter()
        .zip(chunks)
        .map(|(&o, &c)| o / c)
        .collect();
    let count: Vec<u64> = (0..chunks.len())
        .map(|d| (block.origin[d] + block.extent[d]).div_ceil(chunks[d]) - first[d])
        .collect();
    let mut out = Vec::new();
    let mut at = vec![0u64; chunks.len()];
    loop {
        out.push(first.iter().zip(&at).map(|(f, a)| f + a).collect());
        if !next_index(&mut at, &count) {
            return out;
        }
    }
}

/// The block of the chunk at `indices` of extent `chunks`.
pub(crate) fn chunk_block(indices: &[u64], chunks: &[u64]) -> Block {
    Block {
        origin: indices.iter().zip(chunks).map(|(i, c)| i * c).collect(),
        extent: chunks.to_vec(),
    }
}

/// Copies the elements of `region` (within both blocks) of `size` bytes
/// from `src`, the elements of block `from` in C order, to `dst`, those of
/// block `to`.
pub(crate) fn copy_region(
    src: &[u8],
    from: &Block,
    dst: &mut [u8],
    to: &Block,
    region: &Block,
    size: usize,
) {
    let rank = region.extent.len();
    if rank == 0 {
        dst[..size].copy_from_slice(&src[..size]);
        return;
    }
    let strides = |b: &Block| -> Vec<usize> {
        let mut s = vec![size; rank];
        for d in (0..rank - 1).rev() {
            s[d] = s[d + 1] * b.extent[d + 1] as usize;
        }
        s
    };
    let (src_strides, dst_strides) = (strides(from), strides(to));
    let offset = |b: &Block, strides: &[usize], at: &[u64]| -> usize {
        (0..rank)
            .map(|d| (region.origin[d] + at[d] - b.origin[d]) as usize * strides[d])
            .sum()
    };
    let run = region.extent[rank - 1] as usize * size;
    let mut at = vec![0u64; rank];
    loop {
        let s = offset(from, &src_strides, &at);
        let d = offset(to, &dst_strides, &at);
        dst[d..d + run].copy_from_slice(&src[s..s + run]);
        if !next_index(&mut at[..rank - 1], &region.extent[..rank - 1]) {
            return;
        }
    }
}

/// The elements of `src`, a block of `shape` in C order, in C order of the
/// reversed shape: the same block in Fortran order. Applied to that with
/// the reversed shape, it gives `src` back.
pub(crate) fn reverse_axes(src: &[u8], shape: &[u64], size: usize) -> Vec<u8> {
    let rank = shape.len();
    if rank < 2 {
        return src.to_vec();
    }
    let mut dst = vec![0; src.len()];
    // Fortran strides of `shape`: where each element goes.
    let mut strides = vec![size; rank];
    for d in 1..rank {
        strides[d] = strides[d - 1] * shape[d - 1] as usize;
    }
    let last = shape[rank - 1] as usize;
    let mut at = vec![0u64; rank - 1];
    let mut s = 0;
    loop {
        let base: usize = at
            .iter()
            .zip(&strides)
            .map(|(&i, st)| i as usize * st)
            .sum();
        for i in 0..last {
            let d = base + i * strides[rank - 1];
            dst[d..d + size].copy_from_slice(&src[s..s + size]);
            s += size;
        }
        if !next_index(&mut at, &shape[..rank - 1]) {
            return dst;
        }
    }
}

/// Steps `at` to the next index in C order within `extent`; false when it
/// was the last (or `extent` has no index).
fn next_index(at: &mut [u64], extent: &[u64]) -> bool {
    for d in (0..at.len()).rev() {
        at[d] += 1;
        if at[d] < extent[d] {
            return true;
        }
        at[d] = 0;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(origin: &[u64], extent: &[u64]) -> Block {
        Block {
            origin: origin.to_vec(),
            extent: extent.to_vec(),
        }
    }

    #[test]
    fn slabs_are_consecutive_runs_of_the_array() {
        let s: Vec<Block> = slabs(&[2, 5, 3], 1, 2).collect();
        let lens: Vec<u64> = s.iter().map(Block::len).collect();
        assert_eq!(lens, [6, 6, 3, 6, 6, 3]);
        assert_eq!(s[3], block(&[1, 0, 0], &[1, 2, 3]));
        let all = |shape: &[u64], axis, step| slabs(shape, axis, step).collect::<Vec<_>>();
        assert_eq!(all(&[4, 3], 0, 4), [block(&[0, 0], &[4, 3])]);
        assert_eq!(all(&[], 0, 1), [block(&[], &[])]);
        assert!(all(&[3, 0], 0, 1).is_empty());
        assert_eq!(all(&[3], 0, 2).len(), 2);
    }

    #[test]
    fn the_chunks_a_block_touches() {
        let touched = chunks_touched(&block(&[1, 2], &[3, 5]), &[2, 4]);
        assert_eq!(touched, [[0, 0], [0, 1], [1, 0], [1, 1]]);
        assert_eq!(chunks_touched(&block(&[], &[]), &[]), [Vec::<u64>::new()]);
        assert_eq!(chunk_block(&[1, 2], &[2, 4]), block(&[2, 8], &[2, 4]));
    }

    #[test]
    fn regions_are_copied_between_blocks() {
        // A 3×4 array of bytes 0..12, and the chunk [2..4, 2..4) of it.
        let array: Vec<u8> = (0..12).collect();
        let whole = block(&[0, 0], &[3, 4]);
        let chunk = block(&[2, 2], &[2, 2]);
        let region = whole.overlap(&chunk).unwrap();
        assert_eq!(region, block(&[2, 2], &[1, 2]));
        let mut out = vec![99; 4];
        copy_region(&array, &whole, &mut out, &chunk, &region, 1);
        assert_eq!(out, [10, 11, 99, 99]);
        let mut back = vec![0; 12];
        copy_region(&out, &chunk, &mut back, &whole, &region, 1);
        assert_eq!(&back[10..12], [10, 11]);
        assert_eq!(block(&[0], &[2]).overlap(&block(&[2], &[2])), None);
    }

    #[test]
    fn reversing_axes_is_fortran_order_and_undoes_itself() {
        let c: Vec<u8> = (0..6).flat_map(|v: u16| v.to_ne_bytes()).collect();
        let f = reverse_axes(&c, &[2, 3], 2);
        let values: Vec<u16> = f
            .chunks(2)
            .map(|b| u16::from_ne_bytes([b[0], b[1]]))
            .collect();
        assert_eq!(values, [0, 3, 1, 4, 2, 5]);
        assert_eq!(reverse_axes(&f, &[3, 2], 2), c);
        let cube: Vec<u8> = (0..24).collect();
        let back = reverse_axes(&reverse_axes(&cube, &[2, 3, 4], 1), &[4, 3, 2], 1);
        assert_eq!(back, cube);
    }
}
