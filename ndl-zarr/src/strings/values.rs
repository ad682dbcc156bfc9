//! Variable-length values held in memory: one buffer of their bytes and
//! where each begins, as zarrs hands them over; and the indices of a
//! block of an array, walked in C order.

/// A run of variable-length values (strings or byte strings) in one buffer,
/// in C order.
///
/// ```
/// use ndl_zarr::VlenValues;
///
/// let mut v = VlenValues::default();
/// v.push(b"ab");
/// v.push(b"");
/// assert_eq!((v.len(), v.get(0), v.get(1)), (2, &b"ab"[..], &b""[..]));
/// assert_eq!(v.iter().map(<[u8]>::len).max(), Some(2));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VlenValues {
    bytes: Vec<u8>,
    /// Where each value begins, and after the last, where it ends.
    offsets: Vec<usize>,
}

impl Default for VlenValues {
    fn default() -> VlenValues {
        VlenValues {
            bytes: Vec::new(),
            offsets: vec![0],
        }
    }
}

impl VlenValues {
    /// Values from `bytes` and the `offsets` where each begins (one more
    /// than there are values, the last the end); `None` unless they rise
    /// from 0 to `bytes.len()`.
    pub(crate) fn from_parts(bytes: Vec<u8>, offsets: Vec<usize>) -> Option<VlenValues> {
        let rising = offsets.windows(2).all(|w| w[0] <= w[1]);
        let bounded = offsets.first() == Some(&0) && offsets.last() == Some(&bytes.len());
        (rising && bounded).then_some(VlenValues { bytes, offsets })
    }

    /// `n` copies of `value`.
    pub(crate) fn repeat(value: &[u8], n: usize) -> VlenValues {
        let mut v = VlenValues::default();
        for _ in 0..n {
            v.push(value);
        }
        v
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Value `i`.
    ///
    /// # Panics
    /// If `i` is not below [`len`](Self::len).
    pub fn get(&self, i: usize) -> &[u8] {
        &self.bytes[self.offsets[i]..self.offsets[i + 1]]
    }

    /// Appends a value.
    pub fn push(&mut self, value: &[u8]) {
        self.bytes.extend_from_slice(value);
        self.offsets.push(self.bytes.len());
    }

    /// The values in order.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.offsets.windows(2).map(|w| &self.bytes[w[0]..w[1]])
    }

    /// The bytes of every value, one after another, and the offsets.
    pub(crate) fn into_parts(self) -> (Vec<u8>, Vec<usize>) {
        (self.bytes, self.offsets)
    }
}

/// Calls `each` with every index of the block `start + [0, extent)`, in C
/// order (the last index fastest); a block with no dimensions has one
/// index, and one with an empty extent none.
pub(crate) fn for_each_index(start: &[u64], extent: &[u64], mut each: impl FnMut(&[u64])) {
    if extent.contains(&0) {
        return;
    }
    let mut at = start.to_vec();
    loop {
        each(&at);
        let mut d = at.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            at[d] += 1;
            if at[d] < start[d] + extent[d] {
                break;
            }
            at[d] = start[d];
        }
    }
}

/// The C-order position of `at` in a block of `extent`.
pub(crate) fn ravel(at: &[u64], extent: &[u64]) -> u64 {
    at.iter().zip(extent).fold(0, |n, (&i, &e)| n * e + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_walked_in_c_order() {
        let mut seen = Vec::new();
        for_each_index(&[1, 0], &[2, 3], |at| seen.push(at.to_vec()));
        assert_eq!(seen.len(), 6);
        assert_eq!((seen[0].clone(), seen[5].clone()), (vec![1, 0], vec![2, 2]));
        assert_eq!(ravel(&[1, 2], &[2, 3]), 5);
        let mut n = 0;
        for_each_index(&[], &[], |_| n += 1);
        for_each_index(&[0], &[0], |_| n += 10);
        assert_eq!(n, 1);
    }

    #[test]
    fn parts_must_cover_the_bytes() {
        assert!(VlenValues::from_parts(b"abc".to_vec(), vec![0, 1, 3]).is_some());
        assert!(VlenValues::from_parts(b"abc".to_vec(), vec![0, 2, 1, 3]).is_none());
        assert!(VlenValues::from_parts(b"abc".to_vec(), vec![0, 4]).is_none());
        assert_eq!(VlenValues::repeat(b"x", 3).len(), 3);
    }
}
