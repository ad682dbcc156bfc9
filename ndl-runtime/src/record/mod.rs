//! Records as Rust programs hold them: `String`, `Vec` and `Option` fields
//! beside plain numbers, built into format-neutral columns and read back.
//!
//! # Design
//!
//! A [`Record`] is described by a [`Datatype`]: NDL `string`, `vlen`, the
//! extension `optional`, and for a `#[derive(Record)]` struct a compound
//! built with [`Compound::variable`](crate::Compound::variable) when a
//! member is variable (no offsets, no size: each format lays records out
//! its own way), or laid out as `#[repr(C)]` would when every member is
//! fixed. Members carry doc comments, `rename`d names and `units` as for
//! `NdlType`.
//!
//! Values go to formats as columns, never as bytes of `Self` (a `String`'s
//! bytes are a pointer): [`Record::Columns`] appends records one at a time
//! into Arrow-shaped buffers and [`Columns::finish`] gives an owned,
//! neutral [`Column`]. Typed `Vec`s hold numbers (enums as their integer,
//! time as its `i64` count), strings are 64-bit offsets plus UTF-8 bytes,
//! lists offsets plus an items column, `[T; N]` a fixed-size list,
//! structs a column per field, options a validity bitmap beside the values;
//! so a format crate takes the buffers as they are. Other fixed-size values
//! (fixed strings, `float16`, complex numbers) are packed bytes.
//!
//! Reading goes the other way from a borrowed [`ColumnView`], which a
//! format crate can build over its own buffers (Arrow's, with 32- or
//! 64-bit offsets, bitmaps at a bit offset): [`Record::reader`] checks the
//! column's shape once, then [`ColumnReader::get`] decodes one record.
//! Struct fields are found by name, so columns may come in any order.
//! Errors name the field and the record.
//!
//! A `None` needs a slot in the values column too, without requiring
//! `T: Default`: [`Columns::push_null`] pushes a placeholder (zero, `""`,
//! `[]`), or the field's fill (`#[ndl(fill = ...)]`), which a format
//! without nulls then stores as it is; [`Column::fill_clash`] finds a
//! `Some(fill)` that would read back as `None`.
//!
//! Plain records keep their zero-copy paths: every `NdlType` is a
//! `Record`, and [`Record::visit_plain`] hands a format the type as an
//! `NdlType` (a [`PlainVisitor`]), with [`same_slice`] turning `&[Self]`
//! into `&[T]` for the `NdlType` the visitor was given.

mod column;
mod error;
pub(crate) mod impls;
mod untyped;
mod value_text;

pub use column::{Bitmap, Bits, Column, ColumnView, Number, Offsets, Values, ValuesView};
pub use error::RecordError;
pub use impls::{
    ArrayColumns, ArrayReader, BoolColumns, BoolReader, IntRepr, ListColumns, ListReader,
    NumberColumns, NumberReader, OptionColumns, OptionReader, PlainColumns, PlainReader,
    ReprColumns, ReprReader, StringColumns, StringReader, plain_reader, repr_reader,
};

use std::any::TypeId;

use crate::{Datatype, NdlType};

/// A Rust type that formats store as records, variable-length and nullable
/// fields included.
///
/// Derive it with `#[derive(Record)]` on a struct with named fields, each
/// a `Record`: every [`NdlType`] (numbers, `bool`, enums, fixed strings,
/// time, arrays, `#[derive(NdlType)]` structs), `String`, `Box<str>`,
/// `Vec<T>`, `Box<[T]>`, `Option<T>`, `[T; N]` and other `Record` structs.
/// No `repr` is needed. Field attributes are those of `NdlType` (`rename`,
/// `rename_all`, `units`, doc comments) and `fill` on an `Option` field:
/// the value that stands for `None` in formats without nulls.
///
/// ```
/// use ndl_runtime::record::{read, ColumnReader, Columns};
/// use ndl_runtime::{Datatype, Record};
///
/// /// One trade.
/// #[derive(Debug, PartialEq, Record)]
/// struct Trade {
///     id: u64,
///     symbol: String,
///     /// Levels seen, best first.
///     levels: Vec<f32>,
///     #[ndl(fill = -1)]
///     venue: Option<i32>,
///     note: Option<String>,
/// }
///
/// let Datatype::Compound(c) = Trade::datatype() else { unreachable!() };
/// assert_eq!(c.members[1].datatype, Datatype::String);
/// assert_eq!(c.members[2].datatype, Datatype::Vlen(Box::new(Datatype::Float32)));
/// assert_eq!(c.members[3].datatype, Datatype::Optional(Box::new(Datatype::Int32)));
///
/// let trades = [
///     Trade { id: 1, symbol: "ABC".into(), levels: vec![1.5, 1.25], venue: Some(7), note: None },
///     Trade { id: 2, symbol: "É".into(), levels: vec![], venue: None, note: Some("late".into()) },
/// ];
/// let mut columns = <Trade as Record>::Columns::with_capacity(trades.len());
/// columns.extend(&trades);
/// let column = columns.finish();
/// assert_eq!(read::<Trade>(&column.view())?, trades);
/// # Ok::<(), ndl_runtime::record::RecordError>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `Record`",
    label = "not a `Record`",
    note = "fields of a `#[derive(Record)]` struct are numbers, `bool`, `String`, `Box<str>`, `Vec<T>`, `Box<[T]>`, `Option<T>`, `[T; N]`, `#[derive(NdlType)]` types and `#[derive(Record)]` structs"
)]
pub trait Record: Sized + 'static {
    /// Builds columns of `Self` records.
    type Columns: Columns<Self>;

    /// Reads `Self` records from a column.
    type Reader<'a>: ColumnReader<Self>;

    /// The datatype describing `Self`.
    fn datatype() -> Datatype;

    /// The doc comment of the type, kept as its description.
    fn description() -> Option<&'static str> {
        None
    }

    /// A reader of `column`, once its shape has been checked against
    /// `Self`: the right kind of column, offsets ascending and in bounds,
    /// lengths agreeing, no null where `Self` is not an `Option`.
    fn reader<'a>(column: &ColumnView<'a>) -> Result<Self::Reader<'a>, RecordError>;

    /// `Some(visitor.visit::<Self>())` when `Self` is an [`NdlType`] (a
    /// plain, fixed layout), so a format takes its zero-copy path.
    fn visit_plain<V: PlainVisitor>(visitor: V) -> Option<V::Output> {
        let _ = visitor;
        None
    }

    /// The plain datatype of `Self`, if it is an [`NdlType`].
    fn plain() -> Option<Datatype> {
        Self::visit_plain(PlainDatatype)
    }
}

/// Builds columns of `T` records, one record at a time.
pub trait Columns<T>: Sized {
    /// Empty columns with room for `records` records.
    fn with_capacity(records: usize) -> Self;

    /// Appends one record.
    fn push(&mut self, value: &T);

    /// Appends the placeholder of a `None`: zero, an empty string or list,
    /// a struct of placeholders.
    fn push_null(&mut self);

    /// Appends every record of `values`.
    fn extend(&mut self, values: &[T]) {
        for v in values {
            self.push(v);
        }
    }

    /// The number of records.
    fn len(&self) -> usize;

    /// Whether there are none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The column, owned.
    fn finish(self) -> Column;
}

/// Reads records from a column whose shape [`Record::reader`] checked.
pub trait ColumnReader<T> {
    /// The number of records.
    fn len(&self) -> usize;

    /// Whether there are none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Record `index`; an error names what is wrong with it (a string not
    /// UTF-8, an enum value without a member, a null where no `Option`
    /// is, an index past the end).
    fn get(&self, index: usize) -> Result<T, RecordError>;

    /// Appends records `range` to `out`, stopping at the first error:
    /// what a list reads its items with, so that a column of numbers
    /// copies them as one slice.
    fn extend_from_range(
        &self,
        range: std::ops::Range<usize>,
        out: &mut Vec<T>,
    ) -> Result<(), RecordError> {
        out.reserve(range.len());
        for i in range {
            out.push(self.get(i)?);
        }
        Ok(())
    }
}

/// Called with `Self` as an [`NdlType`] by [`Record::visit_plain`].
pub trait PlainVisitor {
    /// What the visit gives.
    type Output;

    /// Visits the plain type `T`, which is the `Record` type visited.
    fn visit<T: NdlType>(self) -> Self::Output;
}

/// The visitor behind [`Record::plain`].
struct PlainDatatype;

impl PlainVisitor for PlainDatatype {
    type Output = Datatype;

    fn visit<T: NdlType>(self) -> Datatype {
        T::datatype()
    }
}

/// Every record of `column`, read as `T`.
pub fn read<T: Record>(column: &ColumnView<'_>) -> Result<Vec<T>, RecordError> {
    let reader = T::reader(column)?;
    (0..reader.len()).map(|i| reader.get(i)).collect()
}

/// The columns of `values`.
pub fn columns<T: Record>(values: &[T]) -> Column {
    let mut c = T::Columns::with_capacity(values.len());
    c.extend(values);
    c.finish()
}

/// `values` as `&[B]` if `A` and `B` are the same type: how a
/// [`PlainVisitor`], given `B: NdlType`, takes the `&[A]` of a
/// `Record` type `A` it was built with.
pub fn same_slice<A: 'static, B: 'static>(values: &[A]) -> Option<&[B]> {
    if TypeId::of::<A>() != TypeId::of::<B>() {
        return None;
    }
    // SAFETY: `A` and `B` are the same type (equal `TypeId`s), so the
    // pointer and length describe the same `[B]`.
    Some(unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<B>(), values.len()) })
}

/// `values` as `Vec<B>` if `A` and `B` are the same type, else `values`
/// back: how a [`PlainVisitor`] that read a `Vec<T>` of an `NdlType` gives
/// it as the `Vec` of the `Record` type.
pub fn same_vec<A: 'static, B: 'static>(values: Vec<A>) -> Result<Vec<B>, Vec<A>> {
    if TypeId::of::<A>() != TypeId::of::<B>() {
        return Err(values);
    }
    let mut values = std::mem::ManuallyDrop::new(values);
    // SAFETY: `A` and `B` are the same type, so the allocation, length and
    // capacity describe a `Vec<B>`; `ManuallyDrop` keeps the original from
    // freeing it.
    Ok(unsafe {
        Vec::from_raw_parts(
            values.as_mut_ptr().cast::<B>(),
            values.len(),
            values.capacity(),
        )
    })
}

/// Implements [`Record`] for types with a hand-written `unsafe impl
/// NdlType`, as packed values ([`PlainColumns`]); `#[derive(NdlType)]`
/// implements `Record` itself.
///
/// ```
/// use ndl_runtime::{Datatype, NdlType, Record};
///
/// #[derive(Clone, Copy)]
/// #[repr(transparent)]
/// struct Code([u8; 4]);
/// // SAFETY: four bytes, any value valid.
/// unsafe impl NdlType for Code {
///     fn datatype() -> Datatype {
///         Datatype::Opaque(ndl_runtime::Opaque { size: 4, tag: None })
///     }
/// }
/// ndl_runtime::plain_record!(Code);
///
/// assert_eq!(<Code as Record>::plain(), Some(<Code as NdlType>::datatype()));
/// ```
#[macro_export]
macro_rules! plain_record {
    ($($t:ty),* $(,)?) => {$(
        impl $crate::Record for $t {
            type Columns = $crate::record::PlainColumns<Self>;
            type Reader<'a> = $crate::record::PlainReader<'a, Self>;

            fn datatype() -> $crate::Datatype {
                <Self as $crate::NdlType>::datatype()
            }

            fn description() -> ::core::option::Option<&'static str> {
                <Self as $crate::NdlType>::description()
            }

            fn reader<'a>(
                column: &$crate::record::ColumnView<'a>,
            ) -> ::core::result::Result<Self::Reader<'a>, $crate::record::RecordError> {
                $crate::record::plain_reader(column)
            }

            fn visit_plain<V: $crate::record::PlainVisitor>(
                visitor: V,
            ) -> ::core::option::Option<V::Output> {
                ::core::option::Option::Some(visitor.visit::<Self>())
            }
        }
    )*};
}
