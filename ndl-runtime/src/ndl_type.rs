//! The `NdlType` trait and its impls for primitives and arrays.

use crate::{Datatype, Enum, IntType};

/// A Rust type whose in-memory layout is described exactly by a [`Datatype`].
///
/// Derive it with `#[derive(NdlType)]`; the derive checks the rules below at
/// compile time.
///
/// # Safety
///
/// An implementation promises that [`NdlType::datatype`] describes `Self`'s
/// in-memory layout exactly:
/// - the datatype's size is `size_of::<Self>()`, and a compound's members sit
///   at exactly the offsets of the fields they describe, each member's
///   datatype describing its field by these same rules;
/// - every byte pattern the datatype admits is a valid `Self`: any bytes for
///   integers, floats, strings and opaque data, `0` or `1` for `bool`, a member's
///   value for an enum, any bytes at all in the gaps between members.
///
/// Readers rely on this to turn checked bytes into values of `Self`.
///
/// An `NdlType` is plain data, so it is `Send` and `Sync`: readers and
/// writers hand blocks of records to other threads.
///
/// # Optional scalar types
///
/// With the `half` feature `half::f16` is the `float16` datatype (NumPy
/// `f2`); with `num-complex`, `num_complex::Complex<f32>` and
/// `Complex<f64>` are `complex64` and `complex128` (NumPy `c8`, `c16`).
/// They work wherever primitives do: in arrays, in derived records, in
/// `.npy` and `.npz` files of either byte order.
///
/// ```
/// # #[cfg(all(feature = "half", feature = "num-complex"))] {
/// use half::f16;
/// use ndl_runtime::{npy, Datatype, NdlType};
/// use num_complex::Complex;
///
/// #[derive(Clone, Copy, Debug, PartialEq, NdlType)]
/// #[repr(C)]
/// struct Sample {
///     gain: f16,
///     iq: [Complex<f32>; 2],
/// }
///
/// assert_eq!(f16::datatype(), Datatype::Float16);
/// let s = Sample { gain: f16::from_f32(0.5), iq: [Complex::new(1.0, -1.0); 2] };
/// let mut file = Vec::new();
/// npy::write(&mut file, &[s])?;
/// assert_eq!(npy::read::<Sample, _>(&file[..])?, [s]);
/// # }
/// # Ok::<(), ndl_runtime::npy::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no NDL datatype",
    label = "not an `NdlType`",
    note = "derive it with `#[derive(NdlType)]` on a `#[repr(C)]` struct or a fieldless enum with an integer repr"
)]
pub unsafe trait NdlType: Copy + Send + Sync + 'static {
    /// The datatype describing `Self`.
    fn datatype() -> Datatype;

    /// The doc comment of the type, kept as its description.
    fn description() -> Option<&'static str> {
        None
    }
}

macro_rules! primitive {
    ($($t:ty => $dt:ident),* $(,)?) => {$(
        // SAFETY: a primitive of exactly this size; every bit pattern of an
        // integer or float is valid.
        unsafe impl NdlType for $t {
            fn datatype() -> Datatype {
                Datatype::$dt
            }
        }
    )*};
}

primitive! {
    i8 => Int8, i16 => Int16, i32 => Int32, i64 => Int64,
    u8 => UInt8, u16 => UInt16, u32 => UInt32, u64 => UInt64,
    f32 => Float32, f64 => Float64,
}

// SAFETY: `half::f16` is a `repr(transparent)` `u16` holding the bits of an
// IEEE 754 binary16 number, which is what `Float16` describes; every bit
// pattern is a valid value.
#[cfg(feature = "half")]
unsafe impl NdlType for half::f16 {
    fn datatype() -> Datatype {
        Datatype::Float16
    }
}

// SAFETY: `Complex<T>` is `repr(C)` with fields `re` then `im`, both `T`,
// without padding: the real-then-imaginary pair `Complex64` (two `f32`) and
// `Complex128` (two `f64`) describe; every bit pattern is a valid value.
#[cfg(feature = "num-complex")]
unsafe impl NdlType for num_complex::Complex<f32> {
    fn datatype() -> Datatype {
        Datatype::Complex64
    }
}

// SAFETY: as for `Complex<f32>`.
#[cfg(feature = "num-complex")]
unsafe impl NdlType for num_complex::Complex<f64> {
    fn datatype() -> Datatype {
        Datatype::Complex128
    }
}

// SAFETY: `bool` is one byte, and the `Bool` datatype admits only 0 and 1,
// exactly its valid values.
unsafe impl NdlType for bool {
    fn datatype() -> Datatype {
        Datatype::Bool
    }
}

// SAFETY: `[T; N]` is N values of `T` without gaps, in C order, which is what
// an array datatype of `T`'s datatype describes (nested arrays fold into one
// multi-dimensional array with the same C-order layout).
unsafe impl<T: NdlType, const N: usize> NdlType for [T; N] {
    fn datatype() -> Datatype {
        T::datatype().array_of(&[N])
    }
}

/// The integer types that can be the `repr` of a derived enum.
///
/// Implemented for `i8`…`i64` and `u8`…`u64`; the derive converts each
/// variant with `Self::Variant as Base` and then through this trait.
pub trait EnumBase: Copy + 'static + sealed::Sealed {
    /// The matching integer datatype.
    const INT_TYPE: IntType;

    /// The value, widened losslessly.
    fn widen(self) -> i128;
}

mod sealed {
    /// Only the eight integer types are enum bases.
    pub trait Sealed {}
}

macro_rules! enum_base {
    ($($t:ty => $it:ident),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl EnumBase for $t {
            const INT_TYPE: IntType = IntType::$it;
            fn widen(self) -> i128 {
                i128::from(self)
            }
        }
    )*};
}

enum_base! {
    i8 => Int8, i16 => Int16, i32 => Int32, i64 => Int64,
    u8 => UInt8, u16 => UInt16, u32 => UInt32, u64 => UInt64,
}

/// Builds an enum datatype from the base and `(name, value)` pairs.
pub(crate) fn enum_datatype<B: EnumBase>(members: &[(&str, B)]) -> Datatype {
    Datatype::Enum(Enum {
        base: B::INT_TYPE,
        members: members
            .iter()
            .map(|(name, v)| crate::EnumMember::new(*name, v.widen()))
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Array;

    #[test]
    fn nested_arrays_fold_into_one() {
        assert_eq!(
            <[[f32; 3]; 2]>::datatype(),
            Datatype::Array(Array {
                base: Box::new(Datatype::Float32),
                shape: vec![2, 3]
            })
        );
    }

    #[test]
    fn primitive_sizes_match_the_datatype() {
        fn check<T: NdlType>() {
            assert_eq!(T::datatype().size(), Some(std::mem::size_of::<T>()));
            assert_eq!(T::datatype().alignment(), std::mem::align_of::<T>());
        }
        check::<i8>();
        check::<u16>();
        check::<i32>();
        check::<u64>();
        check::<f32>();
        check::<f64>();
        check::<bool>();
        check::<[[u16; 5]; 7]>();
        #[cfg(feature = "half")]
        check::<[half::f16; 3]>();
        #[cfg(feature = "num-complex")]
        {
            check::<num_complex::Complex<f32>>();
            check::<num_complex::Complex<f64>>();
        }
    }
}
