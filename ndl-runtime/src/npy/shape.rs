//! Arithmetic on array shapes that reading and writing share.

/// The product of `dims` (1 for none), or `None` if it overflows.
pub(crate) fn checked_product(dims: &[u64]) -> Option<u64> {
    dims.iter().try_fold(1u64, |n, &d| n.checked_mul(d))
}

/// Whether C and Fortran order lay out an array of `shape` the same way:
/// NumPy then calls it C-contiguous and writes `fortran_order: False`.
pub(crate) fn is_also_c_order(shape: &[u64]) -> bool {
    shape.contains(&0) || shape.iter().filter(|&&d| d != 1).count() <= 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fortran_flag_only_when_it_differs_from_c() {
        assert!(is_also_c_order(&[5]));
        assert!(is_also_c_order(&[3, 1]));
        assert!(is_also_c_order(&[0, 3]));
        assert!(!is_also_c_order(&[2, 3]));
    }
}
