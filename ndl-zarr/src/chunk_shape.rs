//! The one rule for the chunk shape of a new array when none is given, and
//! the check of one that is. Plain arithmetic on shapes.
//!
//! **The rule.** A chunk holds about [`CHUNK_BYTES`] of packed elements,
//! spread evenly across the dimensions: every extent is the same `n`, the
//! `rank`-th root of the elements a chunk holds, except that an extent is
//! never longer than its dimension (nor shorter than 1); what a short
//! dimension leaves over goes evenly to the others. A one-dimensional
//! array's chunks are thus `CHUNK_BYTES / element size` long, or the whole
//! array.
//!
//! **Memory.** A writer of C-order elements keeps one *slab* of them in
//! memory: one chunk's extent of the first dimension whose extent is above
//! 1, whole along the dimensions after it (the elements of a chunk arrive
//! only once all the slab's elements before them have). So that a slab
//! stays under [`SLAB_BYTES`] whatever the array, the rule then shortens
//! the first extents (to 1 if need be) until it does, and gives the
//! elements taken away evenly to the later dimensions. A chunk shape
//! given by hand is used as given: its slab is what it is.

/// About this many bytes of packed elements per chunk.
pub const CHUNK_BYTES: u64 = 2 << 20;

/// The most bytes of a slab (see the module docs) that the default chunk
/// shape lets a writer hold.
pub const SLAB_BYTES: u64 = 64 << 20;

/// The default chunk shape of an array of `shape` whose elements are
/// `element` bytes, packed: see the [module docs](self).
///
/// ```
/// use ndl_zarr::default_chunk_shape;
///
/// // 2 MiB of f64: 262 144 elements, 512 × 512 in two dimensions.
/// assert_eq!(default_chunk_shape(&[10_000, 10_000], 8), [512, 512]);
/// // A short dimension is taken whole; the others share what it leaves.
/// assert_eq!(default_chunk_shape(&[3, 100_000], 8), [3, 87_381]);
/// assert_eq!(default_chunk_shape(&[100], 8), [100]);
/// // Chunks are at least 1 long, even along an empty dimension.
/// assert_eq!(default_chunk_shape(&[0, 5], 4), [1, 5]);
/// assert_eq!(default_chunk_shape(&[], 8), Vec::<u64>::new());
/// // 2 GiB of u16 in a cube: 101³ would make slabs of 202 MiB; 32 rows
/// // make 64 MiB, and the other two extents share the rest.
/// assert_eq!(default_chunk_shape(&[1024, 1024, 1024], 2), [32, 181, 181]);
/// ```
pub fn default_chunk_shape(shape: &[u64], element: usize) -> Vec<u64> {
    let element = element.max(1) as u64;
    let budget = (CHUNK_BYTES / element).max(1);
    let mut chunks = vec![1; shape.len()];
    balance(&shape[..], budget, &mut chunks[..]);
    for d in 0..shape.len() {
        let row = shape[d + 1..]
            .iter()
            .fold(element, |n, &x| n.saturating_mul(x.max(1)));
        if chunks[d].saturating_mul(row) <= SLAB_BYTES {
            break;
        }
        chunks[d] = (SLAB_BYTES / row).clamp(1, chunks[d]);
        let rest = budget / chunks[..=d].iter().product::<u64>();
        balance(&shape[d + 1..], rest.max(1), &mut chunks[d + 1..]);
    }
    chunks
}

/// Spreads `budget` elements evenly over the extents of `shape`, no
/// extent longer than its dimension, into `chunks`.
fn balance(shape: &[u64], budget: u64, chunks: &mut [u64]) {
    let mut open: Vec<usize> = (0..shape.len()).collect();
    let mut budget = budget.max(1);
    // Each round takes whole the dimensions shorter than the even share,
    // which raises the share of the rest: at most `rank` rounds.
    loop {
        let share = root(budget, open.len() as u32);
        let (short, long): (Vec<usize>, Vec<usize>) =
            open.iter().partition(|&&d| shape[d].max(1) <= share);
        for &d in &short {
            chunks[d] = shape[d].max(1);
            budget /= chunks[d];
        }
        if short.is_empty() || long.is_empty() {
            for &d in &long {
                chunks[d] = share.max(1);
            }
            return;
        }
        budget = budget.max(1);
        open = long;
    }
}

/// The largest `n` with `n^k <= x` (1 for `k` 0).
fn root(x: u64, k: u32) -> u64 {
    if k == 0 {
        return 1;
    }
    let mut n = (x as f64).powf(1.0 / f64::from(k)).round() as u64;
    while n > 1 && n.checked_pow(k).is_none_or(|p| p > x) {
        n -= 1;
    }
    while n
        .checked_add(1)
        .and_then(|m| m.checked_pow(k))
        .is_some_and(|p| p <= x)
    {
        n += 1;
    }
    n.max(1)
}

/// Checks a chunk shape given for an array of `shape`: one extent per
/// dimension, none 0.
pub(crate) fn check(shape: &[u64], chunks: &[u64]) -> Result<(), String> {
    if chunks.len() != shape.len() {
        return Err(format!(
            "chunks {chunks:?} have {} dimensions, but the array of shape {shape:?} has {}",
            chunks.len(),
            shape.len()
        ));
    }
    if chunks.contains(&0) {
        return Err(format!("chunks {chunks:?}: an extent must be at least 1"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(chunks: &[u64], element: u64) -> u64 {
        chunks.iter().product::<u64>() * element
    }

    #[test]
    fn chunks_hold_about_the_target_spread_evenly() {
        let c = default_chunk_shape(&[300, 300, 300], 4);
        assert_eq!(c, [80, 80, 80]);
        assert!(bytes(&c, 4) <= CHUNK_BYTES && bytes(&c, 4) > CHUNK_BYTES / 2);
        // A record bigger than the target: one per chunk.
        assert_eq!(default_chunk_shape(&[10, 10], 8 << 20), [1, 1]);
        // A zero-sized element counts as one byte.
        assert_eq!(default_chunk_shape(&[4], 0), [4]);
    }

    #[test]
    fn slabs_stay_bounded() {
        for shape in [[1u64 << 12, 1 << 12, 1 << 12], [7, 1 << 20, 1 << 12]] {
            let c = default_chunk_shape(&shape, 8);
            let d = c.iter().position(|&x| x > 1).unwrap_or(0);
            let slab = c[d] * shape[d + 1..].iter().product::<u64>() * 8;
            assert!(slab <= SLAB_BYTES, "{shape:?} {c:?}: {slab}");
            assert!(bytes(&c, 8) > CHUNK_BYTES / 4, "{shape:?} {c:?}");
        }
    }

    #[test]
    fn roots_are_floors() {
        assert_eq!(root(26, 3), 2);
        assert_eq!(root(27, 3), 3);
        assert_eq!(root(u64::MAX, 1), u64::MAX);
        assert_eq!(root(0, 2), 1);
    }

    #[test]
    fn a_given_shape_has_the_array_rank_and_no_zero() {
        assert!(check(&[3, 4], &[2, 2]).is_ok());
        assert!(check(&[3, 4], &[2]).unwrap_err().contains("1 dimensions"));
        assert!(check(&[3], &[0]).unwrap_err().contains("at least 1"));
    }
}
