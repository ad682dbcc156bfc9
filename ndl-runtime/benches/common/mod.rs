//! The records both benchmarks write and read, and how to make them.
#![allow(dead_code)]

use ndl_runtime::NdlType;

/// 32 bytes, no padding: every byte of memory is a field.
#[derive(
    Clone, Copy, Debug, PartialEq, NdlType, npyz::Serialize, npyz::Deserialize, npyz::AutoSerialize,
)]
#[repr(C)]
pub struct Dense32 {
    pub id: u64,
    pub x: f64,
    pub y: f32,
    pub flags: u32,
    pub t: i64,
}

/// 24 bytes, 8 of them padding (4 after `a`, 4 at the end): NumPy's
/// `align=True` layout.
#[derive(
    Clone, Copy, Debug, PartialEq, NdlType, npyz::Serialize, npyz::Deserialize, npyz::AutoSerialize,
)]
#[repr(C)]
pub struct Padded24 {
    pub a: u32,
    pub b: f64,
    pub c: [u8; 3],
    pub d: i8,
}

/// [`Padded24`] with its byte array split into scalars, for Zarr v3,
/// whose `struct` data type has no array fields: the same layout (24
/// bytes, 8 of them padding: after `a` and at the end), the same values,
/// the same 16 packed bytes.
#[derive(
    Clone, Copy, Debug, PartialEq, NdlType, npyz::Serialize, npyz::Deserialize, npyz::AutoSerialize,
)]
#[repr(C)]
pub struct Padded24Flat {
    pub a: u32,
    pub b: f64,
    pub c: u16,
    pub d: u8,
    pub e: i8,
}

const _: () = assert!(std::mem::size_of::<Dense32>() == 32);
const _: () = assert!(std::mem::size_of::<Padded24>() == 24);
const _: () = assert!(std::mem::size_of::<Padded24Flat>() == 24);

/// A record the benchmarks can make `n` of, deterministically.
pub trait Record: NdlType + Copy + npyz::Serialize + npyz::Deserialize + PartialEq {
    const NAME: &'static str;
    fn make(i: u64, r: u64) -> Self;
    /// npyz's dtype for the record in the file's byte order.
    fn npyz_dtype(big_endian: bool) -> npyz::DType;
}

impl Record for Dense32 {
    const NAME: &'static str = "dense32";
    fn make(i: u64, r: u64) -> Dense32 {
        Dense32 {
            id: i,
            x: (r >> 11) as f64 * 1e-6,
            y: (r as u32) as f32 * 0.25,
            flags: (r >> 32) as u32,
            t: r as i64,
        }
    }
    fn npyz_dtype(big_endian: bool) -> npyz::DType {
        let e = if big_endian { '>' } else { '<' };
        record(&[
            ("id", plain(&format!("{e}u8"))),
            ("x", plain(&format!("{e}f8"))),
            ("y", plain(&format!("{e}f4"))),
            ("flags", plain(&format!("{e}u4"))),
            ("t", plain(&format!("{e}i8"))),
        ])
    }
}

impl Record for Padded24 {
    const NAME: &'static str = "padded24";
    fn make(i: u64, r: u64) -> Padded24 {
        Padded24 {
            a: i as u32,
            b: (r >> 11) as f64 * 1e-6,
            c: [r as u8, (r >> 8) as u8, (r >> 16) as u8],
            d: (r >> 24) as i8,
        }
    }
    fn npyz_dtype(big_endian: bool) -> npyz::DType {
        let e = if big_endian { '>' } else { '<' };
        record(&[
            ("a", plain(&format!("{e}u4"))),
            ("b", plain(&format!("{e}f8"))),
            ("c", npyz::DType::Array(3, Box::new(plain("|u1")))),
            ("d", plain("|i1")),
        ])
    }
}

impl Record for Padded24Flat {
    const NAME: &'static str = "padded24-flat";
    fn make(i: u64, r: u64) -> Padded24Flat {
        Padded24Flat {
            a: i as u32,
            b: (r >> 11) as f64 * 1e-6,
            c: r as u16,
            d: (r >> 16) as u8,
            e: (r >> 24) as i8,
        }
    }
    fn npyz_dtype(big_endian: bool) -> npyz::DType {
        let e = if big_endian { '>' } else { '<' };
        record(&[
            ("a", plain(&format!("{e}u4"))),
            ("b", plain(&format!("{e}f8"))),
            ("c", plain(&format!("{e}u2"))),
            ("d", plain("|u1")),
            ("e", plain("|i1")),
        ])
    }
}

fn plain(s: &str) -> npyz::DType {
    npyz::DType::Plain(s.parse().expect("a valid type string"))
}

fn record(fields: &[(&str, npyz::DType)]) -> npyz::DType {
    npyz::DType::Record(
        fields
            .iter()
            .map(|(name, dtype)| npyz::Field {
                name: name.to_string(),
                dtype: dtype.clone(),
            })
            .collect(),
    )
}

/// `n` records with varied values (a xorshift sequence), every page
/// touched, in memory advised like NumPy's arrays (see [`huge_vec`]).
pub fn records<T: Record>(n: usize) -> Vec<T> {
    let mut r = 0x9e37_79b9_7f4a_7c15u64;
    let mut v = huge_vec(n);
    v.extend((0..n as u64).map(|i| {
        r ^= r << 13;
        r ^= r >> 7;
        r ^= r << 17;
        T::make(i, r)
    }));
    v
}

/// An empty vector with room for `n` values whose memory, when 4 MiB or
/// more, is advised to be backed by 2 MiB pages before it is touched: what
/// NumPy does for every array it allocates, so that the records NumPy
/// writes from and reads into and ours live in the same kind of memory.
pub fn huge_vec<T>(n: usize) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(n);
    advise_huge(v.as_mut_ptr().cast(), n * std::mem::size_of::<T>());
    v
}

/// Advises `len` bytes at `p` (an allocation of ours, not yet touched) to
/// be backed by 2 MiB pages when they are 4 MiB or more, as NumPy does.
pub fn advise_huge(p: *mut u8, len: usize) {
    const HUGE: usize = 2 << 20;
    if len >= 4 << 20 {
        let p = p as usize;
        let (start, end) = (p.next_multiple_of(HUGE), (p + len) / HUGE * HUGE);
        if end > start {
            // SAFETY: the range lies in an allocation of the caller's; the
            // advice changes how it is backed, not its contents.
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
        }
    }
}
