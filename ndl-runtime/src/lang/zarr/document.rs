//! Whole metadata documents: a v3 array's `zarr.json`, a v2 array's
//! `.zarray` and `.zattrs`, a group's, and what is read back from a v3
//! document's chunk grid.
//!
//! [`ArrayDocument`] is the one builder of array documents: the stores of
//! `ndl-zarr` write them, and [`v2_array_metadata`] and
//! [`v3_array_metadata`] describe an array (`ndl describe --format zarr`)
//! with them.

use std::ops::Range;

use serde_json::{Map, Value, json};

use super::codec::Codec;
use super::data_type::{base64_zeros, legacy_structured};
use crate::Datatype;
use crate::Order;
use crate::lang::{LangError, Language};
use crate::npy::ByteOrder;

/// The v3 metadata key, of arrays and groups.
pub const ZARR_JSON: &str = "zarr.json";
/// The v2 array metadata key.
pub const ZARRAY: &str = ".zarray";
/// The v2 attributes key, of arrays and groups.
pub const ZATTRS: &str = ".zattrs";
/// The v2 group metadata key.
pub const ZGROUP: &str = ".zgroup";

/// The Zarr format version of a store.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ZarrFormat {
    /// Zarr v2: `.zarray`, the records' dtype as NumPy's field list.
    V2,
    /// Zarr v3: `zarr.json`, the records' data type as `struct`.
    #[default]
    V3,
}

/// An array's metadata as plain data: what its documents say, chunked
/// regularly, fill value zero (v3) or none (v2), in C or Fortran order.
///
/// ```
/// use ndl_runtime::lang::zarr::{ArrayDocument, Codec, ZarrFormat};
/// use ndl_runtime::{ByteOrder, Datatype};
///
/// let doc = ArrayDocument {
///     codec: Codec::Zstd(3),
///     dimension_names: Some(vec!["t".into()]),
///     ..ArrayDocument::new(ZarrFormat::V3, Datatype::UInt16, vec![10], vec![4])
/// };
/// let v3 = doc.v3().unwrap();
/// assert_eq!(v3["codecs"][1]["name"], "zstd");
/// assert_eq!(v3["dimension_names"], serde_json::json!(["t"]));
/// assert_eq!(doc.v2().unwrap()["dtype"], "<u2");
/// assert_eq!(doc.v2_attributes()["_ARRAY_DIMENSIONS"], serde_json::json!(["t"]));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayDocument {
    /// The Zarr format; a v3 document of a v2 array has v2 chunk keys.
    pub format: ZarrFormat,
    /// The array's shape.
    pub shape: Vec<u64>,
    /// The chunk grid's chunk shape (with sharding, the shard shape).
    pub chunks: Vec<u64>,
    /// With sharding (v3), the shape of the chunks within a shard.
    pub inner_chunks: Option<Vec<u64>>,
    /// The element datatype, packed (no padding).
    pub datatype: Datatype,
    /// The byte order of numbers in the chunks.
    pub order: ByteOrder,
    /// The byte ranges, within one element, of the numbers in the order
    /// opposite to `order` (v2 only, whose `dtype` gives each field its
    /// own); empty for one order.
    pub other_order: Vec<Range<usize>>,
    /// The order of the elements within a chunk: Fortran order is v2's
    /// `order: "F"` and v3's `transpose` codec with the dimensions
    /// reversed, as zarr-python writes them. One-dimensional arrays are
    /// the same in both and are written as C.
    pub array_order: Order,
    /// The compression of each chunk.
    pub codec: Codec,
    /// v3: the legacy `structured` spelling of a record data type, with a
    /// base64 fill value, which zarr-python 3.1 reads.
    pub legacy_structured: bool,
    /// The attributes; `None` leaves them out of a v3 document.
    pub attributes: Option<Map<String, Value>>,
    /// The dimension names (v3 `dimension_names`, v2 `_ARRAY_DIMENSIONS`).
    pub dimension_names: Option<Vec<String>>,
}

impl ArrayDocument {
    /// An uncompressed little-endian array of `shape` elements of
    /// `datatype` in chunks of `chunks`, without attributes or dimension
    /// names.
    pub fn new(
        format: ZarrFormat,
        datatype: Datatype,
        shape: Vec<u64>,
        chunks: Vec<u64>,
    ) -> ArrayDocument {
        ArrayDocument {
            format,
            shape,
            chunks,
            inner_chunks: None,
            datatype,
            order: ByteOrder::Little,
            other_order: Vec::new(),
            array_order: Order::C,
            codec: Codec::None,
            legacy_structured: false,
            attributes: None,
            dimension_names: None,
        }
    }

    /// The `zarr.json` document (for a v2 array, the v3 equivalent with v2
    /// chunk keys, which readers of v3 read as the same array).
    pub fn v3(&self) -> Result<Value, LangError> {
        if !self.other_order.is_empty() {
            return Err(LangError::unsupported(
                Language::ZarrV3,
                &[],
                &self.datatype,
                "its fields mix byte orders, and the v3 `bytes` codec gives every number one; \
                 write Zarr v2, or the numbers in one order",
            ));
        }
        let mut data_type = self.datatype.to_zarr_v3_data_type()?;
        let mut fill = super::data_type::v3_fill_value(&self.datatype)?;
        if self.legacy_structured && matches!(self.datatype, Datatype::Compound(_)) {
            data_type = legacy_structured(&data_type);
            fill = json!(base64_zeros(self.datatype.size().unwrap_or(0)));
        }
        Ok(self.v3_with(data_type, fill))
    }

    /// The `zarr.json` document with `data_type` and `fill_value` given:
    /// for a reader that spells some data types its own way.
    pub fn v3_with(&self, data_type: Value, fill: Value) -> Value {
        let chunk_key_encoding = match self.format {
            ZarrFormat::V3 => json!({"name": "default", "configuration": {"separator": "/"}}),
            ZarrFormat::V2 => json!({"name": "v2", "configuration": {"separator": "."}}),
        };
        let mut doc = json!({
            "zarr_format": 3,
            "node_type": "array",
            "shape": self.shape,
            "data_type": data_type,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": self.chunks}},
            "chunk_key_encoding": chunk_key_encoding,
            "fill_value": fill,
            "codecs": self.v3_codecs(),
        });
        if let Some(attributes) = &self.attributes {
            doc["attributes"] = Value::Object(attributes.clone());
        }
        if let Some(names) = &self.dimension_names {
            doc["dimension_names"] = json!(names);
        }
        doc
    }

    /// Whether the elements are in Fortran order, which only an array of
    /// two or more dimensions tells apart from C.
    fn is_fortran(&self) -> bool {
        self.array_order == Order::Fortran && self.shape.len() > 1
    }

    /// The v3 codec list: `transpose` for Fortran order, `bytes` with the
    /// byte order (`vlen-utf8` for strings), then the compression; inside
    /// `sharding_indexed` with sharding, its index checked by `crc32c`.
    pub fn v3_codecs(&self) -> Vec<Value> {
        let codecs = self.v3_chunk_codecs();
        if !self.is_fortran() {
            return codecs;
        }
        let reversed: Vec<usize> = (0..self.shape.len()).rev().collect();
        std::iter::once(json!({"name": "transpose", "configuration": {"order": reversed}}))
            .chain(codecs)
            .collect()
    }

    /// The codec list from `bytes` on.
    fn v3_chunk_codecs(&self) -> Vec<Value> {
        let first = if self.datatype == Datatype::String {
            json!({"name": "vlen-utf8"})
        } else {
            json!({"name": "bytes", "configuration": {"endian": self.order.name()}})
        };
        let record = self.datatype.size().unwrap_or(0);
        let codecs: Vec<Value> = std::iter::once(first)
            .chain(self.codec.v3_codecs(record))
            .collect();
        let Some(inner) = &self.inner_chunks else {
            return codecs;
        };
        vec![json!({"name": "sharding_indexed", "configuration": {
            "chunk_shape": inner,
            "codecs": codecs,
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
            "index_location": "end",
        }})]
    }

    /// The `.zarray` document.
    pub fn v2(&self) -> Result<Value, LangError> {
        Ok(json!({
            "zarr_format": 2,
            "shape": self.shape,
            "chunks": self.chunks,
            "dtype": self.datatype.to_zarr_v2_dtype_mixed(self.order, &self.other_order)?,
            "compressor": self.codec.v2_compressor(),
            "fill_value": null,
            "order": if self.is_fortran() { "F" } else { "C" },
            "filters": null,
            "dimension_separator": ".",
        }))
    }

    /// The `.zattrs` document of a v2 array: its attributes, and its
    /// dimension names as `_ARRAY_DIMENSIONS` (xarray's convention).
    pub fn v2_attributes(&self) -> Value {
        let mut attributes = self.attributes.clone().unwrap_or_default();
        if let Some(names) = &self.dimension_names {
            attributes.insert("_ARRAY_DIMENSIONS".into(), json!(names));
        }
        Value::Object(attributes)
    }
}

/// The `zarr.json` of a group with `attributes`.
pub fn v3_group(attributes: &Map<String, Value>) -> Value {
    json!({"zarr_format": 3, "node_type": "group", "attributes": attributes})
}

/// The `.zgroup` of a group (its attributes are its `.zattrs`).
pub fn v2_group() -> Value {
    json!({"zarr_format": 2})
}

/// The chunk shape of a v3 document's chunk grid, if it is regular.
pub fn regular_chunks(doc: &Value) -> Option<Vec<u64>> {
    let grid = doc.get("chunk_grid")?;
    if grid.get("name")?.as_str()? != "regular" {
        return None;
    }
    serde_json::from_value(grid.pointer("/configuration/chunk_shape")?.clone()).ok()
}

/// Checks that a chunk grid fits a shape: one extent per dimension, none
/// 0, and a count of elements that 64 bits hold.
pub fn check_grid(shape: &[u64], chunks: &[u64]) -> Result<(), String> {
    if shape.len() != chunks.len() {
        return Err(format!(
            "the chunk shape {chunks:?} has {} dimensions, the shape {shape:?} has {}",
            chunks.len(),
            shape.len()
        ));
    }
    if chunks.contains(&0) {
        return Err(format!("the chunk shape {chunks:?} has an extent of 0"));
    }
    if shape
        .iter()
        .try_fold(1u64, |n, &d| n.checked_mul(d))
        .is_none()
    {
        return Err(format!(
            "the shape {shape:?} has more elements than a 64-bit count holds"
        ));
    }
    Ok(())
}

/// A Zarr v2 `.zarray` document for an uncompressed, C-ordered array of
/// `shape` elements of `dt`, without fill value, in chunks of `chunks`
/// (`None`: one chunk holding the whole array). A top-level array
/// datatype's shape is appended to both, as NumPy does.
///
/// ```
/// use ndl_runtime::lang::zarr::v2_array_metadata;
/// use ndl_runtime::npy::ByteOrder;
/// use ndl_runtime::Datatype;
///
/// let meta = v2_array_metadata(&Datatype::Int16, ByteOrder::Big, &[10], None).unwrap();
/// assert_eq!(meta["dtype"], ">i2");
/// assert_eq!(meta["chunks"], serde_json::json!([10]));
/// assert_eq!(meta["compressor"], serde_json::Value::Null);
/// ```
pub fn v2_array_metadata(
    dt: &Datatype,
    order: ByteOrder,
    shape: &[u64],
    chunks: Option<&[u64]>,
) -> Result<Value, LangError> {
    array_metadata(ZarrFormat::V2, dt, order, shape, chunks)
}

/// A Zarr v3 `zarr.json` document for an uncompressed array of `shape`
/// elements of `dt` stored with byte order `order` (the `bytes` codec's
/// `endian`), fill value zero, in regular chunks of `chunks` (`None`: one
/// chunk holding the whole array). A top-level array datatype's shape is
/// appended to both.
///
/// ```
/// use ndl_runtime::lang::zarr::v3_array_metadata;
/// use ndl_runtime::npy::ByteOrder;
/// use ndl_runtime::Datatype;
///
/// let meta = v3_array_metadata(&Datatype::Float32.array_of(&[3]), ByteOrder::Little, &[4], None).unwrap();
/// assert_eq!(meta["shape"], serde_json::json!([4, 3]));
/// assert_eq!(meta["data_type"], "float32");
/// assert_eq!(meta["fill_value"], 0.0);
/// assert_eq!(meta["codecs"][0]["configuration"]["endian"], "little");
/// ```
pub fn v3_array_metadata(
    dt: &Datatype,
    order: ByteOrder,
    shape: &[u64],
    chunks: Option<&[u64]>,
) -> Result<Value, LangError> {
    array_metadata(ZarrFormat::V3, dt, order, shape, chunks)
}

/// The array document of either format: a v3 one with empty attributes.
fn array_metadata(
    format: ZarrFormat,
    dt: &Datatype,
    order: ByteOrder,
    shape: &[u64],
    chunks: Option<&[u64]>,
) -> Result<Value, LangError> {
    let language = match format {
        ZarrFormat::V2 => Language::ZarrV2,
        ZarrFormat::V3 => Language::ZarrV3,
    };
    let dt = dt.folded();
    let (element, shape, chunks) = fold_array(&dt, shape, chunks, language)?;
    let document = ArrayDocument {
        order,
        ..ArrayDocument::new(format, element.clone(), shape, chunks)
    };
    match format {
        ZarrFormat::V2 => document.v2(),
        ZarrFormat::V3 => ArrayDocument {
            attributes: Some(Map::new()),
            ..document
        }
        .v3(),
    }
}

type Folded<'a> = (&'a Datatype, Vec<u64>, Vec<u64>);

/// Splits a top-level array datatype into its element and appends its
/// shape to the array shape and the chunk shape.
fn fold_array<'a>(
    dt: &'a Datatype,
    shape: &[u64],
    chunks: Option<&[u64]>,
    language: Language,
) -> Result<Folded<'a>, LangError> {
    let mut chunks = match chunks {
        Some(c) if c.len() != shape.len() => {
            return Err(LangError::Shape {
                language,
                why: format!(
                    "the chunk shape {c:?} has {} dimensions, the array shape {shape:?} has {}",
                    c.len(),
                    shape.len()
                ),
            });
        }
        Some(c) => c.to_vec(),
        // Zarr chunks must be at least 1 long, even along an empty dimension.
        None => shape.iter().map(|&d| d.max(1)).collect(),
    };
    if chunks.contains(&0) {
        return Err(LangError::Shape {
            language,
            why: format!("chunk shape {chunks:?} has a zero extent"),
        });
    }
    let mut shape = shape.to_vec();
    let element = match dt {
        Datatype::Array(a) => {
            let extra = a.shape.iter().map(|&d| d as u64);
            shape.extend(extra.clone());
            chunks.extend(extra.map(|d| d.max(1)));
            &*a.base
        }
        other => other,
    };
    Ok((element, shape, chunks))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Compound;

    fn record() -> Datatype {
        Datatype::Compound(
            Compound::c_layout([("a", Datatype::UInt8), ("b", Datatype::UInt8)]).unwrap(),
        )
    }

    #[test]
    fn sharding_wraps_the_codecs_and_the_grid_is_the_shard() {
        let doc = ArrayDocument {
            inner_chunks: Some(vec![2]),
            codec: Codec::Zstd(3),
            ..ArrayDocument::new(ZarrFormat::V3, Datatype::UInt32, vec![10], vec![8])
        };
        let v3 = doc.v3().unwrap();
        assert_eq!(v3["chunk_grid"]["configuration"]["chunk_shape"], json!([8]));
        let shard = &v3["codecs"][0];
        assert_eq!(shard["name"], "sharding_indexed");
        assert_eq!(shard["configuration"]["chunk_shape"], json!([2]));
        assert_eq!(shard["configuration"]["codecs"][1]["name"], "zstd");
        assert_eq!(shard["configuration"]["index_codecs"][1]["name"], "crc32c");
    }

    #[test]
    fn legacy_structured_spells_records_as_pairs_with_a_base64_fill() {
        let doc = ArrayDocument {
            legacy_structured: true,
            ..ArrayDocument::new(ZarrFormat::V3, record(), vec![1], vec![1])
        };
        let v3 = doc.v3().unwrap();
        assert_eq!(
            v3["data_type"],
            json!({"name": "structured", "configuration": {"fields": [["a", "uint8"], ["b", "uint8"]]}})
        );
        assert_eq!(v3["fill_value"], "AAA=");
        // A scalar has one spelling only.
        let scalar = ArrayDocument {
            legacy_structured: true,
            ..ArrayDocument::new(ZarrFormat::V3, Datatype::Int8, vec![1], vec![1])
        };
        assert_eq!(scalar.v3().unwrap()["data_type"], "int8");
    }

    #[test]
    fn attributes_and_dimension_names_are_written_only_when_given() {
        let bare = ArrayDocument::new(ZarrFormat::V3, Datatype::Int8, vec![1], vec![1]);
        let v3 = bare.v3().unwrap();
        assert!(v3.get("attributes").is_none() && v3.get("dimension_names").is_none());
        assert_eq!(bare.v2_attributes(), json!({}));
        let named = ArrayDocument {
            attributes: Some(Map::new()),
            dimension_names: Some(vec!["t".into()]),
            ..bare
        };
        let v3 = named.v3().unwrap();
        assert_eq!(
            (&v3["attributes"], &v3["dimension_names"]),
            (&json!({}), &json!(["t"]))
        );
        assert_eq!(named.v2_attributes(), json!({"_ARRAY_DIMENSIONS": ["t"]}));
    }

    #[test]
    fn a_v2_array_has_v2_chunk_keys_in_its_v3_form_and_its_codec_as_compressor() {
        let doc = ArrayDocument {
            codec: Codec::Zlib(4),
            order: ByteOrder::Big,
            ..ArrayDocument::new(ZarrFormat::V2, Datatype::UInt16, vec![3], vec![2])
        };
        let v3 = doc.v3_with(json!("uint16"), json!(0));
        assert_eq!(v3["chunk_key_encoding"]["name"], "v2");
        assert_eq!(v3["codecs"][0]["configuration"]["endian"], "big");
        let v2 = doc.v2().unwrap();
        assert_eq!(
            (&v2["dtype"], &v2["compressor"]),
            (&json!(">u2"), &json!({"id": "zlib", "level": 4}))
        );
    }

    #[test]
    fn fortran_order_is_v2_order_f_and_a_v3_transpose_reversing_the_dimensions() {
        let doc = ArrayDocument {
            array_order: Order::Fortran,
            ..ArrayDocument::new(
                ZarrFormat::V3,
                Datatype::UInt16,
                vec![3, 4, 5],
                vec![3, 4, 5],
            )
        };
        let v3 = doc.v3().unwrap();
        assert_eq!(
            v3["codecs"][0],
            json!({"name": "transpose", "configuration": {"order": [2, 1, 0]}})
        );
        assert_eq!(v3["codecs"][1]["name"], "bytes");
        assert_eq!(doc.v2().unwrap()["order"], "F");
        // One dimension is the same in either order: written as C.
        let flat = ArrayDocument {
            shape: vec![3],
            chunks: vec![3],
            ..doc
        };
        assert_eq!(flat.v3().unwrap()["codecs"][0]["name"], "bytes");
        assert_eq!(flat.v2().unwrap()["order"], "C");
    }

    #[test]
    fn strings_take_the_vlen_codec() {
        let doc = ArrayDocument::new(ZarrFormat::V3, Datatype::String, vec![2], vec![2]);
        assert_eq!(doc.v3_codecs(), [json!({"name": "vlen-utf8"})]);
        assert_eq!(doc.v3().unwrap()["fill_value"], "");
    }

    #[test]
    fn groups_and_grids() {
        let attributes: Map<String, Value> =
            [("title".to_string(), json!("x"))].into_iter().collect();
        assert_eq!(v3_group(&attributes)["attributes"]["title"], "x");
        assert_eq!(v2_group(), json!({"zarr_format": 2}));
        let doc =
            json!({"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 1]}}});
        assert_eq!(regular_chunks(&doc), Some(vec![4, 1]));
        assert_eq!(
            regular_chunks(&json!({"chunk_grid": {"name": "rectilinear"}})),
            None
        );
        assert!(check_grid(&[4, 1], &[4, 1]).is_ok());
        assert!(
            check_grid(&[4], &[4, 1])
                .unwrap_err()
                .contains("dimensions")
        );
        assert!(check_grid(&[4], &[0]).unwrap_err().contains("extent of 0"));
        assert!(
            check_grid(&[u64::MAX, 2], &[1, 1])
                .unwrap_err()
                .contains("64-bit")
        );
    }
}
