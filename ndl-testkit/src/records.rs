//! Record types for the `.npy`/`.npz` tests: derived, except the few
//! that show what a hand-written `NdlType` may do (a top-level fixed
//! string, complex and half floats, a record whose gaps are Rust fields).

use std::mem::{offset_of, size_of};

use ndl_runtime::{Charset, Compound, Datatype, FixedString, Member, NdlType};

/// `u1`, 7 bytes of padding, `f8`, `u2`, 6 bytes of padding: 24 bytes.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
pub struct Padded {
    pub a: u8,
    pub b: f64,
    pub c: u16,
}

/// The same fields without padding: 11 bytes.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C, packed)]
pub struct Packed {
    pub a: u8,
    pub b: f64,
    pub c: u16,
}

/// Two floats in a 32-byte, 32-aligned record.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C, align(32))]
pub struct Aligned {
    pub x: f32,
    pub y: f32,
}

/// Nested in [`Outer`]: `f8` then `f4`, 16 bytes.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
pub struct Inner {
    pub x: f64,
    pub y: f32,
}

/// A nested struct, a bool array and a 2-d array: 40 bytes.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
pub struct Outer {
    pub id: u32,
    pub pos: Inner,
    pub flags: [bool; 3],
    pub m: [[i16; 3]; 2],
}

/// An array of structs inside a struct.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
pub struct Track {
    pub n: u8,
    pub pts: [Inner; 2],
}

/// An enum stored as `u1`.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(u8)]
pub enum Color {
    Red = 0,
    Green = 1,
    Blue = 5,
}

/// An enum stored as `<i2`, negative values included.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(i16)]
pub enum Level {
    Low = -5,
    High = 300,
}

/// An enum stored as `<u8` with a value past 32 bits.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(u64)]
pub enum Wide {
    A = 1,
    B = 1 << 40,
}

/// Enums of three bases in one record.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
pub struct Tagged {
    pub c: Color,
    pub l: Level,
    pub w: Wide,
}

/// NumPy `S5`: five bytes, NUL-padded.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(transparent)]
pub struct S5(pub [u8; 5]);
// SAFETY: five bytes, any value valid.
unsafe impl NdlType for S5 {
    fn datatype() -> Datatype {
        Datatype::FixedString(FixedString {
            length: 5,
            charset: Charset::Ascii,
        })
    }
}

/// NumPy `U3`: three UTF-32 code units.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(transparent)]
pub struct U3(pub [u32; 3]);
// SAFETY: twelve bytes as three u32, any value valid.
unsafe impl NdlType for U3 {
    fn datatype() -> Datatype {
        Datatype::FixedString(FixedString {
            length: 3,
            charset: Charset::Utf32,
        })
    }
}

impl U3 {
    pub fn new(s: &str) -> U3 {
        let mut a = [0u32; 3];
        for (slot, c) in a.iter_mut().zip(s.chars()) {
            *slot = c as u32;
        }
        U3(a)
    }
}

/// A record of fixed strings.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
pub struct Names {
    pub s: S5,
    pub u: U3,
}

/// NumPy `c8`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct C64 {
    pub re: f32,
    pub im: f32,
}
// SAFETY: two f32, real then imaginary, as complex64.
unsafe impl NdlType for C64 {
    fn datatype() -> Datatype {
        Datatype::Complex64
    }
}

/// NumPy `f2`, as its bits.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(transparent)]
pub struct F16(pub u16);
// SAFETY: two bytes, any value valid.
unsafe impl NdlType for F16 {
    fn datatype() -> Datatype {
        Datatype::Float16
    }
}

/// A record of the extension scalars.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
pub struct Extras {
    pub z: C64,
    pub h: F16,
    pub ok: bool,
}

/// NumPy's `np.dtype('i1, i4, i1', align=True)`.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
pub struct AlignedTriple {
    pub f0: i8,
    pub f1: i32,
    pub f2: i8,
}

/// NumPy's `{'names': ['a', 'b'], 'formats': ['i4', 'i4'], 'offsets': [1, 6]}`
/// (itemsize 10): the gaps are Rust fields the datatype leaves out, which
/// the `NdlType` contract allows since gaps may hold any bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, packed)]
pub struct Gapped {
    pub gap0: u8,
    pub a: i32,
    pub gap1: u8,
    pub b: i32,
}
// SAFETY: `a` and `b` at their `offset_of!`, size from `size_of`; the gap
// fields are `u8`, valid for any byte.
unsafe impl NdlType for Gapped {
    fn datatype() -> Datatype {
        Datatype::Compound(Compound {
            size: size_of::<Gapped>(),
            members: vec![
                Member::new("a", offset_of!(Gapped, a), Datatype::Int32),
                Member::new("b", offset_of!(Gapped, b), Datatype::Int32),
            ],
        })
    }
}

/// NumPy's `{'names': ['c', 'd'], 'formats': ['i4', gapped]}` (itemsize 14).
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C, packed)]
pub struct HoldsGapped {
    pub c: i32,
    pub d: Gapped,
}

/// NumPy's `{'names': [], 'formats': [], 'itemsize': 8}`: no fields.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(transparent)]
pub struct NoFields(pub [u8; 8]);
// SAFETY: eight bytes of gap, any value valid.
unsafe impl NdlType for NoFields {
    fn datatype() -> Datatype {
        Datatype::Compound(Compound {
            size: 8,
            members: vec![],
        })
    }
}

// Hand-written `NdlType`s are `Record`s too (as packed values), so the
// derived records holding them are.
ndl_runtime::plain_record!(S5, U3, C64, F16, Gapped, NoFields);
