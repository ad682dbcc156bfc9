//! The columns layout: a Zarr group with one array per leaf field, all
//! sharing the record dimension, as xarray, netCDF-C (NCZarr) and Dask
//! read them.
//!
//! - Each leaf field is the array named by its dotted path (`p.x`).
//! - Dimensions: the record dimension first, then one per axis of an array
//!   field (`<field>_dim<k>`, or the names of `#[ndl(dims = [...])]`), and
//!   for a fixed string the netCDF character dimension `<field>_strlen`.
//! - A bool is `uint8` with the CF attributes `flag_values [0, 1]` and
//!   `flag_meanings "false true"`; an enum is its base integer with its
//!   members' values and names. In v2 the attribute `_NCZARR_ATTR` types
//!   `flag_values` for netCDF-C 4.9, and `_nczarr_attr` for 4.10: both
//!   would otherwise type the list from its first value and then fail to
//!   open the store on `[0, 1, 300]`. Each version shows the other's key as
//!   a plain text attribute; xarray hides both.
//! - A fixed string of `L` bytes is `|S1` of shape `(n, L)`, the netCDF
//!   character convention that xarray joins back into strings;
//!   [`WriteOptions::chars_as_u1`](crate::WriteOptions::chars_as_u1) writes
//!   `|u1` instead, for Debian's ncdump 4.9, which crashes on any `S` dtype.
//!   A UTF-32 string is one `<U{n}` value. Opaque bytes are `|u1` of shape
//!   `(n, size)`.
//! - A time is an `int64` with CF attributes (`units: "seconds since
//!   1970-01-01 00:00:00"`, `calendar: "proleptic_gregorian"`, or for a
//!   duration `units: "seconds"` and `dtype: "timedelta64[s]"`, and
//!   `_FillValue` NaT), which xarray decodes; never an `M8` array, on which
//!   Debian's ncdump 4.9 crashes. A unit CF has no name for is stored in
//!   the coarsest CF unit it is a whole number of (`W` as days ×7, `10ms`
//!   as milliseconds ×10), a product beyond `i64` an error naming record
//!   and field; years, months and sub-nanosecond units that are no whole
//!   number of nanoseconds stay plain counts with a `comment`, their unit
//!   in the group's `ndl_datatype`. Reading into a time field decodes the
//!   CF time of stores others wrote (xarray: any unit from days to
//!   nanoseconds since any epoch, int64 or float64, calendars `standard`,
//!   `gregorian` and `proleptic_gregorian`, NaT from `_FillValue`);
//!   other calendars (`noleap`, `360_day`, `julian`, ...) are refused with
//!   an error naming the field and the calendar, as are counts that are
//!   not whole units of the field or overflow it.
//! - Doc comments become `long_name`, `#[ndl(units = "K")]` becomes `units`;
//!   the record type's doc comment is the group's `title`, and the group's
//!   `ndl_datatype` attribute is the record's NDL datatype.
//! - v2 is little-endian (big-endian is refused: netCDF-C 4.9 misreads it)
//!   and uncompressed unless a codec is given (Debian's ncdump 4.9 prints
//!   compressed chunks as data).
//! - Fill values are `null` in v2: xarray masks a non-null fill, and
//!   zarr-python's default of 0 would turn every 0 into NaN.
//! - The group's consolidated metadata (v2 `.zmetadata`, v3 inline in
//!   `zarr.json`) is rewritten once the columns' metadata is final: xarray
//!   warns when it is missing.

mod cf_time;
mod infer;
mod read;
pub(crate) mod variable;
mod write;

pub(crate) use infer::infer_record;
pub(crate) use read::ColumnsSource;
pub(crate) use write::ColumnsWriter;

use ndl_runtime::npy::scalar_typestr;
use ndl_runtime::time::{CfEncoding, NAT};
use ndl_runtime::{ByteOrder, Charset, Datatype, FixedString, TimeType};
use serde_json::{Map, Value, json};

use crate::error::{Error, Result};

/// One leaf field of the record and the Zarr array that holds it.
#[derive(Clone, Debug)]
pub(crate) struct Column {
    /// The array's name: the field's dotted path.
    pub name: String,
    /// Where the field's bytes are in a record.
    pub offset: usize,
    /// The bytes of one value.
    pub size: usize,
    /// The field's datatype, as the record has it.
    pub leaf: Datatype,
    /// The array's element datatype.
    pub element: Datatype,
    /// The array's dimensions after the record dimension.
    pub inner: Vec<u64>,
    /// Their names.
    pub dims: Vec<String>,
    /// The array's attributes.
    pub attributes: Map<String, Value>,
    /// How a time field's counts are stored as CF time.
    pub time: Option<CfEncoding>,
}

/// What a column gets beyond its field's attributes: for the columns of
/// a record with variable members, a ragged array's `sample_dimension`, an
/// option's fill.
#[derive(Clone, Debug, Default)]
pub(crate) struct Extra {
    /// Attributes added.
    pub attributes: Map<String, Value>,
    /// The array's `fill_value`, in place of the layout's own.
    pub fill: Option<Value>,
}

/// How columns are written.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Style {
    /// Characters as `|u1` rather than `|S1`.
    pub chars_as_u1: bool,
    /// The byte order numbers are stored in (for attribute types).
    pub order: ByteOrder,
}

/// The columns of records of `dt` (a compound in its own layout).
pub(crate) fn plan(dt: &Datatype, style: Style) -> Result<Vec<Column>> {
    let plain = ndl_runtime::columns::plan(dt).map_err(|e| Error::Unsupported { message: e.0 })?;
    Ok(plain.into_iter().map(|c| column(c, style)).collect())
}

/// The Zarr array of the plain column `c`: its element type and its
/// netCDF and CF attributes.
fn column(c: ndl_runtime::columns::Column, style: Style) -> Column {
    let mut attributes = Map::new();
    let mut time = None;
    if let Some(d) = &c.description {
        attributes.insert("long_name".into(), json!(d));
    }
    if let Some(u) = &c.units {
        attributes.insert("units".into(), json!(u));
    }
    let element = match &c.base {
        Datatype::Bool => {
            flags(&mut attributes, "|u1", json!([0, 1]), "false true");
            Datatype::UInt8
        }
        Datatype::Enum(e) => {
            let base = Datatype::from(e.base);
            let values: Vec<Value> = e.members.iter().map(|m| json!(m.value)).collect();
            let names: Vec<String> = e
                .members
                .iter()
                .map(|m| m.name.replace(char::is_whitespace, "_"))
                .collect();
            let typestr = scalar_typestr(&base, style.order).unwrap_or_default();
            flags(
                &mut attributes,
                &typestr,
                Value::Array(values),
                &names.join(" "),
            );
            base
        }
        Datatype::FixedString(s) if s.charset == Charset::Ascii => {
            if style.chars_as_u1 {
                Datatype::UInt8
            } else {
                Datatype::FixedString(FixedString {
                    length: 1,
                    charset: Charset::Ascii,
                })
            }
        }
        Datatype::Opaque(_) => Datatype::UInt8,
        Datatype::Time(t) => {
            time = Some(cf_time(&mut attributes, *t));
            Datatype::Int64
        }
        other => other.clone(),
    };
    Column {
        name: c.name,
        offset: c.offset,
        size: c.size,
        leaf: c.leaf,
        element,
        inner: c.inner,
        dims: c.dims,
        attributes,
        time,
    }
}

/// The CF flag attributes, and their type for netCDF-C.
fn flags(attributes: &mut Map<String, Value>, typestr: &str, values: Value, meanings: &str) {
    attributes.insert("flag_values".into(), values);
    attributes.insert("flag_meanings".into(), json!(meanings));
    let types = json!({"types": {"flag_values": typestr}});
    attributes.insert(NCZARR_ATTR.into(), types.clone());
    attributes.insert(NCZARR_ATTR_LOWER.into(), types);
}

/// A time column's CF attributes ([`CfEncoding`]: the group's
/// `ndl_datatype` keeps the unit, to which reading divides back), with
/// `_FillValue` = NaT as an attribute (Debian's ncdump ignores the array's
/// own fill value).
fn cf_time(attributes: &mut Map<String, Value>, t: TimeType) -> CfEncoding {
    let encoding = CfEncoding::of(t);
    for (name, value) in encoding.attributes() {
        attributes.insert(name.into(), json!(value));
    }
    attributes.insert("_FillValue".into(), json!(NAT));
    encoding
}

/// The attribute type map netCDF-C 4.9 reads.
pub(crate) const NCZARR_ATTR: &str = "_NCZARR_ATTR";
/// The same, as netCDF-C 4.10 reads it.
pub(crate) const NCZARR_ATTR_LOWER: &str = "_nczarr_attr";
