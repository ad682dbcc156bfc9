//! The `.npy` header: magic, version, length and the Python dict literal.

mod count;
mod parse;

pub(crate) use count::{count_digits, with_count};

use std::ops::Range;

use super::descr::{write_descr, write_shape};
use super::shape::checked_product;
use super::{ByteOrder, Error, Result};
use crate::record_plan::RecordPlan;
use crate::{Datatype, MixedOrder, Order};

/// The magic string every `.npy` file starts with.
pub const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// NumPy's default for [`HeaderLimits::max_header_size`].
pub const DEFAULT_MAX_HEADER_SIZE: usize = 10_000;

/// Data starts at a multiple of this (NumPy >= 1.14 writers; readers don't require it).
const ARRAY_ALIGN: usize = 64;

/// Digits reserved for the growth axis so rewriting the count never moves the data.
const GROWTH_AXIS_MAX_DIGITS: usize = 21;

/// The description of a `.npy` file's array: what precedes the data.
///
/// `datatype` is the element datatype; `byte_order` applies to every
/// multi-byte number in it, nested fields included, except those that
/// `other_order` lists. A top-level
/// [`Datatype::Array`] is written the way NumPy stores a subarray dtype: its
/// shape is appended to `shape` (C order only), so it reads back as the base
/// datatype with the longer shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The element datatype.
    pub datatype: Datatype,
    /// The byte order of the multi-byte numbers, all of them unless
    /// `other_order` lists some.
    pub byte_order: ByteOrder,
    /// The byte ranges, within one element of `datatype`, of the numbers
    /// stored in the order opposite to `byte_order`: NumPy lets each field
    /// of a record have its own (`[('a', '<u8'), ('b', '>f8')]`). Empty
    /// when every number is in `byte_order`, as in every file written here.
    /// See [`Header::byte_order_at`].
    pub other_order: Vec<Range<usize>>,
    /// The order of the elements (NumPy's `fortran_order`).
    pub order: Order,
    /// The array shape; empty for a 0-d array (one element).
    pub shape: Vec<u64>,
}

/// Bounds on what a reader accepts, to stay safe with untrusted files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderLimits {
    /// The largest header (HEADER_LEN, in characters) to read, as NumPy's
    /// `max_header_size`. It is checked before the header bytes are read.
    pub max_header_size: usize,
}

impl Default for HeaderLimits {
    fn default() -> HeaderLimits {
        HeaderLimits {
            max_header_size: DEFAULT_MAX_HEADER_SIZE,
        }
    }
}

impl Header {
    /// A C-order header in native byte order.
    pub fn new(datatype: Datatype, shape: Vec<u64>) -> Header {
        Header {
            datatype,
            byte_order: ByteOrder::NATIVE,
            other_order: Vec::new(),
            order: Order::C,
            shape,
        }
    }

    /// The byte order of the number at byte `offset` of an element.
    ///
    /// ```
    /// use ndl_runtime::npy::{ByteOrder, Header, HeaderLimits};
    ///
    /// let file = b"\x93NUMPY\x01\x00\x46\x00{'descr':[('a','<u8'),('b','>f8')],'fortran_order':False,'shape':(0,)}";
    /// let (h, _) = Header::parse(file, &HeaderLimits::default())?;
    /// assert_eq!((h.byte_order, &h.other_order[..]), (ByteOrder::Little, &[8..16][..]));
    /// assert_eq!(h.byte_order_at(8), ByteOrder::Big);
    /// assert_eq!(h.descr()?, "[('a', '<u8'), ('b', '>f8')]");
    /// # Ok::<(), ndl_runtime::npy::Error>(())
    /// ```
    pub fn byte_order_at(&self, offset: usize) -> ByteOrder {
        self.byte_order.at(&self.other_order, offset)
    }

    /// Puts every number of the whole elements in `data` into
    /// `byte_order`, swapping those that `other_order` lists: what a
    /// reader that converts from one byte order needs first. Does nothing
    /// when `other_order` is empty.
    pub fn to_one_byte_order(&self, data: &mut [u8]) {
        if let Some(plan) = self.other_order_plan() {
            plan.swap(data);
        }
    }

    /// The plan that swaps the numbers in `other_order`, if there are any.
    pub(crate) fn other_order_plan(&self) -> Option<RecordPlan> {
        MixedOrder::new(&self.datatype, &self.other_order).map(MixedOrder::into_plan)
    }

    /// The number of elements: the product of `shape` (1 for `()`).
    pub fn element_count(&self) -> Result<u64> {
        checked_product(&self.shape).ok_or_else(|| self.overflow())
    }

    /// The size of the data in bytes: elements times item size.
    pub fn data_len(&self) -> Result<u64> {
        let itemsize = self.itemsize()?;
        self.element_count()?
            .checked_mul(itemsize)
            .ok_or_else(|| self.overflow())
    }

    fn itemsize(&self) -> Result<u64> {
        self.datatype
            .size()
            .map(|s| s as u64)
            .ok_or_else(|| Error::NotWritable {
                field: String::new(),
                reason: "the datatype has no fixed size".into(),
            })
    }

    fn overflow(&self) -> Error {
        Error::ShapeOverflow {
            shape: self.shape.clone(),
            itemsize: self.datatype.size().unwrap_or(0) as u64,
        }
    }

    /// The header exactly as NumPy writes it: magic, version, HEADER_LEN,
    /// the dict with sorted keys, growth spaces and padding to a multiple of
    /// 64 bytes ending in `\n`. The version is 1.0, or 2.0 when the header
    /// is longer than 65535 bytes, or 3.0 (UTF-8) when a field name has a
    /// character outside Latin-1, as `np.save` chooses.
    ///
    /// The length does not depend on the value of the growth axis
    /// (`shape[0]`, or the last axis in Fortran order) as long as it has at
    /// most 21 digits, which every `u64` has: a streaming writer can write
    /// a header with a count of 0 and overwrite it with the final count.
    ///
    /// A top-level [`Datatype::Array`] has its shape appended to `shape`,
    /// as NumPy does with subarray dtypes; in Fortran order that is an error.
    ///
    /// ```
    /// use ndl_runtime::npy::{ByteOrder, Header};
    /// use ndl_runtime::Datatype;
    ///
    /// let mut h = Header::new(Datatype::Float64, vec![3, 6]);
    /// h.byte_order = ByteOrder::Little;
    /// let bytes = h.to_bytes().unwrap();
    /// assert_eq!(bytes.len(), 128);
    /// assert!(bytes.starts_with(b"\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': (3, 6), }"));
    /// assert!(bytes.ends_with(b" \n"));
    /// ```
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let text = self.dict_text()?;
        wrap_header(&text)
    }

    /// The dict text before padding: `{'descr': ..., 'shape': (..), }` and growth spaces.
    fn dict_text(&self) -> Result<String> {
        let (datatype, shape) = self.folded()?;
        let mut s = String::from("{'descr': ");
        write_descr(datatype, &|at| self.byte_order_at(at), "", &mut s)?;
        s.push_str(", 'fortran_order': ");
        s.push_str(if self.order.is_fortran() {
            "True"
        } else {
            "False"
        });
        s.push_str(", 'shape': ");
        write_shape(shape.iter().copied(), &mut s);
        s.push_str(", }");
        let growth_axis = if self.order.is_fortran() {
            shape.last()
        } else {
            shape.first()
        };
        if let Some(n) = growth_axis {
            let digits = n.to_string().len();
            s.extend(std::iter::repeat_n(
                ' ',
                GROWTH_AXIS_MAX_DIGITS.saturating_sub(digits),
            ));
        }
        Ok(s)
    }

    /// The datatype and shape as written: a top-level array moves into the shape.
    fn folded(&self) -> Result<(&Datatype, Vec<u64>)> {
        if let (Datatype::Array(a), true) = (&self.datatype, self.order.is_fortran()) {
            return Err(Error::NotWritable {
                field: String::new(),
                reason: format!(
                    "an array datatype (shape {:?}) as the element of a Fortran-order array; \
                     NumPy stores subarray dtypes by appending their shape in C order",
                    a.shape
                ),
            });
        }
        let mut shape = self.shape.clone();
        let mut datatype = &self.datatype;
        while let Datatype::Array(a) = datatype {
            shape.extend(a.shape.iter().map(|&d| d as u64));
            datatype = &a.base;
        }
        Ok((datatype, shape))
    }

    /// The descr this header writes, e.g. `'<f8'` (for messages and checks).
    pub fn descr(&self) -> Result<String> {
        let (datatype, _) = self.folded()?;
        let mut out = String::new();
        write_descr(datatype, &|at| self.byte_order_at(at), "", &mut out)?;
        Ok(out)
    }
}

/// Magic, version and length field, the text, padding and `\n` (`_wrap_header`).
fn wrap_header(text: &str) -> Result<Vec<u8>> {
    let latin1: Option<Vec<u8>> = text.chars().map(|c| u8::try_from(c as u32).ok()).collect();
    let (encoded, mut version) = match latin1 {
        Some(bytes) => (bytes, 1u8),
        None => (text.as_bytes().to_vec(), 3u8),
    };
    let mut total = padded_len(encoded.len(), 2);
    if version == 1 && total > usize::from(u16::MAX) {
        version = 2;
    }
    let len_field = if version == 1 { 2 } else { 4 };
    total = padded_len(encoded.len(), len_field);
    let mut out = Vec::with_capacity((MAGIC.len() + 2 + len_field).saturating_add(total));
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[version, 0]);
    match (version, u16::try_from(total), u32::try_from(total)) {
        (1, Ok(len), _) => out.extend_from_slice(&len.to_le_bytes()),
        (2 | 3, _, Ok(len)) => out.extend_from_slice(&len.to_le_bytes()),
        _ => {
            return Err(Error::NotWritable {
                field: String::new(),
                reason: format!(
                    "the header would be {total} bytes long; the .npy format allows at most 4 GiB"
                ),
            });
        }
    }
    out.extend_from_slice(&encoded);
    out.resize(out.len() + (total - encoded.len() - 1), b' ');
    out.push(b'\n');
    Ok(out)
}

/// HEADER_LEN for `text_len` bytes of text: text, 1..=64 spaces, `\n`.
fn padded_len(text_len: usize, len_field: usize) -> usize {
    let hlen = text_len + 1;
    let pad = ARRAY_ALIGN - ((MAGIC.len() + 2 + len_field + hlen) % ARRAY_ALIGN);
    hlen + pad
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Charset, Compound, FixedString, Member, Opaque};
    use proptest::prelude::*;

    fn scalar() -> impl Strategy<Value = Datatype> {
        prop_oneof![
            Just(Datatype::Bool),
            Just(Datatype::Int8),
            Just(Datatype::UInt8),
            Just(Datatype::Int16),
            Just(Datatype::UInt32),
            Just(Datatype::Int64),
            Just(Datatype::UInt64),
            Just(Datatype::Float16),
            Just(Datatype::Float32),
            Just(Datatype::Float64),
            Just(Datatype::Complex64),
            Just(Datatype::Complex128),
            (0usize..5).prop_map(|length| Datatype::FixedString(FixedString {
                length,
                charset: Charset::Ascii
            })),
            (1usize..5).prop_map(|length| Datatype::FixedString(FixedString {
                length,
                charset: Charset::Utf32
            })),
            (1usize..5).prop_map(|size| Datatype::Opaque(Opaque { size, tag: None })),
        ]
    }

    /// Names with quotes, backslashes, control, Latin-1 and wider characters.
    fn name() -> impl Strategy<Value = String> {
        "[a-z'\"\\\\\\n\\x00\\x7f\u{e9}\u{85}\u{2028}\u{6574}\u{1f600} ]{1,6}"
    }

    fn datatype() -> impl Strategy<Value = Datatype> {
        scalar().prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                (inner.clone(), prop::collection::vec(1usize..4, 1..3))
                    .prop_map(|(dt, shape)| dt.array_of(&shape)),
                prop::collection::vec((name(), inner, 0usize..4), 0..5).prop_map(compound),
            ]
        })
    }

    /// Members in order with the given gaps, names made unique, a trailing gap.
    fn compound(members: Vec<(String, Datatype, usize)>) -> Datatype {
        let mut out = Vec::new();
        let mut pos = 0;
        for (i, (name, dt, gap)) in members.into_iter().enumerate() {
            pos += gap;
            let size = dt.size().unwrap();
            out.push(Member::new(format!("{name}#{i}"), pos, dt));
            pos += size;
        }
        Datatype::Compound(Compound {
            size: pos + out.len() % 3,
            members: out,
        })
    }

    #[test]
    fn counts_grow_into_the_padding() {
        let h = Header::new(Datatype::UInt8, vec![9, 1]);
        let bytes = h.to_bytes().unwrap();
        let digits = count_digits(&bytes, 9).unwrap();
        assert_eq!(&bytes[digits.clone()], b"9");
        assert!(count_digits(&bytes, 8).is_none());
        let grown = with_count(&bytes, digits.clone(), u64::MAX).unwrap();
        assert_eq!(grown.len(), bytes.len());
        let (back, _) = Header::parse(&grown, &HeaderLimits::default()).unwrap();
        assert_eq!(back.shape, [u64::MAX, 1]);
        let mut same = h.clone();
        same.shape[0] = u64::MAX;
        assert_eq!(grown, same.to_bytes().unwrap());
        // And back down: spaces fill in again.
        let digits = count_digits(&grown, u64::MAX).unwrap();
        assert_eq!(with_count(&grown, digits, 9).unwrap(), bytes);
    }

    #[test]
    fn a_header_without_padding_has_no_room() {
        let file = |text: &str| {
            let mut f = MAGIC.to_vec();
            f.extend_from_slice(&[1, 0]);
            f.extend_from_slice(&(text.len() as u16).to_le_bytes());
            f.extend_from_slice(text.as_bytes());
            f
        };
        let f = file("{'descr': '<u2', 'fortran_order': False, 'shape': (9,), }\n");
        let digits = count_digits(&f, 9).unwrap();
        assert!(with_count(&f, digits.clone(), 10).is_none());
        let same = with_count(&f, digits, 5).unwrap();
        assert_eq!(
            Header::parse(&same, &HeaderLimits::default())
                .unwrap()
                .0
                .shape,
            [5]
        );
        // A count in another spelling is left alone.
        let hex = file("{'descr': '<u2', 'fortran_order': False, 'shape': (0x9,), }\n");
        assert!(count_digits(&hex, 9).is_none());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
            let _ = Header::parse(&bytes, &HeaderLimits::default());
            let _ = Header::split(&bytes, &HeaderLimits::default());
        }

        #[test]
        fn arbitrary_header_text_never_panics(
            version in 1u8..=3,
            text in "[{}()\\[\\],:'\"#\\\\ \\n0-9a-zA-Z_<>|+\\-.\u{e9}\u{6574}]{0,120}",
        ) {
            let mut f = MAGIC.to_vec();
            f.extend_from_slice(&[version, 0]);
            let len = text.len() as u32;
            if version == 1 {
                f.extend_from_slice(&(len as u16).to_le_bytes());
            } else {
                f.extend_from_slice(&len.to_le_bytes());
            }
            f.extend_from_slice(text.as_bytes());
            let _ = Header::parse(&f, &HeaderLimits::default());
        }

        #[test]
        fn mutated_headers_never_panic(
            dt in datatype(),
            edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        ) {
            let mut f = Header::new(dt, vec![2]).to_bytes().unwrap();
            for (i, b) in edits {
                let i = i.index(f.len());
                f[i] = b;
            }
            let _ = Header::parse(&f, &HeaderLimits { max_header_size: usize::MAX });
        }

        #[test]
        fn compounds_round_trip(
            dt in datatype(),
            big in any::<bool>(),
            fortran_order in any::<bool>(),
            shape in prop::collection::vec(0u64..1000, 0..3),
        ) {
            let dt = match dt {
                Datatype::Compound(c) => Datatype::Compound(c),
                other => compound(vec![("x".into(), other, 1)]),
            };
            let h = Header {
                datatype: dt,
                byte_order: if big { ByteOrder::Big } else { ByteOrder::Little },
                other_order: Vec::new(),
                order: Order::from_fortran(fortran_order),
                shape,
            };
            let bytes = h.to_bytes().unwrap();
            prop_assert_eq!(bytes.len() % 64, 0);
            let (back, offset) = Header::parse(&bytes, &HeaderLimits { max_header_size: usize::MAX }).unwrap();
            prop_assert_eq!(offset, bytes.len());
            prop_assert_eq!(&back.datatype, &h.datatype);
            prop_assert_eq!(&back.shape, &h.shape);
            prop_assert_eq!(back.order, h.order);
            prop_assert_eq!(back.to_bytes().unwrap(), bytes);
        }
    }
}
