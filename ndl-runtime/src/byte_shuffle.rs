//! Field copies between records of up to 64 bytes as one byte permutation
//! per record, on CPUs with AVX-512 VBMI.
//!
//! A copy plan whose fields all move (a file's record read by name into
//! another layout) costs a load and a store per field and record in the
//! scalar loop; here each record is one masked load, one `vpermb` and one
//! masked store, whatever its fields. Elsewhere [`ByteShuffle::new`] gives
//! `None` and callers keep the scalar loop.

/// A permutation of the bytes of `per` records at once (as many as fit in
/// 64 bytes on both sides): target byte `j` is source byte `index[j]`, for
/// the target bytes the plan covers.
#[derive(Clone, Debug)]
pub(crate) struct ByteShuffle {
    index: [u8; 64],
    /// The target bytes of one record the plan writes; the others keep what
    /// they hold.
    store: u64,
    from: usize,
    to: usize,
}

impl ByteShuffle {
    /// The permutation that copies `len` bytes at `src` of every
    /// `from`-byte record to `dst` of every `to`-byte record, for each
    /// `(src, dst, len)` of `copies`; `None` when a record is over 64 bytes
    /// or this CPU lacks the instructions.
    pub fn new(
        copies: impl IntoIterator<Item = (usize, usize, usize)>,
        from: usize,
        to: usize,
    ) -> Option<ByteShuffle> {
        if from == 0 || to == 0 || from > 64 || to > 64 || !supported() {
            return None;
        }
        let mut shuffle = ByteShuffle {
            index: [0; 64],
            store: 0,
            from,
            to,
        };
        let per = shuffle.per();
        for (src, dst, len) in copies {
            if src + len > from || dst + len > to {
                return None;
            }
            for k in 0..len {
                shuffle.store |= 1 << (dst + k);
                for r in 0..per {
                    shuffle.index[r * to + dst + k] = (r * from + src + k) as u8;
                }
            }
        }
        Some(shuffle)
    }

    /// Records per permutation: as many as fit in 64 bytes on both sides.
    fn per(&self) -> usize {
        64 / self.from.max(self.to)
    }

    /// The load and store masks for `records` records (at most `per`).
    fn masks(&self, records: usize) -> (u64, u64) {
        let store = (0..records).fold(0, |m, r| m | self.store << (r * self.to));
        (mask(records * self.from), store)
    }

    /// Copies the planned bytes of every record of `from` into the records
    /// of `to`, which hold as many.
    ///
    /// # Panics
    /// If the buffers are not whole records, or hold different counts.
    pub fn apply(&self, from: &[u8], to: &mut [u8]) {
        let n = from.len() / self.from;
        assert!(
            from.len() == n * self.from && to.len() == n * self.to,
            "{} bytes of {}-byte records against {} bytes of {}-byte records",
            from.len(),
            self.from,
            to.len(),
            self.to
        );
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `new` made this only where the CPU has the instructions
        // `permute` is compiled for, and the lengths are checked above.
        unsafe {
            permute(self, from, to, n);
        }
    }
}

/// The low `n` bits set.
fn mask(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1 << n) - 1 }
}

fn supported() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vbmi")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// # Safety
/// The CPU has AVX-512 F, BW and VBMI; `from` holds `n` records of
/// `shuffle.from` bytes and `to` `n` records of `shuffle.to` bytes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn permute(shuffle: &ByteShuffle, from: &[u8], to: &mut [u8], n: usize) {
    use std::arch::x86_64::{
        _mm512_loadu_si512, _mm512_mask_storeu_epi8, _mm512_maskz_loadu_epi8,
        _mm512_permutexvar_epi8,
    };
    // SAFETY (all below): `index` is 64 bytes, the size of the unaligned
    // load. A masked load reads only the bytes its mask names (the others
    // are neither read nor fault), here the source bytes of the records
    // `at..` of the group (at most `n - at` of them), within `from`; a masked store
    // writes only the bytes its mask names, here bytes of those records
    // below `to` each, within `to`.
    let index = unsafe { _mm512_loadu_si512(shuffle.index.as_ptr().cast()) };
    let (src, dst) = (from.as_ptr(), to.as_mut_ptr());
    let per = shuffle.per();
    let whole = shuffle.masks(per);
    for at in (0..n).step_by(per) {
        // The last group may hold fewer records.
        let (load, store) = match n - at {
            left if left < per => shuffle.masks(left),
            _ => whole,
        };
        unsafe {
            let records = _mm512_maskz_loadu_epi8(load, src.add(at * shuffle.from).cast());
            let moved = _mm512_permutexvar_epi8(index, records);
            _mm512_mask_storeu_epi8(dst.add(at * shuffle.to).cast(), store, moved);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against the copies done by hand, on records of several sizes up to
    /// 64 bytes, with and without a last partial group of records; where
    /// the CPU lacks the instructions, `new` declines.
    #[test]
    fn permutes_as_the_copies_do() {
        type Copies = &'static [(usize, usize, usize)];
        let plans: [(usize, usize, Copies); 5] = [
            (24, 24, &[(0, 8, 4), (4, 0, 8), (12, 16, 3), (15, 19, 1)]),
            (16, 20, &[(0, 12, 8), (8, 0, 8)]),
            (7, 16, &[(0, 8, 2), (2, 0, 4), (6, 15, 1)]),
            (64, 64, &[(0, 32, 32), (32, 0, 32)]),
            (40, 3, &[(39, 0, 1), (0, 1, 2)]),
        ];
        for (from, to, copies) in plans {
            let Some(shuffle) = ByteShuffle::new(copies.iter().copied(), from, to) else {
                assert!(!supported(), "a plan within 64 bytes was declined");
                continue;
            };
            for n in [0, 1, 37, 38] {
                let source: Vec<u8> = (0..n * from).map(|i| (i * 31 + 7) as u8).collect();
                let mut got = vec![0xEE; n * to];
                shuffle.apply(&source, &mut got);
                let mut want = vec![0xEE; n * to];
                for (s, t) in source.chunks_exact(from).zip(want.chunks_exact_mut(to)) {
                    for &(src, dst, len) in copies {
                        t[dst..dst + len].copy_from_slice(&s[src..src + len]);
                    }
                }
                assert_eq!(got, want, "{n} records, {from} -> {to}");
            }
        }
        assert!(ByteShuffle::new([(0, 0, 1)], 65, 8).is_none());
        assert!(ByteShuffle::new([(60, 0, 8)], 64, 8).is_none());
    }
}
