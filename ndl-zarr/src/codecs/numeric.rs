//! The NumPy number types of numcodecs' array filters (`delta`,
//! `quantize`): their `dtype`/`astype` strings, and elements read, cast and
//! written as NumPy does (integers wrap, floats round to their width).

use zarrs::array::DataType;
use zarrs::metadata::v3::MetadataV3;
use zarrs::plugin::PluginCreateError;

/// A NumPy number type, in the chunk's native byte order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Numeric {
    Int(u8),
    UInt(u8),
    Float(u8),
}

/// The kind and byte size of a NumPy type name (`"int32"` is `("i",
/// "4")`), or `None` when `name` is not one.
fn type_name_code(name: &str) -> Option<(&'static str, &'static str)> {
    let (kind, bits) = [("uint", "u"), ("int", "i"), ("float", "f")]
        .into_iter()
        .find_map(|(prefix, kind)| Some((kind, name.strip_prefix(prefix)?)))?;
    let size = match bits {
        "8" => "1",
        "16" => "2",
        "32" => "4",
        "64" => "8",
        _ => return None,
    };
    Some((kind, size))
}

/// One element, wide enough for every [`Numeric`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Scalar {
    Int(i128),
    Float(f64),
}

impl Numeric {
    /// A codec's `dtype` and `astype`, the second `dtype` when not given;
    /// `codec` names the codec in the error.
    pub fn pair(
        codec: &str,
        dtype: &str,
        astype: Option<&str>,
    ) -> Result<(Numeric, Numeric), PluginCreateError> {
        let dtype = Numeric::parse(codec, dtype)?;
        let astype = astype.map_or(Ok(dtype), |a| Numeric::parse(codec, a))?;
        Ok((dtype, astype))
    }

    /// The type a NumPy dtype string names (`"<i4"`, `"f8"`, `"|u1"`, or
    /// a type name such as `"int32"`, which numcodecs.zarr3 writes);
    /// `codec` names the codec in the error.
    pub fn parse(codec: &str, dtype: &str) -> Result<Numeric, PluginCreateError> {
        let bare = dtype.trim_start_matches(['<', '>', '|', '=']);
        let (kind, size) = type_name_code(bare).unwrap_or_else(|| bare.split_at(bare.len().min(1)));
        let numeric = match (kind, size) {
            ("i", "1" | "2" | "4" | "8") => Numeric::Int(size.parse().unwrap_or(0)),
            ("u", "1" | "2" | "4" | "8") => Numeric::UInt(size.parse().unwrap_or(0)),
            ("f", "4" | "8") => Numeric::Float(size.parse().unwrap_or(0)),
            _ => {
                return Err(PluginCreateError::Other(format!(
                    "{codec}: dtype `{dtype}` is not an integer or float32/float64 type"
                )));
            }
        };
        Ok(numeric)
    }

    /// The size of one element in bytes.
    pub fn size(self) -> usize {
        match self {
            Numeric::Int(n) | Numeric::UInt(n) | Numeric::Float(n) => usize::from(n),
        }
    }

    /// The Zarr v3 data type of this type.
    pub fn data_type(self) -> Result<DataType, PluginCreateError> {
        let name = match self {
            Numeric::Int(n) => format!("int{}", 8 * n),
            Numeric::UInt(n) => format!("uint{}", 8 * n),
            Numeric::Float(n) => format!("float{}", 8 * n),
        };
        DataType::from_metadata(&MetadataV3::new(name))
    }

    /// Element `i` of `bytes`.
    pub fn read(self, bytes: &[u8], i: usize) -> Scalar {
        let n = self.size();
        let mut b = [0u8; 8];
        b[..n].copy_from_slice(&bytes[i * n..(i + 1) * n]);
        match self {
            Numeric::Int(1) => Scalar::Int(i8::from_ne_bytes([b[0]]).into()),
            Numeric::Int(2) => Scalar::Int(i16::from_ne_bytes([b[0], b[1]]).into()),
            Numeric::Int(4) => Scalar::Int(i32::from_ne_bytes([b[0], b[1], b[2], b[3]]).into()),
            Numeric::Int(_) => Scalar::Int(i64::from_ne_bytes(b).into()),
            Numeric::UInt(1) => Scalar::Int(b[0].into()),
            Numeric::UInt(2) => Scalar::Int(u16::from_ne_bytes([b[0], b[1]]).into()),
            Numeric::UInt(4) => Scalar::Int(u32::from_ne_bytes([b[0], b[1], b[2], b[3]]).into()),
            Numeric::UInt(_) => Scalar::Int(u64::from_ne_bytes(b).into()),
            Numeric::Float(4) => Scalar::Float(f32::from_ne_bytes([b[0], b[1], b[2], b[3]]).into()),
            Numeric::Float(_) => Scalar::Float(f64::from_ne_bytes(b)),
        }
    }

    /// `value` as this type would hold it: integers wrapped to the width,
    /// floats rounded to it, as NumPy's casts do.
    pub fn cast(self, value: Scalar) -> Scalar {
        match (self, value) {
            (Numeric::Float(4), Scalar::Float(f)) => Scalar::Float(f64::from(f as f32)),
            (Numeric::Float(4), Scalar::Int(i)) => Scalar::Float(f64::from(i as f32)),
            (Numeric::Float(_), Scalar::Float(f)) => Scalar::Float(f),
            (Numeric::Float(_), Scalar::Int(i)) => Scalar::Float(i as f64),
            (_, Scalar::Float(f)) => self.cast(Scalar::Int(f as i128)),
            (Numeric::Int(n), Scalar::Int(i)) => {
                let shift = 128 - 8 * u32::from(n);
                Scalar::Int((i << shift) >> shift)
            }
            (Numeric::UInt(n), Scalar::Int(i)) => {
                Scalar::Int(i & ((1i128 << (8 * u32::from(n))) - 1))
            }
        }
    }

    /// Appends `value`, cast to this type, to `out`.
    pub fn write(self, value: Scalar, out: &mut Vec<u8>) {
        let n = self.size();
        match self.cast(value) {
            Scalar::Int(i) => out.extend_from_slice(&(i as u64).to_ne_bytes()[..n]),
            Scalar::Float(f) if n == 4 => out.extend_from_slice(&(f as f32).to_ne_bytes()),
            Scalar::Float(f) => out.extend_from_slice(&f.to_ne_bytes()),
        }
    }

    /// `a + b` in this type (integers wrap, floats round).
    pub fn add(self, a: Scalar, b: Scalar) -> Scalar {
        match (self.cast(a), self.cast(b)) {
            (Scalar::Int(a), Scalar::Int(b)) => self.cast(Scalar::Int(a + b)),
            (Scalar::Float(a), Scalar::Float(b)) => self.cast(Scalar::Float(a + b)),
            (a, _) => a,
        }
    }

    /// `a - b` in this type (integers wrap, floats round).
    pub fn sub(self, a: Scalar, b: Scalar) -> Scalar {
        match b {
            Scalar::Int(b) => self.add(a, Scalar::Int(-b)),
            Scalar::Float(b) => self.add(a, Scalar::Float(-b)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtype_strings_parse_with_or_without_byte_order() {
        assert_eq!(Numeric::parse("d", "<i4").unwrap(), Numeric::Int(4));
        assert_eq!(Numeric::parse("d", "|u1").unwrap(), Numeric::UInt(1));
        assert_eq!(Numeric::parse("d", "f8").unwrap(), Numeric::Float(8));
        let e = Numeric::parse("delta", "<M8[ns]").unwrap_err().to_string();
        assert!(e.contains("delta") && e.contains("<M8[ns]"), "{e}");
        assert!(Numeric::parse("d", "<f2").is_err());
    }

    #[test]
    fn integers_wrap_and_floats_round_as_numpy_casts() {
        let i1 = Numeric::Int(1);
        assert_eq!(i1.add(Scalar::Int(127), Scalar::Int(1)), Scalar::Int(-128));
        let u2 = Numeric::UInt(2);
        assert_eq!(u2.sub(Scalar::Int(0), Scalar::Int(1)), Scalar::Int(65535));
        let f4 = Numeric::Float(4);
        assert_eq!(
            f4.cast(Scalar::Float(0.1)),
            Scalar::Float(f64::from(0.1f32))
        );
        let mut out = vec![];
        Numeric::Int(4).write(Scalar::Int(-2), &mut out);
        assert_eq!(Numeric::Int(4).read(&out, 0), Scalar::Int(-2));
        Numeric::UInt(8).write(Scalar::Int(u64::MAX.into()), &mut out);
        assert_eq!(
            Numeric::UInt(8).read(&out[4..], 0),
            Scalar::Int(u64::MAX.into())
        );
    }
}
